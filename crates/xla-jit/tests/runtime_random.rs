//! Random well-typed programs of fusible ops (elementwise, broadcast,
//! reshape, transpose, slice, pad, concatenate, reverse, reduce, select,
//! compare, convert, iota, dynamic-slice, dynamic-update-slice) over random
//! shapes, element types and parameter layouts: the JIT against the
//! reference interpreter. A failure prints the seed and the module.

use crate::runtime_support;

use runtime_support::{check_against_interpreter, random_args, Rng};
use xla_core::builder::{XlaBuilder, XlaComputation, XlaOp};
use xla_core::hlo::PadDim;
use xla_core::layout::Layout;
use xla_core::literal::Tolerance;
use xla_core::{ArrayShape, HloModule, Literal, PrimitiveType, Shape};

/// Builds one random program.
struct Gen {
    b: XlaBuilder,
    rng: Rng,
    ty: PrimitiveType,
    dims: Vec<i64>,
    /// Values of shape `ty[dims]`.
    values: Vec<XlaOp>,
    /// Values whose elements are computed exactly on both sides (parameters,
    /// iota), the only ones compared: a comparison of rounded values could
    /// flip between the two.
    exact: Vec<XlaOp>,
    params: i64,
}

impl Gen {
    fn pick(&mut self, n: usize) -> usize {
        self.rng.below(n)
    }

    fn value(&mut self) -> XlaOp {
        let i = self.pick(self.values.len());
        self.values[i]
    }

    fn exact_value(&mut self) -> XlaOp {
        let i = self.pick(self.exact.len());
        self.exact[i]
    }

    fn is_float(&self) -> bool {
        self.ty.is_floating()
    }

    fn shape(&self) -> ArrayShape {
        ArrayShape::new(self.ty, self.dims.clone())
    }

    fn parameter(&mut self, shape: &ArrayShape) -> XlaOp {
        let name = format!("p{}", self.params);
        let op = self
            .b
            .parameter(self.params, &Shape::from(shape.clone()), &name)
            .unwrap();
        self.params += 1;
        op
    }

    fn scalar(&mut self, value: f64) -> XlaOp {
        let c = self.b.constant_r0(value).unwrap();
        self.b.convert_element_type(c, self.ty).unwrap()
    }

    fn reducer(&self, max: bool) -> XlaComputation {
        let r = XlaBuilder::new(if max { "max" } else { "sum" });
        let s = Shape::from(ArrayShape::new(self.ty, vec![]));
        let (x, y) = (
            r.parameter(0, &s, "x").unwrap(),
            r.parameter(1, &s, "y").unwrap(),
        );
        let root = if max {
            r.max(x, y, &[])
        } else {
            r.add(x, y, &[])
        };
        r.build(root.unwrap()).unwrap()
    }

    fn unary(&mut self, x: XlaOp) -> XlaOp {
        let float_ops = self.is_float();
        let choice = self.rng.below(if float_ops { 6 } else { 2 });
        let (lo, hi) = (self.scalar(-4.0), self.scalar(4.0));
        let b = &self.b;
        match choice {
            0 => b.neg(x),
            1 => b.abs(x),
            2 => b.tanh(x),
            3 => {
                let a = b.abs(x).unwrap();
                b.sqrt(a)
            }
            4 => {
                let c = b.clamp(lo, x, hi).unwrap();
                b.exp(c)
            }
            _ => b.logistic(x),
        }
        .unwrap()
    }

    fn binary(&mut self, x: XlaOp, y: XlaOp) -> XlaOp {
        let b = &self.b;
        match self.rng.below(5) {
            0 => b.add(x, y, &[]),
            1 => b.sub(x, y, &[]),
            2 => b.mul(x, y, &[]),
            3 => b.max(x, y, &[]),
            _ => b.min(x, y, &[]),
        }
        .unwrap()
    }

    /// One step: a new value of shape `ty[dims]` from earlier ones.
    fn step(&mut self) -> XlaOp {
        let rank = self.dims.len();
        let d = self.pick(rank.max(1)).min(rank.saturating_sub(1));
        let x = self.value();
        match self.rng.below(14) {
            0 => self.unary(x),
            1 | 2 => {
                let y = self.value();
                self.binary(x, y)
            }
            3 => {
                let (p, q) = (self.exact_value(), self.exact_value());
                let pred = self.b.lt(p, q, &[]).unwrap();
                let y = self.value();
                self.b.select(pred, x, y).unwrap()
            }
            4 => {
                let other = match self.ty {
                    PrimitiveType::F32 => PrimitiveType::Bf16,
                    PrimitiveType::S32 => PrimitiveType::S8,
                    _ => PrimitiveType::F32,
                };
                let c = self.b.convert_element_type(x, other).unwrap();
                self.b.convert_element_type(c, self.ty).unwrap()
            }
            5 if rank >= 2 => {
                let mut perm: Vec<i64> = (0..rank as i64).collect();
                perm.rotate_left(1 + self.pick(rank - 1));
                let mut inverse = vec![0; rank];
                for (i, &p) in perm.iter().enumerate() {
                    inverse[p as usize] = i as i64;
                }
                let y = self.value();
                let (tx, ty) = (
                    self.b.transpose(x, &perm).unwrap(),
                    self.b.transpose(y, &perm).unwrap(),
                );
                let t = self.binary(tx, ty);
                self.b.transpose(t, &inverse).unwrap()
            }
            6 if rank >= 1 => {
                let n: i64 = self.dims.iter().product();
                let flat = self.b.reshape(x, &[n]).unwrap();
                let u = self.unary(flat);
                let dims = self.dims.clone();
                self.b.reshape(u, &dims).unwrap()
            }
            7 if rank >= 1 => {
                let max = self.rng.below(2) == 0;
                let init = self.scalar(if max { -1e4 } else { 0.0 });
                let reducer = self.reducer(max);
                let r = self.b.reduce(&[x], &[init], &reducer, &[d as i64]).unwrap();
                let kept: Vec<i64> = (0..rank as i64).filter(|&k| k != d as i64).collect();
                let back = self
                    .b
                    .broadcast_in_dim(r, &self.dims.clone(), &kept)
                    .unwrap();
                let y = self.value();
                self.binary(back, y)
            }
            8 if rank >= 1 && self.dims[d] >= 2 => {
                let mut start = vec![0; rank];
                let limit = self.dims.clone();
                start[d] = 1;
                let s = self.b.slice(x, &start, &limit, &vec![1; rank]).unwrap();
                let zero = self.scalar(0.5);
                let config: Vec<PadDim> = (0..rank)
                    .map(|k| PadDim {
                        low: i64::from(k == d),
                        high: 0,
                        interior: 0,
                    })
                    .collect();
                self.b.pad(s, zero, &config).unwrap()
            }
            9 if rank >= 1 => self.b.rev(x, &[d as i64]).unwrap(),
            10 if rank >= 1 && self.dims[d] >= 2 => {
                let k = 1 + self.rng.below(self.dims[d] as usize - 1) as i64;
                let (mut s0, mut l0) = (vec![0; rank], self.dims.clone());
                let (mut s1, l1) = (vec![0; rank], self.dims.clone());
                l0[d] = k;
                s1[d] = k;
                s0[d] = 0;
                let ones = vec![1; rank];
                let a = self.b.slice(x, &s0, &l0, &ones).unwrap();
                let c = self.b.slice(x, &s1, &l1, &ones).unwrap();
                self.b.concat_in_dim(&[c, a], d as i64).unwrap()
            }
            11 if rank >= 1 => {
                let iota = self
                    .b
                    .iota(
                        &ArrayShape::new(PrimitiveType::S32, self.dims.clone()),
                        d as i64,
                    )
                    .unwrap();
                let i = self.b.convert_element_type(iota, self.ty).unwrap();
                self.exact.push(i);
                self.binary(x, i)
            }
            12 if rank >= 1 => {
                // dynamic-slice of size dims[d]-1 at a clamped start, padded
                // back; the start comes from an s32 parameter.
                let size = (self.dims[d] - 1).max(1);
                let start = self.parameter(&ArrayShape::new(PrimitiveType::S32, vec![]));
                let zero = self.b.constant_r0(0i32).unwrap();
                let starts: Vec<XlaOp> = (0..rank)
                    .map(|k| if k == d { start } else { zero })
                    .collect();
                let mut sizes = self.dims.clone();
                sizes[d] = size;
                let s = self.b.dynamic_slice(x, &starts, &sizes).unwrap();
                let fill = self.scalar(-0.25);
                let config: Vec<PadDim> = (0..rank)
                    .map(|k| PadDim {
                        low: 0,
                        high: if k == d { self.dims[d] - size } else { 0 },
                        interior: 0,
                    })
                    .collect();
                self.b.pad(s, fill, &config).unwrap()
            }
            13 if rank >= 1 => {
                let mut sizes = self.dims.clone();
                sizes[d] = 1;
                let ones = vec![1; rank];
                let source = self.value();
                let update = self.b.slice(source, &vec![0; rank], &sizes, &ones).unwrap();
                let start = self.parameter(&ArrayShape::new(PrimitiveType::S32, vec![]));
                let zero = self.b.constant_r0(0i32).unwrap();
                let starts: Vec<XlaOp> = (0..rank)
                    .map(|k| if k == d { start } else { zero })
                    .collect();
                self.b.dynamic_update_slice(x, update, &starts).unwrap()
            }
            _ => {
                let s = self.parameter(&ArrayShape::new(self.ty, vec![]));
                let dims = self.dims.clone();
                let bs = self.b.broadcast_in_dim(s, &dims, &[]).unwrap();
                self.binary(x, bs)
            }
        }
    }
}

/// A random program: its module (with random parameter layouts) and the
/// tolerance its element type needs.
fn random_program(seed: u64) -> (HloModule, Tolerance) {
    let mut rng = Rng(seed);
    let ty = match rng.below(6) {
        0 => PrimitiveType::F64,
        1 => PrimitiveType::S32,
        2 => PrimitiveType::Bf16,
        _ => PrimitiveType::F32,
    };
    let rank = rng.below(4);
    let dims: Vec<i64> = (0..rank).map(|_| 1 + rng.below(9) as i64).collect();
    let mut g = Gen {
        b: XlaBuilder::new(format!("random_{seed}")),
        rng,
        ty,
        dims,
        values: Vec::new(),
        exact: Vec::new(),
        params: 0,
    };
    for _ in 0..2 {
        let p = g.parameter(&g.shape());
        g.values.push(p);
        g.exact.push(p);
    }
    let steps = 2 + g.rng.below(8);
    for _ in 0..steps {
        let v = g.step();
        g.values.push(v);
    }
    let last = *g.values.last().unwrap();
    let root = if g.rng.below(4) == 0 {
        let other = g.value();
        g.b.tuple(&[last, other]).unwrap()
    } else {
        last
    };
    let mut module = g.b.build(root).unwrap().into_module();
    permute_entry_layouts(&mut module, &mut g.rng);
    let tolerance = match ty {
        // Sums rounded to bf16 after every addition depend on their order.
        PrimitiveType::Bf16 => Tolerance::new(0.1, 0.05),
        _ => Tolerance::new(1e-4, 1e-4),
    };
    (module, tolerance)
}

/// Gives some array parameters and result leaves of rank ≥ 2 a random
/// non-default layout in the entry signature.
fn permute_entry_layouts(module: &mut HloModule, rng: &mut Rng) {
    let mut signature = module.entry_program_shape();
    let relayout = |shape: &mut Shape, rng: &mut Rng| {
        if let Shape::Array(a) = shape {
            if a.rank() >= 2 && rng.below(3) == 0 {
                let mut order: Vec<i64> = (0..a.rank() as i64).collect();
                order.rotate_left(1 + rng.below(a.rank() - 1));
                *a = a.clone().with_layout(Layout::new(order));
            }
        }
    };
    for p in &mut signature.parameters {
        relayout(p, rng);
    }
    match &mut signature.result {
        Shape::Tuple(elements) => elements.iter_mut().for_each(|e| relayout(e, rng)),
        other => relayout(other, rng),
    }
    let entry = module.entry;
    for instr in &mut module.computation_mut(entry).instructions {
        if instr.opcode == xla_core::Opcode::Parameter {
            let number = instr.attrs.parameter_number.unwrap_or(0) as usize;
            instr.shape = signature.parameters[number].clone();
        }
    }
    module.entry_layout = Some(signature);
}

#[test]
fn random_programs_match_the_interpreter() {
    for seed in 0..500u64 {
        let (module, tolerance) = random_program(seed);
        let args: Vec<Literal> = random_args(&module, seed ^ 0xabcdef);
        let outcome = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            check_against_interpreter(&module, &args, tolerance)
        }));
        if outcome.is_err() {
            panic!("random program {seed} failed:\n{module}");
        }
    }
}
