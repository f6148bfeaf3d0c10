//! Variables, and the computations being built.
//!
//! Each computation under construction is a [`Frame`]: the function's body,
//! a closure (reduce, map, sort, scatter), a loop's condition or body, or a
//! branch of an `if`. Frames nest. A variable of an outer frame read inside
//! a loop or branch is *captured*: XLA computations see only their
//! parameters, so the value travels in the loop state or the branch operand
//! (a tuple), and the inner frame reads it with a get-tuple-element. A
//! closure cannot capture (a reduction computation has exactly its scalar
//! parameters), except literal constants, which are re-created inside.

use std::collections::HashMap;

use crate::types::ExactDim;
use xla_core::{Opcode, Shape};

use crate::ast::{BinOp, DimExpr, Range};
use crate::ir::{Comp, Instr, ParamShape, ValueId};

/// A value's type during checking.
#[derive(Clone, Debug)]
pub enum Ty {
    /// A checked shape with symbolic sizes.
    Shape(Shape<ExactDim>),
    /// A literal without a type yet: it takes the element type of the
    /// operand it meets (`x * 2.0`), as JAX's weakly typed Python scalars.
    Weak(Weak),
    /// The value of an expression that failed to check. Checks that depend
    /// on it are skipped, so one mistake gives one error.
    Error,
}

/// A number whose element type comes from where it is used.
#[derive(Clone, Debug)]
pub enum Weak {
    Int(i128),
    Float(f64),
    /// A dimension's size (`N` used as a value), known when the
    /// computation is built.
    Size(DimExpr),
    /// Arithmetic on weak numbers that does not fold to a number or a
    /// size: a float with a size (`1.0 / N`), or a floating-point op of a
    /// weak number (`D.sqrt()`). It is computed in the element type the
    /// value takes (`x * (1.0 / N)` with `x: f16[N]` divides in f16), as
    /// JAX computes a Python expression before it meets an array.
    Deferred(Box<Deferred>),
}

/// The operation of a [`Weak::Deferred`] number, on weak operands.
#[derive(Clone, Debug)]
pub enum Deferred {
    /// `+ - * /`.
    Binary(BinOp, Val, Val),
    /// An element-wise unary op: the opcode and the builder method.
    Unary(Opcode, &'static str, Val),
}

/// A checked expression: its type and the instruction computing it (none
/// for weak literals and errors).
#[derive(Clone, Debug)]
pub struct Val {
    pub ty: Ty,
    pub id: Option<ValueId>,
    pub range: Range,
}

impl Val {
    pub fn error(range: Range) -> Self {
        Val {
            ty: Ty::Error,
            id: None,
            range,
        }
    }

    pub fn shape(shape: Shape<ExactDim>, id: ValueId, range: Range) -> Self {
        Val {
            ty: Ty::Shape(shape),
            id: Some(id),
            range,
        }
    }

    pub fn is_error(&self) -> bool {
        matches!(self.ty, Ty::Error)
    }
}

/// A variable.
#[derive(Clone, Debug)]
pub struct Binding {
    pub ty: Ty,
    pub id: Option<ValueId>,
    pub mutable: bool,
    /// For a `let mut` variable initialized by a literal, which took a type
    /// then (`let mut total = 0.0;` is f32): the `let`, so that a use
    /// showing it needs another type (`total + x` with `x: f64`) can ask
    /// for the function to be checked again with that type, as JAX
    /// promotes a weakly typed loop init.
    pub weak_site: Option<usize>,
}

impl Binding {
    pub fn val(&self, range: Range) -> Val {
        Val {
            ty: self.ty.clone(),
            id: self.id,
            range,
        }
    }
}

/// What a frame computes.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum FrameKind {
    /// The function's own computation.
    Function,
    /// A closure passed to an op (`reduce`, `map` …): no captures.
    Closure(&'static str),
    /// A loop's condition or body: captures travel in the loop state.
    Loop,
    /// A branch of an `if`: captures travel in the branch operand.
    Branch,
}

/// An outer variable threaded into a loop or branch.
#[derive(Clone, Debug)]
pub struct Capture {
    pub name: String,
    /// The value outside, in the enclosing frame.
    pub outer: ValueId,
    /// The value inside: the get-tuple-element of the state, or the value
    /// last assigned in the body.
    pub current: Binding,
    pub assigned: bool,
}

pub struct Frame {
    pub kind: FrameKind,
    pub name: String,
    pub params: Vec<ParamShape>,
    pub instrs: Vec<Instr>,
    /// Block scopes, innermost last.
    pub scopes: Vec<HashMap<String, Binding>>,
    pub captures: Vec<Capture>,
    /// The state parameter of a loop or branch frame.
    pub state: Option<ValueId>,
}

impl Frame {
    pub fn new(kind: FrameKind, name: String) -> Self {
        Frame {
            kind,
            name,
            params: Vec::new(),
            instrs: Vec::new(),
            scopes: vec![HashMap::new()],
            captures: Vec::new(),
            state: None,
        }
    }

    pub fn push(&mut self, instr: Instr) -> ValueId {
        self.instrs.push(instr);
        self.instrs.len() - 1
    }

    /// Adds a parameter; returns its value.
    pub fn param(&mut self, shape: ParamShape) -> ValueId {
        let n = self.params.len();
        self.params.push(shape);
        self.push(Instr::Param(n))
    }

    pub fn finish(self, root: ValueId) -> Comp {
        Comp {
            name: self.name,
            params: self.params,
            instrs: self.instrs,
            root,
        }
    }

    fn local(&self, name: &str) -> Option<&Binding> {
        self.scopes.iter().rev().find_map(|s| s.get(name))
    }

    fn local_mut(&mut self, name: &str) -> Option<&mut Binding> {
        self.scopes.iter_mut().rev().find_map(|s| s.get_mut(name))
    }
}

/// Why a variable cannot be read.
pub enum LookupError {
    Unknown,
    /// Defined outside the closure that reads it.
    Captured {
        closure: &'static str,
    },
}

/// The frame stack.
#[derive(Default)]
pub struct Frames {
    pub stack: Vec<Frame>,
}

impl Frames {
    pub fn top(&mut self) -> &mut Frame {
        self.stack.last_mut().expect("a frame is open")
    }

    pub fn push_instr(&mut self, instr: Instr) -> ValueId {
        self.top().push(instr)
    }

    pub fn define(&mut self, name: String, binding: Binding) {
        let scope = self.top().scopes.last_mut().expect("a scope is open");
        scope.insert(name, binding);
    }

    pub fn open_scope(&mut self) {
        self.top().scopes.push(HashMap::new());
    }

    pub fn close_scope(&mut self) {
        self.top().scopes.pop();
    }

    /// The variable `name` as seen from the innermost frame, capturing it
    /// into loops and branches on the way.
    pub fn lookup(&mut self, name: &str) -> Result<Binding, LookupError> {
        let top = self.stack.len() - 1;
        self.lookup_in(top, name)
    }

    fn lookup_in(&mut self, f: usize, name: &str) -> Result<Binding, LookupError> {
        if let Some(b) = self.stack[f].local(name) {
            return Ok(b.clone());
        }
        if let Some(c) = self.stack[f].captures.iter().find(|c| c.name == name) {
            return Ok(c.current.clone());
        }
        if f == 0 {
            return Err(LookupError::Unknown);
        }
        let outer = self.lookup_in(f - 1, name)?;
        let (Some(outer_id), Ty::Shape(shape)) = (outer.id, &outer.ty) else {
            // Weak literals are re-created where used; errors stay errors.
            return Ok(outer);
        };
        match self.stack[f].kind {
            FrameKind::Closure(closure) => Err(LookupError::Captured { closure }),
            FrameKind::Function => unreachable!("only the outermost frame is a function"),
            FrameKind::Loop | FrameKind::Branch => {
                let frame = &mut self.stack[f];
                let state = frame.state.expect("loop and branch frames have a state");
                let index = frame.captures.len();
                let id = frame.push(Instr::GetTupleElement(state, index));
                let current = Binding {
                    ty: Ty::Shape(shape.clone()),
                    id: Some(id),
                    mutable: outer.mutable,
                    weak_site: outer.weak_site,
                };
                frame.captures.push(Capture {
                    name: name.to_string(),
                    outer: outer_id,
                    current: current.clone(),
                    assigned: false,
                });
                Ok(current)
            }
        }
    }

    /// Rebinds `name` to `value` in the innermost frame (an assignment).
    /// The caller has checked that the variable exists, is mutable and
    /// keeps its type. A loop or branch carries an outer variable's new
    /// value out (it is marked assigned). Returns `false` if the frame
    /// cannot (a closure assigning an outer variable).
    pub fn assign(&mut self, name: &str, value: Binding) -> bool {
        let f = self.stack.len() - 1;
        self.assign_in(f, name, value)
    }

    fn assign_in(&mut self, f: usize, name: &str, value: Binding) -> bool {
        if let Some(b) = self.stack[f].local_mut(name) {
            b.ty = value.ty;
            b.id = value.id;
            return true;
        }
        if !matches!(self.stack[f].kind, FrameKind::Loop | FrameKind::Branch) {
            return false;
        }
        if self.lookup_in(f, name).is_err() {
            return false;
        }
        match self.stack[f].captures.iter_mut().find(|c| c.name == name) {
            Some(c) => {
                c.current.ty = value.ty;
                c.current.id = value.id;
                c.assigned = true;
                true
            }
            // A weak literal variable is never mutable (see `let mut`).
            None => false,
        }
    }
}
