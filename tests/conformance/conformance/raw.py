"""Primitives that lower straight to one HLO instruction JAX never emits by itself.

JAX expands some operations before HLO (integer power, logistic) and has no API for
others (the batch-norm instructions). Each primitive here binds its operands to
exactly one StableHLO operation, so the module contains the instruction under test.
"""
import jax
from jax.extend import core as jcore
from jax.interpreters import mlir
from jax._src.lib.mlir import ir
from jax._src.lib.mlir.dialects import hlo


def _primitive(name, abstract_eval, lowering, multiple_results=False):
    p = jcore.Primitive(name)
    p.multiple_results = multiple_results
    p.def_abstract_eval(abstract_eval)
    mlir.register_lowering(p, lowering)
    return p


def _same_as_first(x, *rest, **params):
    return jax.core.ShapedArray(x.shape, x.dtype)


_power = _primitive("raw_power", _same_as_first, lambda ctx, x, y: [hlo.power(x, y)])
_logistic = _primitive("raw_logistic", _same_as_first, lambda ctx, x: [hlo.logistic(x)])


def power(x, y):
    """HLO `power` on any element type (JAX's pow accepts only float/complex bases)."""
    return _power.bind(x, y)


def logistic(x):
    """HLO `logistic` (lax.logistic expands to 1 / (1 + exp(-x)))."""
    return _logistic.bind(x)


def _f32_attr(v):
    return ir.FloatAttr.get(ir.F32Type.get(), v)


def _i64_attr(v):
    return ir.IntegerAttr.get(ir.IntegerType.get_signless(64), v)


def _bn_training_abstract(x, scale, offset, *, epsilon, feature_index):
    c = jax.core.ShapedArray((x.shape[feature_index],), x.dtype)
    return [jax.core.ShapedArray(x.shape, x.dtype), c, c]


def _bn_training_lower(ctx, x, scale, offset, *, epsilon, feature_index):
    op = hlo.BatchNormTrainingOp(x, scale, offset, _f32_attr(epsilon), _i64_attr(feature_index))
    return list(op.results)


def _bn_inference_lower(ctx, x, scale, offset, mean, variance, *, epsilon, feature_index):
    return [hlo.batch_norm_inference(x, scale, offset, mean, variance, _f32_attr(epsilon),
                                     _i64_attr(feature_index))]


def _bn_grad_abstract(x, scale, mean, variance, grad, *, epsilon, feature_index):
    return _bn_training_abstract(x, scale, scale, epsilon=epsilon, feature_index=feature_index)


def _bn_grad_lower(ctx, x, scale, mean, variance, grad, *, epsilon, feature_index):
    op = hlo.BatchNormGradOp(x, scale, mean, variance, grad, _f32_attr(epsilon), _i64_attr(feature_index))
    return list(op.results)


_bn_training = _primitive("raw_batch_norm_training", _bn_training_abstract, _bn_training_lower, True)
_bn_inference = _primitive("raw_batch_norm_inference", _same_as_first, _bn_inference_lower)
_bn_grad = _primitive("raw_batch_norm_grad", _bn_grad_abstract, _bn_grad_lower, True)


def batch_norm_training(x, scale, offset, epsilon, feature_index):
    return tuple(_bn_training.bind(x, scale, offset, epsilon=float(epsilon), feature_index=int(feature_index)))


def batch_norm_inference(x, scale, offset, mean, variance, epsilon, feature_index):
    return _bn_inference.bind(x, scale, offset, mean, variance, epsilon=float(epsilon),
                              feature_index=int(feature_index))


def batch_norm_grad(x, scale, mean, variance, grad, epsilon, feature_index):
    return tuple(_bn_grad.bind(x, scale, mean, variance, grad, epsilon=float(epsilon),
                               feature_index=int(feature_index)))



def _bool_attr(v):
    return ir.BoolAttr.get(bool(v))


_cholesky = _primitive(
    "raw_cholesky", _same_as_first,
    lambda ctx, a, *, lower: [hlo.cholesky(a, lower=_bool_attr(lower))])


def _triangular_solve_abstract(a, b, **params):
    return jax.core.ShapedArray(b.shape, b.dtype)


def _triangular_solve_lower(ctx, a, b, *, left_side, lower, unit_diagonal, transpose_a):
    return [hlo.triangular_solve(a, b, _bool_attr(left_side), _bool_attr(lower), _bool_attr(unit_diagonal),
                                 hlo.TransposeAttr.get(transpose_a))]


_triangular_solve = _primitive("raw_triangular_solve", _triangular_solve_abstract, _triangular_solve_lower)


def cholesky(a, lower=True):
    """HLO `cholesky` (jnp.linalg.cholesky lowers to a LAPACK custom call on CPU)."""
    return _cholesky.bind(a, lower=bool(lower))


def triangular_solve(a, b, left_side, lower, unit_diagonal, transpose_a="NO_TRANSPOSE"):
    """HLO `triangular-solve` (lax.linalg.triangular_solve lowers to a LAPACK custom
    call on CPU). transpose_a: NO_TRANSPOSE, TRANSPOSE or ADJOINT."""
    return _triangular_solve.bind(a, b, left_side=bool(left_side), lower=bool(lower),
                                  unit_diagonal=bool(unit_diagonal), transpose_a=transpose_a)
