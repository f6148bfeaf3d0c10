//! Loops, branches, calls and sizes: a power iteration, Newton solves
//! with a tolerance, an RNN scan, a k-means step, conditionals, functions
//! calling functions, symbolic sizes with arithmetic, and `build` composed
//! with hand-written `XlaBuilder` code.

use super::{assert_close, backends, check, fx, lit, vals};
use xla::prelude::*;

xla! {
    /// The dominant eigenvector of a symmetric matrix and its eigenvalue.
    pub fn power_iteration(a: f32[N, N], v0: f32[N]) -> (f32[N], f32) {
        let mut v = v0;
        let mut i = 0;
        while i < 100 {
            let w = a.dot(v);
            v = w / (w * w).reduce_sum([0]).sqrt();
            i += 1;
        }
        (v, v.dot(a.dot(v)))
    }

    /// The cube root of each element by Newton's method, until every
    /// residual is small, and the number of steps taken.
    pub fn newton_cbrt(a: f32[N]) -> (f32[N], s32) {
        let mut x = a.abs().max(1.0);
        let mut steps = 0;
        let mut err = f32::INFINITY;
        while err > 1e-6 && steps < 50 {
            let fx = x * x * x - a;
            x = x - fx / (3.0 * x * x);
            err = (fx.abs() / a.abs().max(1.0)).reduce_max([0]);
            steps += 1;
        }
        (x, steps)
    }

    /// An Elman RNN over a sequence: the last state and every state.
    pub fn rnn(xs: f32[T, I], h0: f32[H], wx: f32[I, H], wh: f32[H, H], b: f32[H]) -> (f32[H], f32[T, H]) {
        let mut h = h0;
        let mut hs = broadcast(0.0, [T, H]);
        let mut t = 0;
        while t < T {
            let x = xs.dynamic_slice([t, 0], [1, I]).reshape([I]);
            h = (x.dot(wx) + h.dot(wh) + b).tanh();
            hs = hs.dynamic_update_slice(h.reshape([1, H]), [t, 0]);
            t += 1;
        }
        (h, hs)
    }

    /// One k-means step: nearest centroids, then their means.
    pub fn kmeans(x: f32[P, D], c: f32[K, D]) -> (s32[P], f32[K, D]) {
        let diff = x.broadcast_in_dim([P, K, D], [0, 2]) - c.broadcast_in_dim([P, K, D], [1, 2]);
        let dist = (diff * diff).reduce_sum([2]);
        let (_, assign) = reduce([dist, iota(s32[P, K], 1)], [f32::INFINITY, 0], |d, i, e, j| {
            let keep = (d < e) | ((d == e) & (i < j));
            (select(keep, d, e), select(keep, i, j))
        }, [1]);
        let onehot = iota(s32[P, K], 1).eq(assign, [0]).convert(f32);
        let counts = onehot.reduce_sum([0]).max(1.0);
        let sums = onehot.transpose([1, 0]).dot(x);
        (assign, sums.div(counts, [0]))
    }

    /// `x / |x|`, or `x` when it is zero.
    pub fn safe_normalize(x: f32[N]) -> f32[N] {
        let norm = (x * x).reduce_sum([0]).sqrt();
        if norm > 0.0 { x / norm } else { x }
    }

    /// A three-way branch on an integer, giving a tuple.
    pub fn piecewise(x: f32[N], mode: s32) -> (f32[N], s32) {
        if mode == 0 {
            (x, 0)
        } else if mode < 0 {
            (-x, -1)
        } else {
            (x * x, mode * 10)
        }
    }

    /// `let mut` literals take the type their uses need: f64 and u8
    /// accumulators, an s64 counter.
    pub fn accumulate(x: f64[N], b: u8[N], n: s64) -> (f64, u8, s64) {
        let mut total = 0.0;
        let mut bytes = 0;
        let mut i = 0;
        while i < N {
            total = total + x.dynamic_slice([i], [1]).reshape([]);
            bytes += b.dynamic_slice([i], [1]).reshape([]);
            i += 1;
        }
        let mut steps = 0;
        while steps < n {
            steps += 1;
        }
        (total, bytes, steps)
    }

    pub fn dense(x: f32[B, K], w: f32[K, N], b: f32[N]) -> f32[B, N] {
        x.dot(w).add(b, [1])
    }

    pub fn relu(x: f32[B, N]) -> f32[B, N] {
        x.max(0.0)
    }

    /// A two-layer network from the functions above.
    pub fn network(x: f32[B, I], w1: f32[I, H], b1: f32[H], w2: f32[H, O], b2: f32[O]) -> f32[B, O] {
        dense(relu(dense(x, w1, b1)), w2, b2)
    }

    /// Sizes with arithmetic: stacking, concatenating, upsampling,
    /// trimming, outer products, and sizes used as values.
    pub fn sizes(a: f32[N], b: f32[N], c: f32[M], t: f32[N + 2]) -> (f32[2 * N], f32[N + M], f32[2 * N], f32[N], f32[N * M], f32[N], s32) {
        let stacked = concat([a, b], 0);
        let joined = a.concat([c], 0);
        let up = a.broadcast_in_dim([N, 2], [0]).reshape([2 * N]);
        let trimmed = t.slice([1], [N + 1]);
        let outer = a.broadcast_in_dim([N, M], [0]).mul(c, [1]).reshape([N * M]);
        let ramp = iota(f32[N], 0) / (N - 1);
        (stacked, joined, up, trimmed, outer, ramp, 2 * N + M)
    }
}

#[test]
fn power_iteration_converges() {
    for (name, be) in backends() {
        let (v, lambda) =
            power_iteration::call(be, fx("power_iteration/a"), fx("power_iteration/v0")).unwrap();
        check(name, "power_iteration/out0", &v, 1e-4, 1e-5);
        check(name, "power_iteration/out1", &lambda, 1e-5, 1e-5);
    }
}

#[test]
fn newton_solve() {
    let a = [27.0f32, -8.0, 0.001, 1000.0, 2.0];
    for (name, be) in backends() {
        let (x, steps) = newton_cbrt::call(be, &lit(&[5], &a)).unwrap();
        let x = vals::<f32>(&x);
        for (got, a) in x.iter().zip(a) {
            assert!(
                (got - a.cbrt()).abs() <= 1e-5 * a.abs().cbrt().max(1.0),
                "{name}: {x:?}"
            );
        }
        let steps = vals::<i32>(&steps)[0];
        assert!((2..50).contains(&steps), "{name}: {steps} steps");
    }
}

#[test]
fn rnn_scan() {
    for (name, be) in backends() {
        let p = |n: &str| fx(&format!("rnn/{n}"));
        let (h, hs) = rnn::call(be, p("xs"), p("h0"), p("wx"), p("wh"), p("b")).unwrap();
        check(name, "rnn/out0", &h, 1e-5, 1e-5);
        check(name, "rnn/out1", &hs, 1e-5, 1e-5);
    }
}

#[test]
fn kmeans_step() {
    for (name, be) in backends() {
        let (assign, centroids) = kmeans::call(be, fx("kmeans/x"), fx("kmeans/c")).unwrap();
        check(name, "kmeans/out0", &assign, 0.0, 0.0);
        check(name, "kmeans/out1", &centroids, 1e-6, 1e-6);
    }
}

#[test]
fn conditionals() {
    let x = lit(&[3], &[3.0f32, 0.0, -4.0]);
    let zero = lit(&[3], &[0.0f32; 3]);
    for (name, be) in backends() {
        let y = safe_normalize::call(be, &x).unwrap();
        assert_eq!(vals::<f32>(&y), [0.6, 0.0, -0.8], "{name}");
        let y = safe_normalize::call(be, &zero).unwrap();
        assert_eq!(vals::<f32>(&y), [0.0; 3], "{name}");
        for (mode, want, tag) in [
            (0, [3.0, 0.0, -4.0], 0),
            (-5, [-3.0, -0.0, 4.0], -1),
            (2, [9.0, 0.0, 16.0], 20),
        ] {
            let (y, t) = piecewise::call(be, &x, &Literal::scalar(mode)).unwrap();
            assert_eq!(vals::<f32>(&y), want, "{name}: mode {mode}");
            assert_eq!(vals::<i32>(&t), [tag], "{name}: mode {mode}");
        }
    }
}

#[test]
fn literal_variables_take_their_uses_type() {
    let x = lit(&[3], &[0.1f64, 0.2, 1e-17]);
    let b = lit(&[3], &[200u8, 100, 7]);
    for (name, be) in backends() {
        let (total, bytes, steps) = accumulate::call(be, &x, &b, &Literal::scalar(5i64)).unwrap();
        assert_eq!(vals::<f64>(&total), [0.1 + 0.2 + 1e-17], "{name}");
        assert_eq!(vals::<u8>(&bytes), [51], "{name}: 307 wraps to 51");
        assert_eq!(vals::<i64>(&steps), [5], "{name}");
    }
}

#[test]
fn functions_call_functions() {
    let p = |n: &str| fx(&format!("mlp/{n}"));
    for (name, be) in backends() {
        let y = network::call(be, p("x"), p("w1"), p("b1"), p("w2"), p("b2")).unwrap();
        check(name, "mlp/out0", &y, 1e-5, 1e-5);
    }
}

#[test]
fn symbolic_sizes() {
    let a = lit(&[3], &[1.0f32, 2.0, 3.0]);
    let b = lit(&[3], &[4.0f32, 5.0, 6.0]);
    let c = lit(&[2], &[10.0f32, 100.0]);
    let t = lit(&[5], &[9.0f32, 1.0, 2.0, 3.0, 9.0]);
    for (name, be) in backends() {
        let (stacked, joined, up, trimmed, outer, ramp, total) =
            sizes::call(be, &a, &b, &c, &t).unwrap();
        assert_eq!(
            vals::<f32>(&stacked),
            [1.0, 2.0, 3.0, 4.0, 5.0, 6.0],
            "{name}"
        );
        assert_eq!(vals::<f32>(&joined), [1.0, 2.0, 3.0, 10.0, 100.0], "{name}");
        assert_eq!(vals::<f32>(&up), [1.0, 1.0, 2.0, 2.0, 3.0, 3.0], "{name}");
        assert_eq!(vals::<f32>(&trimmed), [1.0, 2.0, 3.0], "{name}");
        let want = [10.0, 100.0, 20.0, 200.0, 30.0, 300.0];
        assert_eq!(vals::<f32>(&outer), want, "{name}");
        assert_eq!(vals::<f32>(&ramp), [0.0, 0.5, 1.0], "{name}");
        assert_eq!(vals::<i32>(&total), [8], "{name}");
    }
    let dims = sizes::Dims::of(&[a.shape(), b.shape(), c.shape(), t.shape()]).unwrap();
    assert_eq!(dims, sizes::Dims { N: 3, M: 2 });
    let err = sizes::call(backends()[1].1, &a, &b, &c, &a).unwrap_err();
    assert_eq!(
        err.to_string(),
        "sizes: dimension 0 of argument `t` f32[3] must be N + 2 = 5"
    );
}

#[test]
fn build_composes_with_builder_code() {
    let b = XlaBuilder::new("composed");
    let x = b.parameter(0, &"f32[2,3]".parse().unwrap(), "x").unwrap();
    let w = b.parameter(1, &"f32[3,2]".parse().unwrap(), "w").unwrap();
    let bias = b.parameter(2, &"f32[2]".parse().unwrap(), "bias").unwrap();
    let h = dense::build(&b, x, w, bias).unwrap();
    let y = relu::build(&b, h).unwrap();
    let root = b.exp(y).unwrap();
    let computation = b.build(root).unwrap();
    assert_eq!(
        computation.program_shape().to_string(),
        "(f32[2,3]{1,0}, f32[3,2]{1,0}, f32[2]{0}) -> f32[2,2]{1,0}"
    );
    let args = [
        lit(&[2, 3], &[1.0f32, 0.0, -1.0, 2.0, 1.0, 0.0]),
        lit(&[3, 2], &[1.0f32, -1.0, 0.5, 0.0, 0.0, 2.0]),
        lit(&[2], &[0.0f32, 1.0]),
    ];
    let args: Vec<&Literal> = args.iter().collect();
    // dense: [[1, -3], [2.5, -2]] + [0, 1] = [[1, -2], [2.5, -1]]; relu; exp.
    let want = lit(&[2, 2], &[1f32.exp(), 1.0, 2.5f32.exp(), 1.0]);
    for (name, be) in backends() {
        let y = be.compile(&computation).unwrap().execute(&args).unwrap();
        assert_close(&format!("composed on the {name}"), &y, &want, 1e-6, 0.0);
    }
}
