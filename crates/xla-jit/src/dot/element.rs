//! The dot of each element type: f32/f64 through the compiled kernels,
//! f16/bf16 through the f32 kernel with one rounding at the end, integers
//! and complex numbers through a plain loop.

use half::{bf16, f16};
use xla_core::{NativeType, C128, C64};

use super::amx;
use super::epilogue::{Epilogue, OutputBlock, Transposed};
use super::external;
use super::gemm::{self, Bf16Pairs, Float, Problem, Widening};
use super::gemv;
use super::matrix::{MatrixLayout, Operand, StridedMatrix, StridedMatrixMut};
use super::pack::{Strided, Widen};
use super::window::WindowMatrix;
use super::{DotEngine, FloatKernels};

mod sealed {
    pub trait Sealed {}
}

/// An element type [`DotEngine::gemm`] supports: every numeric type (not
/// `pred`).
pub trait DotElement: NativeType + sealed::Sealed {
    /// Runs the dot.
    ///
    /// # Safety
    ///
    /// The sizes of `a` (`[batch, m, k]`), `b` (`[batch, k, n]`) and `c`
    /// (`[batch, m, n]`) must agree, as [`DotEngine::gemm`] checks.
    #[doc(hidden)]
    unsafe fn dot(
        engine: &DotEngine,
        a: StridedMatrix<'_, Self>,
        b: StridedMatrix<'_, Self>,
        c: StridedMatrixMut<'_, Self>,
        epilogue: Option<&dyn Epilogue<Self>>,
    );

    /// Runs the dot with its products summed in f32 into an f32 `c`, and
    /// returns `true`; `false` (nothing done) for types other than f16 and
    /// bf16.
    ///
    /// # Safety
    ///
    /// As [`DotElement::dot`].
    #[doc(hidden)]
    unsafe fn dot_to_f32(
        _engine: &DotEngine,
        _a: StridedMatrix<'_, Self>,
        _b: StridedMatrix<'_, Self>,
        _c: StridedMatrixMut<'_, f32>,
        _epilogue: Option<&dyn Epilogue<f32>>,
    ) -> bool {
        false
    }

    /// Runs the dot with a window view `a` (one matrix): by default on a
    /// dense copy of the window, which f32 and f64 skip by packing straight
    /// from it.
    ///
    /// # Safety
    ///
    /// As [`DotElement::dot`], for `a` of `m×k`.
    #[doc(hidden)]
    unsafe fn dot_window(
        engine: &DotEngine,
        a: WindowMatrix<'_, Self>,
        b: StridedMatrix<'_, Self>,
        c: StridedMatrixMut<'_, Self>,
        epilogue: Option<&dyn Epilogue<Self>>,
    ) {
        let (m, k) = (a.rows(), a.cols());
        let layout = a.layout();
        let (mut rows, mut cols) = (vec![0; m], vec![0; k]);
        layout.rows.offsets(0, &mut rows);
        layout.cols.offsets(0, &mut cols);
        let base = a.as_ptr();
        let dense: Vec<Self> = rows
            .iter()
            .flat_map(|&row| cols.iter().map(move |&col| *base.add(row + col)))
            .collect();
        let a = StridedMatrix::new(Operand::Lhs, &dense, MatrixLayout::row_major(m, k))
            .expect("a dense copy fits its layout");
        Self::dot(engine, a, b, c, epilogue);
    }
}

/// The `A` operand of a validated call: a strided view or a window.
enum Lhs<'a, T> {
    Strided(StridedMatrix<'a, T>),
    Window(WindowMatrix<'a, T>),
}

/// The problem of a validated call, with `C` of element type `T`.
fn problem<S: Copy, T>(
    a: &Lhs<'_, S>,
    b: &StridedMatrix<'_, S>,
    c: Strided<*mut T>,
    c_batch_stride: usize,
) -> Problem<S, T> {
    let lb = b.layout();
    let (batch, m, k, a, a_batch_stride) = match a {
        Lhs::Strided(a) => {
            let la = a.layout();
            let strides = Strided {
                ptr: a.as_ptr(),
                rs: la.row_stride,
                cs: la.col_stride,
            };
            let a = gemm::Lhs::Strided(strides);
            (la.batch, la.rows, la.cols, a, la.batch_stride)
        }
        Lhs::Window(a) => {
            let layout = a.layout();
            let window = gemm::Lhs::Window {
                ptr: a.as_ptr(),
                rows: layout.rows,
                cols: layout.cols,
            };
            (1, a.rows(), a.cols(), window, 0)
        }
    };
    Problem {
        batch,
        m,
        n: lb.cols,
        k,
        a,
        a_batch_stride,
        b: Strided {
            ptr: b.as_ptr(),
            rs: lb.row_stride,
            cs: lb.col_stride,
        },
        b_batch_stride: lb.batch_stride,
        c,
        c_batch_stride,
    }
}

/// The output view as raw parts.
fn output<T: Copy>(c: &mut StridedMatrixMut<'_, T>) -> (Strided<*mut T>, usize) {
    let l = c.layout();
    let ptr = c.as_mut_ptr();
    (
        Strided {
            ptr,
            rs: l.row_stride,
            cs: l.col_stride,
        },
        l.batch_stride,
    )
}

/// f32 and f64: GEMV or GEMM on the compiled kernels (a window `A` always
/// through the GEMM, which packs its panels straight from the window).
unsafe fn dot_float<T: Float>(
    engine: &DotEngine,
    kernels: &FloatKernels<T>,
    a: Lhs<'_, T>,
    b: StridedMatrix<'_, T>,
    mut c: StridedMatrixMut<'_, T>,
    epilogue: Option<&dyn Epilogue<T>>,
) {
    if c.layout().is_empty() {
        return;
    }
    let (c_strided, c_batch_stride) = output(&mut c);
    let mut problem = problem(&a, &b, c_strided, c_batch_stride);
    let config = engine.config();
    let pool = engine.pool();
    let adds = epilogue.is_some_and(|e| e.accumulates());
    if !adds && gemv::try_run(pool, &kernels.gemv, &problem, epilogue, config) {
        return;
    }
    let transposed;
    let mut epilogue = epilogue;
    if problem.c.cs != 1 && problem.c.rs == 1 {
        if let Some(t) = problem.transposed() {
            problem = t;
            transposed = epilogue.map(Transposed);
            epilogue = transposed.as_ref().map(|t| t as &dyn Epilogue<T>);
        }
    }
    if external::takes(&problem, config) {
        external::run(pool, &problem, epilogue, config.parallel_min_flops);
    } else {
        let kernel = (&kernels.micro, &Widening);
        gemm::run(pool, kernel, &problem, epilogue, config.parallel_min_flops);
    }
}

/// A 16-bit float: converted to f32 for the products, back once at the end.
pub(crate) trait Half: Widen<f32> + NativeType {
    fn narrow(value: f32) -> Self;

    /// Runs `problem` (16-bit operands, an f32 output) on the engine's
    /// fastest kernel for the type: by default the f32 kernel on values
    /// widened as they are packed.
    ///
    /// # Safety
    ///
    /// As [`gemm::run`].
    unsafe fn gemm(
        engine: &DotEngine,
        problem: &Problem<Self, f32>,
        epilogue: Option<&dyn Epilogue<f32>>,
    ) {
        widened(engine, problem, epilogue);
    }
}

/// [`Half::gemm`] on the f32 kernel, each value widened as it is packed.
unsafe fn widened<H: Half>(
    engine: &DotEngine,
    problem: &Problem<H, f32>,
    epilogue: Option<&dyn Epilogue<f32>>,
) {
    let min_flops = engine.config().parallel_min_flops;
    let kernel = (&engine.f32.micro, &Widening);
    gemm::run(engine.pool(), kernel, problem, epilogue, min_flops);
}

impl Half for f16 {
    fn narrow(value: f32) -> Self {
        f16::from_f32(value)
    }
}

impl Half for bf16 {
    fn narrow(value: f32) -> Self {
        bf16::from_f32(value)
    }

    /// On AMX tiles where the CPU has them and the shape fits, else pairs
    /// of bf16 products summed by `vdpbf16ps` where the engine built that
    /// kernel ([`DotConfig::bf16_pairs`](super::DotConfig::bf16_pairs)),
    /// else widened.
    unsafe fn gemm(
        engine: &DotEngine,
        problem: &Problem<Self, f32>,
        epilogue: Option<&dyn Epilogue<f32>>,
    ) {
        let min_flops = engine.config().parallel_min_flops;
        if let Some(kernel) = engine.amx.filter(|_| amx::takes(problem)) {
            return amx::run(engine.pool(), kernel, problem, epilogue, min_flops);
        }
        match &engine.bf16 {
            Some(pairs) => {
                let kernel = (pairs, &Bf16Pairs);
                gemm::run(engine.pool(), kernel, problem, epilogue, min_flops);
            }
            None => widened(engine, problem, epilogue),
        }
    }
}

/// 16-bit operands, products summed in f32 into an f32 output (XLA's
/// `preferred_element_type=f32`).
unsafe fn dot_half_to_f32<H: Half>(
    engine: &DotEngine,
    a: StridedMatrix<'_, H>,
    b: StridedMatrix<'_, H>,
    mut c: StridedMatrixMut<'_, f32>,
    epilogue: Option<&dyn Epilogue<f32>>,
) {
    if c.layout().is_empty() {
        return;
    }
    let (c, c_batch_stride) = output(&mut c);
    H::gemm(
        engine,
        &problem(&Lhs::Strided(a), &b, c, c_batch_stride),
        epilogue,
    );
}

/// Rounds each finished f32 block into the 16-bit output, then runs the
/// caller's epilogue on the rounded block.
struct Narrow<'e, H> {
    out: Strided<*mut H>,
    batch_stride: usize,
    epilogue: Option<&'e dyn Epilogue<H>>,
}

impl<H: Half> Epilogue<f32> for Narrow<'_, H> {
    fn apply(&self, block: OutputBlock<'_, f32>) {
        let layout = block.c.layout();
        // SAFETY: the block's position is inside the output, which the
        // engine validated; blocks are disjoint across threads.
        unsafe {
            let out = Strided {
                ptr: self.out.ptr.add(block.batch * self.batch_stride),
                ..self.out
            }
            .at(block.row0, block.col0);
            for i in 0..layout.rows {
                for j in 0..layout.cols {
                    *out.ptr.add(i * out.rs + j * out.cs) = H::narrow(block.c.get(0, i, j));
                }
            }
            if let Some(epilogue) = self.epilogue {
                let rows_cols = MatrixLayout::new(layout.rows, layout.cols, out.rs, out.cs);
                epilogue.apply(OutputBlock {
                    c: StridedMatrixMut::from_raw(out.ptr, rows_cols),
                    batch: block.batch,
                    row0: block.row0,
                    col0: block.col0,
                });
            }
        }
    }
}

/// f16 and bf16: the f32 GEMM into a scratch matrix, rounded per block.
unsafe fn dot_half<H: Half>(
    engine: &DotEngine,
    a: StridedMatrix<'_, H>,
    b: StridedMatrix<'_, H>,
    mut c: StridedMatrixMut<'_, H>,
    epilogue: Option<&dyn Epilogue<H>>,
) {
    let l = c.layout();
    if l.is_empty() {
        return;
    }
    let mut scratch = vec![0f32; l.batch * l.rows * l.cols];
    let scratch_c = Strided {
        ptr: scratch.as_mut_ptr(),
        rs: l.cols,
        cs: 1,
    };
    let problem = problem(&Lhs::Strided(a), &b, scratch_c, l.rows * l.cols);
    let (out, batch_stride) = output(&mut c);
    let narrow = Narrow {
        out,
        batch_stride,
        epilogue,
    };
    H::gemm(engine, &problem, Some(&narrow));
}

/// Multiply-accumulate in the element type (integers wrap).
trait Ring: NativeType {
    fn mul_add(self, a: Self, b: Self) -> Self;
}

macro_rules! wrapping_ring {
    ($($t:ty),*) => {$(
        impl Ring for $t {
            fn mul_add(self, a: Self, b: Self) -> Self {
                self.wrapping_add(a.wrapping_mul(b))
            }
        }
    )*};
}
wrapping_ring!(i8, i16, i32, i64, u8, u16, u32, u64);

impl Ring for C64 {
    fn mul_add(self, a: Self, b: Self) -> Self {
        self + a * b
    }
}

impl Ring for C128 {
    fn mul_add(self, a: Self, b: Self) -> Self {
        self + a * b
    }
}

/// Integers and complex numbers: `C[b,i,j] = Σ_p A[b,i,p]·B[b,p,j]` in order.
unsafe fn dot_loop<T: Ring>(
    a: StridedMatrix<'_, T>,
    b: StridedMatrix<'_, T>,
    mut c: StridedMatrixMut<'_, T>,
    epilogue: Option<&dyn Epilogue<T>>,
) {
    let (la, lb, lc) = (a.layout(), b.layout(), c.layout());
    let (pa, pb, pc) = (a.as_ptr(), b.as_ptr(), c.as_mut_ptr());
    for batch in 0..lc.batch {
        for i in 0..lc.rows {
            for j in 0..lc.cols {
                let mut acc = T::default();
                for p in 0..la.cols {
                    acc = acc.mul_add(
                        *pa.add(la.offset(batch, i, p)),
                        *pb.add(lb.offset(batch, p, j)),
                    );
                }
                *pc.add(lc.offset(batch, i, j)) = acc;
            }
        }
        if let Some(epilogue) = epilogue {
            let matrix = MatrixLayout::new(lc.rows, lc.cols, lc.row_stride, lc.col_stride);
            epilogue.apply(OutputBlock {
                c: StridedMatrixMut::from_raw(pc.add(batch * lc.batch_stride), matrix),
                batch,
                row0: 0,
                col0: 0,
            });
        }
    }
}

/// `impl DotElement for $t`: `dot` calls `$dot`, then the other methods.
macro_rules! dot_element {
    ($t:ty, $dot:expr $(, $method:item)*) => {
        impl sealed::Sealed for $t {}
        impl DotElement for $t {
            unsafe fn dot(
                engine: &DotEngine,
                a: StridedMatrix<'_, Self>,
                b: StridedMatrix<'_, Self>,
                c: StridedMatrixMut<'_, Self>,
                e: Option<&dyn Epilogue<Self>>,
            ) {
                $dot(engine, a, b, c, e)
            }
            $($method)*
        }
    };
}

macro_rules! float_dot_element {
    ($t:ident) => {
        dot_element!(
            $t,
            |engine: &DotEngine, a, b, c, e| dot_float(
                engine,
                &engine.$t,
                Lhs::Strided(a),
                b,
                c,
                e
            ),
            unsafe fn dot_window(
                engine: &DotEngine,
                a: WindowMatrix<'_, Self>,
                b: StridedMatrix<'_, Self>,
                c: StridedMatrixMut<'_, Self>,
                e: Option<&dyn Epilogue<Self>>,
            ) {
                dot_float(engine, &engine.$t, Lhs::Window(a), b, c, e)
            }
        );
    };
}

macro_rules! half_dot_element {
    ($t:ident) => {
        dot_element!(
            $t,
            dot_half,
            unsafe fn dot_to_f32(
                engine: &DotEngine,
                a: StridedMatrix<'_, Self>,
                b: StridedMatrix<'_, Self>,
                c: StridedMatrixMut<'_, f32>,
                e: Option<&dyn Epilogue<f32>>,
            ) -> bool {
                dot_half_to_f32(engine, a, b, c, e);
                true
            }
        );
    };
}

float_dot_element!(f32);
float_dot_element!(f64);
half_dot_element!(f16);
half_dot_element!(bf16);
dot_element!(i8, |_, a, b, c, e| dot_loop(a, b, c, e));
dot_element!(i16, |_, a, b, c, e| dot_loop(a, b, c, e));
dot_element!(i32, |_, a, b, c, e| dot_loop(a, b, c, e));
dot_element!(i64, |_, a, b, c, e| dot_loop(a, b, c, e));
dot_element!(u8, |_, a, b, c, e| dot_loop(a, b, c, e));
dot_element!(u16, |_, a, b, c, e| dot_loop(a, b, c, e));
dot_element!(u32, |_, a, b, c, e| dot_loop(a, b, c, e));
dot_element!(u64, |_, a, b, c, e| dot_loop(a, b, c, e));
dot_element!(C64, |_, a, b, c, e| dot_loop(a, b, c, e));
dot_element!(C128, |_, a, b, c, e| dot_loop(a, b, c, e));
