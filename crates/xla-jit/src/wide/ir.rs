//! The native kernels' vector code: straight-line SSA over vectors of f32
//! lanes (or their bit patterns) and lane masks, with forward skips over
//! rarely needed fix-ups (which may call a Rust function on a vector's
//! lanes, every register saved around the call), register allocation by a
//! linear scan, and lowering to [`Asm`] at one of two [`Width`]s.
//!
//! At 512 bits (AVX-512) a vector is a `zmm` register and a mask an opmask
//! register. At 256 bits (AVX2 with FMA) a vector is a `ymm` register, a
//! mask is a vector whose lanes' sign bits are the mask's bits (what
//! `vcmpps`, `vblendvps`, `vmaskmovps` and `vtestps` make and read), both
//! share the sixteen registers, and a constant is a vector in the table.
//!
//! A [`Func`] is one loop body: the code computing one or a few vectors of
//! a fusion's output at the loop's current element offset. Operands are
//! [`Operand`]s: a register value, a constant, or a scalar input, the last
//! two read as `{1to16}` broadcast memory operands by the instruction that
//! uses them (constants from a table the kernel addresses through `rax`),
//! so that they take no register. Each instruction lowers to one machine
//! instruction (plus a register copy for an FMA whose destination must be
//! one of its sources).

mod dce;
mod emit;
mod lane_ops;
mod regalloc;

#[cfg(test)]
mod tests;

use cranelift_codegen::ir::condcodes::FloatCC;

use super::asm::{Gpr, KOp, Kreg, Op, Zmm};
use crate::math::LanesFn;

use super::Width;

/// The `ymm` register that holds the masked tail's lanes at [`Width::Ymm`];
/// never allocated to a value.
pub const YMM_TAIL: Zmm = Zmm(15);

/// The `ymm` register a scalar or stack-slot operand is broadcast into
/// before the instruction that reads it at [`Width::Ymm`]; never
/// allocated to a value.
const YMM_SCRATCH: Zmm = Zmm(14);

/// A vector value.
#[derive(Clone, Copy, PartialEq, Eq, Debug, Hash)]
pub struct VReg(u32);

/// A lane mask value (one bit per lane).
#[derive(Clone, Copy, PartialEq, Eq, Debug, Hash)]
pub struct MReg(u32);

/// A vector operand.
#[derive(Clone, Copy, PartialEq, Eq, Debug, Hash)]
pub enum Operand {
    /// A value in a register.
    Reg(VReg),
    /// A 32-bit constant in every lane.
    Const(u32),
    /// The 32-bit element of a rank-0 buffer (by buffer index) in every lane.
    Scalar(usize),
    /// The first lane of a 64-byte stack slot (a value computed once per
    /// row) in every lane.
    Slot(u32),
}

/// The opmask the loop's masked tail loads and stores through; never
/// allocated to a value.
pub const TAIL_MASK: Kreg = Kreg(7);

/// Memory a loop walks: a kernel buffer, or a row buffer on the stack
/// (at this offset in bytes from the frame's stack slots).
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Place {
    /// Buffer `b` of the kernel (its base register).
    Buffer(usize),
    /// Buffer `b` from this many bytes past its base (a slice of its rows
    /// that starts at a later column).
    Window(usize, i32),
    /// Stack memory `offset` bytes from [`Frame::slots`].
    Stack(i32),
}

/// One instruction.
#[derive(Clone, Debug)]
enum Inst {
    /// Loads vector `vector` of the loop step from `place`.
    Load {
        dst: VReg,
        place: Place,
        vector: i32,
    },
    /// Stores to vector `vector` of the loop step in `place`.
    Store {
        src: VReg,
        place: Place,
        vector: i32,
    },
    /// A constant or scalar in every lane of a register.
    Splat { dst: VReg, src: Operand },
    /// `dst = src`; may redefine `dst` (the result of a rare branch).
    Copy { dst: VReg, src: VReg },
    /// `dst = a op b`.
    Op {
        op: Op,
        dst: VReg,
        a: VReg,
        b: Operand,
    },
    /// `dst = a * b + c` with one rounding; at most one of `b`, `c` is
    /// not a register.
    Fma {
        dst: VReg,
        a: VReg,
        b: Operand,
        c: Operand,
    },
    /// Stores all of `src` to a stack slot.
    StoreSlot { src: VReg, slot: u32 },
    /// `dst = sqrt(a)`.
    Sqrt { dst: VReg, a: VReg },
    /// `dst` = the 128-bit blocks of `a` reordered (`vshuff32x4`).
    Blocks { dst: VReg, a: VReg, imm: u8 },
    /// `dst` = the lanes of each 128-bit block of `a` reordered (`vpermilps`).
    Lanes { dst: VReg, a: VReg, imm: u8 },
    /// `dst = a` rounded to an integer by `vrndscaleps` mode `imm`.
    Round { dst: VReg, a: VReg, imm: u8 },
    /// `dst = a << count` (`right`: `>>`, arithmetic) on 32-bit lanes.
    Shift {
        right: bool,
        dst: VReg,
        a: VReg,
        count: u8,
    },
    /// `dst = a pred b` (`vcmpps` predicate).
    Cmp {
        dst: MReg,
        a: VReg,
        b: Operand,
        pred: u8,
    },
    /// `dst` = the lanes of `a` whose sign bit is set.
    Negative { dst: MReg, a: VReg },
    /// `dst = mask ? t : f`.
    Blend {
        dst: VReg,
        mask: MReg,
        f: VReg,
        t: Operand,
    },
    /// `dst = a op b` on opmasks.
    KOp {
        op: KOp,
        dst: MReg,
        a: MReg,
        b: MReg,
    },
    /// `dst = !a`.
    KNot { dst: MReg, a: MReg },
    /// `dst = plain` as `f(x, out, lanes)` rewrites it (in memory), every
    /// other register kept around the call.
    CallLanes {
        dst: VReg,
        x: VReg,
        plain: VReg,
        f: LanesFn,
    },
    /// Skips to the matching [`Inst::SkipEnd`] when no lane of `mask` is set.
    SkipUnless { mask: MReg },
    /// The end of the innermost open skip.
    SkipEnd,
}

/// A vector or opmask value, for liveness.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Val {
    V(VReg),
    M(MReg),
}

impl Inst {
    /// The values the instruction reads.
    fn uses(&self) -> Vec<Val> {
        let op = |o: &Operand| match o {
            Operand::Reg(r) => Some(Val::V(*r)),
            _ => None,
        };
        match self {
            Inst::Load { .. } | Inst::Splat { .. } | Inst::SkipEnd => Vec::new(),
            Inst::Store { src, .. } | Inst::StoreSlot { src, .. } => vec![Val::V(*src)],
            Inst::Copy { src, .. } => vec![Val::V(*src)],
            Inst::Negative { a, .. } => vec![Val::V(*a)],
            Inst::Op { a, b, .. } | Inst::Cmp { a, b, .. } => {
                [Some(Val::V(*a)), op(b)].into_iter().flatten().collect()
            }
            Inst::Fma { a, b, c, .. } => [Some(Val::V(*a)), op(b), op(c)]
                .into_iter()
                .flatten()
                .collect(),
            Inst::Sqrt { a, .. }
            | Inst::Round { a, .. }
            | Inst::Shift { a, .. }
            | Inst::Blocks { a, .. }
            | Inst::Lanes { a, .. } => {
                vec![Val::V(*a)]
            }
            Inst::Blend { mask, f, t, .. } => [Some(Val::M(*mask)), Some(Val::V(*f)), op(t)]
                .into_iter()
                .flatten()
                .collect(),
            Inst::KOp { a, b, .. } => vec![Val::M(*a), Val::M(*b)],
            Inst::KNot { a, .. } => vec![Val::M(*a)],
            Inst::CallLanes { x, plain, .. } => vec![Val::V(*x), Val::V(*plain)],
            Inst::SkipUnless { mask } => vec![Val::M(*mask)],
        }
    }

    /// The value the instruction defines, if any.
    fn def(&self) -> Option<Val> {
        match self {
            Inst::Load { dst, .. }
            | Inst::Splat { dst, .. }
            | Inst::Copy { dst, .. }
            | Inst::Op { dst, .. }
            | Inst::Fma { dst, .. }
            | Inst::Sqrt { dst, .. }
            | Inst::Round { dst, .. }
            | Inst::Shift { dst, .. }
            | Inst::Blocks { dst, .. }
            | Inst::Lanes { dst, .. }
            | Inst::CallLanes { dst, .. }
            | Inst::Blend { dst, .. } => Some(Val::V(*dst)),
            Inst::Cmp { dst, .. }
            | Inst::Negative { dst, .. }
            | Inst::KOp { dst, .. }
            | Inst::KNot { dst, .. } => Some(Val::M(*dst)),
            Inst::Store { .. }
            | Inst::StoreSlot { .. }
            | Inst::SkipUnless { .. }
            | Inst::SkipEnd => None,
        }
    }
}

/// Why a [`Func`] cannot be lowered: the kernel is left to the 128-bit
/// emitters.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LowerError {
    /// More values are live at once than there are registers.
    OutOfRegisters,
    /// An instruction has no form at the frame's [`Width`].
    NotAtThisWidth,
}

/// Where the lowered code finds a loop body's operands.
pub struct Frame<'a> {
    /// The base register of each buffer.
    pub buffers: &'a [Gpr],
    /// The loop's element index.
    pub index: Gpr,
    /// The constant table's address.
    pub consts: Gpr,
    /// Loads and stores go through [`TAIL_MASK`].
    pub masked: bool,
    /// Where the stack slots start, in bytes from `rsp`.
    pub slots: i32,
    /// The vectors' width.
    pub width: Width,
}

/// A loop body under construction.
#[derive(Default)]
pub struct Func {
    insts: Vec<Inst>,
    vregs: u32,
    mregs: u32,
    /// Values held in a given register for the whole body (and beyond it:
    /// a loop's accumulators), never allocated to another value.
    fixed: Vec<(VReg, Zmm)>,
    /// The value of [`TAIL_MASK`], if asked for.
    tail: Option<MReg>,
}

impl Func {
    fn vreg(&mut self) -> VReg {
        self.vregs += 1;
        VReg(self.vregs - 1)
    }

    fn mreg(&mut self) -> MReg {
        self.mregs += 1;
        MReg(self.mregs - 1)
    }

    /// The value that lives in register `z` (on entry, and on exit if it is
    /// redefined with [`Func::set`]).
    pub fn fixed(&mut self, z: Zmm) -> Operand {
        let v = self.vreg();
        self.fixed.push((v, z));
        Operand::Reg(v)
    }

    /// Redefines a [`Func::fixed`] value.
    pub fn set(&mut self, fixed: Operand, x: Operand) {
        let Operand::Reg(dst) = fixed else {
            unreachable!("a fixed value is a register")
        };
        debug_assert!(self.fixed.iter().any(|&(v, _)| v == dst));
        let src = self.reg(x);
        self.insts.push(Inst::Copy { dst, src });
    }

    /// The lanes the masked tail covers ([`TAIL_MASK`]).
    pub fn tail_mask(&mut self) -> MReg {
        match self.tail {
            Some(m) => m,
            None => {
                let m = self.mreg();
                self.tail = Some(m);
                m
            }
        }
    }

    /// Stores `x` (every lane) to stack slot `slot`.
    pub fn store_slot(&mut self, x: Operand, slot: u32) {
        let src = self.reg(x);
        self.insts.push(Inst::StoreSlot { src, slot });
    }

    /// `a` with its 128-bit blocks in the order `imm` gives.
    pub fn blocks(&mut self, a: Operand, imm: u8) -> Operand {
        let a = self.reg(a);
        let dst = self.vreg();
        self.insts.push(Inst::Blocks { dst, a, imm });
        Operand::Reg(dst)
    }

    /// `a` with the lanes of each 128-bit block in the order `imm` gives.
    pub fn lanes(&mut self, a: Operand, imm: u8) -> Operand {
        let a = self.reg(a);
        let dst = self.vreg();
        self.insts.push(Inst::Lanes { dst, a, imm });
        Operand::Reg(dst)
    }

    /// Vector `vector` of the loop step in buffer `buffer`.
    pub fn load(&mut self, buffer: usize, vector: i32) -> Operand {
        self.load_from(Place::Buffer(buffer), vector)
    }

    /// Vector `vector` of the loop step in `place`.
    pub fn load_from(&mut self, place: Place, vector: i32) -> Operand {
        let dst = self.vreg();
        self.insts.push(Inst::Load { dst, place, vector });
        Operand::Reg(dst)
    }

    /// Stores `x` to vector `vector` of the loop step in buffer `buffer`.
    pub fn store(&mut self, x: Operand, buffer: usize, vector: i32) {
        self.store_to(x, Place::Buffer(buffer), vector);
    }

    /// Stores `x` to vector `vector` of the loop step in `place`.
    pub fn store_to(&mut self, x: Operand, place: Place, vector: i32) {
        let src = self.reg(x);
        self.insts.push(Inst::Store { src, place, vector });
    }

    /// `x` in a register (a constant or scalar is broadcast into one).
    pub fn reg(&mut self, x: Operand) -> VReg {
        match x {
            Operand::Reg(r) => r,
            src => {
                let dst = self.vreg();
                self.insts.push(Inst::Splat { dst, src });
                dst
            }
        }
    }

    /// `a op b`.
    pub fn op(&mut self, op: Op, a: Operand, b: Operand) -> Operand {
        let a = self.reg(a);
        let dst = self.vreg();
        self.insts.push(Inst::Op { op, dst, a, b });
        Operand::Reg(dst)
    }

    /// `a op b` for a commutative `op`: a constant goes second.
    pub fn commutative(&mut self, op: Op, a: Operand, b: Operand) -> Operand {
        match (a, b) {
            (Operand::Reg(_), _) => self.op(op, a, b),
            _ => self.op(op, b, a),
        }
    }

    /// `a * b + c` with one rounding.
    pub fn fma(&mut self, a: Operand, b: Operand, c: Operand) -> Operand {
        let (a, b) = match (a, b) {
            (Operand::Reg(_), _) => (a, b),
            _ => (b, a),
        };
        let a = self.reg(a);
        let (b, c) = match (b, c) {
            (Operand::Reg(_), _) | (_, Operand::Reg(_)) => (b, c),
            // Two memory operands: one goes to a register.
            _ => (b, Operand::Reg(self.reg(c))),
        };
        let dst = self.vreg();
        self.insts.push(Inst::Fma { dst, a, b, c });
        Operand::Reg(dst)
    }

    /// `sqrt(a)`.
    pub fn sqrt(&mut self, a: Operand) -> Operand {
        let a = self.reg(a);
        let dst = self.vreg();
        self.insts.push(Inst::Sqrt { dst, a });
        Operand::Reg(dst)
    }

    /// `a` rounded to an integer (`vrndscaleps` mode `imm`).
    pub fn round(&mut self, a: Operand, imm: u8) -> Operand {
        let a = self.reg(a);
        let dst = self.vreg();
        self.insts.push(Inst::Round { dst, a, imm });
        Operand::Reg(dst)
    }

    /// `a << count` (`right`: `>>`, arithmetic) on 32-bit lanes.
    pub fn shift(&mut self, right: bool, a: Operand, count: u8) -> Operand {
        let a = self.reg(a);
        let dst = self.vreg();
        self.insts.push(Inst::Shift {
            right,
            dst,
            a,
            count,
        });
        Operand::Reg(dst)
    }

    /// `a pred b` by a `vcmpps` predicate.
    pub fn cmp_pred(&mut self, pred: u8, a: Operand, b: Operand) -> MReg {
        let a = self.reg(a);
        let dst = self.mreg();
        self.insts.push(Inst::Cmp { dst, a, b, pred });
        dst
    }

    /// The lanes whose sign bit is set.
    pub fn negative(&mut self, a: Operand) -> MReg {
        let a = self.reg(a);
        let dst = self.mreg();
        self.insts.push(Inst::Negative { dst, a });
        dst
    }

    /// `mask ? t : f` per lane.
    pub fn blend(&mut self, mask: MReg, t: Operand, f: Operand) -> Operand {
        let f = self.reg(f);
        let dst = self.vreg();
        self.insts.push(Inst::Blend { dst, mask, f, t });
        Operand::Reg(dst)
    }

    /// `a op b` on opmasks.
    pub fn kop(&mut self, op: KOp, a: MReg, b: MReg) -> MReg {
        let dst = self.mreg();
        self.insts.push(Inst::KOp { op, dst, a, b });
        dst
    }

    /// `!a` on an opmask.
    pub fn knot(&mut self, a: MReg) -> MReg {
        let dst = self.mreg();
        self.insts.push(Inst::KNot { dst, a });
        dst
    }
}

/// The kernel's constants, each stored once, addressed from the table's
/// start: 32-bit patterns (each repeated across a vector at
/// [`Width::Ymm`], whose instructions read whole vectors) and blocks.
pub struct ConstPool {
    values: Vec<u32>,
    repeat: usize,
    /// `[start, end)` of each table in `values`, which later constants
    /// are not looked for in (a row's numbers would be scanned for every
    /// constant).
    tables: Vec<(usize, usize)>,
}

impl ConstPool {
    /// An empty table for kernels of `width`.
    pub fn new(width: Width) -> Self {
        ConstPool {
            values: Vec::new(),
            repeat: match width {
                Width::Zmm => 1,
                Width::Ymm => width.lanes() as usize,
            },
            tables: Vec::new(),
        }
    }

    /// The byte offset of `bits` in the table (added if new).
    pub fn offset(&mut self, bits: u32) -> i32 {
        self.block(&vec![bits; self.repeat])
    }

    /// The byte offset of `block` (whole, in order) in the table (added if
    /// new), on a multiple of the block's own length.
    pub fn block(&mut self, block: &[u32]) -> i32 {
        let n = block.len().max(1);
        let ends = self.tables.iter().map(|&(start, _)| start);
        let starts = std::iter::once(0).chain(self.tables.iter().map(|&(_, end)| end));
        let found = starts
            .zip(ends.chain(std::iter::once(self.values.len())))
            .flat_map(|(lo, hi)| (lo.div_ceil(n)..hi / n).map(|k| k * n))
            .find(|&at| self.values[at..at + block.len()] == *block);
        let at = found.unwrap_or_else(|| {
            while !self.values.len().is_multiple_of(n) {
                self.values.push(0);
            }
            self.values.extend_from_slice(block);
            self.values.len() - block.len()
        });
        4 * at as i32
    }

    /// The byte offset of `values`, appended on a 64-byte boundary: a
    /// table a kernel reads at an index (never shared with another).
    pub fn table(&mut self, values: &[u32]) -> i32 {
        while !self.values.len().is_multiple_of(16) {
            self.values.push(0);
        }
        let start = self.values.len();
        self.values.extend_from_slice(values);
        self.tables.push((start, self.values.len()));
        4 * start as i32
    }

    /// The table's bytes.
    pub fn bytes(&self) -> Vec<u8> {
        self.values.iter().flat_map(|v| v.to_le_bytes()).collect()
    }
}

/// The `vcmpps` predicate of a comparison (`_OQ`/`_OS` ordered forms false
/// on NaN, `_UQ`/`_US` unordered forms true).
pub fn cmp_predicate(cc: FloatCC) -> u8 {
    match cc {
        FloatCC::Equal => 0x00,
        FloatCC::LessThan => 0x01,
        FloatCC::LessThanOrEqual => 0x02,
        FloatCC::Unordered => 0x03,
        FloatCC::NotEqual => 0x04,
        FloatCC::UnorderedOrGreaterThanOrEqual => 0x05,
        FloatCC::UnorderedOrGreaterThan => 0x06,
        FloatCC::Ordered => 0x07,
        FloatCC::UnorderedOrEqual => 0x08,
        FloatCC::UnorderedOrLessThan => 0x09,
        FloatCC::UnorderedOrLessThanOrEqual => 0x0A,
        FloatCC::OrderedNotEqual => 0x0C,
        FloatCC::GreaterThanOrEqual => 0x0D,
        FloatCC::GreaterThan => 0x0E,
    }
}

/// The sign bit of an f32 lane.
const SIGN: u32 = 0x8000_0000;
