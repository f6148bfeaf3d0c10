"""Random numbers: JAX's threefry implementation (pure integer ops), the rbg and
unsafe_rbg implementations and lax.rng_bit_generator (rng-bit-generator with the
rng_default, rng_philox and rng_three_fry algorithms). All exact: the outputs are
deterministic functions of the key or state."""
import jax
import jax.numpy as jnp
import numpy as np
from jax import lax

from ..core import Case

STATE = np.array([0x12345678, 0x9ABCDEF0, 0x0F1E2D3C, 0x4B5A6978], np.uint32)


def _threefry_cases():
    key = np.array([0, 42], np.uint32)  # jax.random.key_data(jax.random.key(42))

    def bits(shape, dtype):
        return lambda k: jax.random.bits(jax.random.wrap_key_data(k), shape, dtype)
    yield Case("rng", "threefry_bits_u32", bits((7,), jnp.uint32), [key], "threefry (shift-left, add, xor, or)",
               notes="jax.random.bits with the default threefry2x32 implementation: pure integer ops, no RNG "
               "instruction")
    yield Case("rng", "threefry_bits_u32_3x5", bits((3, 5), jnp.uint32), [key], "threefry")
    yield Case("rng", "threefry_bits_u8", bits((13,), jnp.uint8), [key], "threefry",
               notes="8-bit bits: 32-bit threefry output truncated by convert")
    yield Case("rng", "threefry_bits_u64", bits((5,), jnp.uint64), [key], "threefry", x64=True,
               notes="64-bit bits: two 32-bit words combined with shifts")
    yield Case("rng", "threefry_uniform_f32", lambda k: jax.random.uniform(jax.random.wrap_key_data(k), (2, 6)),
               [key], "threefry",
               notes="uniform: (bits >> 9) | 0x3F800000 bitcast to f32, minus 1 (exact)")
    yield Case("rng", "threefry_split", lambda k: jax.random.key_data(jax.random.split(jax.random.wrap_key_data(k), 3)),
               [key], "threefry", notes="split into 3 keys")
    yield Case("rng", "threefry_randint_s32",
               lambda k: jax.random.randint(jax.random.wrap_key_data(k), (9,), -5, 1000), [key], "threefry",
               notes="randint: bits, remainder and offset")


def _rbg_cases():
    for impl in ("rbg", "unsafe_rbg"):
        yield Case("rng", f"{impl}_bits_u32",
                   lambda k, impl=impl: jax.random.bits(jax.random.wrap_key_data(k, impl=impl), (3, 5), jnp.uint32),
                   [STATE], "rng-bit-generator",
                   notes=f"jax.random.bits with impl='{impl}': the u32[4] key is bitcast to u64[2] and fed to "
                   "rng-bit-generator with algorithm=rng_default, which XLA:CPU implements as Philox "
                   "(the bits equal rng_bit_generator_philox_u32 for the same state)")


def _rng_bit_generator_cases():
    algos = {"default": lax.RandomAlgorithm.RNG_DEFAULT, "philox": lax.RandomAlgorithm.RNG_PHILOX,
             "three_fry": lax.RandomAlgorithm.RNG_THREE_FRY}
    for name, algo in algos.items():
        yield Case("rng", f"rng_bit_generator_{name}_u32",
                   lambda s, algo=algo: lax.rng_bit_generator(s, (3, 5), jnp.uint32, algorithm=algo), [STATE],
                   "rng-bit-generator",
                   notes=f"algorithm=rng_{name}; state u32[4] reshaped and bitcast to u64[2] by JAX; outputs "
                   "(new state as u32[4], bits). XLA:CPU: rng_default is Philox (4x32, 10 rounds); "
                   "the state's second u64 word is the counter")
    for name in ("philox", "three_fry"):
        algo = algos[name]
        yield Case("rng", f"rng_bit_generator_{name}_u64",
                   lambda s, algo=algo: lax.rng_bit_generator(s, (2, 3), jnp.uint64, algorithm=algo), [STATE],
                   "rng-bit-generator", x64=True, notes=f"64-bit output words, algorithm=rng_{name}")
        yield Case("rng", f"rng_bit_generator_{name}_u8_odd",
                   lambda s, algo=algo: lax.rng_bit_generator(s, (13,), jnp.uint8, algorithm=algo), [STATE],
                   "rng-bit-generator", notes="13 bytes: a size that is not a multiple of the word size")
    yield Case("rng", "rng_bit_generator_philox_twice",
               lambda s: lax.rng_bit_generator(lax.rng_bit_generator(s, (4,), jnp.uint32,
                                                                     algorithm=algos["philox"])[0],
                                               (4,), jnp.uint32, algorithm=algos["philox"]), [STATE],
               "rng-bit-generator", notes="the new state of one call feeds the next")


def cases():
    yield from _threefry_cases()
    yield from _rbg_cases()
    yield from _rng_bit_generator_cases()
