"""gather and scatter: the worked examples of `docs/semantics.md`, *Gather*, *Scatter*;
clamping and dropping of out-of-range indices, duplicate indices, batching
dimensions (vmap) and the JAX indexing idioms with each GatherScatterMode."""
import jax
import jax.numpy as jnp
import numpy as np
from jax import lax

from .. import dtypes as D
from .. import values as V
from ..core import Case

GD = lax.GatherDimensionNumbers
SD = lax.ScatterDimensionNumbers
RAW = lax.GatherScatterMode.PROMISE_IN_BOUNDS  # JAX emits the plain instruction

OP = np.array([[1, 2, 3], [4, 5, 6], [7, 8, 9]], np.int32)


def _gather(dnums, sizes, mode=RAW, **kw):
    return lambda x, i: lax.gather(x, i, dnums, sizes, mode=mode, **kw)


def _gather_cases():
    spec = [
        ("spec_rows", np.array([[0], [2]], np.int32), GD((1,), (0,), (0,)), (1, 3)),
        ("spec_windows_clamped", np.array([[0, 1], [1, 0], [2, 2]], np.int32), GD((1, 2), (), (0, 1)), (2, 2)),
        ("spec_points", np.array([[0, 0], [1, 2], [2, 1]], np.int32), GD((), (0, 1), (0, 1)), (1, 1)),
    ]
    for name, idx, dn, sizes in spec:
        yield Case("gather", name, _gather(dn, sizes), [OP, idx], "gather", notes="`docs/semantics.md`, *Gather* worked example")
    yield Case("gather", "spec_columns_implicit_index_dim", _gather(GD((0,), (1,), (1,)), (3, 1)),
               [OP, np.array([[2], [0]], np.int32)], "gather",
               notes="column gather (`docs/semantics.md`, *Gather* example 3, with an explicit trailing index dimension: "
               "JAX always puts index_vector_dim last)")
    op43 = np.arange(12, dtype=np.int32).reshape(4, 3)
    yield Case("gather", "spec_two_batch_dims", _gather(GD((2,), (0,), (0,)), (1, 3)),
               [op43, np.array([[[3], [1]], [[0], [2]]], np.int32)], "gather", notes="`docs/semantics.md`, *Gather* example 5")
    x = V.floats("f32", (16, 11), 1600, sample=V.normal(5))
    idx = np.array([[0, 0], [8, 5], [15, 10], [-3, 4], [2, 100], [2 ** 31 - 1, -(2 ** 31)]], np.int32)
    yield Case("gather", "windows_out_of_range", _gather(GD((1, 2), (), (0, 1)), (8, 6)), [x, idx], "gather",
               notes="8x6 windows; every start is clamped into [0, 8] x [0, 5] by XLA (mode promise_in_bounds: "
               "JAX emits the plain gather)")
    yield Case("gather", "windows_u32_indices", _gather(GD((1, 2), (), (0, 1)), (3, 2)),
               [x, np.array([[0xFFFFFFFF, 1], [5, 0x80000000]], np.uint32)], "gather",
               notes="unsigned start indices are large positives, clamped to the maximum start")
    yield Case("gather", "windows_s8_indices", _gather(GD((1,), (0,), (0,)), (1, 11)),
               [x, np.array([[-128], [127], [3]], np.int8)], "gather", notes="s8 start indices")
    y = V.floats("bf16", (5, 7, 3), 1601)
    yield Case("gather", "3d_collapsed_middle_bf16", _gather(GD((1, 2), (1,), (1, 0)), (2, 1, 3)),
               [y, np.array([[6, 3], [0, 0], [3, 4], [9, 9]], np.int32)], "gather",
               notes="start_index_map (1, 0) permutes the index vector; collapsed dim 1")
    yield Case("gather", "empty_indices", _gather(GD((1,), (0,), (0,)), (1, 3)), [OP, np.zeros((0, 1), np.int32)],
               "gather", notes="no indices: empty result")
    # JAX indexing idioms and modes.
    z = V.floats("f32", (6, 4), 1602, sample=V.normal(3))
    rows = np.array([5, 0, -1, 7, -9], np.int32)
    yield Case("gather", "jnp_take_rows_clip", lambda a, i: jnp.take(a, i, axis=0, mode="clip"), [z, rows], "gather",
               notes="mode='clip': JAX clamps the indices itself before a plain gather")
    yield Case("gather", "jnp_take_rows_fill", lambda a, i: jnp.take(a, i, axis=0, mode="fill", fill_value=-1.0),
               [z, rows], "gather",
               notes="mode='fill': JAX wraps negatives, then selects the fill value for out-of-range rows")
    yield Case("gather", "jnp_getitem_negative", lambda a, i: a[i], [z, rows], "gather",
               notes="a[i]: JAX wraps negative indices (i + 6) and lets XLA clamp the rest (default mode)")
    yield Case("gather", "jnp_point_index", lambda a, i, j: a[i, j],
               [z, np.array([0, 5, 2], np.int32), np.array([3, 0, 1], np.int32)], "gather", notes="a[i, j]")
    yield Case("gather", "take_along_axis_s64", lambda a, i: jnp.take_along_axis(a, i, axis=1),
               [V.with_specials("s64", (3, 5), 1603), np.array([[4, 0], [1, 1], [3, 2]], np.int64)], "gather",
               notes="take_along_axis: gather with an iota batch index")
    ds = jax.vmap(lambda v, i: lax.dynamic_slice(v, (i,), (3,)))
    yield Case("gather", "vmap_dynamic_slice_batching_dims", ds,
               [V.floats("f32", (4, 9), 1604), np.array([0, 7, -2, 4], np.int32)], "gather",
               notes="vmap of dynamic_slice: a gather with operand_batching_dims / start_indices_batching_dims "
               "(not in `docs/semantics.md`, *Gather*: batch dim b of the operand is indexed by batch dim b of the indices)")


def _scatter(kind, dnums, mode=RAW, **kw):
    fn = {"set": lax.scatter, "add": lax.scatter_add, "mul": lax.scatter_mul, "min": lax.scatter_min,
          "max": lax.scatter_max}[kind]
    return lambda x, i, u: fn(x, i, u, dnums, mode=mode, **kw)


def _windows_reference(kind):
    """Scatter of 2x2 windows at (i, j) starts, applied one update element at a time in
    row-major order of the update index (the project rule), in f32 arithmetic with
    subnormal inputs and results of the combiner flushed; windows that do not fit are
    dropped. Untouched elements keep their bits. The inputs arrive as float64 (exact)."""
    arith = {
        "add": lambda a, b: a + b,
        "mul": lambda a, b: a * b,
        "min": lambda a, b: np.nan if np.isnan(a) or np.isnan(b) else min(a, b),
        "max": lambda a, b: np.nan if np.isnan(a) or np.isnan(b) else max(a, b),
    }

    def combine(old, new):
        if kind == "set":
            return new
        return D.flush(np.float32(arith[kind](D.flush(np.float32(old)), D.flush(np.float32(new)))))

    def ref(x, idx, upd):
        out = x.astype(np.float32)
        upd = upd.astype(np.float32)
        for u, (i, j) in enumerate(idx):
            if i < 0 or j < 0 or i + 2 > out.shape[0] or j + 2 > out.shape[1]:
                continue
            for a in range(2):
                for b in range(2):
                    out[i + a, j + b] = combine(out[i + a, j + b], upd[u, a, b])
        return out
    return ref


def _scatter_cases():
    z = np.zeros((3, 3), np.int32)
    rows = SD((1,), (0,), (0,))
    yield Case("scatter", "spec_rows_add", _scatter("add", rows),
               [z, np.array([[0], [2]], np.int32), np.array([[1, 2, 3], [4, 5, 6]], np.int32)], "scatter",
               notes="`docs/semantics.md`, *Scatter* example 1")
    yield Case("scatter", "spec_duplicates_add", _scatter("add", rows),
               [z, np.array([[0], [0]], np.int32), np.array([[1, 2, 3], [4, 5, 6]], np.int32)], "scatter",
               notes="duplicate indices accumulate")
    yield Case("scatter", "spec_duplicates_set", _scatter("set", rows),
               [z, np.array([[0], [0]], np.int32), np.array([[1, 2, 3], [4, 5, 6]], np.int32)], "scatter",
               notes="duplicate indices with replace: the last update in row-major order wins on XLA:CPU")
    yield Case("scatter", "spec_points_add", _scatter("add", SD((), (0, 1), (0, 1))),
               [z, np.array([[0, 0], [1, 2], [0, 0]], np.int32), np.array([10, 20, 5], np.int32)], "scatter",
               notes="`docs/semantics.md`, *Scatter* example 3")
    yield Case("scatter", "spec_window_dropped", _scatter("add", SD((1, 2), (), (0, 1))),
               [z, np.array([[0, 2], [1, 1]], np.int32),
                np.array([[[1, 1], [1, 1]], [[7, 8], [9, 10]]], np.int32)], "scatter",
               notes="`docs/semantics.md`, *Scatter* example 4: a window that does not fit is skipped entirely")
    x = V.floats("f32", (6, 5), 1700, sample=V.normal(2))
    idx = np.array([[0, 0], [4, 3], [5, 4], [-1, 0], [3, 4], [0, 0], [2, 1]], np.int32)
    upd = V.floats("f32", (7, 2, 2), 1701, sample=V.normal(2), with_specials=False)
    upd[6] = [[np.nan, -0.0], [np.inf, 1e-40]]
    win = SD((1, 2), (), (0, 1))
    for kind in ("set", "add", "mul", "min", "max"):
        yield Case("scatter", f"windows_{kind}_f32", _scatter(kind, win), [x, idx, upd], "scatter",
                   reference=_windows_reference(kind), flushes=False,
                   notes=f"2x2 windows combined with {kind}: windows at (5,4), (-1,0), (3,4) do not fit and are "
                   "dropped; (0,0) appears twice; the last update holds NaN, -0, inf and a subnormal")
    for mode in ("clip", "drop"):
        yield Case("scatter", f"windows_add_mode_{mode}", _scatter("add", win, mode=mode), [x, idx, upd], "scatter",
                   notes=f"mode='{mode}': " + ("JAX clamps the indices itself, so no window is dropped"
                                               if mode == "clip" else
                                               "JAX relies on XLA dropping out-of-bounds windows"))
    s = V.with_specials("s8", (10,), 1702)
    yield Case("scatter", "points_add_s8_wraps", _scatter("add", SD((), (0,), (0,))),
               [s, np.array([[1], [1], [9], [10], [-1]], np.int32), np.array([100, 100, 127, 5, 5], np.int8)],
               "scatter", notes="integer accumulation wraps; indices 10 and -1 are out of range and dropped")
    u = V.with_specials("u64", (4,), 1703)
    yield Case("scatter", "points_max_u64", _scatter("max", SD((), (0,), (0,))),
               [u, np.array([[0], [3], [3]], np.int32), np.array([5, 2 ** 63, 1], np.uint64)], "scatter")
    yield Case("scatter", "jnp_at_set_negative", lambda a, i, v: a.at[i].set(v),
               [np.zeros(5, np.float32), np.array([-1, 2, 7], np.int32), np.array([1, 2, 3], np.float32)],
               "scatter", notes="a.at[i].set: JAX wraps -1 to 4; the default mode drops index 7")
    yield Case("scatter", "jnp_at_add_bf16", lambda a, i, v: a.at[i].add(v),
               [V.floats("bf16", (4, 3), 1704, with_specials=False), np.array([0, 3, 0], np.int32),
                V.floats("bf16", (3, 3), 1705, with_specials=False)], "scatter",
               notes="bf16 accumulation, duplicate row 0")
    dus = jax.vmap(lambda v, w, i: lax.dynamic_update_slice(v, w, (i,)))
    yield Case("scatter", "vmap_dynamic_update_slice_batching_dims", dus,
               [V.floats("f32", (3, 8), 1706), V.floats("f32", (3, 2), 1707, with_specials=False),
                np.array([6, -5, 3], np.int32)], "scatter",
               notes="vmap of dynamic_update_slice: scatter with operand_batching_dims / "
               "scatter_indices_batching_dims; JAX clamps the starts itself")


def cases():
    yield from _gather_cases()
    yield from _scatter_cases()
