#!/usr/bin/env python3
"""Acceptance test of the xla_rs PJRT plugin (crates/xla-pjrt) through JAX.

Every case is a real JAX program with seeded inputs. It runs on an `xla_rs`
device and on a `cpu` (XLA:CPU) device in the same process (inputs placed with
`jax.device_put(args, dev)`, jit following the data, under
`jax.default_device(dev)`), checks that the outputs really live on that device,
and compares:

  xla_rs vs cpu      same tree, shapes and dtypes; values within the dtype's
                     tolerance (exact for integers, bools and random bits)
  xla_rs vs numpy    where the case has an independent numpy/scipy reference
  cpu vs numpy       the same reference on XLA:CPU: a failure there is a bug
                     of this script (reported as "reference check")

Besides the programs written here (math, reductions, linear algebra, control
flow, gathers/scatters, convolutions, random numbers, training loops, numerical
edge cases, the runtime API), every program of benches/models.py, slow.py and
grads.py runs as a case (`models.gpt2_block`, ...), compared with XLA:CPU.

Negative cases (`neg_*`) check that what the plugin does not support raises a
Python exception instead of crashing the process, and record what happened
(shown after PASS).

Each case runs in its own child process by default, so a crash (signal) or a
hang (--timeout) in one case is reported, with the sub-step it happened in,
and the others still run.

Usage (from the repository root):

    cargo build --release -p xla-pjrt
    XLA_RS_PJRT_LIBRARY=target/release/libxla_pjrt.so JAX_PLATFORMS=xla_rs,cpu \\
        .venv/bin/python tests/pjrt/check_plugin.py
    .venv/bin/python tests/pjrt/check_plugin.py --list
    .venv/bin/python tests/pjrt/check_plugin.py -k linalg,scan -v
    .venv/bin/python tests/pjrt/check_plugin.py --no-isolate      # one process, faster
    .venv/bin/python tests/pjrt/check_plugin.py --self-test       # both sides on XLA:CPU
                                                                  # (checks this script)

Without an installed plugin package, the script puts the checkout's python/
folder on sys.path, so `jax_plugins.xla_rs` is found there; the library then
comes from $XLA_RS_PJRT_LIBRARY or target/release/libxla_pjrt.so.

Exit status: 0 when every case passes (skips allowed), 1 when one fails,
2 when the xla_rs backend cannot be initialized.
"""
import argparse
import contextlib
import io
import json
import os
import signal
import subprocess
import sys
import time
import traceback
import warnings
import zlib

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))
TARGET = "xla_rs"
REF = "cpu"
RESULT_TAG = "@@RESULT "


def parse_args(argv=None):
    ap = argparse.ArgumentParser(description="Acceptance test of the xla_rs PJRT plugin through JAX.")
    ap.add_argument("-k", dest="filter", default=None,
                    help="run only cases whose name contains one of these comma-separated strings")
    ap.add_argument("--list", action="store_true", help="list the cases and exit")
    ap.add_argument("-v", "--verbose", action="store_true",
                    help="print full messages and tracebacks (and children's output)")
    ap.add_argument("--no-isolate", dest="isolate", action="store_false",
                    help="run every case in this process (a crash then stops the run)")
    ap.add_argument("--timeout", type=float, default=900.0, help="seconds per case (isolated runs)")
    ap.add_argument("--self-test", action="store_true",
                    help="run the 'xla_rs' side on a second XLA:CPU device: checks this script")
    ap.add_argument("--worker", default=None, help=argparse.SUPPRESS)
    return ap.parse_args(argv)


ARGS = parse_args()

# --- environment: before jax is imported ----------------------------------------------
if ARGS.self_test:
    os.environ["JAX_PLATFORMS"] = "cpu"
    flags = os.environ.get("XLA_FLAGS", "")
    if "xla_force_host_platform_device_count" not in flags:
        os.environ["XLA_FLAGS"] = (flags + " --xla_force_host_platform_device_count=2").strip()
else:
    os.environ.setdefault("JAX_PLATFORMS", f"{TARGET},{REF}")
    # Two devices per backend, for the multi-device case (pmap); every other
    # case uses the first device.
    flags = os.environ.get("XLA_FLAGS", "")
    if "xla_force_host_platform_device_count" not in flags:
        os.environ["XLA_FLAGS"] = (flags + " --xla_force_host_platform_device_count=2").strip()
# The checkout's plugin module, when no installed one shadows it (appended: an
# installed jax_plugins.xla_rs comes first on sys.path).
sys.path.append(os.path.join(REPO, "python"))
sys.path.append(os.path.join(REPO, "benches"))

import numpy as np  # noqa: E402
import jax  # noqa: E402
import jax.numpy as jnp  # noqa: E402
from jax import lax  # noqa: E402

try:
    import ml_dtypes  # noqa: E402
except ImportError:  # pragma: no cover (jax depends on it)
    ml_dtypes = None


# --- outcomes -------------------------------------------------------------------------

class Skip(Exception):
    """A case that cannot run here (a missing optional package, an API this
    jax lacks)."""


class CaseFailure(AssertionError):
    """A wrong result."""


class SideError(Exception):
    """A program raised on one side: `side` is the backend ("xla_rs" or "cpu")."""

    def __init__(self, side, exc):
        self.side = side
        self.exc = exc
        super().__init__(f"{side} raised {type(exc).__name__}: {exc}")


# --- comparisons ----------------------------------------------------------------------

# (rtol, atol) per dtype when the case gives none; a case's rtol/atol raise these.
DEFAULT_TOL = {
    "float64": (1e-10, 1e-12),
    "complex128": (1e-10, 1e-12),
    "float32": (1e-5, 1e-6),
    "complex64": (1e-5, 1e-6),
    "float16": (2e-3, 1e-3),
    "bfloat16": (1.6e-2, 1e-2),
}
LOW_PRECISION_TOL = (0.13, 0.1)  # float8 and friends


def _is_exact_kind(dt):
    dt = np.dtype(dt)
    if dt == np.bool_ or np.issubdtype(dt, np.integer):
        return True
    return ml_dtypes is not None and dt.name in ("int4", "uint4", "int2", "uint2")


def _as_compare_array(a):
    a = np.asarray(a)
    dt = a.dtype
    if dt == np.bool_ or np.issubdtype(dt, np.integer):
        return a
    if np.issubdtype(dt, np.complexfloating):
        return a.astype(np.complex128)
    if np.issubdtype(dt, np.floating):
        return a.astype(np.float64)
    # ml_dtypes: bfloat16, float8_*, int4, ...
    if _is_exact_kind(dt):
        return a.astype(np.int64)
    return a.astype(np.float64)


def _paths(tree):
    flat, _ = jax.tree_util.tree_flatten_with_path(tree)
    return [(jax.tree_util.keystr(p) or "<root>", leaf) for p, leaf in flat]


def compare(got, want, *, rtol=None, atol=None, exact=False, check_dtype=True,
            check_structure=True, scaled_atol=None, label=""):
    """Compares two pytrees of arrays; returns a list of problems (strings).

    `want` may hold only some of `got`'s leaves when check_structure is False
    (a numpy reference for part of the outputs). scaled_atol: an absolute
    tolerance of scaled_atol * max|want| per leaf (for large programs)."""
    problems = []
    if check_structure:
        gs = jax.tree_util.tree_structure(got)
        ws = jax.tree_util.tree_structure(want)
        if gs != ws:
            return [f"{label}tree structure differs: {gs} vs {ws}"]
    got_leaves = dict(_paths(got))
    for path, w in _paths(want):
        if path not in got_leaves:
            problems.append(f"{label}{path}: missing from the outputs")
            continue
        g = np.asarray(got_leaves[path])
        w = np.asarray(w)
        if g.shape != w.shape:
            problems.append(f"{label}{path}: shape {g.shape} vs {w.shape}")
            continue
        if check_dtype and g.dtype != w.dtype:
            problems.append(f"{label}{path}: dtype {g.dtype} vs {w.dtype}")
            continue
        if g.size == 0:
            continue
        if _is_exact_kind(g.dtype) or _is_exact_kind(w.dtype):
            ga, wa = _as_compare_array(g).astype(np.int64), _as_compare_array(w).astype(np.int64)
            bad = ga != wa
            if bad.any():
                idx = tuple(int(i) for i in np.argwhere(bad)[0])
                problems.append(f"{label}{path}: {int(bad.sum())}/{g.size} elements differ "
                                f"(exact); first at {idx}: {ga[idx]!r} vs {wa[idx]!r}")
            continue
        ga, wa = _as_compare_array(g), _as_compare_array(w)
        if exact:
            r, a = 0.0, 0.0
        else:
            r, a = DEFAULT_TOL.get(g.dtype.name, LOW_PRECISION_TOL)
            r, a = max(r, rtol or 0.0), max(a, atol or 0.0)
            if scaled_atol:
                finite = np.abs(wa[np.isfinite(wa)])
                a = max(a, scaled_atol * float(finite.max()) if finite.size else 0.0)
        with np.errstate(invalid="ignore", over="ignore"):
            close = np.isclose(ga, wa, rtol=r, atol=a, equal_nan=True)
            if exact:  # equal, or both NaN (inf == inf; -0.0 == 0.0)
                close = (ga == wa) | (np.isnan(ga) & np.isnan(wa))
            if close.all():
                continue
            err = np.abs(ga - wa)
            excess = np.where(close, -np.inf, np.nan_to_num(err - a - r * np.abs(wa), nan=np.inf))
        idx = np.unravel_index(int(np.argmax(excess)), excess.shape)
        idx = tuple(int(i) for i in idx)
        gv, wv = ga[idx], wa[idx]
        with np.errstate(all="ignore"):
            rel = abs(gv - wv) / abs(wv) if wv != 0 else float("inf")
        problems.append(
            f"{label}{path}: {int((~close).sum())}/{g.size} elements differ "
            f"(rtol={r:g}, atol={a:g}); worst at {idx}: {gv!r} vs {wv!r} "
            f"(abs err {abs(gv - wv):.3g}, rel err {rel:.3g}); max abs err "
            f"{float(np.nanmax(np.where(np.isfinite(err), err, 0))):.3g}")
    return problems


# --- the per-case context -------------------------------------------------------------

class T:
    """What a case gets: the two devices, a seeded rng, run() and check()."""

    def __init__(self, name, target, ref, target_name, ref_name):
        self.name = name
        self.target = target
        self.ref = ref
        self.target_name = target_name
        self.ref_name = ref_name
        self.rng = np.random.default_rng(zlib.crc32(name.encode()))
        self.notes = []

    def note(self, text):
        self.notes.append(text)

    def step(self, text):
        """Marks the start of a sub-step on stderr: if the process crashes, the
        report's output tail names the step it crashed in."""
        print(f"[{self.name}] step: {text}", file=sys.stderr, flush=True)

    def sides(self):
        """[(side name, device)]: the plugin first."""
        return [(self.target_name, self.target), (self.ref_name, self.ref)]

    def on(self, side, dev, f, *args, **jit_kwargs):
        """f jitted on dev: inputs placed there, outputs checked to be there,
        returned as numpy trees."""
        try:
            with jax.default_device(dev):
                dargs = jax.device_put(args, dev)
                out = jax.jit(f, **jit_kwargs)(*dargs)
                out = jax.block_until_ready(out)
        except Exception as e:
            raise SideError(side, e) from e
        for path, leaf in _paths(out):
            if isinstance(leaf, jax.Array) and leaf.devices() != {dev}:
                raise CaseFailure(f"{side}: output {path} is on {leaf.devices()}, not on {dev}")
        try:
            return jax.device_get(out)
        except Exception as e:
            raise SideError(side, e) from e

    def run(self, f, *args, **jit_kwargs):
        """(plugin outputs, XLA:CPU outputs) of jax.jit(f, **jit_kwargs)(*args)."""
        got = self.on(self.target_name, self.target, f, *args, **jit_kwargs)
        ref = self.on(self.ref_name, self.ref, f, *args, **jit_kwargs)
        return got, ref

    def pair_problems(self, got, ref, *, rtol=None, atol=None, exact=False, scaled_atol=None):
        """got ~ ref: same tree, shapes and dtypes, values within tolerance."""
        return compare(got, ref, rtol=rtol, atol=atol, exact=exact, scaled_atol=scaled_atol,
                       label=f"{self.target_name} vs {self.ref_name}: ")

    def subprograms(self, programs):
        """Runs {label: callable} one by one, each raising on a problem;
        returns the problems of all of them (one failing does not hide the others)."""
        problems = []
        skipped = []
        for label, fn in programs.items():
            self.step(label)
            try:
                fn()
            except (CaseFailure, SideError) as e:
                problems.append(f"[{label}] {e}")
            except Skip as e:
                skipped.append(f"[{label}] {e}")
        if skipped and not problems:
            raise Skip("; ".join(skipped) + f" (the other {len(programs) - len(skipped)} passed)")
        return problems

    def probes(self, probes):
        """Runs {label: callable}, noting each one's value or the exception
        it raises (features a plugin may lack: recorded, not failures)."""
        for label, fn in probes.items():
            self.step(label)
            try:
                v = fn()
                self.note(f"{label}: ok{'' if v is None else f' ({v})'}")
            except Exception as e:  # noqa: BLE001 - recorded as a note
                self.note(f"{label}: raises {type(e).__name__}: {_first_line(e, 120)}")

    def want_problems(self, got, ref, want, *, rtol=None, atol=None, exact=False):
        """got ~ want and ref ~ want for the leaves `want` (numpy) has."""
        kw = dict(rtol=rtol, atol=atol, exact=exact, check_dtype=False, check_structure=False)
        return (compare(got, want, label=f"{self.target_name} vs numpy: ", **kw)
                + compare(ref, want, label=f"reference check ({self.ref_name} vs numpy): ", **kw))

    def check(self, got, ref, want=None, *, rtol=None, atol=None, exact=False,
              want_rtol=None, want_atol=None):
        """Raises CaseFailure unless got ~ ref and, when `want` (numpy) is
        given, got ~ want and ref ~ want (with want_rtol/want_atol if given)."""
        problems = self.pair_problems(got, ref, rtol=rtol, atol=atol, exact=exact)
        if want is not None:
            problems += self.want_problems(
                got, ref, want, exact=exact, rtol=rtol if want_rtol is None else want_rtol,
                atol=atol if want_atol is None else want_atol)
        if problems:
            raise CaseFailure("\n".join(problems))

    def run_check(self, f, *args, want=None, rtol=None, atol=None, exact=False,
                  want_rtol=None, want_atol=None, **jit_kwargs):
        got, ref = self.run(f, *args, **jit_kwargs)
        self.check(got, ref, want, rtol=rtol, atol=atol, exact=exact,
                   want_rtol=want_rtol, want_atol=want_atol)
        return got, ref


CASES = {}


def case(fn):
    """Registers a case: its name is the function's name without `case_`."""
    CASES[fn.__name__[len("case_"):]] = fn
    return fn


f32, f64, i32 = np.float32, np.float64, np.int32


def normal(t, *shape, scale=1.0, dtype=f32):
    return (t.rng.standard_normal(shape) * scale).astype(dtype)


# ======================================================================================
# Cases
# ======================================================================================

@case
def case_transfer_dtypes(t):
    """device_put / device_get round trips of every common dtype, scalars,
    zero-size and non-contiguous arrays, a 64 MiB array, copies between backends"""
    dts = [np.float32, np.float64, np.float16, np.int8, np.int16, np.int32, np.int64,
           np.uint8, np.uint16, np.uint32, np.uint64, np.bool_, np.complex64]
    if ml_dtypes is not None:
        dts.append(ml_dtypes.bfloat16)
    problems = []
    for dt in dts:
        x = (t.rng.standard_normal((7, 5)) * 50).astype(dt)
        want = x.astype(jax.dtypes.canonicalize_dtype(x.dtype))  # x64 disabled: 64-bit -> 32
        for side, dev in t.sides():
            try:
                back = np.asarray(jax.device_put(x, dev))
            except Exception as e:
                raise SideError(side, e) from e
            problems += compare(back, want, exact=True, label=f"{side} {np.dtype(dt).name}: ")
    x = normal(t, 64, 48)
    specials = {
        "scalar": np.float32(3.5), "int_scalar": np.int32(-7), "zero_size": np.zeros((0, 4), f32),
        "transposed_view": x.T, "strided_view": x[::3, 1::2], "fortran": np.asfortranarray(x),
        "big_64MiB": t.rng.standard_normal(1 << 24).astype(f32),
        "specials": np.array([np.nan, np.inf, -np.inf, -0.0, 1e-45, 3.4e38], f32),
    }
    for key, v in specials.items():
        for side, dev in t.sides():
            try:
                back = np.asarray(jax.device_put(v, dev))
            except Exception as e:
                raise SideError(side, e) from e
            problems += compare(back, np.asarray(v), exact=True, label=f"{side} {key}: ")
    # between the backends, both ways, and a jitted computation after the copy
    y = normal(t, 33, 17)
    a = jax.device_put(y, t.target)
    b = jax.device_put(a, t.ref)
    c = jax.device_put(b, t.target)
    if b.devices() != {t.ref} or c.devices() != {t.target}:
        problems.append(f"cross-backend copies landed on {b.devices()} / {c.devices()}")
    problems += compare(np.asarray(b), y, exact=True, label=f"{t.target_name}->{t.ref_name}: ")
    problems += compare(np.asarray(c), y, exact=True, label=f"{t.ref_name}->{t.target_name}: ")
    try:
        d = np.asarray(jax.jit(lambda z: z * 2)(c))
    except Exception as e:
        raise SideError(t.target_name, e) from e
    problems += compare(d, y * 2, exact=True, label="jit after copy: ")
    if problems:
        raise CaseFailure("\n".join(problems))


@case
def case_elementwise_float(t):
    """exp, log, tanh, sin, cos, erf, sqrt, rsqrt, pow, sigmoid, expm1, log1p,
    atan2, floor/round, division, gelu on f32[256,384]"""
    import scipy.special as sp
    x = normal(t, 256, 384)
    y = t.rng.uniform(0.1, 3.0, (256, 384)).astype(f32)

    def f(x, y):
        return {
            "exp": jnp.exp(x), "log": jnp.log(y), "tanh": jnp.tanh(x), "sin": jnp.sin(3 * x),
            "cos": jnp.cos(x), "erf": jax.scipy.special.erf(x), "sqrt": jnp.sqrt(y),
            "rsqrt": lax.rsqrt(y), "pow": y ** x, "sigmoid": jax.nn.sigmoid(x),
            "expm1": jnp.expm1(x), "log1p": jnp.log1p(y), "atan2": jnp.arctan2(x, y),
            "floor": jnp.floor(x * 10), "round": jnp.round(x * 10), "div": x / y,
            "max": jnp.maximum(x, y), "abs_sign": jnp.abs(x) * jnp.sign(x),
            "gelu": jax.nn.gelu(x, approximate=True), "square": jnp.square(x) - 2 * x + 1,
        }

    X, Y = x.astype(f64), y.astype(f64)
    x10 = (x * f32(10)).astype(f64)  # the f32 product, as the program has it
    want = {
        "exp": np.exp(X), "log": np.log(Y), "tanh": np.tanh(X), "sin": np.sin(3 * X),
        "cos": np.cos(X), "erf": sp.erf(X), "sqrt": np.sqrt(Y), "rsqrt": 1 / np.sqrt(Y),
        "pow": Y ** X, "sigmoid": 1 / (1 + np.exp(-X)), "expm1": np.expm1(X),
        "log1p": np.log1p(Y), "atan2": np.arctan2(X, Y), "floor": np.floor(x10),
        "round": np.round(x10), "div": X / Y, "max": np.maximum(X, Y), "abs_sign": X,
        "gelu": 0.5 * X * (1 + np.tanh(np.sqrt(2 / np.pi) * (X + 0.044715 * X ** 3))),
        "square": X * X - 2 * X + 1,
    }
    t.run_check(f, x, y, want=want, rtol=2e-5, atol=2e-6)


@case
def case_elementwise_int(t):
    """int32/uint8/int8 arithmetic with wrap-around, floor division and remainder
    with negative operands, bit operations, shifts, popcount, clz, conversions"""
    a = t.rng.integers(-1000, 1000, (64, 100)).astype(i32)
    b = t.rng.integers(1, 50, (64, 100)).astype(i32) * t.rng.choice([-1, 1], (64, 100)).astype(i32)
    big = t.rng.integers(-2 ** 31, 2 ** 31, (64, 100), dtype=np.int64).astype(i32)
    u = t.rng.integers(0, 256, (64, 100)).astype(np.uint8)
    s8 = t.rng.integers(-128, 128, (64, 100)).astype(np.int8)
    xf = (t.rng.standard_normal((64, 100)) * 100).astype(f32)
    z = np.zeros_like(a)

    def f(a, b, big, u, s8, xf, z):
        return {
            "add": a + b, "mul": a * b, "floordiv": a // b, "mod": a % b, "rem": lax.rem(a, b),
            "and": a & b, "or": a | b, "xor": a ^ b, "not": ~a, "shl": a << 3,
            "shr_arith": a >> 2, "shr_logical": lax.shift_right_logical(big, 5),
            "abs": jnp.abs(a), "neg": -a, "sign": jnp.sign(a), "minmax": jnp.minimum(a, b) + jnp.maximum(a, b),
            "clip": jnp.clip(a, -300, 300), "wrap_mul": big * big, "wrap_add": big + big,
            "u8_add": u + u, "u8_mul": u * np.uint8(3), "i8_mul": s8 * np.int8(5),
            "popcnt": lax.population_count(big), "clz": lax.clz(big),
            "f2i": xf.astype(jnp.int32), "i2f": big.astype(jnp.float32),
            "f2u8": jnp.clip(jnp.abs(xf), 0, 255).astype(jnp.uint8), "bool2i": (a > b).astype(jnp.int32),
            # XLA defines x / 0 = -1 and x % 0 = x: compared with XLA:CPU only
            "div0": lax.div(a, z), "rem0": lax.rem(a, z),
        }

    with np.errstate(over="ignore"):
        ub = big.view(np.uint32)
        clz = np.where(big == 0, 32, 31 - np.floor(np.log2(np.maximum(ub.astype(f64), 1))).astype(i32))
        want = {
            "add": a + b, "mul": a * b, "floordiv": a // b, "mod": a % b, "rem": np.fmod(a, b),
            "and": a & b, "or": a | b, "xor": a ^ b, "not": ~a, "shl": a << 3, "shr_arith": a >> 2,
            "shr_logical": (ub >> 5).view(i32), "abs": np.abs(a), "neg": -a, "sign": np.sign(a),
            "minmax": np.minimum(a, b) + np.maximum(a, b), "clip": np.clip(a, -300, 300),
            "wrap_mul": big * big, "wrap_add": big + big, "u8_add": u + u, "u8_mul": u * np.uint8(3),
            "i8_mul": s8 * np.int8(5), "popcnt": np.bitwise_count(ub).astype(i32),
            "clz": clz.astype(i32), "f2i": np.trunc(xf).astype(i32), "i2f": big.astype(f32),
            "f2u8": np.clip(np.abs(xf), 0, 255).astype(np.uint8), "bool2i": (a > b).astype(i32),
        }
    t.run_check(f, a, b, big, u, s8, xf, z, want=want, exact=True)


@case
def case_compare_where(t):
    """comparisons, isnan/isinf/isfinite, where, select_n, logical ops, NaN-propagating
    maximum and nan_to_num on f32 with NaN, inf and ties"""
    x = normal(t, 128, 96)
    y = normal(t, 128, 96)
    y[::7] = x[::7]  # ties
    x[3, :10] = np.nan
    x[5, :5] = np.inf
    y[6, :5] = -np.inf
    k = t.rng.integers(0, 3, (128, 96)).astype(i32)

    def f(x, y, k):
        return {
            "lt": x < y, "le": x <= y, "eq": x == y, "ne": x != y, "gt": x > y, "ge": x >= y,
            "isnan": jnp.isnan(x), "isinf": jnp.isinf(x), "isfinite": jnp.isfinite(y),
            "where": jnp.where(x > y, x, y), "nan_to_zero": jnp.where(jnp.isnan(x), 0.0, x),
            "select_n": lax.select_n(k, x, y, x - y),
            "land": (x > 0) & (y > 0), "lor": (x > 0) | (y > 0), "lxor": (x > 0) ^ (y > 0),
            "lnot": ~(x > y), "maximum": jnp.maximum(x, y), "minimum": jnp.minimum(x, y),
            "nan_to_num": jnp.nan_to_num(x, nan=-1.0, posinf=9.0), "count": jnp.sum(x > y),
        }

    with np.errstate(invalid="ignore"):
        want = {
            "lt": x < y, "le": x <= y, "eq": x == y, "ne": x != y, "gt": x > y, "ge": x >= y,
            "isnan": np.isnan(x), "isinf": np.isinf(x), "isfinite": np.isfinite(y),
            "where": np.where(x > y, x, y), "nan_to_zero": np.where(np.isnan(x), 0.0, x).astype(f32),
            "select_n": np.choose(k, [x, y, x - y]),
            "land": (x > 0) & (y > 0), "lor": (x > 0) | (y > 0), "lxor": (x > 0) ^ (y > 0),
            "lnot": ~(x > y), "maximum": np.maximum(x, y), "minimum": np.minimum(x, y),
            "nan_to_num": np.nan_to_num(x, nan=-1.0, posinf=9.0), "count": np.int32(np.sum(x > y)),
        }
    t.run_check(f, x, y, k, want=want, exact=True)


@case
def case_reductions(t):
    """sum/max/min/mean/prod/var over axes, argmax/argmin (with ties), any/all,
    logsumexp, int sums, a 4M-element sum"""
    x = normal(t, 64, 128, 32)
    near1 = (1 + 0.01 * t.rng.standard_normal((64, 128, 32))).astype(f32)
    ties = t.rng.integers(0, 4, (50, 40)).astype(i32)
    big = normal(t, 1 << 22)

    def f(x, near1, ties, big):
        return {
            "sum0": jnp.sum(x, axis=0), "sum12": jnp.sum(x, axis=(1, 2)), "sum_all": jnp.sum(x),
            "max_last": jnp.max(x, axis=-1), "min1": jnp.min(x, axis=1), "mean0": jnp.mean(x, axis=0),
            "prod": jnp.prod(near1, axis=2), "var": jnp.var(x, axis=1), "std": jnp.std(x, axis=(0, 2)),
            "argmax1": jnp.argmax(x, axis=1), "argmin0": jnp.argmin(x, axis=0),
            "argmax_ties": jnp.argmax(ties, axis=1), "argmin_ties": jnp.argmin(ties, axis=0),
            "any": jnp.any(x > 3.5, axis=2), "all": jnp.all(x > -3.5, axis=0),
            "logsumexp": jax.nn.logsumexp(x, axis=-1), "int_sum": jnp.sum(ties, axis=0),
            "int_max": jnp.max(ties), "big_sum": jnp.sum(big), "big_max": jnp.max(big),
        }

    X = x.astype(f64)
    want = {
        "sum0": X.sum(0), "sum12": X.sum((1, 2)), "sum_all": X.sum(), "max_last": x.max(-1),
        "min1": x.min(1), "mean0": X.mean(0), "prod": near1.astype(f64).prod(2), "var": X.var(1),
        "std": X.std((0, 2)), "argmax1": x.argmax(1).astype(i32), "argmin0": x.argmin(0).astype(i32),
        "argmax_ties": ties.argmax(1).astype(i32), "argmin_ties": ties.argmin(0).astype(i32),
        "any": (x > 3.5).any(2), "all": (x > -3.5).all(0),
        "logsumexp": np.log(np.exp(X).sum(-1)), "int_sum": ties.sum(0).astype(i32),
        "int_max": np.int32(ties.max()), "big_max": big.max(),
    }
    got, ref = t.run(f, x, near1, ties, big)
    # a 4M-element f32 sum: the summation order alone moves it by ~0.1
    big_got, big_ref = got.pop("big_sum"), ref.pop("big_sum")
    problems = t.pair_problems(big_got, big_ref, rtol=1e-4, atol=0.5)
    problems += t.want_problems(big_got, big_ref, big.astype(f64).sum(), rtol=1e-4, atol=0.5)
    try:
        t.check(got, ref, want, rtol=1e-4, atol=2e-3)
    except CaseFailure as e:
        problems.append(str(e))
    if problems:
        raise CaseFailure("\n".join(problems))


@case
def case_cumulative_windows(t):
    """cumsum/cumprod/cummax, max pool and average pool (lax.reduce_window),
    a strided window sum with padding"""
    x = normal(t, 16, 200)
    img = normal(t, 2, 16, 20, 3)

    def f(x, img):
        return {
            "cumsum": jnp.cumsum(x, axis=1), "cumsum0": jnp.cumsum(x, axis=0),
            "cumprod": jnp.cumprod(1 + 0.01 * x, axis=1), "cummax": lax.cummax(x, axis=1),
            "maxpool": lax.reduce_window(img, -jnp.inf, lax.max, (1, 2, 2, 1), (1, 2, 2, 1), "VALID"),
            "avgpool": lax.reduce_window(img, 0.0, lax.add, (1, 3, 3, 1), (1, 1, 1, 1), "SAME") / 9.0,
            "winsum": lax.reduce_window(x, 0.0, lax.add, (4, 5), (2, 3), ((1, 2), (0, 4))),
        }

    X = x.astype(f64)
    I = img.astype(f64)
    mp = I.reshape(2, 8, 2, 10, 2, 3).max(axis=(2, 4))
    pad = np.pad(I, ((0, 0), (1, 1), (1, 1), (0, 0)))
    avg = sum(pad[:, i:i + 16, j:j + 20, :] for i in range(3) for j in range(3)) / 9.0
    xp = np.pad(X, ((1, 2), (0, 4)))
    rows = (xp.shape[0] - 4) // 2 + 1
    cols = (xp.shape[1] - 5) // 3 + 1
    ws = np.array([[xp[2 * r:2 * r + 4, 3 * c:3 * c + 5].sum() for c in range(cols)] for r in range(rows)])
    want = {"cumsum": X.cumsum(1), "cumsum0": X.cumsum(0), "cumprod": (1 + 0.01 * X).cumprod(1),
            "cummax": np.maximum.accumulate(x, axis=1), "maxpool": mp, "avgpool": avg, "winsum": ws}
    t.run_check(f, x, img, want=want, rtol=1e-4, atol=1e-4)


@case
def case_shapes_layout(t):
    """transpose, reshape, concatenate, pad (edge, interior, negative), rev,
    broadcast, iota, strided slices, tile/repeat, roll, dynamic_update_slice"""
    x = normal(t, 6, 10, 12)
    y = normal(t, 6, 4, 12)
    ints = np.arange(60, dtype=i32).reshape(6, 10)

    def f(x, y, ints):
        return {
            "transpose": jnp.transpose(x, (2, 0, 1)), "reshape": x.reshape(60, 12).T.reshape(4, 3, 60),
            "concat": jnp.concatenate([x, y], axis=1), "stack": jnp.stack([x[:, 0], y[:, 0]]),
            "pad": lax.pad(ints, 0, ((1, 2, 0), (-2, 3, 2))), "pad_edge": jnp.pad(x, ((0, 0), (2, 1), (0, 0)), mode="edge"),
            "rev": jnp.flip(x, axis=(0, 2)), "broadcast": jnp.broadcast_to(y[:, :1, :], (6, 5, 12)),
            "iota": lax.broadcasted_iota(jnp.int32, (4, 7), 1) * 10 + lax.broadcasted_iota(jnp.int32, (4, 7), 0),
            "slice": x[1:5:2, ::3, 11:2:-4], "tile": jnp.tile(ints[:2], (2, 3)), "repeat": jnp.repeat(ints[:, :3], 2, axis=0),
            "roll": jnp.roll(x, 3, axis=1), "dus": lax.dynamic_update_slice(x, y[:, :2, :5], (1, 4, 6)),
            "squeeze": jnp.squeeze(x[:, :1, :], 1)[None],
        }

    # lax.pad: rows 1 before, 2 after; columns 2 zeros between elements (28 wide),
    # the first 2 dropped (low -2), 3 zeros after -> 9 x 29
    inner = np.zeros((6, 28), i32)
    inner[:, ::3] = ints
    p = np.pad(np.pad(inner, ((0, 0), (0, 3)))[:, 2:], ((1, 2), (0, 0)))
    dus = x.copy()
    dus[:, 4:6, 6:11] = y[:, :2, :5]  # start (1, 4, 6) is clamped to (0, 4, 6): the update spans all 6 rows
    want = {
        "transpose": x.transpose(2, 0, 1), "reshape": x.reshape(60, 12).T.reshape(4, 3, 60),
        "concat": np.concatenate([x, y], 1), "stack": np.stack([x[:, 0], y[:, 0]]), "pad": p,
        "pad_edge": np.pad(x, ((0, 0), (2, 1), (0, 0)), mode="edge"), "rev": x[::-1, :, ::-1],
        "broadcast": np.broadcast_to(y[:, :1, :], (6, 5, 12)),
        "iota": (np.arange(7)[None, :] * 10 + np.arange(4)[:, None]).astype(i32),
        "slice": x[1:5:2, ::3, 11:2:-4], "tile": np.tile(ints[:2], (2, 3)), "repeat": np.repeat(ints[:, :3], 2, axis=0),
        "roll": np.roll(x, 3, axis=1), "dus": dus, "squeeze": x[:, 0, :][None],
    }
    t.run_check(f, x, y, ints, want=want, exact=True)


@case
def case_dot_general(t):
    """matmul, matvec, batched matmul, contractions over leading axes, einsum,
    int32 matmul (exact), a 512x512 f32 matmul"""
    a = normal(t, 64, 96)
    b = normal(t, 96, 48)
    v = normal(t, 96)
    A = normal(t, 8, 32, 24)
    B = normal(t, 8, 24, 16)
    C = normal(t, 24, 8, 16)
    ia = t.rng.integers(-50, 50, (20, 30)).astype(i32)
    ib = t.rng.integers(-50, 50, (30, 10)).astype(i32)
    big1 = normal(t, 512, 512)
    big2 = normal(t, 512, 512, scale=1 / np.sqrt(512))

    def f(a, b, v, A, B, C, ia, ib, big1, big2):
        return {
            "matmul": a @ b, "matvec": a @ v, "vecmat": v @ b, "bmm": A @ B,
            "lead": lax.dot_general(A, C, (((2,), (0,)), ((0,), (1,)))),
            "einsum": jnp.einsum("bij,jbk->bik", A, C), "outer": jnp.outer(v, v[:10]),
            "tensordot": jnp.tensordot(A, B, axes=([0, 2], [0, 1])), "vdot": jnp.vdot(v, v),
            "int": ia @ ib, "big": big1 @ big2,
        }

    D = lambda z: z.astype(f64)  # noqa: E731
    want = {
        "matmul": D(a) @ D(b), "matvec": D(a) @ D(v), "vecmat": D(v) @ D(b), "bmm": D(A) @ D(B),
        "lead": np.einsum("bij,jbk->bik", D(A), D(C)), "einsum": np.einsum("bij,jbk->bik", D(A), D(C)),
        "outer": np.outer(D(v), D(v[:10])), "tensordot": np.tensordot(D(A), D(B), axes=([0, 2], [0, 1])),
        "vdot": D(v) @ D(v), "int": ia @ ib, "big": D(big1) @ D(big2),
    }
    t.run_check(f, a, b, v, A, B, C, ia, ib, big1, big2, want=want, rtol=1e-4, atol=1e-4)


# --- linear algebra (LAPACK custom calls on the cpu platform) --------------------------

def _well_conditioned(t, *shape):
    n = shape[-1]
    g = t.rng.standard_normal(shape) / np.sqrt(n)
    return (g + 3 * np.eye(n)).astype(f32)


def _spd(t, *shape):
    n = shape[-1]
    g = t.rng.standard_normal(shape)
    return (g @ np.swapaxes(g, -1, -2) / n + np.eye(n)).astype(f32)


@case
def case_linalg_solve(t):
    """jnp.linalg.solve: 96x96 with 8 right-hand sides, and a batch of 4 32x32 systems"""
    A = _well_conditioned(t, 96, 96)
    b = normal(t, 96, 8)
    Ab = _well_conditioned(t, 4, 32, 32)
    bb = normal(t, 4, 32, 1)
    want = {"x": np.linalg.solve(A.astype(f64), b.astype(f64)),
            "xb": np.linalg.solve(Ab.astype(f64), bb.astype(f64))}
    t.run_check(lambda A, b, Ab, bb: {"x": jnp.linalg.solve(A, b), "xb": jnp.linalg.solve(Ab, bb)},
                A, b, Ab, bb, want=want, rtol=1e-4, atol=1e-5)


@case
def case_linalg_triangular_solve(t):
    """jax.scipy.linalg.solve_triangular (lower and upper, transposed) and cho_solve"""
    import scipy.linalg as sl
    S = _spd(t, 48, 48)
    L = np.linalg.cholesky(S.astype(f64)).astype(f32)
    b = normal(t, 48, 5)

    def f(L, b, S):
        return {"lower": jax.scipy.linalg.solve_triangular(L, b, lower=True),
                "upper_T": jax.scipy.linalg.solve_triangular(L.T, b, lower=False, trans="T"),
                "cho_solve": jax.scipy.linalg.cho_solve(jax.scipy.linalg.cho_factor(S, lower=True), b)}

    Ld, bd = L.astype(f64), b.astype(f64)
    want = {"lower": sl.solve_triangular(Ld, bd, lower=True),
            "upper_T": sl.solve_triangular(Ld.T, bd, lower=False, trans="T"),
            "cho_solve": np.linalg.solve(S.astype(f64), bd)}
    t.run_check(f, L, b, S, want=want, rtol=1e-4, atol=1e-5)


@case
def case_linalg_cholesky(t):
    """jnp.linalg.cholesky of a 64x64 SPD matrix and of a batch of 3 16x16"""
    S = _spd(t, 64, 64)
    Sb = _spd(t, 3, 16, 16)
    want = {"L": np.linalg.cholesky(S.astype(f64)), "Lb": np.linalg.cholesky(Sb.astype(f64))}
    t.run_check(lambda S, Sb: {"L": jnp.linalg.cholesky(S), "Lb": jnp.linalg.cholesky(Sb)},
                S, Sb, want=want, rtol=1e-4, atol=1e-5)


def _fix_signs(Q, R, sign_ref):
    """Flips column j of Q and row j of R where sign(diag R) differs from sign_ref."""
    s = np.sign(np.diagonal(R, axis1=-2, axis2=-1)) * sign_ref
    s = np.where(s == 0, 1, s)
    return Q * s[..., None, :], R * s[..., :, None]


@case
def case_linalg_qr(t):
    """jnp.linalg.qr (reduced) of 80x48 and of a batch 2x30x20: Q@R = A, Q orthonormal,
    R upper triangular, and Q, R equal to XLA:CPU's up to column signs"""
    A = normal(t, 80, 48)
    Ab = normal(t, 2, 30, 20)
    got, ref = t.run(lambda A, Ab: (jnp.linalg.qr(A), jnp.linalg.qr(Ab)), A, Ab)
    problems = []
    for label, (Qg, Rg), (Qr, Rr), M in (("A", got[0], ref[0], A), ("Ab", got[1], ref[1], Ab)):
        for side, (Q, R) in ((t.target_name, (Qg, Rg)), (t.ref_name, (Qr, Rr))):
            Qd, Rd = Q.astype(f64), R.astype(f64)
            n = R.shape[-1]
            problems += compare(Qd @ Rd, M.astype(f64), rtol=1e-4, atol=1e-4, check_dtype=False,
                                label=f"{side} {label} Q@R vs A: ")
            problems += compare(np.swapaxes(Qd, -1, -2) @ Qd, np.broadcast_to(np.eye(n), Rd.shape),
                                atol=1e-4, check_dtype=False, label=f"{side} {label} Q^T Q vs I: ")
            problems += compare(np.tril(Rd, -1), np.zeros_like(Rd), atol=1e-6, check_dtype=False,
                                label=f"{side} {label} tril(R, -1): ")
        sref = np.sign(np.diagonal(Rr, axis1=-2, axis2=-1))
        Qf, Rf = _fix_signs(Qg, Rg, sref)
        problems += compare((Qf, Rf), (Qr, Rr), rtol=1e-4, atol=1e-4,
                            label=f"{t.target_name} vs {t.ref_name} {label} (Q, R) up to signs: ")
    if problems:
        raise CaseFailure("\n".join(problems))


@case
def case_linalg_svd(t):
    """jnp.linalg.svd: singular values of 64x40 and of a batch 3x12x20 against numpy,
    and the full decomposition U diag(s) Vt = A"""
    A = normal(t, 64, 40)
    Ab = normal(t, 3, 12, 20)

    def f(A, Ab):
        U, s, Vt = jnp.linalg.svd(A, full_matrices=False)
        return {"s": jnp.linalg.svd(A, compute_uv=False), "sb": jnp.linalg.svd(Ab, compute_uv=False),
                "usv": (U * s) @ Vt, "UtU": U.T @ U}

    want = {"s": np.linalg.svd(A.astype(f64), compute_uv=False),
            "sb": np.linalg.svd(Ab.astype(f64), compute_uv=False), "usv": A.astype(f64),
            "UtU": np.eye(40)}
    t.run_check(f, A, Ab, want=want, rtol=1e-4, atol=1e-4)


@case
def case_linalg_eigh(t):
    """jnp.linalg.eigh of a symmetric 64x64 and a batch 4x10x10: eigenvalues against
    numpy, V diag(w) V^T = S and V^T V = I"""
    g = t.rng.standard_normal((64, 64))
    S = ((g + g.T) / 2).astype(f32)
    gb = t.rng.standard_normal((4, 10, 10))
    Sb = ((gb + np.swapaxes(gb, 1, 2)) / 2).astype(f32)

    def f(S, Sb):
        w, V = jnp.linalg.eigh(S)
        return {"w": w, "wb": jnp.linalg.eigvalsh(Sb), "recon": (V * w) @ V.T, "VtV": V.T @ V}

    want = {"w": np.linalg.eigvalsh(S.astype(f64)), "wb": np.linalg.eigvalsh(Sb.astype(f64)),
            "recon": S.astype(f64), "VtV": np.eye(64)}
    t.run_check(f, S, Sb, want=want, rtol=1e-4, atol=2e-4)


@case
def case_linalg_inv(t):
    """jnp.linalg.inv of a 64x64 matrix and a batch 5x8x8; pinv of 20x12"""
    A = _well_conditioned(t, 64, 64)
    Ab = _well_conditioned(t, 5, 8, 8)
    P = normal(t, 20, 12)
    want = {"inv": np.linalg.inv(A.astype(f64)), "invb": np.linalg.inv(Ab.astype(f64)),
            "pinv": np.linalg.pinv(P.astype(f64))}
    t.run_check(lambda A, Ab, P: {"inv": jnp.linalg.inv(A), "invb": jnp.linalg.inv(Ab), "pinv": jnp.linalg.pinv(P)},
                A, Ab, P, want=want, rtol=1e-4, atol=1e-5)


@case
def case_linalg_det(t):
    """jnp.linalg.det and slogdet of a 32x32 matrix and of a batch 6x8x8 (some negative)"""
    A = _well_conditioned(t, 32, 32)
    Ab = normal(t, 6, 8, 8, scale=0.5)

    def f(A, Ab):
        sign, logdet = jnp.linalg.slogdet(A)
        return {"det": jnp.linalg.det(A), "detb": jnp.linalg.det(Ab), "sign": sign, "logdet": logdet,
                "signb": jnp.linalg.slogdet(Ab)[0]}

    sign, logdet = np.linalg.slogdet(A.astype(f64))
    want = {"det": np.linalg.det(A.astype(f64)), "detb": np.linalg.det(Ab.astype(f64)),
            "sign": np.float32(sign), "logdet": logdet, "signb": np.linalg.slogdet(Ab.astype(f64))[0]}
    t.run_check(f, A, Ab, want=want, rtol=1e-3, atol=1e-4)


@case
def case_fft(t):
    """jnp.fft: fft and ifft of complex64, rfft/irfft, fft2 over the last two axes"""
    x = (t.rng.standard_normal((8, 256)) + 1j * t.rng.standard_normal((8, 256))).astype(np.complex64)
    r = normal(t, 8, 200)
    img = normal(t, 3, 32, 24)

    def f(x, r, img):
        return {"fft": jnp.fft.fft(x), "ifft": jnp.fft.ifft(x), "rfft": jnp.fft.rfft(r),
                "irfft": jnp.fft.irfft(jnp.fft.rfft(r), n=200), "fft2": jnp.fft.fft2(img),
                "abs": jnp.abs(x * x.conj() + 1j)}

    X = x.astype(np.complex128)
    want = {"fft": np.fft.fft(X), "ifft": np.fft.ifft(X), "rfft": np.fft.rfft(r.astype(f64)),
            "irfft": r.astype(f64), "fft2": np.fft.fft2(img.astype(f64)), "abs": np.abs(X * X.conj() + 1j)}
    t.run_check(f, x, r, img, want=want, rtol=1e-4, atol=2e-4)


@case
def case_float64_x64(t):
    """with jax.enable_x64: f64 exp/log/sin/tanh, f64 matmul and solve (dgesv),
    int64 arithmetic with wrap-around, uint64 shifts, int64 argmax and cumsum"""
    x = t.rng.standard_normal((64, 80))
    y = t.rng.uniform(0.1, 5, (64, 80))
    A = _well_conditioned(t, 40, 40).astype(f64)
    b = t.rng.standard_normal((40, 3))
    big = t.rng.integers(-2 ** 62, 2 ** 62, (64, 80), dtype=np.int64)
    u = t.rng.integers(0, 2 ** 63, (64, 80), dtype=np.uint64)

    def f(x, y, A, b, big, u):
        return {"exp": jnp.exp(x), "log": jnp.log(y), "sin": jnp.sin(x * 7), "tanh": jnp.tanh(x),
                "matmul": x @ y.T, "solve": jnp.linalg.solve(A, b), "mul": big * big, "add": big + big,
                "div": big // 12345, "shr": u >> np.uint64(7), "shl": u << np.uint64(3),
                "argmax": jnp.argmax(x, axis=1), "cumsum": jnp.cumsum(big // 1000, axis=1),
                "i2f": big.astype(jnp.float64), "sum": jnp.sum(x)}

    with np.errstate(over="ignore"):
        want = {"exp": np.exp(x), "log": np.log(y), "sin": np.sin(x * 7), "tanh": np.tanh(x),
                "matmul": x @ y.T, "solve": np.linalg.solve(A, b), "mul": big * big, "add": big + big,
                "div": big // 12345, "shr": u >> np.uint64(7), "shl": u << np.uint64(3),
                "argmax": x.argmax(1), "cumsum": np.cumsum(big // 1000, axis=1),
                "i2f": big.astype(f64), "sum": x.sum()}
    with jax.enable_x64(True):
        got, ref = t.run(f, x, y, A, b, big, u)
    for k in ("exp", "log", "sin", "tanh", "matmul", "solve", "i2f", "sum"):
        if got[k].dtype != np.float64:
            raise CaseFailure(f"{k}: dtype {got[k].dtype}, not float64 (x64 not in effect?)")
    t.check(got, ref, want, rtol=1e-12, atol=1e-12)


# --- autodiff, vmap, control flow -----------------------------------------------------

def _mlp_loss(params, x, y):
    h = jnp.tanh(x @ params["W1"] + params["b1"])
    out = h @ params["W2"] + params["b2"]
    return jnp.mean((out - y) ** 2)


@case
def case_grad_mlp(t):
    """jax.value_and_grad of a 2-layer tanh MLP's mean squared error (32 -> 64 -> 4,
    batch 128) against a float64 numpy backward pass"""
    params = {"W1": normal(t, 32, 64, scale=0.2), "b1": normal(t, 64, scale=0.1),
              "W2": normal(t, 64, 4, scale=0.2), "b2": normal(t, 4, scale=0.1)}
    x = normal(t, 128, 32)
    y = normal(t, 128, 4)

    want = _np_mlp_grad(params, x, y)
    t.run_check(jax.value_and_grad(_mlp_loss), params, x, y, want=want, rtol=1e-4, atol=1e-6)


@case
def case_pmap(t):
    """pmap over two devices with psum, axis_index and pmean (JAX lowers it as a
    shard_map over a 2-device mesh): every device's result on both backends"""
    x = normal(t, 2, 64)
    y = normal(t, 2, 16, 8)

    def f(x, y):
        s = jax.lax.psum(jnp.tanh(x), "i") + jax.lax.axis_index("i")
        m = jax.lax.pmean(y.sum(0), "i")
        return s, m

    outs = {}
    for side, dev in t.sides():
        devs = [d for d in dev.client.devices()][:2]
        if len(devs) < 2:
            raise Skip(f"{side} has {len(devs)} device(s); pmap needs 2")
        t.step(f"pmap on {side}")
        try:
            outs[side] = jax.tree.map(np.asarray, jax.pmap(f, axis_name="i", devices=devs)(x, y))
        except Exception as e:  # noqa: BLE001 - reported per side
            raise CaseFailure(f"{side} raised {type(e).__name__}: {str(e)[:300]}")
    X, Y = x.astype(f64), y.astype(f64)
    s = np.tanh(X).sum(0)
    want = (np.stack([s, s + 1]), np.broadcast_to(Y.sum(1).mean(0), (2, 8)))
    problems = compare(outs[t.target_name], outs[t.ref_name], rtol=1e-5, atol=1e-5,
                       check_dtype=False, label=f"{t.target_name} vs {t.ref_name}: ")
    for side in outs:
        problems += compare(outs[side], want, rtol=1e-4, atol=1e-4, check_dtype=False,
                            label=f"{side} vs numpy: ")
    if problems:
        raise CaseFailure("\n".join(problems))


@case
def case_shard_map(t):
    """jax.jit of a shard_map over a 2-device mesh (a matmul whose psum gives a
    replicated result, and a sharded elementwise result) on both backends:
    values and output shardings"""
    from jax.sharding import Mesh, NamedSharding, PartitionSpec as P
    x = normal(t, 8, 16)
    w = normal(t, 16, 4)

    def body(x, w):
        return jax.lax.psum(x @ w, "i"), jnp.tanh(x) * 3

    outs, specs = {}, {}
    for side, dev in t.sides():
        devs = dev.client.devices()[:2]
        if len(devs) < 2:
            raise Skip(f"{side} has {len(devs)} device(s); the mesh needs 2")
        mesh = Mesh(np.array(devs), ("i",))
        f = jax.jit(jax.shard_map(body, mesh=mesh, in_specs=(P("i"), P()), out_specs=(P(), P("i"))))
        t.step(f"shard_map on {side}")
        try:
            xs = jax.device_put(x, NamedSharding(mesh, P("i")))
            ws = jax.device_put(w, NamedSharding(mesh, P()))
            a, b = f(xs, ws)
            specs[side] = (a.sharding.spec, b.sharding.spec)
            outs[side] = (np.asarray(a), np.asarray(b))
        except Exception as e:  # noqa: BLE001 - reported per side
            raise CaseFailure(f"{side} raised {type(e).__name__}: {str(e)[:300]}")
    X, W = x.astype(f64), w.astype(f64)
    want = (X[:4] @ W + X[4:] @ W, np.tanh(X) * 3)
    problems = compare(outs[t.target_name], outs[t.ref_name], rtol=1e-5, atol=1e-5,
                       check_dtype=False, label=f"{t.target_name} vs {t.ref_name}: ")
    for side in outs:
        problems += compare(outs[side], want, rtol=1e-4, atol=1e-4, check_dtype=False,
                            label=f"{side} vs numpy: ")
    if specs[t.target_name] != specs[t.ref_name]:
        problems.append(f"output shardings {specs[t.target_name]} vs {specs[t.ref_name]}")
    if problems:
        raise CaseFailure("\n".join(problems))


@case
def case_vmap(t):
    """vmap of per-example gradients (logistic regression), of a per-example
    normalize-and-project, and a nested vmap (pairwise squared distances)"""
    w = normal(t, 20)
    X = normal(t, 64, 20)
    y = np.sign(t.rng.standard_normal(64)).astype(f32)
    M = normal(t, 7, 20)
    P = normal(t, 30, 5)

    def loss(w, x, y):
        return jnp.log1p(jnp.exp(-y * (w @ x)))

    def f(w, X, y, M, P):
        per_ex = jax.vmap(jax.grad(loss), in_axes=(None, 0, 0))(w, X, y)
        proj = jax.vmap(lambda a, M: M @ (a / jnp.linalg.norm(a)), in_axes=(0, None), out_axes=1)(X, M)
        d2 = jax.vmap(jax.vmap(lambda a, b: jnp.sum((a - b) ** 2), (None, 0)), (0, None))(P, P)
        return {"per_example_grad": per_ex, "proj": proj, "pairwise": d2}

    W, XX, Y, MM, PP = (z.astype(f64) for z in (w, X, y, M, P))
    s = 1 / (1 + np.exp(Y * (XX @ W)))
    want = {"per_example_grad": (-Y * s)[:, None] * XX,
            "proj": MM @ (XX / np.linalg.norm(XX, axis=1, keepdims=True)).T,
            "pairwise": ((PP[:, None, :] - PP[None, :, :]) ** 2).sum(-1)}
    t.run_check(f, w, X, y, M, P, want=want, rtol=1e-4, atol=1e-5)


@case
def case_scan_rnn(t):
    """lax.scan of a tanh recurrent cell (50 steps, batch 8, hidden 32) returning the
    final state and every state, and a reverse scan (suffix sums)"""
    Wh = normal(t, 32, 32, scale=0.2)
    Wx = normal(t, 16, 32, scale=0.3)
    b = normal(t, 32, scale=0.1)
    xs = normal(t, 50, 8, 16)
    h0 = np.zeros((8, 32), f32)

    def f(Wh, Wx, b, xs, h0):
        def cell(h, x):
            h = jnp.tanh(h @ Wh + x @ Wx + b)
            return h, h
        h, hs = lax.scan(cell, h0, xs)
        _, suffix = lax.scan(lambda c, x: (c + x, c + x), jnp.zeros(16), xs[:, 0], reverse=True)
        return {"h": h, "hs": hs, "suffix": suffix}

    h = h0.astype(f64)
    hs = []
    for x in xs.astype(f64):
        h = np.tanh(h @ Wh.astype(f64) + x @ Wx.astype(f64) + b.astype(f64))
        hs.append(h)
    want = {"h": h, "hs": np.stack(hs), "suffix": np.cumsum(xs[::-1, 0].astype(f64), 0)[::-1]}
    t.run_check(f, Wh, Wx, b, xs, h0, want=want, rtol=1e-4, atol=1e-5)


@case
def case_while_loop(t):
    """lax.while_loop: vmapped Collatz step counts (int32, batched predicate), Newton
    square roots with a runtime trip count, fori_loop power iteration"""
    n0 = t.rng.integers(1, 10000, 256).astype(i32)
    a = t.rng.uniform(0.5, 100, 300).astype(f32)
    S = _spd(t, 24, 24)

    def collatz(n):
        def body(c):
            n, k = c
            return jnp.where(n % 2 == 0, n // 2, 3 * n + 1), k + 1
        return lax.while_loop(lambda c: c[0] != 1, body, (n, jnp.int32(0)))[1]

    def newton(a, iters):
        def body(c):
            i, x = c
            return i + 1, 0.5 * (x + a / x)
        return lax.while_loop(lambda c: c[0] < iters, body, (jnp.int32(0), a))[1]

    def power(S):
        v = lax.fori_loop(0, 200, lambda i, v: (S @ v) / jnp.linalg.norm(S @ v), jnp.ones(S.shape[0]))
        return v @ S @ v

    def f(n0, a, iters, S):
        return {"collatz": jax.vmap(collatz)(n0), "sqrt": newton(a, iters), "eig": power(S)}

    def np_collatz(n):
        k = 0
        while n != 1:
            n = n // 2 if n % 2 == 0 else 3 * n + 1
            k += 1
        return k

    want = {"collatz": np.array([np_collatz(int(n)) for n in n0], i32), "sqrt": np.sqrt(a.astype(f64)),
            "eig": np.linalg.eigvalsh(S.astype(f64))[-1]}
    got, ref = t.run(f, n0, a, np.int32(30), S)
    t.check(got, ref, want, rtol=1e-5, atol=1e-5)


@case
def case_cond_switch(t):
    """lax.cond and lax.switch on runtime predicates / indices (one compiled program
    called with each branch, out-of-range indices clamped) and a vmapped cond"""
    x = normal(t, 40)
    preds = np.array([True, False, True, False] * 10)

    def f(x, p, k, preds):
        a = lax.cond(p > 0, lambda x: jnp.sin(x).sum(), lambda x: jnp.cos(x).max(), x)
        b = lax.switch(k, [lambda x: x * 2, lambda x: x - 1, lambda x: jnp.exp(x)], x)
        c = jax.vmap(lambda p, x: lax.cond(p, lambda x: x + 10, lambda x: -x, x))(preds, x)
        return {"cond": a, "switch": b, "vmapped_cond": c}

    X = x.astype(f64)
    branches = [X * 2, X - 1, np.exp(X)]
    vm = np.where(preds, X + 10, -X)
    jf = jax.jit(f)
    problems = []
    for p, k in ((1, 0), (-1, 1), (1, 2), (-1, 7), (1, -3)):
        want = {"cond": np.sin(X).sum() if p > 0 else np.cos(X).max(),
                "switch": branches[min(max(k, 0), 2)], "vmapped_cond": vm}
        got, ref = t.run(jf, x, np.int32(p), np.int32(k), preds)
        try:
            t.check(got, ref, want, rtol=1e-5, atol=1e-5)
        except CaseFailure as e:
            problems.append(f"p={p}, k={k}: {e}")
    if problems:
        raise CaseFailure("\n".join(problems))


@case
def case_sort_topk(t):
    """jnp.sort over both axes (with NaN), stable argsort with ties, lax.top_k,
    a two-operand lax.sort (keys, values), searchsorted"""
    x = normal(t, 16, 300)
    x[2, ::17] = np.nan
    ties = t.rng.integers(0, 10, (12, 100)).astype(i32)
    keys = t.rng.integers(0, 20, 500).astype(i32)
    vals = np.arange(500, dtype=f32)
    sorted_ref = np.sort(normal(t, 200))
    q = normal(t, 50)

    def f(x, ties, keys, vals, s, q):
        tv, ti = lax.top_k(jnp.nan_to_num(x, nan=-9.0), 5)
        sk, sv = lax.sort((keys, vals), num_keys=1, is_stable=True)
        return {"sort_last": jnp.sort(x, axis=-1), "sort_first": jnp.sort(x, axis=0),
                "argsort": jnp.argsort(ties, axis=-1, stable=True), "desc": -jnp.sort(-x[0]),
                "topk_v": tv, "topk_i": ti, "keys": sk, "vals": sv,
                "searchsorted": jnp.searchsorted(s, q)}

    xn = np.nan_to_num(x, nan=-9.0)
    order = np.argsort(-xn, axis=-1, kind="stable")[:, :5]
    perm = np.argsort(keys, kind="stable")
    want = {"sort_last": np.sort(x, -1), "sort_first": np.sort(x, 0),
            "argsort": np.argsort(ties, -1, kind="stable").astype(i32), "desc": -np.sort(-x[0]),
            "topk_v": np.take_along_axis(xn, order, -1), "topk_i": order.astype(i32),
            "keys": keys[perm], "vals": vals[perm], "searchsorted": np.searchsorted(sorted_ref, q).astype(i32)}
    t.run_check(f, x, ties, keys, vals, sorted_ref, q, want=want, exact=True)


@case
def case_gather(t):
    """x[idx] with negative indices, x[:, idx], point gathers, take_along_axis,
    dynamic_slice at runtime (clamped) offsets, a mode='fill' gather out of bounds"""
    x = normal(t, 100, 64)
    idx = t.rng.integers(-100, 100, 40).astype(i32)
    cols = t.rng.integers(0, 64, 30).astype(i32)
    r = t.rng.integers(0, 100, 25).astype(i32)
    c = t.rng.integers(0, 64, 25).astype(i32)
    oob = np.array([0, 5, 99, 100, 150, -101, 7], i32)

    def f(x, idx, cols, r, c, i, j, oob):
        return {"rows": x[idx], "cols": x[:, cols], "points": x[r, c],
                "take_along": jnp.take_along_axis(x, jnp.argsort(x, axis=1)[:, :5], axis=1),
                "dslice": lax.dynamic_slice(x, (i, j), (10, 8)),
                "dslice_clamped": lax.dynamic_slice(x, (i + 95, j - 70), (10, 8)),
                "fill": x.at[oob].get(mode="fill", fill_value=-1.0), "strided": x[2:90:3, ::-5]}

    i, j = 17, 33
    want = {"rows": x[idx], "cols": x[:, cols], "points": x[r, c],
            "take_along": np.sort(x, 1)[:, :5], "dslice": x[i:i + 10, j:j + 8],
            "dslice_clamped": x[90:100, 27:35],  # 112 clamped to 90; -37 wraps to 27 (jax) then fits
            "fill": np.stack([x[k] if 0 <= k < 100 else np.full(64, -1, f32) for k in oob]),
            "strided": x[2:90:3, ::-5]}
    t.run_check(f, x, idx, cols, r, c, np.int32(i), np.int32(j), oob, want=want, exact=True)


@case
def case_scatter(t):
    """x.at[idx].add with duplicate indices, .set (unique), .max, .min, .mul, 2-D
    point scatter-add, out-of-bounds updates dropped"""
    base = normal(t, 50, 8)
    idx = t.rng.integers(0, 50, 200).astype(i32)
    upd = normal(t, 200, 8)
    uidx = t.rng.permutation(50)[:20].astype(i32)
    uupd = normal(t, 20, 8)
    near1 = (1 + 0.05 * t.rng.standard_normal((200, 8))).astype(f32)
    r = t.rng.integers(0, 50, 300).astype(i32)
    c = t.rng.integers(0, 8, 300).astype(i32)
    v = normal(t, 300)
    oob = np.array([3, 50, 70, -60, 49], i32)  # -60 is out of bounds after wrapping too
    ov = normal(t, 5, 8)
    counts_idx = t.rng.integers(0, 10, 1000).astype(i32)

    def f(base, idx, upd, uidx, uupd, near1, r, c, v, oob, ov, counts_idx):
        return {"add": base.at[idx].add(upd), "set": base.at[uidx].set(uupd),
                "max": base.at[idx].max(upd), "min": base.at[idx].min(upd),
                "mul": base.at[idx].multiply(near1), "point_add": base.at[r, c].add(v),
                "drop": base.at[oob].add(ov, mode="drop"),
                "bincount": jnp.zeros(10, jnp.int32).at[counts_idx].add(1)}

    def at(op, b, i, u):
        b = b.astype(f64).copy()
        op.at(b, i, u.astype(f64))
        return b

    s = base.copy()
    s[uidx] = uupd
    drop = base.astype(f64).copy()
    for k, row in zip(oob, ov):
        if -50 <= k < 50:
            drop[k] += row
    pa = base.astype(f64).copy()
    np.add.at(pa, (r, c), v.astype(f64))
    want = {"add": at(np.add, base, idx, upd), "set": s, "max": at(np.maximum, base, idx, upd),
            "min": at(np.minimum, base, idx, upd), "mul": at(np.multiply, base, idx, near1),
            "point_add": pa, "drop": drop, "bincount": np.bincount(counts_idx, minlength=10).astype(i32)}
    t.run_check(f, base, idx, upd, uidx, uupd, near1, r, c, v, oob, ov, counts_idx,
                want=want, rtol=1e-5, atol=1e-5)


# --- convolutions ---------------------------------------------------------------------

def _same_pads(size, k, stride, dil):
    eff = (k - 1) * dil + 1
    out = -(-size // stride)
    total = max((out - 1) * stride + eff - size, 0)
    return total // 2, total - total // 2


def np_conv(x, w, strides, padding, rhs_dil=(1, 1), lhs_dil=(1, 1), groups=1):
    """NHWC x HWIO -> NHWC in float64, as lax.conv_general_dilated computes it."""
    x = x.astype(f64)
    w = w.astype(f64)
    if lhs_dil != (1, 1):
        n, h, wd, c = x.shape
        xd = np.zeros((n, (h - 1) * lhs_dil[0] + 1, (wd - 1) * lhs_dil[1] + 1, c))
        xd[:, ::lhs_dil[0], ::lhs_dil[1], :] = x
        x = xd
    kh, kw, _, o = w.shape
    if padding == "SAME":
        padding = [_same_pads(x.shape[1], kh, strides[0], rhs_dil[0]),
                   _same_pads(x.shape[2], kw, strides[1], rhs_dil[1])]
    elif padding == "VALID":
        padding = [(0, 0), (0, 0)]
    xp = np.pad(x, ((0, 0), tuple(padding[0]), tuple(padding[1]), (0, 0)))
    eh, ew = (kh - 1) * rhs_dil[0] + 1, (kw - 1) * rhs_dil[1] + 1
    ho = (xp.shape[1] - eh) // strides[0] + 1
    wo = (xp.shape[2] - ew) // strides[1] + 1
    cg, og = x.shape[3] // groups, o // groups
    out = np.zeros((x.shape[0], ho, wo, o))
    for i in range(kh):
        for j in range(kw):
            a, b = i * rhs_dil[0], j * rhs_dil[1]
            patch = xp[:, a:a + (ho - 1) * strides[0] + 1:strides[0], b:b + (wo - 1) * strides[1] + 1:strides[1], :]
            for g in range(groups):
                out[..., g * og:(g + 1) * og] += patch[..., g * cg:(g + 1) * cg] @ w[i, j, :, g * og:(g + 1) * og]
    return out


DN = ("NHWC", "HWIO", "NHWC")


@case
def case_conv(t):
    """lax.conv_general_dilated NHWC/HWIO: 3x3 stride 2 SAME; explicit asymmetric
    padding with rhs dilation; grouped conv; lhs-dilated (transposed-style) conv"""
    x = normal(t, 4, 17, 19, 6)
    w = normal(t, 3, 3, 6, 8, scale=0.3)
    wg = normal(t, 3, 3, 3, 8, scale=0.3)
    w5 = normal(t, 5, 2, 6, 4, scale=0.3)

    def f(x, w, wg, w5):
        conv = lax.conv_general_dilated
        return {"s2_same": conv(x, w, (2, 2), "SAME", dimension_numbers=DN),
                "pad_dil": conv(x, w5, (1, 2), ((1, 2), (0, 1)), rhs_dilation=(2, 1), dimension_numbers=DN),
                "grouped": conv(x, wg, (1, 1), "VALID", feature_group_count=2, dimension_numbers=DN),
                "lhs_dil": conv(x, w, (1, 1), ((2, 2), (2, 2)), lhs_dilation=(2, 2), dimension_numbers=DN)}

    want = {"s2_same": np_conv(x, w, (2, 2), "SAME"),
            "pad_dil": np_conv(x, w5, (1, 2), ((1, 2), (0, 1)), rhs_dil=(2, 1)),
            "grouped": np_conv(x, wg, (1, 1), "VALID", groups=2),
            "lhs_dil": np_conv(x, w, (1, 1), ((2, 2), (2, 2)), lhs_dil=(2, 2))}
    t.run_check(f, x, w, wg, w5, want=want, rtol=1e-4, atol=1e-4)


@case
def case_conv_grad(t):
    """jax.grad of sum(conv(x, w) * g) with respect to x and w (3x3, stride 2, SAME)
    against a float64 im2col backward pass"""
    x = normal(t, 4, 15, 16, 5)
    w = normal(t, 3, 3, 5, 7, scale=0.3)
    pads = [_same_pads(15, 3, 2, 1), _same_pads(16, 3, 2, 1)]
    ho, wo = -(-15 // 2), -(-16 // 2)
    g = normal(t, 4, ho, wo, 7)

    def loss(x, w, g):
        return jnp.sum(lax.conv_general_dilated(x, w, (2, 2), "SAME", dimension_numbers=DN) * g)

    X, W, G = x.astype(f64), w.astype(f64), g.astype(f64)
    xp = np.pad(X, ((0, 0), pads[0], pads[1], (0, 0)))
    gxp = np.zeros_like(xp)
    gw = np.zeros_like(W)
    for i in range(3):
        for j in range(3):
            sl = (slice(None), slice(i, i + (ho - 1) * 2 + 1, 2), slice(j, j + (wo - 1) * 2 + 1, 2), slice(None))
            gw[i, j] = np.einsum("nhwc,nhwo->co", xp[sl], G)
            gxp[sl] += G @ W[i, j].T
    gx = gxp[:, pads[0][0]:pads[0][0] + 15, pads[1][0]:pads[1][0] + 16, :]
    t.run_check(jax.grad(loss, argnums=(0, 1)), x, w, g, want=(gx, gw), rtol=1e-4, atol=1e-4)


# --- random numbers -------------------------------------------------------------------

@case
def case_random(t):
    """jax.random with one threefry key on both backends: bits, split and fold_in
    exactly equal; uniform, randint, permutation, bernoulli exact; normal close;
    sanity of the distributions"""
    with jax.default_device(t.ref):
        key = np.asarray(jax.random.key_data(jax.random.key(1234)))

    def f(key):
        k = jax.random.wrap_key_data(key)
        k1, k2, k3, k4, k5 = jax.random.split(k, 5)
        return {"bits": jax.random.bits(k, (4096,), jnp.uint32), "bits8": jax.random.bits(k1, (100,), jnp.uint8),
                "split": jax.random.key_data(jax.random.split(k, 4)),
                "fold_in": jax.random.key_data(jax.random.fold_in(k, 7)),
                "uniform": jax.random.uniform(k2, (1000,)), "randint": jax.random.randint(k3, (1000,), 0, 100),
                "perm": jax.random.permutation(k4, 50), "bernoulli": jax.random.bernoulli(k5, 0.3, (1000,)),
                "normal": jax.random.normal(k1, (20000,))}

    got, ref = t.run(f, key)
    normal_got, normal_ref = got.pop("normal"), ref.pop("normal")
    t.check(got, ref, exact=True)
    t.check(normal_got, normal_ref, rtol=1e-6, atol=1e-6)
    problems = []
    u = got["uniform"]
    if not (u.min() >= 0 and u.max() < 1 and abs(u.mean() - 0.5) < 0.05):
        problems.append(f"uniform: range [{u.min()}, {u.max()}], mean {u.mean()}")
    if not (abs(normal_got.mean()) < 0.05 and abs(normal_got.std() - 1) < 0.05):
        problems.append(f"normal: mean {normal_got.mean()}, std {normal_got.std()}")
    if sorted(got["perm"].tolist()) != list(range(50)):
        problems.append("permutation is not a permutation of 0..49")
    if len(np.unique(got["bits"])) < 4000:
        problems.append("bits: too many repeated values")
    if problems:
        raise CaseFailure("\n".join(problems))


@case
def case_random_rbg(t):
    """jax.random with the 'rbg' implementation: lax.rng_bit_generator (the cpu
    platform's default algorithm); bits equal to XLA:CPU's"""
    with jax.default_device(t.ref):
        key = np.asarray(jax.random.key_data(jax.random.key(7, impl="rbg")))

    def f(key):
        k = jax.random.wrap_key_data(key, impl="rbg")
        return {"bits": jax.random.bits(k, (1000,), jnp.uint32), "uniform": jax.random.uniform(k, (500,)),
                "raw": lax.rng_bit_generator(key, (64,), dtype=jnp.uint32)[1]}

    got, ref = t.run(f, key)
    t.check(got, ref, exact=True)


# --- mixed precision, pytrees, donation -----------------------------------------------

@case
def case_bf16_matmul(t):
    """bf16 matmuls (bf16 output, and f32 with preferred_element_type), a bf16 GELU,
    a bf16 -> f32 layernorm, bf16 elementwise"""
    bf16 = jnp.bfloat16
    a = normal(t, 128, 256, scale=1 / 4).astype(bf16)
    b = normal(t, 256, 192, scale=1 / 4).astype(bf16)

    def f(a, b):
        y = a @ b
        y32 = jnp.dot(a, b, preferred_element_type=jnp.float32)
        mu = y32.mean(-1, keepdims=True)
        ln = (y32 - mu) * lax.rsqrt(((y32 - mu) ** 2).mean(-1, keepdims=True) + 1e-5)
        return {"bf16": y, "gelu": jax.nn.gelu(y), "f32": y32, "ln": ln, "tanh": jnp.tanh(a),
                "relu_cast": jax.nn.relu(y32).astype(bf16)}

    A, B = a.astype(f64), b.astype(f64)
    Y = A @ B
    G = 0.5 * Y * (1 + np.tanh(np.sqrt(2 / np.pi) * (Y + 0.044715 * Y ** 3)))
    ln = (Y - Y.mean(-1, keepdims=True)) / np.sqrt(Y.var(-1, keepdims=True) + 1e-5)
    got, ref = t.run(f, a, b)
    # bf16 leaves get at least DEFAULT_TOL["bfloat16"] against each other
    problems = t.pair_problems(got, ref, rtol=1e-4, atol=1e-4)
    problems += t.want_problems(got, ref, {"f32": Y, "ln": ln}, rtol=1e-4, atol=1e-4)
    problems += t.want_problems(got, ref, {"bf16": Y, "gelu": G, "tanh": np.tanh(A), "relu_cast": np.maximum(Y, 0)},
                                rtol=2e-2, atol=2e-2)
    if problems:
        raise CaseFailure("\n".join(problems))


@case
def case_pytree_outputs(t):
    """dict / tuple / list inputs and outputs with mixed dtypes, scalars, a zero-size
    array, a constant output, an input returned unchanged, one array returned twice"""
    params = {"w": normal(t, 5, 3), "b": normal(t, 3)}
    pair = (t.rng.integers(0, 9, (4,)).astype(i32), normal(t, 4, 5))
    s = np.float32(2.5)

    def f(params, pair, s):
        ints, x = pair
        y = x @ params["w"] + params["b"]
        return {"y": y, "nested": {"t": (y + s, ints * 2, y > 0), "list": [x.T, jnp.float32(3.0)]},
                "int_scalar": jnp.sum(ints), "empty": jnp.zeros((0, 3)), "const": jnp.arange(6).reshape(2, 3),
                "passthrough": params["b"], "twice": (y, y)}

    X, W, B = pair[1].astype(f64), params["w"].astype(f64), params["b"].astype(f64)
    Y = X @ W + B
    want = {"y": Y, "nested": {"t": (Y + 2.5, pair[0] * 2, Y > 0), "list": [X.T, np.float32(3.0)]},
            "int_scalar": np.int32(pair[0].sum()), "empty": np.zeros((0, 3), f32),
            "const": np.arange(6, dtype=i32).reshape(2, 3), "passthrough": params["b"], "twice": (Y, Y)}
    t.run_check(f, params, pair, s, want=want, rtol=1e-5, atol=1e-5)


@case
def case_donation(t):
    """jax.jit(f, donate_argnums=0): results equal and the donated input's
    is_deleted() as on XLA:CPU (an aliasable donation, one JAX cannot use, and
    repeated calls feeding outputs back)"""
    x = normal(t, 256, 128)
    y = normal(t, 256, 128)
    usable = jax.jit(lambda x, y: (x * 2 + y, jnp.sum(x)), donate_argnums=0)
    unusable = jax.jit(lambda x, y: jnp.sum(x * y, axis=0), donate_argnums=0)
    step = jax.jit(lambda x, y: x * 0.5 + y, donate_argnums=0)

    def scenario(dev, side):
        out = {}
        try:
            with jax.default_device(dev), warnings.catch_warnings():
                warnings.simplefilter("ignore")  # "Some donated buffers were not usable"
                xd, yd = jax.device_put((x, y), dev)
                r = jax.block_until_ready(usable(xd, yd))
                out["usable"] = (jax.device_get(r), xd.is_deleted(), yd.is_deleted(), np.asarray(yd))
                xd = jax.device_put(x, dev)
                r = jax.block_until_ready(unusable(xd, yd))
                out["unusable"] = (jax.device_get(r), xd.is_deleted())
                z = jax.device_put(x, dev)
                zs = [z]
                for _ in range(5):
                    z = step(z, yd)
                    zs.append(z)
                z = jax.block_until_ready(z)
                out["chain"] = (np.asarray(z), [a.is_deleted() for a in zs[:-1]])
        except Exception as e:
            raise SideError(side, e) from e
        return out

    got = scenario(t.target, t.target_name)
    ref = scenario(t.ref, t.ref_name)
    problems = []
    chain = x.astype(f64)
    for _ in range(5):
        chain = chain * 0.5 + y
    want = {"usable": ((2 * x.astype(f64) + y, x.astype(f64).sum()), y), "unusable": (x.astype(f64) * y).sum(0),
            "chain": chain}
    pairs = {"usable": ((got["usable"][0], got["usable"][3]), (ref["usable"][0], ref["usable"][3])),
             "unusable": (got["unusable"][0], ref["unusable"][0]), "chain": (got["chain"][0], ref["chain"][0])}
    for k, (g, r) in pairs.items():
        problems += compare(g, r, rtol=1e-5, atol=1e-3, label=f"{k}: {t.target_name} vs {t.ref_name}: ")
        problems += compare(g, want[k], rtol=1e-5, atol=1e-2, check_dtype=False,
                            label=f"{k}: {t.target_name} vs numpy: ")
    flags = {"usable x": (got["usable"][1], ref["usable"][1]), "usable y (not donated)": (got["usable"][2], ref["usable"][2]),
             "unusable x": (got["unusable"][1], ref["unusable"][1]), "chain inputs": (got["chain"][1], ref["chain"][1])}
    for k, (g, r) in flags.items():
        if g != r:
            problems.append(f"is_deleted() of {k}: {t.target_name} {g}, {t.ref_name} {r}")
    t.note(f"cpu deletes donated x: {ref['usable'][1]}")
    if problems:
        raise CaseFailure("\n".join(problems))


# --- training loops -------------------------------------------------------------------

def _regression_task(rng):
    X = rng.standard_normal((256, 16)).astype(f32)
    a = rng.standard_normal(16).astype(f32) / 4
    b = rng.standard_normal(16).astype(f32) / 4
    y = (np.sin(X @ a) + 0.5 * (X @ b) ** 2 - 0.3).astype(f32)[:, None]
    return X, y


def _check_training(t, got, ref, min_drop=0.5):
    """got/ref: {'losses': [...], 'pred': ...}: equal within tolerance, and falling."""
    problems = compare(got["losses"], ref["losses"], rtol=2e-3, atol=1e-5,
                       label=f"losses {t.target_name} vs {t.ref_name}: ")
    problems += compare(got["pred"], ref["pred"], rtol=2e-2, atol=2e-3,
                        label=f"final predictions {t.target_name} vs {t.ref_name}: ")
    for side, r in ((t.target_name, got), (t.ref_name, ref)):
        losses = np.asarray(r["losses"])
        if not np.all(np.isfinite(losses)):
            problems.append(f"{side}: non-finite losses {losses}")
        elif not losses[-1] < min_drop * losses[0]:
            problems.append(f"{side}: loss did not fall: {losses[0]:.4f} -> {losses[-1]:.4f}")
    t.note(f"loss {got['losses'][0]:.4f} -> {got['losses'][-1]:.4f} in {len(got['losses'])} steps")
    if problems:
        raise CaseFailure("\n".join(problems))


@case
def case_train_mlp_adam(t):
    """50 Adam steps (written in jax) of a 16 -> 64 -> 64 -> 1 tanh MLP on a fixed
    synthetic regression task; the step jitted once and called in a Python loop
    with parameters and optimizer state staying on the device"""
    X, y = _regression_task(t.rng)
    sizes = [16, 64, 64, 1]
    params = [{"w": normal(t, m, n, scale=1 / np.sqrt(m)), "b": np.zeros(n, f32)}
              for m, n in zip(sizes[:-1], sizes[1:])]
    lr, b1, b2, eps = 1e-2, 0.9, 0.999, 1e-8

    def forward(params, x):
        for layer in params[:-1]:
            x = jnp.tanh(x @ layer["w"] + layer["b"])
        return x @ params[-1]["w"] + params[-1]["b"]

    def loss_fn(params, x, y):
        return jnp.mean((forward(params, x) - y) ** 2)

    @jax.jit
    def train_step(params, m, v, step, x, y):
        loss, grads = jax.value_and_grad(loss_fn)(params, x, y)
        step = step + 1
        m = jax.tree.map(lambda m, g: b1 * m + (1 - b1) * g, m, grads)
        v = jax.tree.map(lambda v, g: b2 * v + (1 - b2) * g * g, v, grads)
        tf = step.astype(jnp.float32)
        params = jax.tree.map(lambda p, m, v: p - lr * (m / (1 - b1 ** tf)) / (jnp.sqrt(v / (1 - b2 ** tf)) + eps),
                              params, m, v)
        return params, m, v, step, loss

    def train(dev, side):
        try:
            with jax.default_device(dev):
                p, xd, yd = jax.device_put((params, X, y), dev)
                m = jax.tree.map(jnp.zeros_like, p)
                v = jax.tree.map(jnp.zeros_like, p)
                step = jnp.int32(0)
                losses = []
                for _ in range(50):
                    p, m, v, step, loss = train_step(p, m, v, step, xd, yd)
                    losses.append(loss)
                pred = jax.jit(forward)(p, xd)
                for leaf in jax.tree.leaves((p, m, v, pred, losses)):
                    if leaf.devices() != {dev}:
                        raise CaseFailure(f"{side}: training state left {dev}: {leaf.devices()}")
                return {"losses": np.array([float(l) for l in losses], f32), "pred": np.asarray(pred)}
        except CaseFailure:
            raise
        except Exception as e:
            raise SideError(side, e) from e

    _check_training(t, train(t.target, t.target_name), train(t.ref, t.ref_name))


@case
def case_train_flax_optax(t):
    """flax.linen MLP (16 -> 64 -> 64 -> 1) initialized on the device, optax.adam,
    50 jitted steps on the synthetic regression task (skipped without flax/optax)"""
    try:
        import flax.linen as nn
        import optax
    except ImportError as e:
        raise Skip(f"needs flax and optax ({e})")
    X, y = _regression_task(t.rng)

    class MLP(nn.Module):
        @nn.compact
        def __call__(self, x):
            x = nn.tanh(nn.Dense(64)(x))
            x = nn.tanh(nn.Dense(64)(x))
            return nn.Dense(1)(x)

    model = MLP()
    tx = optax.adam(1e-2)

    @jax.jit
    def train_step(params, opt_state, x, y):
        def loss_fn(p):
            return jnp.mean((model.apply(p, x) - y) ** 2)
        loss, grads = jax.value_and_grad(loss_fn)(params)
        updates, opt_state = tx.update(grads, opt_state, params)
        return optax.apply_updates(params, updates), opt_state, loss

    def train(dev, side):
        try:
            with jax.default_device(dev):
                xd, yd = jax.device_put((X, y), dev)
                key = jax.device_put(jax.random.PRNGKey(0), dev)
                params = jax.jit(model.init)(key, xd[:1])
                init = jax.device_get(params)
                opt_state = tx.init(params)
                losses = []
                for _ in range(50):
                    params, opt_state, loss = train_step(params, opt_state, xd, yd)
                    losses.append(loss)
                pred = jax.jit(model.apply)(params, xd)
                for leaf in jax.tree.leaves((params, opt_state, pred)):
                    if isinstance(leaf, jax.Array) and leaf.devices() != {dev}:
                        raise CaseFailure(f"{side}: training state left {dev}: {leaf.devices()}")
                return {"losses": np.array([float(l) for l in losses], f32), "pred": np.asarray(pred),
                        "init": init}
        except CaseFailure:
            raise
        except Exception as e:
            raise SideError(side, e) from e

    got, ref = train(t.target, t.target_name), train(t.ref, t.ref_name)
    problems = compare(got.pop("init"), ref.pop("init"), rtol=1e-5, atol=1e-6,
                       label=f"initial parameters {t.target_name} vs {t.ref_name}: ")
    if problems:
        raise CaseFailure("\n".join(problems))
    _check_training(t, got, ref)


# --- numerical edge cases, more math and linear algebra ---------------------------------

@case
def case_convert_edge(t):
    """conversions at the edges: NaN, inf and out-of-range floats to int32/uint8/
    uint32/int8, f32 to f16/bf16 overflow and rounding, int <-> uint reinterpretation
    (compared exactly with XLA:CPU)"""
    v = np.array([np.nan, np.inf, -np.inf, 3e9, -3e9, 2.5, -2.5, 0.5, -0.5, 1e10, 255.9, 256.0,
                  -1.0, 65504.0, 65520.0, 70000.0, 1e-40, 1.00048828125, 1.0009765625], f32)
    ints = np.array([-1, -2 ** 31, 2 ** 31 - 1, 0, 1 << 24, (1 << 24) + 1, 70000], i32)

    def f(v, ints):
        return {"s32": v.astype(jnp.int32), "u8": v.astype(jnp.uint8), "u32": v.astype(jnp.uint32),
                "s8": v.astype(jnp.int8), "f16": v.astype(jnp.float16), "bf16": v.astype(jnp.bfloat16),
                "i2u": ints.astype(jnp.uint32), "i2f": ints.astype(jnp.float32), "i2f16": ints.astype(jnp.float16),
                "i2s8": ints.astype(jnp.int8), "bool": v.astype(jnp.bool_)}

    got, ref = t.run(f, v, ints)
    # NumPy's float->int casts are undefined out of range; the float ones are IEEE.
    # (bool: XLA:CPU treats the denormal 1e-40 as zero, so only compared with it.)
    with np.errstate(all="ignore"):
        want = {"f16": v.astype(np.float16), "i2u": ints.astype(np.uint32), "i2f": ints.astype(f32),
                "i2s8": ints.astype(np.int8)}
        if ml_dtypes is not None:
            want["bf16"] = v.astype(ml_dtypes.bfloat16)
    t.check(got, ref, want, exact=True)


def _zero_sign_problems(got, ref, label):
    problems = []
    for (path, g), (_, r) in zip(_paths(got), _paths(ref)):
        g, r = np.asarray(g), np.asarray(r)
        if not np.issubdtype(g.dtype, np.floating) and g.dtype.name != "bfloat16":
            continue
        g64, r64 = g.astype(f64), r.astype(f64)
        both_zero = (g64 == 0) & (r64 == 0)
        bad = both_zero & (np.signbit(g64) != np.signbit(r64))
        if bad.any():
            i = int(np.argwhere(bad)[0][0])
            problems.append(f"{label}{path}: sign of zero differs at {i}: {g64[i]!r} vs {r64[i]!r}")
    return problems


@case
def case_float_edge(t):
    """IEEE special values through arithmetic and math functions: signed zeros,
    denormals (no flush to zero), inf/NaN propagation, division by zero, rounding
    ties (relative error 1e-6 with no absolute slack; zero signs compared)"""
    x = np.array([0.0, -0.0, 1e-40, -1e-40, 1e-45, 3.4e38, -3.4e38, np.inf, -np.inf, np.nan,
                  1.0, -1.0, 0.5, 2.5, -2.5, 100.0, -100.0, 1e-30], f32)

    def f(x):
        return {"recip": 1 / x, "exp": jnp.exp(x), "log": jnp.log(x), "sqrt": jnp.sqrt(x),
                "tanh": jnp.tanh(x), "denorm_mul": x * 1e-5, "denorm_add": x + 1e-40, "twice": x + x,
                "sub": x - x, "max0": jnp.maximum(x, 0.0), "min_negzero": jnp.minimum(x, -0.0),
                "round": jnp.round(x), "floor": jnp.floor(x), "ceil": jnp.ceil(x), "trunc": jnp.trunc(x),
                "sign": jnp.sign(x), "div0": x / 0.0, "copysign": jnp.copysign(1.0, x),
                "sigmoid": jax.nn.sigmoid(x), "expm1": jnp.expm1(x), "log1p": jnp.log1p(x),
                "f16": x.astype(jnp.float16), "square": x * x, "neg": -x, "abs": jnp.abs(x),
                "sum_with_inf": jnp.sum(jnp.where(jnp.isnan(x), 0.0, x)), "prod": jnp.prod(x[:3])}

    got, ref = t.run(f, x)
    problems = []
    # A known departure of xla-rs's JIT (docs/semantics.md, "Flush to zero"):
    # its kernels flush subnormals, also where a function passes a tiny input
    # through (XLA:CPU's tanh and expm1 return x for tiny |x|, so a subnormal x
    # comes back unflushed). Only on xla_rs, only there: the value must be the
    # flushed zero; everything else must match.
    subnormal = (x != 0) & (np.abs(x) < np.finfo(f32).tiny)
    passthrough = {"tanh", "expm1"} if t.target_name == "xla_rs" else set()
    for (path, g), (_, r) in zip(_paths(got), _paths(ref)):
        g64, r64 = np.asarray(g).astype(f64), np.asarray(r).astype(f64)
        with np.errstate(all="ignore"):
            close = np.isclose(g64, r64, rtol=1e-6, atol=0.0, equal_nan=True)
        if any(name in path for name in passthrough) and g64.shape == x.shape:
            flushed = subnormal & (g64 == 0) & (r64 == x.astype(f64))
            close |= flushed
        if not close.all():
            i = np.argwhere(~close)[0]
            i = tuple(int(k) for k in i)
            xi = x[i[0]] if np.asarray(g).ndim == 1 and np.asarray(g).shape == x.shape else None
            problems.append(f"{path}: {int((~close).sum())} differ; first at {i} (x={xi!r}): "
                            f"{g64[i]!r} vs {r64[i]!r}")
    problems += _zero_sign_problems(got, ref, "")
    if problems:
        raise CaseFailure("\n".join(f"{t.target_name} vs {t.ref_name}: {p}" for p in problems))


@case
def case_special_functions(t):
    """lgamma, digamma, erfinv, erfc, i0e, i1e, gammainc, integer powers, fmod,
    remainder, cbrt, logaddexp, hyperbolic and inverse trigonometric functions,
    exp2/log2/log10, hypot against scipy"""
    import scipy.special as sp
    x = t.rng.uniform(0.1, 8, 2000).astype(f32)
    u = t.rng.uniform(-0.99, 0.99, 2000).astype(f32)
    a = t.rng.uniform(0.5, 5, 2000).astype(f32)
    z = normal(t, 2000, scale=3.0)

    def f(x, u, a, z):
        sc = jax.scipy.special
        return {"lgamma": sc.gammaln(x), "digamma": sc.digamma(x), "erfinv": sc.erfinv(u), "erfc": sc.erfc(z),
                "i0e": sc.i0e(z), "i1e": sc.i1e(z), "gammainc": sc.gammainc(a, x), "cube": z ** 3,
                "inv_sq": x ** -2, "fmod": jnp.fmod(z, 1.3), "remainder": jnp.remainder(z, 1.3),
                "cbrt": jnp.cbrt(z), "logaddexp": jnp.logaddexp(z, u), "sinh": jnp.sinh(3 * u),
                "cosh": jnp.cosh(3 * u), "asinh": jnp.arcsinh(z), "acosh": jnp.arccosh(x + 1),
                "atanh": jnp.arctanh(u), "tan": jnp.tan(u), "asin": jnp.arcsin(u), "acos": jnp.arccos(u),
                "atan": jnp.arctan(z), "exp2": jnp.exp2(10 * u), "log2": jnp.log2(x), "log10": jnp.log10(x),
                "hypot": jnp.hypot(z, u)}

    X, U, A, Z = (v.astype(f64) for v in (x, u, a, z))
    m = f64(f32(1.3))
    U3, U10 = (u * f32(3)).astype(f64), (u * f32(10)).astype(f64)
    want = {"lgamma": sp.gammaln(X), "digamma": sp.digamma(X), "erfinv": sp.erfinv(U), "erfc": sp.erfc(Z),
            "i0e": sp.i0e(Z), "i1e": sp.i1e(Z), "gammainc": sp.gammainc(A, X), "cube": Z ** 3,
            "inv_sq": X ** -2, "fmod": np.fmod(Z, m), "remainder": np.remainder(Z, m), "cbrt": np.cbrt(Z),
            "logaddexp": np.logaddexp(Z, U), "sinh": np.sinh(U3), "cosh": np.cosh(U3),
            "asinh": np.arcsinh(Z), "acosh": np.arccosh((x + f32(1)).astype(f64)), "atanh": np.arctanh(U),
            "tan": np.tan(U), "asin": np.arcsin(U), "acos": np.arccos(U), "atan": np.arctan(Z),
            "exp2": np.exp2(U10), "log2": np.log2(X), "log10": np.log10(X), "hypot": np.hypot(Z, U)}
    t.run_check(f, x, u, a, z, want=want, rtol=1e-4, atol=1e-5)


@case
def case_complex_math(t):
    """complex64 arithmetic, exp/log/sqrt/abs/angle, real/imag/conj, complex matmul
    and reduction, a complex linear solve (LAPACK cgesv)"""
    n = 48
    zc = (normal(t, n, n) + 1j * normal(t, n, n)).astype(np.complex64)
    wc = (normal(t, n, n) + 1j * normal(t, n, n)).astype(np.complex64)
    r = normal(t, n)

    def f(zc, wc, r):
        return {"mul": zc * wc, "div": zc / wc, "exp": jnp.exp(0.5 * zc), "log": jnp.log(zc),
                "sqrt": jnp.sqrt(zc), "abs": jnp.abs(zc), "angle": jnp.angle(zc), "conj": jnp.conj(zc),
                "real_imag": zc.real * 2 + zc.imag, "matmul": zc @ wc, "sum": zc.sum(0),
                "expi": jnp.exp(1j * r), "solve": jnp.linalg.solve(zc + 8 * jnp.eye(n), wc[:, :3])}

    Z, W, R = zc.astype(np.complex128), wc.astype(np.complex128), r.astype(f64)
    want = {"mul": Z * W, "div": Z / W, "exp": np.exp(0.5 * Z), "log": np.log(Z), "sqrt": np.sqrt(Z),
            "abs": np.abs(Z), "angle": np.angle(Z), "conj": np.conj(Z), "real_imag": Z.real * 2 + Z.imag,
            "matmul": Z @ W, "sum": Z.sum(0), "expi": np.exp(1j * R),
            "solve": np.linalg.solve(Z + 8 * np.eye(n), W[:, :3])}
    t.run_check(f, zc, wc, r, want=want, rtol=1e-4, atol=1e-4)


def _np_mlp_grad(params, x, y):
    P = {k: v.astype(f64) for k, v in params.items()}
    X, Y = x.astype(f64), y.astype(f64)
    h = np.tanh(X @ P["W1"] + P["b1"])
    r = h @ P["W2"] + P["b2"] - Y
    dout = 2 * r / r.size
    dz = (dout @ P["W2"].T) * (1 - h ** 2)
    return np.mean(r ** 2), {"W1": X.T @ dz, "b1": dz.sum(0), "W2": h.T @ dout, "b2": dout.sum(0)}


@case
def case_remat_barrier(t):
    """jax.grad through jax.checkpoint (rematerialization: optimization_barrier in
    the program), lax.optimization_barrier directly, stop_gradient"""
    params = {"W1": normal(t, 32, 64, scale=0.2), "b1": normal(t, 64, scale=0.1),
              "W2": normal(t, 64, 4, scale=0.2), "b2": normal(t, 4, scale=0.1)}
    x = normal(t, 128, 32)
    y = normal(t, 128, 4)

    def f(params, x, y):
        g = jax.grad(jax.checkpoint(_mlp_loss))(params, x, y)
        a, b = lax.optimization_barrier((x * 2, y + 1))
        sg = jax.grad(lambda x: jnp.sum(x * lax.stop_gradient(x)))(x)
        return {"grad": g, "barrier": (a, b), "stop_gradient": sg}

    want = {"grad": _np_mlp_grad(params, x, y)[1], "barrier": (x.astype(f64) * 2, y.astype(f64) + 1),
            "stop_gradient": x}
    t.run_check(f, params, x, y, want=want, rtol=1e-4, atol=1e-6)


def _match_eigs(got, want):
    """want reordered so want[i] is the eigenvalue nearest got[i] (greedy)."""
    left = list(range(len(want)))
    out = []
    for g in got:
        j = min(left, key=lambda k: abs(want[k] - g))
        left.remove(j)
        out.append(want[j])
    return np.array(out)


def _known_lapack_gap(t, routine, program):
    """xla-rs has no LAPACK `routine` yet (jnp.linalg.eig: geev,
    jax.scipy.linalg.schur: gees): on xla_rs the program must be refused when
    it compiles, with an error naming the routine; reported as a skip."""
    if t.target_name != "xla_rs":
        return
    try:
        with jax.default_device(t.target):
            jax.block_until_ready(jax.jit(program)())
    except Exception as e:  # noqa: BLE001 - the message is what is checked
        message = str(e)
        if f"{routine}_ffi" in message and "not supported by xla_rs" in message:
            raise Skip(f"LAPACK {routine} is not supported by xla_rs (refused at compile time)")
        raise CaseFailure(f"{routine}: unexpected error: {message[:300]}")
    raise CaseFailure(f"{routine}: ran on xla_rs; remove this known gap and compare the results")


@case
def case_linalg_eig(t):
    """jnp.linalg.eig of a nonsymmetric 32x32 (LAPACK geev): eigenvalues against
    numpy (matched by nearness) and A V = V diag(w)"""
    A = normal(t, 32, 32)
    _known_lapack_gap(t, "geev", lambda: jnp.linalg.eig(A))
    got, ref = t.run(lambda A: jnp.linalg.eig(A), A)
    want_w = np.linalg.eigvals(A.astype(f64))
    problems = []
    for side, (w, V) in ((t.target_name, got), (t.ref_name, ref)):
        if w.dtype != np.complex64 or V.dtype != np.complex64:
            problems.append(f"{side}: dtypes {w.dtype}, {V.dtype} (want complex64)")
            continue
        problems += compare(w, _match_eigs(w, want_w), rtol=1e-4, atol=1e-4, check_dtype=False,
                            label=f"{side} eigenvalues vs numpy: ")
        Vd, wd = V.astype(np.complex128), w.astype(np.complex128)
        problems += compare(A.astype(f64) @ Vd, Vd * wd, atol=1e-4, check_dtype=False,
                            label=f"{side} A V vs V diag(w): ")
    if problems:
        raise CaseFailure("\n".join(problems))


@case
def case_linalg_misc(t):
    """jax.scipy.linalg.lu (P L U = A, pivots as scipy), jnp.linalg.lstsq, expm,
    schur (Z T Z^T = A), cond, matrix_power, full SVD (square U): each on its own"""
    import scipy.linalg as sl
    A = normal(t, 24, 24)
    B = normal(t, 50, 20)
    rhs = normal(t, 50, 3)
    E = normal(t, 16, 16, scale=0.3)
    S = normal(t, 16, 16)
    C = _well_conditioned(t, 20, 20)
    M = normal(t, 12, 12, scale=0.4)
    F = normal(t, 30, 20)
    Ad = A.astype(f64)

    def lu():
        got, ref = t.run(jax.scipy.linalg.lu, A)
        P, L, U = sl.lu(Ad)
        t.check(got, ref, (P, L, U), rtol=1e-4, atol=1e-5)

    def lstsq():
        t.run_check(lambda B, r: jnp.linalg.lstsq(B, r)[0], B, rhs,
                    want=np.linalg.lstsq(B.astype(f64), rhs.astype(f64), rcond=None)[0], rtol=1e-4, atol=1e-5)

    def expm():
        t.run_check(jax.scipy.linalg.expm, E, want=sl.expm(E.astype(f64)), rtol=1e-4, atol=1e-5)

    def schur():
        _known_lapack_gap(t, "gees", lambda: jax.scipy.linalg.schur(S))
        got, ref = t.run(jax.scipy.linalg.schur, S)
        problems = []
        for side, (T_, Z) in ((t.target_name, got), (t.ref_name, ref)):
            Td, Zd = T_.astype(f64), Z.astype(f64)
            problems += compare(Zd @ Td @ Zd.T, S.astype(f64), atol=1e-4, check_dtype=False,
                                label=f"{side} Z T Z^T vs A: ")
            problems += compare(Zd.T @ Zd, np.eye(16), atol=1e-4, check_dtype=False, label=f"{side} Z^T Z vs I: ")
            problems += compare(np.tril(Td, -2), np.zeros_like(Td), atol=1e-6, check_dtype=False,
                                label=f"{side} tril(T, -2): ")
        if problems:
            raise CaseFailure("; ".join(problems))

    def cond():
        t.run_check(jnp.linalg.cond, C, want=np.linalg.cond(C.astype(f64)), rtol=1e-4, atol=1e-5)

    def matrix_power():
        t.run_check(lambda M: jnp.linalg.matrix_power(M, 5), M,
                    want=np.linalg.matrix_power(M.astype(f64), 5), rtol=1e-4, atol=1e-5)

    def svd_full():
        def f(F):
            U, s, Vt = jnp.linalg.svd(F, full_matrices=True)
            return {"s": s, "UtU": U.T @ U, "VVt": Vt @ Vt.T, "shapes": jnp.array(U.shape + Vt.shape)}
        t.run_check(f, F, want={"s": np.linalg.svd(F.astype(f64), compute_uv=False), "UtU": np.eye(30),
                                "VVt": np.eye(20), "shapes": np.array([30, 30, 20, 20], i32)},
                    rtol=1e-4, atol=1e-4)

    problems = t.subprograms({"lu": lu, "lstsq": lstsq, "expm": expm, "schur": schur, "cond": cond,
                              "matrix_power": matrix_power, "svd_full": svd_full})
    if problems:
        raise CaseFailure("\n".join(problems))


# --- the runtime: argument handling, AOT API, buffers, threads, export, memory --------

@case
def case_many_args(t):
    """a program with 300 array arguments (mixed dtypes and shapes) and 301 outputs"""
    args = []
    for i in range(300):
        if i % 3 == 0:
            args.append(np.full((3,), i, f32))
        elif i % 3 == 1:
            args.append(np.arange(i % 7 + 1, dtype=i32) + i)
        else:
            args.append(np.float32(i) / 7)

    def f(*xs):
        return [x * 2 for x in xs], sum(jnp.sum(x.astype(jnp.float32)) for x in xs)

    want = ([a * (np.float32(2) if a.dtype == f32 else i32(2)) for a in args],
            sum(float(np.sum(a.astype(f64))) for a in args))
    t.run_check(f, *args, want=want, rtol=1e-5, atol=1e-3)


@case
def case_aot_introspection(t):
    """jit(f).lower(x).compile() on the plugin and the compiled object's
    introspection (as_text, cost_analysis, memory_analysis, runtime_executable,
    input/output formats, serialize/deserialize): each must work or raise
    (records which); the compiled program's result must be right"""
    x = normal(t, 64, 64, scale=0.2)
    xd = jax.device_put(x, t.target)
    f = lambda a: jnp.tanh(a @ a) + 1  # noqa: E731
    try:
        lowered = jax.jit(f).lower(xd)
        compiled = lowered.compile()
        out = np.asarray(compiled(xd))
    except Exception as e:
        raise SideError(t.target_name, e) from e
    X = x.astype(f64)
    problems = compare(out, np.tanh(X @ X) + 1, rtol=1e-5, atol=1e-5, check_dtype=False,
                       label="compiled(x) vs numpy: ")

    def ser():
        from jax.experimental.serialize_executable import deserialize_and_load, serialize
        payload, in_tree, out_tree = serialize(compiled)
        loaded = deserialize_and_load(payload, in_tree, out_tree, backend=t.target.client,
                                      execution_devices=[t.target])
        y = np.asarray(loaded(xd))
        p = compare(y, out, exact=True, label="deserialized executable: ")
        if p:
            problems.extend(p)
        return f"{len(payload)} bytes, reloaded and ran"

    probes = {
        "as_text": lambda: f"{len(compiled.as_text() or '')} chars",
        "cost_analysis": lambda: repr(compiled.cost_analysis())[:60],
        "memory_analysis": lambda: repr(compiled.memory_analysis())[:60],
        "runtime_executable": lambda: type(compiled.runtime_executable()).__name__,
        "input_formats": lambda: repr(compiled.input_formats)[:60],
        "output_formats": lambda: repr(compiled.output_formats)[:60],
        "serialize": ser,
    }
    t.probes(probes)
    if problems:
        raise CaseFailure("\n".join(problems))


@case
def case_buffer_api(t):
    """jax.Array methods on plugin buffers: on_device_size_in_bytes, copy_to_host_async,
    addressable_shards, scalar indexing, np.from_dlpack, unsafe_buffer_pointer,
    memory_stats, delete() then use (must raise): values checked where it works"""
    x = normal(t, 64, 32)
    a = jax.device_put(x, t.target)
    problems = []

    def check_values(label, v):
        problems.extend(compare(np.asarray(v), x, exact=True, label=f"{label}: "))

    probes = {
        "on_device_size_in_bytes": lambda: a.on_device_size_in_bytes(),
        "copy_to_host_async": lambda: (a.copy_to_host_async(), check_values("copy_to_host_async", a))[1],
        "addressable_shards": lambda: check_values("addressable_shards", a.addressable_shards[0].data),
        "scalar_index": lambda: problems.extend([] if float(a[3, 5]) == float(x[3, 5])
                                                else [f"a[3, 5] = {float(a[3, 5])}, want {x[3, 5]}"]),
        "from_dlpack": lambda: check_values("np.from_dlpack", np.from_dlpack(a)),
        "unsafe_buffer_pointer": lambda: hex(a.unsafe_buffer_pointer()),
        "memory_stats": lambda: repr(t.target.memory_stats())[:80],
        "live_arrays": lambda: len(jax.live_arrays()),
    }
    t.probes(probes)
    b = jax.device_put(x, t.target)
    try:
        b.delete()
    except Exception as e:
        raise SideError(t.target_name, e) from e
    if not b.is_deleted():
        problems.append("after delete(): is_deleted() is False")
    try:
        np.asarray(b)
        problems.append("np.asarray of a deleted array did not raise")
    except Exception:
        pass
    if problems:
        raise CaseFailure("\n".join(problems))


@case
def case_threads(t):
    """4 Python threads, 25 iterations each: device_put, two jitted functions
    (one shared by all threads), device_get, at the same time; results checked"""
    import threading
    shared = jax.jit(lambda a: jnp.sin(a) @ a.T)
    own = [jax.jit(lambda a, k=k: jnp.tanh(a * k).sum(0)) for k in range(4)]
    xs = [normal(t, 96, 96, scale=0.3) for _ in range(4)]
    want = []
    for k, x in enumerate(xs):
        xr = jax.device_put(x, t.ref)
        want.append((np.asarray(shared(xr)), np.asarray(own[k](xr))))
    errors = []

    def work(k):
        try:
            for it in range(25):
                a = jax.device_put(xs[k], t.target)
                s, o = shared(a), own[k](a)
                p = compare((np.asarray(s), np.asarray(o)), want[k], rtol=1e-5, atol=1e-5,
                            label=f"thread {k} iteration {it}: ")
                if p:
                    errors.extend(p)
                    return
        except Exception as e:
            errors.append(f"thread {k}: {type(e).__name__}: {e}")

    threads = [threading.Thread(target=work, args=(k,)) for k in range(4)]
    for th in threads:
        th.start()
    for th in threads:
        th.join()
    if errors:
        raise CaseFailure("\n".join(errors[:10]))


@case
def case_export_roundtrip(t):
    """jax.export: a function exported for the cpu platform, serialized,
    deserialized and called on the plugin; also a shape-polymorphic export (batch
    'b', with its shape assertions) called with two batch sizes"""
    from jax import export
    w = normal(t, 8, 4)
    x16 = normal(t, 16, 8)
    x5 = normal(t, 5, 8)

    def f(x, w):
        return jnp.tanh(x @ w).sum(axis=1)

    def np_f(x):
        return np.tanh(x.astype(f64) @ w.astype(f64)).sum(1)

    sds = jax.ShapeDtypeStruct
    exp = export.deserialize(export.export(jax.jit(f), platforms=["cpu"])(sds((16, 8), f32), sds((8, 4), f32)).serialize())
    (b,) = export.symbolic_shape("b")
    poly = export.deserialize(export.export(jax.jit(f), platforms=["cpu"])(sds((b, 8), f32), sds((8, 4), f32)).serialize())
    problems = t.subprograms({
        "monomorphic": lambda: t.run_check(exp.call, x16, w, want=np_f(x16), rtol=1e-5, atol=1e-5),
        "polymorphic b=16": lambda: t.run_check(poly.call, x16, w, want=np_f(x16), rtol=1e-5, atol=1e-5),
        "polymorphic b=5": lambda: t.run_check(poly.call, x5, w, want=np_f(x5), rtol=1e-5, atol=1e-5),
    })
    if problems:
        raise CaseFailure("\n".join(problems))


def _rss():
    with open("/proc/self/statm") as fh:
        return int(fh.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")


@case
def case_buffer_lifetime(t):
    """device_put of 4 MiB + a jitted op, each result dropped, 100 warm-up then 500
    measured iterations: resident memory must not grow by more than 128 MiB over
    the 500 (4 GiB if buffers leaked); the same on XLA:CPU for comparison"""
    import gc
    if not os.path.exists("/proc/self/statm"):
        raise Skip("needs /proc/self/statm")
    x = normal(t, 1 << 20)
    f = jax.jit(lambda a: a * 2.0 + 1.0)
    growth = {}

    def loop(dev, n):
        for _ in range(n):
            a = jax.device_put(x, dev)
            b = f(a)
            b.block_until_ready()
            del a, b
        gc.collect()

    for side, dev in t.sides():
        try:
            gc.collect()
            r0 = _rss()
            loop(dev, 100)  # allocator caches fill up here
            r1 = _rss()
            loop(dev, 500)
            growth[side] = ((r1 - r0) / 2 ** 20, (_rss() - r1) / 2 ** 20)
        except Exception as e:
            raise SideError(side, e) from e
    t.note(", ".join(f"{s} RSS +{w:.0f} MiB warm-up, +{g:.0f} MiB after" for s, (w, g) in growth.items()))
    if growth[t.target_name][1] > 128:
        raise CaseFailure(f"{t.target_name}: resident memory grew by {growth[t.target_name][1]:.0f} MiB "
                          f"over 500 iterations of 8 MiB of buffers after the warm-up (leak?)")


# --- the benchmark programs (benches/models.py, slow.py, grads.py) ----------------------

def _register_bench_programs():
    try:
        import grads
        import models
        import slow
    except Exception as e:  # noqa: BLE001  (a broken benches/ must not stop the others)
        def missing(t, e=e):
            raise Skip(f"benches/ programs not importable: {type(e).__name__}: {e}")
        missing.__doc__ = "the benchmark programs of benches/ (not importable here)"
        CASES["benches"] = missing
        return
    for set_name, mod in (("models", models), ("slow", slow), ("grads", grads)):
        for c in mod.CASES.values():
            def run(t, c=c):
                got, ref = t.run(c.build(jax, jnp), *c.inputs())
                problems = t.pair_problems(got, ref, rtol=1e-3, scaled_atol=1e-3)
                if problems:
                    raise CaseFailure("\n".join(problems))
            run.__doc__ = f"benches/{set_name}.py: {c.note} (compared with XLA:CPU; atol 1e-3 of max|ref|)"
            CASES[f"{set_name}.{c.name}"] = run


_register_bench_programs()


# --- negative cases: must raise (or work), never crash ---------------------------------

@case
def case_neg_unsupported_dtypes(t):
    """device_put of float8 / int4 / float4 arrays and a jitted op on them: each must
    round-trip exactly or raise a Python exception (records which)"""
    if ml_dtypes is None:
        raise Skip("needs ml_dtypes")
    names = ["float8_e4m3fn", "float8_e5m2", "float8_e4m3b11fnuz", "float8_e8m0fnu", "int4", "uint4",
             "float4_e2m1fn", "int2"]
    outcomes = []
    problems = []
    for name in names:
        dt = getattr(ml_dtypes, name, None)
        if dt is None:
            continue
        if _is_exact_kind(dt):
            info = ml_dtypes.iinfo(dt)
            x = (np.arange(24) % (int(info.max) - int(info.min) + 1) + int(info.min)).astype(dt).reshape(4, 6)
        else:
            x = (np.linspace(-2, 2, 24)).astype(dt).reshape(4, 6)
        t.step(name)
        try:
            a = jax.device_put(x, t.target)
            back = np.asarray(a)
        except Exception as e:
            outcomes.append(f"{name}: put raises {type(e).__name__}: {_first_line(e)}")
            continue
        p = compare(back, x, exact=True, label=f"{name} round trip: ")
        if p:
            problems += p
            outcomes.append(f"{name}: round trip WRONG")
            continue
        try:
            with jax.default_device(t.target):
                y = np.asarray(jax.jit(lambda a: a.astype(jnp.float32) * 2)(a))
        except Exception as e:
            outcomes.append(f"{name}: put ok, jit raises {type(e).__name__}: {_first_line(e)}")
            continue
        p = compare(y, x.astype(f32) * 2, exact=True, label=f"{name} jit: ")
        problems += p
        outcomes.append(f"{name}: {'works' if not p else 'jit result WRONG'}")
    for o in outcomes:
        t.note(o)
    if problems:
        raise CaseFailure("\n".join(problems))


def _first_line(e, n=200):
    s = str(e).strip().splitlines()
    s = s[0] if s else ""
    return s if len(s) <= n else s[:n] + "..."


@case
def case_neg_pure_callback(t):
    """jax.pure_callback inside a jitted program: must either compute the right
    result or raise a Python exception (records which)"""
    x = normal(t, 16)

    def f(x):
        y = jax.pure_callback(lambda a: np.sin(a).astype(a.dtype), jax.ShapeDtypeStruct(x.shape, x.dtype), x)
        return y * 2

    try:
        got = t.on(t.target_name, t.target, f, x)
    except SideError as e:
        t.note(f"raises {type(e.exc).__name__}: {_first_line(e.exc)}")
        return
    p = compare(got, np.sin(x) * 2, rtol=1e-6, atol=1e-6, check_dtype=False, label="pure_callback result: ")
    if p:
        raise CaseFailure("\n".join(p))
    t.note("works")


@case
def case_neg_debug_print(t):
    """jax.debug.print inside a jitted program: must either print and compute the
    right result or raise a Python exception (records which)"""
    x = np.arange(10, dtype=f32)
    buf = io.StringIO()

    def f(x):
        jax.debug.print("xla_rs debug: sum={s}", s=x.sum())
        return x + 1

    try:
        with contextlib.redirect_stdout(buf):
            got = t.on(t.target_name, t.target, f, x)
            jax.effects_barrier()
    except SideError as e:
        t.note(f"raises {type(e.exc).__name__}: {_first_line(e.exc)}")
        return
    problems = compare(got, x + 1, exact=True, label="result: ")
    if "xla_rs debug: sum=45" not in buf.getvalue():
        problems.append(f"printed {buf.getvalue()!r}, expected 'xla_rs debug: sum=45.0'")
    if problems:
        raise CaseFailure("\n".join(problems))
    t.note("works")


def _raw_executable(t, x):
    """(the plugin's LoadedExecutable.execute_sharded for `a * 2 + 1` on x's
    shape, a call helper returning the outputs as numpy, x on the plugin)."""
    xd = jax.device_put(x, t.target)
    try:
        compiled = jax.jit(lambda a: a * 2 + 1).lower(xd).compile()
        run = compiled._executable.xla_executable.execute_sharded
    except AttributeError as e:
        raise Skip(f"no LoadedExecutable.execute_sharded in this jax: {e}")
    except Exception as e:
        raise SideError(t.target_name, e) from e

    def call(args):
        res = run(list(args))
        outs = res.disassemble_into_single_device_arrays()
        return [np.asarray(o[0]) for o in outs]

    try:  # the right call first: the path works at all
        ok = call([xd])
    except Exception as e:
        raise SideError(t.target_name, e) from e
    problems = compare(ok[0], x * 2 + 1, exact=True, label="execute_sharded with the right buffer: ")
    if problems:
        raise CaseFailure("\n".join(problems))
    return call, xd


@case
def case_neg_wrong_buffers(t):
    """the compiled executable called directly (LoadedExecutable.execute_sharded,
    bypassing JAX's checks) with wrong-sized buffers, too few / too many arguments:
    each must raise; same-size wrong dtype/shape may run or raise"""
    x = normal(t, 4, 8)
    call, xd = _raw_executable(t, x)
    problems = []
    must_raise = {
        "wrong size (f32[3,8])": [jax.device_put(normal(t, 3, 8), t.target)],
        "wrong size (f32[64])": [jax.device_put(normal(t, 64), t.target)],
        "no arguments": [],
        "two arguments": [xd, xd],
    }
    may_raise = {
        "same size, int32": [jax.device_put(np.arange(32, dtype=i32).reshape(4, 8), t.target)],
        "same size, f32[8,4]": [jax.device_put(normal(t, 8, 4), t.target)],
    }
    for label, args in must_raise.items():
        t.step(label)
        try:
            call(args)
            problems.append(f"{label}: did not raise")
        except Exception as e:
            t.note(f"{label}: {type(e).__name__}: {_first_line(e, 120)}")
    for label, args in may_raise.items():
        t.step(label)
        try:
            call(args)
            t.note(f"{label}: runs")
        except Exception as e:
            t.note(f"{label}: {type(e).__name__}: {_first_line(e, 120)}")
    if problems:
        raise CaseFailure("\n".join(problems))


@case
def case_neg_foreign_buffer(t):
    """the plugin's executable called directly with an XLA:CPU buffer: must raise.
    (jaxlib's C API client hands the plugin whatever pointer it finds in the
    foreign buffer object: only a plugin that validates its buffer handles survives)"""
    if t.target_name == t.ref_name or ARGS.self_test:
        raise Skip("needs two different backends")
    x = normal(t, 4, 8)
    call, _ = _raw_executable(t, x)
    t.step(f"buffer on {t.ref_name}")
    try:
        call([jax.device_put(x, t.ref)])
    except Exception as e:
        t.note(f"raises {type(e).__name__}: {_first_line(e, 160)}")
        return
    raise CaseFailure(f"a {t.ref_name} buffer passed to the {t.target_name} executable did not raise")


# ======================================================================================
# Running
# ======================================================================================

REF_NAME = [REF]


def pick_devices():
    """(target device, reference device, target name, reference name)."""
    if ARGS.self_test:
        cpus = jax.devices("cpu")
        if len(cpus) < 2:
            raise RuntimeError("--self-test needs two cpu devices (XLA_FLAGS was set too late?)")
        REF_NAME[0] = "cpu:0"
        return cpus[1], cpus[0], "cpu:1", "cpu:0"
    platforms = [p.strip() for p in os.environ.get("JAX_PLATFORMS", "").split(",")]
    missing = [p for p in (TARGET, REF) if p not in platforms]
    if missing:
        raise RuntimeError(f"JAX_PLATFORMS={os.environ.get('JAX_PLATFORMS')!r} lacks {', '.join(missing)}: "
                           f"run with JAX_PLATFORMS={TARGET},{REF}")
    return jax.devices(TARGET)[0], jax.devices(REF)[0], TARGET, REF


def describe_backends():
    target, ref, tname, rname = pick_devices()
    import jaxlib
    lines = [f"jax {jax.__version__}, jaxlib {jaxlib.__version__}, numpy {np.__version__}"]
    for name, dev in ((tname, target), (rname, ref)):
        client = dev.client
        lines.append(f"{name}: {dev!r} platform={dev.platform!r} "
                     f"platform_version={getattr(client, 'platform_version', '?')!r} "
                     f"devices={len(client.devices())}")
    if not ARGS.self_test:
        try:
            import jax_plugins.xla_rs as plug
            lines.append(f"plugin module {plug.__file__}, library {plug.library_path()}")
        except Exception as e:  # the module is optional when PJRT_NAMES_AND_LIBRARY_PATHS is used
            lines.append(f"plugin module not importable: {e}")
    return lines


def run_case(name):
    """Runs one case in this process -> result dict."""
    start = time.perf_counter()
    res = {"name": name, "status": "PASS", "message": "", "notes": [], "traceback": ""}
    try:
        target, ref, tname, rname = pick_devices()
        t = T(name, target, ref, tname, rname)
        try:
            CASES[name](t)
        finally:
            res["notes"] = t.notes
    except Skip as e:
        res["status"], res["message"] = "SKIP", str(e)
    except SideError as e:
        on_ref = e.side == REF_NAME[0]
        res["status"] = "ERROR" if on_ref else "FAIL"
        res["message"] = f"reference side (a problem of this script): {e}" if on_ref else str(e)
        res["traceback"] = traceback.format_exc()
    except CaseFailure as e:
        res["status"], res["message"] = "FAIL", str(e)
        res["traceback"] = traceback.format_exc()
    except Exception as e:
        res["status"], res["message"] = "FAIL", f"{type(e).__name__}: {e}"
        res["traceback"] = traceback.format_exc()
    res["seconds"] = time.perf_counter() - start
    return res


def run_isolated(name):
    """Runs one case in a child process -> result dict (a crash or a timeout is a FAIL)."""
    cmd = [sys.executable, os.path.abspath(__file__), "--worker", name]
    if ARGS.self_test:
        cmd.append("--self-test")
    start = time.perf_counter()
    try:
        p = subprocess.run(cmd, capture_output=True, text=True, timeout=ARGS.timeout)
    except subprocess.TimeoutExpired as e:
        out = (e.stderr or b"")
        out = out.decode(errors="replace") if isinstance(out, bytes) else out
        return {"name": name, "status": "FAIL", "message": f"timed out after {ARGS.timeout:.0f} s",
                "notes": [], "traceback": _tail(out), "seconds": time.perf_counter() - start}
    for line in p.stdout.splitlines():
        if line.startswith(RESULT_TAG):
            res = json.loads(line[len(RESULT_TAG):])
            if ARGS.verbose:
                res["child_output"] = (p.stdout.replace(line, "").strip() + "\n" + p.stderr.strip()).strip()
            return res
    if p.returncode < 0:
        try:
            why = f"crashed: {signal.Signals(-p.returncode).name}"
        except ValueError:
            why = f"crashed: signal {-p.returncode}"
    else:
        why = f"exited with status {p.returncode} and no result"
    out = p.stderr + "\n" + p.stdout
    steps = [ln.split("step: ", 1)[1] for ln in out.splitlines() if f"[{name}] step: " in ln]
    if steps:
        why += f" in step '{steps[-1]}'"
    panic = [ln.strip() for i, ln in enumerate(out.splitlines())
             if "panicked at" in ln or (i and "panicked at" in out.splitlines()[i - 1])]
    if panic:
        why += ": " + " ".join(panic[:2])
    return {"name": name, "status": "FAIL", "message": why, "notes": [],
            "traceback": _crash_tail(out), "seconds": time.perf_counter() - start}


def _tail(text, n=25):
    lines = [ln for ln in text.strip().splitlines() if ln.strip()]
    return "\n".join(lines[-n:])


def _crash_tail(text, n=25):
    """The useful part of a crashed child's output: without the frames of a
    Rust backtrace and the list of extension modules."""
    keep = []
    for ln in text.strip().splitlines():
        s = ln.strip()
        if not s or s.startswith("Extension modules:") or (s.split(":")[0].isdigit() and ": " in s) \
                or s.startswith("at ") or s.startswith("note: Some details"):
            continue
        keep.append(ln)
    return "\n".join(keep[-n:])


def print_result(res, width):
    status = res["status"]
    msg = res["message"].strip().splitlines()
    first = msg[0] if msg else ""
    if len(msg) > 1:
        first += f" (+{len(msg) - 1} more)"
    notes = "; ".join(res.get("notes") or [])
    tail = first if status != "PASS" else notes
    if len(tail) > 300 and not ARGS.verbose:
        tail = tail[:300] + "..."
    print(f"{status:5} {res['name']:{width}} {res['seconds']:7.2f}s  {tail}".rstrip(), flush=True)
    if ARGS.verbose:
        if status != "PASS" and notes:
            print(f"      notes: {notes}")
        if len(msg) > 1:
            print("\n".join("      " + m for m in msg[1:]))
        if res.get("traceback") and status in ("FAIL", "ERROR"):
            print("\n".join("      | " + ln for ln in res["traceback"].splitlines()))
        if res.get("child_output"):
            print("\n".join("      > " + ln for ln in res["child_output"].splitlines()))


def selected():
    names = list(CASES)
    if ARGS.filter:
        keys = [k.strip() for k in ARGS.filter.split(",") if k.strip()]
        names = [n for n in names if any(k in n for k in keys)]
    return names


def main():
    if ARGS.worker:
        if ARGS.worker == "@probe":
            print("\n".join(describe_backends()), flush=True)
            return 0
        faulthandler_enable()
        res = run_case(ARGS.worker)
        print(RESULT_TAG + json.dumps(res), flush=True)
        return 0

    names = selected()
    if ARGS.list:
        for n in names:
            doc = " ".join((CASES[n].__doc__ or "").split())
            print(f"{n:30} {doc}")
        return 0
    if not names:
        print(f"no case matches -k {ARGS.filter!r}", file=sys.stderr)
        return 2

    # the backends first: without them nothing below means anything
    if ARGS.isolate:
        p = subprocess.run([sys.executable, os.path.abspath(__file__), "--worker", "@probe"]
                           + (["--self-test"] if ARGS.self_test else []),
                           capture_output=True, text=True, timeout=ARGS.timeout)
        if p.returncode != 0:
            print("cannot initialize the backends:\n" + _tail(p.stderr + "\n" + p.stdout, 40), file=sys.stderr)
            return 2
        print(p.stdout.strip())
    else:
        try:
            print("\n".join(describe_backends()))
        except Exception as e:
            print(f"cannot initialize the backends: {type(e).__name__}: {e}", file=sys.stderr)
            return 2
    print(f"{len(names)} cases{' (each in its own process)' if ARGS.isolate else ''}\n", flush=True)

    width = max(len(n) for n in names)
    results = []
    for name in names:
        res = run_isolated(name) if ARGS.isolate else run_case(name)
        results.append(res)
        print_result(res, width)

    counts = {s: sum(r["status"] == s for r in results) for s in ("PASS", "FAIL", "ERROR", "SKIP")}
    bad = [r for r in results if r["status"] in ("FAIL", "ERROR")]
    print(f"\n{len(results)} cases: {counts['PASS']} passed, {counts['FAIL']} failed, "
          f"{counts['ERROR']} reference errors, {counts['SKIP']} skipped")
    if bad and not ARGS.verbose:
        print("\nfailures:")
        for r in bad:
            print(f"--- {r['name']} ({r['status']})")
            print("\n".join("    " + ln for ln in r["message"].strip().splitlines()[:20]))
            if r["message"].startswith(("crashed", "exited", "timed out")) and r.get("traceback"):
                print("\n".join("    | " + ln for ln in r["traceback"].splitlines()))
    return 1 if bad else 0


def faulthandler_enable():
    import faulthandler
    faulthandler.enable(all_threads=False)


if __name__ == "__main__":
    sys.exit(main())
