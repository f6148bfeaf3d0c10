//! `fft` on `rustfft` and `realfft`: plans made at compile time, batched
//! over the leading dimensions and split over the pool's threads.
//!
//! The transform runs over the `l` innermost dimensions (1 to 3) of a
//! row-major array, one axis at a time. The innermost axis transforms
//! contiguous rows in place; an outer axis gathers a block of its lines
//! (neighbouring columns) into a contiguous buffer, transforms them and
//! scatters them back. `IFFT` and `IRFFT` scale by `1 / (n₀·…·nₗ₋₁)`, as
//! XLA does; `IRFFT` ignores the imaginary parts of the spectrum's first
//! element and, for even lengths, its last one (a real signal's spectrum
//! has none there), as XLA's DUCC does.

use std::ops::Range;
use std::sync::Arc;

use num_complex::Complex;
use realfft::{ComplexToReal, RealFftPlanner, RealToComplex};
use rustfft::{Fft, FftNum, FftPlanner};
use xla_core::hlo::{FftType, HloInstruction};
use xla_core::{PrimitiveType, Shape};

use super::{for_ranges, Span};
use crate::pool::ThreadPool;

/// Lines of an outer axis transformed together (gathered side by side).
const BLOCK: usize = 16;

/// Complex elements below which a transform runs on one thread.
const PARALLEL_ELEMENTS: usize = 1 << 14;

/// An `fft` instruction, planned.
pub(crate) enum FftRoutine {
    /// `c64` (and `f32` for the real transforms).
    F32(Plan<f32>),
    /// `c128` (and `f64`).
    F64(Plan<f64>),
}

impl FftRoutine {
    /// The plan for `instr`, whose operand has shape `operand`; `None`
    /// when the shapes are not what XLA's verifier admits (the
    /// interpreter then reports them) or an axis is empty.
    pub fn new(instr: &HloInstruction, operand: &Shape) -> Option<Self> {
        let kind = instr.attrs.fft_type?;
        let lengths: Vec<usize> = instr
            .attrs
            .fft_length
            .as_deref()?
            .iter()
            .map(|&n| usize::try_from(n).ok().filter(|&n| n > 0))
            .collect::<Option<_>>()?;
        let (operand, result) = (operand.as_array()?, instr.shape.as_array()?);
        let dims = |s: &xla_core::ArrayShape| -> Option<Vec<usize>> {
            s.dims().iter().map(|&d| usize::try_from(d).ok()).collect()
        };
        let (in_dims, out_dims) = (dims(operand)?, dims(result)?);
        let l = lengths.len();
        if !(1..=3).contains(&l) || in_dims.len() < l || in_dims.len() != out_dims.len() {
            return None;
        }
        let rank = in_dims.len();
        let inner = lengths[l - 1];
        let half = inner / 2 + 1;
        // The complex side's transformed dimensions.
        let mut spectrum = lengths.clone();
        if matches!(kind, FftType::Rfft | FftType::Irfft) {
            spectrum[l - 1] = half;
        }
        let (real_in, real_out) = match kind {
            FftType::Fft | FftType::Ifft => (&spectrum, &spectrum),
            FftType::Rfft => (&lengths, &spectrum),
            FftType::Irfft => (&spectrum, &lengths),
        };
        let leading = &in_dims[..rank - l];
        if in_dims[rank - l..] != real_in[..]
            || out_dims[rank - l..] != real_out[..]
            || out_dims[..rank - l] != *leading
            || leading.contains(&0)
        {
            return None;
        }
        let batch = leading.iter().product();
        let geometry = Geometry {
            kind,
            batch,
            lengths,
            spectrum,
        };
        match (operand.element_type(), result.element_type()) {
            (PrimitiveType::C64, PrimitiveType::C64)
            | (PrimitiveType::F32, PrimitiveType::C64)
            | (PrimitiveType::C64, PrimitiveType::F32) => {
                Some(FftRoutine::F32(Plan::new(geometry)))
            }
            (PrimitiveType::C128, PrimitiveType::C128)
            | (PrimitiveType::F64, PrimitiveType::C128)
            | (PrimitiveType::C128, PrimitiveType::F64) => {
                Some(FftRoutine::F64(Plan::new(geometry)))
            }
            _ => None,
        }
    }

    /// `fft(input)` into `output`.
    ///
    /// # Safety
    ///
    /// `input` and `output` are live, distinct, aligned buffers of the
    /// operand's and the result's shapes (row-major).
    pub unsafe fn run(&self, input: *const u8, output: *mut u8, pool: &ThreadPool) {
        // SAFETY: as the caller promises.
        unsafe {
            match self {
                FftRoutine::F32(plan) => plan.run(input, output, pool),
                FftRoutine::F64(plan) => plan.run(input, output, pool),
            }
        }
    }

    /// `FFT c64 [batch × 128×128]`, for dumps and profiles.
    pub fn describe(&self) -> String {
        let (g, ty) = match self {
            FftRoutine::F32(p) => (&p.geometry, "32"),
            FftRoutine::F64(p) => (&p.geometry, "64"),
        };
        let lengths: Vec<String> = g.lengths.iter().map(|n| n.to_string()).collect();
        format!("{} f{ty} [{} × {}]", g.kind, g.batch, lengths.join("×"))
    }
}

/// What is transformed.
struct Geometry {
    kind: FftType,
    /// The number of transforms (the product of the leading dimensions).
    batch: usize,
    /// `fft_length`: the signal's lengths.
    lengths: Vec<usize>,
    /// The complex side's lengths: `lengths`, but `n / 2 + 1` innermost for
    /// the real transforms.
    spectrum: Vec<usize>,
}

/// A planned transform in precision `T`.
pub(crate) struct Plan<T: FftNum> {
    geometry: Geometry,
    /// Per axis of the complex side, its complex transform (forward, or
    /// inverse for IFFT/IRFFT); the innermost one is unused by the real
    /// transforms.
    axes: Vec<Arc<dyn Fft<T>>>,
    /// The innermost axis of RFFT.
    forward_real: Option<Arc<dyn RealToComplex<T>>>,
    /// The innermost axis of IRFFT.
    inverse_real: Option<Arc<dyn ComplexToReal<T>>>,
}

impl<T: FftNum> Plan<T> {
    fn new(geometry: Geometry) -> Self {
        let inverse = matches!(geometry.kind, FftType::Ifft | FftType::Irfft);
        let mut planner = FftPlanner::<T>::new();
        let axes = geometry
            .spectrum
            .iter()
            .map(|&n| {
                if inverse {
                    planner.plan_fft_inverse(n)
                } else {
                    planner.plan_fft_forward(n)
                }
            })
            .collect();
        let mut real = RealFftPlanner::<T>::new();
        let inner = *geometry.lengths.last().expect("1 to 3 lengths");
        let forward_real = (geometry.kind == FftType::Rfft).then(|| real.plan_fft_forward(inner));
        let inverse_real = (geometry.kind == FftType::Irfft).then(|| real.plan_fft_inverse(inner));
        Plan {
            geometry,
            axes,
            forward_real,
            inverse_real,
        }
    }

    /// # Safety
    ///
    /// As [`FftRoutine::run`].
    unsafe fn run(&self, input: *const u8, output: *mut u8, pool: &ThreadPool) {
        let g = &self.geometry;
        let spectrum_len = g.batch * g.spectrum.iter().product::<usize>();
        let signal_len = g.batch * g.lengths.iter().product::<usize>();
        let scale = T::from_f64(1.0 / g.lengths.iter().product::<usize>() as f64)
            .expect("a float converts");
        match g.kind {
            FftType::Fft | FftType::Ifft => {
                let source = Span::new(input.cast_mut().cast::<Complex<T>>(), spectrum_len);
                let data = Span::new(output.cast::<Complex<T>>(), spectrum_len);
                let scale = (g.kind == FftType::Ifft).then_some(scale);
                self.inner_complex(source, data, scale, pool);
                self.outer_axes(data, pool);
            }
            FftType::Rfft => {
                let input = Span::new(input.cast_mut().cast::<T>(), signal_len);
                let data = Span::new(output.cast::<Complex<T>>(), spectrum_len);
                self.inner_forward_real(input, data, pool);
                self.outer_axes(data, pool);
            }
            FftType::Irfft => {
                // The outer axes transform a copy: the operand is read-only.
                let mut copy = Vec::with_capacity(spectrum_len);
                // SAFETY: the operand holds `spectrum_len` complex values.
                copy.extend_from_slice(unsafe {
                    std::slice::from_raw_parts(input.cast::<Complex<T>>(), spectrum_len)
                });
                let data = Span::new(copy.as_mut_ptr(), spectrum_len);
                self.outer_axes(data, pool);
                let out = Span::new(output.cast::<T>(), signal_len);
                self.inner_inverse_real(data, out, scale, pool);
            }
        }
    }

    /// The innermost axis of FFT/IFFT: each task copies its rows of
    /// `source` (the operand, read) into `data` and transforms them there
    /// in place, then scales them.
    fn inner_complex(
        &self,
        source: Span<Complex<T>>,
        data: Span<Complex<T>>,
        scale: Option<T>,
        pool: &ThreadPool,
    ) {
        let fft = self.axes.last().expect("1 to 3 axes");
        let n = fft.len();
        let rows = data.len / n;
        split(pool, rows, data.len, |rows| {
            let mut scratch = zeros(fft.get_inplace_scratch_len());
            let (at, len) = (rows.start * n, rows.len() * n);
            // SAFETY: tasks take disjoint row ranges of the result, and
            // only read the operand.
            let rows = unsafe { data.slice(at, len) };
            rows.copy_from_slice(unsafe { source.slice(at, len) });
            fft.process_with_scratch(rows, &mut scratch);
            if let Some(scale) = scale {
                rows.iter_mut().for_each(|z| *z = *z * scale);
            }
        });
    }

    /// The innermost axis of RFFT: real rows of `input` into complex rows of
    /// `data`.
    fn inner_forward_real(&self, input: Span<T>, data: Span<Complex<T>>, pool: &ThreadPool) {
        let r2c = self.forward_real.as_ref().expect("planned for RFFT");
        let (n, half) = (r2c.len(), r2c.len() / 2 + 1);
        let rows = input.len / n;
        split(pool, rows, data.len, |rows| {
            let mut row = vec![T::zero(); n];
            let mut scratch = zeros(r2c.get_scratch_len());
            for r in rows.clone() {
                // SAFETY: row `r` of the operand (read) and of the result
                // (written by this task alone).
                let (signal, spectrum) =
                    unsafe { (input.slice(r * n, n), data.slice(r * half, half)) };
                row.copy_from_slice(signal);
                r2c.process_with_scratch(&mut row, spectrum, &mut scratch)
                    .expect("lengths match the plan");
            }
        });
    }

    /// The innermost axis of IRFFT: complex rows of `data` (consumed) into
    /// real rows of `out`, scaled.
    fn inner_inverse_real(
        &self,
        data: Span<Complex<T>>,
        out: Span<T>,
        scale: T,
        pool: &ThreadPool,
    ) {
        let c2r = self.inverse_real.as_ref().expect("planned for IRFFT");
        let (n, half) = (c2r.len(), c2r.len() / 2 + 1);
        let rows = out.len / n;
        split(pool, rows, data.len, |rows| {
            let mut scratch = zeros(c2r.get_scratch_len());
            for r in rows.clone() {
                // SAFETY: row `r` of the copy and of the result, this task's
                // alone.
                let (spectrum, signal) =
                    unsafe { (data.slice(r * half, half), out.slice(r * n, n)) };
                spectrum[0].im = T::zero();
                if n % 2 == 0 {
                    spectrum[half - 1].im = T::zero();
                }
                c2r.process_with_scratch(spectrum, signal, &mut scratch)
                    .expect("lengths match the plan, and the ignored parts are zero");
                signal.iter_mut().for_each(|x| *x = *x * scale);
            }
        });
    }

    /// Every transformed axis but the innermost, in place on the complex
    /// side.
    fn outer_axes(&self, data: Span<Complex<T>>, pool: &ThreadPool) {
        let spectrum = &self.geometry.spectrum;
        let l = spectrum.len();
        for axis in 0..l - 1 {
            let fft = &self.axes[axis];
            let n = spectrum[axis];
            // Lines of this axis: `outer` groups of `stride` neighbours.
            let stride: usize = spectrum[axis + 1..].iter().product();
            let outer = data.len / (n * stride);
            let blocks = stride.div_ceil(BLOCK);
            split(pool, outer * blocks, data.len, |tasks| {
                let mut lines = zeros(BLOCK * n);
                let mut scratch = zeros(fft.get_inplace_scratch_len());
                for task in tasks.clone() {
                    let (o, b) = (task / blocks, task % blocks);
                    let column = b * BLOCK;
                    let width = BLOCK.min(stride - column);
                    let base = o * n * stride + column;
                    // SAFETY: the block's columns of group `o`, which no
                    // other task touches: element `(k, j)` is at
                    // `base + k·stride + j`, line `j`'s element `k` at
                    // `j·n + k` of `lines` (`width·n` long).
                    unsafe { data.gather(&mut lines, base, stride, n, width) };
                    fft.process_with_scratch(&mut lines[..width * n], &mut scratch);
                    // SAFETY: as above.
                    unsafe { data.scatter(&lines, base, stride, n, width) };
                }
            });
        }
    }
}

/// Runs `body` over `0..items` in contiguous ranges, on every thread of
/// the pool for a transform over `elements` complex values of at least
/// [`PARALLEL_ELEMENTS`], else on the caller.
fn split(pool: &ThreadPool, items: usize, elements: usize, body: impl Fn(Range<usize>) + Sync) {
    let tasks = if elements >= PARALLEL_ELEMENTS {
        pool.threads()
    } else {
        1
    };
    for_ranges(pool, items, tasks, body);
}

fn zeros<T: FftNum>(len: usize) -> Vec<Complex<T>> {
    vec![Complex::new(T::zero(), T::zero()); len]
}
