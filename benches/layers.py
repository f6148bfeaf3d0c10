#!/usr/bin/env python3
"""Layers and ops the model programs do not have, as JAX users write them
(jax.numpy and jax.lax, fixed shapes, seeded inputs, f32 unless said):

    mobilenet_block  depthwise 3x3 conv (feature groups = channels) + pointwise 1x1,
                     each with a folded batch norm and ReLU6, NHWC 8x56x56x128
    resnet_stem      7x7 stride-2 conv 4x224x224x3 -> 64, batch norm, ReLU, 3x3 stride-2
                     max pool
    embed_grad       the gradient of an embedding lookup (a gather of 8x256 tokens from
                     a 32000x512 table): a scatter-add
    upsample_conv    lax.conv_transpose stride 2, 3x3, 4x32x32x128 -> 64, bias, SiLU
    long_attention   causal attention, 8 heads of 1024x64
    topk_sample      top 50 of 64x50257 logits, their softmax, and the argmax
    bert_bf16        a transformer layer in bf16 (norms in f32), 4x128x768, 12 heads
    bn_train         batch norm with the batch's statistics, 16x56x56x64
    conv1d_dilated   WaveNet residual layer: dilated (4) 1-D conv 4x16000x64, tanh x
                     sigmoid gate, 1x1 conv, residual
    cumsum_sort      sort, cumsum and argsort of 256x4096
    conv_dgrad       the input gradient of a 3x3 conv 8x32x32x64

`benches/gen_hlo.py --set layers` lowers them into `benches/layers/<name>.hlo`;
`benches/compare.py --set layers` times them. Running this file lists them.
"""
import os
import sys

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from suite import Case, list_cases  # noqa: E402
from models import Init, Layers, EPS  # noqa: E402


def _mobilenet(jax, jnp):
    lax = jax.lax

    def mobilenet_block(x, dw, pw, s1, b1, s2, b2):
        c = x.shape[-1]
        y = lax.conv_general_dilated(x, dw, (1, 1), "SAME", dimension_numbers=("NHWC", "HWIO", "NHWC"),
                                     feature_group_count=c)
        y = jnp.clip(y * s1 + b1, 0, 6)
        y = lax.conv_general_dilated(y, pw, (1, 1), "SAME", dimension_numbers=("NHWC", "HWIO", "NHWC"))
        return jnp.clip(y * s2 + b2, 0, 6)
    return mobilenet_block


def _mobilenet_inputs(seed):
    i = Init(seed)
    c = 128
    return [i.normal(8, 56, 56, c), i.normal(3, 3, 1, c, std=0.3), i.normal(1, 1, c, c, std=0.1),
            i.near_one(c), i.normal(c, std=0.1), i.near_one(c), i.normal(c, std=0.1)]


def _resnet_stem(jax, jnp):
    lax = jax.lax

    def resnet_stem(x, w, s, b):
        y = lax.conv_general_dilated(x, w, (2, 2), ((3, 3), (3, 3)), dimension_numbers=("NHWC", "HWIO", "NHWC"))
        y = jax.nn.relu(y * s + b)
        return lax.reduce_window(y, -jnp.inf, lax.max, (1, 3, 3, 1), (1, 2, 2, 1), ((0, 0), (1, 1), (1, 1), (0, 0)))
    return resnet_stem


def _resnet_stem_inputs(seed):
    i = Init(seed)
    return [i.normal(4, 224, 224, 3), i.normal(7, 7, 3, 64, std=0.1), i.near_one(64), i.normal(64, std=0.1)]


def _embed_grad(jax, jnp):
    def embed_grad(table, ids, g):
        return jax.grad(lambda t: jnp.sum(t[ids] * g))(table)
    return embed_grad


def _embed_grad_inputs(seed):
    i = Init(seed)
    return [i.normal(32000, 512, std=0.02), i.rng.integers(0, 32000, (8, 256)).astype(np.int32),
            i.normal(8, 256, 512)]


def _upsample_conv(jax, jnp):
    lax = jax.lax

    def upsample_conv(x, w, b):
        y = lax.conv_transpose(x, w, (2, 2), "SAME", dimension_numbers=("NHWC", "HWIO", "NHWC"))
        return jax.nn.silu(y + b)
    return upsample_conv


def _upsample_conv_inputs(seed):
    i = Init(seed)
    return [i.normal(4, 32, 32, 128), i.normal(3, 3, 128, 64, std=0.05), i.normal(64, std=0.1)]


def _long_attention(jax, jnp):
    L = Layers(jax, jnp)

    def long_attention(q, k, v):
        t = q.shape[2]
        causal = jnp.tril(jnp.ones((t, t), dtype=bool))
        return L.attention(q, k, v, causal)
    return long_attention


def _long_attention_inputs(seed):
    i = Init(seed)
    return [i.normal(1, 8, 1024, 64), i.normal(1, 8, 1024, 64), i.normal(1, 8, 1024, 64)]


def _topk_sample(jax, jnp):
    def topk_sample(logits):
        v, ix = jax.lax.top_k(logits, 50)
        p = jax.nn.softmax(v, axis=-1)
        return p, ix, jnp.argmax(logits, axis=-1)
    return topk_sample


def _topk_sample_inputs(seed):
    return [Init(seed).normal(64, 50257)]


def _bert_bf16(jax, jnp):
    L = Layers(jax, jnp)

    def bert_bf16(params, x):
        h = L.layernorm(params["ln1"], x.astype(jnp.float32)).astype(jnp.bfloat16)
        x = x + L.self_attention(params["attn"], h, 12)
        h = L.layernorm(params["ln2"], x.astype(jnp.float32)).astype(jnp.bfloat16)
        return x + L.gpt2_mlp(params["mlp"], h)
    return bert_bf16


def _bert_bf16_inputs(seed):
    import ml_dtypes
    i = Init(seed)
    bf = ml_dtypes.bfloat16

    def lin(a, b):
        return {"w": i.normal(a, b, std=0.02, dtype=bf), "b": i.normal(b, std=0.02, dtype=bf)}
    params = {"ln1": i.layernorm(768), "ln2": i.layernorm(768),
              "attn": {"qkv": lin(768, 2304), "proj": lin(768, 768)},
              "mlp": {"fc": lin(768, 3072), "out": lin(3072, 768)}}
    return [params, i.normal(4, 128, 768, dtype=bf)]


def _bn_train(jax, jnp):
    def bn_train(x, s, b):
        mean = jnp.mean(x, axis=(0, 1, 2))
        var = jnp.var(x, axis=(0, 1, 2))
        y = (x - mean) * jax.lax.rsqrt(var + EPS) * s + b
        return jax.nn.relu(y), mean, var
    return bn_train


def _bn_train_inputs(seed):
    i = Init(seed)
    return [i.normal(16, 56, 56, 64), i.near_one(64), i.normal(64, std=0.1)]


def _conv1d_dilated(jax, jnp):
    lax = jax.lax

    def conv1d_dilated(x, w1, w2):
        y = lax.conv_general_dilated(x, w1, (1,), "SAME", rhs_dilation=(4,), dimension_numbers=("NWC", "WIO", "NWC"))
        y = jnp.tanh(y) * jax.nn.sigmoid(y)
        return x + lax.conv_general_dilated(y, w2, (1,), "SAME", dimension_numbers=("NWC", "WIO", "NWC"))
    return conv1d_dilated


def _conv1d_dilated_inputs(seed):
    i = Init(seed)
    return [i.normal(4, 16000, 64), i.normal(3, 64, 64, std=0.1), i.normal(1, 64, 64, std=0.1)]


def _cumsum_sort(jax, jnp):
    def cumsum_sort(x):
        s = jnp.sort(x, axis=-1)
        return jnp.cumsum(s, axis=-1), jnp.argsort(x, axis=0)
    return cumsum_sort


def _cumsum_sort_inputs(seed):
    return [Init(seed).normal(256, 4096)]


def _conv_dgrad(jax, jnp):
    L = Layers(jax, jnp)

    def conv_dgrad(x, w, g):
        return jax.grad(lambda xx: jnp.sum(L.conv(xx, w) * g))(x)
    return conv_dgrad


def _conv_dgrad_inputs(seed):
    i = Init(seed)
    return [i.normal(8, 32, 32, 64), i.normal(3, 3, 64, 64, std=0.05), i.normal(8, 32, 32, 64)]


_ALL = [
    Case("mobilenet_block", _mobilenet, _mobilenet_inputs, "depthwise 3x3 + pointwise, 8x56x56x128"),
    Case("resnet_stem", _resnet_stem, _resnet_stem_inputs, "7x7 s2 conv + maxpool 3x3 s2, 4x224x224x3"),
    Case("embed_grad", _embed_grad, _embed_grad_inputs, "embedding gather gradient (scatter-add)"),
    Case("upsample_conv", _upsample_conv, _upsample_conv_inputs, "conv_transpose stride 2 + silu"),
    Case("long_attention", _long_attention, _long_attention_inputs, "causal attention 8x1024x64"),
    Case("topk_sample", _topk_sample, _topk_sample_inputs, "top_k 50 of 64x50257 + argmax"),
    Case("bert_bf16", _bert_bf16, _bert_bf16_inputs, "bf16 transformer layer 4x128x768"),
    Case("bn_train", _bn_train, _bn_train_inputs, "batch norm training statistics 16x56x56x64"),
    Case("conv1d_dilated", _conv1d_dilated, _conv1d_dilated_inputs, "wavenet dilated conv1d 4x16000x64"),
    Case("cumsum_sort", _cumsum_sort, _cumsum_sort_inputs, "sort + cumsum + argsort 256x4096"),
    Case("conv_dgrad", _conv_dgrad, _conv_dgrad_inputs, "conv input gradient 8x32x32x64"),
]

CASES = {c.name: c for c in _ALL}

if __name__ == "__main__":
    list_cases(_ALL)
