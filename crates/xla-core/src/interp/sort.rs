//! Sort and top-k (`docs/semantics.md`, *Sort and top-k*).
//!
//! Both use one stable merge sort driven by a "less than" answer; it never
//! relies on the comparator being a strict weak order (a comparator that
//! is not one gives some permutation, never a panic).

use super::array::{row_major_strides, with_element_size, zeros, Walk};
use super::elementwise::table::{Elem, Scalar};
use super::eval::{invalid, row_major, Ctx};
use super::scalar::{Elements, ScalarFn};
use super::InterpError;
use crate::hlo::{ComparisonDirection, HloInstruction};
use crate::{dispatch_native, Literal};

/// Sorts `0..n` stably by `less` (a bottom-up merge sort: widths 1, 2,
/// 4, …, an element of the right run taken only when it is less than the
/// left run's): `less(a, b)` says whether element `a` goes before element
/// `b`. XLA's `sort` semantics on this crate's engines: the JIT's library
/// sort calls it too, so a comparator that is not a strict weak order
/// gives the same permutation everywhere.
pub fn merge_sort<E>(
    n: usize,
    mut less: impl FnMut(usize, usize) -> Result<bool, E>,
) -> Result<Vec<usize>, E> {
    let mut order: Vec<usize> = (0..n).collect();
    let mut buffer = order.clone();
    let mut width = 1;
    while width < n {
        let mut start = 0;
        while start < n {
            let mid = (start + width).min(n);
            let end = (start + 2 * width).min(n);
            let (mut i, mut j, mut k) = (start, mid, start);
            while i < mid && j < end {
                // Take from the right only if it is strictly less: stable.
                if less(order[j], order[i])? {
                    buffer[k] = order[j];
                    j += 1;
                } else {
                    buffer[k] = order[i];
                    i += 1;
                }
                k += 1;
            }
            buffer[k..k + (mid - i)].copy_from_slice(&order[i..mid]);
            k += mid - i;
            buffer[k..k + (end - j)].copy_from_slice(&order[j..end]);
            start = end;
        }
        std::mem::swap(&mut order, &mut buffer);
        width *= 2;
    }
    Ok(order)
}

/// The typed comparison `a <direction> b` of two elements of `T`; `total`
/// selects the total order of floats.
fn typed_less<T: Elem>(
    direction: ComparisonDirection,
    total: bool,
) -> Option<impl Fn(T, T) -> bool> {
    let key = if total { T::total_order_key() } else { None };
    let by_key = super::elementwise::table::key_compare(direction);
    let cmp = T::compare(direction);
    if key.is_none() && cmp.is_none() {
        return None;
    }
    Some(move |a: T, b: T| match (key, cmp) {
        (Some(key), _) => by_key(key(a), key(b)),
        (None, Some(cmp)) => cmp(a.widen(), b.widen()),
        (None, None) => false,
    })
}

/// Writes `out[pos(i)] = in[pos(order[i])]` for one slice of every operand.
fn permute(src: &[u8], dst: &mut [u8], size: usize, positions: &[usize], order: &[usize]) {
    with_element_size!(size, N => {
        let (src, _) = src.as_chunks::<N>();
        let (dst, _) = dst.as_chunks_mut::<N>();
        for (i, &o) in order.iter().enumerate() {
            dst[positions[i]] = src[positions[o]];
        }
    })
}

/// `sort(operands…), dimensions={d}, to_apply=comparator`: every 1-D slice
/// along `d` sorted by the comparator (always stably, which `is_stable =
/// false` allows), all operands permuted together.
pub(super) fn sort(
    ctx: &mut Ctx<'_>,
    instr: &HloInstruction,
    operands: &[&Literal],
) -> Result<Literal, InterpError> {
    let inputs = operands
        .iter()
        .map(|o| row_major(o))
        .collect::<Result<Vec<_>, _>>()?;
    let dims = inputs[0].array_shape()?.dims().to_vec();
    let d = match instr.attrs.dimensions.as_deref() {
        Some([d]) => crate::shape::normalize_dim(*d, dims.len()),
        _ => None,
    }
    .ok_or_else(|| invalid(instr, "sort needs one dimension of the operands"))?;
    let callee = *instr
        .called
        .first()
        .ok_or_else(|| invalid(instr, "sort without a comparator"))?;
    let mut comparator = ScalarFn::new(ctx.module, callee, instr);
    let fast = comparator.as_compare();
    let views = inputs
        .iter()
        .map(|i| Elements::of(i))
        .collect::<Result<Vec<_>, _>>()?;
    let mut outputs = inputs
        .iter()
        .map(|i| zeros(&i.array_shape()?.clone().with_default_layout()))
        .collect::<Result<Vec<_>, _>>()?;
    let strides = row_major_strides(&dims);
    let len = dims[d];
    let mut outer = dims.clone();
    outer[d] = 1;
    let mut args = vec![Scalar::Pred(false); 2 * inputs.len()];
    let mut result = [Scalar::Pred(false)];
    // An empty array has nothing to sort, however many (empty) slices its
    // other dimensions count.
    let bases = if dims.contains(&0) {
        Vec::new()
    } else {
        let mut bases = Vec::new();
        Walk::of(&strides).for_each(&outer, |b| bases.push(b));
        bases
    };
    for base in bases {
        let positions: Vec<usize> = (0..len as usize)
            .map(|i| base + i * strides[d] as usize)
            .collect();
        let typed = match fast {
            Some((direction, total)) => {
                let ty = inputs[0].array_shape()?.element_type();
                dispatch_native!(ty, T => match typed_less::<T>(direction, total) {
                    Some(less) => {
                        let keys = inputs[0].data::<T>()?;
                        let order = merge_sort(positions.len(), |a, b| {
                            Ok::<_, InterpError>(less(keys[positions[a]], keys[positions[b]]))
                        })?;
                        Some(order)
                    }
                    None => None,
                })
            }
            None => None,
        };
        let order = match typed {
            Some(order) => order,
            None => merge_sort(positions.len(), |a, b| {
                for (k, view) in views.iter().enumerate() {
                    args[2 * k] = view.get(positions[a]);
                    args[2 * k + 1] = view.get(positions[b]);
                }
                comparator.call(ctx, &args, &mut result)?;
                Ok::<_, InterpError>(result[0].is_true())
            })?,
        };
        for (input, output) in inputs.iter().zip(outputs.iter_mut()) {
            let size = input.array_shape()?.element_type().byte_size();
            permute(
                input.bytes()?,
                output.bytes_mut()?,
                size,
                &positions,
                &order,
            );
        }
    }
    Ok(if outputs.len() == 1 {
        outputs.remove(0)
    } else {
        Literal::tuple(outputs)
    })
}

/// `topk(operand), k=…, largest=…`: along the last dimension, the `k`
/// largest (or smallest) values and their `s32` indices. Floats follow the
/// total order (`+NaN` largest, `−0 < +0`); ties keep the lower index first.
pub(super) fn topk(instr: &HloInstruction, operands: &[&Literal]) -> Result<Literal, InterpError> {
    let x = row_major(operands[0])?;
    let shape = x.array_shape()?;
    let dims = shape.dims().to_vec();
    let ty = shape.element_type();
    let Some(&n) = dims.last() else {
        return Err(invalid(instr, "topk of a scalar"));
    };
    let k = instr
        .attrs
        .k
        .filter(|&k| (0..=n).contains(&k))
        .ok_or_else(|| invalid(instr, "topk needs 0 ≤ k ≤ the last dimension's size"))?;
    let largest = instr.attrs.largest.unwrap_or(true);
    // Rows of length 0 give nothing, however many there are.
    let rows = if n == 0 {
        0
    } else {
        dims[..dims.len() - 1].iter().product::<i64>() as usize
    };
    let mut out_dims = dims.clone();
    *out_dims.last_mut().expect("rank ≥ 1") = k;
    let direction = if largest {
        ComparisonDirection::Gt
    } else {
        ComparisonDirection::Lt
    };
    let (n, k) = (n as usize, k as usize);
    let mut indices: Vec<i32> = Vec::with_capacity(rows * k);
    dispatch_native!(ty, T => {
        let before = typed_less::<T>(direction, true)
            .ok_or_else(|| invalid(instr, format!("topk of {ty}")))?;
        let data = x.data::<T>()?;
        let mut values: Vec<T> = Vec::with_capacity(rows * k);
        for r in 0..rows {
            let row = &data[r * n..(r + 1) * n];
            let order = merge_sort(n, |a, b| Ok::<_, InterpError>(before(row[a], row[b])))?;
            for &i in &order[..k] {
                values.push(row[i]);
                indices.push(i as i32);
            }
        }
        Ok(Literal::tuple(vec![
            Literal::from_vec(&out_dims, values)?,
            Literal::from_vec(&out_dims, indices)?,
        ]))
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn merge_sort_is_stable_and_total() {
        let keys = [2, 1, 2, 1, 0];
        let order = merge_sort(keys.len(), |a, b| Ok::<_, ()>(keys[a] < keys[b])).unwrap();
        assert_eq!(order, [4, 1, 3, 0, 2]);
        // A comparator that is not a strict weak order still terminates.
        let order = merge_sort(5, |_, _| Ok::<_, ()>(true)).unwrap();
        let mut sorted = order.clone();
        sorted.sort_unstable();
        assert_eq!(sorted, [0, 1, 2, 3, 4]);
        assert_eq!(
            merge_sort(0, |_, _| Ok::<_, ()>(true)).unwrap(),
            Vec::<usize>::new()
        );
    }
}
