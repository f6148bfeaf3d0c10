//! Dynamic slices, gather and scatter (`docs/semantics.md`, *Gather*, *Scatter*, *Dynamic slices*).
//!
//! Index values are read by the signedness of their type (`u32
//! 0xFFFFFFFF` is a large positive start). Dynamic slices and gather clamp
//! start positions so that the whole slice is in bounds; scatter drops an
//! update window that does not fit.

use super::array::{copy_elements, dense, result_shape, row_major_strides, zeros, Walk};
use super::elementwise::table::{apply2, Elem, Scalar};
use super::eval::{invalid, row_major, Ctx};
use super::scalar::{literal_of, Elements, ScalarFn};
use super::InterpError;
use crate::hlo::HloInstruction;
use crate::{dispatch_native, Literal, PrimitiveType};

/// The values of an integer array literal in row-major order, by the
/// signedness of its type (`u64` values above `i64::MAX` saturate, which
/// clamping treats the same).
fn index_values(instr: &HloInstruction, literal: &Literal) -> Result<Vec<i64>, InterpError> {
    use PrimitiveType as P;
    let x = row_major(literal)?;
    let widen = |v: i128| v.clamp(i64::MIN.into(), i64::MAX.into()) as i64;
    macro_rules! values {
        ($t:ty) => {
            x.data::<$t>()?.iter().map(|&v| widen(v as i128)).collect()
        };
    }
    Ok(match x.array_shape()?.element_type() {
        P::S8 => values!(i8),
        P::S16 => values!(i16),
        P::S32 => values!(i32),
        P::S64 => values!(i64),
        P::U8 => values!(u8),
        P::U16 => values!(u16),
        P::U32 => values!(u32),
        P::U64 => values!(u64),
        other => return Err(invalid(instr, format!("index values of type {other}"))),
    })
}

/// The start indices of a dynamic slice: one scalar operand per dimension
/// (or one rank-1 operand holding them all).
fn start_indices(
    instr: &HloInstruction,
    operands: &[&Literal],
    rank: usize,
) -> Result<Vec<i64>, InterpError> {
    let mut starts = Vec::with_capacity(rank);
    for operand in operands {
        starts.extend(index_values(instr, operand)?);
    }
    if starts.len() != rank {
        return Err(invalid(
            instr,
            format!(
                "{} start indices for an operand of rank {rank}",
                starts.len()
            ),
        ));
    }
    Ok(starts)
}

/// `clamp(start, 0, size − window)` per dimension.
fn clamped(starts: &[i64], dims: &[i64], window: &[i64]) -> Vec<i64> {
    starts
        .iter()
        .zip(dims.iter().zip(window))
        .map(|(&s, (&n, &w))| s.clamp(0, (n - w).max(0)))
        .collect()
}

/// `dynamic-slice(operand, starts…), dynamic_slice_sizes=…`.
pub(super) fn dynamic_slice(
    instr: &HloInstruction,
    operands: &[&Literal],
) -> Result<Literal, InterpError> {
    let x = dense(operands[0])?;
    let shape = result_shape(instr)?;
    let starts = start_indices(instr, &operands[1..], x.dims().len())?;
    let start = clamped(&starts, x.dims(), shape.dims());
    let ones = vec![1; start.len()];
    let from = Walk::strided(&start, &ones, &x.strides);
    let to = Walk::of(&row_major_strides(shape.dims()));
    let mut out = zeros(&shape)?;
    let size = shape.element_type().byte_size();
    copy_elements(
        size,
        shape.dims(),
        x.literal.bytes()?,
        &from,
        out.bytes_mut()?,
        &to,
    );
    Ok(out)
}

/// `dynamic-update-slice(operand, update, starts…)`.
pub(super) fn dynamic_update_slice(
    instr: &HloInstruction,
    operands: &[&Literal],
) -> Result<Literal, InterpError> {
    let mut out = row_major(operands[0])?.into_owned();
    let update = dense(operands[1])?;
    let shape = result_shape(instr)?;
    let starts = start_indices(instr, &operands[2..], shape.rank())?;
    let start = clamped(&starts, shape.dims(), update.dims());
    let extent = update.dims().to_vec();
    let ones = vec![1; start.len()];
    let to = Walk::strided(&start, &ones, &row_major_strides(shape.dims()));
    let from = Walk::of(&update.strides);
    let size = shape.element_type().byte_size();
    copy_elements(
        size,
        &extent,
        update.literal.bytes()?,
        &from,
        out.bytes_mut()?,
        &to,
    );
    Ok(out)
}

/// A gather/scatter index array: its values with the implicit trailing
/// size-1 dimension when `index_vector_dim == rank`.
struct Indices {
    values: Vec<i64>,
    /// Row-major strides of the indices (0 for the implicit dimension).
    strides: Vec<i64>,
    /// Sizes, with the implicit dimension.
    dims: Vec<i64>,
    index_vector_dim: usize,
}

impl Indices {
    fn new(
        instr: &HloInstruction,
        literal: &Literal,
        index_vector_dim: i64,
    ) -> Result<Self, InterpError> {
        let values = index_values(instr, literal)?;
        let mut dims = literal.array_shape()?.dims().to_vec();
        let mut strides = row_major_strides(&dims);
        let ivd = usize::try_from(index_vector_dim)
            .ok()
            .filter(|&d| d <= dims.len())
            .ok_or_else(|| invalid(instr, "index_vector_dim is out of range"))?;
        if ivd == dims.len() {
            dims.push(1);
            strides.push(0);
        }
        Ok(Indices {
            values,
            strides,
            dims,
            index_vector_dim: ivd,
        })
    }

    /// The sizes of the batch (non-index-vector) dimensions.
    fn batch_dims(&self) -> Vec<i64> {
        self.dims
            .iter()
            .enumerate()
            .filter(|&(d, _)| d != self.index_vector_dim)
            .map(|(_, &n)| n)
            .collect()
    }

    /// Position of indices dimension `d` among the batch dimensions.
    fn batch_position(&self, d: usize) -> usize {
        if d < self.index_vector_dim {
            d
        } else {
            d - 1
        }
    }

    /// Component `k` of the index vector at batch index `g`.
    fn component(&self, g: &[i64], k: usize) -> i64 {
        let mut offset = k as i64 * self.strides[self.index_vector_dim];
        for (d, &stride) in self.strides.iter().enumerate() {
            if d != self.index_vector_dim {
                offset += g[self.batch_position(d)] * stride;
            }
        }
        self.values[offset as usize]
    }

    /// The unclamped operand start of batch index `g`: index-vector
    /// component `k` at operand dimension `map[k]`, and each batching pair's
    /// batch coordinate at its operand dimension.
    fn start(&self, g: &[i64], map: &[i64], batching: (&[i64], &[i64]), rank: usize) -> Vec<i64> {
        let mut start = vec![0i64; rank];
        for (k, &d) in map.iter().enumerate() {
            start[d as usize] = self.component(g, k);
        }
        for (&operand_dim, &index_dim) in batching.0.iter().zip(batching.1) {
            start[operand_dim as usize] = g[self.batch_position(index_dim as usize)];
        }
        start
    }
}

/// `gather(operand, start_indices)` (`docs/semantics.md`, *Gather*, with XLA's
/// batching dimensions): for every batch index, the clamped slice of
/// `slice_sizes` is copied to the offset dimensions of the result.
pub(super) fn gather(
    instr: &HloInstruction,
    operands: &[&Literal],
) -> Result<Literal, InterpError> {
    let (Some(dims), Some(slice_sizes)) =
        (&instr.attrs.gather_dims, &instr.attrs.gather_slice_sizes)
    else {
        return Err(invalid(
            instr,
            "gather without dimension numbers or slice_sizes",
        ));
    };
    let x = dense(operands[0])?;
    let indices = Indices::new(instr, operands[1], dims.index_vector_dim)?;
    let shape = result_shape(instr)?;
    let out_strides = row_major_strides(shape.dims());
    let rank = x.dims().len();
    let offset_dims: Vec<usize> = dims.offset_dims.iter().map(|&d| d as usize).collect();
    let batch_out: Vec<usize> = (0..shape.rank())
        .filter(|d| !offset_dims.contains(d))
        .collect();
    let dropped = |d: usize| {
        dims.collapsed_slice_dims.contains(&(d as i64))
            || dims.operand_batching_dims.contains(&(d as i64))
    };
    // Where each operand dimension of the slice goes in the result.
    let mut kept = offset_dims.iter();
    let steps: Vec<i64> = (0..rank)
        .map(|d| {
            if dropped(d) {
                0
            } else {
                out_strides[*kept.next().unwrap_or(&0)]
            }
        })
        .collect();
    let mut to = Walk::of(&steps);
    let mut from = Walk::of(&x.strides);
    let size = shape.element_type().byte_size();
    let mut out = zeros(&shape)?;
    let batch = indices.batch_dims();
    if batch.contains(&0) {
        return Ok(out);
    }
    let mut g = vec![0i64; batch.len()];
    loop {
        let start = indices.start(
            &g,
            &dims.start_index_map,
            (
                &dims.operand_batching_dims,
                &dims.start_indices_batching_dims,
            ),
            rank,
        );
        let start = clamped(&start, x.dims(), slice_sizes);
        from.base = start.iter().zip(&x.strides).map(|(s, t)| s * t).sum();
        to.base = g
            .iter()
            .zip(&batch_out)
            .map(|(i, &d)| i * out_strides[d])
            .sum();
        copy_elements(
            size,
            slice_sizes,
            x.literal.bytes()?,
            &from,
            out.bytes_mut()?,
            &to,
        );
        if !super::array::next_index(&mut g, &batch) {
            return Ok(out);
        }
    }
}

/// `scatter(operands…, scatter_indices, updates…), to_apply=…`
/// (`docs/semantics.md`, *Scatter*, with XLA's batching dimensions). Updates are
/// applied one at a time in row-major order of the update index (project
/// rule); a window that does not fit in the operand is skipped entirely.
pub(super) fn scatter(
    ctx: &mut Ctx<'_>,
    instr: &HloInstruction,
    operands: &[&Literal],
) -> Result<Literal, InterpError> {
    let Some(dims) = &instr.attrs.scatter_dims else {
        return Err(invalid(instr, "scatter without dimension numbers"));
    };
    let callee = *instr
        .called
        .first()
        .ok_or_else(|| invalid(instr, "scatter without a computation"))?;
    let n = operands.len() / 2;
    let indices = Indices::new(instr, operands[n], dims.index_vector_dim)?;
    let updates = operands[n + 1..]
        .iter()
        .map(|u| row_major(u))
        .collect::<Result<Vec<_>, _>>()?;
    let mut outputs = operands[..n]
        .iter()
        .map(|o| Ok(row_major(o)?.into_owned()))
        .collect::<Result<Vec<Literal>, InterpError>>()?;
    let operand_dims = outputs[0].array_shape()?.dims().to_vec();
    let update_dims = updates[0].array_shape()?.dims().to_vec();
    let rank = operand_dims.len();
    let op_strides = row_major_strides(&operand_dims);
    let window_dims: Vec<usize> = dims
        .update_window_dims
        .iter()
        .map(|&d| d as usize)
        .collect();
    let scatter_dims: Vec<usize> = (0..update_dims.len())
        .filter(|d| !window_dims.contains(d))
        .collect();
    let window_to_operand: Vec<usize> = (0..rank)
        .filter(|&d| {
            !dims.inserted_window_dims.contains(&(d as i64))
                && !dims.input_batching_dims.contains(&(d as i64))
        })
        .collect();
    let mut full_window = vec![1i64; rank];
    for (k, &u) in window_dims.iter().enumerate() {
        full_window[window_to_operand[k]] = update_dims[u];
    }
    // The operand offset of each index vector's window, or None if the
    // window does not fit.
    let batch = indices.batch_dims();
    let batch_strides = row_major_strides(&batch);
    let mut bases: Vec<Option<usize>> = Vec::new();
    if !batch.contains(&0) {
        let mut g = vec![0i64; batch.len()];
        loop {
            let start = indices.start(
                &g,
                &dims.scatter_dims_to_operand_dims,
                (
                    &dims.input_batching_dims,
                    &dims.scatter_indices_batching_dims,
                ),
                rank,
            );
            // `start <= size - window` (not `start + window <= size`): starts
            // near i64::MAX must not overflow into a window that "fits".
            let fits =
                (0..rank).all(|d| start[d] >= 0 && start[d] <= operand_dims[d] - full_window[d]);
            bases.push(fits.then(|| {
                start
                    .iter()
                    .zip(&op_strides)
                    .map(|(s, t)| (s * t) as usize)
                    .sum()
            }));
            if !super::array::next_index(&mut g, &batch) {
                break;
            }
        }
    }
    // Per update index: its index vector (row-major over the scatter
    // dimensions) and its offset within the window.
    let mut g_strides = vec![0i64; update_dims.len()];
    for (k, &u) in scatter_dims.iter().enumerate() {
        g_strides[u] = batch_strides[k];
    }
    let mut w_strides = vec![0i64; update_dims.len()];
    for (k, &u) in window_dims.iter().enumerate() {
        w_strides[u] = op_strides[window_to_operand[k]];
    }
    let targets = Targets {
        by_vector: Walk::of(&g_strides),
        in_window: Walk::of(&w_strides),
        update_dims: &update_dims,
        bases: &bases,
    };
    let mut f = ScalarFn::new(ctx.module, callee, instr);
    if n == 1 {
        let ty = outputs[0].array_shape()?.element_type();
        let replace = f.as_parameter() == Some(1);
        if let Some(op) = f.as_binary().filter(|_| !replace) {
            let done = dispatch_native!(ty, T => match T::binary(op) {
                Some(func) => {
                    let upd = updates[0].data::<T>()?;
                    let out = outputs[0].data_mut::<T>()?;
                    targets.for_each(|u, o| out[o] = apply2(func, out[o], upd[u]));
                    true
                }
                None => false,
            });
            if done {
                return Ok(outputs.remove(0));
            }
        }
        if replace {
            dispatch_native!(ty, T => {
                let upd = updates[0].data::<T>()?;
                let out = outputs[0].data_mut::<T>()?;
                targets.for_each(|u, o| out[o] = upd[u]);
            });
            return Ok(outputs.remove(0));
        }
    }
    // The general path: the computation on scalars, one update at a time.
    let mut current: Vec<Vec<Scalar>> = outputs
        .iter()
        .map(|o| {
            let view = Elements::of(o)?;
            let len = o.array_shape()?.element_count() as usize;
            Ok((0..len).map(|i| view.get(i)).collect())
        })
        .collect::<Result<_, InterpError>>()?;
    let views = updates
        .iter()
        .map(|u| Elements::of(u))
        .collect::<Result<Vec<_>, _>>()?;
    let mut args = vec![Scalar::Pred(false); 2 * n];
    let mut result = vec![Scalar::Pred(false); n];
    let mut failure = None;
    targets.for_each(|u, o| {
        if failure.is_some() {
            return;
        }
        for i in 0..n {
            args[i] = current[i][o];
            args[n + i] = views[i].get(u);
        }
        match f.call(ctx, &args, &mut result) {
            Ok(()) => (0..n).for_each(|i| current[i][o] = result[i]),
            Err(e) => failure = Some(e),
        }
    });
    if let Some(e) = failure {
        return Err(e);
    }
    let results = outputs
        .iter()
        .zip(&current)
        .map(|(o, values)| literal_of(o.array_shape()?, values, instr))
        .collect::<Result<Vec<_>, _>>()?;
    Ok(if n == 1 {
        results.into_iter().next().expect("one operand")
    } else {
        Literal::tuple(results)
    })
}

/// The updates a scatter applies, in row-major order of the update index.
struct Targets<'a> {
    /// Update index → index-vector number (row-major over the scatter
    /// dimensions).
    by_vector: Walk,
    /// Update index → offset within the window in the operand.
    in_window: Walk,
    update_dims: &'a [i64],
    /// Per index vector: the operand offset of its window, `None` if the
    /// window does not fit.
    bases: &'a [Option<usize>],
}

impl Targets<'_> {
    /// Calls `f(update offset, operand offset)` for every update whose
    /// window fits, in row-major order of the update index.
    fn for_each(&self, mut f: impl FnMut(usize, usize)) {
        let mut u = 0usize;
        self.by_vector
            .for_each_pair(&self.in_window, self.update_dims, |g, w| {
                if let Some(base) = self.bases[g] {
                    f(u, base + w);
                }
                u += 1;
            });
    }
}
