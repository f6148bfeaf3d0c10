"""JAX plugin for xla-rs: runs JAX programs on xla-rs's PJRT plugin
(crates/xla-pjrt, a pure-Rust compiler with a Cranelift JIT).

JAX imports this module at startup (it is in the `jax_plugins` namespace
package and advertised under the `jax_plugins` entry-point group) and calls
`initialize()`, which registers the backend `xla_rs`:

    JAX_PLATFORMS=xla_rs python prog.py          # xla_rs only
    JAX_PLATFORMS=xla_rs,cpu python prog.py      # both; xla_rs is the default
    jax.devices("xla_rs")                        # its devices

The plugin's PJRT platform name is "cpu" (JAX lowers programs for it with its
CPU rules, so LAPACK custom calls and the like appear as on XLA:CPU); its
backend name is "xla_rs".

Environment:
    XLA_RS_PJRT_LIBRARY  path of the plugin library to load instead of the
                         installed one (e.g. target/release/libxla_pjrt.so of a
                         checkout, to test a build without reinstalling)
"""
import logging
import os
import pathlib

__all__ = ["PLUGIN_NAME", "ENV_LIBRARY", "library_path", "initialize"]

PLUGIN_NAME = "xla_rs"
ENV_LIBRARY = "XLA_RS_PJRT_LIBRARY"
# Below XLA:CPU's priority (0): with JAX_PLATFORMS unset, installing the plugin
# does not change JAX's default backend; `JAX_PLATFORMS=xla_rs` selects it (and a
# list gives the first platform named the highest priority).
PRIORITY = -100

logger = logging.getLogger(__name__)
_HERE = pathlib.Path(__file__).resolve().parent


def library_path():
    """The plugin library to load: $XLA_RS_PJRT_LIBRARY if set, else the
    library installed in this package, else (when this module runs from a
    source checkout's python/ folder) the checkout's target/release build.
    None when there is none."""
    env = os.environ.get(ENV_LIBRARY)
    if env:
        path = pathlib.Path(env).expanduser().resolve()
        if not path.is_file():
            raise FileNotFoundError(f"{ENV_LIBRARY}={env}: no such file")
        return str(path)
    # setuptools-rust installs the cdylib under an extension-module name,
    # e.g. xla_pjrt.cpython-311-x86_64-linux-gnu.so.
    for pattern in ("xla_pjrt*.so", "xla_pjrt*.dylib", "xla_pjrt*.pyd", "xla_pjrt*.dll"):
        found = sorted(_HERE.glob(pattern))
        if found:
            return str(found[0])
    checkout = _HERE.parents[2]  # <repo>/python/jax_plugins/xla_rs -> <repo>
    for name in ("libxla_pjrt.so", "libxla_pjrt.dylib", "xla_pjrt.dll"):
        path = checkout / "target" / "release" / name
        if (checkout / "crates" / "xla-pjrt").is_dir() and path.is_file():
            return str(path)
    return None


def initialize():
    """Registers the `xla_rs` PJRT plugin with JAX (called by JAX at startup)."""
    path = library_path()
    if path is None:
        logger.warning(
            "xla_rs JAX plugin: no plugin library found (not installed with the "
            "package, and %s is not set); the xla_rs backend is unavailable", ENV_LIBRARY)
        return
    from jax._src import xla_bridge

    xla_bridge.register_plugin(PLUGIN_NAME, priority=PRIORITY, library_path=path)
