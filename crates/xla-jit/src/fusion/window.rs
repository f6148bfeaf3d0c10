//! Recognizing a convolution's patches (im2col) as a window of the buffer
//! they are sliced from, so that a dot reads them in place.
//!
//! Convolution preparation writes the patches of a convolution as
//! `reshape(concatenate(slice_0(x), …, slice_{T−1}(x)), dimensions={d})`:
//! `T` slices of one buffer `x` with the same sizes and strides, at starts
//! that form a grid (one per kernel tap, or per output position for a
//! weight gradient), concatenated along dimension `d`, and the reshape
//! splitting the concatenated dimension into the grid's dimensions
//! followed by the slices' own size. Every element of the result is then
//! an element of `x` at an index affine in the result's index, which is
//! what [`OperandView::Window`] describes.

use xla_core::hlo::{HloComputation, InstrId};
use xla_core::Opcode;

use super::OperandView;

/// The window view of `x` that `reshape` (the operand of a dot) is, with
/// `x` and the instructions it replaces (the reshape, the concatenate and
/// the slices); `None` when `reshape` is not such a patches value.
pub(crate) fn patches_view(
    comp: &HloComputation,
    reshape: InstrId,
) -> Option<(InstrId, Vec<InstrId>, OperandView)> {
    let r = comp.instr(reshape);
    if r.opcode != Opcode::Reshape {
        return None;
    }
    let concat_id = r.operands[0];
    let concat = comp.instr(concat_id);
    if concat.opcode != Opcode::Concatenate || concat.operands.len() < 2 {
        return None;
    }
    let d = *concat.attrs.dimensions.as_ref()?.first()? as usize;
    let slices: Vec<_> = concat.operands.iter().map(|&s| comp.instr(s)).collect();
    let first = slices[0];
    let x = *first.operands.first()?;
    let piece = first.shape.as_array()?.dims();
    let strides: Vec<i64> = first
        .attrs
        .slice
        .as_ref()?
        .iter()
        .map(|s| s.stride)
        .collect();
    // Every slice's starts, if it is a slice of `x` like the first.
    let starts_of = |s: &xla_core::HloInstruction| {
        let dims = s
            .attrs
            .slice
            .as_ref()
            .filter(|_| s.opcode == Opcode::Slice)?;
        let alike = s.operands[0] == x
            && s.shape.as_array().is_some_and(|a| a.dims() == piece)
            && dims.iter().map(|d| d.stride).eq(strides.iter().copied());
        alike.then(|| dims.iter().map(|d| d.start).collect::<Vec<i64>>())
    };
    let starts: Vec<Vec<i64>> = slices.iter().map(|s| starts_of(s)).collect::<Option<_>>()?;
    // The reshape: the dimensions before `d`, the grid, the slices' size
    // along `d`, the dimensions after `d`.
    let out = r.shape.as_array()?.dims();
    let rank = piece.len();
    let grid_rank = out.len().checked_sub(rank)?;
    let grid = &out[d..d + grid_rank];
    let count = slices.len() as i64;
    if out[..d] != piece[..d]
        || out[d + grid_rank] != piece[d]
        || out[d + grid_rank + 1..] != piece[d + 1..]
        || grid.iter().product::<i64>() != count
    {
        return None;
    }
    // Each grid dimension's step through `x`: from the slice one step
    // along it; then every slice must start where the grid says.
    let mut grid_steps = Vec::with_capacity(grid_rank);
    let mut unit = count;
    for &size in grid {
        unit /= size;
        let step: Vec<i64> = if size > 1 {
            starts[unit as usize]
                .iter()
                .zip(&starts[0])
                .map(|(a, b)| a - b)
                .collect()
        } else {
            vec![0; rank]
        };
        grid_steps.push((unit, size, step));
    }
    for (t, start) in starts.iter().enumerate() {
        let mut expected = starts[0].clone();
        for (unit, size, step) in &grid_steps {
            let digit = (t as i64 / unit) % size;
            expected
                .iter_mut()
                .zip(step)
                .for_each(|(e, s)| *e += digit * s);
        }
        if *start != expected {
            return None;
        }
    }
    let along = |e: usize| vec![(e, strides[e])];
    let mut steps: Vec<Vec<(usize, i64)>> = (0..d).map(along).collect();
    for (_, _, step) in &grid_steps {
        steps.push(
            step.iter()
                .enumerate()
                .filter(|(_, &s)| s != 0)
                .map(|(e, &s)| (e, s))
                .collect(),
        );
    }
    steps.extend((d..rank).map(along));
    let mut absorbed = vec![reshape, concat_id];
    absorbed.extend(&concat.operands);
    Some((
        x,
        absorbed,
        OperandView::Window {
            sizes: out.to_vec(),
            steps,
            start: starts[0].clone(),
        },
    ))
}

#[cfg(test)]
mod tests {
    use super::*;
    use xla_core::HloModule;

    fn view_of(text: &str) -> Option<(String, usize, OperandView)> {
        let module: HloModule = text.parse().unwrap();
        let comp = module.entry_computation();
        let root = comp.root;
        patches_view(comp, root)
            .map(|(x, absorbed, view)| (comp.instr(x).name.clone(), absorbed.len(), view))
    }

    /// The patches of a 2×2 kernel over a padded 4×4 single-channel image.
    #[test]
    fn patches_of_a_kernel_grid() {
        let text = "HloModule m\nENTRY e {\n  x = f32[1,4,4,2]{3,2,1,0} parameter(0)\n  \
            s0 = f32[1,3,3,2]{3,2,1,0} slice(x), slice={[0:1], [0:3], [0:3], [0:2]}\n  \
            s1 = f32[1,3,3,2]{3,2,1,0} slice(x), slice={[0:1], [0:3], [1:4], [0:2]}\n  \
            s2 = f32[1,3,3,2]{3,2,1,0} slice(x), slice={[0:1], [1:4], [0:3], [0:2]}\n  \
            s3 = f32[1,3,3,2]{3,2,1,0} slice(x), slice={[0:1], [1:4], [1:4], [0:2]}\n  \
            c = f32[1,3,3,8]{3,2,1,0} concatenate(s0, s1, s2, s3), dimensions={3}\n  \
            ROOT r = f32[1,3,3,2,2,2]{5,4,3,2,1,0} reshape(c)\n}";
        let (x, absorbed, view) = view_of(text).unwrap();
        assert_eq!((x.as_str(), absorbed), ("x", 6));
        assert_eq!(
            view,
            OperandView::Window {
                sizes: vec![1, 3, 3, 2, 2, 2],
                steps: vec![
                    vec![(0, 1)],
                    vec![(1, 1)],
                    vec![(2, 1)],
                    vec![(1, 1)],
                    vec![(2, 1)],
                    vec![(3, 1)],
                ],
                start: vec![0, 0, 0, 0],
            }
        );
        // x is f32[1,4,4,2] row-major: strides 32, 8, 2, 1.
        let (dims, offset) = view.dims(&[1, 4, 4, 2], &[32, 8, 2, 1]).unwrap();
        assert_eq!(dims, [(1, 32), (3, 8), (3, 2), (2, 8), (2, 2), (2, 1)]);
        assert_eq!(offset, 0);
        // A start off the grid is not a window.
        let off = text.replace(
            "s3 = f32[1,3,3,2]{3,2,1,0} slice(x), slice={[0:1], [1:4], [1:4]",
            "s3 = f32[1,3,3,2]{3,2,1,0} slice(x), slice={[0:1], [0:3], [1:4]",
        );
        assert!(view_of(&off).is_none());
    }
}
