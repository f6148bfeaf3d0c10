"""Whole programs built on control flow, each with a float64 NumPy reference that
runs the same recurrence: a tanh RNN and an LSTM over a sequence (lax.scan), a
fori_loop filling a buffer with dynamic_update_slice, a while_loop with a tuple
carry and a data-dependent exit, and lax.switch / lax.cond inside a scan."""
import math

import jax
import jax.numpy as jnp
import numpy as np
from jax import lax

from ..core import Case
from ..tolerance import Program

R = np.random.default_rng(3102)


def _f32(*shape, scale=1.0):
    return (R.standard_normal(shape) * scale).astype(np.float32)


def _sigmoid(x):
    return 1 / (1 + np.exp(-x))


def _rnn(xs, h0, wx, wh, b):
    def step(h, x):
        h = jnp.tanh(x @ wx + h @ wh + b)
        return h, h
    return lax.scan(step, h0, xs)


def _rnn_ref(xs, h0, wx, wh, b):
    h, hs = h0, []
    for x in xs:
        h = np.tanh(x @ wx + h @ wh + b)
        hs.append(h)
    return h, np.stack(hs)


def _lstm(xs, h0, c0, wx, wh, b):
    def step(carry, x):
        h, c = carry
        i, f, g, o = jnp.split(x @ wx + h @ wh + b, 4, axis=-1)
        c = jax.nn.sigmoid(f) * c + jax.nn.sigmoid(i) * jnp.tanh(g)
        h = jax.nn.sigmoid(o) * jnp.tanh(c)
        return (h, c), h
    return lax.scan(step, (h0, c0), xs)


def _lstm_ref(xs, h0, c0, wx, wh, b):
    h, c, hs = h0, c0, []
    for x in xs:
        i, f, g, o = np.split(x @ wx + h @ wh + b, 4, axis=-1)
        c = _sigmoid(f) * c + _sigmoid(i) * np.tanh(g)
        h = _sigmoid(o) * np.tanh(c)
        hs.append(h)
    return h, c, np.stack(hs)


def _fori_fill(x0, buf, n):
    def body(i, s):
        x, buf = s
        x = jnp.cos(x) + 0.1 * i.astype(x.dtype)
        return x, lax.dynamic_update_slice(buf, x[None, :], (i, 0))
    return lax.fori_loop(0, n, body, (x0, buf))


def _fori_fill_ref(x0, buf, n):
    x, buf = x0, buf.copy()
    for i in range(int(n)):
        x = np.cos(x) + 0.1 * i
        buf[min(i, len(buf) - 1)] = x
    return x, buf


def _gcd(a0, b0):
    """Element-wise Euclid with a tuple carry, until every pair is done."""
    def cond(s):
        return jnp.any(s[1] != 0)

    def body(s):
        a, b, steps, acc = s
        active = b != 0
        safe_b = jnp.where(active, b, 1)
        a, b = jnp.where(active, b, a), jnp.where(active, a % safe_b, 0)
        return a, b, steps + active.astype(steps.dtype), acc + jnp.where(active, jnp.log(a.astype(acc.dtype)), 0)
    zeros = jnp.zeros_like(a0)
    return lax.while_loop(cond, body, (a0, b0, zeros, jnp.zeros(a0.shape, jnp.float32)))


def _gcd_ref(a0, b0):
    a, b = a0.astype(np.int64), b0.astype(np.int64)
    steps, acc = np.zeros_like(a), np.zeros(a.shape)
    while (b != 0).any():
        active = b != 0
        a, b = np.where(active, b, a), np.where(active, a % np.where(active, b, 1), 0)
        steps += active
        acc += np.where(active, np.log(a), 0)
    return a, b, steps, acc


def _branches(w):
    return [lambda x: 0.9 * x + w, lambda x: jnp.sin(x) * w, lambda x: x - jnp.mean(x) + 0.25]


def _scan_switch(x0, codes, ws):
    def step(x, inp):
        code, w = inp
        x = lax.switch(code, _branches(w), x)
        x = lax.cond(jnp.sum(x) > 1, lambda x: x * 0.5, lambda x: -x, x)
        return x, jnp.sum(x * x)
    return lax.scan(step, x0, (codes, ws))


def _scan_switch_ref(x0, codes, ws):
    x, ys = x0, []
    for code, w in zip(codes, ws):
        x = [lambda x: 0.9 * x + w, lambda x: np.sin(x) * w, lambda x: x - x.mean() + 0.25][min(max(code, 0), 2)](x)
        x = x * 0.5 if x.sum() > 1 else -x
        ys.append((x * x).sum())
    return x, np.array(ys)


def _rk4(y0, params, dt):
    """Lotka-Volterra integrated with 40 classic Runge-Kutta steps in float64 (lax.fori_loop)."""
    a, b, c, d = params[0], params[1], params[2], params[3]

    def f(y):
        return jnp.stack([a * y[0] - b * y[0] * y[1], d * y[0] * y[1] - c * y[1]])

    def step(_, y):
        k1 = f(y)
        k2 = f(y + dt / 2 * k1)
        k3 = f(y + dt / 2 * k2)
        k4 = f(y + dt * k3)
        return y + dt / 6 * (k1 + 2 * k2 + 2 * k3 + k4)
    return lax.fori_loop(0, 40, step, y0)


def _rk4_ref(y0, params, dt):
    a, b, c, d = params

    def f(y):
        return np.array([a * y[0] - b * y[0] * y[1], d * y[0] * y[1] - c * y[1]])
    y = y0
    for _ in range(40):
        k1 = f(y)
        k2 = f(y + dt / 2 * k1)
        k3 = f(y + dt / 2 * k2)
        k4 = f(y + dt * k3)
        y = y + dt / 6 * (k1 + 2 * k2 + 2 * k3 + k4)
    return y


def _dropout_init(key, x):
    """A layer initialized with jax.random.normal, applied with dropout (keep 0.8), both threefry."""
    init_key, drop_key = jax.random.split(jax.random.wrap_key_data(key))
    w = jax.random.normal(init_key, (x.shape[1], 4), jnp.float32) * 0.5
    keep = jax.random.bernoulli(drop_key, jnp.float32(0.8), (x.shape[0], 4))
    return w, keep, jnp.where(keep, (x @ w) / 0.8, 0.0)


def _erfinv(y):
    """Float64 inverse error function by Newton's method on math.erf."""
    out = np.empty_like(y)
    for i, v in np.ndenumerate(y):
        x = 0.0
        for _ in range(100):
            step = (math.erf(x) - v) / (2 / math.sqrt(math.pi) * math.exp(-x * x))
            x -= step
            if abs(step) < 1e-17:
                break
        out[i] = x
    return out


def _dropout_init_ref(key, x):
    """The uniform bits and the mask come from jax.random (exact integer arithmetic); the normal
    samples are sqrt(2) erfinv(u) in float64 for the same u."""
    init_key, drop_key = jax.random.split(jax.random.wrap_key_data(key.astype(np.uint32)))
    u = np.asarray(jax.random.uniform(init_key, (x.shape[1], 4), jnp.float32,
                                      np.nextafter(np.float32(-1), np.float32(0)), 1.0), np.float64)
    w = np.sqrt(2) * _erfinv(u) * 0.5
    keep = np.asarray(jax.random.bernoulli(drop_key, jnp.float32(0.8), (x.shape[0], 4)))
    return w, keep, np.where(keep, (x @ w) / 0.8, 0.0)


def _scan_variants(xs, h0, w):
    """A reversed, unrolled scan with an int carry and a pytree output."""
    def step(carry, x):
        h, count = carry
        h = jnp.tanh(h @ w + x)
        positive = jnp.sum(h > 0).astype(jnp.int32)
        return (h, count + positive), {"norm": jnp.sqrt(jnp.sum(h * h)), "positive": positive}
    (h, count), ys = lax.scan(step, (h0, jnp.int32(0)), xs, reverse=True, unroll=3)
    return h, count, ys["norm"], ys["positive"]


def _scan_variants_ref(xs, h0, w):
    h, count, norms, positives = h0, 0, [], []
    for x in xs[::-1]:
        h = np.tanh(h @ w + x)
        positive = int((h > 0).sum())
        count += positive
        norms.append(np.sqrt((h * h).sum()))
        positives.append(positive)
    return h, count, np.array(norms[::-1]), np.array(positives[::-1])


def cases():
    xs, h0 = _f32(7, 2, 3), _f32(2, 4)
    yield Case("program", "rnn_scan", _rnn, [xs, h0, _f32(3, 4, scale=0.6), _f32(4, 4, scale=0.5), _f32(4)],
               "while", Program(), _rnn_ref, notes="tanh RNN over 7 steps with lax.scan; outputs: the final "
               "state and the stacked states")
    yield Case("program", "lstm_scan", _lstm,
               [xs, h0, _f32(2, 4), _f32(3, 16, scale=0.6), _f32(4, 16, scale=0.5), _f32(16)], "while", Program(),
               _lstm_ref, notes="LSTM cell (gates i, f, g, o split from one matmul, jax.nn.sigmoid) over 7 steps "
               "with lax.scan; outputs: final h, final c, stacked h")
    yield Case("program", "fori_dynamic_update_slice", _fori_fill, [_f32(5), _f32(6, 5), np.int32(8)], "while",
               Program(), _fori_fill_ref, notes="lax.fori_loop with a traced trip count (8) writing row i of a "
               "6-row buffer with dynamic_update_slice: rows 6 and 7 clamp to the last row")
    a0 = np.array([1071, 462, 17, 0, 144, 89, 1000000, 7, 36, 1], np.int32)
    b0 = np.array([462, 1071, 5, 9, 60, 55, 999999, 0, 48, 1], np.int32)
    yield Case("program", "while_gcd_tuple", _gcd, [a0, b0], "while", Program(), _gcd_ref,
               notes="element-wise Euclid in a lax.while_loop with a 4-tuple carry (a, b, steps, sum of log a), "
               "exiting when every b is 0; pairs with b = 0 from the start and consecutive Fibonacci numbers")
    codes = np.array([0, 1, 2, 1, 5, 0, -1, 2, 1, 0], np.int32)
    yield Case("program", "scan_switch_cond", _scan_switch, [_f32(6), codes, _f32(10)], "conditional", Program(),
               _scan_switch_ref, notes="lax.switch over 3 branches (index clamped: 5 -> 2, -1 -> 0) then lax.cond "
               "on sum > 1, inside a lax.scan; outputs: final carry, per-step sum of squares")
    yield Case("program", "rk4_f64", _rk4, [np.array([1.0, 0.5]), np.array([1.1, 0.4, 0.4, 0.1]), np.float64(0.1)],
               "while", Program(), _rk4_ref, notes="Lotka-Volterra integrated by 40 RK4 steps in float64 "
               "(jax_enable_x64) in a lax.fori_loop; reference: the same steps in NumPy")
    yield Case("program", "random_init_dropout", _dropout_init, [np.array([0, 42], np.uint32), _f32(6, 5)],
               "shift-right-logical", Program(), _dropout_init_ref,
               notes="jax.random.split of a threefry key, jax.random.normal weights (uniform bits to floats, "
               "then sqrt(2) erf_inv, which JAX expands to polynomials), jax.random.bernoulli dropout mask "
               "(keep 0.8) and the masked, rescaled layer; outputs: weights, mask, activations")
    yield Case("program", "scan_reverse_unrolled", _scan_variants, [_f32(8, 5), _f32(5), _f32(5, 5, scale=0.6)],
               "while", Program(), _scan_variants_ref,
               notes="lax.scan with reverse=True and unroll=3 over 8 steps (two full unrolled bodies and a "
               "remainder), an s32 counter in the carry and a dict of outputs (tree_leaves order: norm, positive)")
