//! Reduce, reduce-window and select-and-scatter (`docs/semantics.md`,
//! *Reduce*, *Reduce-window*, *Select-and-scatter*, *Dynamic dimension sizes*).
//!
//! Each runs a typed loop when the called computation is one binary op of
//! its two parameters (add, max, …), and otherwise calls the computation on
//! [`Scalar`]s. Reductions fold in the reference order: a left fold over
//! the operand elements in row-major (lexicographic) order.

use super::array::{next_index, result_shape, row_major_strides, Walk};
use super::elementwise::table::{apply2, Elem, Scalar};
use super::eval::{invalid, row_major, Ctx};
use super::scalar::{literal_of, Elements, ScalarFn};
use super::InterpError;
use crate::hlo::{scan_init_is_neutral, HloInstruction, Scan, WindowDim, REVERSE_SCAN_MIN};
use crate::{dispatch_native, Literal, PrimitiveType};

/// The first called computation.
fn callee(instr: &HloInstruction, index: usize) -> Result<crate::hlo::ComputationId, InterpError> {
    instr
        .called
        .get(index)
        .copied()
        .ok_or_else(|| invalid(instr, "missing called computation"))
}

/// The value of each (scalar) init operand.
fn scalars(instr: &HloInstruction, operands: &[&Literal]) -> Result<Vec<Scalar>, InterpError> {
    operands
        .iter()
        .map(|o| {
            Scalar::from_literal(o).ok_or_else(|| invalid(instr, "init values must be scalars"))
        })
        .collect()
}

/// `Collate`: the single result, or a tuple of them.
fn collate(mut results: Vec<Literal>) -> Literal {
    if results.len() == 1 {
        results.remove(0)
    } else {
        Literal::tuple(results)
    }
}

/// `reduce(operands…, inits…), dimensions=…, to_apply=…`. Elements at an
/// index at or beyond a dimension's runtime size (`set-dimension-size`)
/// are not reduced; results at such indices are the init values.
pub(super) fn reduce(
    ctx: &mut Ctx<'_>,
    instr: &HloInstruction,
    operands: &[&Literal],
) -> Result<Literal, InterpError> {
    let n = operands.len() / 2;
    let inits = scalars(instr, &operands[n..])?;
    let inputs = operands[..n]
        .iter()
        .map(|o| row_major(o))
        .collect::<Result<Vec<_>, _>>()?;
    let dims = inputs[0].array_shape()?.dims().to_vec();
    let extent: Vec<i64> = (0..dims.len())
        .map(|d| operands[0].dynamic_size(d))
        .collect();
    let reduced = instr
        .attrs
        .dimensions
        .as_deref()
        .ok_or_else(|| invalid(instr, "reduce without dimensions"))?;
    let kept: Vec<usize> = (0..dims.len())
        .filter(|&d| !reduced.contains(&(d as i64)))
        .collect();
    let out_dims: Vec<i64> = kept.iter().map(|&d| dims[d]).collect();
    let out_strides = row_major_strides(&out_dims);
    let mut strides = vec![0i64; dims.len()];
    for (k, &d) in kept.iter().enumerate() {
        strides[d] = out_strides[k];
    }
    let from = Walk::of(&row_major_strides(&dims));
    let to = Walk::of(&strides);
    let out_count = out_dims.iter().product::<i64>() as usize;
    let shapes: Vec<_> = match &instr.shape {
        crate::Shape::Tuple(t) => t.iter().filter_map(|s| s.as_array().cloned()).collect(),
        other => other.as_array().cloned().into_iter().collect(),
    };
    if shapes.len() != n {
        return Err(invalid(instr, "the result does not match the operands"));
    }
    let mut f = ScalarFn::new(ctx.module, callee(instr, 0)?, instr);
    if let (1, Some(op)) = (n, f.as_binary()) {
        let typed = dispatch_native!(inits[0].element_type(), T => {
            match (T::binary(op), inits[0].get::<T>()) {
                (Some(func), Some(init)) => {
                    let src = inputs[0].data::<T>()?;
                    let mut acc = vec![init; out_count];
                    from.for_each_run(&to, &extent, |a, b, len| {
                        if b.step == 0 {
                            let mut v = acc[b.start];
                            for &x in &src[a.start..a.start + len] {
                                v = apply2(func, v, x);
                            }
                            acc[b.start] = v;
                        } else {
                            for i in 0..len {
                                let o = b.at(i);
                                acc[o] = apply2(func, acc[o], src[a.start + i]);
                            }
                        }
                    });
                    let shape = shapes[0].clone().with_default_layout();
                    Some(Literal::from_vec(shape.dims(), acc)?)
                }
                _ => None,
            }
        });
        if let Some(result) = typed {
            return Ok(result);
        }
    }
    let views = inputs
        .iter()
        .map(|i| Elements::of(i))
        .collect::<Result<Vec<_>, _>>()?;
    let mut acc: Vec<Scalar> = (0..out_count).flat_map(|_| inits.iter().copied()).collect();
    let mut args = vec![Scalar::Pred(false); 2 * n];
    let mut failure = None;
    from.for_each_pair(&to, &extent, |a, b| {
        if failure.is_some() {
            return;
        }
        args[..n].copy_from_slice(&acc[b * n..(b + 1) * n]);
        for (arg, view) in args[n..].iter_mut().zip(&views) {
            *arg = view.get(a);
        }
        if let Err(e) = f.call(ctx, &args, &mut acc[b * n..(b + 1) * n]) {
            failure = Some(e);
        }
    });
    if let Some(e) = failure {
        return Err(e);
    }
    let results = (0..n)
        .map(|i| {
            let values: Vec<Scalar> = acc.iter().skip(i).step_by(n).copied().collect();
            literal_of(&shapes[i], &values, instr)
        })
        .collect::<Result<Vec<_>, _>>()?;
    Ok(collate(results))
}

/// The operand index that window position `k` of output index `o` reads
/// along a dimension of size `size` with window `w`, or `None` for padding
/// and base-dilation holes: padded position
/// `p = o·stride + k·window_dilation − padding_low` reads operand index
/// `p / base_dilation` when that divides evenly and is in range. Computed
/// per tap, not tabulated: a table of every (output, window) pair would be
/// as large as a huge padded window (or an empty output's other sizes).
///
/// Example: size 5, window 3, stride 2, padding `(1,1)`: output 0 reads
/// `[None, 0, 1]`, output 2 reads `[3, 4, None]`.
fn window_tap(size: i64, w: &WindowDim, o: i64, k: i64) -> Option<i64> {
    let p = o * w.stride + k * w.window_dilation - w.padding_low;
    let q = p / w.base_dilation;
    (p >= 0 && p % w.base_dilation == 0 && q < size).then_some(q)
}

/// Calls `f(output index, window taps)` for every output position: the
/// taps are the operand offsets (row-major, `None` for padding) of the
/// window in lexicographic order.
fn for_each_window(
    dims: &[i64],
    out_dims: &[i64],
    window: &[WindowDim],
    mut f: impl FnMut(usize, &[Option<usize>]) -> Result<(), InterpError>,
) -> Result<(), InterpError> {
    let strides = row_major_strides(dims);
    let sizes: Vec<i64> = window.iter().map(|w| w.size).collect();
    if out_dims.contains(&0) {
        return Ok(());
    }
    let mut o = vec![0i64; dims.len()];
    let mut window_offsets = Vec::new();
    let mut out = 0;
    loop {
        window_offsets.clear();
        if !sizes.contains(&0) {
            let mut k = vec![0i64; dims.len()];
            loop {
                let offset = (0..dims.len()).try_fold(0usize, |acc, d| {
                    window_tap(dims[d], &window[d], o[d], k[d])
                        .map(|q| acc + (q * strides[d]) as usize)
                });
                window_offsets.push(offset);
                if !next_index(&mut k, &sizes) {
                    break;
                }
            }
        }
        f(out, &window_offsets)?;
        out += 1;
        if !next_index(&mut o, out_dims) {
            return Ok(());
        }
    }
}

/// `reduce-window(operands…, inits…), window=…, to_apply=…`: padding and
/// base-dilation holes read as the init values (`docs/semantics.md`, *Reduce-window*).
pub(super) fn reduce_window(
    ctx: &mut Ctx<'_>,
    instr: &HloInstruction,
    operands: &[&Literal],
) -> Result<Literal, InterpError> {
    let n = operands.len() / 2;
    let inits = scalars(instr, &operands[n..])?;
    let inputs = operands[..n]
        .iter()
        .map(|o| row_major(o))
        .collect::<Result<Vec<_>, _>>()?;
    let dims = inputs[0].array_shape()?.dims().to_vec();
    let window = &instr
        .attrs
        .window
        .as_ref()
        .ok_or_else(|| invalid(instr, "reduce-window without a window"))?
        .dims;
    let shapes: Vec<_> = match &instr.shape {
        crate::Shape::Tuple(t) => t.iter().filter_map(|s| s.as_array().cloned()).collect(),
        other => other.as_array().cloned().into_iter().collect(),
    };
    if shapes.len() != n || window.len() != dims.len() {
        return Err(invalid(
            instr,
            "the window or result does not match the operands",
        ));
    }
    let out_dims = shapes[0].dims().to_vec();
    let mut f = ScalarFn::new(ctx.module, callee(instr, 0)?, instr);
    let scan = match instr.attrs.window.as_ref().and_then(|w| w.scan_dim(&dims)) {
        Some(scan) => {
            folds_running(ctx, instr, &mut f, &inits, dims[scan.dim], scan)?.then_some(scan)
        }
        None => None,
    };
    if let (1, Some(op)) = (n, f.as_binary()) {
        let typed = dispatch_native!(inits[0].element_type(), T => {
            match (T::binary(op), inits[0].get::<T>()) {
                (Some(func), Some(init)) => {
                    let src = inputs[0].data::<T>()?;
                    if let Some(scan) = scan {
                        let out = running_fold(src, &dims, scan, init, |a, b| apply2(func, a, b));
                        return Ok(Literal::from_vec(&out_dims, out)?);
                    }
                    let mut out = Vec::with_capacity(out_dims.iter().product::<i64>() as usize);
                    for_each_window(&dims, &out_dims, window, |_, taps| {
                        let mut v = init;
                        for tap in taps {
                            v = apply2(func, v, tap.map_or(init, |o| src[o]));
                        }
                        out.push(v);
                        Ok(())
                    })?;
                    Some(Literal::from_vec(&out_dims, out)?)
                }
                _ => None,
            }
        });
        if let Some(result) = typed {
            return Ok(result);
        }
    }
    let views = inputs
        .iter()
        .map(|i| Elements::of(i))
        .collect::<Result<Vec<_>, _>>()?;
    let mut values: Vec<Vec<Scalar>> = vec![Vec::new(); n];
    let mut args = vec![Scalar::Pred(false); 2 * n];
    let mut acc = inits.clone();
    if let Some(scan) = scan {
        let total = dims.iter().product::<i64>() as usize;
        values = inits.iter().map(|&i| vec![i; total]).collect();
        for line in scan_lines(&dims, scan) {
            acc.copy_from_slice(&inits);
            for o in line {
                args[..n].copy_from_slice(&acc);
                for i in 0..n {
                    args[n + i] = views[i].get(o);
                }
                f.call(ctx, &args, &mut acc)?;
                for (v, a) in values.iter_mut().zip(&acc) {
                    v[o] = *a;
                }
            }
        }
    } else {
        for_each_window(&dims, &out_dims, window, |_, taps| {
            acc.copy_from_slice(&inits);
            for tap in taps {
                args[..n].copy_from_slice(&acc);
                for i in 0..n {
                    args[n + i] = tap.map_or(inits[i], |o| views[i].get(o));
                }
                f.call(ctx, &args, &mut acc)?;
            }
            for (v, a) in values.iter_mut().zip(&acc) {
                v.push(*a);
            }
            Ok(())
        })?;
    }
    let results = values
        .iter()
        .zip(&shapes)
        .map(|(v, s)| literal_of(s, v, instr))
        .collect::<Result<Vec<_>, _>>()?;
    Ok(collate(results))
}

/// Whether cumulative reduction `scan` (of `len` elements per line) of
/// reduce-window `instr` may run as a running fold: its computation `f`
/// must leave the inits unchanged bit for bit, so that the padding taps
/// fold to them. A reverse one folds from the last element, which the JIT
/// must do alike: it also needs a single-op computation whose init
/// [`scan_init_is_neutral`] accepts, and [`REVERSE_SCAN_MIN`] elements.
fn folds_running(
    ctx: &mut Ctx<'_>,
    instr: &HloInstruction,
    f: &mut ScalarFn,
    inits: &[Scalar],
    len: i64,
    scan: Scan,
) -> Result<bool, InterpError> {
    let args: Vec<Scalar> = inits.iter().chain(inits).copied().collect();
    let mut folded = inits.to_vec();
    f.call(ctx, &args, &mut folded)?;
    let bits = |s: &Scalar| s.to_literal().bytes().map(<[u8]>::to_vec).ok();
    if !folded.iter().zip(inits).all(|(a, i)| bits(a) == bits(i)) {
        return Ok(false);
    }
    if !scan.reverse {
        return Ok(true);
    }
    let [init] = inits else {
        return Ok(false);
    };
    let op = ctx
        .module
        .computation(callee(instr, 0)?)
        .root_instr()
        .opcode;
    let value = init.to_literal().convert(PrimitiveType::F64).ok();
    let value = value.and_then(|v| v.get::<f64>(&[]).ok());
    Ok(f.as_binary().is_some()
        && len >= REVERSE_SCAN_MIN
        && value.is_some_and(|v| scan_init_is_neutral(op, v)))
}

/// The row-major offsets of each line of cumulative reduction `scan` over
/// dimensions `dims`, in fold order: forward, or from the last element.
fn scan_lines(dims: &[i64], scan: Scan) -> impl Iterator<Item = impl Iterator<Item = usize>> {
    let n = dims[scan.dim] as usize;
    let inner = dims[scan.dim + 1..].iter().product::<i64>() as usize;
    let lines = dims.iter().product::<i64>() as usize / n;
    (0..lines).map(move |l| {
        let start = l / inner * n * inner + l % inner;
        (0..n).map(move |k| start + (if scan.reverse { n - 1 - k } else { k }) * inner)
    })
}

/// A reduce-window that is a cumulative reduction `scan` (see
/// [`crate::hlo::Window::scan_dim`] and [`folds_running`]) of the
/// row-major `src` with dimensions `dims`: one running fold per line gives
/// every output (O(n) instead of O(n²) per line).
fn running_fold<T: Copy>(
    src: &[T],
    dims: &[i64],
    scan: Scan,
    init: T,
    fold: impl Fn(T, T) -> T,
) -> Vec<T> {
    let mut out = src.to_vec();
    for line in scan_lines(dims, scan) {
        let mut acc = init;
        for o in line {
            acc = fold(acc, src[o]);
            out[o] = acc;
        }
    }
    out
}

/// `select-and-scatter(operand, source, init), window=…, select=…,
/// scatter=…` (`docs/semantics.md`, *Select-and-scatter*): per window the element `select` keeps
/// (the first of equals for `≥`; padding is never selected) receives the
/// window's source value through `scatter`.
pub(super) fn select_and_scatter(
    ctx: &mut Ctx<'_>,
    instr: &HloInstruction,
    operands: &[&Literal],
) -> Result<Literal, InterpError> {
    let operand = row_major(operands[0])?;
    let source = row_major(operands[1])?;
    let init = scalars(instr, &operands[2..3])?[0];
    let dims = operand.array_shape()?.dims().to_vec();
    let source_dims = source.array_shape()?.dims().to_vec();
    let window = &instr
        .attrs
        .window
        .as_ref()
        .ok_or_else(|| invalid(instr, "select-and-scatter without a window"))?
        .dims;
    if window.len() != dims.len() {
        return Err(invalid(instr, "the window does not match the operand"));
    }
    let mut select = ScalarFn::new(ctx.module, callee(instr, 0)?, instr);
    let mut scatter = ScalarFn::new(ctx.module, callee(instr, 1)?, instr);
    let (values, sources) = (Elements::of(&operand)?, Elements::of(&source)?);
    let count = dims.iter().product::<i64>() as usize;
    let mut out = vec![init; count];
    let mut chosen = [Scalar::Pred(false)];
    let mut combined = [init];
    for_each_window(&dims, &source_dims, window, |w, taps| {
        let mut selected: Option<usize> = None;
        for &p in taps.iter().flatten() {
            let keep = match selected {
                None => false,
                Some(s) => {
                    select.call(ctx, &[values.get(s), values.get(p)], &mut chosen)?;
                    chosen[0].is_true()
                }
            };
            if !keep {
                selected = Some(p);
            }
        }
        if let Some(s) = selected {
            scatter.call(ctx, &[out[s], sources.get(w)], &mut combined)?;
            out[s] = combined[0];
        }
        Ok(())
    })?;
    literal_of(&result_shape(instr)?, &out, instr)
}
