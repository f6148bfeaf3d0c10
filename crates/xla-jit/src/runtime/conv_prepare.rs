//! Convolution preparation: after layout assignment, a large convolution
//! without groups becomes an im2col followed by a dot, so the dot engine
//! does its multiply-adds; the others stay direct convolution kernels
//! (`emit/convolution.rs`).
//!
//! For `lhs` with batch `B`, spatial sizes `S…` and features `C`, a kernel
//! with spatial sizes `K…` (`T = ∏K` taps) and `OF` output features, and
//! output spatial sizes `O…`:
//!
//! 1. `x = transpose(lhs)` to `[B, S…, C]` (skipped when already so);
//! 2. `padded = pad(x, 0)` with the window's padding (negative crops) and
//!    `base_dilation − 1` interior zeros per spatial dimension;
//! 3. per tap `k…` (row-major) a strided slice of `padded` starting at
//!    `k·window_dilation` with the window stride: `[B, O…, C]`;
//! 4. `patches = reshape(concatenate(slices, C dimension))` to
//!    `[B, O…, K…, C]` — never written: fusion recognizes the pattern and
//!    the dot engine packs its panels straight from `padded` through a
//!    window view (`fusion::window`, `dot::WindowLayout`); only where that
//!    does not apply does a compiled loop kernel write the patches;
//!
//!    when the output has fewer positions than the window has taps (the
//!    weight gradient of a convolution, whose window is as large as its
//!    input), steps 3 and 4 go by output position instead: per output
//!    position `o…` a slice starting at `o·stride` with the window's sizes,
//!    strided by the window dilation, `[B, K…, C]`, joined on `B` into
//!    `[O…, B, K…, C]` (1024 slices become 9 for a 3×3 kernel's gradient
//!    over a 32×32 image);
//! 5. `dot(patches, rhs)` contracting `K…, C` with the kernel's spatial and
//!    input-feature dimensions: `[B, O…, OF]` (or `[O…, B, OF]`), computed
//!    by the dot engine;
//! 6. a transpose to the convolution's dimension order and layout (skipped
//!    when the dot result already is it).
//!
//! Example: NHWC `f32[1,56,56,64]` with an HWIO `f32[3,3,64,64]` kernel,
//! SAME padding: `patches` is `f32[1,56,56,3,3,64]` (7 MiB, read in place
//! from the 0.8 MiB `padded`) and the dot is a 3136×576 by 576×64 product.
//!
//! A transposed convolution (a base dilation `d > 1`: JAX's
//! `conv_transpose`, the input gradient of a strided convolution) would
//! multiply the `d − 1` zeros between inputs: three quarters of the work
//! for a stride-2 2-D one. Where every dilated dimension has stride 1 and
//! no window dilation, it is split by the phase of its output instead:
//! the outputs `r + d·j` (for each residue `r < d`) meet real inputs only
//! through the taps `k ≡ padding_low − r (mod d)`, so each phase is an
//! ordinary convolution of the undilated input with that strided slice of
//! the kernel (empty when the kernel is shorter than `d`: zeros), prepared
//! as above; the phases are joined into the output by a concatenate and
//! reshapes that fuse into the result's consumer. `conv_transpose` of
//! `f32[4,32,32,128]` by a 3×3 kernel to 64 features: 2.4 GFLOP as one dot
//! (22 ms), 0.6 GFLOP as four (5.5 ms).
//!
//! f16 and bf16 operands are converted to f32 (exactly) and a 16-bit
//! result is the f32 dot rounded once, as `docs/semantics.md`, *Accumulation in dot and
//! convolution* requires. The dot's sums run in the engine's order, which differs from the direct
//! kernel's (and the interpreter's) only in float summation order.

use xla_core::arith::{ceil_div, next_index};
use xla_core::hlo::{DotDimensionNumbers, InstrId, PadDim, SliceDim, Window, WindowDim};
use xla_core::{ArrayShape, HloInstruction, HloModule, Layout, Literal, Opcode, PrimitiveType};

use super::rewrite::{rewrite_module, Emitted};

/// Multiply-adds below which the direct convolution kernel is as fast as
/// im2col plus a dot (the im2col copy and the dot's packing dominate).
/// Measured on this machine (f32, NHWC, 3×3, SAME): 8×8×16 → 16 features
/// (147k multiply-adds) takes 42 µs direct and 21 µs as im2col plus a
/// dot; 16×16×16 → 16 (590k) 180 µs and 64 µs.
const MIN_MACS: i64 = 1 << 16;
/// The contracting size below which a dot does not pay off (`T·C`).
const MIN_CONTRACTING: i64 = 16;
/// The largest patches matrix written, in bytes.
const MAX_PATCHES_BYTES: i64 = 256 << 20;

/// Rewrites the convolutions of `module` that [`worth_im2col`] picks;
/// `true` if any changed.
pub(crate) fn prepare_convolutions(module: &mut HloModule) -> bool {
    rewrite_module(module, |out, instr| match instr.opcode {
        Opcode::Convolution if by_phases(&instr) && worth_im2col(out, &instr) => out.phases(instr),
        Opcode::Convolution => out.prepared(instr),
        _ => out.push(instr),
    })
}

/// Whether convolution `conv` is a transposed one (some spatial dimension
/// has a base dilation, as JAX's `conv_transpose` and the input gradient
/// of a strided convolution have) that [`Emitted::phases`] can split:
/// every dilated dimension has stride 1, no window dilation and no
/// reversal. (Empty dimensions and non-array results are left to
/// [`worth_im2col`], which the caller asks too.)
fn by_phases(conv: &HloInstruction) -> bool {
    conv.attrs.window.as_ref().is_some_and(|window| {
        window.dims.iter().any(|w| w.base_dilation > 1)
            && window.dims.iter().all(|w| {
                w.base_dilation == 1
                    || (w.stride == 1 && w.window_dilation == 1 && !w.window_reversal)
            })
    })
}

/// Whether convolution `conv` runs faster as im2col plus a dot: no feature
/// or batch groups, no window reversal, a float result whose operands
/// convert to its compute type exactly, no size-0 dimension, a contracting size `T·C` of at least
/// [`MIN_CONTRACTING`], at least [`MIN_MACS`] multiply-adds, and patches
/// of at most [`MAX_PATCHES_BYTES`].
fn worth_im2col(out: &Emitted, conv: &HloInstruction) -> bool {
    let (Some(n), Some(result)) = (&conv.attrs.conv_dims, conv.shape.as_array()) else {
        return false;
    };
    let (lhs, rhs) = (out.shape(conv.operands[0]), out.shape(conv.operands[1]));
    let ty = result.element_type();
    let window = conv.attrs.window.as_ref().map_or(&[][..], |w| &w.dims[..]);
    let groups = conv.attrs.feature_group_count.unwrap_or(1) != 1
        || conv.attrs.batch_group_count.unwrap_or(1) != 1;
    if groups
        || window.len() != n.input_spatial.len()
        || window.iter().any(|w| w.window_reversal)
        || !exact_in_compute(lhs.element_type(), ty)
        || !exact_in_compute(rhs.element_type(), ty)
        || [lhs.dims(), rhs.dims(), result.dims()]
            .iter()
            .any(|d| d.contains(&0))
    {
        return false;
    }
    let contracting: i64 = rhs.dims()[n.kernel_input_feature as usize]
        * n.kernel_spatial
            .iter()
            .map(|&d| rhs.dims()[d as usize])
            .product::<i64>();
    let rows = result.element_count() / result.dims()[n.output_feature as usize];
    let patches_bytes = rows * contracting * compute_type(ty).byte_size() as i64;
    contracting >= MIN_CONTRACTING
        && result.element_count() * contracting >= MIN_MACS
        && patches_bytes <= MAX_PATCHES_BYTES
}

/// The slice bounds `[0:size:1]` of each of `dims`.
fn whole(dims: &[i64]) -> Vec<SliceDim> {
    dims.iter()
        .map(|&size| SliceDim {
            start: 0,
            limit: size,
            stride: 1,
        })
        .collect()
}

/// The type the dot computes a convolution with result type `ty` in: f64
/// for f64, else f32 (f16 and bf16 products summed in f32 and rounded
/// once, `docs/semantics.md`, *Accumulation in dot and convolution*).
fn compute_type(ty: PrimitiveType) -> PrimitiveType {
    match ty {
        PrimitiveType::F64 => PrimitiveType::F64,
        _ => PrimitiveType::F32,
    }
}

/// Whether an operand of type `operand` of a convolution with result type
/// `ty` goes through the dot: float results only, and the operand
/// converts to the result type exactly (the interpreter converts it
/// first): the same type, or f16/bf16 into f32.
fn exact_in_compute(operand: PrimitiveType, ty: PrimitiveType) -> bool {
    use PrimitiveType as P;
    match ty {
        P::F64 | P::F16 | P::Bf16 => operand == ty,
        P::F32 => matches!(operand, P::F32 | P::F16 | P::Bf16),
        _ => false,
    }
}

impl Emitted<'_> {
    /// Emits convolution `conv` as im2col plus a dot when [`worth_im2col`]
    /// says so, else as itself; the id holding its value.
    fn prepared(&mut self, conv: HloInstruction) -> InstrId {
        if worth_im2col(self, &conv) {
            self.im2col(conv)
        } else {
            self.push(conv)
        }
    }

    /// Emits the transposed convolution `conv` ([`by_phases`]) as one
    /// convolution per phase (see the module docs), each prepared on its
    /// own, interleaved into the result; the id holding its value.
    fn phases(&mut self, conv: HloInstruction) -> InstrId {
        let n = conv.attrs.conv_dims.clone().expect("a convolution");
        let window = conv
            .attrs
            .window
            .clone()
            .expect("checked by by_phases")
            .dims;
        let result = conv.shape.as_array().expect("checked").clone();
        let ty = result.element_type();
        let base = conv.name.clone();
        let (lhs, rhs) = (conv.operands[0], conv.operands[1]);
        let lhs_dims = self.shape(lhs).dims().to_vec();
        let rhs_shape = self.shape(rhs).clone();
        let factor: Vec<i64> = window.iter().map(|w| w.base_dilation).collect();
        // Each phase computes `⌈O / d⌉` outputs per dilated dimension (the
        // last ones of some phases are cut off at the end).
        let per_phase: Vec<i64> = n
            .output_spatial
            .iter()
            .zip(&factor)
            .map(|(&o, &d)| ceil_div(result.dims()[o as usize], d))
            .collect();
        let mut phase_dims = result.dims().to_vec();
        for (&o, &size) in n.output_spatial.iter().zip(&per_phase) {
            phase_dims[o as usize] = size;
        }
        let phase_shape = ArrayShape::new(ty, phase_dims.clone()).with_default_layout();

        // The phases, the last spatial dimension's residue fastest.
        let mut phases = Vec::new();
        let mut residue = vec![0i64; factor.len()];
        loop {
            let mut windows = window.clone();
            let mut taps = whole(rhs_shape.dims());
            let mut empty = false;
            for (i, w) in window.iter().enumerate() {
                let d = factor[i];
                if d == 1 {
                    continue;
                }
                // Output `r + d·j` meets a real input through the taps
                // `k ≡ padding_low − r (mod d)`: `k0 + d·t`, reading input
                // `j + t + c`.
                let first = (w.padding_low - residue[i]).rem_euclid(d);
                if first >= w.size {
                    empty = true;
                    break;
                }
                let count = ceil_div(w.size - first, d);
                let low = -(residue[i] + first - w.padding_low).div_euclid(d);
                let input = lhs_dims[n.input_spatial[i] as usize];
                windows[i] = WindowDim {
                    size: count,
                    padding_low: low,
                    padding_high: per_phase[i] - 1 + count - input - low,
                    ..WindowDim::default()
                };
                taps[n.kernel_spatial[i] as usize] = SliceDim {
                    start: first,
                    limit: first + (count - 1) * d + 1,
                    stride: d,
                };
            }
            phases.push(if empty {
                let zero = self.zero(&base, ty);
                let mut b = self.named(
                    &base,
                    Opcode::Broadcast,
                    phase_shape.clone().into(),
                    vec![zero],
                );
                b.attrs.dimensions = Some(Vec::new());
                self.push(b)
            } else {
                let kernel_dims: Vec<i64> = taps
                    .iter()
                    .map(|t| ceil_div(t.limit - t.start, t.stride))
                    .collect();
                let kernel = if kernel_dims == rhs_shape.dims() {
                    rhs
                } else {
                    let shape = ArrayShape::new(rhs_shape.element_type(), kernel_dims)
                        .with_default_layout();
                    let mut s = self.named(&base, Opcode::Slice, shape.into(), vec![rhs]);
                    s.attrs.slice = Some(taps);
                    self.push(s)
                };
                let mut p = self.named(
                    &base,
                    Opcode::Convolution,
                    phase_shape.clone().into(),
                    vec![lhs, kernel],
                );
                p.attrs = conv.attrs.clone();
                p.attrs.window = Some(Window { dims: windows });
                self.prepared(p)
            });
            if !next_index(&mut residue, &factor) {
                break;
            }
        }

        // Interleaved: each dilated output dimension `o` split into
        // `[⌈O / d⌉, 1]`, the phases joined on the `1`s, the last spatial
        // dimension first, then merged back and cut to `O`.
        let mut split = Vec::new();
        let mut unit_axis = vec![0usize; factor.len()];
        for (e, &size) in phase_dims.iter().enumerate() {
            split.push(size);
            if let Some(i) = n.output_spatial.iter().position(|&o| o as usize == e) {
                if factor[i] > 1 {
                    unit_axis[i] = split.len();
                    split.push(1);
                }
            }
        }
        let mut items: Vec<InstrId> = phases
            .into_iter()
            .map(|p| {
                let shape = ArrayShape::new(ty, split.clone()).with_default_layout();
                let r = self.named(&base, Opcode::Reshape, shape.into(), vec![p]);
                self.push(r)
            })
            .collect();
        for i in (0..factor.len()).rev().filter(|&i| factor[i] > 1) {
            split[unit_axis[i]] = factor[i];
            let shape = ArrayShape::new(ty, split.clone()).with_default_layout();
            items = items
                .chunks(factor[i] as usize)
                .map(|group| {
                    let mut c = self.named(
                        &base,
                        Opcode::Concatenate,
                        shape.clone().into(),
                        group.to_vec(),
                    );
                    c.attrs.dimensions = Some(vec![unit_axis[i] as i64]);
                    self.push(c)
                })
                .collect();
        }
        let mut merged_dims = phase_dims.clone();
        for (i, &o) in n.output_spatial.iter().enumerate() {
            merged_dims[o as usize] *= factor[i];
        }
        let merged = ArrayShape::new(ty, merged_dims.clone()).with_default_layout();
        let r = self.named(&base, Opcode::Reshape, merged.into(), vec![items[0]]);
        let mut out = self.push(r);
        if merged_dims != result.dims() {
            let bounds = whole(result.dims());
            let shape = ArrayShape::new(ty, result.dims().to_vec()).with_default_layout();
            let mut s = self.named(&base, Opcode::Slice, shape.into(), vec![out]);
            s.attrs.slice = Some(bounds);
            out = self.push(s);
        }
        if result.layout_or_default() != Layout::default_for_rank(result.rank()) {
            let c = self.named(&base, Opcode::Copy, result.into(), vec![out]);
            out = self.push(c);
        }
        out
    }

    /// A zero scalar of type `ty`.
    fn zero(&mut self, base: &str, ty: PrimitiveType) -> InstrId {
        let scalar = ArrayShape::new(ty, Vec::<i64>::new()).with_default_layout();
        let mut zero = self.named(base, Opcode::Constant, scalar.clone().into(), vec![]);
        zero.attrs.literal = Some(Literal::zeros(&scalar.into()).expect("a scalar literal"));
        self.push(zero)
    }

    /// Emits `conv` as im2col plus a dot (see the module docs); the id
    /// holding its value.
    fn im2col(&mut self, conv: HloInstruction) -> InstrId {
        let n = conv
            .attrs
            .conv_dims
            .clone()
            .expect("checked by worth_im2col");
        let window = conv.attrs.window.clone().expect("checked").dims;
        let result = conv.shape.as_array().expect("checked").clone();
        let (lhs, rhs) = (conv.operands[0], conv.operands[1]);
        let ty = result.element_type();
        let compute = compute_type(ty);
        let base = conv.name.clone();
        let spatial = window.len();
        let row_major = |dims: Vec<i64>| ArrayShape::new(compute, dims).with_default_layout();

        // 1. `[B, S…, C]`.
        let order: Vec<i64> = std::iter::once(n.input_batch)
            .chain(n.input_spatial.iter().copied())
            .chain(std::iter::once(n.input_feature))
            .collect();
        let lhs_dims = self.shape(lhs).dims().to_vec();
        let dims: Vec<i64> = order.iter().map(|&d| lhs_dims[d as usize]).collect();
        let x = self.converted(&base, lhs, compute);
        let x = if order.iter().enumerate().all(|(i, &d)| i as i64 == d)
            && self.shape(x).layout_or_default() == row_major(dims.clone()).layout_or_default()
        {
            x
        } else {
            let mut t = self.named(
                &base,
                Opcode::Transpose,
                row_major(dims.clone()).into(),
                vec![x],
            );
            t.attrs.dimensions = Some(order);
            self.push(t)
        };

        // 2. Padding and base dilation.
        let mut pads = vec![PadDim::default(); spatial + 2];
        let mut padded_dims = dims.clone();
        for (i, w) in window.iter().enumerate() {
            pads[i + 1] = PadDim {
                low: w.padding_low,
                high: w.padding_high,
                interior: w.base_dilation - 1,
            };
            let s = dims[i + 1];
            padded_dims[i + 1] = w.padding_low + (s - 1) * w.base_dilation + 1 + w.padding_high;
        }
        let padded = if pads.iter().all(|p| *p == PadDim::default()) {
            x
        } else {
            let zero = self.zero(&base, compute);
            let mut p = self.named(
                &base,
                Opcode::Pad,
                row_major(padded_dims.clone()).into(),
                vec![x, zero],
            );
            p.attrs.padding = Some(pads);
            self.push(p)
        };

        // 3. The patches as strided slices of `padded`: one per tap, with
        // the output's spatial sizes, or, when the output has fewer
        // positions than the window has taps (a weight gradient, whose
        // window is as large as the input), one per output position, with
        // the window's sizes.
        let rhs_dims = self.shape(rhs).dims().to_vec();
        let kernel: Vec<i64> = n
            .kernel_spatial
            .iter()
            .map(|&d| rhs_dims[d as usize])
            .collect();
        let out_spatial: Vec<i64> = n
            .output_spatial
            .iter()
            .map(|&d| result.dims()[d as usize])
            .collect();
        let by_output = out_spatial.iter().product::<i64>() < kernel.iter().product::<i64>();
        let (outer, inner) = if by_output {
            (&out_spatial, &kernel)
        } else {
            (&kernel, &out_spatial)
        };
        let (batch, features) = (dims[0], dims[spatial + 1]);
        let slice_dims: Vec<i64> = std::iter::once(batch)
            .chain(inner.iter().copied())
            .chain(std::iter::once(features))
            .collect();
        let mut slices = Vec::new();
        let mut position = vec![0i64; spatial];
        loop {
            let mut bounds = vec![SliceDim {
                start: 0,
                limit: batch,
                stride: 1,
            }];
            for (i, w) in window.iter().enumerate() {
                let (step, inner_step) = if by_output {
                    (w.stride, w.window_dilation)
                } else {
                    (w.window_dilation, w.stride)
                };
                let start = position[i] * step;
                bounds.push(SliceDim {
                    start,
                    limit: start + (inner[i] - 1) * inner_step + 1,
                    stride: inner_step,
                });
            }
            bounds.push(SliceDim {
                start: 0,
                limit: features,
                stride: 1,
            });
            let whole = bounds
                .iter()
                .zip(&padded_dims)
                .all(|(b, &size)| b.start == 0 && b.stride == 1 && b.limit == size);
            if whole {
                // A 1×1 window over the whole input (no padding or stride),
                // or a window as large as the input.
                slices.push(padded);
            } else {
                let mut s = self.named(
                    &base,
                    Opcode::Slice,
                    row_major(slice_dims.clone()).into(),
                    vec![padded],
                );
                s.attrs.slice = Some(bounds);
                slices.push(self.push(s));
            }
            // The next position, the last spatial dimension fastest.
            if !next_index(&mut position, outer) {
                break;
            }
        }

        // 4. `[B, O…, K…, C]` from the taps' slices joined on `C`, or
        // `[O…, B, K…, C]` from the output positions' slices joined on `B`.
        let count = slices.len() as i64;
        let joined = if slices.len() == 1 {
            slices[0]
        } else {
            let axis = if by_output { 0 } else { spatial + 1 };
            let mut cat_dims = slice_dims.clone();
            cat_dims[axis] *= count;
            let mut c = self.named(
                &base,
                Opcode::Concatenate,
                row_major(cat_dims).into(),
                slices,
            );
            c.attrs.dimensions = Some(vec![axis as i64]);
            self.push(c)
        };
        // The batch's place among the leading dimensions: before the
        // output's spatial ones (by tap) or after them (by output position).
        let batch_at = if by_output { spatial } else { 0 };
        let with_batch = |rest: &[i64]| -> Vec<i64> {
            let mut dims = out_spatial.clone();
            dims.insert(batch_at, batch);
            dims.extend_from_slice(rest);
            dims
        };
        // A 1×1 window's patches are the joined slice itself, `[B, O…, C]`,
        // and the dot contracts the kernel without its unit dimensions: no
        // reshape between the dot and a producer that becomes its epilogue.
        let unit_window = !by_output && kernel.iter().all(|&k| k == 1);
        let patches = if unit_window {
            joined
        } else {
            let patch_dims = with_batch(&[&kernel[..], &[features]].concat());
            let reshape = self.named(
                &base,
                Opcode::Reshape,
                row_major(patch_dims).into(),
                vec![joined],
            );
            self.push(reshape)
        };

        // 5. The dot.
        let out_features = rhs_dims[n.kernel_output_feature as usize];
        let dot_dims = with_batch(&[out_features]);
        let mut kernel_operand = self.converted(&base, rhs, compute);
        let first_tap = spatial as i64 + 1;
        let (lhs_contracting, rhs_contracting) = if unit_window {
            // `[I, O]` or `[O, I]`, as the kernel orders them.
            let input_first = n.kernel_input_feature < n.kernel_output_feature;
            let dims = if input_first {
                vec![features, out_features]
            } else {
                vec![out_features, features]
            };
            let r = self.named(
                &base,
                Opcode::Reshape,
                row_major(dims).into(),
                vec![kernel_operand],
            );
            kernel_operand = self.push(r);
            (vec![spatial as i64 + 1], vec![i64::from(!input_first)])
        } else {
            (
                (first_tap..first_tap + spatial as i64 + 1).collect(),
                n.kernel_spatial
                    .iter()
                    .copied()
                    .chain(std::iter::once(n.kernel_input_feature))
                    .collect(),
            )
        };
        let mut dot = self.named(
            &base,
            Opcode::Dot,
            row_major(dot_dims.clone()).into(),
            vec![patches, kernel_operand],
        );
        dot.attrs.dot_dims = Some(DotDimensionNumbers {
            lhs_batch: vec![],
            rhs_batch: vec![],
            lhs_contracting,
            rhs_contracting,
        });
        let dot = self.push(dot);

        // 6. The convolution's dimension order and layout: output dimension
        // `d` is dot dimension `permutation[d]`.
        let mut permutation = vec![0i64; result.dims().len()];
        let first_spatial = if by_output { 0 } else { 1 };
        permutation[n.output_batch as usize] = batch_at as i64;
        for (i, &d) in n.output_spatial.iter().enumerate() {
            permutation[d as usize] = (first_spatial + i) as i64;
        }
        permutation[n.output_feature as usize] = spatial as i64 + 1;
        let identity = permutation.iter().enumerate().all(|(i, &d)| i as i64 == d);
        let computed = result.clone().with_element_type(compute);
        let out = if identity
            && computed.layout_or_default() == row_major(dot_dims).layout_or_default()
        {
            dot
        } else {
            let mut t = self.named(&base, Opcode::Transpose, computed.into(), vec![dot]);
            t.attrs.dimensions = Some(permutation);
            self.push(t)
        };
        if ty == compute {
            return out;
        }
        let c = self.named(&base, Opcode::Convert, result.into(), vec![out]);
        self.push(c)
    }
}
