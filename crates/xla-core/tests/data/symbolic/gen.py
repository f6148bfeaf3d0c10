"""Writes jax.export artifacts of symbolic shapes, their StableHLO text, and
inputs with JAX's outputs for two bindings of the symbols, for the tests of
binding symbolic dimensions at load (tests/symbolic_shapes.rs); `unused`
has an argument JAX drops from the module.

Run with jax 0.10.2 from this directory, reading the script from stdin
(`python - < gen.py`) so that no path of the generating machine ends up in
the artifacts' locations.
"""
import jax
import jax.numpy as jnp
import numpy as np

SOURCE = '''
def mlp(x, w1, w2):
    return jax.nn.softmax(jnp.tanh(x @ w1) @ w2, axis=-1)

def norm(x):
    m = x.mean(axis=-1, keepdims=True)
    return (x - m) / jnp.sqrt(((x - m) ** 2).mean(axis=-1, keepdims=True) + 1e-5) + jnp.arange(x.shape[1])

def pairs(x):
    return jnp.concatenate([x, x[::-1] * 2.0], axis=0).reshape(-1)

def unused(x, y, z):
    return x * 2.0 + z
'''
scope = {"jax": jax, "jnp": jnp}
exec(compile(SOURCE, "symbolic_cases.py", "exec"), scope)

f32 = jnp.float32
CASES = {
    "mlp": (scope["mlp"], ["b, 8", "8, 16", "16, 4"], [[(3, 8), (8, 16), (16, 4)], [(5, 8), (8, 16), (16, 4)]]),
    "norm": (scope["norm"], ["b, n"], [[(2, 6)], [(4, 3)]]),
    "pairs": (scope["pairs"], ["b, 3"], [[(2, 3)], [(7, 3)]]),
    # Static shapes, `y` unused: JAX drops it from the module
    # (`module_kept_var_idx`); the loader puts it back.
    "unused": (scope["unused"], ["3", "5", "3"], [[(3,), (5,), (3,)], [(3,), (5,), (3,)]]),
}
rng = np.random.default_rng(0)
for name, (fn, specs, bindings) in CASES.items():
    symbols = jax.export.SymbolicScope()
    avals = [jax.ShapeDtypeStruct(jax.export.symbolic_shape(s, scope=symbols), f32) for s in specs]
    exp = jax.export.export(jax.jit(fn))(*avals)
    open(f"{name}.jax_export", "wb").write(exp.serialize())
    open(f"{name}.mlir", "w").write(str(exp.mlir_module()))
    for k, shapes in enumerate(bindings):
        args = [rng.standard_normal(s).astype(np.float32) for s in shapes]
        out = np.asarray(jax.jit(fn)(*args))
        for i, a in enumerate(args):
            np.save(f"{name}.{k}.arg{i}.npy", a)
        np.save(f"{name}.{k}.out.npy", out)

# An artifact for two platforms, whose lowering differs between them
# (Cholesky: cuSOLVER on cuda, LAPACK on cpu): its module takes a platform
# index first and picks the branch with `case`; the loader binds the CPU's.
spd = rng.standard_normal((4, 4)).astype(np.float32)
spd = spd @ spd.T + 4 * np.eye(4, dtype=np.float32)
exp = jax.export.export(jax.jit(jnp.linalg.cholesky), platforms=["cuda", "cpu"])(
    jax.ShapeDtypeStruct((4, 4), f32))
open("platforms.jax_export", "wb").write(exp.serialize())
np.save("platforms.0.arg0.npy", spd)
np.save("platforms.0.out.npy", np.asarray(jax.jit(jnp.linalg.cholesky)(spd)))
