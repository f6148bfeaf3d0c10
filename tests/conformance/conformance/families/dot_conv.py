"""dot / dot_general / einsum and convolution, checked against NumPy float64 and
integer references of `docs/semantics.md`, *Convolution*, *Dot*."""
import jax.numpy as jnp
import numpy as np
from jax import lax

from .. import dtypes as D
from .. import values as V
from ..core import Case
from ..tolerance import Accum, eps


def _wrap_to(a, dtype):
    """Integer results wrapped to `dtype` (two's complement)."""
    bits = 8 * np.dtype(dtype).itemsize
    a = np.asarray(a, dtype=object) % (1 << bits)
    if np.issubdtype(dtype, np.signedinteger):
        a = np.where(a >= 1 << (bits - 1), a - (1 << bits), a)
    return a.astype(dtype)


def _accum(lhs, rhs, reference, k, acc_dtype=np.float32, out_dtype=None):
    """Accum tolerance for a sum of k products: the reference applied to |lhs|, |rhs|
    bounds sum|terms| element-wise."""
    abs_sum = reference(np.abs(lhs).astype(np.float64), np.abs(rhs).astype(np.float64))
    narrow = out_dtype if out_dtype is not None and eps(out_dtype) > eps(acc_dtype) else None
    return Accum(k * eps(acc_dtype) * float(np.max(abs_sum, initial=0.0))
                 + (eps(narrow) * float(np.max(abs_sum, initial=0.0)) if narrow else 0.0))


def _dot_general(dims, **kw):
    return lambda a, b: lax.dot_general(a, b, dims, **kw)


def _einsum_ref(spec):
    return lambda a, b: np.einsum(spec, a.astype(np.float64) if a.dtype.kind == "f" else a,
                                  b.astype(np.float64) if b.dtype.kind == "f" else b)


def _dot_cases():
    f = np.float32
    yield Case("dot", "spec_vec_vec", jnp.dot, [np.array([1, 2, 3], f), np.array([4, 5, 6], f)], "dot",
               notes="`docs/semantics.md`, *Dot*: 32")
    yield Case("dot", "spec_mat_vec", jnp.dot, [np.array([[1, 2, 3], [4, 5, 6]], f), np.array([1, 0, -1], f)], "dot")
    yield Case("dot", "spec_mat_mat", jnp.dot, [np.array([[1, 2], [3, 4]], f), np.array([[5, 6], [7, 8]], f)], "dot")
    yield Case("dot", "spec_contracting_only", _dot_general((((1,), (1,)), ((), ()))),
               [np.array([[1, 2, 3], [4, 5, 6]], f), np.array([[1, 1, 1], [2, 2, 2]], f)], "dot",
               notes="`docs/semantics.md`, *Dot* example 1: lhs . rhs^T")
    lhs = np.arange(24, dtype=np.int32).reshape(2, 3, 4)
    rhs = np.array([[[10 * i + 5 * j + k for k in range(5)] for j in range(2)] for i in range(4)], np.int32)
    yield Case("dot", "spec_batch_dims_ordering", _dot_general((((2,), (0,)), ((0,), (1,)))), [lhs, rhs], "dot",
               notes="`docs/semantics.md`, *Dot* example 3: lb={0}, rb={1}, lc={2}, rc={0}; out[1,2,3] = 2028")
    r = np.random.default_rng(2200)
    configs = [
        ("mm_7x13x5", (7, 13), (13, 5), (((1,), (0,)), ((), ())), "ij,jk->ik"),
        ("lhs_contract_dim0", (13, 7), (13, 5), (((0,), (0,)), ((), ())), "ji,jk->ik"),
        ("two_contracting", (3, 4, 5), (5, 4, 2), (((1, 2), (1, 0)), ((), ())), "ajb,bjc->ac"),
        ("batch_not_leading", (4, 3, 6), (6, 5, 3), (((2,), (0,)), ((1,), (2,))), "ibj,jkb->bik"),
        ("two_batch", (2, 3, 4, 5), (2, 3, 5, 6), (((3,), (2,)), ((0, 1), (0, 1))), "abij,abjk->abik"),
        ("mm_33x65x17", (33, 65), (65, 17), (((1,), (0,)), ((), ())), "ij,jk->ik"),
    ]
    for name, ls, rs, dims, spec in configs:
        a = r.standard_normal(ls).astype(f)
        b = r.standard_normal(rs).astype(f)
        ref = _einsum_ref(spec)
        k = int(np.prod([ls[d] for d in dims[0][0]]))
        yield Case("dot", f"f32_{name}", _dot_general(dims), [a, b], "dot", _accum(a, b, ref, k), ref,
                   notes=f"dot_general {dims} ({spec}); tolerance k*eps*(|A||B|)")
    a64, b64 = r.standard_normal((5, 9)), r.standard_normal((9, 3))
    yield Case("dot", "f64_5x9x3", jnp.dot, [a64, b64], "dot", _accum(a64, b64, _einsum_ref("ij,jk->ik"), 9,
                                                                     np.float64), _einsum_ref("ij,jk->ik"))
    ab, bb = V.floats("bf16", (6, 40), 2201, with_specials=False), V.floats("bf16", (40, 7), 2202, with_specials=False)
    yield Case("dot", "bf16_result_bf16", jnp.dot, [ab, bb], "dot",
               _accum(ab, bb, _einsum_ref("ij,jk->ik"), 40, np.float32, D.BF16), _einsum_ref("ij,jk->ik"),
               notes="bf16 x bf16 -> bf16: XLA:CPU accumulates in f32 and rounds once (project rule)")
    yield Case("dot", "bf16_preferred_f32", lambda a, b: jnp.dot(a, b, preferred_element_type=jnp.float32), [ab, bb],
               "dot", _accum(ab, bb, _einsum_ref("ij,jk->ik"), 40), _einsum_ref("ij,jk->ik"),
               notes="preferred_element_type=f32: the HLO dot has an f32 result")
    one = np.array([1.0] + [2.0 ** -9] * 8, np.float32).astype(D.BF16)
    yield Case("dot", "bf16_accumulation_probe", jnp.dot, [one, np.ones(9, D.BF16)], "dot",
               notes="`docs/semantics.md`, *Accumulation in dot and convolution* example: [1, 2^-9 x8] . ones = 1.015625 with f32 accumulation (1.0 if each "
               "add rounded to bf16)")
    af, bf = V.floats("f16", (5, 20), 2203, with_specials=False), V.floats("f16", (20, 4), 2204, with_specials=False)
    yield Case("dot", "f16", jnp.dot, [af, bf], "dot", _accum(af, bf, _einsum_ref("ij,jk->ik"), 20, np.float32,
                                                                np.float16), _einsum_ref("ij,jk->ik"))
    ac, bc = V.floats("c64", (3, 6), 2205, with_specials=False), V.floats("c64", (6, 2), 2206, with_specials=False)
    yield Case("dot", "c64", jnp.dot, [ac, bc], "dot", _accum(ac, bc, _einsum_ref("ij,jk->ik"), 12),
               _einsum_ref("ij,jk->ik"), notes="complex dot (4 real products per term)")
    i8a = V.random("s8", (4, 30), 2207)
    i8b = V.random("s8", (30, 3), 2208)
    yield Case("dot", "s8_preferred_s32", lambda a, b: jnp.dot(a, b, preferred_element_type=jnp.int32), [i8a, i8b],
               "dot", reference=lambda a, b: a.astype(np.int64) @ b.astype(np.int64),
               notes="s8 x s8 accumulated in s32 (preferred_element_type)")
    yield Case("dot", "s8_wraps", lambda a, b: lax.dot(a, b), [i8a, i8b], "dot",
               reference=lambda a, b: _wrap_to(a.astype(np.int64) @ b.astype(np.int64), np.int8),
               notes="s8 result: the sum wraps modulo 2^8")
    i32a = V.random("s32", (3, 5), 2209)
    i32b = V.random("s32", (5, 2), 2210)
    yield Case("dot", "s32_wraps", lax.dot, [i32a, i32b], "dot",
               reference=lambda a, b: _wrap_to(a.astype(object) @ b.astype(object), np.int32))
    u64a, u64b = V.random("u64", (2, 4), 2211), V.random("u64", (4, 3), 2212)
    yield Case("dot", "u64_wraps", lax.dot, [u64a, u64b], "dot",
               reference=lambda a, b: _wrap_to(a.astype(object) @ b.astype(object), np.uint64))
    yield Case("dot", "empty_contracting", jnp.dot, [np.zeros((3, 0), f), np.zeros((0, 4), f)], "dot",
               notes="contracting size 0: zeros (JAX may fold it)")
    yield Case("dot", "pred", lambda a, b: lax.dot(a, b), [np.eye(3, dtype=bool), np.array([[True, False],
                                                                                          [False, False],
                                                                                          [True, True]])], "dot",
               notes="pred dot: or of ands")
    q = r.standard_normal((2, 3, 4, 8)).astype(f)
    kk = r.standard_normal((2, 3, 5, 8)).astype(f)
    ref = _einsum_ref("bhqd,bhkd->bhqk")
    yield Case("dot", "einsum_attention_scores", lambda a, b: jnp.einsum("bhqd,bhkd->bhqk", a, b), [q, kk], "dot",
               _accum(q, kk, ref, 8), ref, notes="einsum with two batch dims and a contracting minor dim")
    yield Case("dot", "einsum_outer", lambda a, b: jnp.einsum("i,j->ij", a, b),
               [V.floats("f32", (7,), 2213), V.floats("f32", (13,), 2214, with_specials=False)], "dot",
               notes="outer product: a dot with no contracting dims is one rounded product per element, "
               "not 0 + product: 0 * -x gives -0 (a spec-style accumulator starting at +0 would give +0); "
               "edge values in the first operand", reference=np.multiply.outer)
    yield Case("dot", "signed_zero_sum", jnp.dot,
               [np.array([[-0.0, -0.0], [0.0, -0.0], [-1.0, 1.0]], f), np.array([1.0, 1.0], f)], "dot",
               notes="sums of -0 products: XLA:CPU gives +0 (the accumulation starts from +0), unlike the "
               "dot without contracting dims (dot__einsum_outer)", reference=lambda a, b: a @ b)


def _conv_ref(lhs, rhs, strides, padding, lhs_dil, rhs_dil, fgc, bgc, specs):
    """`docs/semantics.md`, *Convolution* in float64 (or object integers): transpose to canonical order, dilate,
    pad (negative crops), correlate without flipping, then transpose to the output spec."""
    lhs_spec, rhs_spec, out_spec = specs
    spatial = [c for c in lhs_spec if c not in "NC"]
    lhs = np.transpose(lhs, [lhs_spec.index(c) for c in "NC" + "".join(spatial)])
    rhs = np.transpose(rhs, [rhs_spec.index(c) for c in "OI" + "".join(spatial)])
    n = len(spatial)

    def dilate(a, d):
        shape = list(a.shape[:2]) + [(s - 1) * k + 1 if s else 0 for s, k in zip(a.shape[2:], d)]
        out = np.zeros(shape, a.dtype)
        out[(slice(None), slice(None)) + tuple(slice(None, None, k) for k in d)] = a
        return out
    lhs = dilate(lhs, lhs_dil)
    rhs = dilate(rhs, rhs_dil)
    crop = tuple(slice(max(-lo, 0), s - max(-hi, 0)) for (lo, hi), s in zip(padding, lhs.shape[2:]))
    lhs = lhs[(slice(None), slice(None)) + crop]
    lhs = np.pad(lhs, [(0, 0), (0, 0)] + [(max(lo, 0), max(hi, 0)) for lo, hi in padding])
    B, IF = lhs.shape[:2]
    OF, KIF = rhs.shape[:2]
    out_sp = [max((p - w) // s + 1, 0) if p >= w else 0 for p, w, s in zip(lhs.shape[2:], rhs.shape[2:], strides)]
    out = np.zeros([B // bgc, OF] + out_sp, np.result_type(lhs, rhs))
    for o in range(OF):
        g = o // (OF // fgc)
        h = o // (OF // bgc)
        x = lhs[h * (B // bgc):(h + 1) * (B // bgc), g * KIF:(g + 1) * KIF]
        for k in np.ndindex(*rhs.shape[2:]):
            sl = tuple(slice(ki, ki + (osz - 1) * s + 1, s) for ki, osz, s in zip(k, out_sp, strides))
            out[:, o] += np.tensordot(x[(slice(None), slice(None)) + sl], rhs[(o, slice(None)) + k], axes=([1], [0]))
    canon = "NC" + "".join(spatial)
    return np.transpose(out, [canon.index(c) for c in out_spec]) if n else out


def _conv(strides, padding, lhs_dil=None, rhs_dil=None, fgc=1, bgc=1, specs=None, **kw):
    def fn(x, w):
        return lax.conv_general_dilated(x, w, strides, padding, lhs_dilation=lhs_dil, rhs_dilation=rhs_dil,
                                        dimension_numbers=specs, feature_group_count=fgc, batch_group_count=bgc,
                                        **kw)
    return fn


def _conv_reference(strides, padding, lhs_dil=None, rhs_dil=None, fgc=1, bgc=1, specs=None):
    def ref(x, w):
        n = x.ndim - 2
        sp = specs or ("NC" + "HWD"[:n], "OI" + "HWD"[:n], "NC" + "HWD"[:n])
        pads = padding
        if isinstance(padding, str):
            pads = lax.padtype_to_pads(
                [x.shape[sp[0].index(c)] for c in sp[0] if c not in "NC"],
                [w.shape[sp[1].index(c)] for c in sp[0] if c not in "NC"], strides, padding)
        return _conv_ref(x, w, strides, pads, lhs_dil or (1,) * n, rhs_dil or (1,) * n, fgc, bgc, sp)
    return ref


def _conv_cases():
    base = np.arange(1, 10, dtype=np.float32).reshape(1, 1, 3, 3)
    kern = np.array([[1, 0], [0, -1]], np.float32).reshape(1, 1, 2, 2)
    spec = [
        ("valid", (1, 1), "VALID", None, None),
        ("stride2_pad1", (2, 2), [(1, 1), (1, 1)], None, None),
        ("same", (1, 1), "SAME", None, None),
        ("negative_padding", (1, 1), [(-1, 0), (0, 0)], None, None),
        ("lhs_dilation", (1, 1), [(0, 0), (0, 0)], (2, 2), None),
        ("rhs_dilation", (1, 1), "VALID", None, (2, 2)),
    ]
    for name, st, pad, ld, rd in spec:
        yield Case("conv", f"spec_{name}", _conv(st, pad, ld, rd), [base, kern], "convolution",
                   reference=_conv_reference(st, pad, ld, rd), notes="`docs/semantics.md`, *Convolution* worked example (exact)")
    x1 = np.array([[[1, 2, 3, 4], [10, 20, 30, 40]]], np.float32)
    w1 = np.array([[[1, 1], [0, 0]], [[0, 0], [1, -1]]], np.float32)
    yield Case("conv", "spec_1d_plain", _conv((1,), "VALID"), [x1, w1], "convolution",
               reference=_conv_reference((1,), "VALID"), notes="`docs/semantics.md`, *Convolution* 1-D example")
    wg = np.array([[[1, 1]], [[1, -1]]], np.float32)
    yield Case("conv", "spec_1d_feature_groups", _conv((1,), "VALID", fgc=2), [x1, wg], "convolution",
               reference=_conv_reference((1,), "VALID", fgc=2), notes="feature_group_count=2")
    xb = np.array([[[1, 2, 3]], [[10, 20, 30]]], np.float32)
    yield Case("conv", "spec_1d_batch_groups", _conv((1,), "VALID", bgc=2), [xb, wg], "convolution",
               reference=_conv_reference((1,), "VALID", bgc=2), notes="batch_group_count=2")
    r = np.random.default_rng(2300)
    configs = [
        # name, lhs shape, rhs shape, strides, padding, lhs_dil, rhs_dil, fgc, bgc, specs
        ("nhwc_hwio_stride2_same", (2, 9, 7, 3), (3, 3, 3, 4), (2, 2), "SAME", None, None, 1, 1,
         ("NHWC", "HWIO", "NHWC")),
        ("nchw_padding_dilations", (1, 2, 7, 6), (3, 2, 2, 3), (1, 2), [(2, -1), (1, 3)], (2, 1), (1, 2), 1, 1,
         ("NCHW", "OIHW", "NCHW")),
        ("depthwise_nhwc", (1, 6, 6, 4), (3, 3, 1, 8), (1, 1), "VALID", None, None, 4, 1, ("NHWC", "HWIO", "NHWC")),
        ("batch_group_weight_grad", (4, 3, 5, 5), (6, 3, 2, 2), (1, 1), "VALID", None, None, 1, 2,
         ("NCHW", "OIHW", "NCHW")),
        ("conv1d_nwc", (2, 13, 3), (5, 3, 2), (3,), [(4, 0)], None, (2,), 1, 1, ("NWC", "WIO", "NWC")),
        ("conv3d_ncdhw", (1, 2, 4, 5, 3), (2, 2, 2, 3, 2), (1, 2, 1), [(1, 0), (0, 1), (1, 1)], None, None, 1, 1,
         ("NCDHW", "OIDHW", "NCDHW")),
        ("transposed_lhs_dilation", (1, 3, 3, 2), (3, 3, 2, 1), (1, 1), [(2, 2), (2, 2)], (2, 2), None, 1, 1,
         ("NHWC", "HWIO", "NHWC")),
        ("output_layout_nchw_from_nhwc", (1, 5, 4, 2), (2, 2, 2, 3), (1, 1), "VALID", None, None, 1, 1,
         ("NHWC", "HWIO", "NCHW")),
    ]
    for name, ls, rs, st, pad, ld, rd, fgc, bgc, specs in configs:
        x = r.standard_normal(ls).astype(np.float32)
        w = r.standard_normal(rs).astype(np.float32)
        ref = _conv_reference(st, pad, ld, rd, fgc, bgc, specs)
        k = int(np.prod(rs)) // rs[specs[1].index("O")]
        yield Case("conv", name, _conv(st, pad, ld, rd, fgc, bgc, specs), [x, w], "convolution",
                   _accum(x, w, ref, k), ref,
                   notes=f"conv_general_dilated {specs}, strides {st}, padding {pad}, lhs_dilation {ld}, "
                   f"rhs_dilation {rd}, feature_group_count {fgc}, batch_group_count {bgc}")
    xi = V.random("s8", (1, 2, 5, 5), 2301, low=-20, high=20)
    wi = V.random("s8", (3, 2, 3, 3), 2302, low=-20, high=20)
    yield Case("conv", "s8_preferred_s32", _conv((1, 1), "SAME", preferred_element_type=jnp.int32), [xi, wi],
               "convolution", reference=lambda x, w: _conv_ref(x.astype(np.int64), w.astype(np.int64), (1, 1),
                                                               [(1, 1), (1, 1)], (1, 1), (1, 1), 1, 1,
                                                               ("NCHW", "OIHW", "NCHW")).astype(np.int32),
               notes="integer convolution accumulated in s32")
    xb16 = V.floats("bf16", (1, 4, 6, 6), 2303, with_specials=False)
    wb16 = V.floats("bf16", (2, 4, 3, 3), 2304, with_specials=False)
    ref = _conv_reference((1, 1), "VALID")
    yield Case("conv", "bf16", _conv((1, 1), "VALID"), [xb16, wb16], "convolution",
               _accum(xb16, wb16, ref, 36, np.float32, D.BF16), ref,
               notes="bf16 convolution: f32 accumulation, one rounding (project rule)")


def cases():
    yield from _dot_cases()
    yield from _conv_cases()
