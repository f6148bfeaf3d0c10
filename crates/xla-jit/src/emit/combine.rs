//! Reducers applied to register values: a reduce's `to_apply` as a
//! [`Combiner`], running [`Accumulators`], and [`reduce_at`], the loops
//! that reduce everything belonging to one output position. Shared by
//! reduction kernels (`reduce.rs`, `column.rs`) and row kernels (`row.rs`).
//!
//! Vector accumulators need the combiner's identity (add, multiply, max,
//! min, and, or, xor recognized in `to_apply`); other reducers (variadic
//! ones such as argmax, arbitrary computations, and complex reducers other
//! than a `c64` sum) fold one element at a time from the init value.

use cranelift_codegen::ir::condcodes::{FloatCC, IntCC};
use cranelift_codegen::ir::{types, InstBuilder, Value};
use cranelift_frontend::Variable;
use xla_core::hlo::{ComputationId, HloComputation, HloInstruction};
use xla_core::{HloModule, Opcode, PrimitiveType, Shape};

use super::access::lane_scalar;
use super::complex;
use super::elemental::{element_type, emit_computation, Elemental};
use super::elementwise;
use super::index::{Index, IndexDim};
use super::iterate::{emit_inner_steps, unroll_for};
use super::kernel::KernelBuilder;
use super::ops::{op_of, Binary, Op};
use super::repr::{constant, fit, Const};
use super::Unsupported;

/// A reduce's `to_apply`, applied to register values.
pub(super) struct Combiner<'m> {
    module: &'m HloModule,
    to_apply: ComputationId,
    /// `Some(op)` when `to_apply` is `op(p0, p1)` of a single value.
    op: Option<Binary>,
    /// Element types of the reduced values.
    pub tys: Vec<PrimitiveType>,
    /// Whether the reduce's init value is a constant equal to the
    /// combiner's identity, bit for bit (a `max` from `-inf`, a sum from
    /// `-0`): combining with it changes nothing.
    init_is_identity: bool,
}

impl<'m> Combiner<'m> {
    /// The combiner of `reduce`.
    pub fn new(
        module: &'m HloModule,
        comp: &HloComputation,
        reduce: &HloInstruction,
    ) -> Result<Self, Unsupported> {
        let to_apply = *reduce
            .called
            .first()
            .ok_or_else(|| Unsupported::new(Opcode::Reduce, "no to_apply"))?;
        let n = reduce.operands.len() / 2;
        let tys: Vec<PrimitiveType> = reduce.operands[..n]
            .iter()
            .map(|&o| element_type(&comp.instr(o).shape))
            .collect();
        let op = match module
            .computation(to_apply)
            .binary_of_parameters()
            .map(op_of)
        {
            Some(Op::Binary(b)) if n == 1 && identity(b, tys[0]).is_some() => Some(b),
            _ => None,
        };
        let init_is_identity = op.and_then(|op| identity(op, tys[0])).is_some_and(|c| {
            let init = comp.instr(reduce.operands[1]);
            init.opcode == Opcode::Constant
                && init.attrs.literal.as_ref().and_then(|l| l.bytes().ok())
                    == stored_bytes(tys[0], c).as_deref()
        });
        Ok(Combiner {
            module,
            to_apply,
            op,
            tys,
            init_is_identity,
        })
    }

    /// `to_apply(init, total)`: `total` itself when the init value is the
    /// identity.
    pub fn with_init(
        &self,
        kb: &mut KernelBuilder,
        init: &[Value],
        total: Vec<Value>,
    ) -> Result<Vec<Value>, Unsupported> {
        if self.init_is_identity {
            Ok(total)
        } else {
            self.combine(kb, init, &total, 1)
        }
    }

    /// `Some(max)` for float maximum (`true`) and minimum (`false`)
    /// computed in `f32` or `f64` registers (see [`Extremum`]).
    fn extremum(&self) -> Option<bool> {
        let float = matches!(
            self.tys[0],
            PrimitiveType::F32 | PrimitiveType::F16 | PrimitiveType::Bf16 | PrimitiveType::F64
        );
        match self.op {
            Some(Binary::Maximum) if float => Some(true),
            Some(Binary::Minimum) if float => Some(false),
            _ => None,
        }
    }

    /// The identity of a recognized combiner, if any.
    pub fn identity(&self) -> Option<Const> {
        self.op.and_then(|op| identity(op, self.tys[0]))
    }

    /// `to_apply(accs, xs)`, lane-wise.
    pub fn combine(
        &self,
        kb: &mut KernelBuilder,
        accs: &[Value],
        xs: &[Value],
        lanes: u32,
    ) -> Result<Vec<Value>, Unsupported> {
        if let Some(op) = self.op {
            if self.tys[0].is_complex() {
                return Ok(vec![complex::add(kb, self.tys[0], accs[0], xs[0], lanes)]);
            }
            return Ok(vec![elementwise::binary(
                kb,
                op,
                self.tys[0],
                accs[0],
                xs[0],
                lanes,
            )?]);
        }
        let args: Vec<(Value, PrimitiveType)> = accs
            .iter()
            .chain(xs)
            .zip(self.tys.iter().chain(&self.tys))
            .map(|(&v, &t)| (v, t))
            .collect();
        emit_computation(kb, self.module, self.to_apply, &args, lanes)
    }
}

/// The bytes of `c` as an element of `ty` where registers hold elements
/// as they are stored (f32, f64, integers); `None` for other types.
fn stored_bytes(ty: PrimitiveType, c: Const) -> Option<Vec<u8>> {
    let bits = match (ty, c) {
        (PrimitiveType::F32, Const::Float(v)) => u64::from((v as f32).to_bits()),
        (PrimitiveType::F64, Const::Float(v)) => v.to_bits(),
        (PrimitiveType::F32 | PrimitiveType::F64, Const::Bits(b)) => b,
        (t, Const::Bits(b)) if t.is_integral() => b,
        (t, Const::Float(v)) if t.is_integral() => v as i64 as u64,
        _ => return None,
    };
    Some(bits.to_le_bytes()[..ty.byte_size()].to_vec())
}

/// The identity of `op` on `ty` (`−0` for float sums, so an all-`−0` sum
/// stays `−0`). Of the complex reducers only the `c64` sum has one that
/// fits a constant, `(−0, −0)`; `(1, 0)` is no exact identity of complex
/// multiplication (`(∞, ∞)·(1, 0)` has a NaN part).
fn identity(op: Binary, ty: PrimitiveType) -> Option<Const> {
    if ty.is_complex() {
        return (op == Binary::Add && ty == PrimitiveType::C64)
            .then_some(Const::Bits(0x8000_0000_8000_0000));
    }
    let float = ty.is_floating();
    let bits = ty.bit_width() as u32;
    let all_ones = if bits >= 64 {
        u64::MAX
    } else {
        (1u64 << bits) - 1
    };
    let signed = ty.is_signed_integral();
    Some(match op {
        Binary::Add | Binary::Or | Binary::Xor if float => Const::Float(-0.0),
        Binary::Add | Binary::Or | Binary::Xor => Const::Bits(0),
        Binary::Multiply if float => Const::Float(1.0),
        Binary::Multiply => Const::Bits(1),
        Binary::Maximum if float => Const::Float(f64::NEG_INFINITY),
        Binary::Maximum if signed => Const::Bits(1u64 << (bits - 1)),
        Binary::Maximum => Const::Bits(0),
        Binary::Minimum if float => Const::Float(f64::INFINITY),
        Binary::Minimum if signed => Const::Bits((1u64 << (bits - 1)) - 1),
        Binary::Minimum => Const::Bits(all_ones),
        Binary::And if !float => Const::Bits(all_ones),
        Binary::And
        | Binary::Subtract
        | Binary::Divide
        | Binary::Remainder
        | Binary::ShiftLeft
        | Binary::ShiftRightLogical
        | Binary::ShiftRightArithmetic
        | Binary::Power
        | Binary::Atan2 => return None,
    })
}

/// Running results of one reduction: `unroll` vector accumulators and one
/// scalar accumulator per reduced value, as Cranelift variables.
///
/// Float maxima and minima over vectors take their own path, see
/// [`Extremum`].
pub(super) struct Accumulators {
    vectors: Vec<Vec<Variable>>,
    scalars: Vec<Variable>,
    lanes: u32,
    unroll: u32,
    next: usize,
    /// For a float maximum or minimum over vectors.
    extremum: Option<Extremum>,
    /// Whether code folding single elements into the scalar accumulators
    /// was emitted; if not, they still hold the identity.
    scalar_folds: bool,
}

/// Vector accumulators of a float maximum (`max`) or minimum.
///
/// They run on the processor's `maxps`/`minps` (`maxpd`/`minpd`), one
/// instruction per vector, where a NaN- and zero-aware maximum takes
/// eight, or three integer max/min on the bits. These return their second
/// operand when either operand is a NaN or both are zeros, and with
/// denormals-are-zero set they compare every subnormal equal to zero. So
/// two more values are accumulated beside them, one instruction per vector
/// between them:
///
/// * NaNs: one unordered compare per pair of vectors, or-ed into a mask.
///   Any NaN makes the result the default NaN.
/// * Signs: the and (maximum; or, minimum) of the bits of every vector.
///   When the `maxps` result `m` is a zero or a subnormal, every element is
///   a zero, a subnormal or below them, and the exact maximum, flushed as
///   every result is, is `+0` if some element has a clear sign bit (`+0`
///   or a positive subnormal) and `−0` otherwise: the and's sign bit says
///   which. (For the minimum: `−0` if some element has its sign set.)
///
/// Otherwise `m` is the exact answer: every element compared with it was
/// ordered as floats order it.
///
/// The signs cost a third of the loop's instructions and decide only
/// all-zero data, so [`Signs::Deferred`] leaves them out: its
/// caller reduces again, with signs, when `m` is a zero or a subnormal
/// (reduce_all_max: 1.52–1.64 ms with signs, 1.34–1.51 without, medians
/// of interleaved `xla bench` runs).
struct Extremum {
    max: bool,
    /// All-ones lanes where an unordered compare saw a NaN.
    nan: Variable,
    /// The and (maximum) or or (minimum) of the bits of every vector,
    /// unless deferred.
    signs: Option<Variable>,
    /// A vector added since the last NaN test, tested with the next one
    /// (or alone at the end of the loop step).
    pending: Option<Value>,
}

/// Whether float extrema accumulate their signs (see [`Extremum`]).
#[derive(Clone, Copy, PartialEq, Eq)]
pub(super) enum Signs {
    /// Exact from the start: finish with [`Accumulators::finish`].
    Kept,
    /// Left out: finish with [`Accumulators::finish_deferred`], which says
    /// when the reduction must be redone with [`Signs::Kept`].
    Deferred,
}

impl Accumulators {
    /// Accumulators starting at the combiner's identity (vectors) — or at
    /// `init` for scalar folds (`lanes == 1`); `signs` says whether float
    /// extrema keep their signs. Call [`Accumulators::end_step`] after
    /// each loop step's vectors.
    pub fn new(
        kb: &mut KernelBuilder,
        comb: &Combiner,
        (lanes, unroll): (u32, u32),
        init: &[Value],
        signs: Signs,
    ) -> Self {
        let scalars = comb
            .tys
            .iter()
            .enumerate()
            .map(|(k, &t)| {
                let v = match comb.identity() {
                    Some(c) => constant(kb, t, c, 1),
                    None => init[k],
                };
                let var = kb.b.declare_var(kb.ty(v));
                kb.b.def_var(var, v);
                var
            })
            .collect();
        let vectors: Vec<Vec<Variable>> = if lanes > 1 {
            let c = comb
                .identity()
                .expect("vector accumulators need an identity");
            (0..unroll)
                .map(|_| {
                    comb.tys
                        .iter()
                        .map(|&t| {
                            let v = constant(kb, t, c, lanes);
                            let var = kb.b.declare_var(kb.ty(v));
                            kb.b.def_var(var, v);
                            var
                        })
                        .collect()
                })
                .collect()
        } else {
            Vec::new()
        };
        let extremum = comb.extremum().filter(|_| lanes > 1).map(|max| {
            let first = kb.b.use_var(vectors[0][0]);
            let ty = kb.ty(first);
            let mask_ty = ty.as_int();
            let zero = kb.int(mask_ty.lane_type(), 0);
            let zeros = kb.b.ins().splat(mask_ty, zero);
            let nan = kb.b.declare_var(mask_ty);
            kb.b.def_var(nan, zeros);
            let signs = (signs == Signs::Kept).then(|| {
                // The and starts with every bit set, the or with none.
                let start = if max { kb.b.ins().bnot(zeros) } else { zeros };
                let start = kb.bitcast(ty, start);
                let signs = kb.b.declare_var(ty);
                kb.b.def_var(signs, start);
                signs
            });
            Extremum {
                max,
                nan,
                signs,
                pending: None,
            }
        });
        Accumulators {
            vectors,
            scalars,
            lanes,
            unroll,
            next: 0,
            extremum,
            scalar_folds: false,
        }
    }

    /// Folds `xs` (at `lanes` lanes: a full vector or one element) into
    /// the accumulators.
    pub fn add(
        &mut self,
        kb: &mut KernelBuilder,
        comb: &Combiner,
        xs: &[Value],
        lanes: u32,
    ) -> Result<(), Unsupported> {
        let vars = if lanes == 1 {
            self.scalar_folds = true;
            self.scalars.clone()
        } else {
            let k = self.next % self.unroll as usize;
            self.next += 1;
            self.vectors[k].clone()
        };
        if let Some(ext) = self.extremum.as_mut().filter(|_| lanes > 1) {
            let acc = kb.b.use_var(vars[0]);
            let r = ext.pick(kb, acc, xs[0]);
            kb.b.def_var(vars[0], r);
            match ext.pending.take() {
                Some(x) => ext.test(kb, x, xs[0]),
                None => ext.pending = Some(xs[0]),
            }
            return Ok(());
        }
        let accs: Vec<Value> = vars.iter().map(|&v| kb.b.use_var(v)).collect();
        let r = comb.combine(kb, &accs, xs, lanes)?;
        for ((&var, v), &old) in vars.iter().zip(r).zip(&accs) {
            let ty = kb.ty(old);
            let v = fit(kb, v, ty);
            kb.b.def_var(var, v);
        }
        Ok(())
    }

    /// Ends a loop step: everything it added has been tested for NaNs and
    /// signs (float extrema pair the vectors of a step).
    pub fn end_step(&mut self, kb: &mut KernelBuilder) {
        if let Some(ext) = &mut self.extremum {
            if let Some(x) = ext.pending.take() {
                ext.test(kb, x, x);
            }
        }
    }

    /// The reduction of everything added, one scalar per value (not yet
    /// combined with the init value when an identity was used).
    pub fn finish(
        &self,
        kb: &mut KernelBuilder,
        comb: &Combiner,
    ) -> Result<Vec<Value>, Unsupported> {
        let (total, unsure) = self.finish_deferred(kb, comb)?;
        debug_assert!(
            unsure.is_none(),
            "Signs::Deferred accumulators finish_deferred"
        );
        Ok(total)
    }

    /// [`Accumulators::finish`] for accumulators made with
    /// [`Signs::Deferred`]: the total and, where signs were left out, a
    /// flag (`i8`) set when the total is a zero or subnormal of unknown
    /// sign and the reduction must be redone with [`Signs::Kept`].
    pub fn finish_deferred(
        &self,
        kb: &mut KernelBuilder,
        comb: &Combiner,
    ) -> Result<(Vec<Value>, Option<Value>), Unsupported> {
        let mut total: Vec<Value> = self.scalars.iter().map(|&v| kb.b.use_var(v)).collect();
        if self.lanes == 1 {
            return Ok((total, None));
        }
        if let Some(ext) = &self.extremum {
            let (value, unsure) = self.finish_extremum(kb, ext);
            let total = if self.scalar_folds {
                comb.combine(kb, &total, &[value], 1)?
            } else {
                // The maximum of `-inf` (the minimum of `+inf`) and `value`.
                vec![value]
            };
            return Ok((total, unsure));
        }
        let mut vec: Vec<Value> = self.vectors[0].iter().map(|&v| kb.b.use_var(v)).collect();
        for u in 1..self.unroll as usize {
            let other: Vec<Value> = self.vectors[u].iter().map(|&v| kb.b.use_var(v)).collect();
            vec = comb.combine(kb, &vec, &other, self.lanes)?;
        }
        let lane = |kb: &mut KernelBuilder, l: u32| -> Vec<Value> {
            vec.iter()
                .zip(&comb.tys)
                .map(|(&v, &t)| lane_scalar(kb, t, v, l))
                .collect()
        };
        // Combining the identity with lane 0 gives lane 0 where registers
        // hold elements as stored (no rounding to a narrower type).
        let exact = comb
            .identity()
            .is_some_and(|c| comb.tys.iter().all(|&t| stored_bytes(t, c).is_some()));
        let first = if exact && !self.scalar_folds {
            total = lane(kb, 0);
            1
        } else {
            0
        };
        for l in first..self.lanes {
            let xs = lane(kb, l);
            total = comb.combine(kb, &total, &xs, 1)?;
        }
        Ok((total, None))
    }

    /// The maximum or minimum of the vectors added (see [`Extremum`]),
    /// exact with signs; without, also the flag of a zero or subnormal.
    fn finish_extremum(&self, kb: &mut KernelBuilder, ext: &Extremum) -> (Value, Option<Value>) {
        debug_assert!(ext.pending.is_none(), "a loop step was not ended");
        let mut v = kb.b.use_var(self.vectors[0][0]);
        for u in 1..self.unroll as usize {
            let other = kb.b.use_var(self.vectors[u][0]);
            v = ext.pick(kb, v, other);
        }
        let mut m = kb.b.ins().extractlane(v, 0);
        for l in 1..self.lanes {
            let x = kb.b.ins().extractlane(v, l as u8);
            let ordered = if ext.max {
                kb.b.ins().fcmp(FloatCC::LessThan, m, x)
            } else {
                kb.b.ins().fcmp(FloatCC::LessThan, x, m)
            };
            m = kb.b.ins().select(ordered, x, m);
        }
        let ty = kb.ty(m);
        let f64 = ty == types::F64;
        let int = ty.as_int();
        // A zero or subnormal `m`: magnitude bits below the smallest normal.
        let bits = kb.bitcast(int, m);
        let (magnitude, normal) = if f64 {
            (i64::MAX, f64::MIN_POSITIVE.to_bits() as i64)
        } else {
            (i64::from(i32::MAX), i64::from(f32::MIN_POSITIVE.to_bits()))
        };
        let magnitude = kb.b.ins().band_imm_s(bits, magnitude);
        let tiny =
            kb.b.ins()
                .icmp_imm_u(IntCC::UnsignedLessThan, magnitude, normal);
        let float = |kb: &mut KernelBuilder, v: f64| {
            if f64 {
                kb.b.ins().f64const(v)
            } else {
                kb.b.ins().f32const(v as f32)
            }
        };
        let (value, unsure) = match ext.signs {
            Some(signs) => {
                // The sign bits of the and (or) across lanes: for the
                // maximum all set means no element had a clear sign, so
                // `−0`; for the minimum any set means some element had its
                // sign set, so `−0`.
                let signs = kb.b.use_var(signs);
                let signs = kb.b.ins().vhigh_bits(types::I8, signs);
                let all = (1i64 << self.lanes) - 1;
                let negative = if ext.max {
                    kb.b.ins().icmp_imm_s(IntCC::Equal, signs, all)
                } else {
                    kb.b.ins().icmp_imm_s(IntCC::NotEqual, signs, 0)
                };
                let (neg_zero, pos_zero) = (float(kb, -0.0), float(kb, 0.0));
                let zero = kb.b.ins().select(negative, neg_zero, pos_zero);
                (kb.b.ins().select(tiny, zero, m), None)
            }
            None => (m, Some(tiny)),
        };
        let nan = float(kb, f64::NAN);
        let seen = kb.b.use_var(ext.nan);
        let seen = kb.b.ins().vany_true(seen);
        (kb.b.ins().select(seen, nan, value), unsure)
    }
}

impl Extremum {
    /// `maxps(acc, x)` (`minps`): `x` unless `acc` is the larger (smaller).
    fn pick(&self, kb: &mut KernelBuilder, acc: Value, x: Value) -> Value {
        let ty = kb.ty(acc);
        // The pattern Cranelift's x64 backend lowers to one instruction.
        let mask = if self.max {
            kb.b.ins().fcmp(FloatCC::LessThan, x, acc)
        } else {
            kb.b.ins().fcmp(FloatCC::LessThan, acc, x)
        };
        let mask = kb.bitcast(ty, mask);
        kb.b.ins().bitselect(mask, acc, x)
    }

    /// Marks the lanes where `a` or `b` is a NaN, and folds their bits into
    /// the signs (if kept).
    fn test(&mut self, kb: &mut KernelBuilder, a: Value, b: Value) {
        let unordered = kb.b.ins().fcmp(FloatCC::Unordered, a, b);
        let seen = kb.b.use_var(self.nan);
        let seen = kb.b.ins().bor(seen, unordered);
        kb.b.def_var(self.nan, seen);
        let Some(var) = self.signs else {
            return;
        };
        let signs = kb.b.use_var(var);
        let signs = if self.max {
            let both = kb.b.ins().band(a, b);
            kb.b.ins().band(signs, both)
        } else {
            let either = kb.b.ins().bor(a, b);
            kb.b.ins().bor(signs, either)
        };
        kb.b.def_var(var, signs);
    }
}

/// The reduced dimensions of `reduce`'s operand of size > 1, in the
/// operand's physical order (most major first).
pub(super) fn reduced_dims(comp: &HloComputation, reduce: &HloInstruction) -> Vec<(usize, i64)> {
    let operand = comp.instr(reduce.operands[0]);
    let Shape::Array(a) = &operand.shape else {
        return Vec::new();
    };
    let reduced = reduce.attrs.dimensions.clone().unwrap_or_default();
    a.layout_or_default()
        .major_to_minor()
        .filter(|&d| reduced.contains(&(d as i64)) && a.dims()[d] != 1)
        .map(|d| (d, a.dims()[d]))
        .collect()
}

/// The rank of `reduce`'s first operand.
pub(super) fn operand_rank(comp: &HloComputation, reduce: &HloInstruction) -> usize {
    comp.instr(reduce.operands[0])
        .shape
        .as_array()
        .map_or(0, |a| a.rank())
}

/// The operand index of output index `out` (kept dimensions in order,
/// reduced dimensions at 0).
pub(super) fn operand_index(reduce: &HloInstruction, rank: usize, out: &Index) -> Index {
    let reduced = reduce.attrs.dimensions.clone().unwrap_or_default();
    let mut kept = out.dims.iter();
    let dims = (0..rank as i64)
        .map(|d| {
            if reduced.contains(&d) {
                IndexDim::constant(0)
            } else {
                *kept
                    .next()
                    .expect("one output dimension per kept dimension")
            }
        })
        .collect();
    Index::new(out.lanes, dims)
}

/// Reduces `reduce` over all its reduced dimensions at one output position
/// (`base`: the operand index with reduced dimensions at 0), up to
/// `max_unroll` vectors (and accumulators) per step; returns one scalar per
/// reduced value, combined with the init values.
pub(super) fn reduce_at(
    el: &Elemental,
    kb: &mut KernelBuilder,
    comb: &Combiner,
    reduce: &HloInstruction,
    base: &Index,
    (lanes, max_unroll): (u32, u32),
) -> Result<Vec<Value>, Unsupported> {
    let n = comb.tys.len();
    let init = (0..n)
        .map(|k| el.gen(kb, reduce.operands[n + k], &Index::scalar(1)))
        .collect::<Result<Vec<_>, _>>()?;
    let reduced = reduced_dims(el.comp, reduce);
    let lanes = if comb.identity().is_some() { lanes } else { 1 };
    let inner_len = reduced.last().map_or(1, |&(_, s)| s);
    let lanes = if inner_len >= lanes as i64 { lanes } else { 1 };
    let unroll = unroll_for(inner_len, lanes).min(max_unroll);
    let operands = &reduce.operands[..n];
    let add = |kb: &mut KernelBuilder, idx: &Index, acc: &mut Accumulators| {
        let xs = operands
            .iter()
            .map(|&o| el.gen(kb, o, idx))
            .collect::<Result<Vec<_>, _>>()?;
        acc.add(kb, comb, &xs, idx.lanes)
    };
    let pass = |kb: &mut KernelBuilder, acc: &mut Accumulators, unroll: u32| {
        nest(
            kb,
            &reduced,
            base.dims.clone(),
            lanes,
            unroll,
            &mut |kb, step| {
                match operands {
                    &[operand] => el.staged_step(kb, operand, step, |kb, idx| add(kb, idx, acc))?,
                    _ => step.iter().try_for_each(|idx| add(kb, idx, acc))?,
                }
                acc.end_step(kb);
                Ok(())
            },
        )
    };
    let mut acc = Accumulators::new(kb, comb, (lanes, unroll), &init, Signs::Deferred);
    pass(kb, &mut acc, unroll)?;
    let total = match acc.finish_deferred(kb, comb)? {
        (total, None) => total,
        (fast, Some(unsure)) => {
            // A zero or subnormal extremum: again, with signs.
            let tys: Vec<_> = fast.iter().map(|&v| kb.ty(v)).collect();
            kb.if_else(
                unsure,
                &tys,
                |kb| {
                    let mut exact = Accumulators::new(kb, comb, (lanes, 1), &init, Signs::Kept);
                    pass(kb, &mut exact, 1)?;
                    exact.finish(kb, comb)
                },
                |_| Ok(fast),
            )?
        }
    };
    if comb.identity().is_some() {
        comb.with_init(kb, &init, total)
    } else {
        Ok(total)
    }
}

/// A loop body receiving the indices of one loop step.
type StepBody<'a> = dyn FnMut(&mut KernelBuilder, &[Index]) -> Result<(), Unsupported> + 'a;

/// Nested loops over `dims` (physical order): scalar loops over all but the
/// last, the last in vectors; `body` receives the indices of one loop step
/// (see [`emit_inner_steps`]). With no dimensions, `body` runs once.
pub(super) fn nest(
    kb: &mut KernelBuilder,
    dims: &[(usize, i64)],
    idx: Vec<IndexDim>,
    lanes: u32,
    unroll: u32,
    body: &mut StepBody,
) -> Result<(), Unsupported> {
    match dims {
        [] => body(kb, &[Index::new(1, idx)]),
        [(d, size)] => {
            let (zero, end) = (kb.iconst(0), kb.iconst(*size));
            emit_inner_steps(kb, zero, end, lanes, unroll, |kb, step, l| {
                let idxs: Vec<Index> = step
                    .iter()
                    .map(|&inner| {
                        let mut at = idx.clone();
                        at[*d] = inner;
                        Index::new(l, at)
                    })
                    .collect();
                body(kb, &idxs)
            })
        }
        [(d, size), rest @ ..] => {
            let (zero, end) = (kb.iconst(0), kb.iconst(*size));
            kb.try_for_range(zero, end, 1, |kb, i| {
                let mut at = idx.clone();
                at[*d] = IndexDim::uniform(i);
                nest(kb, rest, at, lanes, unroll, body)
            })
        }
    }
}
