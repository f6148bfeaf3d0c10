"""Whole programs built from jnp's array library, each with a float64 NumPy
reference: sorting-based statistics (median, percentile, unique with a size),
searchsorted and interp, a linear recurrence by lax.associative_scan, a heat
equation stepped with jnp.roll, padding and tiling, NaN-aware reductions, and
an FFT convolution."""
import warnings

import jax
import jax.numpy as jnp
import numpy as np
from jax import lax

from ..core import Case
from ..tolerance import Program

R = np.random.default_rng(3105)


def _f32(*shape, scale=1.0):
    return (R.standard_normal(shape) * scale).astype(np.float32)


def _order_stats(x):
    return jnp.median(x, axis=1), jnp.percentile(x, 30.0, axis=0), jnp.quantile(x, 0.9)


def _order_stats_ref(x):
    return np.median(x, axis=1), np.percentile(x, 30.0, axis=0), np.quantile(x, 0.9)


def _unique(x):
    values, counts = jnp.unique(x, size=8, fill_value=-1, return_counts=True)
    return values, counts


def _unique_ref(x):
    values, counts = np.unique(x, return_counts=True)
    pad = 8 - len(values)
    return np.concatenate([values, -np.ones(pad)]), np.concatenate([counts, np.zeros(pad, np.int64)])


def _lookup(grid, values, queries):
    return (jnp.searchsorted(grid, queries), jnp.searchsorted(grid, queries, side="right"),
            jnp.interp(queries, grid, values))


def _lookup_ref(grid, values, queries):
    return (np.searchsorted(grid, queries), np.searchsorted(grid, queries, side="right"),
            np.interp(queries, grid, values))


def _recurrence(a, b):
    """h_t = a_t h_{t-1} + b_t (h_{-1} = 0) by lax.associative_scan over affine maps."""
    def combine(first, second):
        a1, b1 = first
        a2, b2 = second
        return a2 * a1, a2 * b1 + b2
    return lax.associative_scan(combine, (a, b), axis=0)[1]


def _recurrence_ref(a, b):
    h, out = np.zeros(a.shape[1:]), []
    for at, bt in zip(a, b):
        h = at * h + bt
        out.append(h)
    return np.stack(out)


def _heat(u, steps):
    def body(_, u):
        lap = jnp.roll(u, 1, axis=1) + jnp.roll(u, -1, axis=1) + jnp.roll(u, 1, axis=0) + jnp.roll(u, -1, axis=0)
        return u + 0.1 * (lap - 4 * u)
    u = lax.fori_loop(0, steps, body, u)
    return u, jnp.pad(u, ((1, 2), (2, 0)), mode="reflect"), jnp.tile(jnp.triu(u[:4, :4], 1), (2, 1))


def _heat_ref(u, steps):
    for _ in range(int(steps)):
        lap = np.roll(u, 1, 1) + np.roll(u, -1, 1) + np.roll(u, 1, 0) + np.roll(u, -1, 0)
        u = u + 0.1 * (lap - 4 * u)
    return u, np.pad(u, ((1, 2), (2, 0)), mode="reflect"), np.tile(np.triu(u[:4, :4], 1), (2, 1))


def _nan_safe(x, y):
    return (jnp.nanmean(x, axis=1), jnp.nanmax(x, axis=0), jnp.nan_to_num(x, posinf=50.0, neginf=-50.0),
            jnp.logaddexp(x, y), jax.nn.softplus(y), jax.nn.silu(y))


def _nan_safe_ref(x, y):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)  # the all-NaN row
        return (np.nanmean(x, axis=1), np.nanmax(x, axis=0), np.nan_to_num(x, posinf=50.0, neginf=-50.0),
                np.logaddexp(x, y), np.logaddexp(y, 0), y / (1 + np.exp(-y)))


def _fft_conv(signal, kernel):
    n = signal.shape[-1]
    return jnp.fft.irfft(jnp.fft.rfft(signal) * jnp.fft.rfft(kernel, n), n)


def _fft_conv_ref(signal, kernel):
    n = signal.shape[-1]
    k = np.zeros(n)
    k[:kernel.shape[-1]] = kernel
    return np.stack([[sum(s[(i - j) % n] * k[j] for j in range(n)) for i in range(n)] for s in signal])


def _gp(x, y, xs):
    """GP regression with an RBF kernel: posterior mean at xs and the log marginal likelihood."""
    k = jnp.exp(-0.5 * (x[:, None] - x[None, :]) ** 2) + 0.1 * jnp.eye(len(x), dtype=x.dtype)
    chol = jnp.linalg.cholesky(k)
    alpha = jax.scipy.linalg.cho_solve((chol, True), y)
    ks = jnp.exp(-0.5 * (xs[:, None] - x[None, :]) ** 2)
    log_ml = -0.5 * y @ alpha - jnp.sum(jnp.log(jnp.diag(chol))) - 0.5 * len(x) * np.log(2 * np.pi)
    return ks @ alpha, log_ml


def _gp_ref(x, y, xs):
    k = np.exp(-0.5 * (x[:, None] - x[None, :]) ** 2) + 0.1 * np.eye(len(x))
    alpha = np.linalg.solve(k, y)
    log_ml = -0.5 * y @ alpha - 0.5 * np.linalg.slogdet(k)[1] - 0.5 * len(x) * np.log(2 * np.pi)
    return np.exp(-0.5 * (xs[:, None] - x[None, :]) ** 2) @ alpha, log_ml


def _lu_solve(a, b):
    sign, logdet = jnp.linalg.slogdet(a)
    return jnp.linalg.solve(a, b), sign, logdet, jnp.linalg.inv(a), jnp.linalg.det(a[:3, :3])


def _lu_solve_ref(a, b):
    sign, logdet = np.linalg.slogdet(a)
    return np.linalg.solve(a, b), sign, logdet, np.linalg.inv(a), np.linalg.det(a[:3, :3])


def _signal(x, k, samples, edges):
    """jnp.convolve / jnp.correlate (full and same), a linear jax.image.resize, and a histogram."""
    counts = jnp.zeros(len(edges) - 1, jnp.int32).at[jnp.clip(jnp.searchsorted(edges, samples, side="right") - 1,
                                                              0, len(edges) - 2)].add(1)
    return (jnp.convolve(x, k, mode="full"), jnp.correlate(x, k, mode="same"),
            jax.image.resize(x, (2 * len(x),), "linear"), counts, jnp.bincount(jnp.abs(samples).astype(jnp.int32),
                                                                               length=4))


def _resize_linear_ref(x, n):
    """Half-pixel-centred linear resampling with edge clamping (jax.image.resize, upsampling)."""
    pos = (np.arange(n) + 0.5) * len(x) / n - 0.5
    lo = np.clip(np.floor(pos).astype(int), 0, len(x) - 1)
    hi = np.clip(lo + 1, 0, len(x) - 1)
    t = np.clip(pos - np.floor(pos), 0, 1)
    t = np.where(pos < 0, 0.0, t)
    return x[lo] * (1 - t) + x[hi] * t


def _signal_ref(x, k, samples, edges):
    idx = np.clip(np.searchsorted(edges, samples, side="right") - 1, 0, len(edges) - 2)
    return (np.convolve(x, k, mode="full"), np.correlate(x, k, mode="same"), _resize_linear_ref(x, 2 * len(x)),
            np.bincount(idx, minlength=len(edges) - 1),
            np.bincount(np.clip(np.abs(samples).astype(int), 0, 3), minlength=4)[:4])


def cases():
    x = _f32(5, 9)
    yield Case("program", "order_statistics", _order_stats, [x], "sort", Program(), _order_stats_ref,
               notes="jnp.median (axis 1, odd count), jnp.percentile 30 (axis 0, interpolated between sorted "
               "values), jnp.quantile 0.9 of everything")
    ints = np.array([3, 1, 4, 1, 5, 9, 2, 6, 5, 3, 5], np.float32)
    yield Case("program", "unique_sized", _unique, [ints], "sort", Program(), _unique_ref,
               notes="jnp.unique(size=8, fill_value=-1, return_counts=True): sort, boundary mask, cumsum, "
               "scatter; 7 distinct values, the last slot filled")
    grid = np.sort(R.uniform(-3, 3, 12)).astype(np.float32)
    queries = np.concatenate([R.uniform(-4, 4, 10), grid[[2, 7]], [-5.0, 5.0]]).astype(np.float32)
    yield Case("program", "searchsorted_interp", _lookup, [grid, _f32(12), queries], "while", Program(),
               _lookup_ref, notes="jnp.searchsorted (left and right, queries equal to grid points and outside "
               "the grid) and jnp.interp (clamped at the ends)")
    yield Case("program", "associative_scan", _recurrence,
               [R.uniform(0.5, 1.0, (11, 3)).astype(np.float32), _f32(11, 3)], "slice", Program(),
               _recurrence_ref, notes="the linear recurrence h_t = a_t h_(t-1) + b_t over 11 steps by "
               "lax.associative_scan (strided slices, pads and concatenates)")
    yield Case("program", "heat_roll_pad", _heat, [_f32(6, 7), np.int32(5)], "while", Program(), _heat_ref,
               notes="5 explicit heat-equation steps on a periodic grid (jnp.roll in both directions) in a "
               "fori_loop with a traced trip count; then jnp.pad in reflect mode and jnp.tile of jnp.triu")
    nx = _f32(4, 6)
    nx[0, 1], nx[1, :] = np.nan, np.nan
    nx[2, 2], nx[3, 4] = np.inf, -np.inf
    ny = _f32(4, 6, scale=20)
    ny[0, 0], ny[2, 2], ny[3, 3] = np.inf, np.inf, -np.inf
    yield Case("program", "nan_safe", _nan_safe, [nx, ny], "select", Program(), _nan_safe_ref,
               notes="jnp.nanmean / jnp.nanmax (row 1 is all NaN: its mean is NaN), jnp.nan_to_num "
               "(NaN to 0, infinities to +-50), jnp.logaddexp with infinities, jax.nn.softplus and silu at large "
               "arguments")
    yield Case("program", "fft_convolution", _fft_conv, [_f32(2, 16), _f32(5)], "fft", Program(), _fft_conv_ref,
               notes="circular convolution by jnp.fft.rfft, a product, and jnp.fft.irfft; reference: the direct "
               "circular sum")
    gx = np.sort(R.uniform(-3, 3, 8)).astype(np.float32)
    yield Case("program", "gp_cholesky", _gp, [gx, np.sin(gx) + _f32(8, scale=0.1), _f32(5)], "custom-call",
               Program(), _gp_ref, notes="Gaussian-process regression: RBF kernel + 0.1 I, jnp.linalg.cholesky "
               "and jax.scipy.linalg.cho_solve (LAPACK potrf and trsm custom calls), posterior mean and log "
               "marginal likelihood; reference: NumPy solve and slogdet")
    la = _f32(6, 6) + 3 * np.eye(6, dtype=np.float32)
    la[0, 0] = 0.0  # the first column's pivot comes from another row
    yield Case("program", "lu_solve_det", _lu_solve, [la, _f32(6, 2)], "custom-call", Program(), _lu_solve_ref,
               notes="jnp.linalg.solve (matrix right-hand side), slogdet, inv and det: LU with partial pivoting "
               "(lapack_sgetrf_ffi: factor, 1-based pivots, info), the pivots turned into a permutation and a "
               "sign, then triangular solves (lapack_strsm_ffi); reference: NumPy")
    samples = np.concatenate([R.uniform(-3, 3, 14), [-3.0, 3.0, 0.0]]).astype(np.float32)
    yield Case("program", "signal_processing", _signal,
               [_f32(9), _f32(4), samples, np.linspace(-3, 3, 7).astype(np.float32)], "convolution", Program(),
               _signal_ref, notes="jnp.convolve (full) and jnp.correlate (same) of a 9-sample signal with a 4-tap "
               "kernel (1-D convolutions), jax.image.resize to twice the length (linear), a 6-bin histogram by "
               "searchsorted and .at[].add (edge values land in the end bins), jnp.bincount(length=4) of "
               "truncated magnitudes (3 is dropped: out of range)")
