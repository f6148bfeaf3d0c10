//! Random numbers (`docs/semantics.md`, *Random numbers*): rng and rng-bit-generator.

use super::check::{self, bare_array};
use super::error::InferError;
use super::parts::TypeClass;
use crate::hlo::{Opcode, RngAlgorithm, RngDistribution};
use crate::{ArrayShape, Dim, PrimitiveType, Shape};

/// `rng(a, b), distribution=…` producing `shape`: `a` and `b` are scalars of
/// the shape's element type, which is real numeric for `rng_uniform` and
/// floating-point for `rng_normal` (`a`, `b` = `mu`, `sigma`).
pub fn rng<D: Dim>(
    distribution: RngDistribution,
    a: &ArrayShape<D>,
    b: &ArrayShape<D>,
    shape: &ArrayShape<D>,
) -> Result<ArrayShape<D>, InferError<D>> {
    let op = Opcode::Rng.name();
    for (index, param) in [(0, a), (1, b)] {
        check::scalar(op, index, param)?;
        if param.element_type() != shape.element_type() {
            return Err(InferError::ResultElementType {
                op,
                index,
                shape: bare_array(param),
                result: bare_array(shape),
            });
        }
    }
    let accepted = match distribution {
        RngDistribution::Uniform => TypeClass::RealArithmetic,
        RngDistribution::Normal => TypeClass::Floating,
    };
    check::element_type(op, 0, a, accepted)?;
    Ok(shape.clone().without_layout())
}

/// `rng-bit-generator(initial_state), algorithm=…` producing `shape`:
/// `(new_state, bits)`. The state is `u64[2]` for `rng_three_fry` and
/// `u64[2]` or `u64[3]` for `rng_philox` and `rng_default` (Philox here);
/// the bits are unsigned integers.
pub fn rng_bit_generator<D: Dim>(
    algorithm: RngAlgorithm,
    initial_state: &ArrayShape<D>,
    shape: &ArrayShape<D>,
) -> Result<Shape<D>, InferError<D>> {
    let op = Opcode::RngBitGenerator.name();
    let (sizes, expected): (&[i64], _) = match algorithm {
        RngAlgorithm::ThreeFry => (&[2], "u64[2]"),
        RngAlgorithm::Philox | RngAlgorithm::Default => (&[2, 3], "u64[2] or u64[3]"),
    };
    let state_ok = initial_state.element_type() == PrimitiveType::U64
        && initial_state.rank() == 1
        && sizes
            .iter()
            .any(|&s| !initial_state.dims()[0].known_ne(&D::constant(s)));
    if !state_ok {
        return Err(InferError::RngState {
            op,
            algorithm,
            expected,
            shape: bare_array(initial_state),
        });
    }
    if !shape.element_type().is_unsigned_integral() {
        return Err(InferError::DeclaredShape {
            op,
            shape: bare_array(shape),
            expected: "an array of unsigned integers",
        });
    }
    Ok(Shape::Tuple(vec![
        initial_state.clone().without_layout().into(),
        shape.clone().without_layout().into(),
    ]))
}
