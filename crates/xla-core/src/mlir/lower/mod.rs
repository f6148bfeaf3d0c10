//! StableHLO (in the [`ir`](super::ir) form) to an [`HloModule`]: one HLO
//! computation per function, regions as called computations, `chlo` ops
//! expanded into the HLO that XLA makes of them.
//!
//! Every instruction goes through [`XlaBuilder::add_instruction`], so shape
//! inference checks each op against the result type the module declares.
//! Regions that use values defined outside them (the branches of `case`,
//! the body of `while`) get those values as extra parameters: appended to a
//! branch's operand tuple, carried unchanged through a loop.

mod chlo;
mod ops;

use std::collections::{HashMap, HashSet};
use std::fmt;
use std::rc::Rc;

use super::ir::{Attr, Block, ElementType, Location, Module, Operation, Type, Value};
use crate::{HloModule, PrimitiveType, Shape, XlaBuilder, XlaComputation, XlaOp};

/// Why a StableHLO module cannot become an HLO module: the op, where it
/// came from, and what is wrong.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
pub struct LowerError {
    /// The op's name (`stablehlo.gather`), or `module` for the module.
    pub op: String,
    /// The op's source location, when the module has one.
    pub location: Option<Location>,
    /// What is wrong.
    pub message: String,
}

impl fmt::Display for LowerError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "`{}`", self.op)?;
        if let Some(loc) = &self.location {
            if let Some((file, line, col)) = &loc.file {
                write!(f, " at {file}:{line}:{col}")?;
            }
            if let Some(name) = &loc.name {
                write!(f, " ({name})")?;
            }
        }
        write!(f, ": {}", self.message)
    }
}

/// Errors of one op, before the op is known.
pub(crate) type OpResult<T> = std::result::Result<T, String>;

/// Lowers a StableHLO module to HLO: the entry is the public function
/// `main` (or the only public function).
pub fn lower_module(module: &Module) -> Result<HloModule, LowerError> {
    let module_error = |message: String| LowerError {
        op: "module".into(),
        location: None,
        message,
    };
    let mut funcs = HashMap::new();
    for op in &module.ops {
        match op.name.as_str() {
            "func.func" => {
                let name = string_attr(op, "sym_name").map_err(module_error)?;
                funcs.insert(name, op);
            }
            "sdy.mesh" => {}
            other => return Err(module_error(format!("unexpected top-level op `{other}`"))),
        }
    }
    let entry = if funcs.contains_key("main") {
        "main".to_string()
    } else {
        let public: Vec<&String> = funcs
            .iter()
            .filter(|(_, op)| !matches!(op.attr("sym_visibility"), Some(Attr::String(v)) if v != b"public"))
            .map(|(name, _)| name)
            .collect();
        match public.as_slice() {
            [one] => (*one).clone(),
            _ => return Err(module_error("no public function `main`".into())),
        }
    };
    lower_function(module, &entry)
}

/// Lowers function `entry` of a StableHLO module (and the functions it
/// calls) to an HLO module with `entry` as its entry computation.
pub fn lower_function(module: &Module, entry: &str) -> Result<HloModule, LowerError> {
    let mut funcs = HashMap::new();
    for op in &module.ops {
        if op.name == "func.func" {
            if let Ok(name) = string_attr(op, "sym_name") {
                funcs.insert(name, op);
            }
        }
    }
    let mut lowering = Lowering {
        funcs,
        done: HashMap::new(),
        active: Vec::new(),
        constants: HashMap::new(),
    };
    let computation = lowering.function(entry)?;
    // The lowering's cache holds the other reference.
    drop(lowering);
    let computation = Rc::try_unwrap(computation).unwrap_or_else(|shared| (*shared).clone());
    let mut hlo = computation.into_module();
    hlo.name = sanitize(&module.name.clone().unwrap_or_else(|| entry.to_string()));
    Ok(hlo)
}

/// A module name HLO text can hold.
fn sanitize(name: &str) -> String {
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

/// The state of one lowering: the module's functions and those built.
pub(crate) struct Lowering<'m> {
    funcs: HashMap<String, &'m Operation>,
    done: HashMap<String, Rc<XlaComputation>>,
    active: Vec<String>,
    /// The constants of the functions being lowered, by function and
    /// value: a region that uses one from outside (JAX's serializer hoists
    /// constants out of comparators) gets its own copy.
    constants: HashMap<(String, Value), &'m Operation>,
}

/// The XLA ops of the values in scope.
pub(crate) type Env = HashMap<Value, XlaOp>;

/// How a region's computation takes its arguments.
#[derive(Copy, Clone, PartialEq, Eq)]
pub(crate) enum Params {
    /// One parameter per block argument (reducers, comparators).
    Flat,
    /// One tuple of the block arguments then the captured values (loops).
    Tuple,
    /// The one value, or a tuple of several (a branch's captured values,
    /// as XLA passes them).
    Operand,
}

/// What a region's computation returns.
#[derive(Copy, Clone, PartialEq, Eq)]
pub(crate) enum Root {
    /// The returned value, or a tuple of several.
    Values,
    /// A tuple of the returned values then the captured values (a loop
    /// body: its result is its parameter's next value).
    Carry,
}

impl<'m> Lowering<'m> {
    /// The computation of function `name`, built once.
    fn function(&mut self, name: &str) -> Result<Rc<XlaComputation>, LowerError> {
        if let Some(done) = self.done.get(name) {
            return Ok(Rc::clone(done));
        }
        let op = *self.funcs.get(name).ok_or_else(|| LowerError {
            op: "func.call".into(),
            location: None,
            message: format!("no function `@{name}` in the module"),
        })?;
        let error = |message: String| LowerError {
            op: format!("func.func @{name}"),
            location: op.loc.clone(),
            message,
        };
        if self.active.iter().any(|a| a == name) {
            return Err(error("recursive calls are not supported".into()));
        }
        let block = op
            .regions
            .first()
            .and_then(|r| r.blocks.first())
            .ok_or_else(|| error("a declaration without a body".into()))?;
        self.active.push(name.to_string());
        let built = self.region(name, block, Params::Flat, &[], Root::Values);
        self.active.pop();
        let built = Rc::new(built?);
        self.done.insert(name.to_string(), Rc::clone(&built));
        Ok(built)
    }

    /// A region's block as a computation named `name`; `captures` are
    /// values of the enclosing scope the block uses, with their shapes.
    pub(crate) fn region(
        &mut self,
        name: &str,
        block: &'m Block,
        params: Params,
        captures: &[(Value, Shape)],
        root: Root,
    ) -> Result<XlaComputation, LowerError> {
        let b = XlaBuilder::new(name);
        // Most ops are one instruction; tuples of results add a few.
        b.reserve(block.args.len() + block.ops.len() * 3 / 2);
        let region_error = |message: String| LowerError {
            op: name.to_string(),
            location: None,
            message,
        };
        let mut shapes = Vec::new();
        for (_, ty) in &block.args {
            shapes.push(shape(ty).map_err(region_error)?);
        }
        shapes.extend(captures.iter().map(|(_, s)| s.clone()));
        let values: Vec<Value> = block
            .args
            .iter()
            .map(|(v, _)| *v)
            .chain(captures.iter().map(|(v, _)| *v))
            .collect();
        let builder_error = |e: crate::Error| region_error(e.to_string());
        let ops: Vec<XlaOp> = match params {
            Params::Flat => {
                if !captures.is_empty() {
                    return Err(region_error(
                        "a region that uses values defined outside it".into(),
                    ));
                }
                shapes
                    .iter()
                    .enumerate()
                    .map(|(i, s)| b.parameter(i as i64, s, &format!("Arg_{i}")))
                    .collect::<Result<_, _>>()
                    .map_err(builder_error)?
            }
            Params::Operand if shapes.len() == 1 => {
                vec![b.parameter(0, &shapes[0], "arg").map_err(builder_error)?]
            }
            Params::Tuple | Params::Operand => {
                let p = b
                    .parameter(0, &Shape::tuple(shapes.clone()), "arg_tuple")
                    .map_err(builder_error)?;
                (0..shapes.len())
                    .map(|i| b.get_tuple_element(p, i as i64))
                    .collect::<Result<_, _>>()
                    .map_err(builder_error)?
            }
        };
        let mut env: Env = values.iter().copied().zip(ops.iter().copied()).collect();
        self.copy_constants(&b, block, &mut env)?;
        let mut outs = self.block(&b, block, &mut env)?;
        let result = match root {
            Root::Values if outs.len() == 1 => outs[0],
            Root::Values => b.tuple(&outs).map_err(builder_error)?,
            Root::Carry => {
                outs.extend(captures.iter().map(|(v, _)| env[v]));
                b.tuple(&outs).map_err(builder_error)?
            }
        };
        b.into_computation(result).map_err(builder_error)
    }

    /// Lowers the block's ops into `b`; returns the terminator's operands.
    fn block(
        &mut self,
        b: &XlaBuilder,
        block: &'m Block,
        env: &mut Env,
    ) -> Result<Vec<XlaOp>, LowerError> {
        let Some((terminator, body)) = block.ops.split_last() else {
            return Err(LowerError {
                op: "block".into(),
                location: None,
                message: "a block without a terminator".into(),
            });
        };
        for op in body {
            if op.name == "stablehlo.constant" {
                if let (Some(func), Some((value, _))) = (self.active.last(), op.results.first()) {
                    self.constants.insert((func.clone(), *value), op);
                }
            }
            let outs = self.op(b, op, env)?;
            if outs.len() != op.results.len() {
                return Err(op_error(
                    op,
                    format!("{} results lowered for {}", outs.len(), op.results.len()),
                ));
            }
            for ((value, _), x) in op.results.iter().zip(outs) {
                env.insert(*value, x);
            }
        }
        if !matches!(
            terminator.name.as_str(),
            "func.return" | "stablehlo.return" | "sdy.return"
        ) {
            return Err(op_error(
                terminator,
                "a block must end with a return".into(),
            ));
        }
        operands(terminator, env)
    }

    /// Lowers into `b` the constants of the enclosing function that
    /// `block` uses but `env` lacks.
    fn copy_constants(
        &mut self,
        b: &XlaBuilder,
        block: &'m Block,
        env: &mut Env,
    ) -> Result<(), LowerError> {
        let Some(func) = self.active.last().cloned() else {
            return Ok(());
        };
        let (mut defined, mut used) = (HashSet::new(), Vec::new());
        free_values(block, &mut defined, &mut used);
        for v in used {
            if defined.contains(&v) || env.contains_key(&v) {
                continue;
            }
            if let Some(&constant) = self.constants.get(&(func.clone(), v)) {
                let outs = self.op(b, constant, env)?;
                env.insert(v, outs[0]);
            }
        }
        Ok(())
    }

    /// The captured values of `blocks` (used there, defined outside),
    /// with their shapes in `b`.
    pub(crate) fn captures(
        b: &XlaBuilder,
        blocks: &[&Block],
        env: &Env,
    ) -> OpResult<Vec<(Value, Shape)>> {
        let mut defined = HashSet::new();
        let mut used = Vec::new();
        for block in blocks {
            free_values(block, &mut defined, &mut used);
        }
        let mut seen = HashSet::new();
        let mut out = Vec::new();
        for v in used {
            if defined.contains(&v) || !seen.insert(v) {
                continue;
            }
            let x = *env
                .get(&v)
                .ok_or_else(|| format!("use of value %{} that is not in scope", v.0))?;
            out.push((v, b.get_shape(x).map_err(|e| e.to_string())?));
        }
        Ok(out)
    }

    /// A function called by `func.call`.
    pub(crate) fn callee(&mut self, name: &str) -> Result<Rc<XlaComputation>, LowerError> {
        self.function(name)
    }
}

/// Collects the values `block` (and its nested regions) defines and uses.
fn free_values(block: &Block, defined: &mut HashSet<Value>, used: &mut Vec<Value>) {
    defined.extend(block.args.iter().map(|(v, _)| *v));
    for op in &block.ops {
        used.extend(op.operands.iter().copied());
        for region in &op.regions {
            for inner in &region.blocks {
                free_values(inner, defined, used);
            }
        }
        defined.extend(op.results.iter().map(|(v, _)| *v));
    }
}

/// The XLA ops of `op`'s operands.
pub(crate) fn operands(op: &Operation, env: &Env) -> Result<Vec<XlaOp>, LowerError> {
    op.operands
        .iter()
        .map(|v| {
            env.get(v)
                .copied()
                .ok_or_else(|| op_error(op, format!("use of value %{} that is not in scope", v.0)))
        })
        .collect()
}

/// An error of `op`.
pub(crate) fn op_error(op: &Operation, message: String) -> LowerError {
    LowerError {
        op: op.name.clone(),
        location: op.loc.clone(),
        message,
    }
}

/// The HLO element type of `element`.
pub(crate) fn primitive(element: &ElementType) -> OpResult<PrimitiveType> {
    match element {
        ElementType::Known(p) => Ok(*p),
        ElementType::Index => Err("tensors of `index` are not supported".into()),
        ElementType::Other(name) => Err(format!("element type `{name}` is not supported")),
    }
}

/// The HLO shape of a type (default layouts).
pub(crate) fn shape(ty: &Type) -> OpResult<Shape> {
    match ty {
        Type::Tensor { element, dims } => {
            let dims: Vec<i64> = dims
                .iter()
                .map(|d| d.ok_or_else(|| "dynamic dimensions (`?`) are not supported".to_string()))
                .collect::<OpResult<_>>()?;
            Ok(Shape::array(primitive(element)?, dims))
        }
        Type::Element(element) => Ok(Shape::scalar(primitive(element)?)),
        Type::Tuple(parts) => Ok(Shape::tuple(
            parts.iter().map(shape).collect::<OpResult<Vec<_>>>()?,
        )),
        Type::Token => Ok(Shape::Token),
        Type::Function(..) => Err("a function type is not a value type".into()),
    }
}

/// The string attribute `name` of `op`.
pub(crate) fn string_attr(op: &Operation, name: &str) -> OpResult<String> {
    match op.attr(name) {
        Some(Attr::String(s)) => {
            String::from_utf8(s.clone()).map_err(|_| format!("`{name}` is not UTF-8"))
        }
        Some(Attr::Symbol(s)) => Ok(s.clone()),
        Some(other) => Err(format!("`{name}` is not a string: {other:?}")),
        None => Err(format!("missing attribute `{name}`")),
    }
}
