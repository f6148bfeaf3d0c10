//! Loop kernels applying one math function to slices: a compiled
//! `fn(x, [y,] out, n)` whose main loop runs over `f32x4`/`f64x2` vectors and
//! whose tail (`n` not a multiple of the vector width) runs the scalar form.
//! The accuracy report, the benchmark and the tests run the math library
//! through these.

use std::marker::PhantomData;

use cranelift_codegen::ir::{types, InstBuilder, MemFlagsData, Type, Value};
use cranelift_frontend::FunctionBuilder;

use super::{CodegenOptions, Jit};
use crate::clif::{for_range, vector_of, ConstTable};
use crate::math::{emit_binary, emit_unary, Accuracy, BinaryFn, UnaryFn};
use crate::JitError;

mod sealed {
    pub trait Sealed {}
    impl Sealed for f32 {}
    impl Sealed for f64 {}
}

/// An element type the math library computes on: `f32` or `f64`.
pub trait MathFloat: Copy + Default + sealed::Sealed + 'static {
    /// The Cranelift type of one element.
    const TYPE: Type;
}

impl MathFloat for f32 {
    const TYPE: Type = types::F32;
}

impl MathFloat for f64 {
    const TYPE: Type = types::F64;
}

type UnaryFnPtr<T> = unsafe extern "C" fn(*const T, *mut T, usize);
type BinaryFnPtr<T> = unsafe extern "C" fn(*const T, *const T, *mut T, usize);

/// `out[i] = f(x[i])` compiled for element type `T`.
pub struct UnaryKernel<T: MathFloat> {
    // Owns the machine code `func` points into.
    _jit: Jit,
    func: UnaryFnPtr<T>,
    _t: PhantomData<T>,
}

/// `out[i] = f(x[i], y[i])` compiled for element type `T`.
pub struct BinaryKernel<T: MathFloat> {
    _jit: Jit,
    func: BinaryFnPtr<T>,
    _t: PhantomData<T>,
}

/// Emits the loop over `n` elements at `inputs` → `out`: vectors first, then
/// the scalar tail. `apply` emits the math function on one value. Returns
/// the function's constants, for [`Jit::keep_constants`].
fn emit_loop(
    b: &mut FunctionBuilder<'_>,
    lane: Type,
    inputs: &[Value],
    out: Value,
    n: Value,
    apply: &dyn Fn(&mut FunctionBuilder<'_>, &mut ConstTable, &[Value]) -> Value,
) -> ConstTable {
    let mut consts = ConstTable::new(b, types::I64);
    let vty = vector_of(lane);
    let width = i64::from(vty.lane_count());
    let shift = i64::from(lane.bytes().trailing_zeros());
    let flags = MemFlagsData::new().with_notrap();
    let mut body = |b: &mut FunctionBuilder<'_>, i: Value, ty: Type| {
        let offset = b.ins().ishl_imm_u(i, shift);
        let args: Vec<Value> = inputs
            .iter()
            .map(|&p| {
                let addr = b.ins().iadd(p, offset);
                b.ins().load(ty, flags, addr, 0)
            })
            .collect();
        let y = apply(b, &mut consts, &args);
        let addr = b.ins().iadd(out, offset);
        b.ins().store(flags, y, addr, 0);
    };
    let zero = b.ins().iconst(types::I64, 0);
    let n_vec = b.ins().band_imm_s(n, !(width - 1));
    for_range(b, zero, n_vec, width, |b, i| body(b, i, vty));
    for_range(b, n_vec, n, 1, |b, i| body(b, i, lane));
    b.ins().return_(&[]);
    consts
}

impl<T: MathFloat> UnaryKernel<T> {
    /// Compiles the kernel for `f` at [`Accuracy::Full`].
    pub fn compile(options: &CodegenOptions, f: UnaryFn) -> Result<Self, JitError> {
        Self::compile_with(options, f, Accuracy::Full)
    }

    /// Compiles the kernel for `f` at the given accuracy.
    pub fn compile_with(
        options: &CodegenOptions,
        f: UnaryFn,
        accuracy: Accuracy,
    ) -> Result<Self, JitError> {
        let mut jit = Jit::new(options.clone())?;
        let ptr = jit.pointer_type();
        let sig = jit.signature(&[ptr, ptr, ptr], &[]);
        let mut consts = None;
        let id = jit.compile(&format!("{}_{}", f.name(), T::TYPE), sig, |b| {
            let entry = b.current_block().expect("entry block");
            let p = b.block_params(entry).to_vec();
            let apply = |b: &mut FunctionBuilder<'_>, c: &mut ConstTable, args: &[Value]| {
                emit_unary(b, c, f, args[0], accuracy)
            };
            consts = Some(emit_loop(b, T::TYPE, &p[..1], p[1], p[2], &apply));
        })?;
        jit.keep_constants(consts.expect("the kernel was built"));
        jit.finalize()?;
        // SAFETY: the function was compiled with this signature.
        let func = unsafe { std::mem::transmute::<*const u8, UnaryFnPtr<T>>(jit.function_ptr(id)) };
        Ok(UnaryKernel {
            _jit: jit,
            func,
            _t: PhantomData,
        })
    }

    /// `f` applied to every element of `x`.
    pub fn map(&self, x: &[T]) -> Vec<T> {
        let mut out = vec![T::default(); x.len()];
        self.map_into(x, &mut out);
        out
    }

    /// Writes `f(x[i])` to `out[i]`.
    ///
    /// # Panics
    ///
    /// If `x` and `out` have different lengths.
    pub fn map_into(&self, x: &[T], out: &mut [T]) {
        assert_eq!(
            x.len(),
            out.len(),
            "map_into: input and output lengths differ"
        );
        // SAFETY: the kernel reads `x.len()` elements of `x` and writes as
        // many to `out`, both valid for that length.
        unsafe { (self.func)(x.as_ptr(), out.as_mut_ptr(), x.len()) }
    }
}

impl<T: MathFloat> BinaryKernel<T> {
    /// Compiles the kernel for `f`.
    pub fn compile(options: &CodegenOptions, f: BinaryFn) -> Result<Self, JitError> {
        let mut jit = Jit::new(options.clone())?;
        let ptr = jit.pointer_type();
        let sig = jit.signature(&[ptr, ptr, ptr, ptr], &[]);
        let mut consts = None;
        let id = jit.compile(&format!("{}_{}", f.name(), T::TYPE), sig, |b| {
            let entry = b.current_block().expect("entry block");
            let p = b.block_params(entry).to_vec();
            let apply = |b: &mut FunctionBuilder<'_>, c: &mut ConstTable, args: &[Value]| {
                emit_binary(b, c, f, args[0], args[1])
            };
            consts = Some(emit_loop(b, T::TYPE, &p[..2], p[2], p[3], &apply));
        })?;
        jit.keep_constants(consts.expect("the kernel was built"));
        jit.finalize()?;
        // SAFETY: the function was compiled with this signature.
        let func =
            unsafe { std::mem::transmute::<*const u8, BinaryFnPtr<T>>(jit.function_ptr(id)) };
        Ok(BinaryKernel {
            _jit: jit,
            func,
            _t: PhantomData,
        })
    }

    /// `f(x[i], y[i])` for every `i`.
    ///
    /// # Panics
    ///
    /// If `x` and `y` have different lengths.
    pub fn map(&self, x: &[T], y: &[T]) -> Vec<T> {
        let mut out = vec![T::default(); x.len()];
        self.map_into(x, y, &mut out);
        out
    }

    /// Writes `f(x[i], y[i])` to `out[i]`.
    ///
    /// # Panics
    ///
    /// If `x`, `y` and `out` do not all have the same length.
    pub fn map_into(&self, x: &[T], y: &[T], out: &mut [T]) {
        assert!(
            x.len() == y.len() && x.len() == out.len(),
            "map_into: lengths differ (x {}, y {}, out {})",
            x.len(),
            y.len(),
            out.len()
        );
        // SAFETY: the kernel reads `x.len()` elements of `x` and `y` and
        // writes as many to `out`, all valid for that length.
        unsafe { (self.func)(x.as_ptr(), y.as_ptr(), out.as_mut_ptr(), x.len()) }
    }
}
