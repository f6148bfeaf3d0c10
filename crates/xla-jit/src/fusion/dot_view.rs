//! How a dot reads its operands: each group of dimensions (batch, free,
//! contracting) collapsed into one strided dimension, through the view a
//! fusion absorbed (a transpose, a convolution's window). The planner asks
//! whether a view exists before fusing an operand into a dot; the runtime
//! builds the dot's thunk from the same views.

use xla_core::hlo::DotDimensionNumbers;
use xla_core::ArrayShape;

use super::OperandView;
use crate::dot::{MatrixLayout, WindowDims, WindowLayout};

/// One matrix operand of the engine: sizes `[batch, rows, cols]` and their
/// strides, in elements.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub(crate) struct MatrixView {
    pub sizes: [usize; 3],
    pub strides: [usize; 3],
}

/// The lhs of a dot as the engine reads it: a strided view, or a window
/// (a convolution's patches read from its input; one matrix).
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub(crate) enum LhsView {
    Strided(MatrixView),
    Window(WindowLayout),
}

impl LhsView {
    /// `[batch, m, k]`.
    pub fn sizes(&self) -> [usize; 3] {
        match self {
            LhsView::Strided(v) => v.sizes,
            LhsView::Window(w) => [1, w.rows.count(), w.cols.count()],
        }
    }
}

/// A dot as the engine computes it.
#[derive(Copy, Clone, Debug, PartialEq, Eq)]
pub(crate) struct DotGeometry {
    /// `[batch, m, k]`.
    pub lhs: LhsView,
    /// `[batch, k, n]`.
    pub rhs: MatrixView,
    /// `[batch, m, n]`.
    pub out: MatrixView,
}

/// An operand as the dot reads it: a buffer's shape, through the view the
/// fusion absorbed (a transpose, or a convolution's patches).
pub(crate) struct DotInput<'a> {
    pub shape: &'a ArrayShape,
    pub view: &'a OperandView,
}

impl DotInput<'_> {
    /// The operand's rank (a window's differs from its buffer's).
    pub fn rank(&self) -> usize {
        match self.view {
            OperandView::Window { sizes, .. } => sizes.len(),
            _ => self.shape.dims().len(),
        }
    }

    /// `(size, stride)` of each operand dimension and the offset of element
    /// 0; `None` for layouts that are not dense (tiled or padded).
    fn dims(&self) -> Option<(Vec<(i64, i64)>, i64)> {
        let dims = self.shape.dims();
        let strides = self.shape.layout_or_default().dense_strides(dims)?;
        self.view.dims(dims, &strides)
    }
}

/// Canonicalizes `out = dot(lhs, rhs)`: each group of dimensions (batch,
/// lhs free = m, rhs free = n, contracting = k) must collapse into one
/// strided dimension, which holds when, in the group's order, each
/// dimension's stride is the next one's stride times its size (sizes of 1
/// do not count). `None` when a group does not collapse or a layout is not
/// dense (the JIT's dot preparation inserts transposes and copies so that
/// this does not happen: see `runtime::dot_prepare`).
///
/// Example: `f32[64,128,64]{2,1,0} · f32[64,64,128]{2,1,0}` with batch
/// dimensions `{0}/{0}` and contracting `{2}/{1}` into `f32[64,128,128]`
/// gives lhs `[64,128,64]` strides `[8192,64,1]`, rhs `[64,64,128]` strides
/// `[8192,128,1]`, out `[64,128,128]` strides `[16384,128,1]`.
pub(crate) fn canonicalize(
    lhs: &DotInput<'_>,
    rhs: &DotInput<'_>,
    dims: &DotDimensionNumbers,
    out: &ArrayShape,
) -> Option<DotGeometry> {
    Some(DotGeometry {
        lhs: lhs_view(lhs, dims)?,
        rhs: rhs_view(rhs, dims)?,
        out: out_view(out, dims, lhs.rank())?,
    })
}

/// The lhs as `[batch, m, k]`: its batch, free and contracting dimensions,
/// each group collapsed (see [`canonicalize`]); a window when the free and
/// contracting groups do not collapse but the batch is 1 (a convolution's
/// patches: rows and columns each stand for several dimensions).
pub(crate) fn lhs_view(lhs: &DotInput<'_>, dims: &DotDimensionNumbers) -> Option<LhsView> {
    let (l, offset) = lhs.dims()?;
    let free = free_dims(l.len(), &dims.lhs_batch, &dims.lhs_contracting);
    let groups = [&dims.lhs_batch[..], &free, &dims.lhs_contracting];
    if offset == 0 {
        if let Some(view) = view(&l, groups) {
            return Some(LhsView::Strided(view));
        }
    }
    if !matches!(lhs.view, OperandView::Window { .. }) {
        return None;
    }
    let batch: i64 = dims.lhs_batch.iter().map(|&d| l[d as usize].0).product();
    let window = |group: &[i64]| {
        let dims: Vec<(usize, usize)> = group
            .iter()
            .map(|&d| (l[d as usize].0 as usize, l[d as usize].1 as usize))
            .collect();
        WindowDims::new(&dims)
    };
    (batch == 1).then_some(())?;
    Some(LhsView::Window(WindowLayout {
        rows: window(&free)?,
        cols: window(&dims.lhs_contracting)?,
        offset: usize::try_from(offset).ok()?,
    }))
}

/// The rhs as `[batch, k, n]`: its batch, contracting and free dimensions,
/// each group collapsed (see [`canonicalize`]).
pub(crate) fn rhs_view(rhs: &DotInput<'_>, dims: &DotDimensionNumbers) -> Option<MatrixView> {
    let (r, offset) = rhs.dims()?;
    let free = free_dims(r.len(), &dims.rhs_batch, &dims.rhs_contracting);
    (offset == 0).then_some(())?;
    view(&r, [&dims.rhs_batch, &dims.rhs_contracting, &free])
}

/// The result as `[batch, m, n]`: its leading batch dimensions, then the
/// lhs free dimensions (`lhs_rank` minus the lhs batch and contracting
/// dimensions), then the rhs free ones, each group collapsed.
pub(crate) fn out_view(
    out: &ArrayShape,
    dims: &DotDimensionNumbers,
    lhs_rank: usize,
) -> Option<MatrixView> {
    let strides = out.layout_or_default().dense_strides(out.dims())?;
    let o: Vec<(i64, i64)> = out.dims().iter().copied().zip(strides).collect();
    let nb = dims.lhs_batch.len() as i64;
    let nm = lhs_rank as i64 - nb - dims.lhs_contracting.len() as i64;
    let range = |from: i64, to: i64| (from..to).collect::<Vec<i64>>();
    let (batch, m, n) = (
        range(0, nb),
        range(nb, nb + nm),
        range(nb + nm, o.len() as i64),
    );
    view(&o, [&batch, &m, &n])
}

/// The dimensions of a rank-`rank` operand that are neither batch nor
/// contracting, in order.
pub(crate) fn free_dims(rank: usize, batch: &[i64], contracting: &[i64]) -> Vec<i64> {
    (0..rank as i64)
        .filter(|d| !batch.contains(d) && !contracting.contains(d))
        .collect()
}

/// Three groups of `(size, stride)` dimensions collapsed into one view.
fn view(all: &[(i64, i64)], groups: [&[i64]; 3]) -> Option<MatrixView> {
    let collapsed = |group: &[i64]| -> Option<(i64, i64)> {
        collapse(&group.iter().map(|&d| all[d as usize]).collect::<Vec<_>>())
    };
    let [a, b, c] = [
        collapsed(groups[0])?,
        collapsed(groups[1])?,
        collapsed(groups[2])?,
    ];
    Some(MatrixView {
        sizes: [a.0 as usize, b.0 as usize, c.0 as usize],
        strides: [a.1 as usize, b.1 as usize, c.1 as usize],
    })
}

/// One `(size, stride)` for a group of dimensions (see [`canonicalize`]);
/// an empty group is `(1, 0)`, a group with a size-0 dimension `(0, 0)`.
fn collapse(group: &[(i64, i64)]) -> Option<(i64, i64)> {
    if group.iter().any(|&(size, _)| size == 0) {
        return Some((0, 0));
    }
    let group: Vec<(i64, i64)> = group.iter().copied().filter(|&(s, _)| s != 1).collect();
    let Some(&(_, innermost)) = group.last() else {
        return Some((1, 0));
    };
    let contiguous = group.windows(2).all(|w| w[0].1 == w[1].1 * w[1].0);
    contiguous.then(|| (group.iter().map(|&(s, _)| s).product(), innermost))
}

impl MatrixView {
    pub(crate) fn layout(&self) -> MatrixLayout {
        let [batch, rows, cols] = self.sizes;
        let [batch_stride, row_stride, col_stride] = self.strides;
        MatrixLayout::new(rows, cols, row_stride, col_stride).batched(batch, batch_stride)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn shape(text: &str) -> ArrayShape {
        text.parse::<xla_core::Shape>()
            .unwrap()
            .as_array()
            .unwrap()
            .clone()
    }

    fn dims(lb: &[i64], rb: &[i64], lc: &[i64], rc: &[i64]) -> DotDimensionNumbers {
        DotDimensionNumbers {
            lhs_batch: lb.to_vec(),
            rhs_batch: rb.to_vec(),
            lhs_contracting: lc.to_vec(),
            rhs_contracting: rc.to_vec(),
        }
    }

    fn input(shape: &ArrayShape) -> DotInput<'_> {
        DotInput {
            shape,
            view: &OperandView::Buffer,
        }
    }

    #[test]
    fn batched_matmul() {
        let (a, b) = (
            shape("f32[64,128,64]{2,1,0}"),
            shape("f32[64,64,128]{2,1,0}"),
        );
        let out = shape("f32[64,128,128]{2,1,0}");
        let g = canonicalize(&input(&a), &input(&b), &dims(&[0], &[0], &[2], &[1]), &out).unwrap();
        assert_eq!(
            g.lhs,
            LhsView::Strided(MatrixView {
                sizes: [64, 128, 64],
                strides: [8192, 64, 1]
            })
        );
        assert_eq!(
            g.rhs,
            MatrixView {
                sizes: [64, 64, 128],
                strides: [8192, 128, 1]
            }
        );
        assert_eq!(
            g.out,
            MatrixView {
                sizes: [64, 128, 128],
                strides: [16384, 128, 1]
            }
        );
    }

    #[test]
    fn column_major_operands_and_matvec() {
        let (a, v) = (shape("f32[3,5]{0,1}"), shape("f32[5]{0}"));
        let out = shape("f32[3]{0}");
        let g = canonicalize(&input(&a), &input(&v), &dims(&[], &[], &[1], &[0]), &out).unwrap();
        assert_eq!(
            g.lhs,
            LhsView::Strided(MatrixView {
                sizes: [1, 3, 5],
                strides: [0, 1, 3]
            })
        );
        assert_eq!(
            g.rhs,
            MatrixView {
                sizes: [1, 5, 1],
                strides: [0, 1, 0]
            }
        );
        assert_eq!(
            g.out,
            MatrixView {
                sizes: [1, 3, 1],
                strides: [0, 1, 0]
            }
        );
    }

    #[test]
    fn absorbed_transpose_and_collapsed_free_dims() {
        // lhs is transpose(buffer f32[5,2,3]{2,1,0}, {1,2,0}) = f32[2,3,5]:
        // its free dims {0,1} collapse (strides 3, 1), k has stride 6.
        let buffer = shape("f32[5,2,3]{2,1,0}");
        let permuted = OperandView::Transpose(vec![1, 2, 0]);
        let lhs = DotInput {
            shape: &buffer,
            view: &permuted,
        };
        let rhs_shape = shape("f32[5,4]{1,0}");
        let out = shape("f32[2,3,4]{2,1,0}");
        let g = canonicalize(&lhs, &input(&rhs_shape), &dims(&[], &[], &[2], &[0]), &out).unwrap();
        assert_eq!(
            g.lhs,
            LhsView::Strided(MatrixView {
                sizes: [1, 6, 5],
                strides: [0, 1, 6]
            })
        );
        assert_eq!(
            g.out,
            MatrixView {
                sizes: [1, 6, 4],
                strides: [0, 4, 1]
            }
        );
    }

    #[test]
    fn groups_that_do_not_collapse_are_rejected() {
        // Free dims {0,1} of f32[2,3,5]{0,1,2}: strides 1 and 2 are not
        // nested in logical order.
        let a = shape("f32[2,3,5]{0,1,2}");
        let b = shape("f32[5,4]{1,0}");
        let out = shape("f32[2,3,4]{2,1,0}");
        assert_eq!(
            canonicalize(&input(&a), &input(&b), &dims(&[], &[], &[2], &[0]), &out),
            None
        );
    }
}
