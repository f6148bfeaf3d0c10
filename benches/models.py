#!/usr/bin/env python3
"""Model programs as JAX users write them: layers by hand with jax.numpy and
jax.lax (no flax, no optax), fixed shapes, seeded inputs, f32 unless said.

    gpt2_block      GPT-2 small decoder block: batch 1, seq 128, d_model 768, 12 heads,
                    MLP 3072, causal mask, pre-layernorm, tanh GELU
    gpt2_decode     one decode step of that block: one token's query attending over a
                    512-entry KV cache (the new key/value written at `pos`), then the MLP
    resnet_block    ResNet basic block, NHWC 8x56x56x64: two 3x3 convs, each with
                    inference batch-norm, ReLU, residual
    unet_block      group norm (32 groups) + SiLU + 3x3 conv with bias, NHWC 4x32x32x128
    conv_wgrad      the kernel gradient of a 3x3 conv 8x32x32x64 -> 64 (jax.grad of
                    sum(conv(x, w) * g) with respect to w)
    vit_patch_attn  ViT patch embedding (16x16 stride-16 conv, 2x224x224x3 -> 2x196x768,
                    plus position embedding) and one pre-norm self-attention layer, 12 heads
    mlp_train_adam  one training step of an MLP 784 -> 512 -> 10 (ReLU, softmax cross-entropy,
                    batch 128) with Adam written out; returns new params, new state, loss
    bf16_matmul_ln  bf16 512x1024 @ 1024x1024 accumulated in f32 (preferred_element_type),
                    then layernorm in f32
    llama_block     LLaMA-style decoder block: batch 1, seq 256, d_model 1024, 16 heads,
                    RMSNorm, rotary position embedding (angles made in the program, positions
                    1000-1255), causal attention, SwiGLU MLP 2816

Each program takes its parameters as arguments (dicts of arrays, so the HLO
holds no large constants). `benches/gen_hlo.py` lowers them into
`benches/models/<name>.hlo`; `benches/compare.py --set models` times them.

Running this file lists the programs and their inputs:

    python3 benches/models.py

(Set up a venv with `python3 -m venv .venv && .venv/bin/pip install -r benches/requirements.txt`,
then `.venv/bin/python benches/models.py`.)
"""
import math
import os
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from suite import Case, list_cases  # noqa: E402

# the epsilon of every norm here (layer, batch and group norm); not suite.LN_EPS, which
# belongs to the suite's layernorm kernel alone
EPS = 1e-5


# --- seeded inputs --------------------------------------------------------------------

class Init:
    """Seeded numpy initializers for one program (slow.py uses them too)."""

    def __init__(self, seed):
        self.rng = np.random.default_rng(seed)

    def normal(self, *shape, std=1.0, dtype="float32"):
        x = self.rng.standard_normal(shape, dtype=np.float32) * np.float32(std)
        return x.astype(dtype)

    def near_one(self, *shape):
        """Norm scales: 1 plus a little noise, so a wrong scale shows in a comparison."""
        return (1.0 + 0.1 * self.rng.standard_normal(shape)).astype(np.float32)

    def positive(self, *shape):
        return (0.5 + self.rng.random(shape)).astype(np.float32)

    def linear(self, n_in, n_out, std=0.02):
        return {"w": self.normal(n_in, n_out, std=std), "b": self.normal(n_out, std=0.02)}

    def layernorm(self, n):
        return {"scale": self.near_one(n), "bias": self.normal(n, std=0.1)}


# --- layers ---------------------------------------------------------------------------

class Layers:
    """Hand-written layers over the given jax / jax.numpy modules (slow.py uses them too)."""

    def __init__(self, jax, jnp):
        self.jax, self.jnp, self.lax = jax, jnp, jax.lax

    def linear(self, p, x):
        return x @ p["w"] + p["b"]

    def layernorm(self, p, x):
        jnp = self.jnp
        mean = jnp.mean(x, axis=-1, keepdims=True)
        var = jnp.mean(jnp.square(x - mean), axis=-1, keepdims=True)
        return (x - mean) * self.lax.rsqrt(var + EPS) * p["scale"] + p["bias"]

    def split_heads(self, x, heads):
        b, t, d = x.shape
        return x.reshape(b, t, heads, d // heads).transpose(0, 2, 1, 3)

    def merge_heads(self, x):
        b, h, t, dh = x.shape
        return x.transpose(0, 2, 1, 3).reshape(b, t, h * dh)

    def attention(self, q, k, v, mask=None):
        """q [B,H,T,D], k and v [B,H,S,D]; mask broadcastable to [B,H,T,S], True = attend."""
        jnp = self.jnp
        scores = jnp.einsum("bhtd,bhsd->bhts", q, k) / math.sqrt(q.shape[-1])
        if mask is not None:
            scores = jnp.where(mask, scores, jnp.finfo(scores.dtype).min)
        weights = self.jax.nn.softmax(scores, axis=-1)
        return jnp.einsum("bhts,bhsd->bhtd", weights, v)

    def self_attention(self, p, x, heads, mask=None):
        qkv = self.linear(p["qkv"], x)
        q, k, v = self.jnp.split(qkv, 3, axis=-1)
        q, k, v = (self.split_heads(t, heads) for t in (q, k, v))
        out = self.attention(q, k, v, mask)
        return self.linear(p["proj"], self.merge_heads(out))

    def gpt2_mlp(self, p, x):
        return self.linear(p["out"], self.jax.nn.gelu(self.linear(p["fc"], x), approximate=True))

    def conv(self, x, w, stride=1, padding="SAME"):
        return self.lax.conv_general_dilated(
            x, w, window_strides=(stride, stride), padding=padding,
            dimension_numbers=("NHWC", "HWIO", "NHWC"))

    def batchnorm(self, p, x):
        """Inference form: running mean and variance."""
        inv = self.lax.rsqrt(p["var"] + EPS) * p["scale"]
        return (x - p["mean"]) * inv + p["bias"]

    def groupnorm(self, p, x, groups):
        jnp = self.jnp
        n, h, w, c = x.shape
        g = x.reshape(n, h, w, groups, c // groups)
        mean = jnp.mean(g, axis=(1, 2, 4), keepdims=True)
        var = jnp.var(g, axis=(1, 2, 4), keepdims=True)
        g = (g - mean) * self.lax.rsqrt(var + EPS)
        return g.reshape(n, h, w, c) * p["scale"] + p["bias"]


# --- GPT-2 small ----------------------------------------------------------------------

D_MODEL, HEADS, D_MLP = 768, 12, 3072


def _attn_params(init):
    """A self-attention layer's projections (GPT-2 and ViT)."""
    return {"qkv": init.linear(D_MODEL, 3 * D_MODEL), "proj": init.linear(D_MODEL, D_MODEL)}


def _gpt2_params(init):
    return {
        "ln_1": init.layernorm(D_MODEL),
        "attn": _attn_params(init),
        "ln_2": init.layernorm(D_MODEL),
        "mlp": {"fc": init.linear(D_MODEL, D_MLP), "out": init.linear(D_MLP, D_MODEL)},
    }


def _gpt2_block(jax, jnp):
    L = Layers(jax, jnp)

    def gpt2_block(params, x):
        t = x.shape[1]
        causal = jnp.tril(jnp.ones((t, t), dtype=bool))
        x = x + L.self_attention(params["attn"], L.layernorm(params["ln_1"], x), HEADS, causal)
        return x + L.gpt2_mlp(params["mlp"], L.layernorm(params["ln_2"], x))
    return gpt2_block


def _gpt2_block_inputs(seed):
    init = Init(seed)
    return [_gpt2_params(init), init.normal(1, 128, D_MODEL)]


CACHE = 512


def _gpt2_decode(jax, jnp):
    L = Layers(jax, jnp)
    lax = jax.lax

    def gpt2_decode(params, x, k_cache, v_cache, pos):
        """x [1,1,768]: the new token; caches [1,12,512,64]; pos: its index in the cache."""
        p = params["attn"]
        qkv = L.linear(p["qkv"], L.layernorm(params["ln_1"], x))
        q, k, v = (L.split_heads(t, HEADS) for t in jnp.split(qkv, 3, axis=-1))
        k_cache = lax.dynamic_update_slice(k_cache, k, (0, 0, pos, 0))
        v_cache = lax.dynamic_update_slice(v_cache, v, (0, 0, pos, 0))
        valid = jnp.arange(k_cache.shape[2]) <= pos
        out = L.attention(q, k_cache, v_cache, valid[None, None, None, :])
        x = x + L.linear(p["proj"], L.merge_heads(out))
        x = x + L.gpt2_mlp(params["mlp"], L.layernorm(params["ln_2"], x))
        return x, k_cache, v_cache
    return gpt2_decode


def _gpt2_decode_inputs(seed):
    init = Init(seed)
    dh = D_MODEL // HEADS
    return [_gpt2_params(init), init.normal(1, 1, D_MODEL),
            init.normal(1, HEADS, CACHE, dh), init.normal(1, HEADS, CACHE, dh), np.int32(300)]


# --- convolutional blocks -------------------------------------------------------------

def _bn_params(init, c):
    return {"scale": init.near_one(c), "bias": init.normal(c, std=0.1),
            "mean": init.normal(c, std=0.1), "var": init.positive(c)}


def _resnet_block(jax, jnp):
    L = Layers(jax, jnp)
    relu = jax.nn.relu

    def resnet_block(params, x):
        y = relu(L.batchnorm(params["bn1"], L.conv(x, params["conv1"])))
        y = L.batchnorm(params["bn2"], L.conv(y, params["conv2"]))
        return relu(y + x)
    return resnet_block


def _resnet_block_inputs(seed):
    init = Init(seed)
    c = 64
    std = math.sqrt(2.0 / (9 * c))
    params = {"conv1": init.normal(3, 3, c, c, std=std), "bn1": _bn_params(init, c),
              "conv2": init.normal(3, 3, c, c, std=std), "bn2": _bn_params(init, c)}
    return [params, init.normal(8, 56, 56, c)]


def _unet_block(jax, jnp):
    L = Layers(jax, jnp)

    def unet_block(params, x):
        h = jax.nn.silu(L.groupnorm(params["norm"], x, 32))
        return L.conv(h, params["conv"]["w"]) + params["conv"]["b"]
    return unet_block


def _unet_block_inputs(seed):
    init = Init(seed)
    c = 128
    params = {"norm": init.layernorm(c),
              "conv": {"w": init.normal(3, 3, c, c, std=math.sqrt(1.0 / (9 * c))),
                       "b": init.normal(c, std=0.02)}}
    return [params, init.normal(4, 32, 32, c)]


def _conv_wgrad(jax, jnp):
    L = Layers(jax, jnp)

    def conv_wgrad(x, w, g):
        """d/dw of sum(conv(x, w) * g): the kernel gradient for the output cotangent g."""
        return jax.grad(lambda kernel: jnp.sum(L.conv(x, kernel) * g))(w)
    return conv_wgrad


def _conv_wgrad_inputs(seed):
    init = Init(seed)
    return [init.normal(8, 32, 32, 64), init.normal(3, 3, 64, 64, std=math.sqrt(1.0 / 576)),
            init.normal(8, 32, 32, 64)]


# --- ViT ------------------------------------------------------------------------------

PATCH = 16


def _vit_patch_attn(jax, jnp):
    L = Layers(jax, jnp)

    def vit_patch_attn(params, images):
        emb = params["embed"]
        tokens = L.conv(images, emb["w"], stride=PATCH, padding="VALID") + emb["b"]
        b, h, w, d = tokens.shape
        x = tokens.reshape(b, h * w, d) + params["pos"]
        return x + L.self_attention(params["attn"], L.layernorm(params["ln"], x), HEADS)
    return vit_patch_attn


def _vit_patch_attn_inputs(seed):
    init = Init(seed)
    n_tokens = (224 // PATCH) ** 2
    params = {
        "embed": {"w": init.normal(PATCH, PATCH, 3, D_MODEL, std=math.sqrt(1.0 / (PATCH * PATCH * 3))),
                  "b": init.normal(D_MODEL, std=0.02)},
        "pos": init.normal(n_tokens, D_MODEL, std=0.02),
        "ln": init.layernorm(D_MODEL),
        "attn": _attn_params(init),
    }
    return [params, init.normal(2, 224, 224, 3)]


# --- training step --------------------------------------------------------------------

LR, BETA1, BETA2, ADAM_EPS = 1e-3, 0.9, 0.999, 1e-8
N_CLASSES = 10


def _mlp_train_adam(jax, jnp):
    tree_map = jax.tree_util.tree_map

    def loss_fn(params, x, labels):
        h = jax.nn.relu(x @ params["w1"] + params["b1"])
        logits = h @ params["w2"] + params["b2"]
        log_probs = jax.nn.log_softmax(logits, axis=-1)
        return -jnp.mean(jnp.sum(jax.nn.one_hot(labels, N_CLASSES) * log_probs, axis=-1))

    def mlp_train_adam(params, opt_state, x, labels):
        loss, grads = jax.value_and_grad(loss_fn)(params, x, labels)
        step = opt_state["step"] + 1
        m = tree_map(lambda m, g: BETA1 * m + (1 - BETA1) * g, opt_state["m"], grads)
        v = tree_map(lambda v, g: BETA2 * v + (1 - BETA2) * g * g, opt_state["v"], grads)
        t = step.astype(jnp.float32)
        m_corr = 1 - BETA1 ** t
        v_corr = 1 - BETA2 ** t
        params = tree_map(
            lambda p, m, v: p - LR * (m / m_corr) / (jnp.sqrt(v / v_corr) + ADAM_EPS),
            params, m, v)
        return params, {"m": m, "v": v, "step": step}, loss
    return mlp_train_adam


def _mlp_train_adam_inputs(seed):
    init = Init(seed)
    params = {"w1": init.normal(784, 512, std=math.sqrt(2.0 / 784)), "b1": init.normal(512, std=0.01),
              "w2": init.normal(512, N_CLASSES, std=math.sqrt(1.0 / 512)),
              "b2": init.normal(N_CLASSES, std=0.01)}
    # the state after a few steps: small first moments, positive second moments
    m = {k: init.normal(*p.shape, std=1e-3) for k, p in params.items()}
    v = {k: np.abs(init.normal(*p.shape, std=1e-3)) ** 2 for k, p in params.items()}
    opt_state = {"m": m, "v": v, "step": np.int32(5)}
    x = init.rng.random((128, 784), dtype=np.float32)
    labels = init.rng.integers(0, N_CLASSES, size=128).astype(np.int32)
    return [params, opt_state, x, labels]


# --- mixed precision ------------------------------------------------------------------

def _bf16_matmul_ln(jax, jnp):
    L = Layers(jax, jnp)

    def bf16_matmul_ln(x, w, ln):
        y = jnp.matmul(x, w, preferred_element_type=jnp.float32)
        return L.layernorm(ln, y)
    return bf16_matmul_ln


def _bf16_matmul_ln_inputs(seed):
    import ml_dtypes  # installed with jax
    init = Init(seed)
    return [init.normal(512, 1024, dtype=ml_dtypes.bfloat16),
            init.normal(1024, 1024, std=1.0 / 32, dtype=ml_dtypes.bfloat16),
            init.layernorm(1024)]


# --- LLaMA-style block ----------------------------------------------------------------

LLAMA_D, LLAMA_HEADS, LLAMA_MLP, LLAMA_T = 1024, 16, 2816, 256


def _llama_block(jax, jnp):
    L = Layers(jax, jnp)
    lax = jax.lax

    def rmsnorm(scale, x):
        return x * lax.rsqrt(jnp.mean(jnp.square(x), axis=-1, keepdims=True) + EPS) * scale

    def rope(x, pos):
        """x [B,H,T,D]: rotary position embedding, the angles made from `pos` [T]."""
        d = x.shape[-1]
        inv_freq = 1.0 / (10000.0 ** (jnp.arange(0, d, 2, dtype=jnp.float32) / d))
        angles = pos[:, None].astype(jnp.float32) * inv_freq[None, :]
        cos, sin = jnp.cos(angles), jnp.sin(angles)
        x1, x2 = x[..., 0::2], x[..., 1::2]
        return jnp.stack([x1 * cos - x2 * sin, x1 * sin + x2 * cos], axis=-1).reshape(x.shape)

    def llama_block(params, x, pos):
        t = x.shape[1]
        causal = jnp.tril(jnp.ones((t, t), dtype=bool))
        h = rmsnorm(params["attn_norm"], x)
        q, k, v = (L.split_heads(h @ params[w], LLAMA_HEADS) for w in ("wq", "wk", "wv"))
        out = L.attention(rope(q, pos), rope(k, pos), v, causal)
        x = x + L.merge_heads(out) @ params["wo"]
        h = rmsnorm(params["mlp_norm"], x)
        return x + (jax.nn.silu(h @ params["w1"]) * (h @ params["w3"])) @ params["w2"]
    return llama_block


def _llama_block_inputs(seed):
    init = Init(seed)
    d, m = LLAMA_D, LLAMA_MLP
    params = {"attn_norm": init.near_one(d), "mlp_norm": init.near_one(d),
              "w1": init.normal(d, m, std=0.02), "w3": init.normal(d, m, std=0.02),
              "w2": init.normal(m, d, std=0.02)}
    for w in ("wq", "wk", "wv", "wo"):
        params[w] = init.normal(d, d, std=0.02)
    pos = np.arange(1000, 1000 + LLAMA_T, dtype=np.int32)
    return [params, init.normal(1, LLAMA_T, d), pos]


_ALL = [
    Case("gpt2_block", _gpt2_block, _gpt2_block_inputs,
         "GPT-2 small block: 1x128x768, 12 heads, MLP 3072, causal, tanh GELU"),
    Case("gpt2_decode", _gpt2_decode, _gpt2_decode_inputs,
         "GPT-2 small block, one decode step over a 512-entry KV cache"),
    Case("resnet_block", _resnet_block, _resnet_block_inputs,
         "ResNet basic block 8x56x56x64: 2x (3x3 conv + batch-norm) + ReLU + residual"),
    Case("unet_block", _unet_block, _unet_block_inputs,
         "group norm (32) + SiLU + 3x3 conv, 4x32x32x128"),
    Case("conv_wgrad", _conv_wgrad, _conv_wgrad_inputs,
         "kernel gradient of a 3x3 conv, 8x32x32x64 -> 64"),
    Case("vit_patch_attn", _vit_patch_attn, _vit_patch_attn_inputs,
         "ViT 16x16 patch embedding 2x224x224x3 -> 2x196x768 + one attention layer"),
    Case("mlp_train_adam", _mlp_train_adam, _mlp_train_adam_inputs,
         "MLP 784-512-10 training step (cross-entropy, batch 128) with Adam"),
    Case("bf16_matmul_ln", _bf16_matmul_ln, _bf16_matmul_ln_inputs,
         "bf16 512x1024 @ 1024x1024 -> f32, then layernorm"),
    Case("llama_block", _llama_block, _llama_block_inputs,
         "LLaMA-style block: 1x256x1024, 16 heads, RMSNorm, RoPE, causal, SwiGLU 2816"),
]

CASES = {c.name: c for c in _ALL}


if __name__ == "__main__":
    list_cases(_ALL)
