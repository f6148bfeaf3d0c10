//! Strided views of a batch of matrices: how the dot engine reads its
//! operands and writes its output in any layout without copying.

use std::fmt;
use std::marker::PhantomData;

use crate::JitError;

/// Where the elements of a batch of `rows × cols` matrices live in a buffer.
///
/// Element `(b, i, j)` (matrix `b`, row `i`, column `j`) is at offset
/// `b·batch_stride + i·row_stride + j·col_stride`, in elements (not bytes).
/// A dot canonicalized to `[batch, m, k] · [batch, k, n]` views each operand
/// this way whatever its layout:
///
/// * `f32[2,3]{1,0}` (row-major) is `rows 2, cols 3, row_stride 3,
///   col_stride 1`: `[[a,b,c],[d,e,f]]` stored `a b c d e f`, so `(1,2)` → `f`
///   at offset `1·3 + 2·1 = 5`.
/// * The same buffer read as its transpose `[3,2]` is `row_stride 1,
///   col_stride 3` ([`MatrixLayout::transposed`]): `(2,1)` → offset
///   `2·1 + 1·3 = 5` → `f`. A transposed operand costs no copy.
/// * `f32[4,2,3]{2,1,0}` as a batch of 4 is `row_major(2, 3).batched(4, 6)`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct MatrixLayout {
    /// Number of matrices.
    pub batch: usize,
    /// Rows per matrix.
    pub rows: usize,
    /// Columns per matrix.
    pub cols: usize,
    /// Elements from one matrix to the next.
    pub batch_stride: usize,
    /// Elements from one row to the next.
    pub row_stride: usize,
    /// Elements from one column to the next.
    pub col_stride: usize,
}

impl MatrixLayout {
    /// One matrix with the given strides (in elements).
    pub fn new(rows: usize, cols: usize, row_stride: usize, col_stride: usize) -> Self {
        MatrixLayout {
            batch: 1,
            rows,
            cols,
            batch_stride: rows.saturating_mul(cols),
            row_stride,
            col_stride,
        }
    }

    /// One dense row-major matrix (`{1,0}`): `row_stride = cols`.
    pub fn row_major(rows: usize, cols: usize) -> Self {
        Self::new(rows, cols, cols, 1)
    }

    /// One dense column-major matrix (`{0,1}`): `col_stride = rows`.
    pub fn col_major(rows: usize, cols: usize) -> Self {
        Self::new(rows, cols, 1, rows)
    }

    /// `batch` copies of this matrix, `batch_stride` elements apart (0 reads
    /// one matrix for the whole batch).
    pub fn batched(self, batch: usize, batch_stride: usize) -> Self {
        MatrixLayout {
            batch,
            batch_stride,
            ..self
        }
    }

    /// The transpose: rows and columns (and their strides) swap.
    pub fn transposed(self) -> Self {
        MatrixLayout {
            rows: self.cols,
            cols: self.rows,
            row_stride: self.col_stride,
            col_stride: self.row_stride,
            ..self
        }
    }

    /// The offset of element `(b, i, j)`, in elements.
    pub fn offset(&self, b: usize, i: usize, j: usize) -> usize {
        b * self.batch_stride + i * self.row_stride + j * self.col_stride
    }

    /// `true` if the view has no elements.
    pub fn is_empty(&self) -> bool {
        self.batch == 0 || self.rows == 0 || self.cols == 0
    }

    /// The buffer length the view needs (largest offset + 1; 0 when empty),
    /// or `None` if that overflows `usize`.
    pub fn required_len(&self) -> Option<usize> {
        if self.is_empty() {
            return Some(0);
        }
        let reach = |size: usize, stride: usize| (size - 1).checked_mul(stride);
        reach(self.batch, self.batch_stride)?
            .checked_add(reach(self.rows, self.row_stride)?)?
            .checked_add(reach(self.cols, self.col_stride)?)?
            .checked_add(1)
    }

    /// `true` if no two elements share an offset: sorted by stride, each
    /// dimension's stride exceeds the reach of all smaller ones. Sufficient,
    /// and exact for every layout XLA can express (`{1,0}`, `{0,1}`, tiles
    /// aside).
    pub fn is_injective(&self) -> bool {
        if self.is_empty() {
            return true;
        }
        let mut dims = [
            (self.batch_stride, self.batch),
            (self.row_stride, self.rows),
            (self.col_stride, self.cols),
        ];
        dims.sort_unstable();
        let mut reach = 0usize;
        for (stride, size) in dims {
            if size == 1 {
                continue;
            }
            if stride <= reach {
                return false;
            }
            reach = reach.saturating_add(stride.saturating_mul(size - 1));
        }
        true
    }
}

/// `[2,3,4] strides [12,4,1]`: sizes `[batch, rows, cols]` and their strides.
impl fmt::Display for MatrixLayout {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "[{},{},{}] strides [{},{},{}]",
            self.batch, self.rows, self.cols, self.batch_stride, self.row_stride, self.col_stride
        )
    }
}

/// A dot operand, for error messages.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Operand {
    /// Operand 0, `[batch, m, k]`.
    Lhs,
    /// Operand 1, `[batch, k, n]`.
    Rhs,
    /// The result, `[batch, m, n]`.
    Output,
}

impl fmt::Display for Operand {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Operand::Lhs => "operand 0 (lhs)",
            Operand::Rhs => "operand 1 (rhs)",
            Operand::Output => "the output",
        })
    }
}

fn check_bounds(operand: Operand, layout: MatrixLayout, len: usize) -> Result<(), JitError> {
    match layout.required_len() {
        Some(needed) if needed <= len => Ok(()),
        needed => Err(JitError::DotOutOfBounds {
            operand: operand.to_string(),
            layout: layout.to_string(),
            needed: needed.unwrap_or(usize::MAX),
            len,
        }),
    }
}

/// A read-only strided view of a batch of matrices (see [`MatrixLayout`]).
#[derive(Clone, Copy)]
pub struct StridedMatrix<'a, T> {
    ptr: *const T,
    layout: MatrixLayout,
    _data: PhantomData<&'a [T]>,
}

impl<'a, T: Copy> StridedMatrix<'a, T> {
    /// A view of `data` as `operand`; fails (naming the operand) if the
    /// layout reaches past the end of `data`.
    pub fn new(operand: Operand, data: &'a [T], layout: MatrixLayout) -> Result<Self, JitError> {
        check_bounds(operand, layout, data.len())?;
        Ok(StridedMatrix {
            ptr: data.as_ptr(),
            layout,
            _data: PhantomData,
        })
    }

    /// The layout.
    pub fn layout(&self) -> MatrixLayout {
        self.layout
    }

    /// The transposed view of the same memory.
    pub fn t(self) -> Self {
        StridedMatrix {
            layout: self.layout.transposed(),
            ..self
        }
    }

    /// Element `(b, i, j)`. Panics if out of range.
    pub fn get(&self, b: usize, i: usize, j: usize) -> T {
        let l = &self.layout;
        assert!(
            b < l.batch && i < l.rows && j < l.cols,
            "({b},{i},{j}) outside {l}"
        );
        // SAFETY: in range, and `new` checked that the layout fits the buffer.
        unsafe { *self.ptr.add(l.offset(b, i, j)) }
    }

    pub(crate) fn as_ptr(&self) -> *const T {
        self.ptr
    }
}

/// A mutable strided view of a batch of matrices whose elements do not
/// overlap (see [`MatrixLayout`]).
pub struct StridedMatrixMut<'a, T> {
    ptr: *mut T,
    layout: MatrixLayout,
    _data: PhantomData<&'a mut [T]>,
}

impl<'a, T: Copy> StridedMatrixMut<'a, T> {
    /// A view of `data`; fails if the layout reaches past its end or maps two
    /// elements to one location.
    pub fn new(data: &'a mut [T], layout: MatrixLayout) -> Result<Self, JitError> {
        check_bounds(Operand::Output, layout, data.len())?;
        if !layout.is_injective() {
            return Err(JitError::DotOverlappingOutput {
                layout: layout.to_string(),
            });
        }
        Ok(StridedMatrixMut {
            ptr: data.as_mut_ptr(),
            layout,
            _data: PhantomData,
        })
    }

    /// A view from a raw pointer.
    ///
    /// # Safety
    ///
    /// Every offset of `layout` must be a valid, exclusively borrowed element
    /// of an allocation that outlives `'a`, and the layout must be injective.
    pub unsafe fn from_raw(ptr: *mut T, layout: MatrixLayout) -> Self {
        StridedMatrixMut {
            ptr,
            layout,
            _data: PhantomData,
        }
    }

    /// The layout.
    pub fn layout(&self) -> MatrixLayout {
        self.layout
    }

    /// A shorter-lived view of the same elements.
    pub fn reborrow(&mut self) -> StridedMatrixMut<'_, T> {
        StridedMatrixMut {
            ptr: self.ptr,
            layout: self.layout,
            _data: PhantomData,
        }
    }

    /// The transposed view of the same memory.
    pub fn t(self) -> Self {
        StridedMatrixMut {
            layout: self.layout.transposed(),
            ..self
        }
    }

    /// Element `(b, i, j)`. Panics if out of range.
    pub fn get(&self, b: usize, i: usize, j: usize) -> T {
        // SAFETY: `index` checks the range.
        unsafe { *self.ptr.add(self.index(b, i, j)) }
    }

    /// Sets element `(b, i, j)`. Panics if out of range.
    pub fn set(&mut self, b: usize, i: usize, j: usize, value: T) {
        // SAFETY: `index` checks the range; the view is exclusive.
        unsafe { *self.ptr.add(self.index(b, i, j)) = value }
    }

    /// Row `i` of matrix `b` as a slice, if its elements are contiguous
    /// (`col_stride == 1`, or a single column). Panics if out of range.
    pub fn row_mut(&mut self, b: usize, i: usize) -> Option<&mut [T]> {
        let l = self.layout;
        if l.col_stride != 1 && l.cols > 1 {
            return None;
        }
        if l.cols == 0 {
            return Some(&mut []);
        }
        let start = self.index(b, i, 0);
        // SAFETY: the row's `cols` contiguous elements are in range and
        // belong to this exclusive view.
        Some(unsafe { std::slice::from_raw_parts_mut(self.ptr.add(start), l.cols) })
    }

    fn index(&self, b: usize, i: usize, j: usize) -> usize {
        let l = &self.layout;
        assert!(
            b < l.batch && i < l.rows && j < l.cols,
            "({b},{i},{j}) outside {l}"
        );
        l.offset(b, i, j)
    }

    pub(crate) fn as_mut_ptr(&mut self) -> *mut T {
        self.ptr
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn offsets_and_transpose() {
        let l = MatrixLayout::row_major(2, 3);
        assert_eq!(l.offset(0, 1, 2), 5);
        assert_eq!(l.transposed().offset(0, 2, 1), 5);
        assert_eq!(
            MatrixLayout::row_major(2, 3).batched(4, 6).required_len(),
            Some(24)
        );
        assert_eq!(MatrixLayout::row_major(0, 3).required_len(), Some(0));
        assert_eq!(l.to_string(), "[1,2,3] strides [6,3,1]");
    }

    #[test]
    fn injectivity() {
        assert!(MatrixLayout::row_major(3, 4).batched(2, 12).is_injective());
        assert!(MatrixLayout::col_major(3, 4).is_injective());
        assert!(!MatrixLayout::new(3, 4, 2, 1).is_injective());
        assert!(!MatrixLayout::row_major(3, 4).batched(2, 0).is_injective());
        assert!(MatrixLayout::new(1, 4, 0, 1).is_injective());
    }

    #[test]
    fn views_check_their_buffers() {
        let data = [0f32; 5];
        let err = StridedMatrix::new(Operand::Lhs, &data, MatrixLayout::row_major(2, 3))
            .err()
            .unwrap();
        assert_eq!(
            err.to_string(),
            "dot: operand 0 (lhs) [1,2,3] strides [6,3,1] reaches element 6 \
             but its buffer holds 5 elements"
        );
        let mut out = [0f32; 12];
        let err = StridedMatrixMut::new(&mut out, MatrixLayout::new(3, 4, 2, 1))
            .err()
            .unwrap();
        assert_eq!(
            err.to_string(),
            "dot: the output [1,3,4] strides [12,2,1] maps two elements to the same memory location"
        );
    }
}
