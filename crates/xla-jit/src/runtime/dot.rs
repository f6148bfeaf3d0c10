//! Dot thunks: a `dot` canonicalized to the engine's
//! `[batch, m, k] · [batch, k, n] → [batch, m, n]` over strided views of
//! its operand buffers.

use xla_core::hlo::DotDimensionNumbers;
use xla_core::{ArrayShape, PrimitiveType};

use super::buffers::BufferId;
use super::run::Pointers;
use crate::codegen::ftz::FtzGuard;
use crate::dot::{
    DotElement, DotEngine, Epilogue, MatrixLayout, Operand, OutputBlock, StridedMatrix,
    StridedMatrixMut, WindowDims, WindowLayout, WindowMatrix,
};
use crate::emit::{EpilogueBlock, EpilogueFn};
use crate::fusion::OperandView;
use crate::JitError;

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
    fn layout(&self) -> MatrixLayout {
        let [batch, rows, cols] = self.sizes;
        let [batch_stride, row_stride, col_stride] = self.strides;
        MatrixLayout::new(rows, cols, row_stride, col_stride).batched(batch, batch_stride)
    }
}

/// A dot run by the engine.
pub(crate) struct DotThunk {
    /// The `dot` instruction, for dumps.
    pub name: String,
    pub lhs: BufferId,
    pub rhs: BufferId,
    pub out: BufferId,
    /// Elements in each buffer (`lhs`, `rhs`, `out`).
    pub lens: [usize; 3],
    pub geometry: DotGeometry,
    /// The operands' element type: the result's, or bf16 or f16 for an f32
    /// result ([`widens`]).
    pub operand_type: PrimitiveType,
    /// The result's element type.
    pub element_type: PrimitiveType,
    /// The compiled epilogue and where its pointer array (the fusion's
    /// inputs, then its output) starts in the run's kernel arguments.
    pub epilogue: Option<(EpilogueFn, usize)>,
}

/// A compiled epilogue over the fusion's buffers, applied to each finished
/// block (on whichever pool thread finished it).
struct CompiledEpilogue {
    func: EpilogueFn,
    buffers: *const *mut u8,
}

// SAFETY: the pointer array is only read, while the dot runs.
unsafe impl Sync for CompiledEpilogue {}

impl<T: Copy> Epilogue<T> for CompiledEpilogue {
    fn apply(&self, mut block: OutputBlock<'_, T>) {
        let layout = block.c.layout();
        let region = EpilogueBlock {
            c: block.c.as_mut_ptr().cast(),
            row_stride: layout.row_stride as i64,
            col_stride: layout.col_stride as i64,
            rows: layout.rows as i64,
            cols: layout.cols as i64,
            batch: block.batch as i64,
            row0: block.row0 as i64,
            col0: block.col0 as i64,
        };
        // The dot runs under an `FtzGuard`, whose mode the pool gives every
        // task. SAFETY: the block is finished and exclusively ours; the
        // fusion's buffers are live for the whole dot.
        unsafe { (self.func)(self.buffers, &region) }
    }
}

/// `true` if the engine computes dots of `lhs` and `rhs` operands into a
/// `result` of another type: two bf16 or two f16 operands of an f32 result,
/// their products summed in f32.
pub(crate) fn widens(lhs: PrimitiveType, rhs: PrimitiveType, result: PrimitiveType) -> bool {
    lhs == rhs
        && result == PrimitiveType::F32
        && matches!(lhs, PrimitiveType::Bf16 | PrimitiveType::F16)
}

/// `true` if the engine computes dots of this element type (all of lhs,
/// rhs and result).
pub(crate) fn engine_supports(ty: PrimitiveType) -> bool {
    match ty {
        PrimitiveType::F32
        | PrimitiveType::F64
        | PrimitiveType::F16
        | PrimitiveType::Bf16
        | PrimitiveType::S8
        | PrimitiveType::S16
        | PrimitiveType::S32
        | PrimitiveType::S64
        | PrimitiveType::U8
        | PrimitiveType::U16
        | PrimitiveType::U32
        | PrimitiveType::U64
        | PrimitiveType::C64
        | PrimitiveType::C128 => true,
        PrimitiveType::Pred => false,
    }
}

impl DotThunk {
    pub fn run(&self, engine: &DotEngine, pointers: &Pointers) -> Result<(), JitError> {
        let epilogue = self.epilogue.map(|(func, args_at)| CompiledEpilogue {
            func,
            buffers: pointers.kernel_args(args_at),
        });
        let epilogue = epilogue.as_ref();
        use xla_core::half::{bf16, f16};
        use xla_core::{C128, C64};
        if self.operand_type != self.element_type {
            return match self.operand_type {
                PrimitiveType::Bf16 => self.run_widening::<bf16>(engine, pointers, epilogue),
                _ => self.run_widening::<f16>(engine, pointers, epilogue),
            };
        }
        match self.element_type {
            PrimitiveType::F32 => self.run_typed::<f32>(engine, pointers, epilogue),
            PrimitiveType::F64 => self.run_typed::<f64>(engine, pointers, epilogue),
            PrimitiveType::F16 => self.run_typed::<f16>(engine, pointers, epilogue),
            PrimitiveType::Bf16 => self.run_typed::<bf16>(engine, pointers, epilogue),
            PrimitiveType::S8 => self.run_typed::<i8>(engine, pointers, epilogue),
            PrimitiveType::S16 => self.run_typed::<i16>(engine, pointers, epilogue),
            PrimitiveType::S32 => self.run_typed::<i32>(engine, pointers, epilogue),
            PrimitiveType::S64 => self.run_typed::<i64>(engine, pointers, epilogue),
            PrimitiveType::U8 => self.run_typed::<u8>(engine, pointers, epilogue),
            PrimitiveType::U16 => self.run_typed::<u16>(engine, pointers, epilogue),
            PrimitiveType::U32 => self.run_typed::<u32>(engine, pointers, epilogue),
            PrimitiveType::U64 => self.run_typed::<u64>(engine, pointers, epilogue),
            PrimitiveType::C64 => self.run_typed::<C64>(engine, pointers, epilogue),
            PrimitiveType::C128 => self.run_typed::<C128>(engine, pointers, epilogue),
            PrimitiveType::Pred => unreachable!("lowering checked `engine_supports`"),
        }
    }

    /// The operand buffers as `S`s and the output as `T`s.
    ///
    /// # Safety
    ///
    /// The buffers must hold elements of those types, and nothing else may
    /// use the output buffer while the result lives (the program's buffer
    /// discipline: one writer per buffer at a time), which is why the
    /// output can be borrowed mutably from the shared pointer table.
    #[allow(clippy::mut_from_ref)]
    unsafe fn buffers<'p, S, T>(&self, pointers: &'p Pointers) -> (&'p [S], &'p [S], &'p mut [T]) {
        let [lhs_len, rhs_len, out_len] = self.lens;
        // SAFETY: each buffer is live and holds `len` elements (aligned:
        // buffers are 64-byte aligned); the output is written by this thunk
        // alone and overlaps neither operand (distinct buffers with
        // overlapping live ranges never share bytes).
        (
            std::slice::from_raw_parts(pointers.get(self.lhs).cast::<S>(), lhs_len),
            std::slice::from_raw_parts(pointers.get(self.rhs).cast::<S>(), rhs_len),
            std::slice::from_raw_parts_mut(pointers.get(self.out).cast::<T>(), out_len),
        )
    }

    /// A dot of 16-bit operands into an f32 result.
    fn run_widening<H: DotElement>(
        &self,
        engine: &DotEngine,
        pointers: &Pointers,
        epilogue: Option<&CompiledEpilogue>,
    ) -> Result<(), JitError> {
        // SAFETY: the operands hold `H`s, the output f32s (`operand_type`,
        // `element_type`).
        let (lhs, rhs, out) = unsafe { self.buffers::<H, f32>(pointers) };
        let g = &self.geometry;
        let LhsView::Strided(lhs_view) = &g.lhs else {
            return Err(JitError::InvalidConfig(
                "a window lhs of a widening dot (lowering refuses these)".into(),
            ));
        };
        let _ftz = FtzGuard::new();
        engine.gemm_to_f32(
            StridedMatrix::new(Operand::Lhs, lhs, lhs_view.layout())?,
            StridedMatrix::new(Operand::Rhs, rhs, g.rhs.layout())?,
            StridedMatrixMut::new(out, g.out.layout())?,
            epilogue.map(|e| e as &dyn Epilogue<f32>),
        )
    }

    fn run_typed<T: DotElement>(
        &self,
        engine: &DotEngine,
        pointers: &Pointers,
        epilogue: Option<&CompiledEpilogue>,
    ) -> Result<(), JitError> {
        // SAFETY: every buffer holds `T`s (`element_type`).
        let (lhs, rhs, out) = unsafe { self.buffers::<T, T>(pointers) };
        let g = &self.geometry;
        let _ftz = FtzGuard::new();
        let (rhs, out) = (
            StridedMatrix::new(Operand::Rhs, rhs, g.rhs.layout())?,
            StridedMatrixMut::new(out, g.out.layout())?,
        );
        let epilogue = epilogue.map(|e| e as &dyn Epilogue<T>);
        match &g.lhs {
            LhsView::Strided(view) => engine.gemm(
                StridedMatrix::new(Operand::Lhs, lhs, view.layout())?,
                rhs,
                out,
                epilogue,
            ),
            LhsView::Window(window) => {
                engine.gemm_window(WindowMatrix::new(lhs, *window)?, rhs, out, epilogue)
            }
        }
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
