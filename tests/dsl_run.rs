//! Programs written with `xla!`, run on the reference interpreter through
//! `call`: the values of the spec's worked examples (`docs/semantics.md`),
//! and the language's own rules (literals, loops,
//! branches, calls, binding at run time).

use xla::prelude::*;

xla! {
    pub fn softmax(x: f32[B, N]) -> f32[B, N] {
        let m = x.reduce_max([1]);
        let e = (x - m.broadcast_in_dim([B, N], [0])).exp();
        e / e.reduce_sum([1]).broadcast_in_dim([B, N], [0])
    }

    pub fn dense(x: f32[B, K], w: f32[K, N], b: f32[N]) -> f32[B, N] {
        let y = x.dot(w) + b.broadcast_in_dim([B, N], [1]);
        y.max(0.0)
    }

    pub fn classify(x: f32[B, K], w: f32[K, N], b: f32[N]) -> f32[B, N] {
        softmax(dense(x, w, b))
    }

    pub fn step(body: f32[N], carry: f32[N], computation: f32[N], executable: f32[N]) -> f32[N] {
        body + carry * computation - executable
    }

    pub fn steps(x: f32[N]) -> f32[N] {
        step(x, x, x, x)
    }

    pub fn items_as_names(SIGNATURE: s32[N], Ok: s32[N], Dims: s32[N]) -> s32[N] {
        SIGNATURE - Ok * Dims
    }

    pub fn plus_size(b: u8[N]) -> u8[N] {
        b + N
    }

    pub fn window_sums(x: f32[N]) -> f32[N] {
        concat([x.reduce_window(0.0, |a, b| a + b, [3], [1], valid), broadcast(0.0, [2])], 0)
    }

    pub fn strided_same(v: f32[2 * H], x: f32[B, 2 * H, 2 * W, C], k: f32[3, 3, C, O]) -> (f32[H], f32[B, H, W, O]) {
        (v.reduce_window(0.0, |a, b| a + b, [3], [2], same),
         x.conv(k, [2, 2], same, "b01f_01io->b01f"))
    }

    pub fn mean_rows(x: f32[B, N]) -> f32[B] {
        x.reduce_sum([1]) / N
    }

    pub fn broadcasts(m: s32[2, 3], v: s32[3], col: s32[2, 1], row: s32[1, 3]) -> (s32[2, 3], s32[2, 3], s32[2, 3], s32[2, 3]) {
        (m.add(v, [1]), col + row, m * 2, m - col)
    }

    pub fn literals(b: u8[N], i: s32[N], u: u32[N]) -> (u8[N], s32[N], s32[N], u32[N], s32[N]) {
        (b + 200, i >> 1, i << 2, u >> 31u32, -i % 3)
    }

    pub fn argmax(v: f32[B, N]) -> (f32[B], s32[B]) {
        let k = iota(s32[B, N], 1);
        reduce([v, k], [f32::NEG_INFINITY, -1], |m, a, x, i| {
            let take = x >= m;
            (select(take, x, m), select(take, i, a))
        }, [1])
    }

    pub fn sums(x: s32[4, 2, 3]) -> (s32[2, 3], s32[4, 2], s32[3], s32[]) {
        (x.reduce_sum([0]), x.reduce_sum([2]), x.reduce_sum([0, 1]), x.reduce(0, |a, b| a + b, [0, 1, 2]))
    }

    pub fn power(x: f32[N], n: s32) -> f32[N] {
        let mut acc = x;
        let mut i = 1;
        while i < n {
            acc = acc * x;
            i += 1;
        }
        acc
    }

    pub fn collatz_steps(start: s64) -> s64 {
        let mut n = start;
        let mut steps: s64 = 0;
        while n != 1 {
            n = if n % 2 == 0 { n / 2 } else { 3 * n + 1 };
            steps += 1;
        }
        steps
    }

    pub fn square(v: f32) -> f32 {
        v * v
    }

    /// Helpers inside sub-computations: a named reduction and a size in a
    /// loop, a call in a closure and in a branch.
    pub fn nested(x: f32[N], flag: pred) -> (f32, f32[N], f32[N]) {
        let mut total = 0.0;
        let mut i = 0;
        while i < 2 {
            total = total + x.reduce_sum([0]) * N;
            i += 1;
        }
        let squares = x.map(|v| square(v));
        let chosen = if flag { squares.max(x.reduce_max([0]).broadcast([N])) } else { x.map(|v| square(v) + 1.0) };
        (total, squares, chosen)
    }

    /// `if` statements assign `let mut` variables; `else` is optional.
    pub fn running_stats(x: f32[N]) -> (f32, f32, s32, s32) {
        let mut best = f32::NEG_INFINITY;
        let mut worst = f32::INFINITY;
        let mut at = -1;
        let mut evens = 0;
        let mut i = 0;
        while i < N {
            let v = x.dynamic_slice([i], [1]).reshape([]);
            if v > best {
                best = v;
                at = i;
            }
            if v < worst { worst = v; } else if i % 2 == 0 { evens += 1; }
            i += 1;
        }
        (best, worst, at, evens)
    }

    /// An `if` giving a value and assigning a variable.
    pub fn value_and_assignment(x: f32[N], p: pred) -> (f32[N], f32[N]) {
        let mut y = x;
        let z = if p { y = x * 2.0; y + 1.0 } else { y - 1.0 };
        (y, z)
    }

    pub fn relu_or_negate(x: f32[N], relu: pred) -> f32[N] {
        if relu { x.max(0.0) } else { -x }
    }

    pub fn pads(x: s32[3], m: s32[2, 2]) -> (s32[6], s32[7], s32[3], s32[4, 4]) {
        (x.pad(0, [(2, 1)]), x.pad(0, [(0, 0, 2)]), x.pad(9, [(-1, -1, 1)]), m.pad(0, [(1, 0, 1), (-1, 2, 1)]))
    }

    pub fn movement(x: s32[2, 3]) -> (s32[3, 2], s32[6], s32[2, 3], s32[2, 2], s32[5, 3], s32[2, 3, 2]) {
        (x.transpose([1, 0]), x.reshape([6]), x.rev([1]), x.slice([0, 0], [2, 3], [1, 2]),
         concat([x, x.slice([0, 0], [1, 3]), x], 0), x.broadcast_in_dim([2, 3, 2], [0, 1]))
    }

    pub fn dynamic(a: f32[5], b: f32[4, 3], i: s32, j: s32) -> (f32[2], f32[2, 2], f32[5], f32[4, 3]) {
        (a.dynamic_slice([i], [2]), b.dynamic_slice([i, j], [2, 2]),
         a.dynamic_update_slice(iota(f32[2], 0) + 5.0, [i]),
         b.dynamic_update_slice(iota(f32[3, 2], 0) + 12.0, [1, 1]))
    }

    pub fn gathers(op: s32[3, 3], rows: s32[2, 1], windows: s32[3, 2]) -> (s32[2, 3], s32[3, 2, 2]) {
        (op.gather(rows, GatherDims { offset_dims: [1], collapsed_slice_dims: [0], start_index_map: [0], index_vector_dim: 1 }, [1, 3]),
         op.gather(windows, GatherDims { offset_dims: [1, 2], collapsed_slice_dims: [], start_index_map: [0, 1], index_vector_dim: 1 }, [2, 2]))
    }

    pub fn scatter_add(z: s32[3, 3], indices: s32[2, 1], updates: s32[2, 3]) -> s32[3, 3] {
        z.scatter(indices, updates, |old, new| old + new, ScatterDims {
            update_window_dims: [1], inserted_window_dims: [0], scatter_dims_to_operand_dims: [0], index_vector_dim: 1,
        })
    }

    pub fn windows(x: f32[4, 6], v: f32[5], w: f32[5]) -> (f32[2, 2], f32[3, 4], f32[2], f32[3], f32[6]) {
        (x.reduce_window(f32::NEG_INFINITY, |a, b| a.max(b), [2, 3], [2, 3], valid),
         x.reduce_window(f32::NEG_INFINITY, |a, b| a.max(b), [2, 3], [1, 1], valid),
         v.reduce_window(f32::INFINITY, |a, b| a.min(b), [3], [2], valid),
         v.reduce_window(f32::INFINITY, |a, b| a.min(b), [3], [2], same),
         w.reduce_window(0.0, |a, b| a + b, [2], [1], [(1, 1)]))
    }

    pub fn convolutions(x: f32[1, 1, 3, 3], k: f32[1, 1, 2, 2]) -> (f32[1, 1, 2, 2], f32[1, 1, 2, 2], f32[1, 1, 3, 3], f32[1, 1, 4, 4]) {
        (x.conv(k, [1, 1], valid, "bf01_oi01->bf01"),
         x.conv(k, [2, 2], [(1, 1), (1, 1)], "bf01_oi01->bf01"),
         x.conv(k, [1, 1], same, "bf01_oi01->bf01"),
         x.conv_general_dilated(k, [1, 1], valid, [2, 2], [1, 1], "bf01_oi01->bf01", 1, 1))
    }

    pub fn products(a: s32[2, 3], b: s32[2, 3], v: s32[3]) -> (s32[2, 2], s32[], s32[2]) {
        (a.dot_general(b, ([1], [1])), v.dot(v), a.dot(v))
    }

    pub fn sorts(k: s32[4], v: s32[4], m: s32[2, 3]) -> ((s32[4], s32[4]), s32[2, 3], s32[2, 3], s32[4], (s32[2], s32[2])) {
        (sort([k, v], 0, |ka, kb, va, vb| ka < kb), m.sort(1, |a, b| a < b), m.sort(0, |a, b| a < b),
         v.sort(0, |a, b| a > b), v.top_k(2))
    }

    pub fn elementwise(x: f32[4], i: s32[4]) -> (f32[4], s32[4], f32[4], s32[4], pred[4], f32[4]) {
        (x.map(|v| v * v + 1.0), i.clamp(0, 2), select(x > 1.5, x, 0.0), x.convert(s32),
         x.is_finite(), x.abs().sqrt())
    }
}

fn run() -> Interpreter {
    Interpreter::new()
}

fn f32s(dims: &[i64], values: &[f32]) -> Literal {
    Literal::from_vec(dims, values.to_vec()).unwrap()
}

fn s32s(dims: &[i64], values: &[i32]) -> Literal {
    Literal::from_vec(dims, values.to_vec()).unwrap()
}

fn vals<T: xla::NativeType>(l: &Literal) -> Vec<T> {
    l.to_vec::<T>().unwrap()
}

#[test]
fn softmax_rows_sum_to_one() {
    let x = f32s(&[2, 3], &[1.0, 2.0, 3.0, 1.0, 1.0, 1.0]);
    let y = vals::<f32>(&softmax::call(&run(), &x).unwrap());
    let e: Vec<f32> = [1f32 - 3.0, 2.0 - 3.0, 0.0]
        .iter()
        .map(|v| v.exp())
        .collect();
    let sum: f32 = e.iter().sum();
    let expected = [
        e[0] / sum,
        e[1] / sum,
        e[2] / sum,
        1.0 / 3.0,
        1.0 / 3.0,
        1.0 / 3.0,
    ];
    for (a, b) in y.iter().zip(expected) {
        assert!((a - b).abs() <= 1e-6, "{y:?}");
    }
}

/// Parameters may take the names of the items the macro generates and of
/// prelude variants: the generated functions take them under names of
/// their own (`body` used to shadow the function `body` the expansion
/// calls; `SIGNATURE` and `Ok` read as patterns).
#[test]
fn parameter_names_do_not_clash_with_generated_items() {
    let x = f32s(&[3], &[1.0, 2.0, -3.0]);
    let y = step::call(&run(), &x, &x, &f32s(&[3], &[2.0; 3]), &x).unwrap();
    assert_eq!(vals::<f32>(&y), [2.0, 4.0, -6.0]);
    let y = steps::call(&run(), &x).unwrap();
    assert_eq!(vals::<f32>(&y), [1.0, 4.0, 9.0]);
    let a = s32s(&[2], &[10, 20]);
    let b = s32s(&[2], &[2, 3]);
    let y = items_as_names::call(&run(), &a, &b, &b).unwrap();
    assert_eq!(vals::<i32>(&y), [6, 11]);
}

/// Rules the macro checks on symbolic sizes that only some actual sizes
/// break are errors when the computation is built, never silent: a size
/// used as a value outside its type's range (it wrapped: `u8 + N` with N
/// = 300 added 44), and a result that is not its declared type (a `valid`
/// window of 3 over 1 element has 0 positions, not `N - 2 = -1`: the
/// function returned f32[2] for its declared f32[N]).
#[test]
fn sizes_that_break_the_declared_types_are_errors() {
    let small = Literal::vector(&[1u8, 2, 250]);
    assert_eq!(
        vals::<u8>(&plus_size::call(&run(), &small).unwrap()),
        [4, 5, 253]
    );
    let err = plus_size::call(&run(), &Literal::vector(&[0u8; 300])).unwrap_err();
    assert_eq!(
        err.to_string(),
        "plus_size: the size N = 300 used as a value is out of the range of u8 [0, 255]"
    );
    let x = f32s(&[4], &[1.0, 2.0, 3.0, 4.0]);
    assert_eq!(
        vals::<f32>(&window_sums::call(&run(), &x).unwrap()),
        [6.0, 9.0, 0.0, 0.0]
    );
    let err = window_sums::computation(window_sums::Dims { N: -1 }).unwrap_err();
    assert_eq!(err.to_string(), "window_sums: the size N = -1 is negative");
    let err = window_sums::call(&run(), &f32s(&[1], &[1.0])).unwrap_err();
    assert_eq!(
        err.to_string(),
        "window_sums: the result has dimensions [2], but its declared type f32[N] is [1] for these sizes"
    );
}

/// SAME padding with a stride over a size declared as a multiple of it
/// (`2 * H`, as the language reference advises) checks: the output has
/// `H` positions and the padding, `window − stride`, does not depend on
/// `H`. XLA's SAME for 4 elements, window 3, stride 2: padding (0, 1).
#[test]
fn strided_same_padding_over_multiples_of_the_stride() {
    let v = f32s(&[4], &[1.0, 2.0, 3.0, 4.0]);
    let x = f32s(
        &[1, 4, 4, 1],
        &(1..=16).map(|i| i as f32).collect::<Vec<_>>(),
    );
    let k = f32s(&[3, 3, 1, 1], &[1.0; 9]);
    let (sums, conv) = strided_same::call(&run(), &v, &x, &k).unwrap();
    assert_eq!(vals::<f32>(&sums), [6.0, 7.0]);
    assert_eq!(conv.shape().to_string(), "f32[1,2,2,1]{3,2,1,0}");
    assert_eq!(vals::<f32>(&conv), [54.0, 45.0, 72.0, 54.0]);
}

#[test]
fn dense_and_calls() {
    let x = f32s(&[2, 2], &[1.0, 2.0, -3.0, 1.0]);
    let w = f32s(&[2, 3], &[1.0, 0.0, 2.0, 0.0, 1.0, -1.0]);
    let b = f32s(&[3], &[0.5, 0.0, 0.0]);
    let y = dense::call(&run(), &x, &w, &b).unwrap();
    assert_eq!(vals::<f32>(&y), [1.5, 2.0, 0.0, 0.0, 1.0, 0.0]);
    let p = classify::call(&run(), &x, &w, &b).unwrap();
    assert_eq!(p, softmax::call(&run(), &y).unwrap());
    let m = mean_rows::call(
        &run(),
        &f32s(&[2, 4], &[1.0, 2.0, 3.0, 6.0, 0.0, 0.0, 0.0, 4.0]),
    )
    .unwrap();
    assert_eq!(vals::<f32>(&m), [3.0, 1.0]);
}

#[test]
fn broadcasting_follows_xla() {
    let m = s32s(&[2, 3], &[1, 2, 3, 4, 5, 6]);
    let v = s32s(&[3], &[7, 8, 9]);
    let col = s32s(&[2, 1], &[1, 2]);
    let row = s32s(&[1, 3], &[10, 20, 30]);
    let (in_dim, outer, scaled, degenerate) = broadcasts::call(&run(), &m, &v, &col, &row).unwrap();
    assert_eq!(vals::<i32>(&in_dim), [8, 10, 12, 11, 13, 15]);
    assert_eq!(vals::<i32>(&outer), [11, 21, 31, 12, 22, 32]);
    assert_eq!(vals::<i32>(&scaled), [2, 4, 6, 8, 10, 12]);
    assert_eq!(vals::<i32>(&degenerate), [0, 1, 2, 2, 3, 4]);
}

#[test]
fn literals_take_the_operands_type() {
    let b = Literal::vector(&[10u8, 100]);
    let i = s32s(&[2], &[-8, 7]);
    let u = Literal::vector(&[0x8000_0000u32, 1]);
    let (wrapped, shr, shl, logical, rem) = literals::call(&run(), &b, &i, &u).unwrap();
    assert_eq!(vals::<u8>(&wrapped), [210, 44]);
    assert_eq!(vals::<i32>(&shr), [-4, 3]);
    assert_eq!(vals::<i32>(&shl), [-32, 28]);
    assert_eq!(vals::<u32>(&logical), [1, 0]);
    assert_eq!(vals::<i32>(&rem), [2, -1]);
}

#[test]
fn reductions() {
    let v = f32s(&[2, 3], &[1.0, 9.0, 4.0, 8.0, 2.0, 8.0]);
    let (max, index) = argmax::call(&run(), &v).unwrap();
    assert_eq!(vals::<f32>(&max), [9.0, 8.0]);
    assert_eq!(vals::<i32>(&index), [1, 2]);
    let slab = [1, 2, 3, 4, 5, 6];
    let x = s32s(&[4, 2, 3], &slab.repeat(4));
    let (d0, d2, d01, all) = sums::call(&run(), &x).unwrap();
    assert_eq!(vals::<i32>(&d0), [4, 8, 12, 16, 20, 24]);
    assert_eq!(vals::<i32>(&d2), [6, 15, 6, 15, 6, 15, 6, 15]);
    assert_eq!(vals::<i32>(&d01), [20, 28, 36]);
    assert_eq!(vals::<i32>(&all), [84]);
}

#[test]
fn loops_and_branches() {
    let x = f32s(&[3], &[1.0, 2.0, -3.0]);
    let cube = power::call(&run(), &x, &Literal::scalar(3i32)).unwrap();
    assert_eq!(vals::<f32>(&cube), [1.0, 8.0, -27.0]);
    let same = power::call(&run(), &x, &Literal::scalar(0i32)).unwrap();
    assert_eq!(vals::<f32>(&same), [1.0, 2.0, -3.0]);
    let steps = collatz_steps::call(&run(), &Literal::scalar(27i64)).unwrap();
    assert_eq!(vals::<i64>(&steps), [111]);
    let y = f32s(&[3], &[1.0, 2.0, 3.0]);
    let (total, squares, chosen) = nested::call(&run(), &y, &Literal::scalar(true)).unwrap();
    assert_eq!(vals::<f32>(&total), [36.0]);
    assert_eq!(vals::<f32>(&squares), [1.0, 4.0, 9.0]);
    assert_eq!(vals::<f32>(&chosen), [3.0, 4.0, 9.0]);
    let (_, _, chosen) = nested::call(&run(), &y, &Literal::scalar(false)).unwrap();
    assert_eq!(vals::<f32>(&chosen), [2.0, 5.0, 10.0]);
    let data = f32s(&[6], &[3.0, 1.0, 4.0, 1.0, 5.0, 9.0]);
    let (best, worst, at, evens) = running_stats::call(&run(), &data).unwrap();
    assert_eq!(vals::<f32>(&best), [9.0]);
    assert_eq!(vals::<f32>(&worst), [1.0]);
    assert_eq!(vals::<i32>(&at), [5]);
    // Not a new minimum at i = 2 (4) and i = 4 (5).
    assert_eq!(vals::<i32>(&evens), [2]);
    let (y, z) = value_and_assignment::call(&run(), &x, &Literal::scalar(true)).unwrap();
    assert_eq!(vals::<f32>(&y), [2.0, 4.0, -6.0]);
    assert_eq!(vals::<f32>(&z), [3.0, 5.0, -5.0]);
    let (y, z) = value_and_assignment::call(&run(), &x, &Literal::scalar(false)).unwrap();
    assert_eq!(vals::<f32>(&y), [1.0, 2.0, -3.0]);
    assert_eq!(vals::<f32>(&z), [0.0, 1.0, -4.0]);
    let relu = relu_or_negate::call(&run(), &x, &Literal::scalar(true)).unwrap();
    assert_eq!(vals::<f32>(&relu), [1.0, 2.0, 0.0]);
    let negated = relu_or_negate::call(&run(), &x, &Literal::scalar(false)).unwrap();
    assert_eq!(vals::<f32>(&negated), [-1.0, -2.0, 3.0]);
}

#[test]
fn data_movement() {
    let x = s32s(&[3], &[1, 2, 3]);
    let m = s32s(&[2, 2], &[1, 2, 3, 4]);
    let (edge, interior, cropped, both) = pads::call(&run(), &x, &m).unwrap();
    assert_eq!(vals::<i32>(&edge), [0, 0, 1, 2, 3, 0]);
    assert_eq!(vals::<i32>(&interior), [1, 0, 0, 2, 0, 0, 3]);
    assert_eq!(vals::<i32>(&cropped), [9, 2, 9]);
    assert_eq!(
        vals::<i32>(&both),
        [0, 0, 0, 0, 0, 2, 0, 0, 0, 0, 0, 0, 0, 4, 0, 0]
    );
    let x = s32s(&[2, 3], &[1, 2, 3, 4, 5, 6]);
    let (t, flat, rev, strided, cat, bcast) = movement::call(&run(), &x).unwrap();
    assert_eq!(vals::<i32>(&t), [1, 4, 2, 5, 3, 6]);
    assert_eq!(vals::<i32>(&flat), [1, 2, 3, 4, 5, 6]);
    assert_eq!(vals::<i32>(&rev), [3, 2, 1, 6, 5, 4]);
    assert_eq!(vals::<i32>(&strided), [1, 3, 4, 6]);
    assert_eq!(
        vals::<i32>(&cat),
        [1, 2, 3, 4, 5, 6, 1, 2, 3, 1, 2, 3, 4, 5, 6]
    );
    assert_eq!(vals::<i32>(&bcast), [1, 1, 2, 2, 3, 3, 4, 4, 5, 5, 6, 6]);
}

#[test]
fn dynamic_slices_clamp() {
    let a = f32s(&[5], &[0.0, 1.0, 2.0, 3.0, 4.0]);
    let b = f32s(&[4, 3], &(0..12).map(|v| v as f32).collect::<Vec<_>>());
    let idx = |i: i32, j: i32| (Literal::scalar(i), Literal::scalar(j));
    let (i, j) = idx(2, 1);
    let (s, t, u, w) = dynamic::call(&run(), &a, &b, &i, &j).unwrap();
    assert_eq!(vals::<f32>(&s), [2.0, 3.0]);
    assert_eq!(vals::<f32>(&t), [7.0, 8.0, 10.0, 11.0]);
    assert_eq!(vals::<f32>(&u), [0.0, 1.0, 5.0, 6.0, 4.0]);
    let expected = [
        0.0, 1.0, 2.0, 3.0, 12.0, 12.0, 6.0, 13.0, 13.0, 9.0, 14.0, 14.0,
    ];
    assert_eq!(vals::<f32>(&w), expected);
    let (i, j) = idx(3, -5);
    let (s, t, u, _) = dynamic::call(&run(), &a, &b, &i, &j).unwrap();
    assert_eq!(vals::<f32>(&s), [3.0, 4.0]);
    assert_eq!(vals::<f32>(&t), [6.0, 7.0, 9.0, 10.0]);
    assert_eq!(vals::<f32>(&u), [0.0, 1.0, 2.0, 5.0, 6.0]);
}

#[test]
fn gather_and_scatter() {
    let op = s32s(&[3, 3], &[1, 2, 3, 4, 5, 6, 7, 8, 9]);
    let rows = s32s(&[2, 1], &[0, 2]);
    let windows = s32s(&[3, 2], &[0, 1, 1, 0, 2, 2]);
    let (r, w) = gathers::call(&run(), &op, &rows, &windows).unwrap();
    assert_eq!(vals::<i32>(&r), [1, 2, 3, 7, 8, 9]);
    assert_eq!(vals::<i32>(&w), [2, 3, 5, 6, 4, 5, 7, 8, 5, 6, 8, 9]);
    let z = s32s(&[3, 3], &[0; 9]);
    let updates = s32s(&[2, 3], &[1, 2, 3, 4, 5, 6]);
    let y = scatter_add::call(&run(), &z, &rows, &updates).unwrap();
    assert_eq!(vals::<i32>(&y), [1, 2, 3, 0, 0, 0, 4, 5, 6]);
    let twice = s32s(&[2, 1], &[0, 0]);
    let y = scatter_add::call(&run(), &z, &twice, &updates).unwrap();
    assert_eq!(vals::<i32>(&y), [5, 7, 9, 0, 0, 0, 0, 0, 0]);
}

#[test]
fn reduce_windows() {
    let x = f32s(
        &[4, 6],
        &[
            7., 2., 5., 3., 10., 2., 3., 8., 9., 3., 4., 2., 1., 5., 7., 5., 6., 1., 0., 6., 2.,
            7., 2., 8.,
        ],
    );
    let v = f32s(&[5], &[10000.0, 1000.0, 100.0, 10.0, 1.0]);
    let w = f32s(&[5], &[1.0, 2.0, 3.0, 4.0, 5.0]);
    let (a, b, c, d, e) = windows::call(&run(), &x, &v, &w).unwrap();
    assert_eq!(vals::<f32>(&a), [9.0, 10.0, 7.0, 8.0]);
    assert_eq!(
        vals::<f32>(&b),
        [9., 9., 10., 10., 9., 9., 9., 6., 7., 7., 7., 8.]
    );
    assert_eq!(vals::<f32>(&c), [100.0, 1.0]);
    assert_eq!(vals::<f32>(&d), [1000.0, 10.0, 1.0]);
    assert_eq!(vals::<f32>(&e), [1.0, 3.0, 5.0, 7.0, 9.0, 5.0]);
}

#[test]
fn convolutions_and_dots() {
    let x = f32s(&[1, 1, 3, 3], &[1., 2., 3., 4., 5., 6., 7., 8., 9.]);
    let k = f32s(&[1, 1, 2, 2], &[1., 0., 0., -1.]);
    let (valid, strided, same, dilated) = convolutions::call(&run(), &x, &k).unwrap();
    assert_eq!(vals::<f32>(&valid), [-4., -4., -4., -4.]);
    assert_eq!(vals::<f32>(&strided), [-1., -3., -7., -4.]);
    assert_eq!(vals::<f32>(&same), [-4., -4., 3., -4., -4., 6., 7., 8., 9.]);
    let expected = [
        1., 0., 2., 0., 0., -5., 0., -6., 4., 0., 5., 0., 0., -8., 0., -9.,
    ];
    assert_eq!(vals::<f32>(&dilated), expected);
    let a = s32s(&[2, 3], &[1, 2, 3, 4, 5, 6]);
    let b = s32s(&[2, 3], &[1, 1, 1, 2, 2, 2]);
    let v = s32s(&[3], &[1, 2, 3]);
    let (ab, vv, av) = products::call(&run(), &a, &b, &v).unwrap();
    assert_eq!(vals::<i32>(&ab), [6, 12, 15, 30]);
    assert_eq!(vals::<i32>(&vv), [14]);
    assert_eq!(vals::<i32>(&av), [14, 32]);
}

#[test]
fn sorting() {
    let k = s32s(&[4], &[2, 1, 2, 1]);
    let v = s32s(&[4], &[10, 20, 30, 40]);
    let m = s32s(&[2, 3], &[3, 1, 2, 0, 5, -1]);
    let ((keys, values), rows, columns, descending, (top, top_index)) =
        sorts::call(&run(), &k, &v, &m).unwrap();
    assert_eq!(vals::<i32>(&keys), [1, 1, 2, 2]);
    assert_eq!(vals::<i32>(&values), [20, 40, 10, 30]);
    assert_eq!(vals::<i32>(&rows), [1, 2, 3, -1, 0, 5]);
    assert_eq!(vals::<i32>(&columns), [0, 1, -1, 3, 5, 2]);
    assert_eq!(vals::<i32>(&descending), [40, 30, 20, 10]);
    assert_eq!(vals::<i32>(&top), [40, 30]);
    assert_eq!(vals::<i32>(&top_index), [3, 2]);
}

#[test]
fn element_wise() {
    let x = f32s(&[4], &[-4.0, 1.0, 2.5, f32::INFINITY]);
    let i = s32s(&[4], &[-1, 1, 2, 7]);
    let (mapped, clamped, selected, converted, finite, root) =
        elementwise::call(&run(), &x, &i).unwrap();
    assert_eq!(vals::<f32>(&mapped), [17.0, 2.0, 7.25, f32::INFINITY]);
    assert_eq!(vals::<i32>(&clamped), [0, 1, 2, 2]);
    assert_eq!(vals::<f32>(&selected), [0.0, 0.0, 2.5, f32::INFINITY]);
    assert_eq!(vals::<i32>(&converted), [-4, 1, 2, i32::MAX]);
    assert_eq!(vals::<bool>(&finite), [true, true, true, false]);
    assert_eq!(vals::<f32>(&root), [2.0, 1.0, 2.5f32.sqrt(), f32::INFINITY]);
}

#[test]
fn run_time_binding_errors_name_the_argument() {
    let x = f32s(&[2, 2], &[0.0; 4]);
    let w = f32s(&[3, 3], &[0.0; 9]);
    let b = f32s(&[3], &[0.0; 3]);
    let err = dense::call(&run(), &x, &w, &b).unwrap_err();
    assert_eq!(
        err.to_string(),
        "dense: dimension K is 2 in argument `x` f32[2,2] (dimension 1), \
         but 3 in argument `w` f32[3,3] (dimension 0)"
    );
    let err = power::call(&run(), &x, &Literal::scalar(2i32)).unwrap_err();
    assert_eq!(
        err.to_string(),
        "power: argument `x` is f32[2,2], but its type is f32[N]"
    );
}

xla! {
    /// `Σ (x·w + b)²`, differentiated with respect to `w` and `b`.
    #[grad(w, b)]
    pub fn squared_error(x: f32[B, K], w: f32[K, N], b: f32[N]) -> f32 {
        let y = x.dot(w) + b.broadcast_in_dim([B, N], [1]);
        (y * y).reduce_sum([0, 1])
    }
}

#[test]
fn grad_attribute_gives_value_and_gradients() {
    // y = x·w + b; ∂/∂w = 2·xᵀ·y, ∂/∂b = 2·Σ_rows y.
    let x = Literal::matrix(&[[1.0f32, 2.0], [3.0, -1.0]]);
    let w = Literal::matrix(&[[0.5f32], [1.0]]);
    let b = Literal::vector(&[0.25f32]);
    let interp = Interpreter::new();
    let (value, (dw, db)) = squared_error::value_and_grad(&interp, &x, &w, &b).unwrap();
    // y = [2.75, 0.75]
    assert_eq!(value.to_vec::<f32>().unwrap(), [2.75 * 2.75 + 0.75 * 0.75]);
    assert_eq!(
        dw.to_vec::<f32>().unwrap(),
        [2.0 * (2.75 + 3.0 * 0.75), 2.0 * (2.0 * 2.75 - 0.75)]
    );
    assert_eq!(db.to_vec::<f32>().unwrap(), [2.0 * (2.75 + 0.75)]);
    let (dw2, db2) = squared_error::grad(&interp, &x, &w, &b).unwrap();
    assert_eq!((dw2, db2), (dw, db));
}
