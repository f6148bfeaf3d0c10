"""One module per op family; each exposes `cases()`, a generator of core.Case."""
import importlib

NAMES = [
    "unary",
    "binary",
    "compare",
    "convert",
    "movement",
    "gather_scatter",
    "reduce",
    "sort",
    "dot_conv",
    "control",
    "linalg",
    "rng",
    "collectives",
    "programs",
    "programs_control",
    "programs_dtypes",
    "programs_grad",
    "programs_array",
    "programs_models",
    "programs_extra",
    "optimized",
]


def all_cases():
    for name in NAMES:
        module = importlib.import_module(f"{__name__}.{name}")
        yield from module.cases()
