//! Edge cases of the semantics, through programs: large arrays with tails
//! (the JIT's vector and threaded paths against the interpreter), empty
//! dimensions, NaN and signed zeros, integer overflow and shifts,
//! out-of-bounds gathers and scatters, total-order sorting, and long loops.

use super::{assert_close, backends, lit, vals};
use xla::prelude::*;

xla! {
    /// Transcendental element-wise ops on a long vector.
    pub fn activations(x: f32[N]) -> (f32[N], f32[N], f32[N], f32[N], f32[N]) {
        let gelu = 0.5 * x * (1.0 + (x * 0.70710678).erf());
        (gelu, x.tanh(), x.logistic(), (x.abs() + 1e-3).log(), (x * 0.25).exp())
    }

    /// Reductions of rows, columns and everything.
    pub fn row_stats(x: f32[R, C]) -> (f32[R], f32[R], f32[C], f32, f32[R, C]) {
        let m = x.reduce_max([1]);
        let e = (x - m.broadcast_in_dim([R, C], [0])).exp();
        let softmax = e / e.reduce_sum([1]).broadcast_in_dim([R, C], [0]);
        (x.reduce_sum([1]), m, x.reduce_sum([0]), x.reduce_sum([0, 1]), softmax)
    }

    /// A matrix product and a batched one.
    pub fn products(a: f32[M, K], b: f32[K, N], p: f32[Z, I, J], q: f32[Z, J, L]) -> (f32[M, N], f32[Z, I, L]) {
        (a.dot(b), p.dot_general(q, ([2], [1]), ([0], [0])))
    }

    /// A convolution block on a batch of images: conv, bias, ReLU, 2×2
    /// max pooling, and the mean over space.
    pub fn conv_block(x: f32[B, 2 * H, 2 * W, C], k: f32[3, 3, C, O], b: f32[O]) -> (f32[B, H, W, O], f32[B, O]) {
        let y = x.conv(k, [1, 1], same, "b01f_01io->b01f").add(b, [3]).max(0.0);
        let pooled = y.reduce_window(f32::NEG_INFINITY, |a, b| a.max(b), [1, 2, 2, 1], [1, 2, 2, 1], valid);
        (pooled, y.reduce_sum([1, 2]) / (4 * H * W))
    }

    /// Products with every arrangement of dimension numbers: contracting
    /// leading dimensions, two contracting dimensions, batch dimensions
    /// that are not leading, and integer, f64 and complex operands.
    pub fn dot_arrangements(a: f32[K, M], b: f32[K, N], c: f32[M, P, Q], d: f32[P, Q, N], e: f32[M, Z, K], f: f32[K, Z, N],
                            i: s32[M, K], j: s32[K, N], g: f64[M, K], h: f64[K, N], u: c64[M, K], v: c64[K, N])
        -> (f32[M, N], f32[M, N], f32[Z, M, N], s32[M, N], f64[M, N], c64[M, N], f32[N, M])
    {
        (a.dot_general(b, ([0], [0])), c.dot_general(d, ([1, 2], [0, 1])),
         e.dot_general(f, ([2], [0]), ([1], [1])), i.dot(j), g.dot(h), u.dot(v),
         b.dot_general(a, ([0], [0])))
    }

    /// A 4-D transpose and a strided, reversed slice.
    pub fn shuffles(x: s32[A, B, C, D]) -> (s32[D, B, A, C], s32[A, B, C, D]) {
        (x.transpose([3, 1, 0, 2]), x.rev([1, 3]))
    }

    /// Reductions, products and joins of empty arrays.
    pub fn empties(x: f32[B, N], w: f32[N, M], v: f32[N]) -> (f32[B], f32[B], f32[B, M], f32[N + 3], f32[B, N], f32[N]) {
        (x.reduce_sum([1]), x.reduce_max([1]), x.dot(w), v.concat([broadcast(1.0, [3])], 0),
         (x * 2.0).exp(), v.cumsum(0))
    }

    /// NaN and signed zeros in max, min and their reductions.
    pub fn nan_zero(x: f32[N], y: f32[N]) -> (f32[N], f32[N], f32, f32, f32[N]) {
        (x.max(y), x.min(y), x.reduce_max([0]), y.reduce_min([0]), x.clamp(-1.0, 1.0))
    }

    /// Sorting by the total order: -NaN, -inf, ..., -0, +0, ..., +inf, NaN.
    pub fn total_sort(x: f32[N]) -> (f32[N], s32[N]) {
        let (v, i) = sort([x, iota(s32[N], 0)], 0, |a, b, i, j| a.lt_total_order(b));
        (v, i)
    }

    /// Integer arithmetic wraps; shifts and powers follow the spec.
    pub fn integer_edges(a: s32[N], b: s32[N], u: u8[N]) -> (s32[N], s32[N], s32[N], s32[N], s32[N], u8, s32[N], s8[N]) {
        (a + b, a * b, a.abs(), a << b, a.pow(b), u.reduce_sum([0]), -a, a.convert(s8) * 3)
    }

    /// Gather clamps its start indices; scatter drops windows out of bounds.
    pub fn bounds(table: f32[V, D], ids: s32[N], z: s32[V]) -> (f32[N, D], s32[V]) {
        let rows = table.gather(ids.reshape([N, 1]), GatherDims {
            offset_dims: [1], collapsed_slice_dims: [0], start_index_map: [0], index_vector_dim: 1,
        }, [1, D]);
        let counts = z.scatter(ids.reshape([N, 1]), broadcast(1, [N]), |a, b| a + b, ScatterDims {
            update_window_dims: [], inserted_window_dims: [0], scatter_dims_to_operand_dims: [0], index_vector_dim: 1,
        });
        (rows, counts)
    }

    /// A linear congruential generator stepped `n` times, with a histogram
    /// of its top bits, all in loop state.
    pub fn lcg(seed: u32, n: s32) -> (u32, s32[4]) {
        let mut state = seed;
        let mut hist = broadcast(0, [4]);
        let mut i = 0;
        while i < n {
            state = state * 1664525 + 1013904223;
            let bin = (state >> 30).convert(s32);
            hist = hist.dynamic_update_slice(hist.dynamic_slice([bin], [1]) + 1, [bin]);
            i += 1;
        }
        (state, hist)
    }

    /// A scalar predicate selects whole arrays; float-to-bf16 rounds ties
    /// to even.
    pub fn scalar_select(p: pred, x: f32[N], y: f32[N]) -> (f32[N], bf16[N]) {
        (select(p, x, y), x.convert(bf16))
    }
}

/// Deterministic values in [-4, 4): a linear congruential generator.
fn noise(n: usize, seed: u64) -> Vec<f32> {
    let mut s = seed;
    (0..n)
        .map(|_| {
            s = s
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            ((s >> 40) as f32 / (1u64 << 24) as f32) * 8.0 - 4.0
        })
        .collect()
}

/// Runs `f` on the JIT and on the interpreter, and compares every output
/// within the tolerances (the interpreter is the reference).
fn jit_matches_interpreter(
    what: &str,
    rtol: f64,
    atol: f64,
    f: impl Fn(&dyn Backend) -> Vec<Literal>,
) {
    let [(_, jit), (_, interpreter)] = backends();
    let (got, want) = (f(jit), f(interpreter));
    for (i, (g, w)) in got.iter().zip(&want).enumerate() {
        assert_close(
            &format!("{what} output {i}, JIT against the interpreter"),
            g,
            w,
            rtol,
            atol,
        );
    }
}

#[test]
fn long_vectors_and_rows() {
    // 4099 = 4 · 1024 + 3: vector lanes, threads and a tail.
    let x = lit(&[4099], &noise(4099, 1));
    jit_matches_interpreter("activations", 2e-6, 1e-6, |be| {
        let (a, b, c, d, e) = activations::call(be, &x).unwrap();
        vec![a, b, c, d, e]
    });
    let m = lit(&[37, 1031], &noise(37 * 1031, 2));
    jit_matches_interpreter("row_stats", 1e-5, 1e-4, |be| {
        let (a, b, c, d, e) = row_stats::call(be, &m).unwrap();
        vec![a, b, c, d, e]
    });
}

#[test]
fn matrix_products() {
    let a = lit(&[67, 129], &noise(67 * 129, 3));
    let b = lit(&[129, 33], &noise(129 * 33, 4));
    let p = lit(&[3, 17, 19], &noise(3 * 17 * 19, 5));
    let q = lit(&[3, 19, 5], &noise(3 * 19 * 5, 6));
    jit_matches_interpreter("products", 1e-5, 1e-4, |be| {
        let (ab, pq) = products::call(be, &a, &b, &p, &q).unwrap();
        vec![ab, pq]
    });
}

#[test]
fn convolution_blocks() {
    let x = lit(&[2, 24, 20, 16], &noise(2 * 24 * 20 * 16, 7));
    let k = lit(&[3, 3, 16, 24], &noise(3 * 3 * 16 * 24, 8));
    let b = lit(&[24], &noise(24, 9));
    jit_matches_interpreter("conv_block", 1e-5, 1e-4, |be| {
        let (pooled, mean) = conv_block::call(be, &x, &k, &b).unwrap();
        vec![pooled, mean]
    });
}

#[test]
fn dot_dimension_numbers() {
    let (k, m, n, p, q, z) = (13i64, 9i64, 7i64, 3i64, 5i64, 4i64);
    let f = |dims: &[i64], seed| lit(dims, &noise(dims.iter().product::<i64>() as usize, seed));
    let ints = |dims: &[i64], seed| {
        let v: Vec<i32> = noise(dims.iter().product::<i64>() as usize, seed)
            .iter()
            .map(|x| (x * 100.0) as i32)
            .collect();
        lit(dims, &v)
    };
    let doubles = |dims: &[i64], seed| {
        let v: Vec<f64> = noise(dims.iter().product::<i64>() as usize, seed)
            .iter()
            .map(|&x| f64::from(x))
            .collect();
        lit(dims, &v)
    };
    let complex = |dims: &[i64], seed| {
        let n = dims.iter().product::<i64>() as usize;
        let (re, im) = (noise(n, seed), noise(n, seed + 1));
        let v: Vec<xla::C64> = re
            .iter()
            .zip(&im)
            .map(|(&r, &i)| xla::C64::new(r, i))
            .collect();
        lit(dims, &v)
    };
    let args = [
        f(&[k, m], 10),
        f(&[k, n], 11),
        f(&[m, p, q], 12),
        f(&[p, q, n], 13),
        f(&[m, z, k], 14),
        f(&[k, z, n], 15),
        ints(&[m, k], 16),
        ints(&[k, n], 17),
        doubles(&[m, k], 18),
        doubles(&[k, n], 19),
        complex(&[m, k], 20),
        complex(&[k, n], 22),
    ];
    jit_matches_interpreter("dot_arrangements", 1e-5, 1e-5, |be| {
        let [a, b, c, d, e, f, i, j, g, h, u, v] = &args;
        let (r0, r1, r2, r3, r4, r5, r6) =
            dot_arrangements::call(be, a, b, c, d, e, f, i, j, g, h, u, v).unwrap();
        // Complex results compare by their real and imaginary parts.
        let parts = |l: &Literal| {
            let v = vals::<xla::C64>(l);
            let re: Vec<f32> = v.iter().map(|c| c.re).collect();
            let im: Vec<f32> = v.iter().map(|c| c.im).collect();
            [lit(&[m, n], &re), lit(&[m, n], &im)]
        };
        let [re, im] = parts(&r5);
        vec![r0, r1, r2, r3, r4, re, im, r6]
    });
}

#[test]
fn transposes() {
    let dims = [5i64, 7, 9, 11];
    let n = dims.iter().product::<i64>() as i32;
    let x = lit(&dims, &(0..n).collect::<Vec<i32>>());
    for (name, be) in backends() {
        let (t, r) = shuffles::call(be, &x).unwrap();
        let (t, r) = (vals::<i32>(&t), vals::<i32>(&r));
        let at = |a: i64, b: i64, c: i64, d: i64| (((a * 7 + b) * 9 + c) * 11 + d) as i32;
        // t[d, b, a, c] = x[a, b, c, d]; r[a, b, c, d] = x[a, 6 - b, c, 10 - d].
        assert_eq!(
            t[(((3 * 7 + 2) * 5 + 4) * 9 + 8) as usize],
            at(4, 2, 8, 3),
            "{name}"
        );
        assert_eq!(
            t[(((10 * 7 + 6) * 5) * 9) as usize],
            at(0, 6, 0, 10),
            "{name}"
        );
        assert_eq!(r[at(1, 2, 3, 4) as usize], at(1, 4, 3, 6), "{name}");
        assert_eq!(r[0], at(0, 6, 0, 10), "{name}");
    }
}

#[test]
fn empty_dimensions() {
    let x = lit::<f32>(&[3, 0], &[]);
    let w = lit::<f32>(&[0, 2], &[]);
    let v = lit::<f32>(&[0], &[]);
    for (name, be) in backends() {
        let (sum, max, prod, joined, mapped, scan) = empties::call(be, &x, &w, &v).unwrap();
        assert_eq!(vals::<f32>(&sum), [0.0; 3], "{name}");
        assert_eq!(vals::<f32>(&max), [f32::NEG_INFINITY; 3], "{name}");
        assert_eq!(vals::<f32>(&prod), [0.0; 6], "{name}");
        assert_eq!(vals::<f32>(&joined), [1.0; 3], "{name}");
        assert_eq!(mapped.shape().as_array().unwrap().dims(), [3, 0], "{name}");
        assert_eq!(vals::<f32>(&scan), [0.0f32; 0], "{name}");
    }
}

#[test]
fn nan_and_signed_zeros() {
    let nan = f32::NAN;
    let x = lit(&[5], &[nan, 1.0, -0.0, 0.0, 5.0]);
    let y = lit(&[5], &[2.0, nan, 0.0, -0.0, -7.0]);
    for (name, be) in backends() {
        let (max, min, xmax, ymin, clamped) = nan_zero::call(be, &x, &y).unwrap();
        let bits = |l: &Literal| {
            vals::<f32>(l)
                .iter()
                .map(|v| v.to_bits())
                .collect::<Vec<_>>()
        };
        let nan_bits = |v: &[f32]| v.iter().map(|v| v.to_bits()).collect::<Vec<_>>();
        let max = bits(&max);
        let min = bits(&min);
        assert!(
            f32::from_bits(max[0]).is_nan() && f32::from_bits(max[1]).is_nan(),
            "{name}"
        );
        assert!(
            f32::from_bits(min[0]).is_nan() && f32::from_bits(min[1]).is_nan(),
            "{name}"
        );
        assert_eq!(
            max[2..],
            nan_bits(&[0.0, 0.0, 5.0]),
            "{name}: max of ±0 is +0"
        );
        assert_eq!(
            min[2..],
            nan_bits(&[-0.0, -0.0, -7.0]),
            "{name}: min of ±0 is -0"
        );
        assert!(vals::<f32>(&xmax)[0].is_nan(), "{name}");
        assert!(vals::<f32>(&ymin)[0].is_nan(), "{name}");
        let clamped = vals::<f32>(&clamped);
        assert!(clamped[0].is_nan(), "{name}: {clamped:?}");
        assert_eq!(clamped[1..], [1.0, -0.0, 0.0, 1.0], "{name}");
    }
}

#[test]
fn total_order_sort() {
    let x = [
        f32::NAN,
        1.0,
        0.0,
        -0.0,
        f32::NEG_INFINITY,
        -f32::NAN,
        2.0,
        f32::INFINITY,
    ];
    for (name, be) in backends() {
        let (v, i) = total_sort::call(be, &lit(&[8], &x)).unwrap();
        assert_eq!(vals::<i32>(&i), [5, 4, 3, 2, 1, 6, 7, 0], "{name}");
        let v = vals::<f32>(&v);
        assert_eq!(
            v[1..7],
            [f32::NEG_INFINITY, -0.0, 0.0, 1.0, 2.0, f32::INFINITY],
            "{name}"
        );
        assert_eq!(v[2].to_bits(), (-0.0f32).to_bits(), "{name}");
    }
}

#[test]
fn integer_overflow_and_shifts() {
    let a = [i32::MAX, i32::MIN, -3, 3, 2, 100_000];
    let b = [1, -1, 2, 31, -1, 100_000];
    let u = [200u8, 100, 0, 1, 0, 0];
    for (name, be) in backends() {
        let (sum, product, abs, shl, pow, total, neg, narrow) =
            integer_edges::call(be, &lit(&[6], &a), &lit(&[6], &b), &lit(&[6], &u)).unwrap();
        let wrap = |f: fn(i32, i32) -> i32| -> Vec<i32> {
            a.iter().zip(b).map(|(&x, y)| f(x, y)).collect()
        };
        assert_eq!(vals::<i32>(&sum), wrap(i32::wrapping_add), "{name}");
        assert_eq!(vals::<i32>(&product), wrap(i32::wrapping_mul), "{name}");
        assert_eq!(vals::<i32>(&abs), a.map(i32::wrapping_abs), "{name}");
        // A negative shift amount counts as at least the bit width.
        assert_eq!(vals::<i32>(&shl), [-2, 0, -12, i32::MIN, 0, 0], "{name}");
        // A negative exponent gives 0 unless the base is ±1.
        let pows = [
            i32::MAX,
            0,
            9,
            3i32.wrapping_pow(31),
            0,
            100_000i32.wrapping_pow(100_000),
        ];
        assert_eq!(vals::<i32>(&pow), pows, "{name}");
        assert_eq!(vals::<u8>(&total), [45], "{name}: 301 wraps to 45");
        assert_eq!(vals::<i32>(&neg), a.map(i32::wrapping_neg), "{name}");
        let narrowed = a.map(|v| (v as i8).wrapping_mul(3));
        assert_eq!(vals::<i8>(&narrow), narrowed, "{name}");
    }
}

#[test]
fn out_of_bounds_indices() {
    let table = lit(&[3, 2], &[0.0f32, 1.0, 10.0, 11.0, 20.0, 21.0]);
    let ids = lit(&[4], &[2i32, -1, 7, 1]);
    let z = lit(&[3], &[0i32; 3]);
    for (name, be) in backends() {
        let (rows, counts) = bounds::call(be, &table, &ids, &z).unwrap();
        let clamped = [20.0, 21.0, 0.0, 1.0, 20.0, 21.0, 10.0, 11.0];
        assert_eq!(vals::<f32>(&rows), clamped, "{name}");
        assert_eq!(
            vals::<i32>(&counts),
            [0, 1, 1],
            "{name}: out-of-bounds updates are dropped"
        );
    }
}

#[test]
fn long_loops() {
    let mut state = 12345u32;
    let mut hist = [0i32; 4];
    for _ in 0..5000 {
        state = state.wrapping_mul(1664525).wrapping_add(1013904223);
        hist[(state >> 30) as usize] += 1;
    }
    for (name, be) in backends() {
        let (s, h) = lcg::call(be, &Literal::scalar(12345u32), &Literal::scalar(5000i32)).unwrap();
        assert_eq!(vals::<u32>(&s), [state], "{name}");
        assert_eq!(vals::<i32>(&h), hist, "{name}");
    }
}

#[test]
fn scalar_predicates_and_bf16_ties() {
    // 1 + 2^-8 lies halfway between bf16 1 and 1 + 2^-7: ties go to even.
    let x = [
        1.0 + 1.0 / 256.0,
        1.0 + 3.0 / 256.0,
        -(1.0 + 1.0 / 256.0),
        3.0f32,
    ];
    let y = [0.0f32; 4];
    for (name, be) in backends() {
        let (picked, rounded) =
            scalar_select::call(be, &Literal::scalar(true), &lit(&[4], &x), &lit(&[4], &y))
                .unwrap();
        assert_eq!(vals::<f32>(&picked), x, "{name}");
        let want = [1.0, 1.0 + 4.0 / 256.0, -1.0, 3.0].map(xla::half::bf16::from_f32);
        assert_eq!(vals::<xla::half::bf16>(&rounded), want, "{name}");
        let (other, _) =
            scalar_select::call(be, &Literal::scalar(false), &lit(&[4], &x), &lit(&[4], &y))
                .unwrap();
        assert_eq!(vals::<f32>(&other), y, "{name}");
    }
}

#[test]
fn concurrent_calls_of_several_bindings() {
    // Eight threads call one function with sizes they share and sizes of
    // their own: the cache compiles each binding once and the JIT runs
    // them side by side.
    let threads: Vec<_> = (0..8)
        .map(|t| {
            std::thread::spawn(move || {
                for i in 0..12 {
                    let (r, c) = (64 + 300 * (i % 3), 1 + (t * 7 + i) % 5);
                    let x = lit(&[r, c], &vec![1.0f32; (r * c) as usize]);
                    let (sums, _, _, _, softmax) = row_stats::call(default_backend(), &x).unwrap();
                    assert_eq!(vals::<f32>(&sums), vec![c as f32; r as usize]);
                    let uniform = 1.0 / c as f32;
                    assert!(vals::<f32>(&softmax)
                        .iter()
                        .all(|&p| (p - uniform).abs() < 1e-6));
                }
            })
        })
        .collect();
    for t in threads {
        t.join().expect("a thread panicked");
    }
}
