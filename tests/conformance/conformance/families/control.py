"""Control flow: while (fori_loop, while_loop), conditional (cond, switch, and a raw
out-of-range branch index), scan, lax.map, call and optimization barriers."""
import jax
import jax.numpy as jnp
import numpy as np
from jax import lax
from jax._src.lax.control_flow.conditionals import cond_p

from .. import values as V
from ..core import Case


def _while_cases():
    def spec_loop(c):
        return lax.fori_loop(0, 1000, lambda i, s: (s[0] + 1, s[1] + c), (np.int32(0), jnp.zeros(10, jnp.float32)))
    c = np.array([0.5, 0.25, -1.0, 2.0, 0.0, 3.0, -0.125, 1.0, 4.0, 8.0], np.float32)
    yield Case("while", "spec_fori_1000", spec_loop, [c], "while",
               notes="`docs/semantics.md`, *While* example: (1000, 1000 c) for dyadic c (exact at every step)")

    def collatz_steps(x):
        def cond(s):
            return jnp.any(s[0] != 1)

        def body(s):
            v, n = s
            active = v != 1
            nxt = jnp.where(v % 2 == 0, v // 2, 3 * v + 1)
            return jnp.where(active, nxt, v), n + active.astype(jnp.int32)
        return lax.while_loop(cond, body, (x, jnp.zeros_like(x)))
    yield Case("while", "collatz_data_dependent", collatz_steps,
               [np.array([1, 2, 3, 6, 7, 27, 97, 871], np.int32)], "while",
               notes="trip count depends on the data (111 iterations for 27... 178 for 871)")
    yield Case("while", "zero_trips", lambda x: lax.while_loop(lambda s: s[0] < 0, lambda s: (s[0] + 1, s[1] * 2.0),
                                                               (np.int32(5), x)),
               [V.floats("f32", (3,), 2400)], "while", notes="condition false at entry: the init value is returned")

    def newton_sqrt(a):
        def cond(s):
            x, prev, i = s
            return jnp.logical_and(jnp.any(x != prev), i < 100)

        def body(s):
            x, _, i = s
            return 0.5 * (x + a / x), x, i + 1
        return lax.while_loop(cond, body, (jnp.maximum(a, 1.0), jnp.zeros_like(a), np.int32(0)))
    yield Case("while", "newton_sqrt_fixpoint", newton_sqrt,
               [np.array([2.0, 9.0, 1e-6, 12345.0, 0.25, 1e30], np.float32)], "while",
               notes="iterates until no element changes (float fixpoint), plus a counter; exact: XLA's result "
               "must be reproduced bit for bit, since the same operations run in the same order")
    yield Case("while", "fori_dynamic_bounds", lambda n, x: lax.fori_loop(0, n, lambda i, v: v * 2 + i, x),
               [np.int32(7), np.arange(4, dtype=np.int32)], "while", notes="trip count from a parameter")


def _conditional_cases():
    def two_way(p, x, y):
        return lax.cond(p, lambda a, b: (a * b, a - b), lambda a, b: (a + b, b - a), x, y)
    x, y = V.floats("f32", (5,), 2500), V.floats("f32", (5,), 2501, with_specials=False)
    for val in (True, False):
        yield Case("conditional", f"cond_pred_{str(val).lower()}", two_way, [np.bool_(val), x, y], "conditional",
                   notes="lax.cond: a pred-form conditional (JAX converts the pred to an s32 branch index)")
    branches = [lambda v: v + 1, lambda v: v * 10, lambda v: -v]
    for idx in (-1, 0, 2, 5):
        yield Case("conditional", f"switch_jax_index_{idx}".replace("-", "m"),
                   lambda i, v: lax.switch(i, branches, v), [np.int32(idx), np.arange(3, dtype=np.int32)],
                   "conditional", notes="lax.switch clamps the index itself (clamp before conditional)")
    ops = (np.float32(2.0),)
    jaxprs = tuple(jax.make_jaxpr(lambda a, k=k: a * k)(*ops) for k in (1.0, 10.0, 100.0))
    for idx in (-1, 0, 1, 3, 1 << 30):
        yield Case("conditional", f"raw_branch_index_{idx}".replace("-", "m"),
                   lambda i, a: cond_p.bind(i, a, branches=jaxprs)[0], [np.int32(idx), np.float32(2.0)],
                   "conditional",
                   notes="conditional with an unclamped s32 branch index (cond_p bound directly): an index "
                   "< 0 or >= 3 runs the last branch (N-1), per `docs/semantics.md`, *Conditional*")

    def nested(p, x):
        return lax.cond(p, lambda v: lax.fori_loop(0, 3, lambda i, w: w * 2.0, v), lambda v: v - 1.0, x)
    yield Case("conditional", "cond_with_loop_in_branch", nested, [np.bool_(True), np.ones(4, np.float32)],
               "conditional", notes="a while loop inside a branch")


def _scan_cases():
    def cumulative(xs):
        return lax.scan(lambda c, x: (c + x, c * x), np.float32(1.0), xs)
    yield Case("scan", "carry_and_stacked", cumulative, [np.arange(1, 8, dtype=np.float32) / 4], "while",
               notes="lax.scan lowers to a while loop with dynamic-slice / dynamic-update-slice; "
               "returns (final carry, stacked per-step outputs)")
    yield Case("scan", "reverse_matrix_carry",
               lambda m, xs: lax.scan(lambda c, x: (m @ c + x, c.sum()), jnp.zeros(3, jnp.int32), xs, reverse=True),
               [np.array([[1, 1, 0], [0, 1, 1], [1, 0, 1]], np.int32), np.arange(15, dtype=np.int32).reshape(5, 3)],
               "while", notes="reverse scan with an integer matrix-vector carry")
    yield Case("scan", "length_zero", lambda xs: lax.scan(lambda c, x: (c + x, x), np.float32(3.0), xs),
               [np.zeros((0,), np.float32)], "while", notes="zero-length scan: the initial carry, empty outputs")


def _map_cases():
    yield Case("map", "lax_map_rows", lambda xs: lax.map(lambda r: jnp.sort(r)[::-1], xs),
               [np.array([[3, 1, 2], [9, 7, 8], [0, -1, 5]], np.int32)], "while",
               notes="lax.map is a scan (a while loop over rows), not the HLO map instruction")
    yield Case("map", "vmap_of_cond", jax.vmap(lambda p, v: lax.cond(p, lambda a: a * 2, lambda a: a - 1, v)),
               [np.array([True, False, True]), np.arange(3, dtype=np.float32)], "select",
               notes="vmap turns a cond with a batched predicate into select")


def _call_cases():
    inner = jax.jit(lambda a, b: a * b - b)
    yield Case("call", "nested_jit", lambda a, b: inner(a, b) + inner(b, a),
               [np.float32([0.5, -2.0]), np.float32([3.0, 0.25])], "call",
               notes="a jitted function called twice: two call instructions")
    yield Case("call", "optimization_barrier", lambda a, b: lax.optimization_barrier((a * 2, b + 1)),
               [np.float32([1.0, 2.0]), np.int32([3, 4])], "opt-barrier", notes="identity on a tuple")


def cases():
    yield from _while_cases()
    yield from _conditional_cases()
    yield from _scan_cases()
    yield from _map_cases()
    yield from _call_cases()
