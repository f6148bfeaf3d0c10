"""fft (1-D to 3-D, all four types), cholesky and triangular-solve (both the LAPACK
custom calls JAX emits on CPU and the HLO instructions), the QR, eigh and SVD LAPACK
custom calls, and the batch-norm instructions (emitted directly: JAX never emits them)."""
import jax
import jax.numpy as jnp
import numpy as np
from jax import lax

from .. import raw
from ..core import Case
from ..tolerance import Normwise, Program


def _fft_cases():
    r = np.random.default_rng(2600)

    def cplx(shape, dtype=np.complex64):
        return (r.standard_normal(shape) + 1j * r.standard_normal(shape)).astype(dtype)
    spec = np.array([1, 2, 3, 4], np.complex64)
    yield Case("fft", "spec_fft_4", jnp.fft.fft, [spec], "fft", Normwise(8), np.fft.fft, notes="`docs/semantics.md`, *FFT*")
    yield Case("fft", "spec_rfft_5", jnp.fft.rfft, [np.array([1, 2, 3, 4, 5], np.float32)], "fft", Normwise(10),
               np.fft.rfft, notes="odd length: output n//2+1 = 3")
    yield Case("fft", "spec_irfft_4", lambda x: jnp.fft.irfft(x, n=4), [np.array([10, -2 + 2j, -2], np.complex64)],
               "fft", Normwise(8), lambda x: np.fft.irfft(x, n=4))
    cases = [
        ("fft_c64_13", jnp.fft.fft, np.fft.fft, cplx((3, 13)), 13),
        ("ifft_c64_16", jnp.fft.ifft, np.fft.ifft, cplx((2, 16)), 16),
        ("fft_c128_7", jnp.fft.fft, np.fft.fft, cplx((7,), np.complex128), 7),
        ("rfft_f32_12", jnp.fft.rfft, np.fft.rfft, r.standard_normal((4, 12)).astype(np.float32), 12),
        ("rfft_f64_9", jnp.fft.rfft, np.fft.rfft, r.standard_normal((9,)), 9),
        ("irfft_c64_even_10", lambda x: jnp.fft.irfft(x, n=10), lambda x: np.fft.irfft(x, n=10), cplx((3, 6)), 10),
        ("irfft_c64_odd_11", lambda x: jnp.fft.irfft(x, n=11), lambda x: np.fft.irfft(x, n=11), cplx((6,)), 11),
        ("fft2_c64_6x5", jnp.fft.fft2, np.fft.fft2, cplx((2, 6, 5)), 30),
        ("ifft2_c128_4x4", jnp.fft.ifft2, np.fft.ifft2, cplx((4, 4), np.complex128), 16),
        ("rfft2_f32_4x6", jnp.fft.rfft2, np.fft.rfft2, r.standard_normal((4, 6)).astype(np.float32), 24),
        ("irfft2_c64_4x8", lambda x: jnp.fft.irfft2(x, s=(4, 8)), lambda x: np.fft.irfft2(x, s=(4, 8)),
         cplx((4, 5)), 32),
        ("fftn_c64_3d", jnp.fft.fftn, np.fft.fftn, cplx((3, 4, 5)), 60),
        ("rfftn_f32_3d", jnp.fft.rfftn, np.fft.rfftn, r.standard_normal((2, 3, 4)).astype(np.float32), 24),
        ("irfftn_c64_3d", lambda x: jnp.fft.irfftn(x, s=(2, 3, 6)), lambda x: np.fft.irfftn(x, s=(2, 3, 6)),
         cplx((2, 3, 4)), 36),
        ("fft_length1", jnp.fft.fft, np.fft.fft, cplx((3, 1)), 1),
    ]
    for name, fn, ref, x, n in cases:
        yield Case("fft", name, fn, [x], "fft", Normwise(4 * n), ref,
                   notes=f"transform size {n}; tolerance 4 n eps max|X| (normwise FFT error bound)")
    irfft_sym = cplx((5,))
    yield Case("fft", "irfft_nonhermitian_dc", lambda x: jnp.fft.irfft(x, n=8), [irfft_sym], "fft", Normwise(32),
               lambda x: np.fft.irfft(x, n=8),
               notes="IRFFT of input whose DC and Nyquist bins have imaginary parts: they are ignored")


def _spd(r, n, batch=()):
    m = r.standard_normal(batch + (n, n))
    return (m @ np.swapaxes(m, -1, -2) + n * np.eye(n)).astype(np.float32)


def _cholesky_cases():
    r = np.random.default_rng(2700)
    a = _spd(r, 5, (2,))
    yield Case("cholesky", "jnp_lapack_batched", jnp.linalg.cholesky, [a], "custom-call lapack_spotrf_ffi",
               Normwise(40), np.linalg.cholesky,
               notes="jnp.linalg.cholesky on CPU: symmetrize (a + a^T)/2, LAPACK potrf custom call "
               "(column-major operand layout {0,1}, backend_config uplo='L'), result tuple (factor, info); "
               "JAX selects NaN everywhere if info != 0 and zeros above the diagonal")
    bad = np.array([[4, 2], [2, 1]], np.float32)
    yield Case("cholesky", "jnp_lapack_zero_pivot", jnp.linalg.cholesky, [bad], "custom-call lapack_spotrf_ffi",
               notes="last pivot exactly 0: LAPACK reports info != 0, so JAX returns NaN in the lower triangle "
               "(unlike the HLO cholesky, see raw_zero_last_pivot)")
    spec = np.array([[4, 12, -16], [12, 37, -43], [-16, -43, 98]], np.float32)
    for lower in (True, False):
        tag = "lower" if lower else "upper"
        yield Case("cholesky", f"raw_spec_{tag}", lambda x, lower=lower: raw.cholesky(x, lower), [spec], "cholesky",
                   Normwise(24), lambda x, lower=lower: np.linalg.cholesky(x) if lower else np.linalg.cholesky(x).T,
                   notes="HLO cholesky (XLA expands it): `docs/semantics.md`, *Cholesky* example; the other triangle is zero")
    b = _spd(r, 6, (3,))
    b[:, 0, 5] = 1e6  # the upper triangle is not read by the lower factorization
    yield Case("cholesky", "raw_batched_lower_ignores_upper", lambda x: raw.cholesky(x, True), [b], "cholesky",
               Normwise(48), lambda x: np.linalg.cholesky(np.tril(x) + np.swapaxes(np.tril(x, -1), -1, -2)),
               notes="only the lower triangle is read")
    for name, m in [("raw_not_pd", [[4, 2, 0], [2, -3, 0], [0, 0, 5]]), ("raw_zero_last_pivot", [[4, 2], [2, 1]]),
                    ("raw_zero_first_pivot", [[0, 0], [0, 1]])]:
        yield Case("cholesky", name, lambda x: raw.cholesky(x, True), [np.array(m, np.float32)], "cholesky",
                   notes="`docs/semantics.md`, *Cholesky* failure example: a negative/NaN pivot makes the whole result NaN; a zero "
                   "last pivot leaves only the last diagonal entry NaN")


def _tri_ref(left_side, lower, unit, transpose):
    def ref(a, b):
        t = np.tril(a) if lower else np.triu(a)
        if unit:
            t = t - np.diag(np.diag(t)) + np.eye(len(t))
        if transpose in ("TRANSPOSE", "ADJOINT"):
            t = t.T.conj() if transpose == "ADJOINT" else t.T
        return np.linalg.solve(t, b) if left_side else np.linalg.solve(t.T, b.T).T
    return ref


def _triangular_solve_cases():
    a = np.array([[2, 0], [1, 4]], np.float32)
    col = np.array([[2], [9]], np.float32)
    row = np.array([[4, 8]], np.float32)
    spec = [("left_notrans", col, True, False, "NO_TRANSPOSE"), ("left_trans", col, True, False, "TRANSPOSE"),
            ("left_unit", col, True, True, "NO_TRANSPOSE"), ("right_notrans", row, False, False, "NO_TRANSPOSE")]
    for name, b, left, unit, trans in spec:
        yield Case("triangular_solve", f"raw_spec_{name}",
                   lambda x, y, left=left, unit=unit, trans=trans: raw.triangular_solve(x, y, left, True, unit, trans),
                   [a, b], "triangular-solve", Normwise(8), _tri_ref(left, True, unit, trans),
                   notes="HLO triangular-solve (XLA expands it): `docs/semantics.md`, *Triangular solve* example")
    r = np.random.default_rng(2800)
    m = (np.tril(r.standard_normal((5, 5))) + 4 * np.eye(5)).astype(np.float32)
    m[0, 4] = 99.0  # never read by a lower solve
    rhs = r.standard_normal((5, 3)).astype(np.float32)
    for trans in ("NO_TRANSPOSE", "TRANSPOSE"):
        for left in (True, False):
            b = rhs if left else rhs.T
            tag = f"{'left' if left else 'right'}_{trans.lower()}"
            yield Case("triangular_solve", f"raw_5x5_{tag}",
                       lambda x, y, left=left, trans=trans: raw.triangular_solve(x, y, left, True, False, trans),
                       [m, b], "triangular-solve", Normwise(40), _tri_ref(left, True, False, trans),
                       notes="lower 5x5 with a 99 in the ignored upper triangle")
    up = np.triu(r.standard_normal((4, 4)) + 3 * np.eye(4)).astype(np.complex64)
    up += 1j * np.triu(r.standard_normal((4, 4))).astype(np.float32)
    bc = (r.standard_normal((4, 2)) + 1j * r.standard_normal((4, 2))).astype(np.complex64)
    yield Case("triangular_solve", "raw_upper_adjoint_c64",
               lambda x, y: raw.triangular_solve(x, y, True, False, False, "ADJOINT"), [up, bc], "triangular-solve",
               Normwise(32), _tri_ref(True, False, False, "ADJOINT"), notes="complex upper, transpose_a=ADJOINT")
    yield Case("triangular_solve", "raw_singular", lambda x, y: raw.triangular_solve(x, y, True, True, False),
               [np.array([[2, 0], [1, 0]], np.float32), np.array([[2, 4], [9, 9]], np.float32)], "triangular-solve",
               notes="zero on the diagonal: division by zero (`docs/semantics.md`, *Triangular solve* singular example)")
    yield Case("triangular_solve", "jnp_lapack_left_lower",
               lambda x, y: lax.linalg.triangular_solve(x, y, left_side=True, lower=True), [m, rhs],
               "custom-call lapack_strsm_ffi", Normwise(40), _tri_ref(True, True, False, "NO_TRANSPOSE"),
               notes="lax.linalg.triangular_solve on CPU: LAPACK trsm custom call, backend_config holds ASCII "
               "codes side/uplo/trans_x/diag ('L'=76, 'R'=82, 'U'=85, 'N'=78, 'T'=84, 'C'=67); operands and "
               "result use column-major layouts {0,1}")
    yield Case("triangular_solve", "jnp_lapack_right_upper_transpose_unit",
               lambda x, y: lax.linalg.triangular_solve(x, y, left_side=False, lower=False, transpose_a=True,
                                                        unit_diagonal=True),
               [m.T.copy(), rhs.T.copy()], "custom-call lapack_strsm_ffi", Normwise(40),
               _tri_ref(False, False, True, "TRANSPOSE"), notes="right side, upper, transposed, unit diagonal")


def _cplx(r, shape, dtype):
    x = r.standard_normal(shape)
    if np.dtype(dtype).kind == "c":
        x = x + 1j * r.standard_normal(shape)
    return x.astype(dtype)


def _qr_cases():
    r = np.random.default_rng(3000)
    note = ("LAPACK geqrf (R above the diagonal, Householder vectors below, tau) then orgqr/ungqr (JAX's "
            "householder_product); column-major {0,1} operands; Q and R are unique given LAPACK's sign "
            "convention (beta = -sign(re alpha) norm), compared directly")
    for name, shape, dtype, mode in [("f32_5x3", (5, 3), np.float32, "reduced"),
                                     ("complete_f64_5x3", (5, 3), np.float64, "complete"),
                                     ("c64_batched_2x3x5", (2, 3, 5), np.complex64, "reduced"),
                                     ("r_c128_4x4", (4, 4), np.complex128, "r")]:
        n = max(shape[-2:])
        yield Case("qr", f"jnp_{name}", lambda x, mode=mode: jnp.linalg.qr(x, mode=mode), [_cplx(r, shape, dtype)],
                   "custom-call lapack_geqrf_ffi", Normwise(16 * n), lambda x, mode=mode: np.linalg.qr(x, mode=mode),
                   notes=f"jnp.linalg.qr(mode={mode!r}): {note}; M < N slices the factor to M x M before orgqr, "
                   "mode='complete' with M > N pads it to M x M")


def _sym(x):
    return (x + np.conj(np.swapaxes(x, -1, -2))) / 2


def _eigh_parts(w, v):
    return w, (v * w[..., None, :]) @ np.conj(np.swapaxes(v, -1, -2)), np.abs(v)


def _eigh_cases():
    r = np.random.default_rng(3100)
    vec_note = ("eigenvectors are unique only up to sign/phase, so the case returns the sign-invariant "
                "V diag(w) V^H (only the read triangle of the operand matters) and |V|")
    yield Case("eigh", "eigvalsh_f32_batched", jnp.linalg.eigvalsh, [_cplx(r, (2, 6, 6), np.float32)],
               "custom-call lapack_ssyevd_ffi", Normwise(48), lambda x: np.linalg.eigvalsh(_sym(x)),
               notes="jnp.linalg.eigvalsh: JAX symmetrizes (a + a^H)/2, LAPACK syevd (backend_config mode='V', "
               "uplo='L', result (vectors, w, info)); eigenvalues ascending")
    for name, dtype, lower in [("f64_5x5_upper", np.float64, False), ("c64_4x4", np.complex64, True)]:
        a = _cplx(r, (5, 5) if dtype == np.float64 else (4, 4), dtype)

        def fn(x, lower=lower):
            w, v = jax.scipy.linalg.eigh(x, lower=lower)
            return w, (v * w[None, :].astype(v.dtype)) @ jnp.conj(v.T), jnp.abs(v)

        def ref(x):
            return _eigh_parts(*np.linalg.eigh(_sym(x)))
        yield Case("eigh", f"scipy_{name}", fn, [a], "custom-call lapack_syevd_ffi", Normwise(64), ref,
                   notes=f"jax.scipy.linalg.eigh(lower={lower}) symmetrizes too, then the custom call reads the "
                   f"uplo={'L' if lower else 'U'!r} triangle (heevd for complex); {vec_note}")
    nan = _cplx(r, (3, 3), np.float32)
    nan[2, 0] = np.nan
    yield Case("eigh", "nan", jnp.linalg.eigh, [nan], "custom-call lapack_ssyevd_ffi",
               notes="a NaN below the diagonal: LAPACK reports info != 0 and JAX returns NaN everywhere")


def _svd_parts(u, s, vh):
    k = s.shape[-1]
    recon = (u[..., :, :k] * s[..., None, :]) @ vh[..., :k, :]
    return s, recon, np.abs(u[..., :, :k]), np.abs(vh[..., :k, :])


def _jnp_svd_parts(u, s, vh):
    k = s.shape[-1]
    return s, (u[:, :k] * s[None, :].astype(u.dtype)) @ vh[:k, :], jnp.abs(u[:, :k]), jnp.abs(vh[:k, :])


def _svd_cases():
    r = np.random.default_rng(3200)
    vec_note = ("singular vectors are unique only up to a common sign/phase, so the case returns s, the "
                "reconstruction U diag(s) Vh and |U|, |Vh| of the first min(M, N) pairs")
    yield Case("svd", "svdvals_f32_batched_2x5x3", lambda x: jnp.linalg.svd(x, compute_uv=False),
               [_cplx(r, (2, 5, 3), np.float32)], "custom-call lapack_sgesdd_ffi", Normwise(40),
               lambda x: np.linalg.svd(x, compute_uv=False),
               notes="compute_uv=False: LAPACK gesdd with mode='N' (78); result (a, s, u, vt, info), s descending")
    for name, shape, dtype, full in [("full_f32_3x5", (3, 5), np.float32, True),
                                     ("reduced_c128_5x3", (5, 3), np.complex128, False),
                                     ("full_c64_4x4", (4, 4), np.complex64, True)]:
        yield Case("svd", f"jnp_{name}", lambda x, full=full: _jnp_svd_parts(*jnp.linalg.svd(x, full_matrices=full)),
                   [_cplx(r, shape, dtype)], "custom-call lapack_gesdd_ffi", Normwise(64),
                   lambda x, full=full: _svd_parts(*np.linalg.svd(x, full_matrices=full)),
                   notes=f"full_matrices={full}: gesdd mode={'A' if full else 'S'!r}; {vec_note}")
    low = (_cplx(r, (6, 2), np.float32) @ _cplx(r, (2, 4), np.float32)).astype(np.float32)
    yield Case("svd", "pinv_rank2_f32_6x4", jnp.linalg.pinv, [low], "custom-call lapack_sgesdd_ffi", Program(),
               lambda x: np.linalg.pinv(x, rcond=10 * 6 * np.finfo(np.float32).eps),
               notes="jnp.linalg.pinv of a rank-2 matrix: singular values below rtol * s_max are dropped")
    yield Case("svd", "lstsq_f64_6x3", lambda a, b: jnp.linalg.lstsq(a, b)[0],
               [_cplx(r, (6, 3), np.float64), _cplx(r, (6, 2), np.float64)], "custom-call lapack_dgesdd_ffi",
               Program(), lambda a, b: np.linalg.lstsq(a, b, rcond=None)[0], notes="jnp.linalg.lstsq solution")
    yield Case("svd", "matrix_rank_norm2", lambda x, y: (jnp.linalg.matrix_rank(x), jnp.linalg.norm(y, ord=2)),
               [low, _cplx(r, (5, 3), np.complex64)], "custom-call lapack_sgesdd_ffi",
               notes="jnp.linalg.matrix_rank (2) and the spectral norm of a complex matrix (gesdd mode='N')",
               tolerance=Program(), reference=lambda x, y: (np.int32(2), np.linalg.norm(y, ord=2)))
    yield Case("svd", "qr_algorithm_f64_4x6",
               lambda x: _jnp_svd_parts(*lax.linalg.svd(x, full_matrices=False, algorithm=lax.linalg.SvdAlgorithm.QR)),
               [_cplx(r, (4, 6), np.float64)], "custom-call lapack_dgesvd_ffi", Normwise(64),
               lambda x: _svd_parts(*np.linalg.svd(x, full_matrices=False)),
               notes=f"lax.linalg.svd(algorithm=QR): LAPACK gesvd, same interface as gesdd; {vec_note}")
    nan = _cplx(r, (3, 4), np.float32)
    nan[1, 2] = np.nan
    yield Case("svd", "nan", jnp.linalg.svd, [nan], "custom-call lapack_sgesdd_ffi",
               notes="a NaN operand: LAPACK gesdd returns info = -4 without computing, and JAX returns NaN")


def _batch_norm_cases():
    x = np.array([[1, 2], [3, 6], [1, 2], [3, 6]], np.float32)
    g, b = np.array([1, 2], np.float32), np.array([0, 1], np.float32)
    yield Case("batch_norm", "spec_training", lambda a, s, o: raw.batch_norm_training(a, s, o, 0.0, 1), [x, g, b],
               "batch-norm-training", notes="`docs/semantics.md`, *Batch normalisation* (epsilon 0); emitted directly, JAX has no batch-norm API")
    yield Case("batch_norm", "spec_inference",
               lambda a, s, o, m, v: raw.batch_norm_inference(a, s, o, m, v, 0.0, 1),
               [x, g, b, np.array([1, 3], np.float32), np.array([4, 1], np.float32)], "batch-norm-inference")
    dy = np.array([[1, 1], [0, 2], [2, 0], [1, -1]], np.float32)
    yield Case("batch_norm", "spec_grad", lambda a, s, m, v, d: raw.batch_norm_grad(a, s, m, v, d, 0.0, 1),
               [x, g, np.array([2, 4], np.float32), np.array([1, 4], np.float32), dy], "batch-norm-grad")
    r = np.random.default_rng(2900)
    img = r.standard_normal((3, 4, 5, 2)).astype(np.float32) * 2 + 1
    sc, of = r.standard_normal(4).astype(np.float32), r.standard_normal(4).astype(np.float32)

    def bn_training_ref(a, s, o):
        mean = a.mean(axis=(0, 2, 3))
        var = a.var(axis=(0, 2, 3))
        shape = (1, -1, 1, 1)
        y = s.reshape(shape) * (a - mean.reshape(shape)) / np.sqrt(var.reshape(shape) + 1e-3) + o.reshape(shape)
        return y, mean, var
    yield Case("batch_norm", "training_nchw_eps", lambda a, s, o: raw.batch_norm_training(a, s, o, 1e-3, 1),
               [img, sc, of], "batch-norm-training", Normwise(64), bn_training_ref,
               notes="feature_index 1, epsilon 1e-3; XLA expands it (mean, biased variance)")


def cases():
    yield from _fft_cases()
    yield from _cholesky_cases()
    yield from _triangular_solve_cases()
    yield from _qr_cases()
    yield from _eigh_cases()
    yield from _svd_cases()
    yield from _batch_norm_cases()

