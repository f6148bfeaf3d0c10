"""Collectives on several devices in one process: `xla bench` of an
all-reduce (sum of f32) of 1 KiB to 256 MiB per device on 2 and 4 devices,
against a plain memcpy of the same bytes (`xla bench` of a copy) and, with
JAX installed, against JAX 0.10's `psum` under `shard_map` on as many CPU
devices; then the data-parallel MLP training step of `tests/collectives/`
(784-512-10, batch 256, gradients averaged by an all-reduce) on 1, 2 and 4
devices, against JAX's.

    cargo build --release
    XLA_FLAGS=--xla_force_host_platform_device_count=4 python benches/collectives.py

`--no-jax` skips JAX. `--mpi` also runs the same modules over MPI
(`mpirun -np N xla bench`, one device per process) and OpenMPI's own
`MPI_Allreduce` against the MPI communicator on 2 and 4 processes
(`crates/xla-jit/examples/mpi_collectives.rs`); build both first with
`cargo build --release --features mpi --bin xla` and `cargo build --release
--features mpi -p xla-jit --example mpi_collectives`. The all-reduce's bus traffic is read-everything-twice:
each of N devices combines 1/N of the elements from all N inputs and writes
it to all N outputs, so it moves 2·N·S bytes for S bytes per device where a
memcpy moves 2·S; the table gives the rate of both in GB/s of S (one
device's buffer) per second, and the all-reduce's in bytes moved.
"""

import argparse
import json
import os
import pathlib
import subprocess
import sys
import tempfile

HERE = pathlib.Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path.insert(0, str(HERE))
from timing import median, time_runs  # noqa: E402

SIZES = [1 << 10, 16 << 10, 256 << 10, 4 << 20, 64 << 20, 256 << 20]

ALL_REDUCE = """HloModule all_reduce_{n}x{elements}, replica_count={n}

add {{
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT r = f32[] add(a, b)
}}

ENTRY e {{
  x = f32[{elements}] parameter(0)
  ROOT y = f32[{elements}] all-reduce(x), to_apply=add
}}
"""

COPY = """HloModule copy_{elements}

ENTRY e {{
  x = f32[{elements}] parameter(0)
  ROOT y = f32[{elements}] copy(x)
}}
"""


def human(size):
    for unit, scale in (("MiB", 1 << 20), ("KiB", 1 << 10)):
        if size >= scale:
            return f"{size // scale} {unit}"
    return f"{size} B"


def all_reduce_module(tmp, n, elements):
    """Writes the all-reduce of `elements` f32 on `n` devices into `tmp`; its path."""
    module = tmp / f"all_reduce_{n}x{elements}.hlo"
    module.write_text(ALL_REDUCE.format(n=n, elements=elements))
    return module


def xla_bench(xla, path, timing, extra=(), launcher=()):
    """`xla bench`'s median run in ms (under `mpirun` when given)."""
    out = subprocess.run(
        [*launcher, xla, "bench", str(path), "--json", timing, *extra],
        check=True,
        capture_output=True,
        text=True,
    )
    return json.loads(out.stdout)[0]["run_ms"]["median"]


def mpirun(n):
    return ["mpirun", "--oversubscribe", "--allow-run-as-root", "-np", str(n)]


def jax_psum(n, elements, min_time):
    import jax
    import jax.numpy as jnp
    import numpy as np
    from jax.sharding import Mesh, NamedSharding, PartitionSpec as P

    mesh = Mesh(np.array(jax.devices("cpu")[:n]), ("d",))
    f = jax.jit(
        jax.shard_map(lambda x: jax.lax.psum(x, "d"), mesh=mesh, in_specs=P("d"), out_specs=P("d"))
    )
    x = jax.device_put(
        jnp.ones((n * elements,), jnp.float32), NamedSharding(mesh, P("d"))
    )
    return median(time_runs(lambda: f(x).block_until_ready(), min_time)) * 1e3


def jax_dp_mlp(n, min_time):
    sys.path.insert(0, str(ROOT / "tests" / "collectives"))
    import jax
    import make_dp_mlp

    step = make_dp_mlp.step_for(n)
    args = [jax.numpy.asarray(a) for a in make_dp_mlp.inputs(784, 512, 256, 1)]
    return median(time_runs(lambda: jax.block_until_ready(step(*args)), min_time)) * 1e3


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--xla", default=str(ROOT / "target" / "release" / "xla"))
    parser.add_argument("--devices", default="2,4")
    parser.add_argument("--min-time", type=float, default=0.5)
    parser.add_argument("--no-jax", action="store_true")
    parser.add_argument("--mpi", action="store_true")
    args = parser.parse_args()
    devices = [int(d) for d in args.devices.split(",")]
    use_jax = not args.no_jax
    if use_jax:
        os.environ.setdefault("XLA_FLAGS", "--xla_force_host_platform_device_count=4")
        os.environ.setdefault("JAX_PLATFORMS", "cpu")
        try:
            import jax

            if len(jax.devices("cpu")) < max(devices + [4]):
                print("JAX has too few CPU devices; XLA_FLAGS was set too late", file=sys.stderr)
                use_jax = False
        except ImportError:
            use_jax = False
    print("| per device | devices | ours ms | ours GB/s (moved) | memcpy ms | memcpy GB/s | JAX psum ms | speed |")
    print("|---:|---:|---:|---:|---:|---:|---:|---:|")
    with tempfile.TemporaryDirectory() as tmp:
        tmp = pathlib.Path(tmp)
        for size in SIZES:
            elements = size // 4
            copy = tmp / f"copy_{elements}.hlo"
            copy.write_text(COPY.format(elements=elements))
            copy_ms = xla_bench(args.xla, copy, f"--min-time={args.min_time}")
            for n in devices:
                module = all_reduce_module(tmp, n, elements)
                ours = xla_bench(args.xla, module, f"--min-time={args.min_time}")
                moved = 2 * n * size
                theirs = jax_psum(n, elements, args.min_time) if use_jax else float("nan")
                print(
                    f"| {human(size)} | {n} | {ours:.3f} | {size / ours / 1e6:.2f} ({moved / ours / 1e6:.1f}) "
                    f"| {copy_ms:.3f} | {size / copy_ms / 1e6:.2f} | {theirs:.3f} | {theirs / ours:.2f} |",
                    flush=True,
                )
    print()
    print("| data-parallel MLP step | devices | ours ms | JAX ms | speed |")
    print("|---|---:|---:|---:|---:|")
    for n in (1, 2, 4):
        module = ROOT / "tests" / "collectives" / f"dp_mlp_{n}.hlo"
        ours = xla_bench(args.xla, module, f"--min-time={args.min_time}", [f"--num-partitions={n}"])
        theirs = jax_dp_mlp(n, args.min_time) if use_jax else float("nan")
        print(f"| 784-512-10, batch 256 | {n} | {ours:.3f} | {theirs:.3f} | {theirs / ours:.2f} |", flush=True)
    if args.mpi:
        print()
        print("| per process | processes | xla bench over MPI ms | GB/s |")
        print("|---:|---:|---:|---:|")
        with tempfile.TemporaryDirectory() as tmp:
            tmp = pathlib.Path(tmp)
            for size in SIZES:
                elements = size // 4
                for n in devices:
                    module = all_reduce_module(tmp, n, elements)
                    runs = max(5, min(2000, (1 << 30) // size))
                    ours = xla_bench(args.xla, module, f"--runs={runs}", launcher=mpirun(n))
                    print(f"| {human(size)} | {n} | {ours:.4f} | {size / ours / 1e6:.2f} |", flush=True)
        print()
        print("| data-parallel MLP step | processes | xla bench over MPI ms |")
        print("|---|---:|---:|")
        for n in (2, 4):
            module = ROOT / "tests" / "collectives" / f"dp_mlp_{n}.hlo"
            ours = xla_bench(args.xla, module, "--runs=100", [f"--num-partitions={n}"], mpirun(n))
            print(f"| 784-512-10, batch 256 | {n} | {ours:.3f} |", flush=True)
        example = ROOT / "target" / "release" / "examples" / "mpi_collectives"
        for n in (2, 4):
            print(flush=True)
            subprocess.run([*mpirun(n), str(example)], check=True)


if __name__ == "__main__":
    main()
