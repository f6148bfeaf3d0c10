"""Whole programs on other element types: a uint32 hash mix, integer division and
remainder with negative operands, bf16 and f16 matmuls accumulating in f32. The
integer programs are exact (NumPy reference with the same wrapping arithmetic);
the mixed-precision ones have a float64 reference that rounds where the program
converts explicitly."""
import jax
import jax.numpy as jnp
import ml_dtypes
import numpy as np
from jax import lax

from ..core import EXACT, Case
from ..tolerance import Program

R = np.random.default_rng(3103)


def _hash(x, seed):
    """murmur3's fmix32 of x ^ seed, a rotation, and two bucketings."""
    h = x ^ seed
    h = h ^ (h >> 16)
    h = h * np.uint32(0x85EBCA6B)
    h = h ^ (h >> 13)
    h = h * np.uint32(0xC2B2AE35)
    h = h ^ (h >> 16)
    rot = (h << 5) | (h >> 27)
    return h, rot, h % np.uint32(97), (h >> 27).astype(np.int32), (h & 0xFF).astype(np.uint8)


def _hash_ref(x, seed):
    with np.errstate(over="ignore"):
        return _hash(x.astype(np.uint32), np.uint32(seed))


def _int_division(a, b):
    return (lax.div(a, b), lax.rem(a, b), jnp.floor_divide(a, b), jnp.remainder(a, b),
            jnp.clip(a * 3, -100, 100), jnp.abs(a) // 7, jnp.sign(a) * (a >> 2))


def _int_division_ref(a, b):
    a, b = a.astype(np.int64), b.astype(np.int64)
    q = np.sign(a) * np.sign(b) * (np.abs(a) // np.abs(b))
    return q, a - b * q, a // b, np.remainder(a, b), np.clip(a * 3, -100, 100), np.abs(a) // 7, np.sign(a) * (a >> 2)


def _round(x, dtype):
    """x rounded to `dtype` the way XLA converts an f32 value."""
    return x.astype(np.float32).astype(dtype).astype(np.float64)


def _gelu_tanh(x, xp):
    return 0.5 * x * (1 + xp.tanh(np.sqrt(2 / np.pi) * (x + 0.044715 * x ** 3)))


def _bf16_mlp(x, w1, b1, w2):
    plain = x @ w1
    h = jax.nn.gelu(lax.dot(x, w1, preferred_element_type=jnp.float32) + b1)
    hb = h.astype(jnp.bfloat16)
    return lax.dot(hb, w2, preferred_element_type=jnp.float32), plain, hb


def _bf16_mlp_ref(x, w1, b1, w2):
    hb = _round(_gelu_tanh(x @ w1 + b1, np), ml_dtypes.bfloat16)
    return hb @ w2, x @ w1, hb


def _f16_softmax(x, w, b):
    logits = lax.dot(x, w, preferred_element_type=jnp.float32) + b
    return logits, jax.nn.softmax(logits, axis=-1).astype(jnp.float16), jnp.mean(x, axis=0)


def _f16_softmax_ref(x, w, b):
    logits = x @ w + b
    e = np.exp(logits - logits.max(-1, keepdims=True))
    return logits, e / e.sum(-1, keepdims=True), x.mean(0)


def _splitmix64(seed, counters, xp=jnp):
    """splitmix64 over u64 counters, a float in [0, 1) from the top 53 bits, and s64 sums."""
    z = seed + counters * np.uint64(0x9E3779B97F4A7C15)
    z = (z ^ (z >> 30)) * np.uint64(0xBF58476D1CE4E5B9)
    z = (z ^ (z >> 27)) * np.uint64(0x94D049BB133111EB)
    z = z ^ (z >> 31)
    unit = (z >> 11).astype(np.float64) * 2.0 ** -53
    signed = z.astype(np.int64)
    return z, unit, xp.cumsum(signed >> 40)


def _splitmix64_ref(seed, counters):
    with np.errstate(over="ignore"):
        return _splitmix64(np.uint64(seed), counters.astype(np.uint64), xp=np)


def cases():
    x = R.integers(0, 2**32, 64, dtype=np.uint64).astype(np.uint32)
    x[:4] = [0, 1, 0xFFFFFFFF, 0x80000000]
    yield Case("program", "hash_u32", _hash, [x, np.uint32(0x9E3779B9)], "shift-right-logical", EXACT, _hash_ref,
               notes="murmur3 fmix32 on uint32 (xor, logical shifts, wrapping multiplies), a rotation, h % 97, "
               "the top 5 bits as s32 and the low byte as u8")
    a = R.integers(-1000, 1001, 48).astype(np.int32)
    b = R.integers(1, 10, 48).astype(np.int32) * R.choice([-1, 1], 48).astype(np.int32)
    a[:6] = [7, -7, 7, -7, 0, -1]
    b[:6] = [2, 2, -2, -2, -3, 5]
    yield Case("program", "int_division", _int_division, [a, b], "divide", EXACT, _int_division_ref,
               notes="s32 lax.div / lax.rem (truncating), jnp.floor_divide / jnp.remainder (flooring, sign of the "
               "divisor), jnp.clip, abs // 7, sign * arithmetic shift; negative dividends and divisors, no zero "
               "divisor")
    bf = ml_dtypes.bfloat16
    xb = R.standard_normal((8, 32)).astype(bf)
    w1 = (R.standard_normal((32, 16)) * 0.2).astype(bf)
    w2 = (R.standard_normal((16, 8)) * 0.3).astype(bf)
    yield Case("program", "bf16_matmul_f32_accum", _bf16_mlp, [xb, w1, R.standard_normal(16).astype(np.float32), w2],
               "dot", Program(), _bf16_mlp_ref,
               notes="bf16 x @ w (bf16 result), lax.dot with preferred_element_type=f32, + f32 bias, gelu (tanh), "
               "convert to bf16, second bf16 dot accumulating in f32; the reference rounds where the program "
               "converts to bf16; outputs: the f32 result (first, so the tolerance is f32's), x @ w, the bf16 "
               "hidden layer")
    x16 = R.standard_normal((6, 24)).astype(np.float16)
    w16 = (R.standard_normal((24, 10)) * 0.3).astype(np.float16)
    yield Case("program", "f16_softmax_f32_accum", _f16_softmax, [x16, w16, R.standard_normal(10).astype(np.float32)],
               "dot", Program(), _f16_softmax_ref,
               notes="f16 lax.dot with preferred_element_type=f32, + f32 bias, softmax in f32 converted to f16, "
               "jnp.mean of f16 (JAX accumulates in f32); outputs: the f32 logits (first, so the tolerance is "
               "f32's), the f16 softmax, the f16 mean")
    yield Case("program", "splitmix64_u64", _splitmix64,
               [np.uint64(0x0123456789ABCDEF), np.arange(40, dtype=np.uint64) * np.uint64(0x1000000001)],
               "multiply", Program(), _splitmix64_ref,
               notes="splitmix64 on u64 (jax_enable_x64): wrapping 64-bit multiplies, logical shifts, xor; the top "
               "53 bits to an f64 in [0, 1); the bits as s64, arithmetic shift by 40 and a cumulative sum")
