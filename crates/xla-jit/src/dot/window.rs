//! Window views: an `A` operand whose rows and columns each stand for
//! several dimensions of a buffer, so that a convolution's patches (im2col)
//! are read straight from its input instead of being copied out first.
//!
//! Row `i` of the view is the mixed-radix number of its row dimensions
//! (sizes outermost first), and so is column `p`; element `(i, p)` is at
//! `offset + Σ digit·stride` over both. For an NHWC input `x` padded to
//! `[B, H+2, W+2, C]` and a 3×3 kernel, the patches of a stride-1
//! convolution are the view with rows `(B, H, W)` strided like `x`'s
//! `(B, H, W)` and columns `(3, 3, C)` strided like `x`'s `(H, W, C)`: the
//! row of output position `(b, h, w)` and the column of tap `(kh, kw)` and
//! feature `c` meet at `x[b, h + kh, w + kw, c]`. Rows that overlap in
//! memory (as patches do) are fine: `A` is only read.

use std::marker::PhantomData;

use super::matrix::{MatrixLayout, Operand};
use crate::JitError;

/// The most dimensions a window's rows (or columns) stand for.
pub const MAX_WINDOW_DIMS: usize = 6;

/// `(size, stride)` of up to [`MAX_WINDOW_DIMS`] dimensions, outermost
/// first; strides in elements.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct WindowDims {
    len: usize,
    dims: [(usize, usize); MAX_WINDOW_DIMS],
}

impl WindowDims {
    /// The dimensions `dims` (`(size, stride)`, outermost first); `None`
    /// for more than [`MAX_WINDOW_DIMS`].
    pub fn new(dims: &[(usize, usize)]) -> Option<Self> {
        if dims.len() > MAX_WINDOW_DIMS {
            return None;
        }
        let mut all = [(1, 0); MAX_WINDOW_DIMS];
        all[..dims.len()].copy_from_slice(dims);
        Some(WindowDims {
            len: dims.len(),
            dims: all,
        })
    }

    /// The dimensions, outermost first.
    pub fn dims(&self) -> &[(usize, usize)] {
        &self.dims[..self.len]
    }

    /// The number of rows (or columns) they make: the product of the sizes.
    pub fn count(&self) -> usize {
        self.dims().iter().map(|&(size, _)| size).product()
    }

    /// The largest offset any index reaches, or `None` on overflow.
    fn reach(&self) -> Option<usize> {
        self.dims()
            .iter()
            .try_fold(0usize, |reach, &(size, stride)| {
                reach.checked_add(size.checked_sub(1)?.checked_mul(stride)?)
            })
    }

    /// The offsets of indices `start .. start + out.len()`, into `out`.
    pub(crate) fn offsets(&self, start: usize, out: &mut [usize]) {
        let dims = self.dims();
        let mut digits = [0usize; MAX_WINDOW_DIMS];
        let mut rest = start;
        let mut offset = 0;
        for d in (0..dims.len()).rev() {
            let (size, stride) = dims[d];
            digits[d] = rest % size;
            rest /= size;
            offset += digits[d] * stride;
        }
        for slot in out.iter_mut() {
            *slot = offset;
            // The next index: carry through the digits, innermost first.
            for d in (0..dims.len()).rev() {
                let (size, stride) = dims[d];
                digits[d] += 1;
                offset += stride;
                if digits[d] < size {
                    break;
                }
                offset -= size * stride;
                digits[d] = 0;
            }
        }
    }
}

/// How a window view's elements lie in its buffer (see the module docs).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct WindowLayout {
    /// The dimensions the rows stand for.
    pub rows: WindowDims,
    /// The dimensions the columns stand for.
    pub cols: WindowDims,
    /// The offset of element `(0, 0)`.
    pub offset: usize,
}

impl WindowLayout {
    /// The buffer length the view needs (largest offset + 1; 0 when
    /// empty), or `None` if that overflows `usize`.
    pub fn required_len(&self) -> Option<usize> {
        if self.rows.count() == 0 || self.cols.count() == 0 {
            return Some(0);
        }
        self.offset
            .checked_add(self.rows.reach()?)?
            .checked_add(self.cols.reach()?)?
            .checked_add(1)
    }
}

/// A read-only window view of a buffer: the `A` operand of
/// [`DotEngine::gemm_window`](super::DotEngine::gemm_window).
#[derive(Clone, Copy)]
pub struct WindowMatrix<'a, T> {
    ptr: *const T,
    layout: WindowLayout,
    _data: PhantomData<&'a [T]>,
}

impl<'a, T: Copy> WindowMatrix<'a, T> {
    /// A window view of `data`; fails if it reaches past the end.
    pub fn new(data: &'a [T], layout: WindowLayout) -> Result<Self, JitError> {
        match layout.required_len() {
            Some(needed) if needed <= data.len() => Ok(WindowMatrix {
                ptr: data.as_ptr(),
                layout,
                _data: PhantomData,
            }),
            needed => Err(JitError::DotOutOfBounds {
                operand: Operand::Lhs.to_string(),
                layout: MatrixLayout::new(layout.rows.count(), layout.cols.count(), 0, 0)
                    .to_string(),
                needed: needed.unwrap_or(usize::MAX),
                len: data.len(),
            }),
        }
    }

    /// The layout.
    pub fn layout(&self) -> WindowLayout {
        self.layout
    }

    /// Rows (`m`).
    pub fn rows(&self) -> usize {
        self.layout.rows.count()
    }

    /// Columns (`k`).
    pub fn cols(&self) -> usize {
        self.layout.cols.count()
    }

    /// Element `(i, p)`. Panics if out of range.
    pub fn get(&self, i: usize, p: usize) -> T {
        assert!(
            i < self.rows() && p < self.cols(),
            "({i},{p}) outside the window"
        );
        let (mut row, mut col) = ([0], [0]);
        self.layout.rows.offsets(i, &mut row);
        self.layout.cols.offsets(p, &mut col);
        // SAFETY: in range, and `new` checked that the layout fits the buffer.
        unsafe { *self.ptr.add(self.layout.offset + row[0] + col[0]) }
    }

    pub(crate) fn as_ptr(&self) -> *const T {
        // SAFETY: `new` checked that the offset is inside the buffer (or
        // the view is empty and never read).
        unsafe { self.ptr.add(self.layout.offset) }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn offsets_count_in_mixed_radix() {
        let dims = WindowDims::new(&[(2, 100), (3, 10), (2, 1)]).unwrap();
        let mut out = [0; 12];
        dims.offsets(0, &mut out);
        assert_eq!(out, [0, 1, 10, 11, 20, 21, 100, 101, 110, 111, 120, 121]);
        let mut tail = [0; 5];
        dims.offsets(7, &mut tail);
        assert_eq!(tail, out[7..]);
        assert_eq!(dims.count(), 12);
        assert_eq!(dims.reach(), Some(121));
        assert!(WindowDims::new(&[(1, 1); MAX_WINDOW_DIMS + 1]).is_none());
    }

    /// The patches of a 2×2 kernel over a 3×3 image: overlapping rows.
    #[test]
    fn a_window_reads_patches() {
        let image: Vec<f32> = (0..9).map(|x| x as f32).collect();
        let layout = WindowLayout {
            rows: WindowDims::new(&[(2, 3), (2, 1)]).unwrap(),
            cols: WindowDims::new(&[(2, 3), (2, 1)]).unwrap(),
            offset: 0,
        };
        let a = WindowMatrix::new(&image, layout).unwrap();
        assert_eq!((a.rows(), a.cols()), (4, 4));
        let row = |i| (0..4).map(|p| a.get(i, p)).collect::<Vec<_>>();
        assert_eq!(row(0), [0.0, 1.0, 3.0, 4.0]);
        assert_eq!(row(3), [4.0, 5.0, 7.0, 8.0]);
        assert!(WindowMatrix::new(&image[..8], layout).is_err());
    }
}
