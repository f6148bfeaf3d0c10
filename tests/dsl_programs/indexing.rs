//! Indexing and data movement: embedding lookup, cumulative sums and
//! products, argmax/argmin, top-k and sorting, a histogram by scatter,
//! roll/diff/concatenate, patch extraction, dynamic slices.

use super::{backends, check, fx, lit, vals};
use xla::prelude::*;

xla! {
    /// `table[ids]`.
    pub fn embedding(table: f32[V, D], ids: s32[B, T]) -> f32[B, T, D] {
        table.gather(ids, GatherDims {
            offset_dims: [2],
            collapsed_slice_dims: [0],
            start_index_map: [0],
            index_vector_dim: 2,
        }, [1, D])
    }

    /// Inclusive cumulative sum, reversed cumulative sum, and the
    /// cumulative product of the first four elements; a running maximum
    /// and minimum of a matrix's columns.
    pub fn cumsum(x: f32[N], m: s32[R, C]) -> (f32[N], f32[N], f32[4], s32[R, C], s32[R, C]) {
        let sum = x.cumsum(0);
        let rsum = x.rev([0]).cumsum(0).rev([0]);
        let prod = x.slice([0], [4]).cumprod(0);
        (sum, rsum, prod, m.cummax(0), m.cummin(1))
    }

    /// `cumsum` by `reduce_window`, as JAX lowers it, for a known size.
    pub fn cumsum_window(x: f32[6]) -> f32[6] {
        x.reduce_window(0.0, |a, b| a + b, [6], [1], [(5, 0)])
    }

    /// The first index of the largest element of each row, and of the
    /// smallest of each column.
    pub fn argminmax(x: f32[R, C]) -> (s32[R], s32[C]) {
        let (_, amax) = reduce([x, iota(s32[R, C], 1)], [f32::NEG_INFINITY, 0], |av, ai, bv, bi| {
            let first = (av > bv) | ((av == bv) & (ai < bi));
            (select(first, av, bv), select(first, ai, bi))
        }, [1]);
        let (_, amin) = reduce([x, iota(s32[R, C], 0)], [f32::INFINITY, 0], |av, ai, bv, bi| {
            let first = (av < bv) | ((av == bv) & (ai < bi));
            (select(first, av, bv), select(first, ai, bi))
        }, [0]);
        (amax, amin)
    }

    /// The same with `argmax` and `argmin`.
    pub fn argminmax_ops(x: f32[R, C]) -> (s32[R], s32[C]) {
        (x.argmax(1), x.argmin(0))
    }

    /// NaN is the largest and the smallest; other index types; negative
    /// dimensions count from the end.
    pub fn arg_nan(x: f32[N], i: u8[2, N]) -> (s32, s32, s64[2], s64[N]) {
        (x.argmax(0), x.argmin(-1), i.argmax(1, s64), i.argmin(0, s64))
    }

    /// `lax.top_k`, a stable argsort and a descending sort, per row.
    pub fn topk_sort(x: f32[B, N]) -> (f32[B, 3], s32[B, 3], s32[B, N], f32[B, N]) {
        let (values, indices) = x.top_k(3);
        let order = sort([x, iota(s32[B, N], 1)], 1, |a, b, i, j| a < b).1;
        (values, indices, order, x.sort(1, |a, b| a > b))
    }

    /// Counts of `x` in four bins of [0, 1), by a scatter-add.
    pub fn histogram(x: f32[N]) -> s32[4] {
        let bins = (x * 4.0).floor().convert(s32).clamp(0, 3);
        broadcast(0, [4]).scatter(bins.reshape([N, 1]), broadcast(1, [N]), |a, b| a + b, ScatterDims {
            update_window_dims: [],
            inserted_window_dims: [0],
            scatter_dims_to_operand_dims: [0],
            index_vector_dim: 1,
        })
    }

    /// `jnp.roll(x, shift)` for `0 <= shift < N`, `jnp.diff(x)`, and `x`
    /// followed by its reverse.
    pub fn roll(x: f32[N], shift: s32) -> (f32[N], f32[N - 1], f32[2 * N]) {
        let rolled = concat([x, x], 0).dynamic_slice([N - shift], [N]);
        let diff = x.slice([1], [N]) - x.slice([0], [N - 1]);
        (rolled, diff, x.concat([x.rev([0])], 0))
    }

    /// Non-overlapping 2×2 patches, flattened.
    pub fn patches(img: f32[2 * H, 2 * W]) -> f32[H * W, 4] {
        img.reshape([H, 2, W, 2]).transpose([0, 2, 1, 3]).reshape([H * W, 4])
    }

    /// Writes `row` at row `i` of `buf`, and reads a 2×2 window at `(i, 1)`.
    pub fn window_update(buf: f32[R, C], row: f32[C], i: s32) -> (f32[R, C], f32[2, 2]) {
        (buf.dynamic_update_slice(row.reshape([1, C]), [i, 0]), buf.dynamic_slice([i, 1], [2, 2]))
    }
}

#[test]
fn embedding_lookup() {
    for (name, be) in backends() {
        let y = embedding::call(be, fx("embedding/table"), fx("embedding/ids")).unwrap();
        check(name, "embedding/out0", &y, 0.0, 0.0);
    }
}

#[test]
fn cumulative() {
    let m = lit(&[2, 3], &[3, -1, 4, 1, 5, -9]);
    for (name, be) in backends() {
        let (sum, rsum, prod, colmax, rowmin) = cumsum::call(be, fx("cumsum/x"), &m).unwrap();
        check(name, "cumsum/out0", &sum, 0.0, 0.0);
        check(name, "cumsum/out1", &rsum, 0.0, 0.0);
        check(name, "cumsum/out2", &prod, 0.0, 0.0);
        assert_eq!(vals::<i32>(&colmax), [3, -1, 4, 3, 5, 4], "{name}");
        assert_eq!(vals::<i32>(&rowmin), [3, -1, -1, 1, 1, -9], "{name}");
        let sum = cumsum_window::call(be, fx("cumsum/x")).unwrap();
        check(name, "cumsum/out0", &sum, 0.0, 0.0);
    }
}

#[test]
fn arg_reductions_and_sorting() {
    for (name, be) in backends() {
        let (amax, amin) = argminmax::call(be, fx("argminmax/x")).unwrap();
        check(name, "argminmax/out0", &amax, 0.0, 0.0);
        check(name, "argminmax/out1", &amin, 0.0, 0.0);
        let (amax, amin) = argminmax_ops::call(be, fx("argminmax/x")).unwrap();
        check(name, "argminmax/out0", &amax, 0.0, 0.0);
        check(name, "argminmax/out1", &amin, 0.0, 0.0);
        let x = lit(&[5], &[1.0f32, f32::NAN, 3.0, f32::NAN, -1.0]);
        let i = lit(&[2, 5], &[3u8, 7, 7, 0, 1, 9, 9, 2, 2, 0]);
        let (xmax, xmin, rows, columns) = arg_nan::call(be, &x, &i).unwrap();
        assert_eq!(vals::<i32>(&xmax), [1], "{name}");
        assert_eq!(vals::<i32>(&xmin), [1], "{name}");
        assert_eq!(vals::<i64>(&rows), [1, 0], "{name}");
        assert_eq!(vals::<i64>(&columns), [0, 0, 1, 0, 1], "{name}");
        let (values, indices, order, desc) = topk_sort::call(be, fx("topk_sort/x")).unwrap();
        check(name, "topk_sort/out0", &values, 0.0, 0.0);
        check(name, "topk_sort/out1", &indices, 0.0, 0.0);
        check(name, "topk_sort/out2", &order, 0.0, 0.0);
        check(name, "topk_sort/out3", &desc, 0.0, 0.0);
    }
}

#[test]
fn scatter_histogram() {
    for (name, be) in backends() {
        let h = histogram::call(be, fx("histogram/x")).unwrap();
        check(name, "histogram/out0", &h, 0.0, 0.0);
    }
}

#[test]
fn data_movement() {
    for (name, be) in backends() {
        let (rolled, diff, cat) = roll::call(be, fx("roll/x"), fx("roll/shift")).unwrap();
        check(name, "roll/out0", &rolled, 0.0, 0.0);
        check(name, "roll/out1", &diff, 0.0, 0.0);
        check(name, "roll/out2", &cat, 0.0, 0.0);
        let p = patches::call(be, fx("patches/img")).unwrap();
        check(name, "patches/out0", &p, 0.0, 0.0);
        let w = |n: &str| fx(&format!("window_update/{n}"));
        let (updated, window) = window_update::call(be, w("buf"), w("row"), w("i")).unwrap();
        check(name, "window_update/out0", &updated, 0.0, 0.0);
        check(name, "window_update/out1", &window, 0.0, 0.0);
    }
}
