//! Register allocation: [`Func::lower`] scans the body once, giving each
//! value a register when it is defined and taking it back after its last
//! use, and emits each instruction as it goes.

use super::{
    ConstPool, Frame, Func, Inst, LowerError, MReg, Operand, VReg, Val, TAIL_MASK, YMM_SCRATCH,
    YMM_TAIL,
};
use crate::wide::asm::{Asm, Kreg, Label, Zmm};
use crate::wide::Width;

impl Func {
    /// Allocates registers and appends the machine code to `asm`.
    pub fn lower(
        &self,
        asm: &mut Asm,
        frame: &Frame,
        consts: &mut ConstPool,
    ) -> Result<(), LowerError> {
        let live = self.live();
        let emitted = || (self.insts.iter().enumerate()).filter(|&(i, _)| live[i]);
        let mut last_use = vec![usize::MAX; self.vregs as usize];
        let mut last_mask_use = vec![usize::MAX; self.mregs as usize];
        for (i, inst) in emitted() {
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
        for (i, inst) in emitted() {
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
}

fn reg_of(o: &Operand) -> Option<VReg> {
    match o {
        Operand::Reg(r) => Some(*r),
        _ => None,
    }
}

/// The registers of a [`Func`]'s values during the scan. Masks take
/// opmask registers (`free_k`), or, without them, vector registers.
pub(super) struct Allocation {
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

    pub(super) fn z(&self, v: VReg) -> Zmm {
        self.zmm[v.0 as usize].expect("a value is defined before it is used")
    }

    pub(super) fn kr(&self, m: MReg) -> Kreg {
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
