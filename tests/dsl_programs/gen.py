"""Inputs and expected outputs of the `xla!` programs in tests/dsl_programs.

Each program is written here as a JAX user writes it; its inputs come from
a seeded generator and its outputs from JAX 0.10.2 on CPU (float32 math as
XLA:CPU does it, float64 where the program is float64). Everything is
written to `expected.safetensors` as `<program>/<name>` for inputs and
`<program>/out<i>` for outputs; the Rust tests read both.

Run from the repository root:

    python3 tests/dsl_programs/gen.py
"""

import os

import jax

jax.config.update("jax_enable_x64", True)

import jax.numpy as jnp  # noqa: E402
import ml_dtypes  # noqa: E402
import numpy as np  # noqa: E402
from jax import lax  # noqa: E402
from safetensors.numpy import save_file  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
rng = np.random.default_rng(20240611)
tensors = {}


def normal(*shape, dtype=np.float32):
    return rng.standard_normal(shape).astype(dtype)


def case(name, fn, **args):
    """Runs `fn` on the inputs and stores the inputs and the outputs."""
    outs = jax.jit(fn)(**{k: jnp.asarray(v) for k, v in args.items()})
    if not isinstance(outs, tuple):
        outs = (outs,)
    for key, value in args.items():
        tensors[f"{name}/{key}"] = np.array(value, order="C")
    for i, value in enumerate(outs):
        tensors[f"{name}/out{i}"] = np.array(value, order="C")


# ---------------------------------------------------------------- models


def mlp(x, w1, b1, w2, b2):
    h = jax.nn.relu(x @ w1 + b1)
    return h @ w2 + b2


B, D, H, C = 4, 5, 8, 3
mlp_args = dict(x=normal(B, D), w1=normal(D, H), b1=normal(H), w2=normal(H, C), b2=normal(C))
case("mlp", mlp, **mlp_args)


def mse(params, x, y):
    w1, b1, w2, b2 = params
    return jnp.mean((mlp(x, w1, b1, w2, b2) - y) ** 2)


def mlp_grads(x, y, w1, b1, w2, b2):
    loss, grads = jax.value_and_grad(mse)((w1, b1, w2, b2), x, y)
    return (loss,) + tuple(grads)


case("mlp_grads", mlp_grads, y=normal(B, C), **mlp_args)

logits = normal(4, 6) * 3
labels = np.array([0, 5, 2, 2], np.int32)
case("log_softmax", lambda x: jax.nn.log_softmax(x, axis=1), x=logits)


def cross_entropy(logits, labels):
    logp = jax.nn.log_softmax(logits, axis=1)
    onehot = jax.nn.one_hot(labels, logits.shape[1], dtype=jnp.float32)
    return -jnp.sum(onehot * logp) / logits.shape[0]


case("cross_entropy", cross_entropy, logits=logits, labels=labels)
case(
    "nll",
    lambda logits, labels: -jnp.take_along_axis(
        jax.nn.log_softmax(logits, axis=1), labels[:, None], axis=1
    )[:, 0],
    logits=logits,
    labels=labels,
)


def layernorm(x, gamma, beta):
    mean = x.mean(axis=1, keepdims=True)
    var = ((x - mean) ** 2).mean(axis=1, keepdims=True)
    return (x - mean) * lax.rsqrt(var + 1e-5) * gamma + beta


case("layernorm", layernorm, x=normal(3, 7) * 2 + 1, gamma=normal(7), beta=normal(7))


def rmsnorm(x, w):
    ms = jnp.mean(x * x, axis=-1, keepdims=True)
    return x * lax.rsqrt(ms + 1e-6) * w


case("rmsnorm", rmsnorm, x=normal(2, 3, 8), w=normal(8))


def attention(q, k, v):
    s = jnp.einsum("btd,bsd->bts", q, k) / jnp.sqrt(q.shape[-1]).astype(jnp.float32)
    return jnp.einsum("bts,bsd->btd", jax.nn.softmax(s, axis=-1), v)


case("attention", attention, q=normal(2, 3, 4), k=normal(2, 5, 4), v=normal(2, 5, 4))


def causal_attention(q, k, v):
    t = q.shape[1]
    s = jnp.einsum("btd,bsd->bts", q, k) / 2.0
    mask = jnp.arange(t)[:, None] >= jnp.arange(t)[None, :]
    s = jnp.where(mask, s, -jnp.inf)
    return jnp.einsum("bts,bsd->btd", jax.nn.softmax(s, axis=-1), v)


case("causal_attention", causal_attention, q=normal(2, 5, 4), k=normal(2, 5, 4), v=normal(2, 5, 4))


def mha(x, wq, wk, wv, wo):
    b, t, e = x.shape
    heads = 2

    def split(y):
        return y.reshape(b, t, heads, e // heads).transpose(0, 2, 1, 3)

    q, k, v = split(x @ wq), split(x @ wk), split(x @ wv)
    s = jnp.einsum("bhtd,bhsd->bhts", q, k) * (e // heads) ** -0.5
    o = jnp.einsum("bhts,bhsd->bhtd", jax.nn.softmax(s, axis=-1), v)
    return o.transpose(0, 2, 1, 3).reshape(b, t, e) @ wo


E = 6
case(
    "mha",
    mha,
    x=normal(2, 4, E),
    wq=normal(E, E) * 0.5,
    wk=normal(E, E) * 0.5,
    wv=normal(E, E) * 0.5,
    wo=normal(E, E) * 0.5,
)


def gelu_mlp_block(x, w1, w2, gamma, beta):
    h = jax.nn.gelu(layernorm(x, gamma, beta) @ w1, approximate=True)
    return x + h @ w2


case(
    "gelu_block",
    gelu_mlp_block,
    x=normal(3, 4),
    w1=normal(4, 8),
    w2=normal(8, 4),
    gamma=normal(4),
    beta=normal(4),
)

# ---------------------------------------------------------------- vision


def conv_nhwc(x, k, b):
    y = lax.conv_general_dilated(
        x, k, (1, 1), "SAME", dimension_numbers=("NHWC", "HWIO", "NHWC")
    )
    return jax.nn.relu(y + b)


case("conv_nhwc", conv_nhwc, x=normal(2, 5, 6, 3), k=normal(3, 3, 3, 4), b=normal(4))


def conv_nchw(x, k):
    return lax.conv_general_dilated(
        x, k, (2, 2), [(1, 1), (1, 1)], dimension_numbers=("NCHW", "OIHW", "NCHW")
    )


case("conv_nchw", conv_nchw, x=normal(1, 2, 6, 6), k=normal(3, 2, 3, 3))


def depthwise(x, k):
    return lax.conv_general_dilated(
        x,
        k,
        (1, 1),
        "VALID",
        dimension_numbers=("NHWC", "HWIO", "NHWC"),
        feature_group_count=x.shape[-1],
    )


case("depthwise", depthwise, x=normal(1, 4, 4, 3), k=normal(2, 2, 1, 3))


def pools(x):
    mx = lax.reduce_window(x, -jnp.inf, lax.max, (1, 2, 2, 1), (1, 2, 2, 1), "VALID")
    avg = lax.reduce_window(x, 0.0, lax.add, (1, 2, 2, 1), (1, 2, 2, 1), "VALID") / 4.0
    gap = x.mean(axis=(1, 2))
    return mx, avg, gap


case("pools", pools, x=normal(2, 4, 6, 3))


def pool_nchw(x):
    return lax.reduce_window(x, -jnp.inf, lax.max, (1, 1, 3, 3), (1, 1, 2, 2), "SAME")


case("pool_nchw", pool_nchw, x=normal(1, 2, 5, 5))


def image_u8(img, mean, std):
    x = (img.astype(jnp.float32) / 255.0 - mean) / std
    gray = (img.astype(jnp.float32) * jnp.array([0.299, 0.587, 0.114], jnp.float32)).sum(-1)
    back = jnp.clip(jnp.round(gray), 0, 255).astype(jnp.uint8)
    flipped = img[:, ::-1, :]
    return x, back, flipped


case(
    "image_u8",
    image_u8,
    img=rng.integers(0, 256, (3, 4, 3), dtype=np.uint8),
    mean=np.array([0.485, 0.456, 0.406], np.float32),
    std=np.array([0.229, 0.224, 0.225], np.float32),
)


def batchnorm(x, gamma, beta):
    mean = x.mean(axis=(0, 1, 2))
    var = x.var(axis=(0, 1, 2))
    return (x - mean) / jnp.sqrt(var + 1e-5) * gamma + beta, mean, var


case("batchnorm", batchnorm, x=normal(2, 3, 3, 4), gamma=normal(4), beta=normal(4))

# ---------------------------------------------------------------- indexing

case(
    "embedding",
    lambda table, ids: table[ids],
    table=normal(10, 4),
    ids=np.array([[1, 9, 0], [3, 3, 7]], np.int32),
)
case(
    "cumsum",
    lambda x: (jnp.cumsum(x), jnp.cumsum(x[::-1])[::-1], jnp.cumprod(x[:4])),
    x=np.array([1.0, 2.0, -0.5, 4.0, 0.25, 3.0], np.float32),
)
case(
    "argminmax",
    lambda x: (jnp.argmax(x, axis=1).astype(jnp.int32), jnp.argmin(x, axis=0).astype(jnp.int32)),
    x=np.array([[1, 5, 5, 0], [7, -2, 3, 7], [0, -2, 9, 1]], np.float32),
)


def topk_sort(x):
    vals, idx = lax.top_k(x, 3)
    order = jnp.argsort(x, axis=-1, stable=True).astype(jnp.int32)
    desc = -jnp.sort(-x, axis=-1)
    return vals, idx, order, desc


case("topk_sort", topk_sort, x=np.array([[3, 1, 4, 1, 5], [9, 2, 6, 5, 3]], np.float32))


def histogram(x):
    bins = jnp.clip(jnp.floor(x * 4).astype(jnp.int32), 0, 3)
    return jnp.zeros(4, jnp.int32).at[bins].add(1)


case("histogram", histogram, x=rng.random(20).astype(np.float32))
case(
    "roll",
    lambda x, shift: (jnp.roll(x, shift), jnp.diff(x), jnp.concatenate([x, x[::-1]])),
    x=np.arange(7, dtype=np.float32) ** 2,
    shift=np.int32(3),
)


def patches(img):
    # 2x2 non-overlapping patches of an HW image, flattened: [H/2 * W/2, 4]
    h, w = img.shape
    p = img.reshape(h // 2, 2, w // 2, 2).transpose(0, 2, 1, 3)
    return p.reshape(h // 2 * (w // 2), 4)


case("patches", patches, img=np.arange(24, dtype=np.float32).reshape(4, 6))


def window_update(buf, row, i):
    zero, one = jnp.int32(0), jnp.int32(1)
    return (
        lax.dynamic_update_slice(buf, row[None, :], (i, zero)),
        lax.dynamic_slice(buf, (i, one), (2, 2)),
    )


case(
    "window_update",
    window_update,
    buf=np.arange(20, dtype=np.float32).reshape(5, 4),
    row=np.array([-1, -2, -3, -4], np.float32),
    i=np.int32(2),
)

# ---------------------------------------------------------------- numerics


def mixed_precision(x, w, gamma):
    xh = x.astype(jnp.bfloat16)
    wh = w.astype(jnp.bfloat16)
    y32 = lax.dot(xh, wh, preferred_element_type=jnp.float32)
    y16 = (xh @ wh).astype(jnp.float32)
    h = x.astype(jnp.float16)
    ln = layernorm(h.astype(jnp.float32), gamma, 0.0).astype(jnp.float16)
    return y32, y16, ln


case("mixed_precision", mixed_precision, x=normal(3, 8), w=normal(8, 4), gamma=normal(8))

# ---------------------------------------------------------------- loops


def power_iteration(a, v0):
    def body(_, v):
        w = a @ v
        return w / jnp.sqrt(jnp.sum(w * w))

    v = lax.fori_loop(0, 100, body, v0)
    return v, v @ (a @ v)


m = normal(4, 4)
case("power_iteration", power_iteration, a=m + m.T, v0=np.ones(4, np.float32))


def rnn(xs, h0, wx, wh, b):
    def step(h, x):
        h = jnp.tanh(x @ wx + h @ wh + b)
        return h, h

    h, hs = lax.scan(step, h0, xs)
    return h, hs


case(
    "rnn",
    rnn,
    xs=normal(5, 3),
    h0=np.zeros(4, np.float32),
    wx=normal(3, 4) * 0.5,
    wh=normal(4, 4) * 0.5,
    b=normal(4) * 0.1,
)


def kmeans_step(x, c):
    d = ((x[:, None, :] - c[None, :, :]) ** 2).sum(-1)
    assign = jnp.argmin(d, axis=1).astype(jnp.int32)
    onehot = jax.nn.one_hot(assign, c.shape[0], dtype=jnp.float32)
    counts = onehot.sum(0)
    new = (onehot.T @ x) / jnp.maximum(counts, 1.0)[:, None]
    return assign, new


case(
    "kmeans",
    kmeans_step,
    x=np.array([[0, 0], [0.5, 0], [5, 5], [6, 5], [0, 1], [5, 6]], np.float32),
    c=np.array([[0, 0], [5, 5], [10, 10]], np.float32),
)

# ---------------------------------------------------------------- coverage


def conv_dilated(x, k):
    return lax.conv_general_dilated(
        x,
        k,
        (2, 1),
        [(1, 2), (0, 1)],
        lhs_dilation=(1, 2),
        rhs_dilation=(2, 1),
        dimension_numbers=("NHWC", "HWIO", "NHWC"),
        feature_group_count=2,
    )


case("conv_dilated", conv_dilated, x=normal(1, 7, 7, 4), k=normal(3, 3, 2, 6))
case(
    "reduce_precision",
    lambda x: (
        lax.reduce_precision(x, exponent_bits=5, mantissa_bits=10),
        lax.reduce_precision(x, exponent_bits=8, mantissa_bits=7),
    ),
    x=np.array([1.0, 1 + 2**-11, 1 + 3 * 2**-11, 70000.0, 1e-6, -3.3e-5, 1e38, 0.1], np.float32),
)
case(
    "int8_matmul",
    lambda a, b: lax.dot(a, b, preferred_element_type=jnp.int32),
    a=rng.integers(-128, 128, (3, 5), dtype=np.int8),
    b=rng.integers(-128, 128, (5, 2), dtype=np.int8),
)



def select_chains(x):
    a = jnp.abs(x)
    huber = jnp.where(a <= 1.0, 0.5 * x * x, a - 0.5)
    leaky = jnp.where(x > 0, x, 0.01 * x)
    elu = jnp.where(x > 0, x, jnp.expm1(x))
    hard_sigmoid = jnp.clip(x / 6.0 + 0.5, 0.0, 1.0)
    piecewise = jnp.where(x < -1.0, -1.0, jnp.where(x > 1.0, 1.0, x * x * x))
    swish = x * jax.nn.sigmoid(x)
    softplus = jnp.log1p(jnp.exp(-a)) + jnp.maximum(x, 0.0)
    return huber, leaky, elu, hard_sigmoid, piecewise, swish, softplus


case("select_chains", select_chains, x=np.linspace(-4, 4, 33).astype(np.float32))



def train(x, y, w1, b1, w2, b2):
    def step(_, params):
        grads = jax.grad(mse)(params, x, y)
        return tuple(p - 0.05 * g for p, g in zip(params, grads))

    params = lax.fori_loop(0, 20, step, (w1, b1, w2, b2))
    return (mse(params, x, y),) + params


case("train", train, y=normal(B, C), **{k: v for k, v in mlp_args.items()})



def unary_math(x, y):
    return (
        lax.round(x, lax.RoundingMethod.AWAY_FROM_ZERO),
        lax.round(x, lax.RoundingMethod.TO_NEAREST_EVEN),
        jnp.floor(x),
        jnp.ceil(x),
        jnp.sign(x),
        jnp.cbrt(x),
        lax.erf(x),
        jnp.tan(x),
        jnp.arctan2(x, y),
        jnp.expm1(x),
        jnp.log1p(jnp.abs(x)),
        jnp.power(x, y),
        jnp.fmod(x, y),
        lax.rsqrt(jnp.abs(x)),
        jnp.sin(x),
        jnp.cos(x),
    )


special = np.array(
    [0.5, -0.5, 1.5, -1.5, 2.5, -2.5, 0.0, -0.0, 1e-3, -7.5, 3.0, -2.0, 10.0, 1e4, -1e-4, 0.49999997],
    np.float32,
)
exponents = np.array(
    [2.0, 3.0, 0.5, -1.0, 0.0, 2.0, 0.0, 3.0, 0.5, 2.0, -2.0, 3.0, 0.25, 0.5, 2.0, 1.0], np.float32
)
case("unary_math", unary_math, x=special, y=exponents)

tensors = {k: tensors[k] for k in sorted(tensors)}
save_file(tensors, os.path.join(HERE, "expected.safetensors"))
print(f"{len(tensors)} tensors")
