//! `Lanes`: the emission context of the math library. It wraps the
//! `FunctionBuilder` with the value type being computed (`f32x4` or `f64x2`)
//! and offers the few dozen operations the algorithms are written in, each
//! chosen to lower to one or two SSE/AVX instructions.

use cranelift_codegen::ir::condcodes::{FloatCC, IntCC};
use cranelift_codegen::ir::{
    types, AbiParam, Endianness, InstBuilder, MemFlagsData, Signature, StackSlotData,
    StackSlotKind, Type, Value,
};
use cranelift_frontend::FunctionBuilder;

use crate::clif::ConstTable;

/// The emission context: a builder and the vector type every value of the
/// algorithm has (`f32x4` or `f64x2`; integer views use `i32x4`/`i64x2`).
pub(super) struct Lanes<'a, 'f> {
    /// The function being built.
    pub b: &'a mut FunctionBuilder<'f>,
    /// Where the constants of the algorithm are read from.
    pub consts: &'a mut ConstTable,
    /// `F32X4` or `F64X2`.
    pub ty: Type,
}

/// Flags for lane-type-changing bitcasts (required for vectors; the lanes'
/// byte order is the host's, little-endian).
pub(super) fn bitcast_flags() -> MemFlagsData {
    MemFlagsData::new().with_endianness(Endianness::Little)
}

impl<'a, 'f> Lanes<'a, 'f> {
    /// A context computing in `ty` (`F32X4` or `F64X2`).
    pub fn new(b: &'a mut FunctionBuilder<'f>, consts: &'a mut ConstTable, ty: Type) -> Self {
        debug_assert!(ty == types::F32X4 || ty == types::F64X2, "math lanes: {ty}");
        Lanes { b, consts, ty }
    }

    /// A context on the same function computing in `ty`.
    pub fn with_type(&mut self, ty: Type) -> Lanes<'_, 'f> {
        Lanes::new(&mut *self.b, &mut *self.consts, ty)
    }

    /// `true` for `f32x4`.
    pub fn is_f32(&self) -> bool {
        self.ty == types::F32X4
    }

    /// The integer vector type of the same lane width (`i32x4` or `i64x2`).
    pub fn int_ty(&self) -> Type {
        self.ty.as_int()
    }

    /// Mantissa bits of the lane type (23 or 52).
    pub fn mant_bits(&self) -> i64 {
        if self.is_f32() {
            23
        } else {
            52
        }
    }

    /// Exponent bias of the lane type (127 or 1023).
    pub fn bias(&self) -> i64 {
        if self.is_f32() {
            127
        } else {
            1023
        }
    }

    /// Picks the f32 or the f64 variant of a constant or coefficient table.
    pub fn pick<T>(&self, f32: T, f64: T) -> T {
        if self.is_f32() {
            f32
        } else {
            f64
        }
    }

    // === constants ===

    /// A vector constant, read as a memory operand by the instruction that
    /// uses it (see [`ConstTable`]).
    fn vconst(&mut self, ty: Type, bytes: Vec<u8>) -> Value {
        let bytes: [u8; 16] = bytes.try_into().expect("a vector constant has 16 bytes");
        self.consts.load(self.b, ty, bytes)
    }

    /// `v` (rounded to the lane type) in every lane.
    pub fn c(&mut self, v: f64) -> Value {
        let bytes: Vec<u8> = if self.is_f32() {
            (0..4).flat_map(|_| (v as f32).to_le_bytes()).collect()
        } else {
            (0..2).flat_map(|_| v.to_le_bytes()).collect()
        };
        self.vconst(self.ty, bytes)
    }

    /// The NaN that x86 produces for an invalid operation (`0/0`,
    /// `sqrt(-1)`: sign set, quiet, no payload), which the interpreter and
    /// XLA:CPU give for the domain errors of the math functions too.
    pub fn default_nan(&mut self) -> Value {
        let bits = self.pick(0xFFC0_0000, 0xFFF8_0000_0000_0000_u64 as i64);
        self.ci_as_float(bits)
    }

    /// The integer `v` (truncated to the lane width) in every lane of the
    /// integer view.
    pub fn ci(&mut self, v: i64) -> Value {
        let bytes = self.int_lanes(v);
        self.vconst(self.int_ty(), bytes)
    }

    /// The bit pattern of [`Lanes::ci`] typed as the float lanes, for
    /// bitwise operations on floats.
    pub fn ci_as_float(&mut self, v: i64) -> Value {
        let bytes = self.int_lanes(v);
        self.vconst(self.ty, bytes)
    }

    fn int_lanes(&self, v: i64) -> Vec<u8> {
        if self.is_f32() {
            (0..4).flat_map(|_| (v as i32).to_le_bytes()).collect()
        } else {
            (0..2).flat_map(|_| v.to_le_bytes()).collect()
        }
    }

    // === float arithmetic ===

    pub fn add(&mut self, a: Value, b: Value) -> Value {
        self.b.ins().fadd(a, b)
    }

    pub fn sub(&mut self, a: Value, b: Value) -> Value {
        self.b.ins().fsub(a, b)
    }

    pub fn mul(&mut self, a: Value, b: Value) -> Value {
        self.b.ins().fmul(a, b)
    }

    pub fn div(&mut self, a: Value, b: Value) -> Value {
        self.b.ins().fdiv(a, b)
    }

    /// `a * b + c` with one rounding.
    pub fn fma(&mut self, a: Value, b: Value, c: Value) -> Value {
        self.b.ins().fma(a, b, c)
    }

    pub fn neg(&mut self, a: Value) -> Value {
        self.b.ins().fneg(a)
    }

    /// `|a|`: the sign bit cleared by an `and` with a constant mask (one
    /// instruction; Cranelift's `fabs` builds the mask in a register first).
    pub fn abs(&mut self, a: Value) -> Value {
        let mask = self.ci_as_float(self.pick(i32::MAX.into(), i64::MAX));
        self.b.ins().band(a, mask)
    }

    pub fn sqrt(&mut self, a: Value) -> Value {
        self.b.ins().sqrt(a)
    }

    /// `a + c` for a constant `c`.
    pub fn add_c(&mut self, a: Value, c: f64) -> Value {
        let c = self.c(c);
        self.add(a, c)
    }

    /// `a * c` for a constant `c`.
    pub fn mul_c(&mut self, a: Value, c: f64) -> Value {
        let c = self.c(c);
        self.mul(a, c)
    }

    /// `a * c + d` for constants `c`, `d`.
    pub fn fma_cc(&mut self, a: Value, c: f64, d: f64) -> Value {
        let (c, d) = (self.c(c), self.c(d));
        self.fma(a, c, d)
    }

    /// `a * c + d` for a constant `c`.
    pub fn fma_c(&mut self, a: Value, c: f64, d: Value) -> Value {
        let c = self.c(c);
        self.fma(a, c, d)
    }

    /// `sum coeffs[k] * t^k` by Horner's rule (FMA at every step).
    pub fn poly(&mut self, t: Value, coeffs: &[f64]) -> Value {
        let (&last, rest) = coeffs.split_last().expect("a polynomial has coefficients");
        let mut acc = self.c(last);
        for &ck in rest.iter().rev() {
            let ck = self.c(ck);
            acc = self.fma(acc, t, ck);
        }
        acc
    }

    // === comparisons and selection ===

    /// Lane mask (all ones where `a cc b` holds) in the integer view.
    pub fn cmp(&mut self, cc: FloatCC, a: Value, b: Value) -> Value {
        self.b.ins().fcmp(cc, a, b)
    }

    /// Lane mask of `a cc c` for a constant `c`.
    pub fn cmp_c(&mut self, cc: FloatCC, a: Value, c: f64) -> Value {
        let c = self.c(c);
        self.cmp(cc, a, c)
    }

    /// Lane mask of an integer comparison.
    pub fn icmp(&mut self, cc: IntCC, a: Value, b: Value) -> Value {
        self.b.ins().icmp(cc, a, b)
    }

    /// Per lane: `mask ? a : b` (a blend; `mask` lanes are all ones or zeros).
    pub fn select(&mut self, mask: Value, a: Value, b: Value) -> Value {
        let ty = self.b.func.dfg.value_type(a);
        let mask = if self.b.func.dfg.value_type(mask) == ty {
            mask
        } else {
            self.b.ins().bitcast(ty, bitcast_flags(), mask)
        };
        self.b.ins().bitselect(mask, a, b)
    }

    /// `fast` when no lane of `mask` has its sign bit set, else `slow`,
    /// emitted in a block that a branch enters only then. For special
    /// inputs (NaN, overflow, tiny arguments) that are rare in real data:
    /// the common path skips the compares and blends that fix them up, and
    /// the branch predicts. `mask` is a compare's result (all-ones lanes)
    /// or any vector whose sign bits mark lanes: the test is one `movmskps`
    /// (`movmskpd`), a single port-0 instruction where a `ptest` of the
    /// mask would take two and building an all-ones mask a compare.
    ///
    /// `slow` receives `fast` through a block parameter, so that it can
    /// patch the lanes that need it instead of computing the function
    /// again. Cranelift's lowering marks every value that a multiply-used
    /// value depends on as multiply used, and then folds none of their
    /// constant loads into the instructions that read them (see
    /// `ConstTable`); a block parameter ends that chain. It must be one
    /// with two different incoming values, or Cranelift replaces it with
    /// the value: the patched value comes back to the test block, whose
    /// flag then says no patch is pending. Cranelift sees that as a loop,
    /// so the rare block loads the constants' address itself
    /// ([`ConstTable::enter_loop`]), or their loads would be hoisted onto
    /// the common path.
    pub fn rare_branch(
        &mut self,
        mask: Value,
        fast: Value,
        slow: impl FnOnce(&mut Self, Value) -> Value,
    ) -> Value {
        let ty = self.b.func.dfg.value_type(fast);
        let signs = self.b.ins().vhigh_bits(types::I8, mask);
        let (check, rare, done) = (
            self.b.create_block(),
            self.b.create_block(),
            self.b.create_block(),
        );
        let value = self.b.append_block_param(check, ty);
        let pending = self.b.append_block_param(check, types::I8);
        self.b.ins().jump(check, &[fast.into(), signs.into()]);
        self.b.switch_to_block(check);
        self.b.ins().brif(pending, rare, &[], done, &[]);
        self.b.switch_to_block(rare);
        self.b.seal_block(rare);
        self.b.set_cold_block(rare);
        // The constants' address is loaded at the top of the block, which
        // must be in the layout by then.
        self.b.ensure_inserted_block();
        self.consts.enter_loop(rare, 0);
        let patched = slow(self, value);
        self.consts.leave_loop();
        let none = self.b.ins().iconst(types::I8, 0);
        self.b.ins().jump(check, &[patched.into(), none.into()]);
        self.b.seal_block(check);
        self.b.switch_to_block(done);
        self.b.seal_block(done);
        value
    }

    /// `min(x, c)` for a constant `c`, returning `x` when `x` is NaN (one
    /// `minps`/`minpd`: the instruction returns its second operand when
    /// unordered).
    pub fn min_c(&mut self, x: Value, c: f64) -> Value {
        let c = self.c(c);
        let lt = self.cmp(FloatCC::LessThan, c, x);
        self.select(lt, c, x)
    }

    /// `max(x, c)` for a constant `c`, returning `x` when `x` is NaN.
    pub fn max_c(&mut self, x: Value, c: f64) -> Value {
        let c = self.c(c);
        let lt = self.cmp(FloatCC::LessThan, x, c);
        self.select(lt, c, x)
    }

    /// Lane-wise and of two masks.
    pub fn and(&mut self, a: Value, b: Value) -> Value {
        self.b.ins().band(a, b)
    }

    /// Lane-wise or of two masks (or of bit patterns).
    pub fn or(&mut self, a: Value, b: Value) -> Value {
        self.b.ins().bor(a, b)
    }

    /// Lane-wise xor (masks, integer views or float bit patterns).
    pub fn xor(&mut self, a: Value, b: Value) -> Value {
        self.b.ins().bxor(a, b)
    }

    /// `mag` with the sign bit of `sign` or-ed in (`mag` must be non-negative).
    pub fn or_sign(&mut self, mag: Value, sign: Value) -> Value {
        let s = self.sign_bit(sign);
        self.b.ins().bor(mag, s)
    }

    /// The sign bit of `x` alone (`-0.0` or `+0.0`).
    pub fn sign_bit(&mut self, x: Value) -> Value {
        let m = self.c(-0.0);
        self.b.ins().band(x, m)
    }

    // === bit patterns and integer views ===

    /// The bit pattern of each lane as an integer.
    pub fn bits(&mut self, x: Value) -> Value {
        let ty = self.int_ty();
        self.b.ins().bitcast(ty, bitcast_flags(), x)
    }

    /// The float with the bit pattern `i`.
    pub fn float_bits(&mut self, i: Value) -> Value {
        self.b.ins().bitcast(self.ty, bitcast_flags(), i)
    }

    pub fn iadd(&mut self, a: Value, b: Value) -> Value {
        self.b.ins().iadd(a, b)
    }

    pub fn isub(&mut self, a: Value, b: Value) -> Value {
        self.b.ins().isub(a, b)
    }

    /// `a + c` on the integer view, for a constant `c`.
    pub fn iadd_c(&mut self, a: Value, c: i64) -> Value {
        let c = self.ci(c);
        self.iadd(a, c)
    }

    pub fn shl(&mut self, a: Value, n: i64) -> Value {
        self.b.ins().ishl_imm_u(a, n)
    }

    /// Arithmetic shift right.
    pub fn sshr(&mut self, a: Value, n: i64) -> Value {
        self.b.ins().sshr_imm_u(a, n)
    }

    /// `a & c` on the integer view, for a constant `c`.
    pub fn iand_c(&mut self, a: Value, c: i64) -> Value {
        let c = self.ci(c);
        self.b.ins().band(a, c)
    }

    // === rounding to integers and powers of two ===

    /// `1.5 * 2^mant_bits`: adding it to `|v| < 2^(mant_bits - 1)` rounds `v`
    /// to an integer `n` (ties to even) and leaves `bits(magic) + n` in the
    /// integer view.
    pub fn magic(&self) -> f64 {
        self.pick(12582912.0, 6755399441055744.0)
    }

    /// `(n, i)` with `n = round(x * c)` as a float and `i = bits(t)` where
    /// `t = x * c + magic`: the low bits of `i` hold `n` in two's complement
    /// (so `i << mant_bits == n << mant_bits`). Requires `|x * c| < 2^22`.
    pub fn round_mul(&mut self, x: Value, c: f64) -> (Value, Value) {
        let magic = self.magic();
        let t = self.fma_cc(x, c, magic);
        let m = self.c(magic);
        let n = self.sub(t, m);
        (n, self.bits(t))
    }

    /// The integer value of lanes produced by [`Lanes::round_mul`].
    pub fn round_int(&mut self, i: Value) -> Value {
        let magic_bits = self.magic_bits();
        self.iadd_c(i, -magic_bits)
    }

    fn magic_bits(&self) -> i64 {
        self.pick(0x4b40_0000, 0x4338_0000_0000_0000)
    }

    /// The float value of small integer lanes `|k| < 2^22` (exact).
    pub fn int_to_float(&mut self, k: Value) -> Value {
        let magic_bits = self.magic_bits();
        let t = self.iadd_c(k, magic_bits);
        let t = self.float_bits(t);
        let m = self.c(self.magic());
        self.sub(t, m)
    }

    /// `2^k` for integer lanes `k` in the normal exponent range.
    pub fn pow2(&mut self, k: Value) -> Value {
        let bias = self.bias();
        let e = self.iadd_c(k, bias);
        let e = self.shl(e, self.mant_bits());
        self.float_bits(e)
    }

    /// `p * 2^n` for `p` in `[0.5, 2)` and integer lanes `n` in
    /// `[-2 * bias - mant_bits, 2 * bias + 2]`, with one rounding: the scale
    /// is applied in two halves so that neither half leaves the normal
    /// range, and the second multiplication rounds a subnormal result once.
    /// (Multiplications, not exponent arithmetic on `p`'s bits, so that a
    /// NaN `p` stays NaN.)
    pub fn ldexp(&mut self, p: Value, n: Value) -> Value {
        let n1 = self.sshr(n, 1);
        let n2 = self.isub(n, n1);
        let s1 = self.pow2(n1);
        let s2 = self.pow2(n2);
        let p1 = self.mul(p, s1);
        self.mul(p1, s2)
    }

    // === error-free transformations ===

    /// `(s, e)` with `s = a + b` rounded and `s + e == a + b` exactly
    /// (Knuth's TwoSum; no condition on the magnitudes).
    pub fn two_sum(&mut self, a: Value, b: Value) -> (Value, Value) {
        let s = self.add(a, b);
        let bb = self.sub(s, a);
        let ab = self.sub(s, bb);
        let eb = self.sub(b, bb);
        let ea = self.sub(a, ab);
        (s, self.add(ea, eb))
    }

    /// `(s, e)` with `s + e == a + b` exactly, when `|a| >= |b|` or `a == 0`
    /// (Dekker's Fast2Sum).
    pub fn fast_two_sum(&mut self, a: Value, b: Value) -> (Value, Value) {
        let s = self.add(a, b);
        let d = self.sub(a, s);
        (s, self.add(d, b))
    }

    /// `(p, e)` with `p = a * b` rounded and `p + e == a * b` exactly.
    pub fn two_prod(&mut self, a: Value, b: Value) -> (Value, Value) {
        let p = self.mul(a, b);
        let np = self.neg(p);
        (p, self.fma(a, b, np))
    }
}

/// The lane operations the generic math functions (the fast forms, `log`)
/// are written in. [`Lanes`] implements them on Cranelift's `f32x4` and
/// `f64x2` values and the AVX-512 kernels (`crate::wide`) on `f32x16`
/// registers, so that both widths compute every function with the same
/// operations, to the same bits. See [`Lanes`] for each one's meaning.
pub(crate) trait LaneOps {
    /// A vector of float lanes, or of their bit patterns.
    type V: Copy;
    /// A per-lane truth value (a comparison's result).
    type M: Copy;
    /// `true` for f32 lanes.
    fn is_f32(&self) -> bool;
    /// The f32 or the f64 variant of a constant or coefficient table.
    fn pick<T>(&self, f32: T, f64: T) -> T {
        if self.is_f32() {
            f32
        } else {
            f64
        }
    }
    /// `a + b`.
    fn add(&mut self, a: Self::V, b: Self::V) -> Self::V;
    /// `a - b`.
    fn sub(&mut self, a: Self::V, b: Self::V) -> Self::V;
    /// `a * c`.
    fn mul_c(&mut self, a: Self::V, c: f64) -> Self::V;
    /// `a - b` on the integer view.
    fn isub(&mut self, a: Self::V, b: Self::V) -> Self::V;
    /// `a >> n` (arithmetic) on the integer view.
    fn sshr(&mut self, a: Self::V, n: i64) -> Self::V;
    /// x86's NaN for invalid operations.
    fn default_nan(&mut self) -> Self::V;
    /// The float value of small integer lanes.
    fn int_to_float(&mut self, k: Self::V) -> Self::V;
    /// `(s, e)` with `s + e == a + b` exactly, when `|a| >= |b|`.
    fn fast_two_sum(&mut self, a: Self::V, b: Self::V) -> (Self::V, Self::V);
    /// `v` rounded to f32 in every lane.
    fn c(&mut self, v: f64) -> Self::V;
    /// `|a|` (the sign bit cleared).
    fn abs(&mut self, a: Self::V) -> Self::V;
    /// `a + c`.
    fn add_c(&mut self, a: Self::V, c: f64) -> Self::V;
    /// The bit patterns of `x` as integers.
    fn bits(&mut self, x: Self::V) -> Self::V;
    /// The floats with the bit patterns `i`.
    fn float_bits(&mut self, i: Self::V) -> Self::V;
    /// `a cc b` per lane.
    fn cmp(&mut self, cc: FloatCC, a: Self::V, b: Self::V) -> Self::M;
    /// `a cc c` per lane.
    fn cmp_c(&mut self, cc: FloatCC, a: Self::V, c: f64) -> Self::M;
    /// `mask ? a : b` per lane.
    fn select(&mut self, mask: Self::M, a: Self::V, b: Self::V) -> Self::V;
    /// `a / b`.
    fn div(&mut self, a: Self::V, b: Self::V) -> Self::V;
    /// `a * b + c` with one rounding.
    fn fma(&mut self, a: Self::V, b: Self::V, c: Self::V) -> Self::V;
    /// `a * c + d` with one rounding.
    fn fma_c(&mut self, a: Self::V, c: f64, d: Self::V) -> Self::V;
    /// `a + b` on the integer view.
    fn iadd(&mut self, a: Self::V, b: Self::V) -> Self::V;
    /// `a + c` on the integer view.
    fn iadd_c(&mut self, a: Self::V, c: i64) -> Self::V;
    /// `a * b`.
    fn mul(&mut self, a: Self::V, b: Self::V) -> Self::V;
    /// `a | b` on bit patterns.
    fn or(&mut self, a: Self::V, b: Self::V) -> Self::V;
    /// `sum coeffs[k] * t^k` by Horner's rule, an FMA per step.
    fn poly(&mut self, t: Self::V, coeffs: &[f64]) -> Self::V;
    /// `a << n` on the integer view.
    fn shl(&mut self, a: Self::V, n: i64) -> Self::V;
    /// The sign bit of `x` alone.
    fn sign_bit(&mut self, x: Self::V) -> Self::V;
    /// `(n, bits(t))` for `t = x * c + 1.5 * 2^23` and `n = t - 1.5 * 2^23`,
    /// `round(x * c)` (see [`Lanes::round_mul`]).
    fn round_mul(&mut self, x: Self::V, c: f64) -> (Self::V, Self::V);
    /// Mantissa bits of the lane type (23 or 52).
    fn mant_bits(&self) -> i64;
    /// `plain`, or `slow(plain)` when some lane of `special` has its sign
    /// bit set, computed behind a branch taken only then (see
    /// [`Lanes::rare_branch`]).
    fn rare_branch(
        &mut self,
        special: Self::V,
        plain: Self::V,
        slow: impl FnOnce(&mut Self, Self::V) -> Self::V,
    ) -> Self::V;
    /// `-a`.
    fn neg(&mut self, a: Self::V) -> Self::V;
    /// `a ^ b` on bit patterns.
    fn xor(&mut self, a: Self::V, b: Self::V) -> Self::V;
    /// `a & b` on bit patterns.
    fn and(&mut self, a: Self::V, b: Self::V) -> Self::V;
    /// The float lanes whose bit pattern is `bits` (truncated to the lane
    /// width), for bitwise operations on floats.
    fn c_bits(&mut self, bits: i64) -> Self::V;
    /// `a & c` on the integer view.
    fn iand_c(&mut self, a: Self::V, c: i64) -> Self::V;
    /// The lanes whose sign bit is set.
    fn negative(&mut self, a: Self::V) -> Self::M;
    /// `plain` with lanes replaced by `f`'s: `f(x, out, lanes)` gets the
    /// vector `x` and `plain` (in `out`, which it may rewrite) in memory.
    /// Code that calls it is only valid in this process.
    fn lanes_call(&mut self, f: LanesFn, x: Self::V, plain: Self::V) -> Self::V;
    /// `(p, e)` with `p = a * b` rounded and `p + e == a * b` exactly.
    fn two_prod(&mut self, a: Self::V, b: Self::V) -> (Self::V, Self::V) {
        let p = self.mul(a, b);
        let np = LaneOps::neg(self, p);
        (p, self.fma(a, b, np))
    }
    /// `(q, q_lo)` with `q + q_lo ~ (nh + nl) / (dh + dl)` to about twice the
    /// working precision (`dh + dl` a normalized double-word): `q = nh / dh`
    /// through a reciprocal, then the residual `n - q d` (exact by FMA)
    /// divided by `d`.
    fn div_dd(
        &mut self,
        nh: Self::V,
        nl: Option<Self::V>,
        dh: Self::V,
        dl: Self::V,
    ) -> (Self::V, Self::V) {
        let one = self.c(1.0);
        let r = self.div(one, dh);
        let q = self.mul(nh, r);
        let nq = LaneOps::neg(self, q);
        let mut res = self.fma(nq, dh, nh);
        if let Some(nl) = nl {
            res = self.add(res, nl);
        }
        let res = self.fma(nq, dl, res);
        (q, self.mul(res, r))
    }
}

/// A function [`LaneOps::lanes_call`] calls: `(x, out, lanes)`, both
/// arrays of `lanes` f32.
pub(crate) type LanesFn = extern "C" fn(*const f32, *mut f32, usize);

impl LaneOps for Lanes<'_, '_> {
    type V = Value;
    type M = Value;

    fn is_f32(&self) -> bool {
        Lanes::is_f32(self)
    }
    fn add(&mut self, a: Value, b: Value) -> Value {
        Lanes::add(self, a, b)
    }
    fn sub(&mut self, a: Value, b: Value) -> Value {
        Lanes::sub(self, a, b)
    }
    fn mul_c(&mut self, a: Value, c: f64) -> Value {
        Lanes::mul_c(self, a, c)
    }
    fn isub(&mut self, a: Value, b: Value) -> Value {
        Lanes::isub(self, a, b)
    }
    fn sshr(&mut self, a: Value, n: i64) -> Value {
        Lanes::sshr(self, a, n)
    }
    fn default_nan(&mut self) -> Value {
        Lanes::default_nan(self)
    }
    fn int_to_float(&mut self, k: Value) -> Value {
        Lanes::int_to_float(self, k)
    }
    fn fast_two_sum(&mut self, a: Value, b: Value) -> (Value, Value) {
        Lanes::fast_two_sum(self, a, b)
    }

    fn c(&mut self, v: f64) -> Value {
        Lanes::c(self, v)
    }
    fn abs(&mut self, a: Value) -> Value {
        Lanes::abs(self, a)
    }
    fn add_c(&mut self, a: Value, c: f64) -> Value {
        Lanes::add_c(self, a, c)
    }
    fn bits(&mut self, x: Value) -> Value {
        Lanes::bits(self, x)
    }
    fn float_bits(&mut self, i: Value) -> Value {
        Lanes::float_bits(self, i)
    }
    fn cmp(&mut self, cc: FloatCC, a: Value, b: Value) -> Value {
        Lanes::cmp(self, cc, a, b)
    }
    fn cmp_c(&mut self, cc: FloatCC, a: Value, c: f64) -> Value {
        Lanes::cmp_c(self, cc, a, c)
    }
    fn select(&mut self, mask: Value, a: Value, b: Value) -> Value {
        Lanes::select(self, mask, a, b)
    }
    fn div(&mut self, a: Value, b: Value) -> Value {
        Lanes::div(self, a, b)
    }
    fn fma(&mut self, a: Value, b: Value, c: Value) -> Value {
        Lanes::fma(self, a, b, c)
    }
    fn fma_c(&mut self, a: Value, c: f64, d: Value) -> Value {
        Lanes::fma_c(self, a, c, d)
    }
    fn iadd(&mut self, a: Value, b: Value) -> Value {
        Lanes::iadd(self, a, b)
    }
    fn iadd_c(&mut self, a: Value, c: i64) -> Value {
        Lanes::iadd_c(self, a, c)
    }
    fn mul(&mut self, a: Value, b: Value) -> Value {
        Lanes::mul(self, a, b)
    }
    fn or(&mut self, a: Value, b: Value) -> Value {
        Lanes::or(self, a, b)
    }
    fn poly(&mut self, t: Value, coeffs: &[f64]) -> Value {
        Lanes::poly(self, t, coeffs)
    }
    fn shl(&mut self, a: Value, n: i64) -> Value {
        Lanes::shl(self, a, n)
    }
    fn sign_bit(&mut self, x: Value) -> Value {
        Lanes::sign_bit(self, x)
    }
    fn round_mul(&mut self, x: Value, c: f64) -> (Value, Value) {
        Lanes::round_mul(self, x, c)
    }
    fn mant_bits(&self) -> i64 {
        Lanes::mant_bits(self)
    }
    fn rare_branch(
        &mut self,
        special: Value,
        plain: Value,
        slow: impl FnOnce(&mut Self, Value) -> Value,
    ) -> Value {
        Lanes::rare_branch(self, special, plain, slow)
    }
    fn neg(&mut self, a: Value) -> Value {
        Lanes::neg(self, a)
    }
    fn xor(&mut self, a: Value, b: Value) -> Value {
        Lanes::xor(self, a, b)
    }
    fn and(&mut self, a: Value, b: Value) -> Value {
        Lanes::and(self, a, b)
    }
    fn c_bits(&mut self, bits: i64) -> Value {
        Lanes::ci_as_float(self, bits)
    }
    fn iand_c(&mut self, a: Value, c: i64) -> Value {
        Lanes::iand_c(self, a, c)
    }
    fn negative(&mut self, a: Value) -> Value {
        let bits = if self.b.func.dfg.value_type(a).lane_type().is_float() {
            Lanes::bits(self, a)
        } else {
            a
        };
        let zero = self.ci(0);
        self.icmp(IntCC::SignedLessThan, bits, zero)
    }
    fn lanes_call(&mut self, f: LanesFn, x: Value, plain: Value) -> Value {
        let ptr = types::I64;
        let ty = self.b.func.dfg.value_type(x);
        let bytes = ty.bytes();
        let slot = self.b.create_sized_stack_slot(StackSlotData::new(
            StackSlotKind::ExplicitSlot,
            2 * bytes,
            4,
        ));
        self.b.ins().stack_store(ptr, x, slot, 0);
        self.b.ins().stack_store(ptr, plain, slot, bytes as i32);
        let mut sig = Signature::new(self.b.func.signature.call_conv);
        sig.params.extend([AbiParam::new(ptr); 3]);
        let sig = self.b.import_signature(sig);
        let callee = self.b.ins().iconst(ptr, f as *const () as usize as i64);
        let xs = self.b.ins().stack_addr(ptr, slot, 0);
        let out = self.b.ins().stack_addr(ptr, slot, bytes as i32);
        let lanes = self.b.ins().iconst(ptr, i64::from(ty.lane_count()));
        self.b.ins().call_indirect(sig, callee, &[xs, out, lanes]);
        self.b.ins().stack_load(ptr, ty, slot, bytes as i32)
    }
}
