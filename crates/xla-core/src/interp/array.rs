//! Array helpers shared by the rules: result literals, dense views of
//! operands, and the strided copy that the data-movement ops reduce to.
//!
//! Rules compute results in the default (row-major) layout; the evaluator
//! then gives each value its instruction's declared layout. Offsets and
//! strides here are counted in elements, not bytes.

use std::borrow::Cow;

use super::eval::invalid;
use super::InterpError;
use crate::hlo::HloInstruction;
use crate::layout::Layout;
use crate::literal::{AlignedBytes, Storage};
use crate::{ArrayShape, Literal};

/// The instruction's array shape in the default layout: the shape rules
/// build their results in.
pub(super) fn result_shape(instr: &HloInstruction) -> Result<ArrayShape, InterpError> {
    instr
        .shape
        .as_array()
        .map(|a| a.clone().with_default_layout())
        .ok_or_else(|| {
            invalid(
                instr,
                format!("expected an array result, not {}", instr.shape),
            )
        })
}

/// A zero-filled literal of `shape` (whose layout decides the buffer).
pub(super) fn zeros(shape: &ArrayShape) -> Result<Literal, InterpError> {
    Ok(Literal::zeros(&shape.clone().into())?)
}

/// A literal of `shape` over `bytes` (the buffer under its layout).
pub(super) fn from_bytes(shape: ArrayShape, bytes: &[u8]) -> Result<Literal, InterpError> {
    Ok(Literal::from_storage(
        shape,
        Storage::Owned(AlignedBytes::copy_from(bytes)),
    )?)
}

/// Row-major strides of `dims`: `[2,3,4]` → `[12,4,1]`.
pub(super) fn row_major_strides(dims: &[i64]) -> Vec<i64> {
    let mut strides = vec![1i64; dims.len()];
    for d in (0..dims.len().saturating_sub(1)).rev() {
        strides[d] = strides[d + 1] * dims[d + 1];
    }
    strides
}

/// An array operand with a dense layout, and its strides per logical
/// dimension. Padded and tiled operands are relaid to row-major first.
pub(super) struct Dense<'a> {
    pub literal: Cow<'a, Literal>,
    pub strides: Vec<i64>,
}

impl Dense<'_> {
    /// The dimension sizes.
    pub fn dims(&self) -> &[i64] {
        self.literal
            .array_shape()
            .expect("a dense view is an array")
            .dims()
    }
}

/// `literal` as a dense view: borrowed when its layout is dense (any
/// `minor_to_major`), relaid to row-major otherwise.
pub(super) fn dense(literal: &Literal) -> Result<Dense<'_>, InterpError> {
    let shape = literal.array_shape()?;
    let layout = shape.layout_or_default();
    if let Some(strides) = layout.dense_strides(shape.dims()) {
        return Ok(Dense {
            literal: Cow::Borrowed(literal),
            strides,
        });
    }
    let relaid = literal.relayout(&Layout::default_for_rank(shape.rank()))?;
    Ok(Dense {
        strides: row_major_strides(shape.dims()),
        literal: Cow::Owned(relaid),
    })
}

/// Buffer offsets of a walk over an index space: the offset of index `i`
/// is `base + Σ_d i[d]·steps[d]` (elements; steps may be 0 or negative as
/// long as every offset is ≥ 0).
///
/// Example: reading `f32[2,3]` (strides `[3,1]`) transposed walks the space
/// `[3,2]` with steps `[1,3]`: index `(2,1)` reads offset 5.
pub(super) struct Walk {
    pub base: i64,
    pub steps: Vec<i64>,
}

/// One run of a walk along the last dimension: `len` offsets from `start`,
/// `step` apart.
#[derive(Copy, Clone, Debug)]
pub(super) struct Run {
    pub start: usize,
    pub step: isize,
}

impl Run {
    /// Offset `i` of the run.
    #[inline]
    pub fn at(self, i: usize) -> usize {
        (self.start as isize + i as isize * self.step) as usize
    }
}

impl Walk {
    /// Index `i` of dimension `d` at offset `(start[d] + i·step[d])·stride[d]`.
    pub fn strided(start: &[i64], step: &[i64], strides: &[i64]) -> Walk {
        Walk {
            base: start.iter().zip(strides).map(|(s, t)| s * t).sum(),
            steps: step.iter().zip(strides).map(|(s, t)| s * t).collect(),
        }
    }

    /// Index `i` at offset `Σ_d i[d]·strides[d]`.
    pub fn of(strides: &[i64]) -> Walk {
        Walk {
            base: 0,
            steps: strides.to_vec(),
        }
    }

    /// Calls `f` with the runs of `self` and `other` along the last
    /// dimension of `extent` and the run length, in row-major order of the
    /// other dimensions. A rank-0 space is one run of length 1.
    pub fn for_each_run(&self, other: &Walk, extent: &[i64], mut f: impl FnMut(Run, Run, usize)) {
        if extent.contains(&0) {
            return;
        }
        let Some((&len, outer)) = extent.split_last() else {
            let run = |w: &Walk| Run {
                start: w.base as usize,
                step: 0,
            };
            f(run(self), run(other), 1);
            return;
        };
        let last = extent.len() - 1;
        let mut index = vec![0i64; outer.len()];
        loop {
            let run = |w: &Walk| Run {
                start: (w.base + index.iter().zip(&w.steps).map(|(i, s)| i * s).sum::<i64>())
                    as usize,
                step: w.steps[last] as isize,
            };
            f(run(self), run(other), len as usize);
            if !next_index(&mut index, outer) {
                return;
            }
        }
    }

    /// Calls `f` with both walks' offsets of every index of `extent`, in
    /// row-major order.
    pub fn for_each_pair(&self, other: &Walk, extent: &[i64], mut f: impl FnMut(usize, usize)) {
        self.for_each_run(other, extent, |a, b, len| {
            for i in 0..len {
                f(a.at(i), b.at(i));
            }
        });
    }

    /// Calls `f` with every offset of `extent`, in row-major order.
    pub fn for_each(&self, extent: &[i64], mut f: impl FnMut(usize)) {
        self.for_each_pair(self, extent, |a, _| f(a));
    }
}

/// For every index `i` of `extent`: `dst[to(i)] = src[from(i)]`. Runs that
/// are contiguous on both sides are copied as slices.
pub(super) fn copy<E: Copy>(extent: &[i64], src: &[E], from: &Walk, dst: &mut [E], to: &Walk) {
    from.for_each_run(to, extent, |a, b, len| {
        if a.step == 1 && b.step == 1 {
            dst[b.start..b.start + len].copy_from_slice(&src[a.start..a.start + len]);
        } else if b.step == 1 {
            for (i, d) in dst[b.start..b.start + len].iter_mut().enumerate() {
                *d = src[a.at(i)];
            }
        } else {
            for i in 0..len {
                dst[b.at(i)] = src[a.at(i)];
            }
        }
    });
}

pub(super) use crate::arith::next_index;

/// Runs `$body` with `$n` a `const usize` equal to `$size` (an element's
/// byte size: 1, 2, 4, 8 or 16), so that buffers can be viewed as
/// `[[u8; $n]]` whatever the element type.
macro_rules! with_element_size {
    ($size:expr, $n:ident => $body:expr) => {
        match $size {
            1 => {
                const $n: usize = 1;
                $body
            }
            2 => {
                const $n: usize = 2;
                $body
            }
            4 => {
                const $n: usize = 4;
                $body
            }
            8 => {
                const $n: usize = 8;
                $body
            }
            16 => {
                const $n: usize = 16;
                $body
            }
            other => unreachable!("no element type is {other} bytes wide"),
        }
    };
}
pub(super) use with_element_size;

/// Copies elements of `src` (any type) into `dst` (same element type):
/// `dst[to(i)] = src[from(i)]` for every index of `extent`.
pub(super) fn copy_elements(
    element_size: usize,
    extent: &[i64],
    src: &[u8],
    from: &Walk,
    dst: &mut [u8],
    to: &Walk,
) {
    with_element_size!(element_size, N => {
        let (src, _) = src.as_chunks::<N>();
        let (dst, _) = dst.as_chunks_mut::<N>();
        copy(extent, src, from, dst, to);
    })
}

/// Fills a buffer with copies of one element's bytes.
pub(super) fn fill(buffer: &mut [u8], element: &[u8]) {
    if element.iter().all(|&b| b == 0) {
        buffer.fill(0);
        return;
    }
    for chunk in buffer.chunks_exact_mut(element.len()) {
        chunk.copy_from_slice(element);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn strided_copy_transposes() {
        // f32[2,3] [[0,1,2],[3,4,5]] read transposed into [3,2].
        let src: Vec<u32> = (0..6).collect();
        let mut dst = vec![0u32; 6];
        let from = Walk::of(&[1, 3]);
        let to = Walk::of(&row_major_strides(&[3, 2]));
        copy(&[3, 2], &src, &from, &mut dst, &to);
        assert_eq!(dst, [0, 3, 1, 4, 2, 5]);
        assert_eq!(row_major_strides(&[2, 3, 4]), [12, 4, 1]);
        let mut seen = Vec::new();
        from.for_each(&[3, 2], |o| seen.push(o));
        assert_eq!(seen, [0, 3, 1, 4, 2, 5]);
        // Reversed: start at the end, step −1.
        let mut dst = vec![0u32; 3];
        copy(
            &[3],
            &src,
            &Walk::strided(&[2], &[-1], &[1]),
            &mut dst,
            &Walk::of(&[1]),
        );
        assert_eq!(dst, [2, 1, 0]);
    }

    #[test]
    fn rank_zero_and_empty_walks() {
        let mut dst = [0u8];
        copy(&[], &[7u8], &Walk::of(&[]), &mut dst, &Walk::of(&[]));
        assert_eq!(dst, [7]);
        let mut count = 0;
        Walk::of(&[0, 1]).for_each(&[2, 0], |_| count += 1);
        assert_eq!(count, 0);
    }
}
