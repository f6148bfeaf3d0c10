//! Reducers applied to register values: a reduce's `to_apply` as a
//! [`Combiner`], running [`Accumulators`], and [`reduce_at`], the loops
//! that reduce everything belonging to one output position. Shared by
//! reduction kernels (`reduce.rs`, `column.rs`) and row kernels (`row.rs`).
//!
//! Vector accumulators need the combiner's identity (add, multiply, max,
//! min, and, or, xor recognized in `to_apply`); other reducers (variadic
//! ones such as argmax, arbitrary computations, and complex reducers other
//! than a `c64` sum) fold one element at a time from the init value.

use cranelift_codegen::ir::condcodes::IntCC;
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
        let called = module.computation(to_apply);
        let root = called.root_instr();
        let params = |i: usize| called.instr(root.operands[i]).opcode == Opcode::Parameter;
        let op = match op_of(root.opcode) {
            Op::Binary(b)
                if n == 1
                    && root.operands.len() == 2
                    && params(0)
                    && params(1)
                    && root.operands[0] != root.operands[1]
                    && identity(b, tys[0]).is_some() =>
            {
                Some(b)
            }
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

    /// `true` for float maximum and minimum computed in `f32` registers,
    /// which vector accumulators reduce through order keys.
    pub fn keyed(&self) -> bool {
        matches!(self.op, Some(Binary::Maximum | Binary::Minimum))
            && matches!(
                self.tys[0],
                PrimitiveType::F32 | PrimitiveType::F16 | PrimitiveType::Bf16
            )
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
/// Float maximum and minimum over `f32` registers accumulate the raw bits
/// under three integer orders instead ([`bit_orders`]): one `pmaxsd`,
/// `pminsd`, `pmaxud` or `pminud` each per vector, in place of the
/// eight-instruction NaN- and zero-aware float maximum and a flush, whose
/// latency chain made the loop three times slower. As signed integers,
/// non-negative floats are in float order and above every negative one;
/// as unsigned integers, negative floats are in reverse order and above
/// every non-negative one. So the signed maximum of the bits is the float
/// maximum when any element is `>= +0` (and `+0` beats `−0`), the signed
/// minimum is when all are negative, and a NaN of either sign is the
/// largest value of one of the two orders. The result is flushed once at
/// the end: flushing commutes with max and min.
pub(super) struct Accumulators {
    vectors: Vec<Vec<Variable>>,
    scalars: Vec<Variable>,
    lanes: u32,
    unroll: u32,
    next: usize,
    /// Bit-order mode (float maximum or minimum; see above).
    keyed: bool,
    /// Whether code folding single elements into the scalar accumulators
    /// was emitted; if not, they still hold the identity.
    scalar_folds: bool,
}

/// An integer order on `f32` bit patterns.
#[derive(Clone, Copy)]
enum BitOrder {
    SignedMax,
    SignedMin,
    UnsignedMax,
    UnsignedMin,
}

impl BitOrder {
    /// The larger (for `*Max`) or smaller of `a` and `b` in this order.
    fn pick(self, kb: &mut KernelBuilder, a: Value, b: Value) -> Value {
        match self {
            BitOrder::SignedMax => kb.b.ins().smax(a, b),
            BitOrder::SignedMin => kb.b.ins().smin(a, b),
            BitOrder::UnsignedMax => kb.b.ins().umax(a, b),
            BitOrder::UnsignedMin => kb.b.ins().umin(a, b),
        }
    }
}

/// Bits of `−∞`.
const NEG_INF_BITS: u32 = 0xFF80_0000;
/// Bits of `+∞`.
const POS_INF_BITS: u32 = 0x7F80_0000;

/// The three orders a float maximum (`max`) or minimum accumulates, each
/// with its starting bits (which give the identity, `∓∞`, for no element).
/// Maximum: the signed maximum (the answer when `>= 0`, and where a
/// positive NaN shows), the signed minimum (the answer otherwise) and the
/// unsigned maximum (where a negative NaN shows). Minimum: the unsigned
/// maximum (the answer when `>= 0x8000_0000`, i.e. some element is
/// negative; a negative NaN shows here), the unsigned minimum (the answer
/// otherwise) and the signed maximum (where a positive NaN shows).
fn bit_orders(max: bool) -> [(BitOrder, u32); 3] {
    if max {
        [
            (BitOrder::SignedMax, NEG_INF_BITS),
            (BitOrder::SignedMin, NEG_INF_BITS),
            (BitOrder::UnsignedMax, 0),
        ]
    } else {
        [
            (BitOrder::UnsignedMax, 0),
            (BitOrder::UnsignedMin, POS_INF_BITS),
            (BitOrder::SignedMax, 1 << 31),
        ]
    }
}

impl Accumulators {
    /// Accumulators starting at the combiner's identity (vectors) — or at
    /// `init` for scalar folds (`lanes == 1`).
    pub fn new(
        kb: &mut KernelBuilder,
        comb: &Combiner,
        lanes: u32,
        unroll: u32,
        init: &[Value],
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
        let keyed = lanes > 1 && comb.keyed();
        if keyed {
            let orders = bit_orders(comb.op == Some(Binary::Maximum));
            let vectors = (0..unroll)
                .map(|_| {
                    orders
                        .iter()
                        .map(|&(_, start)| {
                            let bits = kb.int(types::I32, i64::from(start));
                            let v = super::repr::splat(kb, bits, 4);
                            let var = kb.b.declare_var(types::I32X4);
                            kb.b.def_var(var, v);
                            var
                        })
                        .collect()
                })
                .collect();
            return Accumulators {
                vectors,
                scalars,
                lanes,
                unroll,
                next: 0,
                keyed: true,
                scalar_folds: false,
            };
        }
        let vectors = if lanes > 1 {
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
        Accumulators {
            vectors,
            scalars,
            lanes,
            unroll,
            next: 0,
            keyed: false,
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
        if self.keyed && lanes > 1 {
            let bits = kb.bitcast(types::I32X4, xs[0]);
            let orders = bit_orders(comb.op == Some(Binary::Maximum));
            for (&var, (order, _)) in vars.iter().zip(orders) {
                let acc = kb.b.use_var(var);
                let r = order.pick(kb, acc, bits);
                kb.b.def_var(var, r);
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

    /// The reduction of everything added, one scalar per value (not yet
    /// combined with the init value when an identity was used).
    pub fn finish(
        &self,
        kb: &mut KernelBuilder,
        comb: &Combiner,
    ) -> Result<Vec<Value>, Unsupported> {
        let mut total: Vec<Value> = self.scalars.iter().map(|&v| kb.b.use_var(v)).collect();
        if self.lanes == 1 {
            return Ok(total);
        }
        if self.keyed {
            return self.finish_keys(kb, comb, total);
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
        Ok(total)
    }
}

impl Accumulators {
    fn finish_keys(
        &self,
        kb: &mut KernelBuilder,
        comb: &Combiner,
        total: Vec<Value>,
    ) -> Result<Vec<Value>, Unsupported> {
        let max = comb.op == Some(Binary::Maximum);
        let mut reduced = Vec::with_capacity(3);
        for (k, (order, _)) in bit_orders(max).into_iter().enumerate() {
            let mut v = kb.b.use_var(self.vectors[0][k]);
            for u in 1..self.unroll as usize {
                let other = kb.b.use_var(self.vectors[u][k]);
                v = order.pick(kb, v, other);
            }
            let mut x = kb.b.ins().extractlane(v, 0);
            for l in 1..self.lanes {
                let y = kb.b.ins().extractlane(v, l as u8);
                x = order.pick(kb, x, y);
            }
            reduced.push(x);
        }
        // Maximum: [signed max, signed min, unsigned max]; minimum:
        // [unsigned max, unsigned min, signed max] (see `bit_orders`).
        let (signed_max, unsigned_max) = if max {
            (reduced[0], reduced[2])
        } else {
            (reduced[2], reduced[0])
        };
        let positive_nan = kb.b.ins().icmp_imm_s(
            IntCC::SignedGreaterThan,
            signed_max,
            i64::from(POS_INF_BITS),
        );
        let negative_nan = kb.b.ins().icmp_imm_u(
            IntCC::UnsignedGreaterThan,
            unsigned_max,
            i64::from(NEG_INF_BITS),
        );
        let nan = kb.b.ins().bor(positive_nan, negative_nan);
        // The first order's result is the answer when it is `>= +0`
        // (maximum) or negative (minimum); the second's otherwise.
        let cc = if max {
            IntCC::SignedGreaterThanOrEqual
        } else {
            IntCC::SignedLessThan
        };
        let first = kb.b.ins().icmp_imm_s(cc, reduced[0], 0);
        let bits = kb.b.ins().select(first, reduced[0], reduced[1]);
        let value = kb.bitcast(types::F32, bits);
        let quiet = kb.b.ins().f32const(f32::NAN);
        let value = kb.b.ins().select(nan, quiet, value);
        let value = elementwise::flush(kb, value);
        if self.scalar_folds {
            comb.combine(kb, &total, &[value], 1)
        } else {
            // The maximum of `-inf` (the minimum of `+inf`) and `value`.
            Ok(vec![value])
        }
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
    let mut acc = Accumulators::new(kb, comb, lanes, unroll, &init);
    let operands = &reduce.operands[..n];
    let add = |kb: &mut KernelBuilder, idx: &Index, acc: &mut Accumulators| {
        let xs = operands
            .iter()
            .map(|&o| el.gen(kb, o, idx))
            .collect::<Result<Vec<_>, _>>()?;
        acc.add(kb, comb, &xs, idx.lanes)
    };
    nest(
        kb,
        &reduced,
        base.dims.clone(),
        lanes,
        unroll,
        &mut |kb, step| match operands {
            &[operand] => el.staged_step(kb, operand, step, |kb, idx| add(kb, idx, &mut acc)),
            _ => step.iter().try_for_each(|idx| add(kb, idx, &mut acc)),
        },
    )?;
    let total = acc.finish(kb, comb)?;
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
