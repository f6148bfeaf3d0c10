//! Flat elementwise fusions as AVX-512 kernels (see [`crate::wide`]).
//!
//! A loop fusion is *flat* when every array it reads or writes walks the
//! same elements in the same physical order (same dimensions, same dense
//! layout) and every other value is a scalar: then element `i` of the
//! output needs element `i` of each input and nothing else, and the kernel
//! is one loop over the buffers' bytes, sixteen f32 lanes at a time. This
//! emitter takes the flat fusions whose values are all f32 (with pred
//! masks of comparisons) and whose ops it has: arithmetic, max/min/clamp,
//! comparisons and select, negate/abs, sqrt/rsqrt, floor/ceil/round to
//! even, and the fast exp, tanh and logistic. Each op computes what the
//! 128-bit emitters compute (`elementwise.rs`): the same instructions where
//! those have 512-bit forms, bit for bit; max and min by other sequences
//! with the same results (NaN for NaN, `+0 > −0`, flushed); the math
//! functions by the same code. Anything else is left to them.
//!
//! The kernel covers iterations `[start, end)` of chunks of `chunk`
//! elements: a loop of two vectors per step, then one vector, then the
//! remaining 1–15 elements through a lane mask (masked loads never touch
//! the memory of their masked lanes).

use std::collections::HashMap;

use cranelift_codegen::ir::condcodes::FloatCC;
use xla_core::hlo::{ComparisonDirection, ComparisonType, HloInstruction, InstrId};
use xla_core::{ArrayShape, Opcode, PrimitiveType};

use super::math::unary_fn;
use super::ops::{op_of, Binary, Op, Unary};
use super::KernelInfo;
use crate::math::{fast_unary, FastLanes};
use crate::wide::asm::{gpr::*, ops, Asm, Cond, Gpr, KOp, Mem};
use crate::wide::ir::{ConstPool, Frame, Func, MReg, Operand, TAIL_MASK};

/// The registers holding the buffers' base addresses, in buffer order: a
/// fusion with more buffers is left to the 128-bit emitters.
const BASES: [Gpr; 10] = [R8, R9, R10, RDI, RBX, RBP, R12, R13, R14, R15];

/// Base registers the kernel must restore before it returns.
const CALLEE_SAVED: [Gpr; 6] = [RBX, RBP, R12, R13, R14, R15];

/// f32 lanes per vector.
const LANES: i64 = 16;

/// Vectors per step of the main loop.
const UNROLL: i32 = 2;

/// A fusion's AVX-512 kernel.
pub(crate) struct FlatKernel {
    /// The machine code and its constant table.
    pub code: Vec<u8>,
    /// The code as text, if asked for.
    pub listing: Option<String>,
    /// Elements per iteration of the runtime's iteration space.
    pub chunk: i64,
    /// Iterations: chunks of the output.
    pub iterations: i64,
}

/// What a value of the fusion is in a loop step.
#[derive(Clone, Copy, Debug)]
enum Val {
    /// f32 lanes (or a scalar or constant broadcast to them).
    F32(Operand),
    /// A pred per lane.
    Mask(MReg),
}

/// The AVX-512 kernel of `info`'s loop fusion, or `None` if the fusion is
/// not flat f32, uses an op this emitter lacks, or needs more registers
/// than there are.
pub(super) fn compile(info: &KernelInfo, listing: bool) -> Option<FlatKernel> {
    let fusion = info.fusion;
    if fusion.outputs.len() != 1 || fusion.in_place.is_some() {
        return None;
    }
    let root = info.comp.instr(fusion.root).shape.as_array()?;
    let n = root.element_count();
    if root.element_type() != PrimitiveType::F32 || n == 0 {
        return None;
    }
    let out = fusion.inputs.len();
    if out + 1 > BASES.len() || info.buffers.len() != out + 1 {
        return None;
    }
    let flat = Flat { info, root };
    if !fusion
        .inputs
        .iter()
        .all(|&id| flat.same_walk(id) || flat.scalar(id))
    {
        return None;
    }
    let chunk = (info.iteration_elements.max(LANES) / LANES) * LANES;
    let iterations = xla_core::shape::ceil_div(n, chunk);
    let mut consts = ConstPool::default();
    let mut asm = Asm::with_listing(listing);
    let buffers = &BASES[..=out];
    let saved: Vec<Gpr> = CALLEE_SAVED
        .iter()
        .copied()
        .filter(|r| buffers.contains(r))
        .collect();
    for &r in &saved {
        asm.push(r);
    }
    // rsi, rdx = [start, end) in elements, end clamped to n.
    asm.imul_imm(RSI, RSI, chunk as i32);
    asm.imul_imm(RDX, RDX, chunk as i32);
    asm.mov_imm64(RCX, n as u64);
    asm.cmp(RDX, RCX);
    asm.cmovg(RDX, RCX);
    // Every base but rdi's own, then rdi's (the array's address is in it).
    let array_slot = |b: usize| Mem::at(RDI, 8 * b as i32);
    for (b, &r) in buffers.iter().enumerate().filter(|&(_, &r)| r != RDI) {
        asm.mov_load(r, array_slot(b));
    }
    if let Some(b) = buffers.iter().position(|&r| r == RDI) {
        asm.mov_load(RDI, array_slot(b));
    }
    let table = asm.label();
    asm.lea_label(RAX, table);
    let frame = |masked| Frame {
        buffers,
        index: RSI,
        consts: RAX,
        masked,
    };
    let body = |vectors: i32| -> Option<Func> {
        let mut f = Func::default();
        for v in 0..vectors {
            let value = flat.step(&mut f, v)?;
            f.store(value, out, v);
        }
        Some(f)
    };
    let (step, single) = (body(UNROLL)?, body(1)?);
    let (main, ones, tail, done) = (asm.label(), asm.label(), asm.label(), asm.label());
    // Two vectors per step while they fit.
    asm.bind(main);
    asm.lea(RCX, Mem::at(RSI, (LANES * UNROLL as i64) as i32));
    asm.cmp(RCX, RDX);
    asm.jcc(Cond::G, ones);
    step.lower(&mut asm, &frame(false), &mut consts).ok()?;
    asm.add_imm(RSI, (LANES * UNROLL as i64) as i32);
    asm.jmp(main);
    // Then one.
    asm.bind(ones);
    asm.lea(RCX, Mem::at(RSI, LANES as i32));
    asm.cmp(RCX, RDX);
    asm.jcc(Cond::G, tail);
    single.lower(&mut asm, &frame(false), &mut consts).ok()?;
    asm.add_imm(RSI, LANES as i32);
    // Then the 1–15 elements left, through the tail mask.
    asm.bind(tail);
    asm.mov(RCX, RDX);
    asm.sub(RCX, RSI);
    asm.jcc(Cond::Le, done);
    asm.low_bits_mask(R11);
    asm.kmovw_from_gpr(TAIL_MASK, R11);
    single.lower(&mut asm, &frame(true), &mut consts).ok()?;
    asm.bind(done);
    asm.vzeroupper();
    for &r in saved.iter().rev() {
        asm.pop(r);
    }
    asm.ret();
    asm.data(64, &[]);
    asm.bind(table);
    asm.data(4, &consts.bytes());
    let (code, listing) = asm.finish();
    Some(FlatKernel {
        code,
        listing,
        chunk,
        iterations,
    })
}

/// A fusion being checked and translated.
struct Flat<'a, 'm> {
    info: &'a KernelInfo<'m>,
    root: &'a ArrayShape,
}

impl Flat<'_, '_> {
    fn shape(&self, id: InstrId) -> Option<&ArrayShape> {
        self.info.comp.instr(id).shape.as_array()
    }

    /// `true` if `id` is a dense array walked in the root's order.
    fn same_walk(&self, id: InstrId) -> bool {
        let Some(a) = self.shape(id) else {
            return false;
        };
        let physical = |s: &ArrayShape| -> Vec<usize> {
            let layout = s.layout_or_default();
            layout
                .major_to_minor()
                .filter(|&d| s.dims()[d] != 1)
                .collect()
        };
        a.dims() == self.root.dims()
            && a.layout_or_default().is_dense()
            && self.root.layout_or_default().is_dense()
            && physical(a) == physical(self.root)
    }

    /// `true` if `id` is an array of one element.
    fn scalar(&self, id: InstrId) -> bool {
        self.shape(id).is_some_and(|a| a.element_count() == 1)
    }

    /// Emits vector `vector` of a loop step of the root into `f`; `None`
    /// if the fusion has something this emitter does not compile.
    fn step(&self, f: &mut Func, vector: i32) -> Option<Operand> {
        let fusion = self.info.fusion;
        let mut vals: HashMap<InstrId, Val> = HashMap::new();
        for &id in &fusion.inputs {
            let (_, buffer) = self.info.inputs[&id];
            let ty = self.shape(id)?.element_type();
            if ty != PrimitiveType::F32 {
                return None;
            }
            let v = if self.scalar(id) && !self.same_walk(id) {
                Operand::Scalar(buffer)
            } else {
                f.load(buffer, vector)
            };
            vals.insert(id, Val::F32(v));
        }
        for &id in &fusion.instructions {
            let instr = self.info.comp.instr(id);
            let v = self.value(f, instr, &vals)?;
            vals.insert(id, v);
        }
        match vals.get(&fusion.root)? {
            Val::F32(v) => Some(*v),
            Val::Mask(_) => None,
        }
    }

    /// The value of a member from its operands' values.
    fn value(
        &self,
        f: &mut Func,
        instr: &HloInstruction,
        vals: &HashMap<InstrId, Val>,
    ) -> Option<Val> {
        let shape = instr.shape.as_array()?;
        let ty = shape.element_type();
        let uniform = shape.element_count() == 1;
        if !uniform && shape.dims() != self.root.dims() {
            return None;
        }
        let arg = |k: usize| vals.get(instr.operands.get(k)?).copied();
        let float = |k: usize| match arg(k)? {
            Val::F32(v) => Some(v),
            Val::Mask(_) => None,
        };
        let mask = |k: usize| match arg(k)? {
            Val::Mask(m) => Some(m),
            Val::F32(_) => None,
        };
        match instr.opcode {
            Opcode::Constant if uniform && ty == PrimitiveType::F32 => {
                let v = instr.attrs.literal.as_ref()?.to_vec::<f32>().ok()?;
                return Some(Val::F32(Operand::Const(v.first()?.to_bits())));
            }
            Opcode::Broadcast => {
                let operand = self.shape(instr.operands[0])?;
                let identity = operand.dims() == shape.dims()
                    && instr
                        .attrs
                        .dimensions
                        .as_ref()
                        .is_some_and(|d| d.iter().copied().eq(0..shape.rank() as i64));
                return (operand.element_count() == 1 || identity)
                    .then(|| arg(0))
                    .flatten();
            }
            _ => {}
        }
        // Computed values are per element: a computed scalar (an op on
        // scalars feeding a broadcast) is not flat.
        if uniform && self.root.element_count() != 1 {
            return None;
        }
        let op = op_of(instr.opcode);
        if ty == PrimitiveType::Pred {
            return match op {
                Op::Compare => self.compare(f, instr, float(0)?, float(1)?).map(Val::Mask),
                Op::Binary(b @ (Binary::And | Binary::Or | Binary::Xor)) => {
                    let k = match b {
                        Binary::And => KOp::And,
                        Binary::Or => KOp::Or,
                        _ => KOp::Xor,
                    };
                    Some(Val::Mask(f.kop(k, mask(0)?, mask(1)?)))
                }
                Op::Unary(Unary::Not) => Some(Val::Mask(f.knot(mask(0)?))),
                _ => None,
            };
        }
        if ty != PrimitiveType::F32 {
            return None;
        }
        let v = match op {
            Op::Unary(u) => unary(f, u, float(0)?)?,
            Op::Binary(b) => binary(f, b, float(0)?, float(1)?)?,
            Op::Select => f.blend(mask(0)?, float(1)?, float(2)?),
            Op::Clamp => {
                let lo = binary(f, Binary::Maximum, float(0)?, float(1)?)?;
                binary(f, Binary::Minimum, lo, float(2)?)?
            }
            _ => return None,
        };
        Some(Val::F32(v))
    }

    /// A float comparison's lane mask.
    fn compare(
        &self,
        f: &mut Func,
        instr: &HloInstruction,
        a: Operand,
        b: Operand,
    ) -> Option<MReg> {
        let operand = self.shape(instr.operands[0])?.element_type();
        if operand != PrimitiveType::F32
            || instr
                .attrs
                .comparison_type
                .is_some_and(|t| t != ComparisonType::Float)
        {
            return None;
        }
        let cc = match instr.attrs.comparison_direction? {
            ComparisonDirection::Eq => FloatCC::Equal,
            ComparisonDirection::Ne => FloatCC::NotEqual,
            ComparisonDirection::Lt => FloatCC::LessThan,
            ComparisonDirection::Le => FloatCC::LessThanOrEqual,
            ComparisonDirection::Gt => FloatCC::GreaterThan,
            ComparisonDirection::Ge => FloatCC::GreaterThanOrEqual,
        };
        Some(f.cmp(cc, a, b))
    }
}

/// The quiet NaN of f32 max and min.
const QUIET_NAN: u32 = 0x7FC0_0000;

/// `x * 1`: under the kernels' DAZ+FTZ mode a subnormal becomes a zero of
/// its sign and every other value stays (a NaN stays a NaN).
fn flush(f: &mut Func, x: Operand) -> Operand {
    f.op(ops::VMULPS, x, Operand::Const(1.0f32.to_bits()))
}

fn unary(f: &mut Func, op: Unary, x: Operand) -> Option<Operand> {
    Some(match op {
        Unary::Negate => f.op(ops::VPXORD, x, Operand::Const(0x8000_0000)),
        Unary::Abs => f.op(ops::VPANDD, x, Operand::Const(0x7FFF_FFFF)),
        Unary::Sqrt => f.sqrt(x),
        Unary::Rsqrt => {
            let s = f.sqrt(x);
            f.op(ops::VDIVPS, Operand::Const(1.0f32.to_bits()), s)
        }
        // vrndscaleps modes: round down / up / to nearest even, the
        // precision exception suppressed.
        Unary::Floor | Unary::Ceil | Unary::RoundNearestEven => {
            let mode = match op {
                Unary::Floor => 0x09,
                Unary::Ceil => 0x0A,
                _ => 0x08,
            };
            let x = flush(f, x);
            f.round(x, mode)
        }
        Unary::Math(m) => fast_unary(f, unary_fn(m), x)?,
        _ => return None,
    })
}

fn binary(f: &mut Func, op: Binary, x: Operand, y: Operand) -> Option<Operand> {
    Some(match op {
        Binary::Add => f.commutative(ops::VADDPS, x, y),
        Binary::Subtract => f.op(ops::VSUBPS, x, y),
        Binary::Multiply => f.commutative(ops::VMULPS, x, y),
        Binary::Divide => f.op(ops::VDIVPS, x, y),
        Binary::Maximum | Binary::Minimum => {
            let max = op == Binary::Maximum;
            // The constant second, else first (as `elementwise.rs` tries).
            match (x, y) {
                (v, Operand::Const(c)) if by_constant(max, c) => max_min_by_constant(f, max, v, c),
                (Operand::Const(c), v) if by_constant(max, c) => max_min_by_constant(f, max, v, c),
                _ => max_min(f, max, x, y),
            }
        }
        _ => return None,
    })
}

/// `true` if `max(v, c)` (`min`) takes [`max_min_by_constant`]: `c` is
/// not NaN nor subnormal, nor `−0` for a min (as in `elementwise.rs`).
fn by_constant(max: bool, c: u32) -> bool {
    let c = f32::from_bits(c);
    let zero = c == 0.0;
    !(c.is_nan()
        || (!zero && c.abs() < f32::MIN_POSITIVE)
        || (zero && !max && c.is_sign_negative()))
}

/// `max(v, c)` as `v < c ? c : v` (`min`: `v > c ? c : v`), which keeps a
/// NaN `v`; `+0` added after a max by `+0` (ReLU) turns a kept `−0` into
/// `+0`, and a result that may be a kept subnormal `v` is flushed.
fn max_min_by_constant(f: &mut Func, max: bool, v: Operand, c: u32) -> Operand {
    let cc = if max {
        FloatCC::LessThan
    } else {
        FloatCC::GreaterThan
    };
    let replace = f.cmp(cc, v, Operand::Const(c));
    let r = f.blend(replace, Operand::Const(c), v);
    let c = f32::from_bits(c);
    if c == 0.0 && max && c.is_sign_positive() {
        f.op(ops::VADDPS, r, Operand::Const(0))
    } else if (max && c > 0.0) || (!max && c < 0.0) {
        r
    } else {
        flush(f, r)
    }
}

/// `max(x, y)` (`min`): NaN if either is NaN, `+0` above `−0`, flushed.
/// `vmaxps` returns its second operand when the two compare equal or
/// unordered; of both orders, the and (min: the or) of the results is the
/// maximum with the sign rule for zeros (equal operands are equal bits
/// but for the zeros' signs and, under DAZ, subnormals, which the flush
/// turns into zeros of the sign the rule wants).
fn max_min(f: &mut Func, max: bool, x: Operand, y: Operand) -> Operand {
    let (pick, combine) = if max {
        (ops::VMAXPS, ops::VPANDD)
    } else {
        (ops::VMINPS, ops::VPORD)
    };
    let xr = Operand::Reg(f.reg(x));
    let yr = Operand::Reg(f.reg(y));
    let a = f.op(pick, xr, yr);
    let b = f.op(pick, yr, xr);
    let r = f.op(combine, a, b);
    let nan = f.cmp(FloatCC::Unordered, xr, yr);
    let r = f.blend(nan, Operand::Const(QUIET_NAN), r);
    flush(f, r)
}
