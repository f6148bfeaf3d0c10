#!/usr/bin/env python3
"""Training programs: the gradient of a loss with respect to a model's
parameters, as `jax.jit(jax.grad(loss))` runs it on JAX and as this project's
`xla grad` derives it from the forward module.

Each case's `build` is the gradient function JAX times; its `forward` is the
loss, which `benches/gen_hlo.py` lowers to `benches/grads/<name>.forward.hlo`
and hands to `xla grad --wrt <the parameters' leaves>`, writing
`benches/grads/<name>.hlo` (so that gen_hlo needs the release binary for this
set: `cargo build --release --bin xla` first). Running this file lists the
cases.
"""
import math
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import models  # noqa: E402
import slow  # noqa: E402
from models import Init  # noqa: E402
from suite import Case, list_cases  # noqa: E402


class GradCase(Case):
    """A case whose program is `jax.grad(forward, argnums=0)`: the gradient
    with respect to every leaf of the first argument (the parameters)."""

    def __init__(self, name, forward, make, note):
        super().__init__(name, lambda jax, jnp: jax.grad(forward(jax, jnp)), make, note)
        self.forward = forward


def _mean_square(program):
    """The loss `mean(program(params, x)²)` of a program of models.py or
    slow.py (its results' squares averaged, for a tuple)."""
    def forward(jax, jnp):
        f = program.build(jax, jnp)

        def loss(params, *rest):
            leaves = jax.tree_util.tree_leaves(f(params, *rest))
            return sum(jnp.mean(jnp.square(leaf)) for leaf in leaves)
        return loss
    return forward


def _mlp_loss(jax, jnp):
    def loss(params, x, labels):
        h = jax.nn.relu(x @ params["w1"] + params["b1"])
        logits = h @ params["w2"] + params["b2"]
        log_probs = jax.nn.log_softmax(logits, axis=-1)
        return -jnp.mean(jnp.sum(jax.nn.one_hot(labels, 10) * log_probs, axis=-1))
    return loss


def _mlp_inputs(seed):
    init = Init(seed)
    params = {"w1": init.normal(784, 512, std=math.sqrt(2.0 / 784)), "b1": init.normal(512, std=0.01),
              "w2": init.normal(512, 10, std=math.sqrt(1.0 / 512)), "b2": init.normal(10, std=0.01)}
    x = init.rng.random((128, 784), dtype="float32")
    labels = init.rng.integers(0, 10, size=128).astype("int32")
    return [params, x, labels]


_ALL = [
    GradCase("mlp_grad", _mlp_loss, _mlp_inputs,
             "gradient of an MLP 784-512-10 cross-entropy loss, batch 128"),
    GradCase("gpt2_block_grad", _mean_square(models.CASES["gpt2_block"]), models.CASES["gpt2_block"].make,
             "gradient of mean(block²) for the GPT-2 small block (1x128x768) w.r.t. its parameters"),
    GradCase("resnet_block_grad", _mean_square(models.CASES["resnet_block"]), models.CASES["resnet_block"].make,
             "gradient of mean(block²) for the ResNet basic block (8x56x56x64) w.r.t. its parameters"),
    GradCase("gru_scan_grad", _mean_square(slow.CASES["gru_scan"]), slow.CASES["gru_scan"].make,
             "gradient of mean(out²) for the GRU over 128 steps (lax.scan) w.r.t. its parameters"),
]

CASES = {c.name: c for c in _ALL}


if __name__ == "__main__":
    list_cases(_ALL)
