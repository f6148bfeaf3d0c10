//! Pads and slices the runtime copies: no kernel, a copy of each
//! contiguous run of the operand into place and a fill around it.

use xla_core::hlo::HloComputation;
use xla_core::Opcode;

use crate::fusion::Fusion;

/// A window of an array copied by the runtime, with no kernel to compile:
/// `pad(x, value)` without interior padding (a convolution's padded
/// input), or a slice of `x` (a pad by negative amounts: the query, key
/// and value of a fused projection; with steps in the dimensions above
/// the minor one, a transposed convolution's taps of its weights), read
/// through bitcasts; `x` and the result dense in one layout. Each
/// contiguous run of `x` is copied into place and the value filled around
/// it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct WindowCopy {
    /// The result's dimensions in physical order, most major first.
    pub out: Vec<i64>,
    /// The operand's, in the same order.
    pub operand: Vec<i64>,
    /// Elements added before each (negative: removed).
    pub low: Vec<i64>,
    /// The step between the operand's elements the result takes, in each
    /// dimension (1 but for a slice's; always 1 in the minor one).
    pub step: Vec<i64>,
    /// The padding value's bytes (one element; zeros for a slice, which
    /// fills nothing).
    pub value: Vec<u8>,
}

impl WindowCopy {
    /// `Some` when `fusion` is exactly such a pad or slice of its one
    /// input, under bitcasts.
    pub fn of(computation: &HloComputation, fusion: &Fusion) -> Option<WindowCopy> {
        let mut id = fusion.root;
        let mut members = 1;
        while computation.instr(id).opcode == Opcode::Bitcast {
            id = computation.instr(id).operands[0];
            members += 1;
        }
        let instr = computation.instr(id);
        let operand = *instr.operands.first()?;
        let out = instr.shape.as_array()?;
        let size = out.element_type().byte_size();
        let (low, step, value, members) = match instr.opcode {
            Opcode::Pad => {
                let constant = computation.instr(instr.operands[1]);
                let dims = instr.attrs.padding.as_ref()?;
                if constant.opcode != Opcode::Constant || dims.iter().any(|d| d.interior != 0) {
                    return None;
                }
                let value = constant.attrs.literal.as_ref()?.bytes().ok()?.to_vec();
                let low: Vec<i64> = dims.iter().map(|d| d.low).collect();
                (low, vec![1; dims.len()], value, members + 1)
            }
            Opcode::Slice => {
                let dims = instr.attrs.slice.as_ref()?;
                (
                    dims.iter().map(|d| -d.start).collect(),
                    dims.iter().map(|d| d.stride).collect(),
                    vec![0; size],
                    members,
                )
            }
            _ => return None,
        };
        if fusion.instructions.len() != members
            || fusion.inputs.as_slice() != [operand]
            || !fusion.contains(id)
        {
            return None;
        }
        let x = computation.instr(operand).shape.as_array()?;
        let (out_layout, x_layout) = (out.layout_or_default(), x.layout_or_default());
        let same = out_layout.is_dense()
            && x_layout.is_dense()
            && out_layout.major_to_minor().eq(x_layout.major_to_minor());
        if !same || out.rank() == 0 || size == 0 || value.len() != size {
            return None;
        }
        let order: Vec<usize> = out_layout.major_to_minor().collect();
        let mut window = WindowCopy {
            out: order.iter().map(|&d| out.dims()[d]).collect(),
            operand: order.iter().map(|&d| x.dims()[d]).collect(),
            low: order.iter().map(|&d| low[d]).collect(),
            step: order.iter().map(|&d| step[d]).collect(),
            value,
        };
        // Minor dimensions with no padding are part of the runs of the one
        // above (an NHWC image's channels, padded in H and W only: rows of
        // W·C elements, not of C).
        // (Not into one the slice steps through.)
        while window.out.len() > 1
            && window.low.last() == Some(&0)
            && window.out.last() == window.operand.last()
            && window.step[window.step.len() - 2] == 1
        {
            let n = window.out.pop().unwrap_or(1);
            window.operand.pop();
            window.low.pop();
            window.step.pop();
            let k = window.out.len() - 1;
            window.out[k] *= n;
            window.operand[k] *= n;
            window.low[k] *= n;
        }
        // The runs are contiguous.
        if window.step.last() != Some(&1) {
            return None;
        }
        Some(window)
    }

    /// Bytes of the result.
    pub fn bytes(&self) -> usize {
        self.out.iter().product::<i64>() as usize * self.value.len()
    }

    /// Blocks `first..end` of the result's most major dimension (the whole
    /// result for rank 1, which has one block).
    ///
    /// # Safety
    ///
    /// `from` holds the operand and `to` the result, live, disjoint and in
    /// the layout [`WindowCopy::of`] checked; tasks write disjoint blocks.
    pub unsafe fn write(&self, from: *const u8, to: *mut u8, first: i64, end: i64) {
        if self.out.len() == 1 {
            return unsafe { self.row(from, to) };
        }
        for o in first..end {
            unsafe { self.block(0, o, from, to) };
        }
    }

    /// Elements of one block of dimension `level` of `dims`.
    fn block_elements(dims: &[i64], level: usize) -> usize {
        dims[level + 1..].iter().product::<i64>() as usize
    }

    /// Block `o` of dimension `level` (not the minor one), within the
    /// blocks of the dimension above that start at `from` and `to`.
    unsafe fn block(&self, level: usize, o: i64, from: *const u8, to: *mut u8) {
        let size = self.value.len();
        let out_block = Self::block_elements(&self.out, level);
        // SAFETY (all three blocks): within the result and the operand,
        // which the caller guarantees.
        let dst = unsafe { to.add(o as usize * out_block * size) };
        let i = o * self.step[level] - self.low[level];
        if i < 0 || i >= self.operand[level] {
            return unsafe { self.fill(dst, out_block) };
        }
        let src =
            unsafe { from.add(i as usize * Self::block_elements(&self.operand, level) * size) };
        if level + 2 == self.out.len() {
            return unsafe { self.row(src, dst) };
        }
        for o in 0..self.out[level + 1] {
            unsafe { self.block(level + 1, o, src, dst) };
        }
    }

    /// One row of the minor dimension: the fill, the operand's run, the
    /// fill.
    unsafe fn row(&self, src: *const u8, dst: *mut u8) {
        let size = self.value.len();
        let last = self.out.len() - 1;
        let (n, low, m) = (self.out[last], self.low[last], self.operand[last]);
        let start = low.clamp(0, n);
        let stop = (low + m).clamp(start, n);
        // SAFETY: `[0, n)` of the result's row and `[start − low, stop −
        // low)` of the operand's, which lies within its `m` elements.
        unsafe {
            self.fill(dst, start as usize);
            if stop > start {
                std::ptr::copy_nonoverlapping(
                    src.add((start - low) as usize * size),
                    dst.add(start as usize * size),
                    (stop - start) as usize * size,
                );
            }
            self.fill(dst.add(stop as usize * size), (n - stop) as usize);
        }
    }

    /// `count` elements of the padding value from `dst`.
    unsafe fn fill(&self, dst: *mut u8, count: usize) {
        let size = self.value.len();
        // SAFETY: the caller's `count` elements from `dst`.
        unsafe {
            if self.value.iter().all(|&b| b == 0) {
                std::ptr::write_bytes(dst, 0, count * size);
            } else {
                for k in 0..count {
                    std::ptr::copy_nonoverlapping(self.value.as_ptr(), dst.add(k * size), size);
                }
            }
        }
    }
}
