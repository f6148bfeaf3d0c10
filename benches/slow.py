#!/usr/bin/env python3
"""Programs whose time goes into loops, FFTs, linear algebra and special functions:
long `while` loops and scans, FFTs, the LAPACK custom calls JAX emits on CPU,
erf and a column-wise logsumexp. f32 unless said, fixed shapes, seeded inputs.

    fori_loop        lax.fori_loop of 100,000 tiny steps on an f32[8] carry
    gru_scan         GRU over 128 steps (lax.scan): batch 16, input 256, hidden 256
    lstm_scan        LSTM over 64 steps (lax.scan): batch 32, input 256, hidden 256
    stencil_loop     100 Jacobi sweeps (5-point stencil) of a Poisson problem on 256x256
    rfft_conv        circular convolution by rfft/irfft: 64 signals of 4096 with one filter
    fft2             jnp.fft.fft2 of 16 complex64 images 128x128
    solve_256        jnp.linalg.solve, 256x256 with 8 right-hand sides
    solve_1024       jnp.linalg.solve, 1024x1024 with 8 right-hand sides
    cholesky_512     Cholesky factor of an SPD 512x512 (made in the program from its
                     input), then cho_solve for 8 right-hand sides
    qr_64            jnp.linalg.qr of 64x64
    qr_1024          jnp.linalg.qr of 1024x1024
    qr_384x256       jnp.linalg.qr (reduced) of 384x256
    eigh_64          jnp.linalg.eigh of a symmetric 64x64
    eigh_256         jnp.linalg.eigh of a symmetric 256x256
    eigh_1024        jnp.linalg.eigh of a symmetric 1024x1024
    svd_64           jnp.linalg.svd(full_matrices=False) of 64x64
    svd_256x192      jnp.linalg.svd(full_matrices=False) of 256x192
    svd_1024         jnp.linalg.svd(full_matrices=False) of 1024x1024
    gelu_erf         exact GELU (erf) over 1024x1024
    logsumexp_axis0  jax.nn.logsumexp over axis 0 of 4096x1024

The QR, eigh and SVD programs return their factors with a fixed sign per column
(R's diagonal positive; each eigenvector's and each left singular vector's sum
positive, the matching row of V^T flipped with it), so the results are unique and
check_outputs.py compares them like any other. The eigh and SVD inputs are made
with known, evenly spaced spectra, so no two eigen- or singular vectors are
nearly interchangeable; the solves' matrices have a dominant diagonal.

Each program takes its inputs as arguments (the HLO holds no large constants).
`benches/gen_hlo.py` lowers them into `benches/slow/<name>.hlo`;
`benches/compare.py --set slow` times them.

Running this file lists the programs and their inputs:

    python3 benches/slow.py

(Set up a venv with `python3 -m venv .venv && .venv/bin/pip install -r benches/requirements.txt`,
then `.venv/bin/python benches/slow.py`.)
"""
import os
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from models import Init, Layers  # noqa: E402
from suite import Case, list_cases  # noqa: E402

RHS = 8  # right-hand sides of the solves


# --- seeded inputs --------------------------------------------------------------------

def _normal_inputs(*shape):
    """An input maker: one seeded standard-normal f32 array of `shape`."""
    return lambda seed: [Init(seed).normal(*shape)]


def _orthogonal(init, n):
    """A seeded n x n orthogonal matrix (float64)."""
    q, r = np.linalg.qr(init.rng.standard_normal((n, n)))
    return q * np.sign(np.diagonal(r))


def _with_spectrum(init, m, n):
    """m x n, U diag(s) V^T with s evenly spaced from 2 down to 1 (well-separated singular values)."""
    k = min(m, n)
    u = _orthogonal(init, m)[:, :k]
    v = _orthogonal(init, n)[:, :k]
    return ((u * np.linspace(2.0, 1.0, k)) @ v.T).astype(np.float32)


def _symmetric(init, n):
    """n x n symmetric, eigenvalues evenly spaced from -1 to 1 (none repeated)."""
    q = _orthogonal(init, n)
    return ((q * np.linspace(-1.0, 1.0, n)) @ q.T).astype(np.float32)


# --- loops ----------------------------------------------------------------------------

STEPS = 100_000


def _fori_loop(jax, jnp):
    def fori_loop(x):
        """x <- 0.999 x + 0.001 sin(x), STEPS times: it shrinks slowly, never blows up."""
        return jax.lax.fori_loop(0, STEPS, lambda i, x: x * 0.999 + jnp.sin(x) * 1e-3, x)
    return fori_loop


HIDDEN, N_IN = 256, 256


def _gru_scan(jax, jnp):
    L = Layers(jax, jnp)
    sigmoid = jax.nn.sigmoid

    def gru_scan(params, xs, h0):
        """xs [T,B,N_IN], h0 [B,HIDDEN] -> (the last h, every step's h [T,B,HIDDEN])."""
        def step(h, x):
            ir, iz, in_ = jnp.split(L.linear(params["ih"], x), 3, axis=-1)
            hr, hz, hn = jnp.split(L.linear(params["hh"], h), 3, axis=-1)
            r, z = sigmoid(ir + hr), sigmoid(iz + hz)
            n = jnp.tanh(in_ + r * hn)
            h = (1 - z) * n + z * h
            return h, h
        return jax.lax.scan(step, h0, xs)
    return gru_scan


def _gru_scan_inputs(seed):
    init = Init(seed)
    std = HIDDEN ** -0.5
    params = {"ih": init.linear(N_IN, 3 * HIDDEN, std=std), "hh": init.linear(HIDDEN, 3 * HIDDEN, std=std)}
    return [params, init.normal(128, 16, N_IN), init.normal(16, HIDDEN, std=0.1)]


def _lstm_scan(jax, jnp):
    L = Layers(jax, jnp)
    sigmoid = jax.nn.sigmoid

    def lstm_scan(params, xs, h0, c0):
        """xs [T,B,N_IN], h0 and c0 [B,HIDDEN] -> (the last h, the last c, every step's h)."""
        def step(carry, x):
            h, c = carry
            i, f, g, o = jnp.split(L.linear(params["ih"], x) + h @ params["hh"], 4, axis=-1)
            c = sigmoid(f) * c + sigmoid(i) * jnp.tanh(g)
            h = sigmoid(o) * jnp.tanh(c)
            return (h, c), h
        (h, c), hs = jax.lax.scan(step, (h0, c0), xs)
        return h, c, hs
    return lstm_scan


def _lstm_scan_inputs(seed):
    init = Init(seed)
    std = HIDDEN ** -0.5
    params = {"ih": init.linear(N_IN, 4 * HIDDEN, std=std), "hh": init.normal(HIDDEN, 4 * HIDDEN, std=std)}
    return [params, init.normal(64, 32, N_IN), init.normal(32, HIDDEN, std=0.1),
            init.normal(32, HIDDEN, std=0.1)]


SWEEPS, GRID = 100, 256


def _stencil_loop(jax, jnp):
    def stencil_loop(u, f):
        """SWEEPS Jacobi sweeps of laplacian(u) = f (grid step 1); u's border stays fixed."""
        def sweep(_, u):
            near = u[:-2, 1:-1] + u[2:, 1:-1] + u[1:-1, :-2] + u[1:-1, 2:]
            return u.at[1:-1, 1:-1].set(0.25 * (near - f[1:-1, 1:-1]))
        return jax.lax.fori_loop(0, SWEEPS, sweep, u)
    return stencil_loop


def _stencil_loop_inputs(seed):
    init = Init(seed)
    return [init.normal(GRID, GRID), init.normal(GRID, GRID, std=0.01)]


# --- FFTs -----------------------------------------------------------------------------

def _rfft_conv(jax, jnp):
    def rfft_conv(x, k):
        """x [B,N] circularly convolved with the filter k [N]."""
        n = x.shape[-1]
        return jnp.fft.irfft(jnp.fft.rfft(x) * jnp.fft.rfft(k), n=n)
    return rfft_conv


def _rfft_conv_inputs(seed):
    init = Init(seed)
    return [init.normal(64, 4096), init.normal(4096, std=4096 ** -0.5)]


def _fft2(jax, jnp):
    def fft2(x):
        return jnp.fft.fft2(x)
    return fft2


def _fft2_inputs(seed):
    init = Init(seed)
    shape = (16, 128, 128)
    return [(init.normal(*shape) + 1j * init.normal(*shape)).astype(np.complex64)]


# --- linear algebra (LAPACK custom calls on CPU) ---------------------------------------

def _solve(jax, jnp):
    def solve(a, b):
        return jnp.linalg.solve(a, b)
    return solve


def _solve_inputs(n):
    def make(seed):
        init = Init(seed)
        a = init.normal(n, n) + np.float32(n) * np.eye(n, dtype=np.float32)
        return [a, init.normal(n, RHS)]
    return make


def _cholesky(jax, jnp):
    def cholesky(x, b):
        """a = (x + x^T)/2 + n I, SPD for any x of moderate entries (so `xla bench`'s
        own random inputs are SPD too) -> (a's lower Cholesky factor, a^-1 b by two
        triangular solves)."""
        n = x.shape[0]
        a = 0.5 * (x + x.T) + n * jnp.eye(n, dtype=x.dtype)
        l = jnp.linalg.cholesky(a)
        return l, jax.scipy.linalg.cho_solve((l, True), b)
    return cholesky


def _cholesky_inputs(seed):
    init = Init(seed)
    return [init.normal(512, 512), init.normal(512, RHS)]


def _column_signs(jnp, v):
    """+1 or -1 per column of v: the sign of the column's sum (+1 for 0)."""
    return jnp.where(jnp.sum(v, axis=0) >= 0, 1.0, -1.0)


def _qr(jax, jnp):
    def qr(a):
        q, r = jnp.linalg.qr(a)
        s = jnp.where(jnp.diagonal(r) >= 0, 1.0, -1.0)
        return q * s, r * s[:, None]
    return qr


def _eigh(jax, jnp):
    def eigh(a):
        w, v = jnp.linalg.eigh(a)
        return w, v * _column_signs(jnp, v)
    return eigh


def _eigh_inputs(n):
    return lambda seed: [_symmetric(Init(seed), n)]


def _svd(jax, jnp):
    def svd(a):
        u, s, vt = jnp.linalg.svd(a, full_matrices=False)
        sign = _column_signs(jnp, u)
        return u * sign, s, vt * sign[:, None]
    return svd


def _svd_inputs(m, n):
    return lambda seed: [_with_spectrum(Init(seed), m, n)]


# --- special functions and reductions -------------------------------------------------

def _gelu_erf(jax, jnp):
    def gelu_erf(x):
        return jax.nn.gelu(x, approximate=False)
    return gelu_erf


def _logsumexp_axis0(jax, jnp):
    def logsumexp_axis0(x):
        return jax.nn.logsumexp(x, axis=0)
    return logsumexp_axis0


_ALL = [
    Case("fori_loop", _fori_loop, _normal_inputs(8),
         "lax.fori_loop of 100,000 steps x <- 0.999x + 0.001 sin(x) on f32[8]"),
    Case("gru_scan", _gru_scan, _gru_scan_inputs,
         "GRU over 128 steps (lax.scan), batch 16, input 256, hidden 256"),
    Case("lstm_scan", _lstm_scan, _lstm_scan_inputs,
         "LSTM over 64 steps (lax.scan), batch 32, input 256, hidden 256"),
    Case("stencil_loop", _stencil_loop, _stencil_loop_inputs,
         "100 Jacobi sweeps (5-point stencil) on 256x256, by lax.fori_loop"),
    Case("rfft_conv", _rfft_conv, _rfft_conv_inputs,
         "irfft(rfft(x) * rfft(k)): 64 signals of 4096, one filter"),
    Case("fft2", _fft2, _fft2_inputs, "jnp.fft.fft2 of 16 complex64 images 128x128"),
    Case("solve_256", _solve, _solve_inputs(256), "jnp.linalg.solve 256x256, 8 right-hand sides"),
    Case("solve_1024", _solve, _solve_inputs(1024), "jnp.linalg.solve 1024x1024, 8 right-hand sides"),
    Case("cholesky_512", _cholesky, _cholesky_inputs,
         "Cholesky of an SPD 512x512, then cho_solve for 8 right-hand sides"),
    Case("qr_64", _qr, _normal_inputs(64, 64), "jnp.linalg.qr of 64x64, signs fixed"),
    Case("qr_1024", _qr, _normal_inputs(1024, 1024), "jnp.linalg.qr of 1024x1024, signs fixed"),
    Case("qr_384x256", _qr, _normal_inputs(384, 256),
         "jnp.linalg.qr (reduced) of 384x256, signs fixed"),
    Case("eigh_64", _eigh, _eigh_inputs(64), "jnp.linalg.eigh of a symmetric 64x64, signs fixed"),
    Case("eigh_256", _eigh, _eigh_inputs(256), "jnp.linalg.eigh of a symmetric 256x256, signs fixed"),
    Case("eigh_1024", _eigh, _eigh_inputs(1024),
         "jnp.linalg.eigh of a symmetric 1024x1024, signs fixed"),
    Case("svd_64", _svd, _svd_inputs(64, 64),
         "jnp.linalg.svd(full_matrices=False) of 64x64, signs fixed"),
    Case("svd_256x192", _svd, _svd_inputs(256, 192),
         "jnp.linalg.svd(full_matrices=False) of 256x192, signs fixed"),
    Case("svd_1024", _svd, _svd_inputs(1024, 1024),
         "jnp.linalg.svd(full_matrices=False) of 1024x1024, signs fixed"),
    Case("gelu_erf", _gelu_erf, _normal_inputs(1024, 1024),
         "exact GELU (jax.nn.gelu(approximate=False)) over 1024x1024"),
    Case("logsumexp_axis0", _logsumexp_axis0, _normal_inputs(4096, 1024),
         "jax.nn.logsumexp(x, axis=0) of 4096x1024"),
]

CASES = {c.name: c for c in _ALL}


if __name__ == "__main__":
    list_cases(_ALL)
