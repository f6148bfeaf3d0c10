#!/usr/bin/env python3
"""Writes a large transformer (GPT-2-style decoder blocks, unrolled) in every
form the loader reads, to measure how fast modules load against how fast the
JIT compiles them (`xla bench` reports both):

  <out>/transformer_<L>.mlir        StableHLO text with source locations
                                    (`lower(...).as_text(debug_info=True)`)
  <out>/transformer_<L>.jax_export  the `jax.export` artifact (VHLO bytecode)
  <out>/transformer_<L>.hlo         HLO text (`as_text(dialect="hlo")`)

With `--constants` the weights are random constants of the module (a model
closed over its parameters, as an exported inference function is) instead of
arguments: `--layers 24 --d-model 64 --constants` writes about 10 MB of text.

Usage: .venv/bin/python benches/gen_large.py OUT_DIR [--layers 24] [--d-model 512] [--constants]
"""
import argparse
import os

os.environ.setdefault("JAX_PLATFORMS", "cpu")

import jax  # noqa: E402
import jax.numpy as jnp  # noqa: E402
import numpy as np  # noqa: E402


def block(x, p):
    """One pre-norm decoder block: causal self-attention and an MLP."""
    def norm(v, g):
        m = v.mean(-1, keepdims=True)
        s = ((v - m) ** 2).mean(-1, keepdims=True)
        return (v - m) * jax.lax.rsqrt(s + 1e-5) * g
    seq, d = x.shape
    heads = 8
    h = norm(x, p["g1"])
    q, k, v = (h @ p[w] for w in ("wq", "wk", "wv"))
    split = lambda t: t.reshape(seq, heads, d // heads).transpose(1, 0, 2)  # noqa: E731
    q, k, v = split(q), split(k), split(v)
    scores = q @ k.transpose(0, 2, 1) / jnp.sqrt(d // heads)
    mask = jnp.tril(jnp.ones((seq, seq), bool))
    scores = jnp.where(mask, scores, -1e9)
    attn = jax.nn.softmax(scores, axis=-1) @ v
    x = x + attn.transpose(1, 0, 2).reshape(seq, d) @ p["wo"]
    h = norm(x, p["g2"])
    return x + jax.nn.gelu(h @ p["w1"]) @ p["w2"]


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("out")
    ap.add_argument("--layers", type=int, default=24)
    ap.add_argument("--d-model", type=int, default=512)
    ap.add_argument("--seq", type=int, default=128)
    ap.add_argument("--constants", action="store_true", help="weights as constants, not arguments")
    opts = ap.parse_args()
    d, L = opts.d_model, opts.layers
    f32 = jnp.float32
    spec = lambda *s: jax.ShapeDtypeStruct(s, f32)  # noqa: E731
    layer = {"g1": spec(d), "g2": spec(d), "wq": spec(d, d), "wk": spec(d, d), "wv": spec(d, d),
             "wo": spec(d, d), "w1": spec(d, 4 * d), "w2": spec(4 * d, d)}
    params = [dict(layer) for _ in range(L)]

    def model(x, params):
        for p in params:
            x = block(x, p)
        return x

    args = (spec(opts.seq, d), params)
    if opts.constants:
        rng = np.random.default_rng(0)
        weights = [{k: (rng.standard_normal(v.shape) / np.sqrt(v.shape[0])).astype(np.float32)
                    for k, v in p.items()} for p in params]
        jitted = jax.jit(lambda x: model(x, weights))
        args = (spec(opts.seq, d),)
    else:
        jitted = jax.jit(model)
    lowered = jitted.lower(*args)
    os.makedirs(opts.out, exist_ok=True)
    stem = os.path.join(opts.out, f"transformer_{L}" + ("_const" if opts.constants else ""))
    with open(stem + ".mlir", "w") as f:
        f.write(lowered.as_text(debug_info=True))
    with open(stem + ".hlo", "w") as f:
        f.write(lowered.as_text(dialect="hlo"))
    with open(stem + ".jax_export", "wb") as f:
        f.write(jax.export.export(jitted)(*args).serialize())
    for ext in (".mlir", ".jax_export", ".hlo"):
        print(f"{stem}{ext}: {os.path.getsize(stem + ext) / 1e6:.1f} MB")


if __name__ == "__main__":
    main()
