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

    /// `Some(max)` for float maximum (`true`) and minimum (`false`)
    /// computed in `f32` or `f64` registers, which vector accumulators can
    /// screen (see [`Accumulators::screening`]).
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
///
/// Screening accumulators ([`Accumulators::screening`]) are faster still
/// and exact only most of the time; their caller redoes the reduction with
/// exact ones when [`Accumulators::finish_screened`] says so.
pub(super) struct Accumulators {
    vectors: Vec<Vec<Variable>>,
    scalars: Vec<Variable>,
    lanes: u32,
    unroll: u32,
    next: usize,
    mode: Mode,
    /// Whether code folding single elements into the scalar accumulators
    /// was emitted; if not, they still hold the identity.
    scalar_folds: bool,
}

/// How vector accumulators fold a vector in.
enum Mode {
    /// Through the combiner.
    Combiner,
    /// Float maximum or minimum as integer orders of the bits (see
    /// [`Accumulators`]).
    Keyed,
    /// Float maximum or minimum by the processor's `maxps`/`minps`.
    Screened(Screen),
}

/// The state of screening accumulators (float maximum when `max`, else
/// minimum).
///
/// `maxps` and `minps` are one instruction per vector, where the keyed
/// mode takes three; but they return their second operand when either
/// operand is a NaN or both are zeros, and with denormals-are-zero set
/// they compare every subnormal equal to zero. So a NaN is caught apart,
/// by one unordered compare per pair of vectors, and the result is only
/// trusted when no NaN was seen and it is neither a zero nor a subnormal:
/// then every element compared with it was ordered as floats order it, and
/// it is the exact answer. Otherwise (all-zero data, a NaN) the caller
/// reduces again with exact accumulators.
struct Screen {
    max: bool,
    /// All-ones lanes where an unordered compare saw a NaN.
    nan: Variable,
    /// A vector added since the last NaN test, tested with the next one
    /// (or alone at the end of the loop step).
    pending: Option<Value>,
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
    /// `init` for scalar folds (`lanes == 1`). They are exact.
    pub fn new(
        kb: &mut KernelBuilder,
        comb: &Combiner,
        lanes: u32,
        unroll: u32,
        init: &[Value],
    ) -> Self {
        let scalars = Self::scalars(kb, comb, init);
        if lanes > 1 && comb.keyed() {
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
            return Accumulators::of(vectors, scalars, lanes, unroll, Mode::Keyed);
        }
        let vectors = if lanes > 1 {
            Self::identity_vectors(kb, comb, lanes, unroll)
        } else {
            Vec::new()
        };
        Accumulators::of(vectors, scalars, lanes, unroll, Mode::Combiner)
    }

    /// Screening accumulators (see [`Screen`]) for a float maximum or
    /// minimum over vectors; exact ones ([`Accumulators::new`]) otherwise.
    /// Call [`Accumulators::end_step`] after each loop step's vectors, and
    /// finish with [`Accumulators::finish_screened`].
    pub fn screening(
        kb: &mut KernelBuilder,
        comb: &Combiner,
        lanes: u32,
        unroll: u32,
        init: &[Value],
    ) -> Self {
        let Some(max) = comb.extremum().filter(|_| lanes > 1) else {
            return Self::new(kb, comb, lanes, unroll, init);
        };
        let scalars = Self::scalars(kb, comb, init);
        let vectors = Self::identity_vectors(kb, comb, lanes, unroll);
        let first = kb.b.use_var(vectors[0][0]);
        let mask_ty = kb.ty(first).as_int();
        let zeros = kb.int(mask_ty.lane_type(), 0);
        let zeros = kb.b.ins().splat(mask_ty, zeros);
        let nan = kb.b.declare_var(mask_ty);
        kb.b.def_var(nan, zeros);
        let screen = Screen {
            max,
            nan,
            pending: None,
        };
        Accumulators::of(vectors, scalars, lanes, unroll, Mode::Screened(screen))
    }

    fn of(
        vectors: Vec<Vec<Variable>>,
        scalars: Vec<Variable>,
        lanes: u32,
        unroll: u32,
        mode: Mode,
    ) -> Self {
        Accumulators {
            vectors,
            scalars,
            lanes,
            unroll,
            next: 0,
            mode,
            scalar_folds: false,
        }
    }

    /// One scalar accumulator per value, at the identity or else `init`.
    fn scalars(kb: &mut KernelBuilder, comb: &Combiner, init: &[Value]) -> Vec<Variable> {
        comb.tys
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
            .collect()
    }

    /// `unroll` vector accumulators per value, at the identity.
    fn identity_vectors(
        kb: &mut KernelBuilder,
        comb: &Combiner,
        lanes: u32,
        unroll: u32,
    ) -> Vec<Vec<Variable>> {
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
        match &mut self.mode {
            Mode::Keyed if lanes > 1 => {
                let bits = kb.bitcast(types::I32X4, xs[0]);
                let orders = bit_orders(comb.op == Some(Binary::Maximum));
                for (&var, (order, _)) in vars.iter().zip(orders) {
                    let acc = kb.b.use_var(var);
                    let r = order.pick(kb, acc, bits);
                    kb.b.def_var(var, r);
                }
                return Ok(());
            }
            Mode::Screened(screen) if lanes > 1 => {
                let acc = kb.b.use_var(vars[0]);
                let r = screen.pick(kb, acc, xs[0]);
                kb.b.def_var(vars[0], r);
                match screen.pending.take() {
                    Some(x) => screen.test_nan(kb, x, xs[0]),
                    None => screen.pending = Some(xs[0]),
                }
                return Ok(());
            }
            _ => {}
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

    /// Ends a loop step: what it added is all tested for NaNs (screening
    /// accumulators pair the vectors of a step).
    pub fn end_step(&mut self, kb: &mut KernelBuilder) {
        if let Mode::Screened(screen) = &mut self.mode {
            if let Some(x) = screen.pending.take() {
                screen.test_nan(kb, x, x);
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
        let mut total: Vec<Value> = self.scalars.iter().map(|&v| kb.b.use_var(v)).collect();
        if self.lanes == 1 {
            return Ok(total);
        }
        match self.mode {
            Mode::Keyed => return self.finish_keys(kb, comb, total),
            Mode::Screened(_) => unreachable!("screening accumulators finish_screened"),
            Mode::Combiner => {}
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

    /// [`Accumulators::finish`] for accumulators made by
    /// [`Accumulators::screening`]: the total and, for screening ones, a
    /// flag (`i8`) that is set when the total cannot be trusted and the
    /// reduction must be redone with exact accumulators.
    pub fn finish_screened(
        &self,
        kb: &mut KernelBuilder,
        comb: &Combiner,
    ) -> Result<(Vec<Value>, Option<Value>), Unsupported> {
        let Mode::Screened(screen) = &self.mode else {
            return Ok((self.finish(kb, comb)?, None));
        };
        debug_assert!(screen.pending.is_none(), "a step was not ended");
        let mut v = kb.b.use_var(self.vectors[0][0]);
        for u in 1..self.unroll as usize {
            let other = kb.b.use_var(self.vectors[u][0]);
            v = screen.pick(kb, v, other);
        }
        let mut m = kb.b.ins().extractlane(v, 0);
        for l in 1..self.lanes {
            let x = kb.b.ins().extractlane(v, l as u8);
            let ordered = if screen.max {
                kb.b.ins().fcmp(FloatCC::LessThan, m, x)
            } else {
                kb.b.ins().fcmp(FloatCC::LessThan, x, m)
            };
            m = kb.b.ins().select(ordered, x, m);
        }
        // Zeros and subnormals: magnitude bits below the smallest normal.
        let ty = kb.ty(m);
        let int = ty.as_int();
        let bits = kb.bitcast(int, m);
        let (magnitude, normal) = if ty == types::F64 {
            (i64::MAX, f64::MIN_POSITIVE.to_bits() as i64)
        } else {
            (i64::from(i32::MAX), i64::from(f32::MIN_POSITIVE.to_bits()))
        };
        let magnitude = kb.b.ins().band_imm_s(bits, magnitude);
        let tiny =
            kb.b.ins()
                .icmp_imm_u(IntCC::UnsignedLessThan, magnitude, normal);
        let nan = kb.b.use_var(screen.nan);
        let nan = kb.b.ins().vany_true(nan);
        let unsure = kb.b.ins().bor(tiny, nan);
        let total: Vec<Value> = self.scalars.iter().map(|&v| kb.b.use_var(v)).collect();
        let total = if self.scalar_folds {
            comb.combine(kb, &total, &[m], 1)?
        } else {
            vec![m]
        };
        Ok((total, Some(unsure)))
    }
}

impl Screen {
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

    /// Marks the lanes where `a` or `b` is a NaN.
    fn test_nan(&mut self, kb: &mut KernelBuilder, a: Value, b: Value) {
        let unordered = kb.b.ins().fcmp(FloatCC::Unordered, a, b);
        let seen = kb.b.use_var(self.nan);
        let seen = kb.b.ins().bor(seen, unordered);
        kb.b.def_var(self.nan, seen);
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
    shape: (u32, u32),
) -> Result<Vec<Value>, Unsupported> {
    reduce_at_with(el, kb, comb, reduce, base, shape, true)
}

/// [`reduce_at`] with exact accumulators only: for a row whose screened
/// reduction was unsure.
pub(super) fn reduce_exactly_at(
    el: &Elemental,
    kb: &mut KernelBuilder,
    comb: &Combiner,
    reduce: &HloInstruction,
    base: &Index,
    shape: (u32, u32),
) -> Result<Vec<Value>, Unsupported> {
    reduce_at_with(el, kb, comb, reduce, base, shape, false)
}

/// [`reduce_at`], screening float maxima and minima (and redoing them
/// exactly when unsure) if `screen`.
fn reduce_at_with(
    el: &Elemental,
    kb: &mut KernelBuilder,
    comb: &Combiner,
    reduce: &HloInstruction,
    base: &Index,
    (lanes, max_unroll): (u32, u32),
    screen: bool,
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
    let mut acc = if screen {
        Accumulators::screening(kb, comb, lanes, unroll, &init)
    } else {
        Accumulators::new(kb, comb, lanes, unroll, &init)
    };
    pass(kb, &mut acc, unroll)?;
    let total = match acc.finish_screened(kb, comb)? {
        (total, None) => total,
        (fast, Some(unsure)) => {
            let tys: Vec<_> = fast.iter().map(|&v| kb.ty(v)).collect();
            kb.if_else(
                unsure,
                &tys,
                |kb| {
                    let mut exact = Accumulators::new(kb, comb, lanes, 1, &init);
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
