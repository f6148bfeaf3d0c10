//! `XlaBuilder`: XLA's client API in Rust (`xla/hlo/builder/xla_builder.h`).
//!
//! A builder records instructions of one computation; every op method checks
//! its operands with the shape-inference rule of [`crate::infer`] (never a
//! second copy of it), emits HLO instructions with default layouts, and
//! returns an [`XlaOp`] handle. Sub-computations (reducers, loop bodies,
//! branches) are built with their own builders and passed as
//! [`XlaComputation`]s; they are embedded into the module under unique
//! names. [`XlaBuilder::build`] produces a verified module.
//!
//! ```
//! use xla_core::builder::{XlaBuilder, create_scalar_computation};
//! use xla_core::{PrimitiveType::F32, Shape};
//!
//! let add = create_scalar_computation("add", F32, |b, x, y| b.add(x, y, &[]))?;
//! let b = XlaBuilder::new("row_sum");
//! let x = b.parameter(0, &"f32[4,8]".parse()?, "x")?;
//! let zero = b.constant_r0(0f32)?;
//! let sum = b.reduce(&[x], &[zero], &add, &[1])?;
//! let computation = b.build(sum)?;
//! assert_eq!(computation.program_shape().to_string(), "(f32[4,8]{1,0}) -> f32[4]{0}");
//! # Ok::<(), xla_core::Error>(())
//! ```

mod collective;
mod control;
mod data_movement;
mod dot;
mod dynamic;
mod elementwise;
mod indexing;
mod linalg;
mod normalization;
mod random;
mod reduce;
mod side_effect;

use std::cell::RefCell;
use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, Ordering};

pub use dot::ConvConfig;
pub use indexing::ScatterOptions;
pub use normalization::BatchNormOptions;
pub use reduce::make_window;

pub use crate::error::BuilderError;
use crate::hlo::{
    Attrs, ComputationId, HloComputation, HloInstruction, HloModule, InstrId, Opcode, ProgramShape,
};
use crate::verify::verify_module;
use crate::{PrimitiveType, Result, Shape};

/// A handle to a value built by one [`XlaBuilder`]: the builder's unique id
/// and the instruction's position. Using it with another builder is an
/// error.
#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
pub struct XlaOp {
    builder: u64,
    id: InstrId,
}

/// A built computation: an HLO module whose entry is the builder's
/// computation, with every sub-computation it calls.
#[derive(Clone, Debug)]
pub struct XlaComputation {
    /// Unique per build, so that embedding the same computation twice
    /// reuses it.
    id: u64,
    module: HloModule,
}

impl XlaComputation {
    /// The entry's parameter and result shapes.
    pub fn program_shape(&self) -> ProgramShape {
        self.module.entry_program_shape()
    }

    /// A computation holding `module` (its entry and everything it calls),
    /// verified.
    pub fn from_module(module: HloModule) -> Result<Self> {
        verify_module(&module)?;
        Ok(XlaComputation {
            id: fresh_id(),
            module,
        })
    }

    /// The module.
    pub fn module(&self) -> &HloModule {
        &self.module
    }

    /// Takes the module out.
    pub fn into_module(self) -> HloModule {
        self.module
    }

    /// The entry computation's name.
    pub fn name(&self) -> &str {
        &self.module.entry_computation().name
    }
}

static NEXT_ID: AtomicU64 = AtomicU64::new(1);

fn fresh_id() -> u64 {
    NEXT_ID.fetch_add(1, Ordering::Relaxed)
}

/// Builds one computation (see the module docs).
#[derive(Debug)]
pub struct XlaBuilder {
    id: u64,
    name: String,
    state: RefCell<State>,
}

#[derive(Debug, Default)]
struct State {
    instructions: Vec<HloInstruction>,
    /// Embedded sub-computations, renamed to be unique in this module.
    computations: Vec<HloComputation>,
    /// `XlaComputation::id` → the embedded copy of its entry.
    embedded: HashMap<u64, ComputationId>,
    /// The suffix of the next instruction or computation name (`add.3`).
    next_suffix: u64,
    /// Parameter number → its instruction.
    parameters: HashMap<i64, InstrId>,
}

impl XlaBuilder {
    /// A builder for a computation named `name`.
    pub fn new(name: impl Into<String>) -> Self {
        XlaBuilder {
            id: fresh_id(),
            name: sanitize(&name.into()),
            state: RefCell::new(State {
                next_suffix: 1,
                ..State::default()
            }),
        }
    }

    /// The computation's name.
    pub fn name(&self) -> &str {
        &self.name
    }

    /// Makes room for `additional` more instructions (a builder filled
    /// from a known program grows once).
    pub fn reserve(&self, additional: usize) {
        self.state.borrow_mut().instructions.reserve(additional);
    }

    /// The shape of `op` (with its layout).
    pub fn get_shape(&self, op: XlaOp) -> Result<Shape> {
        Ok(self.shapes("get_shape", &[op])?.remove(0))
    }

    /// Finishes the computation with `root` as its result and returns the
    /// verified module (the builder stays usable).
    pub fn build(&self, root: XlaOp) -> Result<XlaComputation> {
        self.check_ops("build", &[root])?;
        let state = self.state.borrow();
        self.finish(
            state.computations.clone(),
            state.instructions.clone(),
            state.next_suffix,
            root,
        )
    }

    /// [`build`](Self::build) that consumes the builder instead of copying
    /// its instructions (for large computations built once).
    pub fn into_computation(self, root: XlaOp) -> Result<XlaComputation> {
        self.check_ops("into_computation", &[root])?;
        let state = std::mem::take(&mut *self.state.borrow_mut());
        self.finish(
            state.computations,
            state.instructions,
            state.next_suffix,
            root,
        )
    }

    /// The verified module of `instructions` (rooted at `root`) and the
    /// embedded `computations`.
    fn finish(
        &self,
        mut computations: Vec<HloComputation>,
        instructions: Vec<HloInstruction>,
        next_suffix: u64,
        root: XlaOp,
    ) -> Result<XlaComputation> {
        let mut name = self.name.clone();
        if computations.iter().any(|c| c.name == name) {
            name = format!("{name}.{next_suffix}");
        }
        computations.push(HloComputation {
            name,
            instructions,
            root: root.id,
        });
        let entry = ComputationId(computations.len() as u32 - 1);
        let module = HloModule::new(self.name.clone(), computations, entry);
        verify_module(&module)?;
        Ok(XlaComputation {
            id: fresh_id(),
            module,
        })
    }

    /// Appends a copy of `instr`, an instruction of another computation
    /// (XLA's `AddInstruction`), with `operands` and `called` in place of
    /// its own; shape inference checks it (the declared shape must be the
    /// inferred one), and it keeps its declared shape.
    /// A parameter is added as [`parameter`](Self::parameter) adds one.
    pub fn add_instruction(
        &self,
        instr: &HloInstruction,
        operands: &[XlaOp],
        called: &[&XlaComputation],
    ) -> Result<XlaOp> {
        let method = instr.opcode.name();
        if instr.opcode == Opcode::Parameter {
            let number = instr.attrs.parameter_number.unwrap_or(0);
            return self.parameter(number, &instr.shape, base_name(&instr.name));
        }
        let shapes = self.shapes(method, operands)?;
        let refs: Vec<&Shape> = shapes.iter().collect();
        let programs: Vec<ProgramShape> = called.iter().map(|c| c.program_shape()).collect();
        let inferred = crate::infer::infer_instruction(
            instr.opcode,
            &refs,
            &instr.attrs,
            &programs,
            &instr.shape,
        )?;
        if !crate::verify::same_shape(&inferred, &instr.shape) {
            return Err(crate::verify::VerifyError::ShapeMismatch {
                instruction: instr.name.clone(),
                opcode: instr.opcode,
                inferred: Box::new(inferred),
                declared: Box::new(instr.shape.clone().without_layouts()),
            }
            .into());
        }
        let called = called.iter().map(|c| self.embed(c)).collect();
        let name = self.next_name(base_name(&instr.name));
        let shape = instr.shape.clone();
        Ok(self.emit_named(
            name,
            instr.opcode,
            shape,
            operands,
            instr.attrs.clone(),
            called,
        ))
    }

    /// Checks that every op was built here.
    fn check_ops(&self, method: &'static str, ops: &[XlaOp]) -> Result<()> {
        match ops.iter().position(|op| op.builder != self.id) {
            Some(index) => Err(BuilderError::ForeignOp {
                method,
                index,
                builder: self.name.clone(),
            }
            .into()),
            None => Ok(()),
        }
    }

    /// The shapes of `ops`, after checking they were built here.
    fn shapes(&self, method: &'static str, ops: &[XlaOp]) -> Result<Vec<Shape>> {
        self.check_ops(method, ops)?;
        let state = self.state.borrow();
        Ok(ops
            .iter()
            .map(|op| state.instructions[op.id.index()].shape.clone())
            .collect())
    }

    /// The array shape of one op (an inference error names it if it is not
    /// an array).
    fn array(&self, method: &'static str, op: XlaOp, index: usize) -> Result<crate::ArrayShape> {
        if op.builder != self.id {
            return Err(BuilderError::ForeignOp {
                method,
                index,
                builder: self.name.clone(),
            }
            .into());
        }
        let shape = self.state.borrow().instructions[op.id.index()]
            .shape
            .clone();
        match shape {
            Shape::Array(a) => Ok(a),
            other => Err(crate::infer::InferError::OperandKind {
                op: method,
                index,
                expected: crate::infer::Kind::Array,
                shape: Box::new(other.without_layouts()),
            }
            .into()),
        }
    }

    /// The array shapes of several ops.
    fn arrays(&self, method: &'static str, ops: &[XlaOp]) -> Result<Vec<crate::ArrayShape>> {
        ops.iter()
            .enumerate()
            .map(|(i, &op)| self.array(method, op, i))
            .collect()
    }

    /// Appends an instruction whose shape inference has checked; the shape
    /// gets default layouts where it has none.
    fn emit(
        &self,
        opcode: Opcode,
        shape: impl Into<Shape>,
        operands: &[XlaOp],
        attrs: Attrs,
        called: Vec<ComputationId>,
    ) -> XlaOp {
        let name = self.next_name(opcode.name());
        self.emit_named(name, opcode, shape.into(), operands, attrs, called)
    }

    /// [`Self::emit`] with a given instruction name.
    fn emit_named(
        &self,
        name: String,
        opcode: Opcode,
        shape: Shape,
        operands: &[XlaOp],
        attrs: Attrs,
        called: Vec<ComputationId>,
    ) -> XlaOp {
        let mut state = self.state.borrow_mut();
        let id = InstrId(state.instructions.len() as u32);
        state.instructions.push(HloInstruction {
            name,
            opcode,
            shape: shape.with_default_layouts(),
            operands: operands.iter().map(|op| op.id).collect(),
            called,
            attrs,
        });
        XlaOp {
            builder: self.id,
            id,
        }
    }

    /// `base.N` with a fresh `N`.
    fn next_name(&self, base: &str) -> String {
        let mut state = self.state.borrow_mut();
        let suffix = state.next_suffix;
        state.next_suffix += 1;
        format!("{base}.{suffix}")
    }

    /// Embeds `computation` (and everything it calls) into this builder's
    /// module, once; returns the id of its entry.
    fn embed(&self, computation: &XlaComputation) -> ComputationId {
        if let Some(&id) = self.state.borrow().embedded.get(&computation.id) {
            return id;
        }
        let source = &computation.module;
        let mut remap = Vec::with_capacity(source.computations.len());
        for c in &source.computations {
            let mut copy = c.clone();
            for instr in &mut copy.instructions {
                instr.name = self.next_name(base_name(&instr.name));
            }
            let mut state = self.state.borrow_mut();
            let taken =
                |name: &str| name == self.name || state.computations.iter().any(|x| x.name == name);
            if taken(&copy.name) {
                copy.name = format!("{}.{}", base_name(&copy.name), state.next_suffix);
                state.next_suffix += 1;
            }
            remap.push(ComputationId(state.computations.len() as u32));
            state.computations.push(copy);
        }
        let mut state = self.state.borrow_mut();
        let first = remap[0].index();
        for c in &mut state.computations[first..] {
            for instr in &mut c.instructions {
                for id in &mut instr.called {
                    *id = remap[id.index()];
                }
            }
        }
        let entry = remap[source.entry.index()];
        state.embedded.insert(computation.id, entry);
        entry
    }
}

/// A name without its `.N` suffix: `add.3` → `add`.
fn base_name(name: &str) -> &str {
    match name.rsplit_once('.') {
        Some((base, suffix)) if !base.is_empty() && suffix.bytes().all(|b| b.is_ascii_digit()) => {
            base
        }
        _ => name,
    }
}

/// A name HLO text can hold: letters, digits, `_`, `-` and `.`; anything
/// else becomes `_`, and an empty name becomes `computation`.
pub(crate) fn sanitize(name: &str) -> String {
    if name.is_empty() {
        return "computation".to_string();
    }
    name.chars()
        .map(|c| {
            if c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | '.') {
                c
            } else {
                '_'
            }
        })
        .collect()
}

/// A computation `(T[], T[]) -> T[]` of two scalar parameters `x`, `y`
/// (XLA's `CreateScalarAddComputation` and friends): `op` builds the
/// result.
///
/// ```
/// use xla_core::builder::create_scalar_computation;
/// use xla_core::PrimitiveType::S32;
///
/// let max = create_scalar_computation("max", S32, |b, x, y| b.max(x, y, &[]))?;
/// assert_eq!(max.program_shape().to_string(), "(s32[], s32[]) -> s32[]");
/// # Ok::<(), xla_core::Error>(())
/// ```
pub fn create_scalar_computation(
    name: &str,
    element_type: PrimitiveType,
    op: impl FnOnce(&XlaBuilder, XlaOp, XlaOp) -> Result<XlaOp>,
) -> Result<XlaComputation> {
    let b = XlaBuilder::new(name);
    let scalar = Shape::scalar(element_type);
    let x = b.parameter(0, &scalar, "x")?;
    let y = b.parameter(1, &scalar, "y")?;
    let root = op(&b, x, y)?;
    b.build(root)
}
