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

use cranelift_codegen::ir::condcodes::FloatCC;

use super::asm::{gpr, gpr::RSP, ops, Asm, Gpr, KOp, Kreg, Label, Mem, Op, VSrc, Zmm};
use crate::math::{LaneOps, LanesFn};

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

    /// Allocates registers and appends the machine code to `asm`.
    pub fn lower(
        &self,
        asm: &mut Asm,
        frame: &Frame,
        consts: &mut ConstPool,
    ) -> Result<(), LowerError> {
        let mut last_use = vec![usize::MAX; self.vregs as usize];
        let mut last_mask_use = vec![usize::MAX; self.mregs as usize];
        for (i, inst) in self.insts.iter().enumerate() {
            for u in inst.uses() {
                match u {
                    Val::V(v) => last_use[v.0 as usize] = i,
                    Val::M(m) => last_mask_use[m.0 as usize] = i,
                }
            }
        }
        let mut ra = match frame.width {
            // zmm0–zmm31; k1–k6 (k0 cannot mask, k7 is the tail's).
            Width::Zmm => Allocation::new(self, u32::MAX, Some(0b0111_1110)),
            // ymm0–ymm13 for values and masks alike.
            Width::Ymm => Allocation::new(self, (1 << YMM_SCRATCH.0) - 1, None),
        };
        for &(v, z) in &self.fixed {
            ra.zmm[v.0 as usize] = Some(z);
            ra.free_zmm &= !(1 << z.0);
            // Live past the body.
            last_use[v.0 as usize] = usize::MAX - 1;
        }
        if let Some(m) = self.tail {
            ra.k[m.0 as usize] = Some(match frame.width {
                Width::Zmm => TAIL_MASK.0,
                Width::Ymm => YMM_TAIL.0,
            });
            last_mask_use[m.0 as usize] = usize::MAX - 1;
        }
        let mut skips: Vec<Label> = Vec::new();
        for (i, inst) in self.insts.iter().enumerate() {
            let uses = inst.uses();
            for (n, u) in uses.iter().enumerate() {
                if uses[..n].contains(u) {
                    continue;
                }
                match *u {
                    Val::V(v) if last_use[v.0 as usize] == i => ra.free_zmm |= 1 << ra.z(v).0,
                    Val::M(m) if last_mask_use[m.0 as usize] == i => ra.free_mask(m),
                    _ => {}
                }
            }
            match inst.def() {
                Some(Val::V(d)) if ra.zmm[d.0 as usize].is_none() => {
                    let prefer = match inst {
                        Inst::Fma { a, b, c, .. } => [Some(*a), reg_of(b), reg_of(c)]
                            .into_iter()
                            .flatten()
                            .find(|v| last_use[v.0 as usize] == i)
                            .map(|v| ra.z(v)),
                        _ => None,
                    };
                    let z = ra.take_zmm(prefer)?;
                    ra.zmm[d.0 as usize] = Some(z);
                }
                Some(Val::M(d)) if ra.k[d.0 as usize].is_none() => {
                    let k = ra.take_mask()?;
                    ra.k[d.0 as usize] = Some(k);
                }
                _ => {}
            }
            match frame.width {
                Width::Zmm => self.emit(asm, frame, consts, &ra, inst, &mut skips),
                Width::Ymm => self.emit_ymm(asm, frame, consts, &ra, inst, &mut skips)?,
            }
            // A value nothing reads frees its register at once.
            match inst.def() {
                Some(Val::V(d)) if last_use[d.0 as usize] == usize::MAX => {
                    ra.free_zmm |= 1 << ra.z(d).0
                }
                Some(Val::M(d)) if last_mask_use[d.0 as usize] == usize::MAX => ra.free_mask(d),
                _ => {}
            }
        }
        debug_assert!(skips.is_empty(), "every skip is closed");
        Ok(())
    }

    /// The machine code of `inst` at [`Width::Zmm`].
    fn emit(
        &self,
        asm: &mut Asm,
        frame: &Frame,
        consts: &mut ConstPool,
        ra: &Allocation,
        inst: &Inst,
        skips: &mut Vec<Label>,
    ) {
        let mut src = |o: &Operand| -> VSrc {
            match *o {
                Operand::Reg(r) => VSrc::Reg(ra.z(r)),
                Operand::Const(bits) => VSrc::Bcst(Mem::at(frame.consts, consts.offset(bits))),
                Operand::Scalar(b) => VSrc::Bcst(Mem::at(frame.buffers[b], 0)),
                Operand::Slot(k) => VSrc::Bcst(Mem::at(RSP, frame.slots + 64 * k as i32)),
            }
        };
        let at = |place: Place, vector: i32| frame.at(place, vector);
        let mask = frame.masked.then_some(TAIL_MASK);
        match inst {
            Inst::Load { dst, place, vector } => {
                asm.vmovups_load(ra.z(*dst), at(*place, *vector), mask)
            }
            Inst::Store {
                src: s,
                place,
                vector,
            } => asm.vmovups_store(at(*place, *vector), ra.z(*s), mask),
            Inst::StoreSlot { src: s, slot } => asm.vmovups_store(
                Mem::at(RSP, frame.slots + 64 * *slot as i32),
                ra.z(*s),
                None,
            ),
            Inst::Blocks { dst, a, imm } => asm.vshuff32x4(ra.z(*dst), ra.z(*a), *imm),
            Inst::Lanes { dst, a, imm } => asm.vpermilps(ra.z(*dst), ra.z(*a), *imm),
            Inst::Splat { dst, src: s } => match src(s) {
                VSrc::Bcst(m) | VSrc::Mem(m) => asm.vbroadcastss(ra.z(*dst), m),
                VSrc::Reg(r) => asm.vmovaps(ra.z(*dst), r),
            },
            Inst::Copy { dst, src: s } => {
                if ra.z(*dst) != ra.z(*s) {
                    asm.vmovaps(ra.z(*dst), ra.z(*s));
                }
            }
            Inst::Op { op, dst, a, b } => {
                let b = src(b);
                asm.vop(*op, ra.z(*dst), ra.z(*a), b);
            }
            Inst::Fma { dst, a, b, c } => {
                let (d, a) = (ra.z(*dst), ra.z(*a));
                let (b, c) = (src(b), src(c));
                emit_fma(asm, Width::Zmm, d, a, b, c);
            }
            Inst::Sqrt { dst, a } => asm.vsqrtps(ra.z(*dst), VSrc::Reg(ra.z(*a))),
            Inst::Round { dst, a, imm } => asm.vrndscaleps(ra.z(*dst), VSrc::Reg(ra.z(*a)), *imm),
            Inst::Shift {
                right,
                dst,
                a,
                count,
            } => asm.vpshiftd(*right, ra.z(*dst), ra.z(*a), *count),
            Inst::Cmp { dst, a, b, pred } => {
                let b = src(b);
                asm.vcmpps(ra.kr(*dst), ra.z(*a), b, *pred);
            }
            Inst::Negative { dst, a } => {
                let b = src(&Operand::Const(SIGN));
                asm.vptestmd(ra.kr(*dst), ra.z(*a), b);
            }
            Inst::Blend { dst, mask: m, f, t } => {
                let t = src(t);
                asm.vblendmps(ra.z(*dst), ra.kr(*m), ra.z(*f), t);
            }
            Inst::KOp { op, dst, a, b } => asm.kop(*op, ra.kr(*dst), ra.kr(*a), ra.kr(*b)),
            Inst::KNot { dst, a } => asm.knotw(ra.kr(*dst), ra.kr(*a)),
            Inst::CallLanes { dst, x, plain, f } => {
                lanes_call(asm, Width::Zmm, [ra.z(*dst), ra.z(*x), ra.z(*plain)], *f)
            }
            Inst::SkipUnless { mask: m } => {
                let end = asm.label();
                asm.kortestw(ra.kr(*m), ra.kr(*m));
                asm.jcc(super::asm::Cond::Z, end);
                skips.push(end);
            }
            Inst::SkipEnd => {
                let end = skips.pop().expect("a skip is open");
                asm.bind(end);
            }
        }
    }

    /// The machine code of `inst` at [`Width::Ymm`]: masks are vectors
    /// (their lanes' sign bits), constants whole vectors of the table, and
    /// a scalar or slot operand is broadcast into [`YMM_SCRATCH`] first.
    fn emit_ymm(
        &self,
        asm: &mut Asm,
        frame: &Frame,
        consts: &mut ConstPool,
        ra: &Allocation,
        inst: &Inst,
        skips: &mut Vec<Label>,
    ) -> Result<(), LowerError> {
        let mut src = |asm: &mut Asm, o: &Operand| -> VSrc {
            match *o {
                Operand::Reg(r) => VSrc::Reg(ra.z(r)),
                Operand::Const(bits) => VSrc::Mem(Mem::at(frame.consts, consts.offset(bits))),
                Operand::Scalar(b) => {
                    asm.ybroadcastss(YMM_SCRATCH, Mem::at(frame.buffers[b], 0));
                    VSrc::Reg(YMM_SCRATCH)
                }
                Operand::Slot(k) => {
                    asm.ybroadcastss(YMM_SCRATCH, Mem::at(RSP, frame.slots + 64 * k as i32));
                    VSrc::Reg(YMM_SCRATCH)
                }
            }
        };
        let mask = |m: MReg| Zmm(ra.kr(m).0);
        match inst {
            Inst::Load { dst, place, vector } => {
                let at = frame.at(*place, *vector);
                if frame.masked {
                    asm.vmaskmovps_load(ra.z(*dst), YMM_TAIL, at);
                } else {
                    asm.ymovups_load(ra.z(*dst), at);
                }
            }
            Inst::Store {
                src: s,
                place,
                vector,
            } => {
                let at = frame.at(*place, *vector);
                if frame.masked {
                    asm.vmaskmovps_store(at, YMM_TAIL, ra.z(*s));
                } else {
                    asm.ymovups_store(at, ra.z(*s));
                }
            }
            Inst::StoreSlot { src: s, slot } => {
                asm.ymovups_store(Mem::at(RSP, frame.slots + 64 * *slot as i32), ra.z(*s))
            }
            // Of the 512-bit block orders, the swap of neighbouring blocks.
            Inst::Blocks { dst, a, imm: 0xB1 } => asm.yswap_blocks(ra.z(*dst), ra.z(*a)),
            Inst::Blocks { .. } => return Err(LowerError::NotAtThisWidth),
            Inst::Lanes { dst, a, imm } => asm.ypermilps(ra.z(*dst), ra.z(*a), *imm),
            Inst::Splat { dst, src: s } => match *s {
                Operand::Reg(r) => asm.ymovaps(ra.z(*dst), ra.z(r)),
                Operand::Const(bits) => {
                    asm.ybroadcastss(ra.z(*dst), Mem::at(frame.consts, consts.offset(bits)))
                }
                Operand::Scalar(b) => asm.ybroadcastss(ra.z(*dst), Mem::at(frame.buffers[b], 0)),
                Operand::Slot(k) => {
                    asm.ybroadcastss(ra.z(*dst), Mem::at(RSP, frame.slots + 64 * k as i32))
                }
            },
            Inst::Copy { dst, src: s } => {
                if ra.z(*dst) != ra.z(*s) {
                    asm.ymovaps(ra.z(*dst), ra.z(*s));
                }
            }
            Inst::Op { op, dst, a, b } => {
                let b = src(asm, b);
                asm.yop(*op, ra.z(*dst), ra.z(*a), b);
            }
            Inst::Fma { dst, a, b, c } => {
                let (d, a) = (ra.z(*dst), ra.z(*a));
                let b = src(asm, b);
                let c = src(asm, c);
                emit_fma(asm, Width::Ymm, d, a, b, c);
            }
            Inst::Sqrt { dst, a } => asm.ysqrtps(ra.z(*dst), ra.z(*a)),
            Inst::Round { dst, a, imm } => asm.vroundps(ra.z(*dst), ra.z(*a), *imm),
            Inst::Shift {
                right,
                dst,
                a,
                count,
            } => asm.yshiftd(*right, ra.z(*dst), ra.z(*a), *count),
            Inst::Cmp { dst, a, b, pred } => {
                let b = src(asm, b);
                asm.ycmpps(mask(*dst), ra.z(*a), b, *pred);
            }
            // A mask is its lanes' sign bits: `a` itself.
            Inst::Negative { dst, a } => {
                if mask(*dst) != ra.z(*a) {
                    asm.ymovaps(mask(*dst), ra.z(*a));
                }
            }
            Inst::Blend { dst, mask: m, f, t } => {
                let t = src(asm, t);
                asm.vblendvps(ra.z(*dst), ra.z(*f), t, mask(*m));
            }
            Inst::KOp { op, dst, a, b } => {
                let op = match op {
                    KOp::And => ops::VPANDD,
                    KOp::Or => ops::VPORD,
                    KOp::Xor => ops::VPXORD,
                };
                asm.yop(op, mask(*dst), mask(*a), VSrc::Reg(mask(*b)));
            }
            Inst::KNot { dst, a } => {
                let ones = VSrc::Mem(Mem::at(frame.consts, consts.offset(u32::MAX)));
                asm.yop(ops::VPXORD, mask(*dst), mask(*a), ones);
            }
            Inst::CallLanes { dst, x, plain, f } => {
                lanes_call(asm, Width::Ymm, [ra.z(*dst), ra.z(*x), ra.z(*plain)], *f)
            }
            Inst::SkipUnless { mask: m } => {
                let end = asm.label();
                asm.vtestps(mask(*m), mask(*m));
                asm.jcc(super::asm::Cond::Z, end);
                skips.push(end);
            }
            Inst::SkipEnd => {
                let end = skips.pop().expect("a skip is open");
                asm.bind(end);
            }
        }
        Ok(())
    }
}

impl Frame<'_> {
    /// The memory of vector `vector` of the loop step in `place`.
    fn at(&self, place: Place, vector: i32) -> Mem {
        let step = self.width.bytes() * vector;
        match place {
            Place::Buffer(b) => Mem::indexed(self.buffers[b], self.index, 4, step),
            Place::Stack(offset) => Mem::indexed(RSP, self.index, 4, self.slots + offset + step),
        }
    }
}

fn reg_of(o: &Operand) -> Option<VReg> {
    match o {
        Operand::Reg(r) => Some(*r),
        _ => None,
    }
}

/// `d = a * b + c` where `d` is a fresh register or the register of one of
/// the register sources that dies here (the allocator's preference).
/// The general-purpose registers a call may change that kernels use.
const CALLER_SAVED: [Gpr; 9] = [
    gpr::RAX,
    gpr::RCX,
    gpr::RDX,
    gpr::RSI,
    gpr::RDI,
    gpr::R8,
    gpr::R9,
    gpr::R10,
    gpr::R11,
];

/// [`Inst::CallLanes`]: saves the caller-saved general registers, every
/// vector register and (at 512 bits) the opmasks on a 64-byte aligned
/// block of the stack, passes copies of `x` and `plain` to `f`, restores
/// everything and loads `dst` from `f`'s output. A rare path's cost: the
/// block is 2.3 KiB at 512 bits.
fn lanes_call(asm: &mut Asm, width: Width, [dst, x, plain]: [Zmm; 3], f: LanesFn) {
    let (vectors, lanes): (u8, u32) = match width {
        Width::Zmm => (32, 16),
        Width::Ymm => (16, 8),
    };
    let save = |asm: &mut Asm, at: i32, z: Zmm| match width {
        Width::Zmm => asm.vmovups_store(Mem::at(RSP, at), z, None),
        Width::Ymm => asm.ymovups_store(Mem::at(RSP, at), z),
    };
    let load = |asm: &mut Asm, z: Zmm, at: i32| match width {
        Width::Zmm => asm.vmovups_load(z, Mem::at(RSP, at), None),
        Width::Ymm => asm.ymovups_load(z, Mem::at(RSP, at)),
    };
    // The block: the vector registers, then the copies of x and plain,
    // then k1–k7 and the stack pointer to return to.
    let base = 64 * i32::from(vectors);
    let (xs, out, masks) = (base, base + 64, base + 128);
    let old_rsp = masks + 64;
    let block = old_rsp + 64;
    for r in CALLER_SAVED {
        asm.push(r);
    }
    asm.mov(gpr::R11, RSP);
    asm.and_imm8(RSP, -64);
    asm.add_imm(RSP, -block);
    asm.mov_store(Mem::at(RSP, old_rsp), gpr::R11);
    for z in 0..vectors {
        save(asm, 64 * i32::from(z), Zmm(z));
    }
    if width == Width::Zmm {
        for k in 1..8 {
            asm.kmovw_to_gpr(gpr::RAX, Kreg(k));
            asm.mov_store(Mem::at(RSP, masks + 8 * i32::from(k)), gpr::RAX);
        }
    }
    load(asm, Zmm(0), 64 * i32::from(x.0));
    save(asm, xs, Zmm(0));
    load(asm, Zmm(0), 64 * i32::from(plain.0));
    save(asm, out, Zmm(0));
    asm.vzeroupper();
    asm.lea(gpr::RDI, Mem::at(RSP, xs));
    asm.lea(gpr::RSI, Mem::at(RSP, out));
    asm.mov_imm32(gpr::RDX, lanes);
    asm.mov_imm64(gpr::RAX, f as usize as u64);
    asm.call_reg(gpr::RAX);
    if width == Width::Zmm {
        for k in 1..8 {
            asm.mov_load(gpr::RAX, Mem::at(RSP, masks + 8 * i32::from(k)));
            asm.kmovw_from_gpr(Kreg(k), gpr::RAX);
        }
    }
    for z in 0..vectors {
        load(asm, Zmm(z), 64 * i32::from(z));
    }
    load(asm, dst, out);
    asm.mov_load(RSP, Mem::at(RSP, old_rsp));
    for r in CALLER_SAVED.iter().rev() {
        asm.pop(*r);
    }
}

fn emit_fma(asm: &mut Asm, width: Width, d: Zmm, a: Zmm, b: VSrc, c: VSrc) {
    let vop = |asm: &mut Asm, op, d, a, b| match width {
        Width::Zmm => asm.vop(op, d, a, b),
        Width::Ymm => asm.yop(op, d, a, b),
    };
    let copy = |asm: &mut Asm, d, a| match width {
        Width::Zmm => asm.vmovaps(d, a),
        Width::Ymm => asm.ymovaps(d, a),
    };
    let memory = |v: &VSrc| !matches!(v, VSrc::Reg(_));
    match (b, c) {
        // Memory addend: d = d * b + [c] with d holding a or b.
        (VSrc::Reg(b), c) if memory(&c) => {
            if d == b {
                vop(asm, ops::VFMADD213PS, d, a, c);
            } else {
                if d != a {
                    copy(asm, d, a);
                }
                vop(asm, ops::VFMADD213PS, d, b, c);
            }
        }
        // Memory multiplicand: d = d * [b] + c with d holding a, or
        // d = a * [b] + d with d holding c.
        (b, VSrc::Reg(c)) if memory(&b) => {
            if d == c {
                vop(asm, ops::VFMADD231PS, d, a, b);
            } else {
                if d != a {
                    copy(asm, d, a);
                }
                vop(asm, ops::VFMADD132PS, d, c, b);
            }
        }
        (VSrc::Reg(b), VSrc::Reg(c)) => {
            if d == c {
                vop(asm, ops::VFMADD231PS, d, a, VSrc::Reg(b));
            } else if d == b {
                vop(asm, ops::VFMADD213PS, d, a, VSrc::Reg(c));
            } else {
                if d != a {
                    copy(asm, d, a);
                }
                vop(asm, ops::VFMADD213PS, d, b, VSrc::Reg(c));
            }
        }
        _ => unreachable!("an FMA has at most one memory operand"),
    }
}

/// The registers of a [`Func`]'s values during the scan. Masks take
/// opmask registers (`free_k`), or, without them, vector registers.
struct Allocation {
    zmm: Vec<Option<Zmm>>,
    k: Vec<Option<u8>>,
    free_zmm: u32,
    free_k: Option<u8>,
}

impl Allocation {
    fn new(f: &Func, free_zmm: u32, free_k: Option<u8>) -> Self {
        Allocation {
            zmm: vec![None; f.vregs as usize],
            k: vec![None; f.mregs as usize],
            free_zmm,
            free_k,
        }
    }

    fn z(&self, v: VReg) -> Zmm {
        self.zmm[v.0 as usize].expect("a value is defined before it is used")
    }

    fn kr(&self, m: MReg) -> Kreg {
        Kreg(self.k[m.0 as usize].expect("a mask is defined before it is used"))
    }

    fn take_zmm(&mut self, prefer: Option<Zmm>) -> Result<Zmm, LowerError> {
        let z = match prefer {
            Some(z) if self.free_zmm & (1 << z.0) != 0 => z.0,
            _ if self.free_zmm == 0 => return Err(LowerError::OutOfRegisters),
            _ => self.free_zmm.trailing_zeros() as u8,
        };
        self.free_zmm &= !(1 << z);
        Ok(Zmm(z))
    }

    fn take_mask(&mut self) -> Result<u8, LowerError> {
        match &mut self.free_k {
            None => Ok(self.take_zmm(None)?.0),
            Some(0) => Err(LowerError::OutOfRegisters),
            Some(free) => {
                let k = free.trailing_zeros() as u8;
                *free &= !(1 << k);
                Ok(k)
            }
        }
    }

    fn free_mask(&mut self, m: MReg) {
        let r = self.kr(m).0;
        match &mut self.free_k {
            None => self.free_zmm |= 1 << r,
            Some(free) => *free |= 1 << r,
        }
    }
}

/// The kernel's constants, each stored once, addressed from the table's
/// start: 32-bit patterns (each repeated across a vector at
/// [`Width::Ymm`], whose instructions read whole vectors) and blocks.
pub struct ConstPool {
    values: Vec<u32>,
    repeat: usize,
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
        }
    }

    /// The byte offset of `bits` in the table (added if new).
    pub fn offset(&mut self, bits: u32) -> i32 {
        self.block(&vec![bits; self.repeat])
    }

    /// The byte offset of `block` (whole, in order) in the table (added if
    /// new), on a multiple of the block's own length.
    pub fn block(&mut self, block: &[u32]) -> i32 {
        let n = block.len();
        let found = (0..self.values.len() / n.max(1))
            .map(|k| k * n)
            .find(|&at| self.values[at..at + n] == *block);
        let at = found.unwrap_or_else(|| {
            while !self.values.len().is_multiple_of(n.max(1)) {
                self.values.push(0);
            }
            self.values.extend_from_slice(block);
            self.values.len() - n
        });
        4 * at as i32
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

impl LaneOps for Func {
    type V = Operand;
    type M = MReg;

    fn is_f32(&self) -> bool {
        true
    }

    fn add(&mut self, a: Operand, b: Operand) -> Operand {
        self.commutative(ops::VADDPS, a, b)
    }

    fn sub(&mut self, a: Operand, b: Operand) -> Operand {
        self.op(ops::VSUBPS, a, b)
    }

    fn mul_c(&mut self, a: Operand, c: f64) -> Operand {
        let c = self.c(c);
        self.op(ops::VMULPS, a, c)
    }

    fn isub(&mut self, a: Operand, b: Operand) -> Operand {
        self.op(ops::VPSUBD, a, b)
    }

    fn sshr(&mut self, a: Operand, n: i64) -> Operand {
        self.shift(true, a, n as u8)
    }

    fn default_nan(&mut self) -> Operand {
        Operand::Const(0xFFC0_0000)
    }

    fn int_to_float(&mut self, k: Operand) -> Operand {
        // As Lanes::int_to_float: k + bits(magic) reinterpreted, minus magic.
        let t = self.iadd_c(k, 0x4b40_0000);
        let m = self.c(12582912.0);
        self.op(ops::VSUBPS, t, m)
    }

    fn fast_two_sum(&mut self, a: Operand, b: Operand) -> (Operand, Operand) {
        let s = LaneOps::add(self, a, b);
        let d = self.op(ops::VSUBPS, a, s);
        (s, LaneOps::add(self, d, b))
    }

    fn c(&mut self, v: f64) -> Operand {
        Operand::Const((v as f32).to_bits())
    }

    fn abs(&mut self, a: Operand) -> Operand {
        self.op(ops::VPANDD, a, Operand::Const(!SIGN))
    }

    fn add_c(&mut self, a: Operand, c: f64) -> Operand {
        let c = self.c(c);
        self.op(ops::VADDPS, a, c)
    }

    fn bits(&mut self, x: Operand) -> Operand {
        x
    }

    fn float_bits(&mut self, i: Operand) -> Operand {
        i
    }

    fn cmp(&mut self, cc: FloatCC, a: Operand, b: Operand) -> MReg {
        self.cmp_pred(cmp_predicate(cc), a, b)
    }

    fn cmp_c(&mut self, cc: FloatCC, a: Operand, c: f64) -> MReg {
        let c = self.c(c);
        self.cmp(cc, a, c)
    }

    fn select(&mut self, mask: MReg, a: Operand, b: Operand) -> Operand {
        self.blend(mask, a, b)
    }

    fn div(&mut self, a: Operand, b: Operand) -> Operand {
        self.op(ops::VDIVPS, a, b)
    }

    fn fma(&mut self, a: Operand, b: Operand, c: Operand) -> Operand {
        Func::fma(self, a, b, c)
    }

    fn fma_c(&mut self, a: Operand, c: f64, d: Operand) -> Operand {
        let c = self.c(c);
        Func::fma(self, a, c, d)
    }

    fn iadd(&mut self, a: Operand, b: Operand) -> Operand {
        self.commutative(ops::VPADDD, a, b)
    }

    fn iadd_c(&mut self, a: Operand, c: i64) -> Operand {
        self.op(ops::VPADDD, a, Operand::Const(c as u32))
    }

    fn mul(&mut self, a: Operand, b: Operand) -> Operand {
        self.commutative(ops::VMULPS, a, b)
    }

    fn or(&mut self, a: Operand, b: Operand) -> Operand {
        self.commutative(ops::VPORD, a, b)
    }

    fn poly(&mut self, t: Operand, coeffs: &[f64]) -> Operand {
        let (&last, rest) = coeffs.split_last().expect("a polynomial has coefficients");
        let mut acc = self.c(last);
        for &ck in rest.iter().rev() {
            let ck = self.c(ck);
            acc = Func::fma(self, acc, t, ck);
        }
        acc
    }

    fn shl(&mut self, a: Operand, n: i64) -> Operand {
        self.shift(false, a, n as u8)
    }

    fn sign_bit(&mut self, x: Operand) -> Operand {
        self.op(ops::VPANDD, x, Operand::Const(SIGN))
    }

    fn round_mul(&mut self, x: Operand, c: f64) -> (Operand, Operand) {
        let magic = 12582912.0;
        let (cv, m) = (self.c(c), self.c(magic));
        let t = Func::fma(self, x, cv, m);
        let n = self.op(ops::VSUBPS, t, m);
        (n, t)
    }

    fn mant_bits(&self) -> i64 {
        23
    }

    fn neg(&mut self, a: Operand) -> Operand {
        self.op(ops::VPXORD, a, Operand::Const(SIGN))
    }

    fn xor(&mut self, a: Operand, b: Operand) -> Operand {
        self.commutative(ops::VPXORD, a, b)
    }

    fn iand_c(&mut self, a: Operand, c: i64) -> Operand {
        self.op(ops::VPANDD, a, Operand::Const(c as u32))
    }

    fn negative(&mut self, a: Operand) -> MReg {
        Func::negative(self, a)
    }

    fn lanes_call(&mut self, f: LanesFn, x: Operand, plain: Operand) -> Operand {
        let (x, plain) = (self.reg(x), self.reg(plain));
        let dst = self.vreg();
        self.insts.push(Inst::CallLanes { dst, x, plain, f });
        Operand::Reg(dst)
    }

    fn rare_branch(
        &mut self,
        special: Operand,
        plain: Operand,
        slow: impl FnOnce(&mut Self, Operand) -> Operand,
    ) -> Operand {
        let mask = self.negative(special);
        let src = self.reg(plain);
        let result = self.vreg();
        self.insts.push(Inst::Copy { dst: result, src });
        self.insts.push(Inst::SkipUnless { mask });
        let patched = slow(self, plain);
        let patched = self.reg(patched);
        self.insts.push(Inst::Copy {
            dst: result,
            src: patched,
        });
        self.insts.push(Inst::SkipEnd);
        Operand::Reg(result)
    }
}

#[cfg(test)]
mod tests {
    use super::super::asm::gpr::*;
    use super::*;

    fn frame() -> Frame<'static> {
        Frame {
            buffers: &[R8, R9],
            index: RSI,
            consts: RAX,
            masked: false,
            slots: 0,
            width: Width::Zmm,
        }
    }

    fn listing(f: &Func) -> String {
        let mut asm = Asm::default();
        f.lower(&mut asm, &frame(), &mut ConstPool::new(Width::Zmm))
            .unwrap();
        crate::disasm::listing(&asm.finish())
    }

    /// Registers are reused once their value dies, and an FMA whose first
    /// factor dies computes in its register.
    #[test]
    fn registers_are_reused_and_fma_overwrites_a_dying_source() {
        let mut f = Func::default();
        let x = f.load(0, 0);
        let sq = f.mul(x, x);
        let p = Func::fma(&mut f, sq, x, Operand::Const(1.0f32.to_bits()));
        f.store(p, 1, 0);
        assert_eq!(
            listing(&f),
            "     0:  vmovups (%r8,%rsi,4),%zmm0\n     7:  vmulps  %zmm0,%zmm0,%zmm1\n     \
             d:  vfmadd213ps (%rax){1to16},%zmm0,%zmm1\n    13:  vmovups %zmm1,(%r9,%rsi,4)\n"
        );
    }

    /// An FMA whose sources all stay live computes into a copy.
    #[test]
    fn fma_of_live_sources_copies_first() {
        let mut f = Func::default();
        let x = f.load(0, 0);
        let y = f.load(0, 1);
        let p = Func::fma(&mut f, x, y, x);
        let s = f.op(ops::VADDPS, p, x);
        let s = f.op(ops::VADDPS, s, y);
        f.store(s, 1, 0);
        let text = listing(&f);
        assert!(
            text.contains("vmovaps %zmm0,%zmm2\n    15:  vfmadd213ps %zmm0,%zmm1,%zmm2"),
            "{text}"
        );
    }

    /// Too many live values are an error, not a miscompile.
    #[test]
    fn running_out_of_registers_is_reported() {
        let mut f = Func::default();
        let xs: Vec<Operand> = (0..33).map(|i| f.load(0, i)).collect();
        let mut acc = xs[0];
        for &x in &xs[1..] {
            acc = f.op(ops::VADDPS, acc, x);
        }
        f.store(acc, 1, 0);
        let mut asm = Asm::default();
        assert_eq!(
            f.lower(&mut asm, &frame(), &mut ConstPool::new(Width::Zmm)),
            Err(LowerError::OutOfRegisters)
        );
    }
}
