//! Reverse-mode differentiation of HLO modules: an HLO-to-HLO
//! transformation, so the interpreter, the JIT and every door run and
//! optimize a gradient like any other module.
//!
//! [`grad`] differentiates a module whose entry returns a floating-point
//! scalar; [`value_and_grad`] also returns the value; [`vjp`] takes one
//! cotangent per result and returns the vector-Jacobian product. Each
//! takes the parameters to differentiate with respect to (`None`: every
//! floating-point array parameter) and returns a module with the same
//! parameters (plus the cotangents, for `vjp`) whose result is a tuple.
//!
//! The transformation replays the entry's instructions into an
//! [`XlaBuilder`] and then walks them backwards, adding each
//! instruction's cotangent contributions to its operands with one rule
//! per opcode (`rules.rs`); the rules follow JAX's (`jax.grad` is the
//! reference the tests compare with), including its conventions at
//! kinks, which `docs/gradients.md` lists. Calls and fusions are inlined and batch
//! normalization expanded first; a `while` loop whose trip count is known
//! at compile time is differentiated by a reverse loop over the carries
//! the forward loop stores (`control.rs`). An instruction on the path from
//! a differentiated parameter to the result that has no rule (a loop of
//! data-dependent length, random numbers, collectives, custom calls) is an
//! error that names it.

mod control;
mod data;
mod elementwise;
mod expand;
mod linalg;
mod linear;
mod reduce;
mod rules;

use std::cell::RefCell;
use std::collections::HashMap;

use crate::builder::{create_scalar_computation, XlaBuilder, XlaComputation, XlaOp};
use crate::hlo::{ComputationId, HloComputation, HloInstruction, HloModule, InstrId, Opcode};
use crate::passes::{BatchNormExpander, Dce, InlineCalls, InlineFusions, Pass};
use crate::{ArrayShape, Literal, PrimitiveType, Result, Shape};
use control::LoopTape;

pub use crate::error::GradError;

/// The gradient of the entry's scalar floating-point result with respect
/// to the parameters numbered `wrt` (`None`: every floating-point array
/// parameter), as a module with the same parameters whose result is the
/// tuple of those gradients, in `wrt`'s order (`jax.grad(f, argnums)`).
///
/// ```
/// use xla_core::autodiff::grad;
/// use xla_core::HloModule;
///
/// let f: HloModule = "HloModule f
/// ENTRY e {
///   x = f32[3] parameter(0)
///   s = f32[3] sine(x)
///   zero = f32[] constant(0)
///   ROOT sum = f32[] reduce(s, zero), dimensions={0}, to_apply=add
/// }
/// add {
///   a = f32[] parameter(0)
///   b = f32[] parameter(1)
///   ROOT r = f32[] add(a, b)
/// }".parse()?;
/// let df = grad(&f, None)?;
/// assert_eq!(df.entry_program_shape().to_string(), "(f32[3]{0}) -> (f32[3]{0})");
/// # Ok::<(), xla_core::Error>(())
/// ```
pub fn grad(module: &HloModule, wrt: Option<&[usize]>) -> Result<HloModule> {
    differentiate(module, wrt, Mode::Grad)
}

/// [`grad`] whose result also holds the value: `(value, gradients…)`, flat
/// (`jax.value_and_grad`).
pub fn value_and_grad(module: &HloModule, wrt: Option<&[usize]>) -> Result<HloModule> {
    differentiate(module, wrt, Mode::ValueAndGrad)
}

/// The vector-Jacobian product (`jax.vjp`): the module takes the entry's
/// parameters, then one cotangent per result (per element of a tuple
/// result, in order; a parameter of the result's shape otherwise), and
/// returns the tuple of the cotangents of the parameters `wrt`.
pub fn vjp(module: &HloModule, wrt: Option<&[usize]>) -> Result<HloModule> {
    differentiate(module, wrt, Mode::Vjp)
}

/// What the gradient module returns.
#[derive(Copy, Clone, PartialEq, Eq, Debug)]
enum Mode {
    Grad,
    ValueAndGrad,
    Vjp,
}

fn differentiate(module: &HloModule, wrt: Option<&[usize]>, mode: Mode) -> Result<HloModule> {
    let mut module = module.clone();
    let _ = InlineCalls.run(&mut module)?;
    let _ = InlineFusions.run(&mut module)?;
    let _ = BatchNormExpander.run(&mut module)?;
    expand::expand_elementwise_calls(&mut module);
    let entry = module.entry_computation();
    let wrt = parameters_wrt(entry, wrt)?;
    let b = XlaBuilder::new(&entry.name);
    let mut marks = vec![false; entry.parameters().len()];
    for &p in &wrt {
        marks[p] = true;
    }
    let mut tape = Tape::new(&b, &module, module.entry, &marks);
    let inputs = entry
        .parameters()
        .iter()
        .map(|&p| b.add_instruction(entry.instr(p), &[], &[]))
        .collect::<Result<Vec<_>>>()?;
    tape.replay(&inputs)?;
    let root = entry.root_instr();
    let seed = match mode {
        Mode::Grad | Mode::ValueAndGrad => {
            let scalar = root.shape.as_array().filter(|a| a.rank() == 0);
            match scalar {
                Some(a) if a.element_type().is_floating() => Ct::Array(tape.full(a, 1.0)?),
                _ => {
                    return Err(GradError::NotScalar {
                        shape: root.shape.clone().without_layouts(),
                    }
                    .into())
                }
            }
        }
        Mode::Vjp => {
            let first = inputs.len() as i64;
            let parts = match root.shape.tuple_shapes() {
                Some(parts) => parts.to_vec(),
                None => vec![root.shape.clone()],
            };
            let cts = (parts.iter().enumerate())
                .map(|(k, s)| b.parameter(first + k as i64, s, "cotangent"))
                .collect::<Result<Vec<_>>>()?;
            match root.shape.is_tuple() {
                true => Ct::Tuple(
                    (cts.into_iter().zip(&parts))
                        .map(|(c, s)| tape.split(c, s).map(Some))
                        .collect::<Result<_>>()?,
                ),
                false => Ct::Array(cts[0]),
            }
        }
    };
    let cts = tape.backward(seed)?;
    let mut results = Vec::new();
    if mode == Mode::ValueAndGrad {
        results.push(tape.fwd[entry.root.index()]);
    }
    let params = entry.parameters();
    for &p in &wrt {
        results.push(tape.cotangent(&cts, params[p])?);
    }
    let root = b.tuple(&results)?;
    let mut out = b.build(root)?.into_module();
    let _ = Dce.run(&mut out)?;
    out.name = format!("{}_{}", module.name, mode.suffix());
    Ok(out)
}

impl Mode {
    fn suffix(self) -> &'static str {
        match self {
            Mode::Grad => "grad",
            Mode::ValueAndGrad => "value_and_grad",
            Mode::Vjp => "vjp",
        }
    }
}

/// The parameter numbers to differentiate with respect to, checked.
fn parameters_wrt(entry: &HloComputation, wrt: Option<&[usize]>) -> Result<Vec<usize>> {
    let params = entry.parameters();
    let floating = |p: usize| {
        let shape = &entry.instr(params[p]).shape;
        shape
            .as_array()
            .is_some_and(|a| a.element_type().is_floating())
    };
    match wrt {
        None => Ok((0..params.len()).filter(|&p| floating(p)).collect()),
        Some(list) => {
            for &p in list {
                if p >= params.len() {
                    return Err(GradError::NoParameter {
                        number: p,
                        count: params.len(),
                    }
                    .into());
                }
                if !floating(p) {
                    return Err(GradError::NotFloating {
                        number: p,
                        shape: entry.instr(params[p]).shape.clone().without_layouts(),
                    }
                    .into());
                }
            }
            Ok(list.to_vec())
        }
    }
}

/// A cotangent: an array, or one per tuple element (`None`: zero).
#[derive(Clone, Debug)]
enum Ct {
    Array(XlaOp),
    Tuple(Vec<Option<Ct>>),
}

impl Ct {
    /// The cotangent of each result of `instr` (one for an array result),
    /// each an array.
    fn parts(self, instr: &HloInstruction) -> Result<Vec<Option<XlaOp>>> {
        match self {
            Ct::Array(g) => Ok(vec![Some(g)]),
            Ct::Tuple(parts) => parts
                .into_iter()
                .map(|p| p.map(|p| p.array(instr)).transpose())
                .collect(),
        }
    }

    /// The array, for an instruction of array shape.
    fn array(&self, instr: &HloInstruction) -> Result<XlaOp> {
        match self {
            Ct::Array(op) => Ok(*op),
            Ct::Tuple(_) => Err(GradError::NoRule {
                instruction: instr.name.clone(),
                opcode: instr.opcode.name(),
                reason: "a tuple cotangent for an array value",
            }
            .into()),
        }
    }
}

/// Whether a value of `shape` carries a cotangent: a floating-point array,
/// or a tuple holding one. Complex arrays count too, so that a rule
/// reports them (none differentiates complex values yet) rather than the
/// gradient silently missing their contribution.
fn differentiable(shape: &Shape) -> bool {
    match shape {
        Shape::Array(a) => a.element_type().is_floating() || a.element_type().is_complex(),
        Shape::Tuple(parts) => parts.iter().any(differentiable),
        Shape::Token | Shape::Opaque => false,
    }
}

/// Zeros of `shape` in builder `b` (tuples element by element; tokens
/// fresh).
fn zeros(b: &XlaBuilder, shape: &Shape) -> Result<XlaOp> {
    match shape {
        Shape::Array(a) => filled(b, a, 0.0),
        Shape::Tuple(parts) => {
            let ops = parts
                .iter()
                .map(|s| zeros(b, s))
                .collect::<Result<Vec<_>>>()?;
            b.tuple(&ops)
        }
        Shape::Token | Shape::Opaque => b.create_token(),
    }
}

/// An array of `shape`'s type and dimensions filled with `value`, in
/// builder `b`.
fn filled(b: &XlaBuilder, shape: &ArrayShape, value: f64) -> Result<XlaOp> {
    let scalar = b.constant(&Literal::scalar(value).convert(shape.element_type())?)?;
    match shape.rank() {
        0 => Ok(scalar),
        _ => b.broadcast(scalar, shape.dims()),
    }
}

/// The vector-Jacobian product of computation `id` of `module`, which has
/// one parameter: a computation `(x, cotangent of the result) → cotangent
/// of x`.
fn vjp_computation(module: &HloModule, id: ComputationId) -> Result<XlaComputation> {
    let comp = module.computation(id);
    let b = XlaBuilder::new(format!("{}_vjp", comp.name));
    let [param] = comp.parameters()[..] else {
        let instr = comp.root_instr();
        return Err(rules::no_rule(
            instr,
            "a called computation of several parameters",
        ));
    };
    let x = b.add_instruction(comp.instr(param), &[], &[])?;
    let mut tape = Tape::new(&b, module, id, &[true]);
    tape.replay(&[x])?;
    let root = comp.root_instr().shape.clone();
    let ct = b.parameter(1, &root, "cotangent")?;
    let cts = tape.backward(tape.split(ct, &root)?)?;
    b.build(tape.cotangent(&cts, param)?)
}

/// The forward values a backward computation reads as parameters instead
/// of recomputing them (a loop body's residuals, which the forward loop
/// stores each iteration).
struct Residuals {
    /// The computation's own parameters.
    inputs: Vec<XlaOp>,
    /// The parameter number of the first stored value.
    first: i64,
    /// The instructions whose values are parameters, in parameter order.
    stored: RefCell<Vec<InstrId>>,
    /// Every forward value made so far.
    values: RefCell<HashMap<InstrId, XlaOp>>,
}

/// Whether a backward computation recomputes `instr` from its operands
/// rather than storing it: constants, iotas, tuples, elements of a
/// parameter and data movement that costs nothing to redo.
fn cheap(comp: &HloComputation, instr: &HloInstruction) -> bool {
    let of_parameter = || comp.instr(instr.operands[0]).opcode == Opcode::Parameter;
    match instr.opcode {
        Opcode::Constant | Opcode::Iota | Opcode::Tuple => true,
        Opcode::Broadcast | Opcode::Reshape | Opcode::Bitcast => instr.called.is_empty(),
        Opcode::GetTupleElement => of_parameter(),
        _ => false,
    }
}

/// A loop body's vector-Jacobian product split in two: `forward` maps the
/// carry to the next carry's elements followed by the residuals (the
/// values `backward` needs), and `backward` maps `(carry, cotangent of the
/// next carry, residuals…)` to the cotangent of the carry, without
/// recomputing the body.
pub(super) struct SplitVjp {
    pub forward: XlaComputation,
    pub backward: XlaComputation,
    /// The residuals' shapes, in parameter order.
    pub residuals: Vec<ArrayShape>,
}

/// The split vector-Jacobian product of loop body `id`, or `None` when the
/// body holds control flow or a residual that is not an array (then the
/// reverse loop recomputes the body with [`vjp_computation`]).
fn split_vjp(module: &HloModule, id: ComputationId) -> Result<Option<SplitVjp>> {
    let comp = module.computation(id);
    let control = |i: &HloInstruction| matches!(i.opcode, Opcode::While | Opcode::Conditional);
    let [param] = comp.parameters()[..] else {
        return Ok(None);
    };
    if comp.instructions.iter().any(control) || !comp.root_instr().shape.is_tuple() {
        return Ok(None);
    }
    let root_shape = comp.root_instr().shape.clone();
    let back = XlaBuilder::new(format!("{}_backward", comp.name));
    let x = back.add_instruction(comp.instr(param), &[], &[])?;
    let ct = back.parameter(1, &root_shape, "cotangent")?;
    let mut tape = Tape::new(&back, module, id, &[true]);
    tape.residuals = Some(Residuals {
        inputs: vec![x],
        first: 2,
        stored: RefCell::default(),
        values: RefCell::default(),
    });
    let cts = tape.backward(tape.split(ct, &root_shape)?)?;
    let backward = back.build(tape.cotangent(&cts, param)?)?;
    let stored = tape
        .residuals
        .map(|r| r.stored.into_inner())
        .unwrap_or_default();
    let Some(residuals) = stored
        .iter()
        .map(|&r| comp.instr(r).shape.as_array().cloned())
        .collect::<Option<Vec<_>>>()
    else {
        return Ok(None);
    };
    let fore = XlaBuilder::new(format!("{}_forward", comp.name));
    let x = fore.add_instruction(comp.instr(param), &[], &[])?;
    let mut replay = Tape::new(&fore, module, id, &[false]);
    replay.replay(&[x])?;
    let next = replay.fwd[comp.root.index()];
    let count = root_shape.tuple_shapes().map_or(0, <[_]>::len);
    let mut outputs = (0..count)
        .map(|k| fore.get_tuple_element(next, k as i64))
        .collect::<Result<Vec<_>>>()?;
    outputs.extend(stored.iter().map(|r| replay.fwd[r.index()]));
    let forward = fore.build(fore.tuple(&outputs)?)?;
    Ok(Some(SplitVjp {
        forward,
        backward,
        residuals,
    }))
}

/// One computation's forward values and the builder the backward pass
/// writes into.
struct Tape<'a> {
    b: &'a XlaBuilder,
    module: &'a HloModule,
    comp: &'a HloComputation,
    /// The replayed value of each instruction of `comp`.
    fwd: Vec<XlaOp>,
    /// Instead of a replay: forward values as parameters of the backward
    /// computation (see [`Residuals`]).
    residuals: Option<Residuals>,
    /// Whether each instruction depends on a differentiated parameter and
    /// carries floating-point values.
    active: Vec<bool>,
    /// What the replay of each differentiated loop kept.
    loops: HashMap<InstrId, LoopTape>,
    /// Contributions a rule makes to instructions other than its operands
    /// (an earlier instruction whose cotangent is not yet taken): QR's
    /// `Q` sends its share straight to the factorized matrix.
    beyond: RefCell<Vec<(InstrId, Ct)>>,
    /// Each called computation as a standalone one, made once.
    called: RefCell<HashMap<ComputationId, XlaComputation>>,
    /// `add` reducers by element type, made once.
    adders: RefCell<HashMap<PrimitiveType, XlaComputation>>,
}

impl<'a> Tape<'a> {
    /// A tape of computation `comp`, differentiated with respect to the
    /// parameters whose number `wrt` marks.
    fn new(b: &'a XlaBuilder, module: &'a HloModule, comp: ComputationId, wrt: &[bool]) -> Self {
        let comp = module.computation(comp);
        let mut active = vec![false; comp.instructions.len()];
        for id in comp.ids() {
            let instr = comp.instr(id);
            active[id.index()] = differentiable(&instr.shape)
                && match instr.opcode {
                    Opcode::Parameter => {
                        let number = instr.attrs.parameter_number.unwrap_or(0) as usize;
                        wrt.get(number).copied().unwrap_or(false)
                    }
                    _ => instr.operands.iter().any(|o| active[o.index()]),
                };
        }
        Tape {
            b,
            module,
            comp,
            fwd: Vec::new(),
            residuals: None,
            active,
            loops: HashMap::new(),
            beyond: RefCell::default(),
            called: RefCell::default(),
            adders: RefCell::default(),
        }
    }

    /// Replays the computation's instructions, its parameters being
    /// `inputs` (by parameter number).
    fn replay(&mut self, inputs: &[XlaOp]) -> Result<()> {
        for id in self.comp.ids() {
            let instr = self.comp.instr(id);
            let op = if instr.opcode == Opcode::Parameter {
                inputs[instr.attrs.parameter_number.unwrap_or(0) as usize]
            } else if instr.opcode == Opcode::While && self.active[id.index()] {
                let (value, tape) = self.replay_loop(instr)?;
                self.loops.insert(id, tape);
                value
            } else {
                let operands: Vec<XlaOp> =
                    instr.operands.iter().map(|o| self.fwd[o.index()]).collect();
                let called = (instr.called.iter())
                    .map(|&c| self.computation(c))
                    .collect::<Result<Vec<_>>>()?;
                let refs: Vec<&XlaComputation> = called.iter().collect();
                self.b.add_instruction(instr, &operands, &refs)?
            };
            self.fwd.push(op);
        }
        Ok(())
    }

    /// Called computation `id` of the module, standalone.
    fn computation(&self, id: ComputationId) -> Result<XlaComputation> {
        if let Some(c) = self.called.borrow().get(&id) {
            return Ok(c.clone());
        }
        let c = XlaComputation::from_module(self.module.extract(id))?;
        self.called.borrow_mut().insert(id, c.clone());
        Ok(c)
    }

    /// The cotangent of every instruction, from the root's `seed`: only
    /// instructions that depend on a parameter and carry floating-point
    /// values get one.
    fn backward(&self, seed: Ct) -> Result<Vec<Option<Ct>>> {
        let n = self.comp.instructions.len();
        let active = &self.active;
        let mut cts: Vec<Option<Ct>> = vec![None; n];
        cts[self.comp.root.index()] = Some(seed);
        for id in (0..n as u32).rev().map(InstrId) {
            let Some(ct) = cts[id.index()].take() else {
                continue;
            };
            let instr = self.comp.instr(id);
            if instr.opcode == Opcode::Parameter {
                cts[id.index()] = Some(ct);
                continue;
            }
            if !active[id.index()] {
                continue;
            }
            let wanted: Vec<bool> = instr.operands.iter().map(|o| active[o.index()]).collect();
            let contributions = self.rule(id, ct, &wanted)?;
            let to_operands = (contributions.into_iter().enumerate())
                .filter(|(k, _)| wanted[*k])
                .filter_map(|(k, c)| Some((instr.operands[k], c?)));
            let beyond = self.beyond.take();
            for (target, c) in to_operands.chain(beyond) {
                let slot = &mut cts[target.index()];
                *slot = Some(match slot.take() {
                    None => c,
                    Some(prev) => self.accumulate(prev, c)?,
                });
            }
        }
        Ok(cts)
    }

    /// `a + b`, element by element of tuples.
    fn accumulate(&self, a: Ct, b: Ct) -> Result<Ct> {
        Ok(match (a, b) {
            (Ct::Array(x), Ct::Array(y)) => Ct::Array(self.b.add(x, y, &[])?),
            (Ct::Tuple(xs), Ct::Tuple(ys)) => Ct::Tuple(
                xs.into_iter()
                    .zip(ys)
                    .map(|(x, y)| match (x, y) {
                        (Some(x), Some(y)) => self.accumulate(x, y).map(Some),
                        (x, y) => Ok(x.or(y)),
                    })
                    .collect::<Result<_>>()?,
            ),
            _ => unreachable!("cotangents of one value have one structure"),
        })
    }

    /// The cotangent of instruction `id` among `cts` (the backward walk's),
    /// as a value: zeros where it has none.
    fn cotangent(&self, cts: &[Option<Ct>], id: InstrId) -> Result<XlaOp> {
        let shape = &self.comp.instr(id).shape;
        match &cts[id.index()] {
            Some(ct) => self.materialize(ct, shape),
            None => self.zeros(shape),
        }
    }

    /// A cotangent as a value of `shape`: zeros where it has none.
    fn materialize(&self, ct: &Ct, shape: &Shape) -> Result<XlaOp> {
        match (ct, shape) {
            (Ct::Array(op), _) => Ok(*op),
            (Ct::Tuple(parts), Shape::Tuple(shapes)) => {
                let ops = (parts.iter().zip(shapes))
                    .map(|(p, s)| match p {
                        Some(p) => self.materialize(p, s),
                        None => self.zeros(s),
                    })
                    .collect::<Result<Vec<_>>>()?;
                self.b.tuple(&ops)
            }
            _ => unreachable!("a tuple cotangent has a tuple shape"),
        }
    }

    /// Zeros of `shape` (tuples element by element; tokens fresh).
    fn zeros(&self, shape: &Shape) -> Result<XlaOp> {
        zeros(self.b, shape)
    }

    /// The scalar `value` of element type `ty`.
    fn scalar(&self, ty: PrimitiveType, value: f64) -> Result<XlaOp> {
        self.b.constant(&Literal::scalar(value).convert(ty)?)
    }

    /// An array of `shape`'s type and dimensions filled with `value`.
    fn full(&self, shape: &ArrayShape, value: f64) -> Result<XlaOp> {
        filled(self.b, shape, value)
    }

    /// The sum of `x` over `dims`.
    fn sum(&self, x: XlaOp, dims: &[i64]) -> Result<XlaOp> {
        if dims.is_empty() {
            return Ok(x);
        }
        let ty = self
            .b
            .get_shape(x)?
            .element_type()
            .unwrap_or(PrimitiveType::F32);
        let zero = self.scalar(ty, 0.0)?;
        let add = self.adder(ty)?;
        self.b.reduce(&[x], &[zero], &add, dims)
    }

    /// The `add` reducer of element type `ty`.
    fn adder(&self, ty: PrimitiveType) -> Result<XlaComputation> {
        if let Some(add) = self.adders.borrow().get(&ty) {
            return Ok(add.clone());
        }
        let add = create_scalar_computation("add", ty, |b, x, y| b.add(x, y, &[]))?;
        self.adders.borrow_mut().insert(ty, add.clone());
        Ok(add)
    }

    /// The dimensions and element type of the array `x`.
    fn dims_type(&self, x: XlaOp) -> Result<(Vec<i64>, PrimitiveType)> {
        let shape = self.b.get_shape(x)?;
        let a = (shape.as_array().cloned())
            .unwrap_or_else(|| ArrayShape::new(PrimitiveType::F32, vec![]));
        Ok((a.dims().to_vec(), a.element_type()))
    }

    /// `x` converted to element type `ty` if it has another.
    fn to_type(&self, x: XlaOp, ty: PrimitiveType) -> Result<XlaOp> {
        match self.dims_type(x)?.1 == ty {
            true => Ok(x),
            false => self.b.convert_element_type(x, ty),
        }
    }

    /// The shape of instruction `id` as an array.
    fn array_shape(&self, id: InstrId) -> &ArrayShape {
        let instr = self.comp.instr(id);
        instr
            .shape
            .as_array()
            .expect("array rules are called for array instructions")
    }

    /// The array shape of operand `k` of `instr`.
    fn operand_shape(&self, instr: &HloInstruction, k: usize) -> &ArrayShape {
        self.array_shape(instr.operands[k])
    }

    /// The forward value of operand `k` of `instr`.
    fn operand(&self, instr: &HloInstruction, k: usize) -> Result<XlaOp> {
        self.value(instr.operands[k])
    }

    /// The forward value of instruction `id`: replayed, or, for a tape
    /// with [`Residuals`], recomputed when cheap and otherwise a parameter.
    fn value(&self, id: InstrId) -> Result<XlaOp> {
        let Some(residuals) = &self.residuals else {
            return Ok(self.fwd[id.index()]);
        };
        if let Some(&op) = residuals.values.borrow().get(&id) {
            return Ok(op);
        }
        let instr = self.comp.instr(id);
        let of_tuple = (instr.opcode == Opcode::GetTupleElement)
            .then(|| self.comp.instr(instr.operands[0]))
            .filter(|t| t.opcode == Opcode::Tuple);
        let op = if instr.opcode == Opcode::Parameter {
            residuals.inputs[instr.attrs.parameter_number.unwrap_or(0) as usize]
        } else if let Some(tuple) = of_tuple {
            let k = instr.attrs.tuple_index.unwrap_or(0) as usize;
            return self.value(tuple.operands[k]);
        } else if cheap(self.comp, instr) {
            let operands = (0..instr.operands.len())
                .map(|k| self.operand(instr, k))
                .collect::<Result<Vec<_>>>()?;
            self.b.add_instruction(instr, &operands, &[])?
        } else {
            let mut stored = residuals.stored.borrow_mut();
            let number = residuals.first + stored.len() as i64;
            stored.push(id);
            self.b.parameter(number, &instr.shape, "residual")?
        };
        residuals.values.borrow_mut().insert(id, op);
        Ok(op)
    }
}
