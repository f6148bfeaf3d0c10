//! Batch normalisation expanded into reductions and element-wise ops.

use super::edit::{Editor, Names};
use super::effects::SideEffects;
use super::{Changed, Pass};
use crate::hlo::{
    Attrs, ComputationId, HloComputation, HloInstruction, HloModule, InstrId, Opcode,
};
use crate::{Literal, PrimitiveType, Result, Shape};

/// Rewrites `batch-norm-training`, `batch-norm-inference` and
/// `batch-norm-grad` into `reduce`, `broadcast` and element-wise ops, the
/// formulas of `docs/semantics.md`, *Batch normalisation* (XLA's `BatchNormExpander`), so that a
/// backend compiles them as ordinary reduction and loop kernels.
///
/// With `x` the operand, `f` the `feature_index`, `C` the size of dimension
/// `f`, `m` the number of elements per feature, and `Σ` a `reduce` with
/// `add` over every dimension but `f` (giving `[C]`), broadcast back along
/// `f` where a `[C]` value meets an operand-shaped one:
///
/// * training: `μ = Σx/m`, `σ² = Σ(x−μ)²/m` (biased, two passes as the
///   interpreter computes it), `y = (x−μ)·(γ·rsqrt(σ²+ε)) + β`, and
///   `tuple(y, μ, σ²)`;
/// * inference: `y = (x−mean)·(γ·rsqrt(variance+ε)) + β`;
/// * grad: with `r = rsqrt(σ²+ε)`, `∇β = Σ∇y`, `s = Σ∇y·(x−μ)`,
///   `∇γ = s·r`, `∇x = (γ·r)·(∇y − ∇β/m − (s/(σ²+ε)/m)·(x−μ))`, and
///   `tuple(∇x, ∇γ, ∇β)`.
///
/// `f32` and `f64` are computed in their own type, `f16` and `bf16` in
/// `f32` with one rounding of each result (the interpreter computes every
/// type in `f64`, so results agree within the element type's tolerance,
/// not bit for bit). An operand of any other element type is left alone.
#[derive(Copy, Clone, Debug, Default)]
pub struct BatchNormExpander;

impl Pass for BatchNormExpander {
    const NAME: &'static str = "batch-norm-expander";

    fn run(&mut self, module: &mut HloModule) -> Result<Changed> {
        let mut adders: Vec<(PrimitiveType, ComputationId)> = Vec::new();
        let mut targets = Vec::new();
        for id in module.computation_ids() {
            let mut any = false;
            for instr in &module.computation(id).instructions {
                if let Some(ty) = compute_type(instr) {
                    any = true;
                    if !adders.iter().any(|&(t, _)| t == ty) {
                        adders.push((ty, ComputationId(u32::MAX)));
                    }
                }
            }
            if any {
                targets.push(id);
            }
        }
        if targets.is_empty() {
            return Ok(Changed::No);
        }
        let mut names = Names::of(module);
        for (ty, id) in &mut adders {
            *id = add_adder(module, &mut names, *ty);
        }
        let effects = SideEffects::of(module);
        for id in targets {
            let mut editor = Editor::open(module, id);
            for i in 0..editor.len() {
                let at = InstrId(i as u32);
                let Some(ty) = compute_type(editor.instr(at)) else {
                    continue;
                };
                let (_, add) = *adders
                    .iter()
                    .find(|&&(t, _)| t == ty)
                    .expect("an add computation for every compute type");
                let mut cx = Expansion::new(&mut editor, &mut names, at, ty, add);
                let new = match cx.editor.instr(at).opcode {
                    Opcode::BatchNormTraining => cx.training(),
                    Opcode::BatchNormInference => cx.inference(),
                    _ => cx.grad(),
                };
                editor.replace(at, new);
            }
            let _changed = editor.close(module, &effects);
        }
        Ok(Changed::Yes)
    }
}

/// The type a batch-norm instruction is computed in, or `None` for any
/// other instruction (and a batch norm of a non-float type).
fn compute_type(instr: &HloInstruction) -> Option<PrimitiveType> {
    let batch_norm = matches!(
        instr.opcode,
        Opcode::BatchNormTraining | Opcode::BatchNormInference | Opcode::BatchNormGrad
    );
    if !batch_norm {
        return None;
    }
    let ty = instr.shape.array_leaves().first()?.element_type();
    match ty {
        PrimitiveType::F16 | PrimitiveType::Bf16 | PrimitiveType::F32 => Some(PrimitiveType::F32),
        PrimitiveType::F64 => Some(PrimitiveType::F64),
        _ => None,
    }
}

/// Appends the computation `add(p0, p1)` on scalars of `ty`, the `to_apply`
/// of the expansion's reductions.
fn add_adder(module: &mut HloModule, names: &mut Names, ty: PrimitiveType) -> ComputationId {
    let scalar = Shape::scalar(ty);
    let parameter = |number: i64, names: &mut Names| {
        let mut p = HloInstruction::new(
            names.fresh("parameter"),
            Opcode::Parameter,
            scalar.clone(),
            vec![],
        );
        p.attrs.parameter_number = Some(number);
        p
    };
    let instructions = vec![
        parameter(0, names),
        parameter(1, names),
        HloInstruction::new(
            names.fresh("add"),
            Opcode::Add,
            scalar.clone(),
            vec![InstrId(0), InstrId(1)],
        ),
    ];
    let mut name = format!("batch_norm_add_{}", ty.name());
    while module.find_computation(&name).is_some() {
        name.push('_');
    }
    module.computations.push(HloComputation {
        name,
        instructions,
        root: InstrId(2),
    });
    ComputationId(module.computations.len() as u32 - 1)
}

/// Builds the expansion of the batch norm at `at`, adding instructions
/// before it.
struct Expansion<'a> {
    editor: &'a mut Editor,
    names: &'a mut Names,
    at: InstrId,
    /// The compute type.
    ty: PrimitiveType,
    /// `add` on scalars of `ty`.
    add: ComputationId,
    /// The operand's dimensions.
    dims: Vec<i64>,
    /// `feature_index`.
    feature: usize,
    epsilon: f64,
}

impl<'a> Expansion<'a> {
    fn new(
        editor: &'a mut Editor,
        names: &'a mut Names,
        at: InstrId,
        ty: PrimitiveType,
        add: ComputationId,
    ) -> Self {
        let instr = editor.instr(at);
        let dims = editor
            .operand_instr(at, 0)
            .shape
            .as_array()
            .map(|a| a.dims().to_vec())
            .unwrap_or_default();
        let feature = instr.attrs.feature_index.unwrap_or(0) as usize;
        let epsilon = f64::from(instr.attrs.epsilon.unwrap_or(0.0));
        Expansion {
            editor,
            names,
            at,
            ty,
            add,
            dims,
            feature,
            epsilon,
        }
    }

    /// `(y, μ, σ²)`.
    fn training(&mut self) -> InstrId {
        let [x, scale, offset] = [0, 1, 2].map(|k| self.input(k));
        let mean = self.mean(x);
        let centered = self.centered(x, mean);
        let squares = self.binary(Opcode::Multiply, centered, centered);
        let variance = self.mean(squares);
        let y = self.normalize(centered, scale, offset, variance);
        self.result_tuple([y, mean, variance])
    }

    /// `y` from the given statistics.
    fn inference(&mut self) -> InstrId {
        let [x, scale, offset, mean, variance] = [0, 1, 2, 3, 4].map(|k| self.input(k));
        let centered = self.centered(x, mean);
        let y = self.normalize(centered, scale, offset, variance);
        self.output(y)
    }

    /// `(∇x, ∇γ, ∇β)`.
    fn grad(&mut self) -> InstrId {
        let [x, scale, mean, variance, dy] = [0, 1, 2, 3, 4].map(|k| self.input(k));
        let centered = self.centered(x, mean);
        let epsilon = self.per_feature(self.epsilon);
        let var_eps = self.binary(Opcode::Add, variance, epsilon);
        let rsqrt = self.unary(Opcode::Rsqrt, var_eps);
        let doffset = self.sum(dy);
        let dy_centered = self.binary(Opcode::Multiply, dy, centered);
        let s = self.sum(dy_centered);
        let dscale = self.binary(Opcode::Multiply, s, rsqrt);
        let m = self.per_feature(self.slice_size());
        let d = self.binary(Opcode::Divide, doffset, m);
        let c = self.binary(Opcode::Divide, s, var_eps);
        let c = self.binary(Opcode::Divide, c, m);
        let [d, c] = [d, c].map(|v| self.broadcast(v));
        let c_centered = self.binary(Opcode::Multiply, c, centered);
        let dx = self.binary(Opcode::Subtract, dy, d);
        let dx = self.binary(Opcode::Subtract, dx, c_centered);
        let factor = self.binary(Opcode::Multiply, scale, rsqrt);
        let factor = self.broadcast(factor);
        let dx = self.binary(Opcode::Multiply, factor, dx);
        self.result_tuple([dx, dscale, doffset])
    }

    /// `(x − μ)·(γ·rsqrt(σ² + ε)) + β` from `centered = x − μ`.
    fn normalize(
        &mut self,
        centered: InstrId,
        scale: InstrId,
        offset: InstrId,
        variance: InstrId,
    ) -> InstrId {
        let epsilon = self.per_feature(self.epsilon);
        let var_eps = self.binary(Opcode::Add, variance, epsilon);
        let rsqrt = self.unary(Opcode::Rsqrt, var_eps);
        let factor = self.binary(Opcode::Multiply, scale, rsqrt);
        let factor = self.broadcast(factor);
        let scaled = self.binary(Opcode::Multiply, centered, factor);
        let offset = self.broadcast(offset);
        self.binary(Opcode::Add, scaled, offset)
    }

    /// `x − broadcast(mean)`.
    fn centered(&mut self, x: InstrId, mean: InstrId) -> InstrId {
        let mean = self.broadcast(mean);
        self.binary(Opcode::Subtract, x, mean)
    }

    /// `Σv / m`, per feature.
    fn mean(&mut self, v: InstrId) -> InstrId {
        let sum = self.sum(v);
        let m = self.per_feature(self.slice_size());
        self.binary(Opcode::Divide, sum, m)
    }

    /// `m`, the number of elements per feature.
    fn slice_size(&self) -> f64 {
        let total: i64 = self.dims.iter().product();
        total as f64 / self.dims[self.feature] as f64
    }

    /// Operand `k`, converted to the compute type.
    fn input(&mut self, k: usize) -> InstrId {
        let id = self.editor.operand(self.at, k);
        let shape = &self.editor.instr(id).shape;
        let Some(array) = shape.as_array() else {
            return id;
        };
        if array.element_type() == self.ty {
            return id;
        }
        let shape = Shape::array(self.ty, array.dims().to_vec());
        self.add(Opcode::Convert, shape, vec![id], Attrs::default())
    }

    /// `value`, converted back to the batch norm's element type.
    fn output(&mut self, value: InstrId) -> InstrId {
        let shape = self.editor.instr(value).shape.clone();
        let Some(array) = shape.as_array() else {
            return value;
        };
        let ty = self.result_type();
        if ty == self.ty {
            return value;
        }
        let shape = Shape::array(ty, array.dims().to_vec());
        self.add(Opcode::Convert, shape, vec![value], Attrs::default())
    }

    fn result_type(&self) -> PrimitiveType {
        self.editor.instr(self.at).shape.array_leaves()[0].element_type()
    }

    /// `tuple` of the three results, each converted to the element type.
    fn result_tuple(&mut self, values: [InstrId; 3]) -> InstrId {
        let values = values.map(|v| self.output(v));
        let shape = self.editor.instr(self.at).shape.clone();
        self.add(Opcode::Tuple, shape, values.to_vec(), Attrs::default())
    }

    /// A `[C]` array of `value`.
    fn per_feature(&mut self, value: f64) -> InstrId {
        let literal = match self.ty {
            PrimitiveType::F64 => Literal::scalar(value),
            _ => Literal::scalar(value as f32),
        };
        let constant = self.add(
            Opcode::Constant,
            Shape::scalar(self.ty),
            vec![],
            Attrs {
                literal: Some(literal),
                ..Attrs::default()
            },
        );
        let shape = self.features();
        self.add(Opcode::Broadcast, shape, vec![constant], dimensions(vec![]))
    }

    /// A `[C]` value broadcast to the operand's dimensions along
    /// `feature_index`.
    fn broadcast(&mut self, v: InstrId) -> InstrId {
        let shape = Shape::array(self.ty, self.dims.clone());
        let along = dimensions(vec![self.feature as i64]);
        self.add(Opcode::Broadcast, shape, vec![v], along)
    }

    /// `Σv` over every dimension but `feature_index`: `[C]`.
    fn sum(&mut self, v: InstrId) -> InstrId {
        let zero = self.add(
            Opcode::Constant,
            Shape::scalar(self.ty),
            vec![],
            Attrs {
                literal: Some(match self.ty {
                    PrimitiveType::F64 => Literal::scalar(0.0f64),
                    _ => Literal::scalar(0.0f32),
                }),
                ..Attrs::default()
            },
        );
        let reduced = (0..self.dims.len() as i64)
            .filter(|&d| d != self.feature as i64)
            .collect();
        let shape = self.features();
        let mut reduce = HloInstruction::new(
            self.names.fresh("reduce"),
            Opcode::Reduce,
            shape,
            vec![v, zero],
        );
        reduce.called = vec![self.add];
        reduce.attrs.dimensions = Some(reduced);
        self.editor.add(self.at, reduce)
    }

    fn features(&self) -> Shape {
        Shape::array(self.ty, vec![self.dims[self.feature]])
    }

    /// `op(a, b)`, shaped like `a`.
    fn binary(&mut self, op: Opcode, a: InstrId, b: InstrId) -> InstrId {
        let shape = self.editor.instr(a).shape.clone();
        self.add(op, shape, vec![a, b], Attrs::default())
    }

    fn unary(&mut self, op: Opcode, a: InstrId) -> InstrId {
        let shape = self.editor.instr(a).shape.clone();
        self.add(op, shape, vec![a], Attrs::default())
    }

    fn add(&mut self, op: Opcode, shape: Shape, operands: Vec<InstrId>, attrs: Attrs) -> InstrId {
        let mut instr = HloInstruction::new(self.names.fresh(op.name()), op, shape, operands);
        instr.attrs = attrs;
        self.editor.add(self.at, instr)
    }
}

fn dimensions(dims: Vec<i64>) -> Attrs {
    Attrs {
        dimensions: Some(dims),
        ..Attrs::default()
    }
}
