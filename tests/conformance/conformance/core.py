"""A conformance case, how it is computed by JAX/XLA:CPU, written, and re-checked."""
import dataclasses
import functools
import json
import os
import re
from typing import Any, Callable

import jax
import numpy as np

from . import compare as C
from . import dtypes as D
from . import hlo_text
from . import tolerance as T

EXACT = "exact"
# The repository root (this file is tests/conformance/conformance/core.py).
REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))
# Opcodes left out of the "ops" summaries (present in nearly every module).
PLUMBING = {"parameter", "tuple", "get-tuple-element"}


@dataclasses.dataclass
class Case:
    """One function, its inputs, and how its outputs may be compared.

    family/name: the case directory is `<family>__<name>`.
    fn: the JAX function; called with the arguments as positional parameters.
    op: the operation under test, in HLO spelling (e.g. "exponential").
    tolerance: EXACT or a policy of tolerance.py.
    reference: float64 reference for the policy's measurement: called with the
        arguments converted to float64/complex128 (subnormals flushed where XLA:CPU
        flushes them; integers unchanged); returns an array or a tuple of arrays.
    notes: what the case checks and what XLA:CPU did with the edge cases.
    flushes: the operation flushes subnormal inputs and results (the reference is
        fed flushed inputs and its results are flushed); False for operations that
        keep subnormal bit patterns (neg, abs, data movement).
    shardings: per-argument jax.sharding.Sharding for multi-device cases.
    x64: enable jax_enable_x64 even though no argument is 64-bit (64-bit results).
    extra: more case.json fields (e.g. the RNG algorithm).
    optimized: write the module XLA:CPU compiled (`lowered.compile().as_text()`:
        fusions, layouts, XLA's custom calls) instead of the module JAX lowered.
    """

    family: str
    name: str
    fn: Callable
    args: list
    op: str
    tolerance: Any = EXACT
    reference: Callable | None = None
    notes: str = ""
    flushes: bool = True
    shardings: list | None = None
    x64: bool = False
    extra: dict = dataclasses.field(default_factory=dict)
    optimized: bool = False

    @property
    def dirname(self):
        return f"{self.family}__{self.name}"

    def needs_x64(self):
        return self.x64 or any(D.name(np.asarray(a).dtype) in D.WIDE for a in self.args)


@dataclasses.dataclass
class Built:
    """A case computed by XLA: module text, inputs, outputs and case.json."""

    case: Case
    module: str
    stablehlo: str
    exported: bytes
    args: list
    outs: list
    meta: dict
    args_per_device: list | None = None  # [arg][device]
    outs_per_device: list | None = None  # [out][device]


def _spec(a):
    a = np.asarray(a)
    return {"dtype": D.name(a.dtype), "shape": list(a.shape)}


def _device_args(case, args):
    if case.shardings is None:
        return list(args)
    return [jax.device_put(a, s) for a, s in zip(args, case.shardings)]


def _per_device(array):
    shards = sorted(array.addressable_shards, key=lambda s: s.device.id)
    return [np.asarray(s.data) for s in shards]


def run(case, args):
    """Compiles and runs case.fn on `args` (NumPy); returns (lowered, output leaves)."""
    jax.config.update("jax_enable_x64", case.needs_x64())
    dev_args = _device_args(case, args)
    jitted = jax.jit(case.fn, keep_unused=True)
    lowered = jitted.lower(*dev_args)
    outs = jax.tree_util.tree_leaves(jitted(*dev_args))
    return lowered, dev_args, outs


def _flat(fn):
    """fn with its results as a flat tuple: `jax.export` serializes only pytrees of
    registered types (not e.g. `jnp.linalg.qr`'s named tuple)."""
    @functools.wraps(fn)
    def flat(*args):
        return tuple(jax.tree_util.tree_leaves(fn(*args)))
    return flat


def export(case, dev_args, custom_calls):
    """The `jax.export` artifact of case.fn (a FlatBuffer holding the module as
    VHLO bytecode). Source locations in it name the generator's files relative
    to the repository, so that regenerating elsewhere gives the same bytes. The
    module's custom calls are allowed even where JAX gives no compatibility
    guarantee for them (e.g. `lapack_sgesvd_ffi`)."""
    jax.config.update("jax_hlo_source_file_canonicalization_regex", "^" + re.escape(REPO + os.sep))
    checks = [jax.export.DisabledSafetyCheck.custom_call(t) for t in custom_calls]
    try:
        exporter = jax.export.export(jax.jit(_flat(case.fn), keep_unused=True), disabled_checks=checks)
        return bytes(exporter(*dev_args).serialize())
    finally:
        jax.config.update("jax_hlo_source_file_canonicalization_regex", None)


def _check_signature(case, module, args, outs):
    """The flattened outputs must be the module's results, in the same order."""
    params, results = hlo_text.entry_signature(module)
    got_params = [(D.name(a.dtype), list(a.shape)) for a in args]
    got_results = [(D.name(o.dtype), list(o.shape)) for o in outs]
    if [tuple(p) for p in params] != [tuple(p) for p in got_params]:
        raise AssertionError(f"{case.dirname}: parameters {params} != arguments {got_params}")
    if [tuple(r) for r in results] != [tuple(r) for r in got_results]:
        raise AssertionError(f"{case.dirname}: results {results} != outputs {got_results}")


def _reference_args(args, flushes):
    out = []
    for a in args:
        a = np.asarray(a)
        if a.dtype.kind == "c" or D.name(a.dtype) in D.FLOATS:
            a = D.flush(a) if flushes and D.flushes_subnormals(a.dtype) else a
            a = a.astype(np.complex128 if a.dtype.kind == "c" else np.float64)
        out.append(a)
    return out


def _show(x):
    x = x.item() if hasattr(x, "item") else x
    return repr(x) if isinstance(x, (float, complex)) else x


def _against_reference(case, args, outs):
    """Measures XLA's float outputs against case.reference (see tolerance.measure).

    Returns (merged statistics or None, [(output, rounded reference, disagreement mask)],
    disagreement examples). Non-float outputs must equal the reference exactly.
    """
    refs = case.reference(*_reference_args(args, case.flushes))
    refs = list(refs) if isinstance(refs, (tuple, list)) else [refs]
    if len(refs) != len(outs):
        raise AssertionError(f"{case.dirname}: reference gives {len(refs)} outputs, XLA {len(outs)}")
    total, checks, examples, unchecked = None, [], [], []
    for j, (out, ref) in enumerate(zip(outs, refs)):
        if out.dtype.kind not in "fcV":
            ref = np.asarray(ref).astype(out.dtype)
            stats = {"max_ulp": 0.0, "max_abs": 0.0, "max_rel": 0.0, "max_abs_at_zero": 0.0, "max_reference": 0.0}
            disagree = out != ref
            stats["disagreements"] = int(disagree.sum())
            want = ref
        else:
            outliers = getattr(case.tolerance, "outliers", False)
            stats, disagree, want = T.measure(out, ref, case.flushes, outliers)
            if case.tolerance == EXACT:
                disagree = disagree | ~C.matches(want, out, True, {})
                stats["disagreements"] = int(disagree.sum())
        total = stats if total is None else {k: max(v, stats[k]) for k, v in total.items()}
        checks.append((out, want, disagree))
        unchecked += [[j, int(i)] for i in np.flatnonzero(disagree.reshape(-1))]
        for i in np.flatnonzero(disagree.reshape(-1))[: 8 - len(examples)]:
            ex = {"output": j, "index": int(i), "xla": _show(out.reshape(-1)[i]),
                  "reference": _show(np.asarray(ref).reshape(-1)[i])}
            if all(np.shape(a) == out.shape for a in args):
                ex["inputs"] = [_show(np.asarray(a).reshape(-1)[i]) for a in args]
            examples.append(ex)
    return total, checks, examples, unchecked


def _tolerance(case, args, outs):
    """(exact, tolerance, measured, unchecked elements) for case.json."""
    if case.reference is None:
        if case.tolerance == EXACT:
            return True, {"atol": 0.0, "rtol": 0.0}, None, []
        return False, case.tolerance.derive(None, outs[0].dtype), None, []
    total, checks, examples, unchecked = _against_reference(case, args, outs)
    if case.tolerance == EXACT:
        exact, tol = True, {"atol": 0.0, "rtol": 0.0}
    else:
        float_outs = [o for o in outs if o.dtype.kind in "fcV"]
        exact, tol = False, case.tolerance.derive(total, float_outs[0].dtype)
        for out, want, disagree in checks:
            ok = C.matches(want, out, False, tol) | disagree
            if not ok.all():
                raise AssertionError(f"{case.dirname}: tolerance {tol} does not cover the "
                                     f"float64 reference (measured {total})")
    measured = {k: v for k, v in total.items() if k not in ("max_abs_at_zero", "max_reference")}
    if exact:
        measured = {"disagreements": total["disagreements"]}
        unchecked = []  # exact cases compare every element: XLA's value is the answer
    if examples:
        measured["disagreement_examples"] = examples
    return exact, tol, measured, unchecked


def build(case):
    """Runs the case through JAX/XLA:CPU and assembles everything that gets written.
    JAX's caches are cleared first: a function traced by an earlier case (e.g. the
    threefry helpers) would otherwise lower differently than in a run of this case alone."""
    jax.clear_caches()
    lowered, dev_args, outs_dev = run(case, case.args)
    if case.optimized:
        # XLA's stack-frame tables name the generator's files: written relative
        # to the repository, so that regenerating elsewhere gives the same text.
        module = lowered.compile().as_text().replace(REPO + os.sep, "")
    else:
        module = lowered.as_text(dialect="hlo")
    args = [np.asarray(a) for a in case.args]
    outs = [np.asarray(o) for o in outs_dev]
    _check_signature(case, module, args, outs)
    exact, tol, measured, unchecked = _tolerance(case, args, outs)
    ops = hlo_text.opcodes(module)
    dtypes = list(dict.fromkeys(D.name(a.dtype) for a in args + outs))
    meta = {
        "family": case.family,
        "name": case.name,
        "op": case.op,
        "ops": sorted(set(ops) - PLUMBING),
        "dtypes": dtypes,
        "args": [_spec(a) for a in args],
        "outs": [_spec(o) for o in outs],
        "exact": exact,
        "tolerance": tol,
    }
    if measured is not None:
        meta["measured"] = measured
    if unchecked:
        meta["unchecked"] = unchecked
    meta["custom_calls"] = hlo_text.custom_call_targets(module)
    meta["x64"] = case.needs_x64()
    stablehlo = lowered.as_text()
    built = Built(case, module, stablehlo, export(case, dev_args, meta["custom_calls"]), args, outs, meta)
    if case.shardings is not None:
        meta["num_partitions"] = _module_attr(stablehlo, "mhlo.num_partitions")
        meta["num_replicas"] = _module_attr(stablehlo, "mhlo.num_replicas")
        meta["spmd"] = "xla.sdy.manual_computation_body" in module or "sharding=" in module
        meta["devices"] = len(case.shardings[0].device_set)
        built.args_per_device = [_per_device(a) for a in dev_args]
        built.outs_per_device = [_per_device(o) for o in outs_dev]
    meta.update(case.extra)
    meta["notes"] = case.notes
    return built


def _module_attr(stablehlo, key):
    for line in stablehlo.splitlines():
        if line.startswith("module @") and key in line:
            return int(line.split(key + " = ", 1)[1].split(" ", 1)[0])
    raise AssertionError(f"{key} not found in the StableHLO module")


def _files(built):
    """{file name: bytes} of a built case."""
    files = {
        "module.hlo": built.module.encode(),
        "module.mlir": built.stablehlo.encode(),
        "module.jax_export": built.exported,
        "case.json": format_json(built.meta).encode(),
    }
    for i, a in enumerate(built.args):
        files[f"arg{i}.npy"] = _npy(a)
    for j, o in enumerate(built.outs):
        files[f"out{j}.npy"] = _npy(o)
    for i, per_dev in enumerate(built.args_per_device or []):
        for k, a in enumerate(per_dev):
            files[f"arg{i}.d{k}.npy"] = _npy(a)
    for j, per_dev in enumerate(built.outs_per_device or []):
        for k, o in enumerate(per_dev):
            files[f"out{j}.d{k}.npy"] = _npy(o)
    return files


def format_json(meta):
    """case.json text: one top-level key per line, each value on one line."""
    lines = [f" {json.dumps(k)}: {json.dumps(v, ensure_ascii=False)}" for k, v in meta.items()]
    return "{\n" + ",\n".join(lines) + "\n}\n"


def _npy(a):
    import io
    buf = io.BytesIO()
    np.save(buf, np.asarray(a), allow_pickle=False)
    return buf.getvalue()


def write(built, root, only=None):
    """Writes the case's files (only those named in `only`, when given) and
    removes stale ones (when writing all)."""
    path = os.path.join(root, built.case.dirname)
    os.makedirs(path, exist_ok=True)
    files = _files(built)
    if only:
        files = {name: data for name, data in files.items() if name in only}
    else:
        for stale in set(os.listdir(path)) - set(files):
            os.remove(os.path.join(path, stale))
    for fname, data in files.items():
        with open(os.path.join(path, fname), "wb") as f:
            f.write(data)
    return sum(len(d) for d in files.values())


def diff_on_disk(built, root):
    """Files of `built` that are missing or different on disk (determinism check)."""
    path = os.path.join(root, built.case.dirname)
    wrong = []
    files = _files(built)
    on_disk = set(os.listdir(path)) if os.path.isdir(path) else set()
    for fname, data in files.items():
        full = os.path.join(path, fname)
        if fname not in on_disk or open(full, "rb").read() != data:
            wrong.append(fname)
    wrong += sorted(on_disk - set(files))
    return wrong


def load_npy(path, dtype_name):
    a = np.load(path, allow_pickle=False)
    return a.view(D.dt(dtype_name)) if dtype_name == "bf16" else a


def rerun_saved(case, root):
    """Recompiles the case and runs it on the inputs read back from disk; returns the
    names of saved outputs that XLA does not reproduce bit-exactly."""
    path = os.path.join(root, case.dirname)
    meta = json.load(open(os.path.join(path, "case.json")))
    args = [load_npy(os.path.join(path, f"arg{i}.npy"), s["dtype"]) for i, s in enumerate(meta["args"])]
    jax.clear_caches()
    _, _, outs = run(case, args)
    bad = []
    for j, (o, s) in enumerate(zip(outs, meta["outs"])):
        if not C.bit_identical(np.asarray(o), load_npy(os.path.join(path, f"out{j}.npy"), s["dtype"])):
            bad.append(f"out{j}.npy")
        if case.shardings is not None:
            for k, shard in enumerate(_per_device(o)):
                saved = load_npy(os.path.join(path, f"out{j}.d{k}.npy"), s["dtype"])
                if not C.bit_identical(shard, saved):
                    bad.append(f"out{j}.d{k}.npy")
    return bad
