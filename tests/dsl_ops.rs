//! Every op of the `xla!` language, built for concrete sizes: the result
//! shapes the macro inferred symbolically are the ones the builder infers.

use xla::prelude::*;

xla! {
    fn unary(x: f32[N], i: s32[N], c: c64[N]) -> (f32[N], f32[N], s32[N], pred[N], f32[N], s32[N], c64[N]) {
        let f = x.abs().ceil().cos().exp().expm1().floor().log().log1p().logistic().neg().round()
            .round_nearest_even().rsqrt().sign().sin().sqrt().tan().tanh().cbrt().erf();
        (f, c.abs() + c.real() + c.imag(), i.clz().population_count().not().neg().abs().sign(),
         x.is_finite(), -x, !i, c.conj())
    }

    fn binary(x: f32[N], y: f32[N], i: s32[N], u: u32[N], p: pred[N]) -> (f32[N], s32[N], u32[N], pred[N], c64[N]) {
        let f = x.add(y).sub(y).mul(y).div(y).rem(y).max(y).min(y).pow(y).atan2(y);
        let f = f + x - y * x / y % x;
        let s = i.and(i).or(i).xor(i).shift_left(i).shift_right_arithmetic(i).shift_right_logical(i);
        let s = (s & i) | (s ^ i) << 1 >> 1;
        let v = u >> 1u32;
        (f, s, v, (p & p) | !p ^ p, x.complex(y))
    }

    fn compare(x: f32[N], y: f32[N]) -> (pred[N], pred[N], pred[N], pred[N], pred[N], pred[N], pred[N], pred[N]) {
        (x.eq(y), x.ne(y), x.lt(y), x.le(y), x.gt(y), x.ge(y), x.lt_total_order(y), x.eq_total_order(y))
    }

    fn broadcasting(m: f32[B, N], v: f32[N], col: f32[B, 1]) -> (f32[B, N], f32[B, N], pred[B, N], f32[B, N]) {
        (m.add(v, [1]), m * col, m.gt(v, [1]), m + 1.0)
    }

    fn conversions(x: f32[N]) -> (s32[N], u8[N, 4], f16[N], bf16[N], f32[N]) {
        (x.convert(s32), x.bitcast_convert(u8), x.convert(f16), x.convert(bf16), x.reduce_precision(5, 10))
    }

    fn select_clamp(p: pred[N], x: f32[N], y: f32[N], s: pred) -> (f32[N], f32[N], f32[N], f32[N]) {
        (p.select(x, y), select(s, x, y), select(p, x, 0.0), x.clamp(-1.0, 1.0))
    }

    fn movement(x: f32[A, B]) -> (f32[2, A, B], f32[A, B, 3], f32[A * B], f32[B, A], f32[A, B]) {
        (x.broadcast([2]), x.broadcast_in_dim([A, B, 3], [0, 1]), x.reshape([A * B]),
         x.transpose([1, 0]), x.rev([0, 1]))
    }

    fn slicing(x: f32[N, 8], i: s32, j: s32) -> (f32[N - 2, 4], f32[N, 3], f32[2, 3], f32[N, 8], f32[N, 6]) {
        let u = x.slice([0, 0], [2, 3]);
        (x.slice([1, 0], [N - 1, 8], [1, 2]), x.slice_in_dim(2, 5, 1, 1), x.dynamic_slice([i, j], [2, 3]),
         x.dynamic_update_slice(u, [i, 0]), x.slice([0, 1], [N, 7]))
    }

    fn joining(a: f32[A, N], b: f32[B, N], c: f32[3, 4]) -> (f32[A + B, N], f32[2 * A + B, N], f32[5, 9], f32[5, 3], f32[A + 1, N - 1]) {
        (concat([a, b], 0), a.concat([a, b], 0), c.pad(0.0, [(1, 1, 0), (1, 1, 1)]),
         c.pad(0.0, [(0, 0, 1), (1, -2)]), a.pad(0.0, [(1, 0), (0, -1)]))
    }

    fn generators() -> (s32[4], f32[2, 3]) {
        (iota(s32[4], 0), iota(f32[2, 3], 1))
    }

    fn reductions(x: f32[B, N], p: pred[B, N], i: s32[B, N]) -> (f32[B], f32[N], f32[B], f32[], f32[B], pred[B], pred[B], s32[B]) {
        (x.reduce_sum([1]), x.reduce_max([0]), x.reduce_min([1]), x.reduce_prod([0, 1]),
         x.reduce(0.0, |a, b| a + b * b, [1]), p.reduce_and([1]), p.reduce_or([1]), i.reduce_and([1]))
    }

    fn windows(x: f32[B, 2 * H, 2 * W, C]) -> (f32[B, 2 * H, 2 * W, C], f32[B, H, W, C], f32[B, 2 * H + 1, 2 * W + 1, C]) {
        (x.reduce_window(0.0, |a, b| a + b, [1, 3, 3, 1], [1, 1, 1, 1], same),
         x.reduce_window(f32::NEG_INFINITY, |a, b| a.max(b), [1, 2, 2, 1], [1, 2, 2, 1], valid),
         x.reduce_window(0.0, |a, b| a + b, [1, 2, 2, 1], [1, 1, 1, 1], [(0, 0), (1, 1), (1, 1), (0, 0)]))
    }

    fn products(a: f32[B, M, K], b: f32[B, K, N], v: f32[K], w: f32[K, N]) -> (f32[B, M, N], f32[N], f32[], f32[B, M, N]) {
        (a.dot_general(b, ([2], [1]), ([0], [0])), v.dot(w), v.dot(v),
         a.dot_general(b, ([2], [1]), ([0], [0]), f32))
    }

    fn convolutions(x: f32[B, H, W, C], k: f32[3, 3, C, O]) -> (f32[B, H, W, O], f32[B, H - 2, W - 2, O], f32[B, H, W, O]) {
        (x.conv(k, [1, 1], same, "b01f_01io->b01f"),
         x.conv(k, [1, 1], valid, "b01f_01io->b01f"),
         x.conv_general_dilated(k, [1, 1], [(1, 1), (1, 1)], [1, 1], [1, 1], "b01f_01io->b01f", 1, 1))
    }

    fn indexing(table: f32[V, D], ids: s32[N], updates: f32[N, D]) -> (f32[N, D], f32[V, D]) {
        let idx = ids.reshape([N, 1]);
        let rows = table.gather(idx, GatherDims {
            offset_dims: [1], collapsed_slice_dims: [0], start_index_map: [0], index_vector_dim: 1,
        }, [1, D]);
        let added = table.scatter(idx, updates, |old, new| old + new, ScatterDims {
            update_window_dims: [1], inserted_window_dims: [0], scatter_dims_to_operand_dims: [0],
            index_vector_dim: 1,
        });
        (rows, added)
    }

    fn sorting(x: f32[N], keys: s32[N]) -> (f32[N], (s32[N], f32[N]), (f32[2], s32[2]), f32[N]) {
        (x.sort(0, |a, b| a < b), sort([keys, x], -1, |ka, kb, va, vb| ka > kb), x.top_k(2),
         x.map(|v| v * v + 1.0))
    }

    fn mapping(x: f32[N], y: f32[N]) -> f32[N] {
        map([x, y], |a, b| a.max(b))
    }
}

fn shape(c: &XlaComputation) -> String {
    c.program_shape().result.without_layouts().to_string()
}

#[test]
fn element_wise() {
    let c = unary::computation(unary::Dims { N: 3 }).unwrap();
    assert_eq!(
        shape(&c),
        "(f32[3], f32[3], s32[3], pred[3], f32[3], /*index=5*/s32[3], c64[3])"
    );
    let c = binary::computation(binary::Dims { N: 3 }).unwrap();
    assert_eq!(shape(&c), "(f32[3], s32[3], u32[3], pred[3], c64[3])");
    let c = compare::computation(compare::Dims { N: 3 }).unwrap();
    assert_eq!(
        shape(&c),
        "(pred[3], pred[3], pred[3], pred[3], pred[3], /*index=5*/pred[3], pred[3], pred[3])"
    );
    let c = broadcasting::computation(broadcasting::Dims { B: 2, N: 3 }).unwrap();
    assert_eq!(shape(&c), "(f32[2,3], f32[2,3], pred[2,3], f32[2,3])");
    let c = conversions::computation(conversions::Dims { N: 3 }).unwrap();
    assert_eq!(shape(&c), "(s32[3], u8[3,4], f16[3], bf16[3], f32[3])");
    let c = select_clamp::computation(select_clamp::Dims { N: 3 }).unwrap();
    assert_eq!(shape(&c), "(f32[3], f32[3], f32[3], f32[3])");
}

#[test]
fn data_movement() {
    let c = movement::computation(movement::Dims { A: 2, B: 5 }).unwrap();
    assert_eq!(
        shape(&c),
        "(f32[2,2,5], f32[2,5,3], f32[10], f32[5,2], f32[2,5])"
    );
    let c = slicing::computation(slicing::Dims { N: 5 }).unwrap();
    assert_eq!(
        shape(&c),
        "(f32[3,4], f32[5,3], f32[2,3], f32[5,8], f32[5,6])"
    );
    let c = joining::computation(joining::Dims { A: 2, B: 3, N: 4 }).unwrap();
    assert_eq!(
        shape(&c),
        "(f32[5,4], f32[7,4], f32[5,9], f32[5,3], f32[3,3])"
    );
    let c = generators::computation(generators::Dims {}).unwrap();
    assert_eq!(shape(&c), "(s32[4], f32[2,3])");
}

#[test]
fn reductions_and_windows() {
    let c = reductions::computation(reductions::Dims { B: 2, N: 3 }).unwrap();
    assert_eq!(
        shape(&c),
        "(f32[2], f32[3], f32[2], f32[], f32[2], /*index=5*/pred[2], pred[2], s32[2])"
    );
    let dims = windows::Dims {
        B: 1,
        H: 2,
        W: 3,
        C: 2,
    };
    let c = windows::computation(dims).unwrap();
    assert_eq!(shape(&c), "(f32[1,4,6,2], f32[1,2,3,2], f32[1,5,7,2])");
    let x: Shape = "f32[1,4,6,2]".parse().unwrap();
    assert_eq!(windows::Dims::of(&[&x]).unwrap(), dims);
    let odd: Shape = "f32[1,5,6,2]".parse().unwrap();
    assert_eq!(
        windows::Dims::of(&[&odd]).unwrap_err().to_string(),
        "windows: dimension 1 of argument `x` f32[1,5,6,2] is 5, which is not 2 * H for any size H"
    );
}

#[test]
fn dots_convolutions_indexing_sorting() {
    let dims = products::Dims {
        B: 2,
        M: 3,
        K: 4,
        N: 5,
    };
    let c = products::computation(dims).unwrap();
    assert_eq!(shape(&c), "(f32[2,3,5], f32[5], f32[], f32[2,3,5])");
    let dims = convolutions::Dims {
        B: 1,
        H: 5,
        W: 6,
        C: 2,
        O: 3,
    };
    let c = convolutions::computation(dims).unwrap();
    assert_eq!(shape(&c), "(f32[1,5,6,3], f32[1,3,4,3], f32[1,5,6,3])");
    let c = indexing::computation(indexing::Dims { V: 10, D: 4, N: 3 }).unwrap();
    assert_eq!(shape(&c), "(f32[3,4], f32[10,4])");
    let c = sorting::computation(sorting::Dims { N: 6 }).unwrap();
    assert_eq!(
        shape(&c),
        "(f32[6], (s32[6], f32[6]), (f32[2], s32[2]), f32[6])"
    );
    let c = mapping::computation(mapping::Dims { N: 6 }).unwrap();
    assert_eq!(shape(&c), "f32[6]");
}
