"""Data movement: broadcast, reshape, transpose, rev, slice, dynamic slices,
concatenate, pad, iota. Pure data movement is exact and keeps every bit pattern."""
import jax.numpy as jnp
import numpy as np
from jax import lax

from .. import dtypes as D
from .. import values as V
from ..core import Case


def _data(t, shape, seed):
    """Values of type t with edge values first (NaN payloads, subnormals, -0)."""
    if D.is_float(t) or D.is_complex(t):
        return V.floats(t, shape, seed, sample=V.normal(10))
    return V.with_specials(t, shape, seed)


def _broadcast():
    yield Case("broadcast", "prepend_f32", lambda x: lax.broadcast(x, (2, 3)), [_data("f32", (4,), 1)], "broadcast",
               notes="lax.broadcast prepends dimensions; HLO broadcast with dimensions={2}")
    yield Case("broadcast", "scalar_s8", lambda x: lax.broadcast(x, (3, 1, 2)), [np.int8(-7)], "broadcast",
               notes="rank-0 operand to [3,1,2]")
    yield Case("broadcast", "in_dim_bf16", lambda x: lax.broadcast_in_dim(x, (2, 3, 5), (0, 2)),
               [_data("bf16", (2, 5), 2)], "broadcast", notes="broadcast_in_dim dims (0, 2)")
    yield Case("broadcast", "in_dim_size1_c64", lambda x: lax.broadcast_in_dim(x, (4, 3, 2), (0, 1, 2)),
               [_data("c64", (1, 3, 1), 3)], "broadcast", notes="size-1 operand dimensions stretched")
    yield Case("broadcast", "in_dim_to_size0_u16", lambda x: lax.broadcast_in_dim(x, (0, 3), (1,)),
               [_data("u16", (3,), 4)], "broadcast", notes="result with a size-0 dimension")
    yield Case("broadcast", "implicit_add_f32", lambda a, b: a + b,
               [_data("f32", (3, 1), 5), _data("f32", (1, 4), 6)], "add",
               notes="NumPy-style broadcasting in JAX becomes explicit broadcast-in-dim before add (outer sum)")
    yield Case("broadcast", "implicit_mul_rank3_s32", lambda a, b: a * b,
               [_data("s32", (2, 1, 4), 7), _data("s32", (3, 1), 8)], "multiply",
               notes="rank-3 by rank-2 broadcasting (`docs/semantics.md`, *Combined broadcasting*)")


def _reshape():
    v = np.array([[[10, 11, 12], [15, 16, 17]], [[20, 21, 22], [25, 26, 27]], [[30, 31, 32], [35, 36, 37]],
                  [[40, 41, 42], [45, 46, 47]]], np.float32)
    yield Case("reshape", "spec_v_8x3", lambda x: lax.reshape(x, (8, 3)), [v], "reshape", notes="`docs/semantics.md`, *Reshape* example")
    yield Case("reshape", "spec_v_dims120_2x6x2", lambda x: lax.reshape(x, (2, 6, 2), dimensions=(1, 2, 0)), [v],
               "reshape", notes="reshape with dimensions=(1,2,0): JAX emits transpose then reshape")
    yield Case("reshape", "to_scalar_f64", lambda x: lax.reshape(x, ()), [_data("f64", (1, 1), 9)], "reshape",
               notes="[1,1] -> scalar")
    yield Case("reshape", "from_scalar_pred", lambda x: lax.reshape(x, (1, 1, 1)), [np.bool_(True)], "reshape",
               notes="scalar -> [1,1,1]")
    yield Case("reshape", "empty_s64", lambda x: lax.reshape(x, (0, 5)), [np.zeros((5, 0, 3), np.int64)], "reshape",
               notes="size-0 array reshaped")
    yield Case("reshape", "split_merge_f16", lambda x: lax.reshape(x, (7, 2, 13)), [_data("f16", (14, 13), 10)],
               "reshape", notes="[14,13] -> [7,2,13]")


def _transpose():
    yield Case("transpose", "2d_f32", lambda x: lax.transpose(x, (1, 0)), [_data("f32", (7, 13), 11)], "transpose")
    yield Case("transpose", "3d_120_s16", lambda x: lax.transpose(x, (1, 2, 0)), [_data("s16", (4, 2, 3), 12)],
               "transpose", notes="permutation (1,2,0)")
    yield Case("transpose", "4d_size1_c128", lambda x: lax.transpose(x, (3, 1, 0, 2)),
               [_data("c128", (2, 1, 3, 5), 13)], "transpose", notes="rank 4 with a size-1 dimension")
    yield Case("transpose", "empty_u8", lambda x: lax.transpose(x, (2, 0, 1)), [np.zeros((2, 0, 3), np.uint8)],
               "transpose")


def _rev():
    x = np.arange(6, dtype=np.int32).reshape(2, 3) + 1
    yield Case("rev", "dim1_s32", lambda a: lax.rev(a, (1,)), [x], "reverse", notes="[[3,2,1],[6,5,4]]")
    yield Case("rev", "dims01_s32", lambda a: lax.rev(a, (0, 1)), [x], "reverse")
    yield Case("rev", "dims02_f32", lambda a: lax.rev(a, (0, 2)), [_data("f32", (3, 4, 5), 14)], "reverse")
    yield Case("rev", "none_pred", lambda a: lax.rev(a, ()), [np.array([True, False, False])], "reverse",
               notes="empty dimension list: JAX emits no instruction")


def _slice():
    a = np.arange(5, dtype=np.float32)
    b = np.arange(12, dtype=np.float32).reshape(4, 3)
    yield Case("slice", "spec_a_2_4", lambda x: lax.slice(x, (2,), (4,)), [a], "slice")
    yield Case("slice", "spec_b_strided", lambda x: lax.slice(x, (0, 0), (4, 3), (2, 2)), [b], "slice",
               notes="strides (2,2) -> [[0,2],[6,8]]")
    yield Case("slice", "spec_a_stride3", lambda x: lax.slice(x, (1,), (5,), (3,)), [a], "slice", notes="[1,4]")
    yield Case("slice", "3d_strided_bf16", lambda x: lax.slice(x, (1, 0, 2), (7, 5, 13), (3, 2, 4)),
               [_data("bf16", (7, 5, 13), 15)], "slice", notes="strides that do not divide the extents")
    yield Case("slice", "empty_result_u32", lambda x: lax.slice(x, (2, 1), (2, 3)), [_data("u32", (4, 3), 16)],
               "slice", notes="start == limit gives a size-0 dimension")


INDEX_TYPES = [("s32", [2, 4, -1, 100, -100]), ("u32", [0xFFFFFFFF, 1]), ("s64", [2 ** 40, -(2 ** 40)]),
               ("s8", [-128, 127]), ("u8", [255, 3])]


def _dynamic_slice():
    a = np.arange(5, dtype=np.float32)
    b = np.arange(12, dtype=np.float32).reshape(4, 3)
    for t, starts in INDEX_TYPES:
        for i, s in enumerate(starts):
            yield Case("dynamic_slice", f"1d_{t}_start{i}",
                       lambda x, j: lax.dynamic_slice(x, (j,), (2,), allow_negative_indices=False),
                       [a, np.array(s).astype(D.dt(t))], "dynamic-slice",
                       notes=f"start {s} ({t}) clamped to [0, 3] by XLA (allow_negative_indices=False, so JAX "
                       "passes the index through); unsigned indices are never negative")
    yield Case("dynamic_slice", "1d_jax_negative_wraps", lambda x, j: lax.dynamic_slice(x, (j,), (2,)),
               [a, np.int32(-2)], "dynamic-slice",
               notes="JAX's default allow_negative_indices=True adds compare/add/select before the "
               "dynamic-slice: -2 becomes 3")
    yield Case("dynamic_slice", "2d_spec_clamped",
               lambda x, i, j: lax.dynamic_slice(x, (i, j), (2, 2), allow_negative_indices=False),
               [b, np.int32(3), np.int32(-5)], "dynamic-slice", notes="start (3,-5) clamps to (2,0)")
    yield Case("dynamic_slice", "3d_mixed_s16", lambda x, i, j, k: lax.dynamic_slice(x, (i, j, k), (1, 3, 0)),
               [_data("s16", (2, 5, 4), 17), np.int32(1), np.int32(9), np.int32(2)], "dynamic-slice",
               notes="size-0 slice dimension; start 9 clamped to 2")
    yield Case("dynamic_slice", "full_size_c64", lambda x, i: lax.dynamic_slice(x, (i, 0), (3, 4)),
               [_data("c64", (3, 4), 18), np.int32(2)], "dynamic-slice", notes="slice as large as the operand: start 0")


def _dynamic_update_slice():
    a = np.arange(5, dtype=np.float32)
    upd = np.array([5.0, 6.0], np.float32)
    for t, starts in INDEX_TYPES[:3]:
        for i, s in enumerate(starts):
            yield Case("dynamic_update_slice", f"1d_{t}_start{i}",
                       lambda x, u, j: lax.dynamic_update_slice(x, u, (j,), allow_negative_indices=False),
                       [a, upd, np.array(s).astype(D.dt(t))], "dynamic-update-slice",
                       notes=f"start {s} ({t}) clamped to [0, 3]")
    b = np.arange(12, dtype=np.int32).reshape(4, 3)
    u = np.array([[12, 13], [14, 15], [16, 17]], np.int32)
    yield Case("dynamic_update_slice", "2d_spec", lambda x, v, i, j: lax.dynamic_update_slice(x, v, (i, j)),
               [b, u, np.int32(1), np.int32(1)], "dynamic-update-slice")
    yield Case("dynamic_update_slice", "2d_clamped_f16",
               lambda x, v, i, j: lax.dynamic_update_slice(x, v, (i, j), allow_negative_indices=False),
               [_data("f16", (5, 7), 19), _data("f16", (2, 3), 20), np.int32(-3), np.int32(6)],
               "dynamic-update-slice", notes="start (-3, 6) clamped to (0, 4)")
    yield Case("dynamic_update_slice", "empty_update_pred", lambda x, v, i: lax.dynamic_update_slice(x, v, (i,)),
               [np.array([True, False, True]), np.zeros((0,), bool), np.int32(1)], "dynamic-update-slice",
               notes="size-0 update leaves the operand unchanged")


def _concatenate():
    yield Case("concatenate", "spec_1d_s32", lambda a, b, c: lax.concatenate([a, b, c], 0),
               [np.array([2, 3], np.int32), np.array([4, 5], np.int32), np.array([6, 7], np.int32)], "concatenate")
    yield Case("concatenate", "dim1_f32", lambda a, b: lax.concatenate([a, b], 1),
               [_data("f32", (2, 2), 21), _data("f32", (2, 1), 22)], "concatenate")
    yield Case("concatenate", "with_empty_bf16", lambda a, b, c: lax.concatenate([a, b, c], 0),
               [_data("bf16", (3, 4), 23), np.zeros((0, 4), D.BF16), _data("bf16", (1, 4), 24)], "concatenate",
               notes="a size-0 operand contributes nothing")
    yield Case("concatenate", "dim2_u64", lambda a, b: lax.concatenate([a, b], 2),
               [_data("u64", (2, 3, 1), 25), _data("u64", (2, 3, 4), 26)], "concatenate")


def _pad():
    x = np.array([1, 2, 3], np.int32)
    yield Case("pad", "spec_edge", lambda a, v: lax.pad(a, v, [(2, 1, 0)]), [x, np.int32(0)], "pad")
    yield Case("pad", "spec_interior", lambda a, v: lax.pad(a, v, [(0, 0, 2)]), [x, np.int32(0)], "pad")
    yield Case("pad", "spec_negative", lambda a, v: lax.pad(a, v, [(-1, -1, 1)]), [x, np.int32(9)], "pad",
               notes="interior first, then crop: [9,2,9]")
    yield Case("pad", "spec_2d", lambda a, v: lax.pad(a, v, [(1, 0, 1), (-1, 2, 1)]),
               [np.array([[1, 2], [3, 4]], np.int32), np.int32(0)], "pad")
    yield Case("pad", "nan_value_f32", lambda a, v: lax.pad(a, v, [(1, 2, 1), (0, -2, 3)]),
               [_data("f32", (3, 4), 27), np.float32(np.nan)], "pad", notes="NaN padding value")
    yield Case("pad", "to_empty_c64", lambda a, v: lax.pad(a, v, [(-2, -1, 0)]),
               [_data("c64", (3,), 28), np.complex64(1 + 1j)], "pad", notes="cropped to size 0")
    yield Case("pad", "empty_operand_f64", lambda a, v: lax.pad(a, v, [(1, 1, 3), (0, 1, 0)]),
               [np.zeros((0, 2), np.float64), np.float64(-0.0)], "pad",
               notes="size-0 operand: interior padding of an empty dimension adds nothing")


def _iota():
    for t, shape, dim in [("s32", (7,), 0), ("f32", (4, 8), 0), ("u8", (300,), 0), ("bf16", (3, 300), 1),
                          ("s64", (2, 3, 4), 2), ("f16", (2100,), 0), ("c64", (3,), 0)]:
        yield Case("iota", f"{t}_{'x'.join(map(str, shape))}_dim{dim}",
                   lambda dtype=D.dt(t), shape=shape, dim=dim: lax.broadcasted_iota(dtype, shape, dim), [], "iota",
                   x64=t in D.WIDE,
                   notes="u8 wraps past 255; float iota is the converted integer iota (bf16/f16 round: "
                         "large indices are not exact)")
    yield Case("iota", "jnp_arange_f32", lambda: jnp.arange(0.5, 5.0, 0.75, dtype=jnp.float32), [], "iota",
               notes="jnp.arange with a float step: iota times step plus start")


def cases():
    yield from _broadcast()
    yield from _reshape()
    yield from _transpose()
    yield from _rev()
    yield from _slice()
    yield from _dynamic_slice()
    yield from _dynamic_update_slice()
    yield from _concatenate()
    yield from _pad()
    yield from _iota()
