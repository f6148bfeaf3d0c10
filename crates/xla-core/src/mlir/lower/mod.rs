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
pub(crate) mod sharding;

use std::collections::{HashMap, HashSet};
use std::fmt;
use std::rc::Rc;

use super::ir::{Attr, Block, ElementType, Location, Module, Operation, Type, Value};
use crate::hlo::InputOutputAlias;
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
    if let Some(other) = module
        .ops
        .iter()
        .find(|op| !matches!(op.name.as_str(), "func.func" | "sdy.mesh"))
    {
        return Err(module_error(format!(
            "unexpected top-level op `{}`",
            other.name
        )));
    }
    lower_function(module, &entry_name(module)?)
}

/// Lowers function `entry` of a StableHLO module (and the functions it
/// calls) to an HLO module with `entry` as its entry computation.
pub fn lower_function(module: &Module, entry: &str) -> Result<HloModule, LowerError> {
    lower_bound(module, entry, None)
}

/// [`lower_module`] for arguments of these shapes: dynamic dimensions
/// (`tensor<?x4xf32>`, what `jax.export` writes for a symbolic shape) take
/// the arguments' sizes, and the shape computations on them (dimension
/// sizes, `dynamic_broadcast_in_dim`, `dynamic_reshape`, `dynamic_iota`,
/// JAX's `shape_assertion`s) are evaluated, so the module is static.
pub fn lower_module_for_arguments(
    module: &Module,
    arguments: &[Shape],
) -> Result<HloModule, LowerError> {
    lower_bound(module, &entry_name(module)?, Some(arguments.to_vec()))
}

/// The entry function's name: `main`, or the only public function.
fn entry_name(module: &Module) -> Result<String, LowerError> {
    let module_error = |message: String| LowerError {
        op: "module".into(),
        location: None,
        message,
    };
    let names: Vec<(String, bool)> = module
        .ops
        .iter()
        .filter(|op| op.name == "func.func")
        .filter_map(|op| {
            let public =
                !matches!(op.attr("sym_visibility"), Some(Attr::String(v)) if v != b"public");
            string_attr(op, "sym_name").ok().map(|n| (n, public))
        })
        .collect();
    if names.iter().any(|(n, _)| n == "main") {
        return Ok("main".into());
    }
    match names
        .iter()
        .filter(|(_, public)| *public)
        .collect::<Vec<_>>()
        .as_slice()
    {
        [(one, _)] => Ok(one.clone()),
        _ => Err(module_error("no public function `main`".into())),
    }
}

fn lower_bound(
    module: &Module,
    entry: &str,
    arguments: Option<Vec<Shape>>,
) -> Result<HloModule, LowerError> {
    let mut funcs = HashMap::new();
    for op in &module.ops {
        if op.name == "func.func" {
            if let Ok(name) = string_attr(op, "sym_name") {
                funcs.insert(name, op);
            }
        }
    }
    let meshes = (module.ops.iter())
        .filter(|op| op.name == "sdy.mesh")
        .filter_map(|op| {
            let name = string_attr(op, "sym_name").ok()?;
            match op.attr("mesh") {
                Some(Attr::Opaque(text)) => Some((name, sharding::mesh_axes(text)?)),
                _ => None,
            }
        })
        .collect();
    let entry_op = funcs.get(entry).copied();
    let mut lowering = Lowering {
        funcs,
        done: HashMap::new(),
        active: Vec::new(),
        scopes: 0,
        constants: HashMap::new(),
        known: HashMap::new(),
        meshes,
    };
    let bound = arguments.map(|shapes| (shapes, Vec::new()));
    let computation = lowering.function(entry, bound)?;
    // The lowering's cache holds the other reference.
    drop(lowering);
    let computation = Rc::try_unwrap(computation).unwrap_or_else(|shared| (*shared).clone());
    let mut hlo = computation.into_module();
    hlo.name = crate::builder::sanitize(&module.name.clone().unwrap_or_else(|| entry.to_string()));
    for (name, count) in [
        ("mhlo.num_replicas", &mut hlo.replica_count),
        ("mhlo.num_partitions", &mut hlo.num_partitions),
    ] {
        if let Some((_, Attr::Int(n, _))) = module.attrs.iter().find(|(k, _)| k == name) {
            *count = *n;
        }
    }
    let tupled = hlo.entry_computation().program_shape().result.is_tuple();
    hlo.input_output_alias = entry_op.map_or_else(Vec::new, |f| donations(f, tupled));
    Ok(hlo)
}

/// The entry's donated arguments as HLO aliases: JAX marks a donated
/// argument `tf.aliasing_output = N` (its buffer may hold result `N`).
fn donations(func: &Operation, tupled: bool) -> Vec<InputOutputAlias> {
    let Some(Attr::Array(args)) = func.attr("arg_attrs") else {
        return Vec::new();
    };
    let mut aliases = Vec::new();
    for (parameter, attrs) in args.iter().enumerate() {
        let Attr::Dict(attrs) = attrs else { continue };
        if let Some((_, Attr::Int(output, _))) =
            attrs.iter().find(|(k, _)| k == "tf.aliasing_output")
        {
            aliases.push(InputOutputAlias {
                output_index: if tupled { vec![*output] } else { Vec::new() },
                parameter: parameter as i64,
                parameter_index: Vec::new(),
                must_alias: false,
            });
        }
    }
    aliases
}

/// The state of one lowering: the module's functions and those built.
pub(crate) struct Lowering<'m> {
    funcs: HashMap<String, &'m Operation>,
    done: HashMap<String, Rc<XlaComputation>>,
    /// The functions being lowered, innermost last: each function's name
    /// and the scope its values are numbered in.
    active: Vec<(String, u32)>,
    /// Scopes handed out so far.
    scopes: u32,
    /// The constants of the functions being lowered, by scope and value: a
    /// region that uses one from outside (JAX's serializer hoists constants
    /// out of comparators) gets its own copy.
    constants: HashMap<(u32, Value), &'m Operation>,
    /// Values of small integer tensors known while lowering (dimension
    /// sizes and the shapes computed from them), by scope and value.
    known: HashMap<(u32, Value), Vec<i64>>,
    /// Shardy's meshes by name: axis names and sizes.
    pub(crate) meshes: HashMap<String, (Vec<String>, Vec<u32>)>,
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

/// The argument shapes a function is specialized to, and the values of
/// its arguments that are known (dimension sizes).
pub(crate) type Binding = (Vec<Shape>, Vec<Option<Vec<i64>>>);

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
    /// The computation of function `name`, built once (once per argument
    /// shapes and known argument values when `bound`).
    fn function(
        &mut self,
        name: &str,
        bound: Option<Binding>,
    ) -> Result<Rc<XlaComputation>, LowerError> {
        let key = match &bound {
            Some((shapes, known)) => format!("{name}{shapes:?}{known:?}"),
            None => name.to_string(),
        };
        if let Some(done) = self.done.get(&key) {
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
        if self.active.iter().any(|(active, _)| active == name) {
            return Err(error("recursive calls are not supported".into()));
        }
        let block = op
            .regions
            .first()
            .and_then(|r| r.blocks.first())
            .ok_or_else(|| error("a declaration without a body".into()))?;
        self.scopes += 1;
        self.active.push((name.to_string(), self.scopes));
        let built = self.bound_region(name, block, Params::Flat, &[], Root::Values, bound);
        self.active.pop();
        let built = Rc::new(built?);
        self.done.insert(key, Rc::clone(&built));
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
        self.bound_region(name, block, params, captures, root, None)
    }

    /// [`region`](Self::region) whose block arguments take the shapes and
    /// known values of `bound` (a function specialized to its arguments).
    fn bound_region(
        &mut self,
        name: &str,
        block: &'m Block,
        params: Params,
        captures: &[(Value, Shape)],
        root: Root,
        bound: Option<Binding>,
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
        for (i, (_, ty)) in block.args.iter().enumerate() {
            let given = bound.as_ref().and_then(|(shapes, _)| shapes.get(i));
            shapes.push(match given {
                Some(given) => {
                    bind(ty, given).map_err(|m| region_error(format!("argument {i}: {m}")))?
                }
                None => shape(ty).map_err(region_error)?,
            });
        }
        if let Some((_, known)) = bound {
            for ((value, _), k) in block.args.iter().zip(known) {
                if let Some(k) = k {
                    self.set_known(*value, k);
                }
            }
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
            Params::Flat => shapes
                .iter()
                .enumerate()
                .map(|(i, s)| b.parameter(i as i64, s, &format!("Arg_{i}")))
                .collect::<Result<_, _>>()
                .map_err(builder_error)?,
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
            if let (true, Some(&(_, scope)), Some((value, _))) = (
                op.name == "stablehlo.constant",
                self.active.last(),
                op.results.first(),
            ) {
                self.constants.insert((scope, *value), op);
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
        let Some(&(_, scope)) = self.active.last() else {
            return Ok(());
        };
        let (mut defined, mut used) = (HashSet::new(), Vec::new());
        free_values(block, &mut defined, &mut used);
        for v in used {
            if defined.contains(&v) || env.contains_key(&v) {
                continue;
            }
            if let Some(&constant) = self.constants.get(&(scope, v)) {
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

    /// A function called by `func.call` with operands `args` (of the
    /// current function's `values`): specialized to their shapes and known
    /// values when its signature has dynamic dimensions.
    pub(crate) fn callee(
        &mut self,
        b: &XlaBuilder,
        name: &str,
        values: &[Value],
        args: &[XlaOp],
    ) -> Result<Rc<XlaComputation>, LowerError> {
        let dynamic = self
            .funcs
            .get(name)
            .is_some_and(|f| match f.attr("function_type") {
                Some(Attr::Type(Type::Function(inputs, _))) => inputs.iter().any(is_dynamic),
                _ => false,
            });
        if !dynamic {
            return self.function(name, None);
        }
        let error = |e: crate::Error| LowerError {
            op: "func.call".into(),
            location: None,
            message: e.to_string(),
        };
        let shapes: Vec<Shape> = args
            .iter()
            .map(|&a| b.get_shape(a))
            .collect::<Result<_, _>>()
            .map_err(error)?;
        let known = values
            .iter()
            .map(|v| self.known_value(*v).cloned())
            .collect();
        self.function(name, Some((shapes, known)))
    }

    /// The known value of `value` in the function being lowered.
    pub(crate) fn known_value(&self, value: Value) -> Option<&Vec<i64>> {
        self.known.get(&(self.active.last()?.1, value))
    }

    /// Records the value of `value` in the function being lowered.
    pub(crate) fn set_known(&mut self, value: Value, known: Vec<i64>) {
        if let Some(&(_, scope)) = self.active.last() {
            self.known.insert((scope, value), known);
        }
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

/// The entry function's argument types when some have dynamic dimensions
/// (`tensor<?x4xf32>, …`), else `None`.
pub fn dynamic_entry(module: &Module) -> Option<String> {
    let entry = entry_name(module).ok()?;
    let function = module.ops.iter().find(|op| {
        op.name == "func.func"
            && string_attr(op, "sym_name").ok().as_deref() == Some(entry.as_str())
    })?;
    let Some(Attr::Type(Type::Function(inputs, _))) = function.attr("function_type") else {
        return None;
    };
    inputs.iter().any(is_dynamic).then(|| {
        inputs
            .iter()
            .map(|t| match t {
                Type::Tensor { element, dims } => format!(
                    "tensor<{}{}>",
                    dims.iter()
                        .map(|d| d.map_or("?x".to_string(), |d| format!("{d}x")))
                        .collect::<String>(),
                    element.mlir_name()
                ),
                other => format!("{other:?}"),
            })
            .collect::<Vec<_>>()
            .join(", ")
    })
}

/// Whether a type has dynamic dimensions.
pub(crate) fn is_dynamic(ty: &Type) -> bool {
    match ty {
        Type::Tensor { dims, .. } => dims.iter().any(Option::is_none),
        Type::Tuple(parts) => parts.iter().any(is_dynamic),
        _ => false,
    }
}

/// The shape `given` for a parameter of type `ty`: the same element type
/// and rank, the same size wherever `ty`'s is static.
fn bind(ty: &Type, given: &Shape) -> OpResult<Shape> {
    let Type::Tensor { element, dims } = ty else {
        return shape(ty);
    };
    let fits = given.as_array().is_some_and(|a| {
        a.element_type() == primitive(element).unwrap_or(a.element_type())
            && a.rank() == dims.len()
            && a.dims()
                .iter()
                .zip(dims)
                .all(|(&n, d)| d.is_none_or(|d| d == n))
    });
    if fits {
        return Ok(given.clone().without_layouts());
    }
    let expected: Vec<String> = dims
        .iter()
        .map(|d| d.map_or("?".to_string(), |d| d.to_string()))
        .collect();
    Err(format!(
        "an array of shape {} does not fit {}[{}]",
        given.clone().without_layouts(),
        primitive(element)?.name(),
        expected.join(",")
    ))
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
