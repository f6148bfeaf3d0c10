"""Writes symbolic_b4.jax_export: a jax.export artifact with a symbolic
dimension (`b, 4`), for the MLIR bytecode reader's tests.

Run with jax 0.10.2, from this directory, reading the script from stdin
(`python - < gen_symbolic_export.py`) so that no path of the generating
machine ends up in the artifact's locations.
"""

import jax
import jax.numpy as jnp


# Compiled under a relative file name so that no path of the generating
# machine ends up in the artifact's locations.
SOURCE = """
def f(x):
    return jnp.sin(x) * 2.0 + jnp.sum(x, axis=1, keepdims=True)

exp = jax.export.export(jax.jit(f))(
    jax.ShapeDtypeStruct(jax.export.symbolic_shape("b, 4"), jnp.float32)
)
"""
scope = {"jax": jax, "jnp": jnp}
exec(compile(SOURCE, "symbolic.py", "exec"), scope)
exp = scope["exp"]
with open("symbolic_b4.jax_export", "wb") as out:
    out.write(exp.serialize())
print(exp.mlir_module())
