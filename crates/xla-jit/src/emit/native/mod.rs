//! Fusions as native kernels (see [`crate::wide`]): flat elementwise
//! loops (`flat.rs`), row kernels (`rows.rs`: softmax, layernorm, row
//! reductions; `rows/epilogue.rs`: dot epilogues, block by block) and
//! column reductions (`columns.rs`), at 512 bits on CPUs
//! with AVX-512 and at 256 bits on CPUs with AVX2 and FMA only; the
//! partials of full reductions at 512 bits only. This module holds what they share: the translation of
//! elementwise ops to the wide IR, the reducers, and the kernel's entry
//! and exit. (The module keeps the name of its first width.)
//!
//! Every op computes what the 128-bit emitters compute
//! (`elementwise.rs`): the same instructions where those have 512-bit
//! forms, bit for bit; max and min by other sequences with the same results
//! (NaN for NaN, `+0 > −0`, flushed); the math functions by the same code
//! ([`crate::math::LaneOps`]). Fusions with anything else are left to
//! the 128-bit emitters.

mod columns;
mod flat;
mod rows;
mod space;

use cranelift_codegen::ir::condcodes::FloatCC;
use cranelift_codegen::ir::types;
use xla_core::hlo::{ComparisonDirection, ComparisonType, ComputationId, HloInstruction};
use xla_core::{HloModule, Opcode, PrimitiveType};

use super::ops::{op_of, Binary, Op, Unary};
use super::{cost, reduce, Emit, KernelInfo, KernelPlan};
use crate::fusion::FusionKind;
use crate::math::{flushes_subnormals, generic_unary, Accuracy, LaneOps};
use crate::wide::asm::{gpr::*, ops, Asm, Cond, Gpr, KOp, Label, Mem, Zmm};
use crate::wide::ir::{ConstPool, Frame, Func, MReg, Operand, TAIL_MASK, YMM_TAIL};
use crate::wide::Width;

/// f32 lanes per vector at 512 bits (the row and reduction kernels'
/// width).
const LANES: i64 = 16;

/// Vectors per step of a main loop.
const UNROLL: i32 = 2;

/// Registers that kernels restore before they return.
const CALLEE_SAVED: [Gpr; 6] = [RBX, RBP, R12, R13, R14, R15];

/// A reduction loop's two accumulators (one per vector of a step) at
/// `width`: the last registers the allocator may use.
fn acc(width: Width) -> [Zmm; 2] {
    match width {
        Width::Zmm => [Zmm(30), Zmm(31)],
        Width::Ymm => [Zmm(12), Zmm(13)],
    }
}

/// A fusion's native kernel.
pub(crate) struct NativeKernel {
    /// The machine code and its constant table.
    pub code: Vec<u8>,
    /// Elements of the root's iteration space per iteration.
    pub elements_per_iteration: i64,
    /// Iterations of the runtime's iteration space.
    pub iterations: i64,
}

/// The native kernels of `info`'s fusion at `width`, if the emitter takes
/// it: at 512 bits a full reduction's partials (with Cranelift's kernel
/// combining them), else one kernel (a flat or a row fusion's).
pub(super) fn plan(info: &KernelInfo, width: Width) -> Option<Vec<KernelPlan>> {
    // Eight f32 are one 256-bit vector; at 512 bits they would go through
    // the masked tail, and a masked store does not forward to the next
    // kernel's load (a stall per step of a loop over such a state).
    let eight = info
        .comp
        .instr(info.fusion.root)
        .shape
        .as_array()
        .is_some_and(|a| a.element_count() == 8);
    let width = match width {
        Width::Zmm if eight && info.fusion.kind == FusionKind::Loop => Width::Ymm,
        other => other,
    };
    let per_element = cost::per_element(info, width.lanes() as u32);
    let native = |kernel: NativeKernel, part, scratch_bytes| KernelPlan {
        part,
        iterations: kernel.iterations,
        cost_per_iteration: kernel.elements_per_iteration as f64 * per_element,
        scratch_bytes,
        epilogue: false,
        emit: Emit::Native(kernel),
    };
    if width == Width::Zmm && info.fusion.kind == FusionKind::Reduction {
        if let Some((kernel, partials)) = flat::compile_partials(info) {
            let scratch_bytes = 4 * partials as usize;
            let root = info.fusion.root;
            return Some(vec![
                native(kernel, "avx512_partials", scratch_bytes),
                reduce::combine_plan(root, partials, scratch_bytes),
            ]);
        }
    }
    if info.fusion.kind == FusionKind::Reduction {
        if let Some(plans) = columns::plan(info, width, per_element) {
            return Some(plans);
        }
    }
    let (flat_part, rows_part, epilogue_part) = match width {
        Width::Zmm => ("avx512", "avx512_rows", "avx512_epilogue"),
        Width::Ymm => ("avx2", "avx2_rows", "avx2_epilogue"),
    };
    let kernel = match info.fusion.kind {
        FusionKind::Loop => match flat::compile(info, width) {
            Some(kernel) => (kernel, flat_part),
            None => (rows::compile(info, width)?, rows_part),
        },
        FusionKind::Row | FusionKind::Reduction => (rows::compile(info, width)?, rows_part),
        FusionKind::DotEpilogue => {
            // Called once per block of the dot's output, not over a range.
            return Some(vec![KernelPlan {
                part: epilogue_part,
                iterations: 1,
                cost_per_iteration: per_element,
                scratch_bytes: 0,
                epilogue: true,
                emit: Emit::Native(rows::epilogue::compile(info, width)?),
            }]);
        }
    };
    Some(vec![native(kernel.0, kernel.1, 0)])
}

/// What a value of the fusion is in the kernel's code.
#[derive(Clone, Copy, Debug)]
enum Val {
    /// f32 lanes (or a scalar, constant or row value broadcast to them).
    F32(Operand),
    /// A pred per lane.
    Mask(MReg),
}

impl Val {
    fn float(self) -> Option<Operand> {
        match self {
            Val::F32(v) => Some(v),
            Val::Mask(_) => None,
        }
    }

    fn mask(self) -> Option<MReg> {
        match self {
            Val::Mask(m) => Some(m),
            Val::F32(_) => None,
        }
    }
}

/// The value of a scalar f32 constant instruction.
fn constant(instr: &HloInstruction) -> Option<Operand> {
    let shape = instr.shape.as_array()?;
    if instr.opcode != Opcode::Constant
        || shape.element_type() != PrimitiveType::F32
        || shape.element_count() != 1
    {
        return None;
    }
    let v = instr.attrs.literal.as_ref()?.to_vec::<f32>().ok()?;
    Some(Operand::Const(v.first()?.to_bits()))
}

/// The value of an elementwise instruction (f32 values, pred masks) from
/// its operands' values; `None` for an op or type this emitter lacks.
fn elementwise(
    f: &mut Func,
    comp: &xla_core::HloComputation,
    instr: &HloInstruction,
    args: &[Val],
) -> Option<Val> {
    let ty = instr.shape.as_array()?.element_type();
    let float = |k: usize| args.get(k)?.float();
    let mask = |k: usize| args.get(k)?.mask();
    let op = op_of(instr.opcode);
    if ty == PrimitiveType::Pred {
        return match op {
            Op::Compare => compare(f, comp, instr, float(0)?, float(1)?).map(Val::Mask),
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
    f: &mut Func,
    comp: &xla_core::HloComputation,
    instr: &HloInstruction,
    a: Operand,
    b: Operand,
) -> Option<MReg> {
    let operand = comp
        .instr(instr.operands[0])
        .shape
        .as_array()?
        .element_type();
    if operand != PrimitiveType::F32
        || instr
            .attrs
            .comparison_type
            .is_some_and(|t| t != ComparisonType::Float)
    {
        return None;
    }
    compare_lanes(f, instr, a, b)
}

/// The lane mask of `instr`'s comparison of `a` and `b` as f32 lanes (for
/// integer operands too when their values are exact in f32: indices).
pub(super) fn compare_lanes(
    f: &mut Func,
    instr: &HloInstruction,
    a: Operand,
    b: Operand,
) -> Option<MReg> {
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

/// A reduce's combining op: its `to_apply` is `op(p0, p1)` on f32 scalars.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Reducer {
    Add,
    Multiply,
    Max,
    Min,
}

impl Reducer {
    /// The reducer of computation `id`, if it is one of these.
    fn of(module: &HloModule, id: ComputationId) -> Option<Reducer> {
        let comp = module.computation(id);
        let scalar_f32 = comp
            .root_instr()
            .shape
            .as_array()
            .is_some_and(|a| a.element_type() == PrimitiveType::F32 && a.rank() == 0);
        if !scalar_f32 {
            return None;
        }
        Some(match comp.binary_of_parameters()? {
            Opcode::Add => Reducer::Add,
            Opcode::Multiply => Reducer::Multiply,
            Opcode::Maximum => Reducer::Max,
            Opcode::Minimum => Reducer::Min,
            _ => return None,
        })
    }

    /// The value that leaves every other unchanged (`−0` for a sum: `+0`
    /// would turn a sum of `−0`s into `+0`).
    fn identity(self) -> Operand {
        let v = match self {
            Reducer::Add => -0.0f32,
            Reducer::Multiply => 1.0,
            Reducer::Max => f32::NEG_INFINITY,
            Reducer::Min => f32::INFINITY,
        };
        Operand::Const(v.to_bits())
    }

    /// `a op b`.
    fn combine(self, f: &mut Func, a: Operand, b: Operand) -> Operand {
        match self {
            Reducer::Add => f.commutative(ops::VADDPS, a, b),
            Reducer::Multiply => f.commutative(ops::VMULPS, a, b),
            Reducer::Max => max_min(f, true, a, b),
            Reducer::Min => max_min(f, false, a, b),
        }
    }

    /// Every lane combined, in every lane: a butterfly over the 256-bit
    /// halves (at 512 bits), the 128-bit blocks, then pairs and lanes
    /// within blocks.
    fn across(self, f: &mut Func, width: Width, mut a: Operand) -> Operand {
        let halves = width == Width::Zmm;
        for (blocks, imm) in [(true, 0x4E), (true, 0xB1), (false, 0x4E), (false, 0xB1)] {
            if blocks && imm == 0x4E && !halves {
                continue;
            }
            let t = if blocks {
                f.blocks(a, imm)
            } else {
                f.lanes(a, imm)
            };
            a = self.combine(f, a, t);
        }
        a
    }
}

/// The loop bodies of a reduction: `init` sets both accumulators to the
/// identity; `two`, `one` and `tail` (the last through the tail mask, its
/// other lanes the identity) fold in the values `value` computes at
/// vector `v` of a step.
struct Accumulation {
    init: Func,
    two: Func,
    one: Func,
    tail: Func,
}

impl Accumulation {
    fn new(
        reducer: Reducer,
        width: Width,
        value: impl Fn(&mut Func, i32) -> Option<Operand>,
    ) -> Option<Self> {
        let identity = reducer.identity();
        let mut init = Func::default();
        for z in acc(width) {
            let acc = init.fixed(z);
            init.set(acc, identity);
        }
        let step = |vectors: i32, masked: bool| -> Option<Func> {
            let mut f = Func::default();
            // Both accumulators stay reserved, whichever this step updates.
            let accs = acc(width).map(|z| f.fixed(z));
            for v in 0..vectors {
                let mut x = value(&mut f, v)?;
                if masked {
                    let lanes = f.tail_mask();
                    x = f.blend(lanes, x, identity);
                }
                let acc = accs[v as usize];
                let r = reducer.combine(&mut f, acc, x);
                f.set(acc, r);
            }
            Some(f)
        };
        Some(Accumulation {
            init,
            two: step(UNROLL, false)?,
            one: step(1, false)?,
            tail: step(1, true)?,
        })
    }

    /// The accumulators combined, in every lane of the result.
    fn result(reducer: Reducer, width: Width, f: &mut Func) -> Operand {
        let [a, b] = acc(width).map(|z| f.fixed(z));
        let both = reducer.combine(f, a, b);
        reducer.across(f, width, both)
    }
}

/// A loop over elements `[rsi, end)`: `two` while two vectors fit, then
/// `one` for a whole vector, then `tail` for the 1–15 (at 256 bits 1–7)
/// elements left, the tail mask set from their count (at 256 bits loaded
/// from the block of the constant table at `tail_masks`, see
/// [`tail_masks`]).
fn element_loop(
    asm: &mut Asm,
    lowered: &mut impl FnMut(&mut Asm, &Func, bool) -> Option<()>,
    end: Gpr,
    (two, one, tail): (&Func, &Func, &Func),
    (width, tail_masks): (Width, i32),
) -> Option<()> {
    let (main, ones, rest, done) = (asm.label(), asm.label(), asm.label(), asm.label());
    let lanes = width.lanes() as i32;
    let step = lanes * UNROLL;
    asm.bind(main);
    asm.lea(RCX, Mem::at(RSI, step));
    asm.cmp(RCX, end);
    asm.jcc(Cond::G, ones);
    lowered(asm, two, false)?;
    asm.add_imm(RSI, step);
    asm.jmp(main);
    asm.bind(ones);
    asm.lea(RCX, Mem::at(RSI, lanes));
    asm.cmp(RCX, end);
    asm.jcc(Cond::G, rest);
    lowered(asm, one, false)?;
    asm.add_imm(RSI, lanes);
    asm.bind(rest);
    asm.mov(RCX, end);
    asm.sub(RCX, RSI);
    asm.jcc(Cond::Le, done);
    match width {
        Width::Zmm => {
            asm.low_bits_mask(R11);
            asm.kmovw_from_gpr(TAIL_MASK, R11);
        }
        Width::Ymm => {
            // The 8 − rcx lanes of ones that end at the block's middle.
            asm.imul_imm(R11, RCX, -4);
            asm.ymovups_load(YMM_TAIL, Mem::indexed(RAX, R11, 1, tail_masks + 32));
        }
    }
    lowered(asm, tail, true)?;
    asm.bind(done);
    Some(())
}

/// The offset in `consts` of the block the 256-bit tail masks are read
/// from: eight lanes of ones, then eight of zeros (the mask of `n` lanes
/// starts `32 − 4n` bytes in). At 512 bits the masks are opmasks and the
/// table has no such block (0).
fn tail_masks(consts: &mut ConstPool, width: Width) -> i32 {
    match width {
        Width::Zmm => 0,
        Width::Ymm => {
            let mut block = [0u32; 16];
            block[..8].fill(u32::MAX);
            consts.block(&block)
        }
    }
}

/// Lowers loop bodies into a kernel whose buffers are in `buffers`, whose
/// element index is `rsi`, constants in `consts` (addressed by `rax`) and
/// stack slots `slots` bytes above `rsp`, at `width`; the flag says a body
/// is the masked tail. `None` when a body cannot be lowered.
fn lowering<'a>(
    buffers: &'a [Gpr],
    slots: i32,
    consts: &'a mut ConstPool,
    width: Width,
) -> impl FnMut(&mut Asm, &Func, bool) -> Option<()> + 'a {
    move |asm, f, masked| {
        let frame = Frame {
            buffers,
            index: RSI,
            consts: RAX,
            masked,
            slots,
            width,
        };
        f.lower(asm, &frame, consts).ok()
    }
}

/// Pushes the callee-saved registers among `used` and reserves `frame`
/// bytes of stack; returns the registers pushed.
fn enter(asm: &mut Asm, used: &[Gpr], frame: i32) -> Vec<Gpr> {
    let saved: Vec<Gpr> = CALLEE_SAVED
        .iter()
        .copied()
        .filter(|r| used.contains(r))
        .collect();
    for &r in &saved {
        asm.push(r);
    }
    if frame > 0 {
        asm.add_imm(RSP, -frame);
    }
    saved
}

/// Loads each buffer's base address from the array in `rdi` into its
/// register (rdi's own last), and the constant table's address into `rax`.
fn load_bases(asm: &mut Asm, bases: &[Gpr], table: Label) {
    let slot = |b: usize| Mem::at(RDI, 8 * b as i32);
    for (b, &r) in bases.iter().enumerate().filter(|&(_, &r)| r != RDI) {
        asm.mov_load(r, slot(b));
    }
    if let Some(b) = bases.iter().position(|&r| r == RDI) {
        asm.mov_load(RDI, slot(b));
    }
    asm.lea_label(RAX, table);
}

/// Releases the stack frame, restores `saved`, returns; then the constant
/// table, which `table` labels.
fn leave(asm: &mut Asm, saved: &[Gpr], frame: i32, table: Label, consts: &[u8]) {
    asm.vzeroupper();
    if frame > 0 {
        asm.add_imm(RSP, frame);
    }
    for &r in saved.iter().rev() {
        asm.pop(r);
    }
    asm.ret();
    asm.data(64, &[]);
    asm.bind(table);
    asm.data(4, consts);
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
        Unary::Math(m) => {
            // As the 128-bit kernels: flushed around the functions that do
            // not apply the flush rule themselves.
            if flushes_subnormals(m, Accuracy::Xla, types::F32) {
                generic_unary(f, m, x)?
            } else {
                let x = flush(f, x);
                let r = generic_unary(f, m, x)?;
                flush(f, r)
            }
        }
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
