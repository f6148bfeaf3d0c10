//! The epilogue hook: work fused into a dot's output (bias add, activation,
//! scaling, convert) that runs on each block of `C` as soon as the block is
//! final, while it is still in cache.

use super::matrix::StridedMatrixMut;

/// A finished block of a dot's output.
pub struct OutputBlock<'a, T> {
    /// The block's elements (a batch of one): `c.get(0, i, j)` is output
    /// element `(batch, row0 + i, col0 + j)`.
    pub c: StridedMatrixMut<'a, T>,
    /// The block's matrix in the batch.
    pub batch: usize,
    /// The output row of the block's first row.
    pub row0: usize,
    /// The output column of the block's first column.
    pub col0: usize,
}

/// Work applied to every output block once its values are final.
///
/// The blocks of one dot are disjoint and cover the output; each is handed
/// over exactly once, right after the engine wrote its last contribution
/// (for GEMM, after the last `k` block, so an `MC×NC` block still in L2; for
/// GEMV, a task's slice of the output vector). Different blocks may be
/// processed concurrently on different pool threads, in any order.
///
/// A compiled epilogue is a struct holding a function pointer
/// `fn(c_block, ldc, rows, cols, row0, col0)` whose `apply` forwards the
/// block's pointer and strides. Closures taking an [`OutputBlock`] implement
/// the trait too:
///
/// ```
/// use xla_jit::dot::{Epilogue, OutputBlock};
/// let bias = [0.5f32, -1.0];
/// let bias_relu = |mut block: OutputBlock<'_, f32>| {
///     let layout = block.c.layout();
///     for i in 0..layout.rows {
///         for j in 0..layout.cols {
///             let v = block.c.get(0, i, j) + bias[block.col0 + j];
///             block.c.set(0, i, j, v.max(0.0));
///         }
///     }
/// };
/// fn takes(_: &dyn Epilogue<f32>) {}
/// takes(&bias_relu);
/// ```
pub trait Epilogue<T>: Sync {
    /// Transforms one finished block in place.
    fn apply(&self, block: OutputBlock<'_, T>);

    /// `true` if the product is added to what the output holds before the
    /// dot (`C += A·B`) instead of written over it. Only the f32 and f64
    /// GEMMs on strided operands take such an epilogue.
    fn accumulates(&self) -> bool {
        false
    }
}

/// The epilogue of a dot that adds its product to the output's contents
/// (`C += A·B`, a gradient accumulated into its running sum): the GEMM
/// reads the output as it writes it, no pass over the result after it.
pub(crate) struct AddToOutput;

impl<T> Epilogue<T> for AddToOutput {
    fn apply(&self, _: OutputBlock<'_, T>) {}

    fn accumulates(&self) -> bool {
        true
    }
}

impl<T, F: Fn(OutputBlock<'_, T>) + Sync> Epilogue<T> for F {
    fn apply(&self, block: OutputBlock<'_, T>) {
        self(block)
    }
}

/// Presents the blocks of a transposed output (`Cᵀ = Bᵀ·Aᵀ`) to an
/// epilogue written for the original output.
pub(crate) struct Transposed<'e, T>(pub &'e dyn Epilogue<T>);

impl<T: Copy> Epilogue<T> for Transposed<'_, T> {
    fn apply(&self, block: OutputBlock<'_, T>) {
        self.0.apply(OutputBlock {
            c: block.c.t(),
            batch: block.batch,
            row0: block.col0,
            col0: block.row0,
        })
    }

    fn accumulates(&self) -> bool {
        self.0.accumulates()
    }
}
