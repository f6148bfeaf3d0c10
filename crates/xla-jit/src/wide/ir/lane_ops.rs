//! [`Func`] as [`LaneOps`]: the math library's operations, each one or a
//! few instructions, so the native kernels compute the same functions as
//! the 128-bit ones.

use cranelift_codegen::ir::condcodes::FloatCC;

use super::{cmp_predicate, Func, Inst, MReg, Operand, SIGN};
use crate::math::{LaneOps, LanesFn};
use crate::wide::asm::ops;

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

    fn and(&mut self, a: Operand, b: Operand) -> Operand {
        self.commutative(ops::VPANDD, a, b)
    }

    fn c_bits(&mut self, bits: i64) -> Operand {
        Operand::Const(bits as u32)
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
