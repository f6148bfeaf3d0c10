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


def _image_u8(img, lut):
    """uint8 image processing: brightness/contrast in f32, round, clip, back to u8; a wrapping u8 add;
    a lookup table by gather; a box blur in s32; an 8-bin intensity histogram."""
    f = img.astype(jnp.float32)
    adjusted = jnp.clip(jnp.round(f * 1.3 - 20.0), 0, 255).astype(jnp.uint8)
    wrapped = img + np.uint8(100)
    mapped = lut[img]
    s = img.astype(jnp.int32)
    blur = (s[:-2, :-2] + s[1:-1, 1:-1] + s[2:, 2:] + s[:-2, 2:] + s[2:, :-2]) // 5
    hist = jnp.zeros(8, jnp.int32).at[img >> 5].add(1)
    return adjusted, wrapped, mapped, blur.astype(jnp.uint8), hist


def _image_u8_ref(img, lut):
    # In f32, as the program computes it (1.3 is not exact: a product near .5 rounds by its f32 value).
    f = img.astype(np.float32) * np.float32(1.3) - np.float32(20.0)
    adjusted = np.clip(np.round(f), 0, 255).astype(np.uint8)
    s = img.astype(np.int64)
    blur = (s[:-2, :-2] + s[1:-1, 1:-1] + s[2:, 2:] + s[:-2, 2:] + s[2:, :-2]) // 5
    return (adjusted, (img.astype(np.int64) + 100) % 256, lut[img], blur,
            np.bincount((img >> 5).reshape(-1), minlength=8))


def _bf16_block(x, w1, w2, g):
    """A bf16 inference block: layernorm, gelu MLP and residual, every op in bf16 as JAX runs it."""
    mu = x.mean(-1, keepdims=True)
    var = ((x - mu) ** 2).mean(-1, keepdims=True)
    h = (x - mu) * lax.rsqrt(var + 1e-5) * g
    return x + jax.nn.gelu(h @ w1) @ w2


def _bf16_block_ref(x, w1, w2, g):
    xc = x - x.mean(-1, keepdims=True)
    h = xc / np.sqrt((xc * xc).mean(-1, keepdims=True) + 1e-5) * g
    return x + _gelu_tanh(h @ w1, np) @ w2


def cases():
    bf = ml_dtypes.bfloat16
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
    img = R.integers(0, 256, (9, 10)).astype(np.uint8)
    img[0, :4] = [0, 255, 15, 16]  # 15 * 1.3 - 20 = -0.5 rounds to -0 and clips to 0; 16 gives 0.8 -> 1
    # XLA:CPU contracts x * 1.3 - 20 into a fused multiply-add: for 55 that is 51.499996 (-> 51) where
    # HLO's two roundings give exactly 51.5 (-> 52). Keep the image clear of that tie.
    img[img == 55] = 56
    yield Case("program", "uint8_image_ops", _image_u8, [img, R.permutation(256).astype(np.uint8)], "convert",
               EXACT, _image_u8_ref,
               notes="uint8 image processing: convert to f32, scale and shift, jnp.round (half to even), "
               "clip, convert to u8; u8 + 100 wrapping; a 256-entry lookup table (gather); a 5-tap box blur in "
               "s32 with floor division, back to u8; a histogram of the top 3 bits by .at[].add; no pixel is 55, whose 55 * 1.3f - 20 XLA:CPU computes "
               "with a fused multiply-add (51.499996, rounding to 51) while the HLO ops round twice (51.5 -> 52)")
    bx = (R.standard_normal((8, 32))).astype(bf)
    yield Case("program", "bf16_layernorm_mlp", _bf16_block,
               [bx, (R.standard_normal((32, 32)) * 0.2).astype(bf), (R.standard_normal((32, 32)) * 0.2).astype(bf),
                (1 + R.standard_normal(32) * 0.1).astype(bf)], "convert", Program(),
               lambda x, w1, w2, g: _bf16_block_ref(x, w1, w2, g),
               notes="a bf16 inference block (layernorm without shift, gelu (tanh) MLP, residual) with every "
               "operation in bf16 as JAX runs it (mean and sums accumulate in f32); reference: the same "
               "formula in float64, without the intermediate bf16 roundings")
