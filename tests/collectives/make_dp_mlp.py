"""Writes the data-parallel MLP training step used by the multi-device tests
and benchmarks: one SGD step of a 2-layer MLP (softmax cross-entropy),
`shard_map` over a 1-D mesh of N devices, each device taking its slice of the
batch; the gradients are averaged with `pmean` (an all-reduce), so every
device ends with the same parameters and the same loss as one device would.

For N in 1, 2 and 4 it writes `dp_mlp_small_N.hlo` (64-32-10, batch 32: the
tests) and `dp_mlp_N.hlo` (784-512-10, batch 256: the benchmark), as JAX
0.10.2 prints them (`lower(...).as_text(dialect="hlo")`). For the small
step it also writes the inputs (`small_*.npy`) and, per N, what XLA:CPU
computes: `small_loss_N.npy` and the updated parameters
`small_out<j>_N.npy` (device 0's; every device holds the same).

    XLA_FLAGS=--xla_force_host_platform_device_count=4 \
        python tests/collectives/make_dp_mlp.py
"""

import os
import pathlib

import jax
import jax.numpy as jnp
import numpy as np
from jax.sharding import Mesh, PartitionSpec as P

HERE = pathlib.Path(__file__).parent
LR = 0.1


def loss_fn(params, x, y):
    w1, b1, w2, b2 = params
    h = jax.nn.relu(x @ w1 + b1)
    logits = h @ w2 + b2
    logp = jax.nn.log_softmax(logits)
    return -jnp.mean(jnp.sum(logp * jax.nn.one_hot(y, 10), axis=-1))


def step_for(n):
    mesh = Mesh(np.array(jax.devices("cpu")[:n]), ("batch",))

    def body(w1, b1, w2, b2, x, y):
        params = (w1, b1, w2, b2)
        loss, grads = jax.value_and_grad(loss_fn)(params, x, y)
        grads = jax.lax.pmean(grads, "batch")
        loss = jax.lax.pmean(loss, "batch")
        new = tuple(p - LR * g for p, g in zip(params, grads))
        return (*new, loss)

    rep = P()
    return jax.jit(
        jax.shard_map(
            body,
            mesh=mesh,
            in_specs=(rep, rep, rep, rep, P("batch"), P("batch")),
            out_specs=(rep, rep, rep, rep, rep),
        )
    )


def inputs(d_in, hidden, batch, seed):
    rng = np.random.default_rng(seed)
    w1 = (rng.standard_normal((d_in, hidden)) / np.sqrt(d_in)).astype(np.float32)
    b1 = (0.1 * rng.standard_normal(hidden)).astype(np.float32)
    w2 = (rng.standard_normal((hidden, 10)) / np.sqrt(hidden)).astype(np.float32)
    b2 = (0.1 * rng.standard_normal(10)).astype(np.float32)
    x = rng.standard_normal((batch, d_in)).astype(np.float32)
    y = rng.integers(0, 10, batch).astype(np.int32)
    return [w1, b1, w2, b2, x, y]


def main():
    assert len(jax.devices("cpu")) >= 4, "set XLA_FLAGS=--xla_force_host_platform_device_count=4"
    small = inputs(64, 32, 32, 0)
    big = inputs(784, 512, 256, 1)
    names = ["w1", "b1", "w2", "b2", "x", "y"]
    for name, value in zip(names, small):
        np.save(HERE / f"small_{name}.npy", value)
    for n in (1, 2, 4):
        step = step_for(n)
        (HERE / f"dp_mlp_small_{n}.hlo").write_text(step.lower(*small).as_text(dialect="hlo"))
        (HERE / f"dp_mlp_{n}.hlo").write_text(step.lower(*big).as_text(dialect="hlo"))
        outs = step(*small)
        for j, out in enumerate(outs[:4]):
            np.save(HERE / f"small_out{j}_{n}.npy", np.asarray(out))
        np.save(HERE / f"small_loss_{n}.npy", np.asarray(outs[4]))
        print(n, "devices: loss", float(outs[4]))


if __name__ == "__main__":
    os.environ.setdefault("JAX_PLATFORMS", "cpu")
    main()
