#!/usr/bin/env python3
"""Checks that JAX's own MLIR tooling reads what `xla print --stablehlo` writes.

For every single-device conformance case, `xla print --stablehlo module.hlo`
prints the module as StableHLO text; jaxlib parses and verifies it (its MLIR
context, with the StableHLO and CHLO dialects), XLA:CPU compiles it and runs
it on the case's inputs, and the outputs must match, under the case's
comparison rule (tests/conformance/README.md), those of the case's own
StableHLO (`module.mlir`, as JAX printed it) compiled by XLA:CPU on the same
host (the saved outputs were computed on another CPU, where XLA may round a
conversion differently).

Usage (from the repository root, with the release or debug binary built):
  .venv/bin/python tests/stablehlo/jax_readback.py [--xla target/release/xla] [--only GLOB]
"""
import argparse
import fnmatch
import json
import os
import subprocess
import sys

os.environ.setdefault("JAX_PLATFORMS", "cpu")

import jax  # noqa: E402
import numpy as np  # noqa: E402
from jax._src import xla_bridge  # noqa: E402
from jax._src.interpreters import mlir  # noqa: E402
from jax._src.lib import xla_client as xc  # noqa: E402
from jax._src.lib.mlir import ir  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.join(ROOT, "tests", "conformance"))

from conformance import compare as C  # noqa: E402
from conformance.core import load_npy  # noqa: E402


def run(backend, device, text, args):
    """Compiles StableHLO `text` with XLA:CPU and runs it on `args`."""
    exe = backend.compile_and_load(text, xc.DeviceList((device,)), xc.CompileOptions())
    return exe.execute_sharded(args).disassemble_into_single_device_arrays()


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--xla", default=os.path.join(ROOT, "target", "release", "xla"))
    ap.add_argument("--only", default="*")
    ap.add_argument("--verbose", action="store_true", help="name each case before running it")
    opts = ap.parse_args()
    cases_dir = os.path.join(ROOT, "tests", "conformance", "cases")
    # jaxlib registers its LAPACK kernels (the custom-call targets of the
    # linear-algebra cases) when JAX first uses them; compiling a module that
    # calls an unregistered one crashes instead of failing.
    jax.numpy.linalg.cholesky(np.eye(2, dtype=np.float32)).block_until_ready()
    backend = xla_bridge.get_backend("cpu")
    device = backend.devices()[0]
    passed, failed = 0, []
    for name in sorted(os.listdir(cases_dir)):
        if not fnmatch.fnmatchcase(name, opts.only):
            continue
        path = os.path.join(cases_dir, name)
        if opts.verbose:
            print(name, flush=True)
        meta = json.load(open(os.path.join(path, "case.json")))
        if "devices" in meta:
            continue
        jax.config.update("jax_enable_x64", meta["x64"])
        printed = subprocess.run([opts.xla, "print", "--stablehlo", os.path.join(path, "module.hlo")],
                                 capture_output=True, text=True)
        if printed.returncode != 0:
            failed.append(f"{name}: xla print: {printed.stderr.strip()}")
            continue
        try:
            with mlir.make_ir_context():
                module = ir.Module.parse(printed.stdout)
                if not module.operation.verify():
                    raise ValueError("the module does not verify")
            args = [jax.device_put(load_npy(os.path.join(path, f"arg{i}.npy"), s["dtype"]), device)
                    for i, s in enumerate(meta["args"])]
            outs = run(backend, device, printed.stdout, args)
            reference = run(backend, device, open(os.path.join(path, "module.mlir")).read(), args)
        except Exception as e:  # report every case, not just the first
            failed.append(f"{name}: {type(e).__name__}: {str(e).splitlines()[0][:300]}")
            continue
        bad = []
        tol = meta["tolerance"]
        unchecked = {(j, i) for j, i in meta.get("unchecked", [])}
        for j, s in enumerate(meta["outs"]):
            got = np.asarray(outs[j][0])
            want = np.asarray(reference[j][0])
            ok = C.matches(got.reshape(-1), want.reshape(-1), meta["exact"], tol)
            wrong = [i for i in np.flatnonzero(~ok) if (j, int(i)) not in unchecked]
            if wrong:
                bad.append(f"out{j}: {len(wrong)} elements differ")
        if bad:
            failed.append(f"{name}: {'; '.join(bad)}")
        else:
            passed += 1
    for f in failed:
        print("FAILED:", f)
    print(f"{passed} passed, {len(failed)} failed")
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
