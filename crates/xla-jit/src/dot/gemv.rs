//! Matrix × vector without packing: streaming, vectorized kernels for the
//! memory-bound dots (`[m,k]·[k]`, `[k]·[k,n]`, and their batches).
//!
//! Two kernels cover every matrix with a unit stride:
//!
//! * **dot form**, the matrix's rows are contiguous: `y[i] = Σ_p a[i,p]·x[p]`
//!   with vector accumulators per row, reduced across lanes at the end of
//!   the row; `x` is re-read from L1 for each block of rows.
//! * **axpy form**, the matrix's columns are contiguous (the transposed
//!   case, e.g. `[k]·[k,n]` with `[k,n]{1,0}`): `y[j] += Σ_p x[p]·b[p,j]`
//!   row by row over a column chunk of `y` that stays in L1. A short `y`
//!   (a decode step's `[1,3072]·[3072,768]`) is split by rows instead:
//!   each task streams whole rows into its own partial `y`, and the
//!   partials are added in task order. GPT-2's decode step (four such
//!   products, 28 MB of weights) went from 1.64–1.74 to 1.09–1.18 ms on
//!   two threads (Emerald Rapids, 2026-12-06, interleaved `xla bench`
//!   medians).
//!
//! The dot form reads [`GemvBlock::rows`] rows per step, each its own
//! stream, with [`GemvBlock::vectors`] accumulators per row; the axpy form
//! reads one row per step ([`AXPY_ROWS`]). The dot form's blocking is the
//! host's ([`GemvBlock::for_host`]), because the processors measured want
//! opposite ones on the suite's matvec (a 64 MiB matrix):
//!
//! * Zen 5, one core: one row × 8 vectors streams 34–38 GB/s (4 vectors:
//!   32–35), as fast as a native AVX-512 sum of the same array; blocks of
//!   2, 4 or 8 rows (rows 16 KiB apart) reach only 16–26 GB/s.
//! * Intel (Sapphire Rapids class), two threads, interleaved `xla bench`
//!   medians: 4 rows × 2 vectors run 1.21–1.26 ms, 4 × 8 1.21–1.23 and
//!   2 × 4 1.26–1.30, against 1.32–1.34 for one row × 8 vectors; the
//!   4-row block also loads each `x` vector once for four rows.
//! * Zen 3 (EPYC Milan), `examples/gemm.rs -- --gemv-sweep`: 4 rows × 2
//!   vectors stream 14.5 GB/s on one core and 19.7 on two, one row × 8
//!   vectors 9.9 and 15.7 (8 × 1: 15.4 and 19.1; 2 × 2: 11.6 and 20.6).
//!
//! A matrix with no unit stride goes through GEMM, whose packing gathers it.

use cranelift_codegen::ir::{types, InstBuilder, MemFlagsData, Type, Value};
use cranelift_frontend::{FunctionBuilder, Variable};
use cranelift_module::FuncId;

use super::epilogue::{Epilogue, OutputBlock};
use super::gemm::{for_each_task, parts_per_matrix, Float, Problem};
use super::matrix::{MatrixLayout, StridedMatrixMut};
use super::pack::Strided;
use super::DotConfig;
use crate::clif::{for_range, vector_of};
use crate::codegen::Jit;
use crate::pool::ThreadPool;
use crate::JitError;

/// `dot(rows, k, a, lda, x, y, incy)`: `y[i·incy] = Σ_{p<k} a[i·lda + p]·x[p]`
/// for `i < rows` (strides in elements).
pub(crate) type DotRowsFn<T> =
    unsafe extern "C" fn(usize, usize, *const T, usize, *const T, *mut T, usize);

/// `axpy(cols, k, b, ldb, x, y)`: `y[j] += Σ_{p<k} x[p]·b[p·ldb + j]` for
/// `j < cols` (strides in elements).
pub(crate) type AxpyRowsFn<T> =
    unsafe extern "C" fn(usize, usize, *const T, usize, *const T, *mut T);

/// The compiled GEMV kernels of one element type.
#[derive(Clone, Copy, Debug)]
pub(crate) struct GemvKernels<T> {
    pub dot: DotRowsFn<T>,
    pub axpy: AxpyRowsFn<T>,
}

/// How the dot form reads a matrix whose rows are contiguous: `rows` rows
/// per block, `vectors` vectors of each per loop step (`rows · vectors`
/// accumulators).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct GemvBlock {
    /// Rows per block: 1, 2, 4 or 8.
    pub rows: usize,
    /// Vectors per row and step: 1, 2, 4 or 8.
    pub vectors: usize,
}

impl GemvBlock {
    /// One sequential stream, 8 vectors per step (best on Zen 5).
    pub const ONE_ROW: GemvBlock = GemvBlock {
        rows: 1,
        vectors: 8,
    };
    /// Four rows, 2 vectors each per step (best on Intel).
    pub const FOUR_ROWS: GemvBlock = GemvBlock {
        rows: 4,
        vectors: 2,
    };

    /// The blocking measured best on this host's processor (see the
    /// module docs): [`Self::ONE_ROW`] on Zen 5 and later,
    /// [`Self::FOUR_ROWS`] elsewhere.
    pub fn for_host() -> Self {
        if one_stream_host() {
            Self::ONE_ROW
        } else {
            Self::FOUR_ROWS
        }
    }

    /// An error naming the field that is not a power of two up to 8.
    pub(super) fn check(&self) -> Result<(), JitError> {
        let fits = |n: usize| n.is_power_of_two() && n <= 8;
        if fits(self.rows) && fits(self.vectors) {
            Ok(())
        } else {
            Err(JitError::InvalidConfig(format!(
                "gemv blocking {self:?}: rows and vectors must be 1, 2, 4 or 8"
            )))
        }
    }
}

/// `true` on an AMD processor of Zen 5's family (`0x1A`) or later.
fn one_stream_host() -> bool {
    crate::wide::amd_family().is_some_and(|family| family >= 0x1A)
}

/// Vectors per step of the axpy form along the contiguous dimension.
const AXPY_VECTORS: usize = 8;
/// Tasks per pool thread at least: a few, so that a thread slowed by
/// other work does not hold up the whole product.
const TASKS_PER_THREAD: usize = 4;
/// Matrix bytes per task, at most (about 200 µs of streaming on one
/// core): a large product is split finer than [`TASKS_PER_THREAD`] per
/// thread, so that when the host holds one thread back the others take
/// over its tasks (the same reasoning as the loop kernels' task size).
/// matvec (64 MiB) on two threads: on Zen 5, 64 tasks (1 MiB) instead of
/// 8 took 2.06 → 1.70 ms (medians of 5 medians; 2.00 → 1.91 in a quieter
/// run); on Zen 3, 16 tasks (4 MiB) instead of 64 took medians of
/// 2.47–2.78 → 2.26–2.53 ms and minima of 2.0–2.16 → 1.54–1.80
/// (interleaved `xla bench --min-time 2` runs), the four rows' streams
/// being longer per task.
const TASK_BYTES: usize = 1 << 22;
/// Columns of `y` per axpy task chunk, in elements (16 KiB of f32).
const AXPY_CHUNK: usize = 4096;

/// Compiles the dot-form kernel for `lane` (`F32` or `F64`).
pub(crate) fn emit_dot_rows(
    jit: &mut Jit,
    name: &str,
    lane: Type,
    block: GemvBlock,
) -> Result<FuncId, JitError> {
    let ptr = jit.pointer_type();
    let sig = jit.signature(&[ptr; 7], &[]);
    jit.compile(name, sig, |b| {
        let entry = b.current_block().expect("entry block");
        let [rows, k, a, lda, x, y, incy] = b.block_params(entry)[..] else {
            unreachable!("the signature has seven parameters")
        };
        let shift = i64::from(lane.bytes().trailing_zeros());
        let row_bytes = b.ins().ishl_imm_u(lda, shift);
        let y_step = b.ins().ishl_imm_u(incy, shift);
        let rows_main = b.ins().band_imm_s(rows, -(block.rows as i64));
        let zero = b.ins().iconst(ptr, 0);
        let emit = |b: &mut FunctionBuilder<'_>, i: Value, count: usize| {
            let first = b.ins().imul(i, row_bytes);
            let first = b.ins().iadd(a, first);
            let row_ptrs = row_pointers(b, first, row_bytes, count);
            let sums = emit_row_dots(b, lane, &row_ptrs, x, k, block.vectors);
            let mut out = b.ins().imul(i, y_step);
            out = b.ins().iadd(y, out);
            for (r, sum) in sums.into_iter().enumerate() {
                if r > 0 {
                    out = b.ins().iadd(out, y_step);
                }
                b.ins().store(data_flags(), sum, out, 0);
            }
        };
        for_range(b, zero, rows_main, block.rows as i64, |b, i| {
            emit(b, i, block.rows)
        });
        for_range(b, rows_main, rows, 1, |b, i| emit(b, i, 1));
        b.ins().return_(&[]);
    })
}

/// Flags for operand memory: in bounds, but only element-aligned.
fn data_flags() -> MemFlagsData {
    MemFlagsData::new().with_notrap()
}

/// `count` row pointers `first + r·row_bytes`.
fn row_pointers(
    b: &mut FunctionBuilder<'_>,
    first: Value,
    row_bytes: Value,
    count: usize,
) -> Vec<Value> {
    let mut ptrs = vec![first];
    for _ in 1..count {
        let next = b.ins().iadd(*ptrs.last().expect("one row"), row_bytes);
        ptrs.push(next);
    }
    ptrs
}

/// `Σ_p row_r[p]·x[p]` for each row pointer, as scalars, from `vectors`
/// accumulators per row.
fn emit_row_dots(
    b: &mut FunctionBuilder<'_>,
    lane: Type,
    rows: &[Value],
    x: Value,
    k: Value,
    vectors: usize,
) -> Vec<Value> {
    let flags = data_flags();
    let vector = vector_of(lane);
    let (size, vsize) = (lane.bytes() as i64, vector.bytes() as i64);
    let ptr = b.func.dfg.value_type(x);
    let step = vsize * vectors as i64;
    let k_bytes = b.ins().imul_imm_s(k, size);
    let main_bytes = b.ins().band_imm_s(k_bytes, -step);
    let acc = zero_vars(b, vector, rows.len() * vectors);
    let zero = b.ins().iconst(ptr, 0);
    for_range(b, zero, main_bytes, step, |b, offset| {
        let xp = b.ins().iadd(x, offset);
        let xv: Vec<Value> = (0..vectors)
            .map(|u| b.ins().load(vector, flags, xp, (u as i64 * vsize) as i32))
            .collect();
        for (r, &row) in rows.iter().enumerate() {
            let rp = b.ins().iadd(row, offset);
            for (u, &xu) in xv.iter().enumerate() {
                let av = b.ins().load(vector, flags, rp, (u as i64 * vsize) as i32);
                let product = b.ins().fmul(av, xu);
                let var = acc[r * vectors + u];
                let sum = b.use_var(var);
                let sum = b.ins().fadd(sum, product);
                b.def_var(var, sum);
            }
        }
    });
    let tail = zero_vars(b, lane, rows.len());
    for_range(b, main_bytes, k_bytes, size, |b, offset| {
        let xp = b.ins().iadd(x, offset);
        let xs = b.ins().load(lane, flags, xp, 0);
        for (r, &row) in rows.iter().enumerate() {
            let rp = b.ins().iadd(row, offset);
            let av = b.ins().load(lane, flags, rp, 0);
            let product = b.ins().fmul(av, xs);
            let sum = b.use_var(tail[r]);
            let sum = b.ins().fadd(sum, product);
            b.def_var(tail[r], sum);
        }
    });
    (0..rows.len())
        .map(|r| {
            let mut v = b.use_var(acc[r * vectors]);
            for u in 1..vectors {
                let w = b.use_var(acc[r * vectors + u]);
                v = b.ins().fadd(v, w);
            }
            let mut sum = b.use_var(tail[r]);
            for l in 0..vector.lane_count() {
                let x = b.ins().extractlane(v, l as u8);
                sum = b.ins().fadd(sum, x);
            }
            sum
        })
        .collect()
}

/// `count` variables of type `ty` holding zero.
fn zero_vars(b: &mut FunctionBuilder<'_>, ty: Type, count: usize) -> Vec<Variable> {
    let zero = if ty.lane_type() == types::F32 {
        b.ins().f32const(0.0)
    } else {
        b.ins().f64const(0.0)
    };
    let zero = if ty.is_vector() {
        b.ins().splat(ty, zero)
    } else {
        zero
    };
    (0..count)
        .map(|_| {
            let var = b.declare_var(ty);
            b.def_var(var, zero);
            var
        })
        .collect()
}

/// Compiles the axpy-form kernel for `lane` (`F32` or `F64`).
pub(crate) fn emit_axpy_rows(jit: &mut Jit, name: &str, lane: Type) -> Result<FuncId, JitError> {
    let ptr = jit.pointer_type();
    let sig = jit.signature(&[ptr; 6], &[]);
    jit.compile(name, sig, |b| {
        let entry = b.current_block().expect("entry block");
        let [cols, k, bp, ldb, x, y] = b.block_params(entry)[..] else {
            unreachable!("the signature has six parameters")
        };
        let size = i64::from(lane.bytes());
        let row_bytes = b.ins().imul_imm_s(ldb, size);
        let zero = b.ins().iconst(ptr, 0);
        for_range(b, zero, k, 1, |b, p| {
            let row = b.ins().imul(p, row_bytes);
            let row = b.ins().iadd(bp, row);
            let xp = b.ins().imul_imm_s(p, size);
            let xp = b.ins().iadd(x, xp);
            emit_axpy_row(b, lane, row, xp, y, cols);
        });
        b.ins().return_(&[]);
    })
}

/// `y[j] += x·row[j]` for `j < cols` (`x` read from its address).
fn emit_axpy_row(
    b: &mut FunctionBuilder<'_>,
    lane: Type,
    row: Value,
    x: Value,
    y: Value,
    cols: Value,
) {
    let flags = data_flags();
    let vector = vector_of(lane);
    let (size, vsize) = (lane.bytes() as i64, vector.bytes() as i64);
    let ptr = b.func.dfg.value_type(x);
    let step = vsize * AXPY_VECTORS as i64;
    let xs = b.ins().load(lane, flags, x, 0);
    let xv = b.ins().splat(vector, xs);
    let col_bytes = b.ins().imul_imm_s(cols, size);
    let main_bytes = b.ins().band_imm_s(col_bytes, -step);
    let zero = b.ins().iconst(ptr, 0);
    for_range(b, zero, main_bytes, step, |b, offset| {
        let yp = b.ins().iadd(y, offset);
        let rp = b.ins().iadd(row, offset);
        for u in 0..AXPY_VECTORS as i32 {
            let at = u * vsize as i32;
            let acc = b.ins().load(vector, flags, yp, at);
            let bv = b.ins().load(vector, flags, rp, at);
            let product = b.ins().fmul(bv, xv);
            let sum = b.ins().fadd(acc, product);
            b.ins().store(flags, sum, yp, at);
        }
    });
    for_range(b, main_bytes, col_bytes, size, |b, offset| {
        let yp = b.ins().iadd(y, offset);
        let rp = b.ins().iadd(row, offset);
        let acc = b.ins().load(lane, flags, yp, 0);
        let bs = b.ins().load(lane, flags, rp, 0);
        let product = b.ins().fmul(bs, xs);
        let sum = b.ins().fadd(acc, product);
        b.ins().store(flags, sum, yp, 0);
    });
}

/// A matrix-vector view of a problem: `y[i] = Σ_p mat[i,p]·x[p]`.
#[derive(Clone, Copy)]
struct Gemv<T> {
    len: usize,
    mat: Strided<*const T>,
    mat_batch_stride: usize,
    x: *const T,
    incx: usize,
    x_batch_stride: usize,
    y: *mut T,
    incy: usize,
    y_batch_stride: usize,
    /// `y` is a column of `C` (`n == 1`), else a row.
    column: bool,
}

// SAFETY: addresses only; tasks write disjoint ranges of `y`.
unsafe impl<T> Sync for Gemv<T> {}

/// Runs `problem` as a batch of matrix-vector products if it is one
/// (`n == 1` or `m == 1`, `A` strided) and the matrix has a unit stride;
/// returns `false`
/// (having done nothing) otherwise. `config` is the one `kernels` were
/// compiled with (its dot form's rows per block split the work).
///
/// # Safety
///
/// As for [`gemm::run`](super::gemm::run).
pub(crate) unsafe fn try_run<T: Float>(
    pool: &ThreadPool,
    kernels: &GemvKernels<T>,
    problem: &Problem<T, T>,
    epilogue: Option<&dyn Epilogue<T>>,
    config: &DotConfig,
) -> bool {
    let p = problem;
    let Some(a) = p.strided_a() else {
        return false;
    };
    let column = p.n == 1;
    let g = if column {
        Gemv {
            len: p.m,
            mat: a,
            mat_batch_stride: p.a_batch_stride,
            x: p.b.ptr,
            incx: p.b.rs,
            x_batch_stride: p.b_batch_stride,
            y: p.c.ptr,
            incy: p.c.rs,
            y_batch_stride: p.c_batch_stride,
            column,
        }
    } else if p.m == 1 {
        Gemv {
            len: p.n,
            mat: Strided {
                ptr: p.b.ptr,
                rs: p.b.cs,
                cs: p.b.rs,
            },
            mat_batch_stride: p.b_batch_stride,
            x: a.ptr,
            incx: a.cs,
            x_batch_stride: p.a_batch_stride,
            y: p.c.ptr,
            incy: p.c.cs,
            y_batch_stride: p.c_batch_stride,
            column,
        }
    } else {
        return false;
    };
    let dot_form = g.mat.cs == 1 || p.k <= 1;
    if !dot_form && g.mat.rs != 1 {
        return false;
    }
    let bytes = p.batch * g.len * p.k * size_of::<T>();
    let threads = if bytes < config.parallel_min_bytes {
        1
    } else {
        pool.threads()
    };
    // Dot form: row blocks; axpy form: column chunks that keep `y` in L1.
    let (unit, max_part) = if dot_form {
        (config.gemv.rows, usize::MAX)
    } else {
        (AXPY_VECTORS * 16 / size_of::<T>(), AXPY_CHUNK)
    };
    let tasks_wanted = if threads == 1 {
        1
    } else {
        (threads * TASKS_PER_THREAD).max(bytes / TASK_BYTES)
    };
    if !dot_form && tasks_wanted > 1 && p.batch == 1 && g.len <= AXPY_CHUNK {
        split_rows(pool, kernels, &g, p.k, tasks_wanted, epilogue);
        return true;
    }
    let units = g.len.div_ceil(unit);
    let parts = parts_per_matrix(tasks_wanted, p.batch, units)
        .max(g.len.div_ceil(max_part))
        .min(units);
    for_each_task(pool, threads, p.batch * parts, |task| {
        let (batch, part) = (task / parts, task % parts);
        let start = (part * units / parts * unit).min(g.len);
        let end = ((part + 1) * units / parts * unit).min(g.len);
        run_part(kernels, &g, p.k, batch, start, end, dot_form);
        if let Some(epilogue) = epilogue {
            let y = g.y.add(batch * g.y_batch_stride + start * g.incy);
            let (len, inc) = (end - start, g.incy);
            let (layout, row0, col0) = if g.column {
                (MatrixLayout::new(len, 1, inc, 1), start, 0)
            } else {
                (MatrixLayout::new(1, len, len, inc), 0, start)
            };
            epilogue.apply(OutputBlock {
                c: StridedMatrixMut::from_raw(y, layout),
                batch,
                row0,
                col0,
            });
        }
    });
    true
}

/// The axpy form of one matrix with a short `y` (at most [`AXPY_CHUNK`]
/// elements): split by columns, each task would stream short pieces of
/// every row (`[1,3072]·[3072,768]` on 8 tasks: 384 bytes of each row,
/// rows 3 KiB apart). Instead each of `tasks` tasks sums a block of whole
/// rows into a partial `y` of its own, streaming its rows from end to end,
/// and the partials are added in task order (the same order on every run).
unsafe fn split_rows<T: Float>(
    pool: &ThreadPool,
    kernels: &GemvKernels<T>,
    g: &Gemv<T>,
    k: usize,
    tasks: usize,
    epilogue: Option<&dyn Epilogue<T>>,
) {
    let len = g.len;
    let tasks = tasks.min(k).max(1);
    let gathered = gather(g.x, g.incx, k);
    let x = gathered.as_ref().map_or(g.x, |x| x.as_ptr());
    let mut sums = vec![T::default(); tasks * len];
    // Task `t`'s partial sums are row `t`.
    let partials = Strided {
        ptr: sums.as_mut_ptr(),
        rs: len,
        cs: 1,
    };
    let g = &Gemv { x, incx: 1, ..*g };
    pool.parallel_for(tasks, |task| {
        // The whole view (`Sync`), not its raw-pointer fields.
        let g: &Gemv<T> = g;
        let (p0, p1) = (task * k / tasks, (task + 1) * k / tasks);
        let out = partials.at(task, 0).ptr;
        let rows = g.mat.ptr.add(p0 * g.mat.cs);
        (kernels.axpy)(len, p1 - p0, rows, g.mat.cs, g.x.add(p0), out);
    });
    for j in 0..len {
        let mut sum = sums[j];
        for t in 1..tasks {
            sum = sum + sums[t * len + j];
        }
        *g.y.add(j * g.incy) = sum;
    }
    if let Some(epilogue) = epilogue {
        let layout = if g.column {
            MatrixLayout::new(len, 1, g.incy, 1)
        } else {
            MatrixLayout::new(1, len, len, g.incy)
        };
        epilogue.apply(OutputBlock {
            c: StridedMatrixMut::from_raw(g.y, layout),
            batch: 0,
            row0: 0,
            col0: 0,
        });
    }
}

/// The `k` elements of a vector `x` of stride `inc`, gathered into a
/// contiguous copy; `None` when they already are contiguous.
unsafe fn gather<T: Copy>(x: *const T, inc: usize, k: usize) -> Option<Vec<T>> {
    (inc != 1 && k > 1).then(|| (0..k).map(|p| *x.add(p * inc)).collect())
}

/// `y[start..end]` of one batch matrix.
unsafe fn run_part<T: Float>(
    kernels: &GemvKernels<T>,
    g: &Gemv<T>,
    k: usize,
    batch: usize,
    start: usize,
    end: usize,
    dot_form: bool,
) {
    let mat = g.mat.ptr.add(batch * g.mat_batch_stride);
    let x = g.x.add(batch * g.x_batch_stride);
    let y = g.y.add(batch * g.y_batch_stride);
    let len = end - start;
    let gathered = gather(x, g.incx, k);
    let x = gathered.as_ref().map_or(x, |x| x.as_ptr());
    if dot_form {
        let rows = mat.add(start * g.mat.rs);
        (kernels.dot)(len, k, rows, g.mat.rs, x, y.add(start * g.incy), g.incy);
    } else if g.incy == 1 {
        let out = std::slice::from_raw_parts_mut(y.add(start), len);
        out.fill(T::default());
        (kernels.axpy)(len, k, mat.add(start), g.mat.cs, x, out.as_mut_ptr());
    } else {
        let mut out = vec![T::default(); len];
        (kernels.axpy)(len, k, mat.add(start), g.mat.cs, x, out.as_mut_ptr());
        for (j, value) in out.into_iter().enumerate() {
            *y.add((start + j) * g.incy) = value;
        }
    }
}
