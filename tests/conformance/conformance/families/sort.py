"""sort (1-D, each dimension of 2-D, multi-operand, stable, descending, NaNs) and topk."""
import jax.numpy as jnp
import numpy as np
from jax import lax

from .. import values as V
from ..core import Case


def _sort_cases():
    spec = V.float_specials("f32")
    yield Case("sort", "f32_specials_jnp", jnp.sort, [spec], "sort",
               notes="jnp.sort: JAX's comparator maps -0 to +0 and every NaN to +NaN, then compares with "
               "type=TOTALORDER, stable; so -NaN sorts last with the NaNs, -0/+0 keep their input order, "
               "and the output keeps the original bit patterns. The canonicalization's x == 0 test flushes: "
               "subnormals compare equal to zero and stay among the zeros in input order")
    yield Case("sort", "f32_specials_lax_unstable", lambda x: lax.sort(x, is_stable=False), [spec], "sort",
               notes="lax.sort is_stable=False; same comparator")
    m = np.array([[3, 1, 2], [0, 5, -1]], np.int32)
    yield Case("sort", "spec_2d_dim1", lambda x: lax.sort(x, dimension=1), [m], "sort", notes="`docs/semantics.md`, *Sort and top-k*")
    yield Case("sort", "spec_2d_dim0", lambda x: lax.sort(x, dimension=0), [m], "sort", notes="`docs/semantics.md`, *Sort and top-k*")
    yield Case("sort", "spec_multi_operand", lambda a, b, c: lax.sort((a, b, c), num_keys=1),
               [np.array([3, 1], np.int32), np.array([42, 50], np.int32), np.array([-3.0, 1.1], np.float32)],
               "sort", notes="three operands permuted together by the first")
    yield Case("sort", "spec_stable_keys", lambda k, v: lax.sort((k, v), num_keys=1, is_stable=True),
               [np.array([2, 1, 2, 1], np.int32), np.array([10, 20, 30, 40], np.int32)], "sort",
               notes="stable: equal keys keep their order")
    yield Case("sort", "two_keys_f32_s32", lambda k1, k2, v: lax.sort((k1, k2, v), num_keys=2),
               [np.array([1, 0, 1, 0, 1, np.nan, 0], np.float32), np.array([3, 2, 1, 2, 3, 0, 9], np.int32),
                np.arange(7, dtype=np.int32)], "sort", notes="lexicographic over two keys")
    x3 = V.floats("f32", (3, 4, 5), 2000, sample=V.normal(2))
    for d in range(3):
        yield Case("sort", f"3d_dim{d}", lambda x, d=d: lax.sort(x, dimension=d), [x3], "sort",
                   notes=f"sorting every 1-D slice along dimension {d}")
    yield Case("sort", "descending_jnp", lambda x: jnp.sort(x, descending=True), [V.floats("bf16", (2, 13), 2001)],
               "sort", notes="jnp descending sort: ascending stable sort followed by reverse")
    yield Case("sort", "argsort_f32", lambda x: jnp.argsort(x, stable=True), [V.floats("f32", (31,), 2002)], "sort",
               notes="argsort: sort of (x, iota) with num_keys=1; NaNs last")
    for t in ("u8", "s64", "u64", "s16"):
        yield Case("sort", f"ints_{t}", lambda x: lax.sort(x), [V.with_specials(t, (3, 11), 2003)], "sort")
    c = np.array([1 + 2j, 1 - 1j, -1 + 0j, 1 + 2j, np.nan, complex(0, np.nan), 0j], np.complex64)
    yield Case("sort", "complex_lexicographic", lambda x: jnp.sort(x), [c], "sort",
               notes="complex: ordered by real part then imaginary part (two keys)")
    yield Case("sort", "pred", lambda x: lax.sort(x), [np.array([True, False, True, False, False])], "sort")
    yield Case("sort", "size1_and_empty", lambda a, b: (lax.sort(a), lax.sort(b)),
               [np.array([5.0], np.float32), np.zeros((2, 0), np.float32)], "sort",
               notes="a single element and an empty dimension")
    yield Case("sort", "f32_1023", jnp.sort, [V.floats("f32", (1023,), 2004, sample=V.normal(100))], "sort",
               notes="1023 elements")


def _top_k_cases():
    x = V.floats("f32", (3, 10), 2100, sample=V.normal(3))
    x[1] = [1, 5, 5, 2, 5, -0.0, 0.0, np.nan, -np.inf, 3]
    yield Case("top_k", "f32_k3", lambda v: lax.top_k(v, 3), [x], "topk",
               notes="values and s32 indices of the 3 largest per row; NaN is the largest; ties: lower index first")
    yield Case("top_k", "f32_k_full", lambda v: lax.top_k(v, 10), [x], "topk", notes="k equal to the row length")
    yield Case("top_k", "s32_k2", lambda v: lax.top_k(v, 2), [V.with_specials("s32", (2, 7), 2101)], "topk")
    yield Case("top_k", "bf16_1d_k4", lambda v: lax.top_k(v, 4), [V.floats("bf16", (13,), 2102)], "topk")
    yield Case("top_k", "f32_k1_signed_zeros", lambda v: lax.top_k(v, 1),
               [np.array([[-0.0, 0.0], [0.0, -0.0]], np.float32)], "topk",
               notes="+0 vs -0: the total order puts +0 above -0")
    yield Case("top_k", "smallest_jnp", lambda v: lax.top_k(-v, 3),
               [V.floats("f32", (4, 6), 2103, with_specials=False)], "topk",
               notes="k smallest via negation (what JAX users write)")


def cases():
    yield from _sort_cases()
    yield from _top_k_cases()

