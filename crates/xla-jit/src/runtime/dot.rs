//! Dot thunks: a `dot` canonicalized to the engine's
//! `[batch, m, k] · [batch, k, n] → [batch, m, n]` over strided views of
//! its operand buffers.

use xla_core::PrimitiveType;

use super::buffers::BufferId;
use super::run::Pointers;
use crate::dot::{
    AddToOutput, DotElement, DotEngine, Epilogue, Operand, OutputBlock, StridedMatrix,
    StridedMatrixMut, WindowMatrix,
};
use crate::emit::{EpilogueBlock, EpilogueFn};
use crate::ftz::FtzGuard;
use crate::fusion::{DotGeometry, LhsView};
use crate::JitError;

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
    /// The product is added to what `out` holds (`C += A·B`; f32 or f64
    /// operands in strided views, no epilogue).
    pub accumulate: bool,
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
        let epilogue = match epilogue {
            _ if self.accumulate => Some(&AddToOutput as &dyn Epilogue<T>),
            Some(e) => Some(e as &dyn Epilogue<T>),
            None => None,
        };
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
