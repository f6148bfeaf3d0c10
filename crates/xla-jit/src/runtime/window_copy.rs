//! Pads, slices, dynamic slices and in-place dynamic updates the runtime
//! copies: no kernel, a copy of each contiguous run of the operand into
//! place and a fill around it.

use std::collections::HashSet;

use xla_core::hlo::{HloComputation, HloInstruction, InstrId};
use xla_core::{Opcode, PrimitiveType};

use crate::fusion::Fusion;

/// A window of an array copied by the runtime, with no kernel to compile:
/// `pad(x, value)` without interior padding (a convolution's padded
/// input); a slice of `x` (a pad by negative amounts: the query, key and
/// value of a fused projection; with steps in the dimensions above the
/// minor one, a transposed convolution's taps of its weights); a
/// dynamic slice of `x`, or a dynamic update slice written in place (a
/// scan's step of its inputs and outputs); a broadcast of a constant (a
/// pad of an empty array); read through bitcasts, with
/// `x` (the update) and the result dense in one layout. Each contiguous
/// run of `x` is copied into place and the value filled around it (an
/// update leaves the rest of its result as it is).
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct WindowCopy {
    /// The result's dimensions in physical order, most major first.
    pub out: Vec<i64>,
    /// The operand's, in the same order.
    pub operand: Vec<i64>,
    /// Elements added before each (negative: removed); a dynamic start's
    /// is set at run time.
    pub low: Vec<i64>,
    /// The step between the operand's elements the result takes, in each
    /// dimension (1 but for a slice's; always 1 in the minor one).
    pub step: Vec<i64>,
    /// The starts read at run time.
    pub dynamic: Vec<DynamicStart>,
    /// A dynamic update: the operand is written into the result at its
    /// starts (`low` ≥ 0), the rest of the result left as it is.
    pub update: bool,
    /// The padding value's bytes; `None` for an update, which leaves the
    /// rest of its result as it is, and for slices, which fill nothing.
    pub fill: Option<Vec<u8>>,
    /// Bytes per element.
    pub size: usize,
    /// The fusion input copied (the others hold the dynamic starts, and
    /// for an update the array written in place); `None` for a broadcast
    /// of a constant, a pad of an empty array.
    pub source: Option<usize>,
}

/// A dynamic slice's or update's start in one dimension, read from a
/// fusion input and clamped as XLA clamps it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct DynamicStart {
    /// The dimension it starts, in [`WindowCopy::out`]'s order.
    pub level: usize,
    /// The fusion input holding it: an integer scalar of type `ty`.
    pub input: usize,
    pub ty: PrimitiveType,
    /// The largest start: the array's size less the window's.
    pub limit: i64,
    /// Elements of the dimension per unit of the start (the minor
    /// dimensions merged into it).
    pub scale: i64,
}

/// What an instruction (through bitcasts) is read from: a fusion input's
/// position, or a scalar integer constant of the fusion.
enum Source {
    Input(usize),
    Constant(i64),
}

impl WindowCopy {
    /// `Some` when `fusion` is exactly such a copy of its one input (and
    /// the starts of a dynamic slice or update), under bitcasts.
    pub fn of(computation: &HloComputation, fusion: &Fusion) -> Option<WindowCopy> {
        let mut members = HashSet::new();
        let mut id = fusion.root;
        while computation.instr(id).opcode == Opcode::Bitcast {
            members.insert(id);
            id = computation.instr(id).operands[0];
        }
        members.insert(id);
        let instr = computation.instr(id);
        let out = instr.shape.as_array()?;
        let size = out.element_type().byte_size();
        let rank = out.rank();
        if instr.opcode == Opcode::Broadcast {
            return Self::filled(computation, fusion, members, instr);
        }
        let input = |s: Option<Source>| match s? {
            Source::Input(k) => Some(k),
            Source::Constant(_) => None,
        };
        let (copied, low, step, fill, starts, update) = match instr.opcode {
            Opcode::Pad => {
                let constant = computation.instr(instr.operands[1]);
                let dims = instr.attrs.padding.as_ref()?;
                if constant.opcode != Opcode::Constant || dims.iter().any(|d| d.interior != 0) {
                    return None;
                }
                members.insert(instr.operands[1]);
                let value = constant.attrs.literal.as_ref()?.bytes().ok()?.to_vec();
                let low = dims.iter().map(|d| d.low).collect();
                (0, low, vec![1; rank], Some(value), &[][..], false)
            }
            Opcode::Slice => {
                let dims = instr.attrs.slice.as_ref()?;
                let low = dims.iter().map(|d| -d.start).collect();
                let step = dims.iter().map(|d| d.stride).collect();
                (0, low, step, None, &[][..], false)
            }
            Opcode::DynamicSlice => (
                0,
                vec![0; rank],
                vec![1; rank],
                None,
                &instr.operands[1..],
                false,
            ),
            Opcode::DynamicUpdateSlice => {
                let place = fusion.in_place?;
                if place.output != 0 || fusion.inputs.get(place.input) != Some(&instr.operands[0]) {
                    return None;
                }
                (
                    1,
                    vec![0; rank],
                    vec![1; rank],
                    None,
                    &instr.operands[2..],
                    true,
                )
            }
            _ => return None,
        };
        let x_id = instr.operands[copied];
        let source_input = input(source(computation, fusion, &mut members, x_id))?;
        let x = computation.instr(x_id).shape.as_array()?;
        // The window's extent in each dimension, and the array it moves in.
        let (window, array) = match update {
            true => (x.dims(), out.dims()),
            false => (out.dims(), x.dims()),
        };
        if matches!(
            instr.opcode,
            Opcode::DynamicSlice | Opcode::DynamicUpdateSlice
        ) && starts.len() != rank
        {
            return None;
        }
        let mut dynamic = Vec::new();
        // The fusion inputs read: the copied one, the starts, an update's
        // operand.
        let mut inputs = HashSet::new();
        let mut low: Vec<i64> = low;
        for (d, &o) in starts.iter().enumerate() {
            let limit = array[d] - window[d];
            match source(computation, fusion, &mut members, o)? {
                Source::Constant(c) => {
                    let start = c.clamp(0, limit);
                    low[d] = if update { start } else { -start };
                }
                Source::Input(k) => {
                    inputs.insert(k);
                    let ty = computation.instr(o).shape.as_array()?.element_type();
                    if !ty.is_integral() || limit == 0 {
                        continue;
                    }
                    dynamic.push(DynamicStart {
                        level: d,
                        input: k,
                        ty,
                        limit,
                        scale: 1,
                    });
                }
            }
        }
        inputs.insert(source_input);
        if update {
            inputs.insert(fusion.in_place?.input);
        }
        let self_update = update && fusion.in_place.map(|p| p.input) == Some(source_input);
        if fusion.instructions.len() != members.len()
            || members.iter().any(|&m| !fusion.contains(m))
            || inputs.len() != fusion.inputs.len()
            || self_update
        {
            return None;
        }
        let (out_layout, x_layout) = (out.layout_or_default(), x.layout_or_default());
        let same = out_layout.is_dense()
            && x_layout.is_dense()
            && out_layout.major_to_minor().eq(x_layout.major_to_minor());
        if !same || rank == 0 || size == 0 || fill.as_ref().is_some_and(|f| f.len() != size) {
            return None;
        }
        let order: Vec<usize> = out_layout.major_to_minor().collect();
        let level = |d: usize| order.iter().position(|&o| o == d).unwrap_or(d);
        dynamic.iter_mut().for_each(|s| s.level = level(s.level));
        let mut copy = WindowCopy {
            out: order.iter().map(|&d| out.dims()[d]).collect(),
            operand: order.iter().map(|&d| x.dims()[d]).collect(),
            low: order.iter().map(|&d| low[d]).collect(),
            step: order.iter().map(|&d| step[d]).collect(),
            dynamic,
            update,
            fill,
            size,
            source: Some(source_input),
        };
        // Minor dimensions with no padding are part of the runs of the one
        // above (an NHWC image's channels, padded in H and W only: rows of
        // W·C elements, not of C). (Not into one the slice steps through.)
        while copy.out.len() > 1
            && copy.low.last() == Some(&0)
            && copy.out.last() == copy.operand.last()
            && copy.step[copy.step.len() - 2] == 1
            && copy.dynamic.iter().all(|s| s.level + 1 != copy.out.len())
        {
            let n = copy.out.pop().unwrap_or(1);
            copy.operand.pop();
            copy.low.pop();
            copy.step.pop();
            let k = copy.out.len() - 1;
            copy.out[k] *= n;
            copy.operand[k] *= n;
            copy.low[k] *= n;
            for s in copy.dynamic.iter_mut().filter(|s| s.level == k) {
                s.scale *= n;
            }
        }
        // The runs are contiguous.
        if copy.step.last() != Some(&1) {
            return None;
        }
        Some(copy)
    }

    /// The broadcast `instr` of a scalar constant (under the bitcasts in
    /// `members`), as the pad of an empty array with its value.
    fn filled(
        computation: &HloComputation,
        fusion: &Fusion,
        mut members: HashSet<InstrId>,
        instr: &HloInstruction,
    ) -> Option<WindowCopy> {
        let constant = computation.instr(*instr.operands.first()?);
        let literal = constant.attrs.literal.as_ref()?;
        let scalar = constant.shape.as_array()?.element_count() == 1;
        members.insert(instr.operands[0]);
        let out = instr.shape.as_array()?;
        let layout = out.layout_or_default();
        let (size, rank) = (out.element_type().byte_size(), out.rank());
        let value = literal.bytes().ok()?.to_vec();
        let only = fusion.inputs.is_empty() && fusion.instructions.len() == members.len();
        if constant.opcode != Opcode::Constant
            || !scalar
            || !only
            || !layout.is_dense()
            || rank == 0
            || size == 0
            || value.len() != size
        {
            return None;
        }
        Some(WindowCopy {
            out: layout.major_to_minor().map(|d| out.dims()[d]).collect(),
            operand: vec![0; rank],
            low: vec![0; rank],
            step: vec![1; rank],
            dynamic: Vec::new(),
            update: false,
            fill: Some(value),
            size,
            source: None,
        })
    }

    /// The elements added before each dimension, the dynamic starts read
    /// by `start` (from an input's position and type) and clamped.
    pub fn lows(&self, start: impl Fn(usize, PrimitiveType) -> i64) -> Vec<i64> {
        let mut low = self.low.clone();
        for s in &self.dynamic {
            let at = start(s.input, s.ty).clamp(0, s.limit) * s.scale;
            low[s.level] = if self.update { at } else { -at };
        }
        low
    }

    /// Bytes written: the result's, or for an update the operand's.
    pub fn bytes(&self) -> usize {
        let written = if self.update {
            &self.operand
        } else {
            &self.out
        };
        written.iter().product::<i64>() as usize * self.size
    }

    /// Blocks `first..end` of the result's most major dimension (the whole
    /// result for rank 1, which has one block), the operand placed at
    /// `low` ([`WindowCopy::lows`]).
    ///
    /// # Safety
    ///
    /// `from` holds the operand and `to` the result, live, disjoint and in
    /// the layout [`WindowCopy::of`] checked; `low` comes from
    /// [`WindowCopy::lows`]; tasks write disjoint blocks.
    pub unsafe fn write(&self, low: &[i64], from: *const u8, to: *mut u8, first: i64, end: i64) {
        if self.out.len() == 1 {
            return unsafe { self.row(low, from, to) };
        }
        for o in first..end {
            unsafe { self.block(low, 0, o, from, to) };
        }
    }

    /// Elements of one block of dimension `level` of `dims`.
    fn block_elements(dims: &[i64], level: usize) -> usize {
        dims[level + 1..].iter().product::<i64>() as usize
    }

    /// Block `o` of dimension `level` (not the minor one), within the
    /// blocks of the dimension above that start at `from` and `to`.
    unsafe fn block(&self, low: &[i64], level: usize, o: i64, from: *const u8, to: *mut u8) {
        let size = self.size;
        let out_block = Self::block_elements(&self.out, level);
        // SAFETY (all three blocks): within the result and the operand,
        // which the caller guarantees.
        let dst = unsafe { to.add(o as usize * out_block * size) };
        let i = o * self.step[level] - low[level];
        if i < 0 || i >= self.operand[level] {
            return unsafe { self.fill(dst, out_block) };
        }
        let src =
            unsafe { from.add(i as usize * Self::block_elements(&self.operand, level) * size) };
        if level + 2 == self.out.len() {
            return unsafe { self.row(low, src, dst) };
        }
        for o in 0..self.out[level + 1] {
            unsafe { self.block(low, level + 1, o, src, dst) };
        }
    }

    /// One row of the minor dimension: the fill, the operand's run, the
    /// fill.
    unsafe fn row(&self, low: &[i64], src: *const u8, dst: *mut u8) {
        let size = self.size;
        let last = self.out.len() - 1;
        let (n, low, m) = (self.out[last], low[last], self.operand[last]);
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

    /// `count` elements of the padding value from `dst` (none without
    /// one).
    unsafe fn fill(&self, dst: *mut u8, count: usize) {
        let Some(value) = &self.fill else {
            return;
        };
        let size = self.size;
        // SAFETY: the caller's `count` elements from `dst`.
        unsafe {
            if value.iter().all(|&b| b == 0) {
                std::ptr::write_bytes(dst, 0, count * size);
            } else {
                for k in 0..count {
                    std::ptr::copy_nonoverlapping(value.as_ptr(), dst.add(k * size), size);
                }
            }
        }
    }
}

/// Where the values of `o`, a value `fusion` reads, come from (through
/// bitcasts): a fusion input, or a scalar integer constant of the fusion;
/// the bitcasts and the constant are added to `members`.
fn source(
    computation: &HloComputation,
    fusion: &Fusion,
    members: &mut HashSet<InstrId>,
    mut o: InstrId,
) -> Option<Source> {
    while fusion.contains(o) && computation.instr(o).opcode == Opcode::Bitcast {
        members.insert(o);
        o = computation.instr(o).operands[0];
    }
    if !fusion.contains(o) {
        return fusion
            .inputs
            .iter()
            .position(|&i| i == o)
            .map(Source::Input);
    }
    let constant = computation.instr(o);
    members.insert(o);
    let ty = constant.shape.as_array()?.element_type();
    let bytes = constant.attrs.literal.as_ref()?.bytes().ok()?;
    (constant.opcode == Opcode::Constant)
        .then(|| integer(bytes, ty))
        .flatten()
        .map(Source::Constant)
}

/// The integer of type `ty` in `bytes` (its little-endian bytes) by the
/// type's signedness, `u64` values above `i64::MAX` saturated (which a
/// clamp treats the same); `None` for another type or length.
pub(crate) fn integer(bytes: &[u8], ty: PrimitiveType) -> Option<i64> {
    use PrimitiveType as P;
    let mut wide = [0u8; 8];
    wide.get_mut(..bytes.len())?.copy_from_slice(bytes);
    let raw = u64::from_le_bytes(wide);
    let bits = 8 * bytes.len() as u32;
    if bytes.len() != ty.byte_size() {
        return None;
    }
    Some(match ty {
        P::S8 | P::S16 | P::S32 | P::S64 => ((raw << (64 - bits)) as i64) >> (64 - bits),
        P::U8 | P::U16 | P::U32 | P::U64 => raw.min(i64::MAX as u64) as i64,
        _ => return None,
    })
}
