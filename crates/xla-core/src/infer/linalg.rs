//! Linear algebra (`docs/semantics.md`, *FFT*, *Linear algebra*): cholesky, triangular-solve
//! and fft.

use super::check::{self, bare_array};
use super::error::InferError;
use super::parts::{RankRule, TypeClass};
use crate::hlo::{FftType, Opcode, TriangularSolveOptions};
use crate::{ArrayShape, Dim};

/// Rank ≥ 2 and square in the two minor dimensions (`[…, M, M]`).
fn square_matrices<D: Dim>(
    op: &'static str,
    index: usize,
    a: &ArrayShape<D>,
) -> Result<(), InferError<D>> {
    let rank = a.rank();
    if rank < 2 {
        return Err(InferError::Rank {
            op,
            index,
            shape: bare_array(a),
            expected: RankRule::AtLeast(2),
        });
    }
    let (rows, cols) = (&a.dims()[rank - 2], &a.dims()[rank - 1]);
    if rows.known_ne(cols) {
        return Err(InferError::DimMismatch {
            op,
            lhs_index: index,
            lhs: bare_array(a),
            lhs_dim: rank - 2,
            lhs_size: rows.clone(),
            rhs_index: index,
            rhs: bare_array(a),
            rhs_dim: rank - 1,
            rhs_size: cols.clone(),
        });
    }
    Ok(())
}

/// `cholesky(a), lower=…` (`docs/semantics.md`, *Cholesky*): a floating-point or
/// complex `[…, M, M]`; the result has its shape.
pub fn cholesky<D: Dim>(a: &ArrayShape<D>) -> Result<ArrayShape<D>, InferError<D>> {
    let op = Opcode::Cholesky.name();
    check::element_type(op, 0, a, TypeClass::FloatingOrComplex)?;
    square_matrices(op, 0, a)?;
    Ok(a.clone().without_layout())
}

/// `triangular-solve(a, b), left_side=… lower=… unit_diagonal=…
/// transpose_a=…` (`docs/semantics.md`, *Triangular solve*): `a` is a floating-point or
/// complex `[…, M, M]`, `b` of its type and rank is `[…, M, K]` (left side)
/// or `[…, K, M]`, with equal batch dimensions. The result is `b`'s shape.
pub fn triangular_solve<D: Dim>(
    a: &ArrayShape<D>,
    b: &ArrayShape<D>,
    options: &TriangularSolveOptions,
) -> Result<ArrayShape<D>, InferError<D>> {
    let op = Opcode::TriangularSolve.name();
    check::element_type(op, 0, a, TypeClass::FloatingOrComplex)?;
    check::same_element_type(op, 1, b, 0, a)?;
    square_matrices(op, 0, a)?;
    let rank = a.rank();
    if b.rank() != rank {
        return Err(InferError::RankMismatch {
            op,
            index: 1,
            shape: bare_array(b),
            rank: b.rank(),
            other_index: 0,
            other: bare_array(a),
            other_rank: rank,
        });
    }
    let shared = if options.left_side {
        rank - 2
    } else {
        rank - 1
    };
    let pairs = (0..rank - 2).map(|d| (d, d)).chain([(rank - 1, shared)]);
    for (ad, bd) in pairs {
        let (x, y) = (&a.dims()[ad], &b.dims()[bd]);
        if x.known_ne(y) {
            return Err(InferError::DimMismatch {
                op,
                lhs_index: 0,
                lhs: bare_array(a),
                lhs_dim: ad,
                lhs_size: x.clone(),
                rhs_index: 1,
                rhs: bare_array(b),
                rhs_dim: bd,
                rhs_size: y.clone(),
            });
        }
    }
    Ok(b.clone().without_layout())
}

/// `fft(operand), fft_type=…, fft_length=…` (`docs/semantics.md`, *FFT*): transforms
/// the innermost `L = len(fft_length)` dimensions, `1 ≤ L ≤ 3`.
///
/// | type    | operand      | `fft_length` | result        |
/// |---------|--------------|--------------|---------------|
/// | `FFT`   | `c64[4]`     | `{4}`        | `c64[4]`      |
/// | `RFFT`  | `f32[2,4]`   | `{2,4}`      | `c64[2,3]`    |
/// | `RFFT`  | `f32[5]`     | `{5}`        | `c64[3]`      |
/// | `IRFFT` | `c64[3]`     | `{4}`        | `f32[4]`      |
/// | `IRFFT` | `c64[3]`     | `{5}`        | `f32[5]`      |
/// | `FFT`   | `c64[4,5]`   | `{4,4}`      | error: dimension 1 |
/// | `IRFFT` | `c64[4]`     | `{4}`        | error: needs 3 |
/// | `RFFT`  | `c64[4]`     | `{4}`        | error: type   |
pub fn fft<D: Dim>(
    operand: &ArrayShape<D>,
    fft_type: FftType,
    fft_length: &[D],
) -> Result<ArrayShape<D>, InferError<D>> {
    let op = Opcode::Fft.name();
    let l = fft_length.len();
    if !(1..=3).contains(&l) {
        return Err(InferError::InvalidAttribute {
            op,
            attribute: "fft_length",
            value: check::list_string(fft_length),
            requirement: "an FFT transforms 1 to 3 dimensions",
        });
    }
    let accepted = match fft_type {
        FftType::Fft | FftType::Ifft | FftType::Irfft => TypeClass::Complex,
        FftType::Rfft => TypeClass::F32OrF64,
    };
    check::element_type(op, 0, operand, accepted)?;
    let rank = operand.rank();
    if rank < l {
        return Err(InferError::Rank {
            op,
            index: 0,
            shape: bare_array(operand),
            expected: RankRule::AtLeast(l),
        });
    }
    let last = &fft_length[l - 1];
    let half = || {
        last.floor_div(2)
            .map(|h| h.add(&D::constant(1)))
            .ok_or_else(|| InferError::NotExpressible {
                op,
                dim: rank - 1,
                formula: format!("⌊({last}) / 2⌋ + 1"),
            })
    };
    let mut expected: Vec<D> = fft_length.to_vec();
    if fft_type == FftType::Irfft {
        let inner = &operand.dims()[rank - 1];
        expected[l - 1] = if last.is(0) && inner.is(0) {
            D::constant(0)
        } else {
            half()?
        };
    }
    for (k, want) in expected.iter().enumerate() {
        let dim = rank - l + k;
        let size = &operand.dims()[dim];
        if size.known_ne(want) {
            return Err(InferError::FftLength {
                op,
                fft_type,
                shape: bare_array(operand),
                dim,
                expected: want.clone(),
                size: size.clone(),
            });
        }
    }
    let mut out = operand.clone().without_layout();
    let ty = operand.element_type();
    let mut dims = out.dims().to_vec();
    match fft_type {
        FftType::Fft | FftType::Ifft => {}
        FftType::Rfft => {
            out = out.with_element_type(ty.complex_type().expect("f32 or f64"));
            if !last.is(0) {
                dims[rank - 1] = half()?;
            }
        }
        FftType::Irfft => {
            out = out.with_element_type(ty.component_type());
            dims[rank - 1] = last.clone();
        }
    }
    Ok(check::with_dynamic(
        out.element_type(),
        dims,
        &check::dynamic_flags(operand),
    ))
}
