"""Fixtures for tests/chlo_ops.rs: `chlo` ops as JAX lowers them, with XLA:CPU's results.

Run from the repository root with the project's Python (jax 0.10.2):

    .venv/bin/python crates/xla-core/tests/data/chlo/gen.py

For each op and element type it writes `<case>.mlir` (the StableHLO text of a
jitted JAX function, or a hand-written module for the ops JAX never emits:
`is_inf`, the `broadcast_*` family, `constant_like`, `mulhi`) and one entry of
`cases.json`: the argument and result arrays as element type, dimensions and
little-endian bytes in hex, the results computed by XLA:CPU.
"""

import json
import os
import re

import jax
import jax.numpy as jnp
import numpy as np
from jax import lax
from jax._src.lib import xla_client as xc

jax.config.update("jax_enable_x64", True)
jax.config.update("jax_platforms", "cpu")

HERE = os.path.dirname(os.path.abspath(__file__))

EDGES = [
    0.0, -0.0, 1e-30, -1e-30, 1e-8, -1e-8, 1e-3, -1e-3, 0.1, -0.1, 0.25, 0.5, -0.5,
    0.75, 0.9, -0.9, 0.999, -0.999, 1.0, -1.0, 1.5, -1.5, 2.0, -2.0, 2.5, -2.5, 3.0,
    -3.0, -4.0, 5.0, -7.5, 8.0, 8.5, 10.0, -10.0, 30.0, -30.0, 88.5, -88.5, 89.5,
    100.0, 700.0, 710.0, 1e4, 1e10, -1e10, 1e30, 1e300, np.inf, -np.inf, np.nan,
]
RNG = np.random.default_rng(7)
RANDOM = list(RNG.normal(0.0, 3.0, 12)) + list(RNG.uniform(-1.0, 1.0, 12))
UNARY_INPUT = np.array(EDGES + RANDOM)

REAL = ["float16", "bfloat16", "float32", "float64"]
COMPLEX = ["complex64", "complex128"]

UNARY = {
    "erf": (lax.erf, REAL),
    "erfc": (lax.erfc, REAL),
    "erf_inv": (lax.erf_inv, REAL),
    "lgamma": (lax.lgamma, REAL),
    "digamma": (lax.digamma, REAL),
    "bessel_i1e": (lax.bessel_i1e, REAL),
    "sinh": (lax.sinh, REAL + COMPLEX),
    "cosh": (lax.cosh, REAL + COMPLEX),
    "asin": (lax.asin, REAL + COMPLEX),
    "acos": (lax.acos, REAL + COMPLEX),
    "atan": (lax.atan, REAL + COMPLEX),
    "asinh": (lax.asinh, REAL + COMPLEX),
    "acosh": (lax.acosh, REAL + COMPLEX),
    "atanh": (lax.atanh, REAL + COMPLEX),
    "square": (lax.square, REAL + COMPLEX),
}

cases = []


def array(x):
    x = np.asarray(x)
    return {"dtype": str(x.dtype), "shape": list(x.shape), "hex": x.tobytes().hex()}


def typed(values, dtype):
    values = np.asarray(values)
    if dtype in COMPLEX:
        part = np.float32 if dtype == "complex64" else np.float64
        re_, im = values, np.roll(values[::-1], 5)
        return (re_.astype(part) + 1j * im.astype(part)).astype(dtype)
    return values.astype(jnp.dtype(dtype))


def add_jax(name, op, f, args):
    text = jax.jit(f).lower(*args).as_text()
    if f"chlo.{op}" not in text:
        raise SystemExit(f"{name}: JAX did not emit chlo.{op}")
    out = jax.jit(f)(*args)
    write(name, op, text, args, [out])


def write(name, op, text, args, outs):
    with open(os.path.join(HERE, f"{name}.mlir"), "w") as f:
        f.write(strip_locations(text))
    cases.append({
        "name": name,
        "op": op,
        "args": [array(a) for a in args],
        "outs": [array(np.asarray(o)) for o in outs],
    })


def strip_locations(text):
    text = re.sub(r" loc\([^()]*(\([^()]*\)[^()]*)*\)", "", text)
    return "\n".join(l for l in text.splitlines() if not l.startswith("#loc")) + "\n"


def add_text(name, op, text, args):
    """A hand-written module compiled and run by XLA:CPU."""
    client = jax.devices()[0].client
    exe = client.compile_and_load(
        text, xc.DeviceList(tuple(jax.devices()[:1])), xc.CompileOptions())
    outs = exe.execute_sharded([jax.device_put(a) for a in args])
    outs = [np.asarray(o[0]) for o in outs.disassemble_into_single_device_arrays()]
    write(name, op, text, args, outs)


for op, (f, dtypes) in UNARY.items():
    for dtype in dtypes:
        add_jax(f"{op}_{dtype}", op, f, [typed(UNARY_INPUT, dtype)])

# Binary ops: pairs of edge values.
N_VALUES = [0.0, 1.0, 2.0, 3.0, 4.0, 1.5, -1.0, 5.0]
X_VALUES = [0.5, 1.0, 2.0, 3.5, 10.0, -0.5, -1.0, -2.5, 0.0, 1e-3, 100.0, np.inf, np.nan]
n = np.array([a for a in N_VALUES for _ in X_VALUES])
x = np.array([b for _ in N_VALUES for b in X_VALUES])
ZETA_X = [1.0, 1.5, 2.0, 3.0, 4.0, 0.5, 2.5, 10.0, 50.0, np.inf, np.nan]
ZETA_Q = [1.0, 0.5, 2.0, 10.0, -1.0, -2.0, -2.5, 0.0, 1e3, np.inf]
zx = np.array([a for a in ZETA_X for _ in ZETA_Q])
zq = np.array([b for _ in ZETA_X for b in ZETA_Q])
NEXT = [0.0, -0.0, 1.0, -1.0, 1e-30, 1e-45, 3.0, np.inf, -np.inf, np.nan, 65504.0, 1e38]
na = np.array([a for a in NEXT for _ in NEXT])
nb = np.array([b for _ in NEXT for b in NEXT])
for dtype in REAL:
    add_jax(f"polygamma_{dtype}", "polygamma", lax.polygamma,
            [typed(n, dtype), typed(x, dtype)])
    add_jax(f"zeta_{dtype}", "zeta", lax.zeta, [typed(zx, dtype), typed(zq, dtype)])
    add_jax(f"next_after_{dtype}", "next_after", lax.nextafter,
            [typed(na, dtype), typed(nb, dtype)])

# Ops JAX does not emit: hand-written modules.
IS_INF = """module @is_inf {{
  func.func public @main(%arg0: tensor<{n}x{t}>) -> (tensor<{n}xi1>, tensor<{n}xi1>, tensor<{n}xi1>) {{
    %0 = chlo.is_inf %arg0 : tensor<{n}x{t}> -> tensor<{n}xi1>
    %1 = chlo.is_neg_inf %arg0 : tensor<{n}x{t}> -> tensor<{n}xi1>
    %2 = chlo.is_pos_inf %arg0 : tensor<{n}x{t}> -> tensor<{n}xi1>
    return %0, %1, %2 : tensor<{n}xi1>, tensor<{n}xi1>, tensor<{n}xi1>
  }}
}}
"""
MLIR_TYPES = {"float16": "f16", "bfloat16": "bf16", "float32": "f32", "float64": "f64"}
for dtype in REAL:
    v = typed(UNARY_INPUT, dtype)
    add_text(f"is_inf_{dtype}", "is_inf", IS_INF.format(n=len(v), t=MLIR_TYPES[dtype]), [v])

BROADCAST = """module @broadcast {
  func.func public @main(%a: tensor<2x3xf32>, %b: tensor<3xf32>, %c: tensor<f32>, %d: tensor<2x1xf32>, %i: tensor<2x3xi32>, %j: tensor<3xi32>, %p: tensor<3xi1>) -> (tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xi32>, tensor<2x3xi32>, tensor<2x3xi32>, tensor<2x3xi1>, tensor<2x3xi1>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xi32>, tensor<2x3xi32>) {
    %0 = chlo.broadcast_add %a, %b : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
    %1 = chlo.broadcast_subtract %c, %a : (tensor<f32>, tensor<2x3xf32>) -> tensor<2x3xf32>
    %2 = chlo.broadcast_multiply %d, %b : (tensor<2x1xf32>, tensor<3xf32>) -> tensor<2x3xf32>
    %3 = chlo.broadcast_divide %a, %d : (tensor<2x3xf32>, tensor<2x1xf32>) -> tensor<2x3xf32>
    %4 = chlo.broadcast_maximum %b, %a {broadcast_dimensions = array<i64: 1>} : (tensor<3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>
    %5 = chlo.broadcast_atan2 %a, %c : (tensor<2x3xf32>, tensor<f32>) -> tensor<2x3xf32>
    %6 = chlo.broadcast_and %i, %j : (tensor<2x3xi32>, tensor<3xi32>) -> tensor<2x3xi32>
    %7 = chlo.broadcast_shift_right_arithmetic %i, %j : (tensor<2x3xi32>, tensor<3xi32>) -> tensor<2x3xi32>
    %8 = chlo.broadcast_remainder %i, %j : (tensor<2x3xi32>, tensor<3xi32>) -> tensor<2x3xi32>
    %9 = chlo.broadcast_compare %a, %b {comparison_direction = #chlo<comparison_direction LT>} : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xi1>
    %10 = chlo.broadcast_compare %a, %c {comparison_direction = #chlo<comparison_direction GE>, compare_type = #chlo<comparison_type TOTALORDER>} : (tensor<2x3xf32>, tensor<f32>) -> tensor<2x3xi1>
    %11 = chlo.broadcast_select %p, %a, %b : (tensor<3xi1>, tensor<2x3xf32>, tensor<3xf32>) -> tensor<2x3xf32>
    %12 = chlo.broadcast_power %a, %d : (tensor<2x3xf32>, tensor<2x1xf32>) -> tensor<2x3xf32>
    %13 = "chlo.constant_like"(%a) {value = 2.5 : f32} : (tensor<2x3xf32>) -> tensor<2x3xf32>
    %14 = "chlo.constant_like"(%i) {value = -7 : i32} : (tensor<2x3xi32>) -> tensor<2x3xi32>
    %15 = chlo.broadcast_minimum %i, %j : (tensor<2x3xi32>, tensor<3xi32>) -> tensor<2x3xi32>
    return %0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15 : tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xi32>, tensor<2x3xi32>, tensor<2x3xi32>, tensor<2x3xi1>, tensor<2x3xi1>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xi32>, tensor<2x3xi32>
  }
}
"""
add_text("broadcast_binary", "broadcast", BROADCAST, [
    np.array([[1.5, -2.0, np.nan], [0.0, -0.0, 4.0]], np.float32),
    np.array([3.0, -0.0, 2.0], np.float32),
    np.array(0.5, np.float32),
    np.array([[2.0], [-3.0]], np.float32),
    np.array([[-7, 12, 100], [5, -1, 2**30]], np.int32),
    np.array([3, 1, 5], np.int32),
    np.array([True, False, True]),
])

MULHI = """module @mulhi {{
  func.func public @main(%a: tensor<{n}x{t}>, %b: tensor<{n}x{t}>) -> tensor<{n}x{t}> {{
    %0 = "chlo.mulhi"(%a, %b) : (tensor<{n}x{t}>, tensor<{n}x{t}>) -> tensor<{n}x{t}>
    return %0 : tensor<{n}x{t}>
  }}
}}
"""
for dtype, t in [("int8", "i8"), ("int32", "i32"), ("uint32", "ui32"), ("int64", "i64"),
                 ("uint64", "ui64")]:
    info = np.iinfo(dtype)
    edges = [0, 1, -1, 2, 3, info.max, info.min, info.max // 2 + 1, 12345, -54321]
    bits = info.bits
    edges = np.array([v % 2**bits for v in edges], dtype=f"uint{bits}").view(dtype)
    a = np.repeat(edges, len(edges))
    b = np.tile(edges, len(edges))
    add_text(f"mulhi_{dtype}", "mulhi", MULHI.format(n=len(a), t=t), [a, b])

with open(os.path.join(HERE, "cases.json"), "w") as f:
    json.dump(cases, f, indent=0)
print(len(cases), "cases")
