//! Dot and convolution (`docs/semantics.md`, *Convolution*, *Dot*).

use super::check::{self, bare_array, Order};
use super::error::InferError;
use super::parts::RankRule;
use super::window::{check_window, window_output};
use crate::hlo::{ConvDimensionNumbers, DotDimensionNumbers, Opcode, Window};
use crate::{ArrayShape, Dim, PrimitiveType};

/// The result of a dot or convolution whose caller asks for
/// `preferred_element_type` (JAX's `preferred_element_type`; in HLO text, the
/// instruction's own element type): XLA's `MaybeUpcast`. Floating-point
/// results may take any type; an integer result must not be narrower than
/// the operands' type (`s8·s8 → s32` is fine, `s32·s32 → s8` is not).
///
/// | operands | preferred | result |
/// |---|---|---|
/// | `bf16`, `bf16` | `f32` | `f32` |
/// | `s8`, `s8` | `s32` | `s32` |
/// | `f32`, `f32` | `bf16` | `bf16` |
/// | `s32`, `s32` | `s8` | error |
pub fn with_preferred_element_type<D: Dim>(
    op: Opcode,
    shape: ArrayShape<D>,
    preferred: Option<PrimitiveType>,
) -> Result<ArrayShape<D>, InferError<D>> {
    let from = shape.element_type();
    match preferred {
        None => Ok(shape),
        Some(to) if to == from => Ok(shape),
        Some(to) if !from.is_floating() && to.bit_width() < from.bit_width() => {
            Err(InferError::NarrowPreferredType {
                op: op.name(),
                from,
                to,
            })
        }
        Some(to) => Ok(shape.with_element_type(to)),
    }
}

/// `Dot(lhs, rhs)` (`docs/semantics.md`, *Dot*): ranks 1 or 2; contracts the last
/// dimension of `lhs` with the first of `rhs`.
///
/// | lhs     | rhs     | result                  |
/// |---------|---------|-------------------------|
/// | `[n]`   | `[n]`   | `[]`                    |
/// | `[m,k]` | `[k]`   | `[m]`                   |
/// | `[k]`   | `[k,n]` | `[n]`                   |
/// | `[m,k]` | `[k,n]` | `[m,n]`                 |
/// | `[2,3]` | `[4,5]` | error: 3 vs 4           |
/// | `[2,3,4]` | `[4]` | error: rank 3           |
pub fn dot<D: Dim>(
    lhs: &ArrayShape<D>,
    rhs: &ArrayShape<D>,
) -> Result<ArrayShape<D>, InferError<D>> {
    let op = Opcode::Dot.name();
    for (index, shape) in [(0, lhs), (1, rhs)] {
        if !(1..=2).contains(&shape.rank()) {
            return Err(InferError::Rank {
                op,
                index,
                shape: bare_array(shape),
                expected: RankRule::OneOrTwo,
            });
        }
    }
    let dims = DotDimensionNumbers {
        lhs_contracting: vec![lhs.rank() as i64 - 1],
        rhs_contracting: vec![0],
        ..Default::default()
    };
    dot_general(lhs, rhs, &dims)
}

/// `DotGeneral(lhs, rhs, dimension_numbers)` (`docs/semantics.md`, *Dot*): batch
/// dimensions first (in `lhs_batch_dims` order), then the lhs free
/// dimensions, then the rhs free dimensions. Paired contracting and batch
/// dimensions must have equal sizes; within an operand the contracting and
/// batch lists are disjoint and free of repeats.
///
/// | lhs         | rhs         | lb, rb      | lc, rc     | result        |
/// |-------------|-------------|-------------|------------|---------------|
/// | `[2,3]`     | `[2,3]`     | —           | `{1}`,`{1}`| `[2,2]`       |
/// | `[b,m,k]`   | `[b,k,n]`   | `{0}`,`{0}` | `{2}`,`{1}`| `[b,m,n]`     |
/// | `[2,3,4]`   | `[4,2,5]`   | `{0}`,`{1}` | `{2}`,`{0}`| `[2,3,5]`     |
/// | `[2,3]`     | `[4,3]`     | —           | `{1}`,`{0}`| error: 3 vs 4 |
/// | `[2,3]`     | `[3,4]`     | —           | `{1}`,`{}` | error: lengths |
pub fn dot_general<D: Dim>(
    lhs: &ArrayShape<D>,
    rhs: &ArrayShape<D>,
    dims: &DotDimensionNumbers,
) -> Result<ArrayShape<D>, InferError<D>> {
    let op = Opcode::Dot.name();
    let element_type = check::same_type_ignoring_fp_precision(op, 1, rhs, 0, lhs)?;
    let lists = [
        ("lhs_contracting_dims", &dims.lhs_contracting, lhs),
        ("rhs_contracting_dims", &dims.rhs_contracting, rhs),
        ("lhs_batch_dims", &dims.lhs_batch, lhs),
        ("rhs_batch_dims", &dims.rhs_batch, rhs),
    ];
    for (list, entries, shape) in lists {
        check::dim_list(op, list, entries, shape.rank(), Order::Unique)?;
    }
    check::disjoint(
        op,
        "lhs_contracting_dims",
        &dims.lhs_contracting,
        "lhs_batch_dims",
        &dims.lhs_batch,
    )?;
    check::disjoint(
        op,
        "rhs_contracting_dims",
        &dims.rhs_contracting,
        "rhs_batch_dims",
        &dims.rhs_batch,
    )?;
    let pairs = [
        (
            "rhs_contracting_dims",
            &dims.lhs_contracting,
            &dims.rhs_contracting,
            "the length of lhs_contracting_dims",
        ),
        (
            "rhs_batch_dims",
            &dims.lhs_batch,
            &dims.rhs_batch,
            "the length of lhs_batch_dims",
        ),
    ];
    for (list, l, r, other) in pairs {
        if l.len() != r.len() {
            return Err(InferError::ListLength {
                op,
                list,
                len: r.len(),
                other,
                expected: l.len(),
            });
        }
        for (&ld, &rd) in l.iter().zip(r) {
            let (ld, rd) = (ld as usize, rd as usize);
            let (a, b) = (&lhs.dims()[ld], &rhs.dims()[rd]);
            if a.known_ne(b) {
                return Err(InferError::DimMismatch {
                    op,
                    lhs_index: 0,
                    lhs: bare_array(lhs),
                    lhs_dim: ld,
                    lhs_size: a.clone(),
                    rhs_index: 1,
                    rhs: bare_array(rhs),
                    rhs_dim: rd,
                    rhs_size: b.clone(),
                });
            }
        }
    }
    let free = |shape: &ArrayShape<D>, contracting: &[i64], batch: &[i64]| -> Vec<usize> {
        (0..shape.rank())
            .filter(|d| !contracting.contains(&(*d as i64)) && !batch.contains(&(*d as i64)))
            .collect()
    };
    let lhs_free = free(lhs, &dims.lhs_contracting, &dims.lhs_batch);
    let rhs_free = free(rhs, &dims.rhs_contracting, &dims.rhs_batch);
    let mut out = Vec::new();
    let mut dynamic = Vec::new();
    let picks = dims
        .lhs_batch
        .iter()
        .map(|&d| (lhs, d as usize))
        .chain(lhs_free.iter().map(|&d| (lhs, d)))
        .chain(rhs_free.iter().map(|&d| (rhs, d)));
    for (shape, d) in picks {
        out.push(shape.dims()[d].clone());
        dynamic.push(shape.is_dynamic_dim(d));
    }
    Ok(check::with_dynamic(element_type, out, &dynamic))
}

/// `convolution(lhs, rhs), window=…, dim_labels=…,
/// feature_group_count=…, batch_group_count=…` (`docs/semantics.md`, *Convolution*):
/// `rank(lhs) = rank(rhs) = n + 2` for `n` spatial dimensions; the input
/// features are `feature_group_count ×` the kernel input features; the
/// output feature count is divisible by both group counts and the input
/// batch by `batch_group_count`; at most one group count exceeds 1. The
/// window sizes are the kernel's spatial sizes. The output has batch
/// `B / batch_group_count`, the kernel's output features, and the window
/// positions per spatial dimension, placed by the output dimension numbers.
///
/// | lhs (b,f,s…)  | rhs (o,i,s…)  | window            | groups | result      |
/// |---------------|---------------|-------------------|--------|-------------|
/// | `[1,1,3,3]`   | `[1,1,2,2]`   | stride 1          | 1, 1   | `[1,1,2,2]` |
/// | `[1,1,3,3]`   | `[1,1,2,2]`   | stride 2, pad 1_1 | 1, 1   | `[1,1,2,2]` |
/// | `[1,2,4]`     | `[2,1,2]`     | stride 1          | 2, 1   | `[1,2,3]`   |
/// | `[2,1,3]`     | `[2,1,2]`     | stride 1          | 1, 2   | `[1,2,2]`   |
/// | `[1,3,4]`     | `[2,1,2]`     | stride 1          | 2, 1   | error: 3 ≠ 2 × 1 |
pub fn convolution<D: Dim>(
    lhs: &ArrayShape<D>,
    rhs: &ArrayShape<D>,
    window: &Window,
    dims: &ConvDimensionNumbers,
    feature_group_count: i64,
    batch_group_count: i64,
) -> Result<ArrayShape<D>, InferError<D>> {
    let op = Opcode::Convolution.name();
    let element_type = check::same_type_ignoring_fp_precision(op, 1, rhs, 0, lhs)?;
    for (attribute, value) in [
        ("feature_group_count", feature_group_count),
        ("batch_group_count", batch_group_count),
    ] {
        if value < 1 {
            return Err(InferError::InvalidAttribute {
                op,
                attribute,
                value: value.to_string(),
                requirement: "group counts must be at least 1",
            });
        }
    }
    if feature_group_count > 1 && batch_group_count > 1 {
        return Err(InferError::InvalidAttribute {
            op,
            attribute: "batch_group_count",
            value: batch_group_count.to_string(),
            requirement: "feature_group_count and batch_group_count cannot both exceed 1",
        });
    }
    let n = dims.input_spatial.len();
    let spatial_lists = [
        ("kernel spatial dimensions", dims.kernel_spatial.len()),
        ("output spatial dimensions", dims.output_spatial.len()),
        ("window", window.dims.len()),
    ];
    for (list, len) in spatial_lists {
        if len != n {
            return Err(InferError::ListLength {
                op,
                list,
                len,
                other: "the number of input spatial dimensions",
                expected: n,
            });
        }
    }
    for (index, shape) in [(0, lhs), (1, rhs)] {
        if shape.rank() != n + 2 {
            return Err(InferError::Rank {
                op,
                index,
                shape: bare_array(shape),
                expected: RankRule::Exactly(n + 2),
            });
        }
    }
    let labels = [
        (
            "input dimension numbers",
            dims.input_batch,
            dims.input_feature,
            &dims.input_spatial,
        ),
        (
            "kernel dimension numbers",
            dims.kernel_output_feature,
            dims.kernel_input_feature,
            &dims.kernel_spatial,
        ),
        (
            "output dimension numbers",
            dims.output_batch,
            dims.output_feature,
            &dims.output_spatial,
        ),
    ];
    for (list, a, b, spatial) in labels {
        let mut all = vec![a, b];
        all.extend(spatial.iter().copied());
        check::permutation(op, list, &all, n + 2)?;
    }
    check_window(op, window)?;
    let at = |shape: &ArrayShape<D>, d: i64| shape.dims()[d as usize].clone();
    let features = at(lhs, dims.input_feature);
    let kernel_in = at(rhs, dims.kernel_input_feature);
    let groups = D::constant(feature_group_count);
    if features.known_ne(&kernel_in.mul(&groups)) {
        return Err(InferError::ConvFeatures {
            op,
            lhs: bare_array(lhs),
            lhs_dim: dims.input_feature as usize,
            lhs_size: features,
            rhs: bare_array(rhs),
            rhs_dim: dims.kernel_input_feature as usize,
            rhs_size: kernel_in,
            groups: feature_group_count,
        });
    }
    let kernel_out = (1, rhs, dims.kernel_output_feature as usize);
    let out_feature = dims.output_feature as usize;
    check::divide(op, kernel_out, "feature_group_count", &groups, out_feature)?;
    let batch_groups = D::constant(batch_group_count);
    check::divide(
        op,
        kernel_out,
        "batch_group_count",
        &batch_groups,
        out_feature,
    )?;
    let input_batch = (0, lhs, dims.input_batch as usize);
    let out_batch_dim = dims.output_batch as usize;
    let out_batch = check::divide(
        op,
        input_batch,
        "batch_group_count",
        &batch_groups,
        out_batch_dim,
    )?;
    let kernel_sizes: Vec<D> = dims.kernel_spatial.iter().map(|&d| at(rhs, d)).collect();
    for (spatial, (w, size)) in window.dims.iter().zip(&kernel_sizes).enumerate() {
        if size.known_ne(&D::constant(w.size)) {
            return Err(InferError::WindowSize {
                op,
                spatial,
                size: w.size,
                shape: bare_array(rhs),
                dim: dims.kernel_spatial[spatial] as usize,
                kernel_size: size.clone(),
            });
        }
    }
    let base: Vec<D> = dims.input_spatial.iter().map(|&d| at(lhs, d)).collect();
    let positions = window_output(op, &base, &kernel_sizes, window)?;
    let mut out = vec![D::constant(0); n + 2];
    out[out_batch_dim] = out_batch;
    out[out_feature] = at(rhs, dims.kernel_output_feature);
    for (&d, size) in dims.output_spatial.iter().zip(positions) {
        out[d as usize] = size;
    }
    Ok(ArrayShape::new(element_type, out))
}
