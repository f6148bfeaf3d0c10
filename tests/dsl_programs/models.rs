//! Model code: an MLP forward and its hand-written backward pass, softmax,
//! log-softmax and cross-entropy with integer labels, layernorm and
//! RMSnorm, attention (plain, causal, multi-head) and a GELU block.

use super::{backends, check, fx};
use xla::prelude::*;

xla! {
    /// Two-layer perceptron: a ReLU hidden layer and a linear output.
    pub fn mlp(x: f32[B, D], w1: f32[D, H], b1: f32[H], w2: f32[H, C], b2: f32[C]) -> f32[B, C] {
        let h = (x.dot(w1) + b1.broadcast_in_dim([B, H], [1])).max(0.0);
        h.dot(w2).add(b2, [1])
    }

    /// The mean squared error of `mlp` and its gradients, by hand.
    pub fn mlp_grads(x: f32[B, D], y: f32[B, C], w1: f32[D, H], b1: f32[H], w2: f32[H, C], b2: f32[C])
        -> (f32, f32[D, H], f32[H], f32[H, C], f32[C])
    {
        let z = x.dot(w1).add(b1, [1]);
        let h = z.max(0.0);
        let out = h.dot(w2).add(b2, [1]);
        let diff = out - y;
        let loss = (diff * diff).reduce_sum([0, 1]) / (B * C);
        let dout = diff * (2.0 / (B * C));
        let dw2 = h.transpose([1, 0]).dot(dout);
        let db2 = dout.reduce_sum([0]);
        let dh = dout.dot(w2.transpose([1, 0]));
        let dz = select(z > 0.0, dh, 0.0);
        let dw1 = x.transpose([1, 0]).dot(dz);
        let db1 = dz.reduce_sum([0]);
        (loss, dw1, db1, dw2, db2)
    }

    pub fn log_softmax(x: f32[B, N]) -> f32[B, N] {
        let shifted = x.sub(x.reduce_max([1]), [0]);
        shifted.sub(shifted.exp().reduce_sum([1]).log(), [0])
    }

    /// Mean cross-entropy with integer labels, through a one-hot matrix.
    pub fn cross_entropy(logits: f32[B, C], labels: s32[B]) -> f32 {
        let onehot = iota(s32[B, C], 1).eq(labels, [0]).convert(f32);
        -(log_softmax(logits) * onehot).reduce_sum([0, 1]) / B
    }

    /// Negative log-likelihood of each label, by a gather
    /// (`take_along_axis`).
    pub fn nll(logits: f32[B, C], labels: s32[B]) -> f32[B] {
        let logp = log_softmax(logits);
        let rows = iota(s32[B, 1], 0);
        let at = concat([rows, labels.reshape([B, 1])], 1);
        -logp.gather(at, GatherDims {
            offset_dims: [],
            collapsed_slice_dims: [0, 1],
            start_index_map: [0, 1],
            index_vector_dim: 1,
        }, [1, 1])
    }

    pub fn layernorm(x: f32[B, N], gamma: f32[N], beta: f32[N]) -> f32[B, N] {
        let mean = x.reduce_sum([1]) / N;
        let xc = x.sub(mean, [0]);
        let var = (xc * xc).reduce_sum([1]) / N;
        let inv = (var + 1e-5).rsqrt();
        xc.mul(inv, [0]).mul(gamma, [1]).add(beta, [1])
    }

    pub fn rmsnorm(x: f32[B, T, D], w: f32[D]) -> f32[B, T, D] {
        let ms = (x * x).reduce_sum([2]) / D;
        let scale = (ms + 1e-6).rsqrt().broadcast_in_dim([B, T, D], [0, 1]);
        x * scale * w.broadcast_in_dim([B, T, D], [2])
    }

    /// Scaled dot-product attention.
    pub fn attention(q: f32[B, T, D], k: f32[B, S, D], v: f32[B, S, D]) -> f32[B, T, D] {
        let scores = q.dot_general(k, ([2], [2]), ([0], [0])) / D.convert(f32).sqrt();
        let m = scores.reduce_max([2]);
        let p = (scores - m.broadcast_in_dim([B, T, S], [0, 1])).exp();
        let p = p / p.reduce_sum([2]).broadcast_in_dim([B, T, S], [0, 1]);
        p.dot_general(v, ([2], [1]), ([0], [0]))
    }

    /// Attention where position `t` sees only positions up to `t`.
    pub fn causal_attention(q: f32[B, T, D], k: f32[B, T, D], v: f32[B, T, D]) -> f32[B, T, D] {
        let s = q.dot_general(k, ([2], [2]), ([0], [0])) / 2.0;
        let causal = iota(s32[T, T], 0) >= iota(s32[T, T], 1);
        let s = select(causal.broadcast([B]), s, f32::NEG_INFINITY);
        let e = (s - s.reduce_max([2]).broadcast_in_dim([B, T, T], [0, 1])).exp();
        let p = e / e.reduce_sum([2]).broadcast_in_dim([B, T, T], [0, 1]);
        p.dot_general(v, ([2], [1]), ([0], [0]))
    }

    /// Two-head self-attention with input and output projections.
    pub fn mha(x: f32[B, T, 2 * D], wq: f32[2 * D, 2 * D], wk: f32[2 * D, 2 * D], wv: f32[2 * D, 2 * D], wo: f32[2 * D, 2 * D]) -> f32[B, T, 2 * D] {
        let q = x.dot_general(wq, ([2], [0])).reshape([B, T, 2, D]).transpose([0, 2, 1, 3]);
        let k = x.dot_general(wk, ([2], [0])).reshape([B, T, 2, D]).transpose([0, 2, 1, 3]);
        let v = x.dot_general(wv, ([2], [0])).reshape([B, T, 2, D]).transpose([0, 2, 1, 3]);
        let s = q.dot_general(k, ([3], [3]), ([0, 1], [0, 1])) * D.convert(f32).rsqrt();
        let e = (s - s.reduce_max([3]).broadcast_in_dim([B, 2, T, T], [0, 1, 2])).exp();
        let p = e / e.reduce_sum([3]).broadcast_in_dim([B, 2, T, T], [0, 1, 2]);
        let o = p.dot_general(v, ([3], [2]), ([0, 1], [0, 1]));
        o.transpose([0, 2, 1, 3]).reshape([B, T, 2 * D]).dot_general(wo, ([2], [0]))
    }

    /// Activations and losses written as chains of `select` and `clamp`.
    pub fn select_chains(x: f32[N]) -> (f32[N], f32[N], f32[N], f32[N], f32[N], f32[N], f32[N]) {
        let a = x.abs();
        let huber = select(a <= 1.0, 0.5 * x * x, a - 0.5);
        let leaky = select(x > 0.0, x, 0.01 * x);
        let elu = select(x > 0.0, x, x.expm1());
        let hard_sigmoid = (x / 6.0 + 0.5).clamp(0.0, 1.0);
        let piecewise = select(x < -1.0, -1.0, select(x > 1.0, 1.0, x * x * x));
        let swish = x * x.logistic();
        let softplus = (-a).exp().log1p() + x.max(0.0);
        (huber, leaky, elu, hard_sigmoid, piecewise, swish, softplus)
    }

    /// A pre-norm residual block with a tanh-approximated GELU.
    pub fn gelu_block(x: f32[B, N], w1: f32[N, F], w2: f32[F, N], gamma: f32[N], beta: f32[N]) -> f32[B, N] {
        let h = layernorm(x, gamma, beta).dot(w1);
        let g = 0.5 * h * (1.0 + (0.7978845608 * (h + 0.044715 * h * h * h)).tanh());
        x + g.dot(w2)
    }
}

#[test]
fn mlp_forward() {
    for (name, be) in backends() {
        let p = |n: &str| fx(&format!("mlp/{n}"));
        let y = mlp::call(be, p("x"), p("w1"), p("b1"), p("w2"), p("b2")).unwrap();
        check(name, "mlp/out0", &y, 1e-5, 1e-5);
    }
}

#[test]
fn mlp_backward() {
    for (name, be) in backends() {
        let p = |n: &str| fx(&format!("mlp_grads/{n}"));
        let (loss, dw1, db1, dw2, db2) =
            mlp_grads::call(be, p("x"), p("y"), p("w1"), p("b1"), p("w2"), p("b2")).unwrap();
        for (i, got) in [loss, dw1, db1, dw2, db2].iter().enumerate() {
            check(name, &format!("mlp_grads/out{i}"), got, 1e-5, 1e-5);
        }
    }
}

#[test]
fn softmax_family() {
    for (name, be) in backends() {
        let y = log_softmax::call(be, fx("log_softmax/x")).unwrap();
        check(name, "log_softmax/out0", &y, 1e-6, 1e-5);
        let ce = cross_entropy::call(be, fx("cross_entropy/logits"), fx("cross_entropy/labels"));
        check(name, "cross_entropy/out0", &ce.unwrap(), 1e-6, 1e-5);
        let l = nll::call(be, fx("nll/logits"), fx("nll/labels")).unwrap();
        check(name, "nll/out0", &l, 1e-6, 1e-5);
    }
}

#[test]
fn normalizations() {
    for (name, be) in backends() {
        let p = |n: &str| fx(&format!("layernorm/{n}"));
        let y = layernorm::call(be, p("x"), p("gamma"), p("beta")).unwrap();
        check(name, "layernorm/out0", &y, 1e-5, 1e-5);
        let y = rmsnorm::call(be, fx("rmsnorm/x"), fx("rmsnorm/w")).unwrap();
        check(name, "rmsnorm/out0", &y, 1e-5, 1e-5);
    }
}

#[test]
fn attentions() {
    for (name, be) in backends() {
        let p = |n: &str| fx(&format!("attention/{n}"));
        let y = attention::call(be, p("q"), p("k"), p("v")).unwrap();
        check(name, "attention/out0", &y, 1e-5, 1e-5);
        let p = |n: &str| fx(&format!("causal_attention/{n}"));
        let y = causal_attention::call(be, p("q"), p("k"), p("v")).unwrap();
        check(name, "causal_attention/out0", &y, 1e-5, 1e-5);
        let p = |n: &str| fx(&format!("mha/{n}"));
        let y = mha::call(be, p("x"), p("wq"), p("wk"), p("wv"), p("wo")).unwrap();
        check(name, "mha/out0", &y, 1e-5, 1e-5);
    }
}

#[test]
fn select_and_clamp_chains() {
    for (name, be) in backends() {
        let (a, b, c, d, e, f, g) = select_chains::call(be, fx("select_chains/x")).unwrap();
        for (i, got) in [a, b, c, d, e, f, g].iter().enumerate() {
            check(name, &format!("select_chains/out{i}"), got, 2e-6, 1e-7);
        }
    }
}

#[test]
fn gelu_residual_block() {
    for (name, be) in backends() {
        let p = |n: &str| fx(&format!("gelu_block/{n}"));
        let y = gelu_block::call(be, p("x"), p("w1"), p("w2"), p("gamma"), p("beta")).unwrap();
        check(name, "gelu_block/out0", &y, 1e-5, 1e-5);
    }
}
