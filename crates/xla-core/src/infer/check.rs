//! Checks shared by the rules: operand kinds and element types, dimension
//! lists, and the size arithmetic that must stay honest for symbolic sizes.

use super::error::InferError;
use super::parts::{Attr, Callee, Count, DimList, Kind, TypeClass};
use super::Signature;
use crate::{ArrayShape, Dim, PrimitiveType, Shape};

/// `shape` without layouts, for error messages.
pub(crate) fn bare<D: Dim>(shape: &Shape<D>) -> Box<Shape<D>> {
    Box::new(shape.clone().without_layouts())
}

/// `shape` without layouts, for results.
pub(crate) fn plain<D: Dim>(shape: &Shape<D>) -> Shape<D> {
    shape.clone().without_layouts()
}

/// An array shape without its layout, as a `Shape`, for error messages.
pub(crate) fn bare_array<D: Dim>(shape: &ArrayShape<D>) -> Box<Shape<D>> {
    Box::new(Shape::Array(shape.clone().without_layout()))
}

/// Operand `index` must be an array.
pub(crate) fn array<'a, D: Dim>(
    op: &'static str,
    index: usize,
    shape: &'a Shape<D>,
) -> Result<&'a ArrayShape<D>, InferError<D>> {
    shape.as_array().ok_or_else(|| InferError::OperandKind {
        op,
        index,
        expected: Kind::Array,
        shape: bare(shape),
    })
}

/// Operand `index` must be a rank-0 array.
pub(crate) fn scalar<D: Dim>(
    op: &'static str,
    index: usize,
    shape: &ArrayShape<D>,
) -> Result<(), InferError<D>> {
    if shape.rank() == 0 {
        Ok(())
    } else {
        Err(InferError::OperandKind {
            op,
            index,
            expected: Kind::Scalar,
            shape: bare_array(shape),
        })
    }
}

/// Operand `index` must be a token.
pub(crate) fn token<D: Dim>(
    op: &'static str,
    index: usize,
    shape: &Shape<D>,
) -> Result<(), InferError<D>> {
    if shape.is_token() {
        Ok(())
    } else {
        Err(InferError::OperandKind {
            op,
            index,
            expected: Kind::Token,
            shape: bare(shape),
        })
    }
}

/// Operand `index` must have an element type of `class`.
pub(crate) fn element_type<D: Dim>(
    op: &'static str,
    index: usize,
    shape: &ArrayShape<D>,
    class: TypeClass,
) -> Result<(), InferError<D>> {
    if class.contains(shape.element_type()) {
        Ok(())
    } else {
        Err(InferError::ElementType {
            op,
            index,
            shape: bare_array(shape),
            expected: class,
        })
    }
}

/// Reinterpreting bytes of `from` as `to` (bitcast, bitcast-convert) must
/// not make a pred of another type: a pred byte holds only 0 or 1
/// (StableHLO refuses bitcasts to booleans too).
pub(crate) fn no_bytes_to_pred<D: Dim>(
    op: &'static str,
    from: PrimitiveType,
    to: PrimitiveType,
) -> Result<(), InferError<D>> {
    if to == PrimitiveType::Pred && from != PrimitiveType::Pred {
        return Err(InferError::Conversion {
            op,
            from,
            to,
            reason: "a pred holds only the bytes 0 and 1; compare with zero instead",
        });
    }
    Ok(())
}

/// Operand `index` must have the element type of operand `other_index`.
pub(crate) fn same_element_type<D: Dim>(
    op: &'static str,
    index: usize,
    shape: &ArrayShape<D>,
    other_index: usize,
    other: &ArrayShape<D>,
) -> Result<(), InferError<D>> {
    if shape.element_type() == other.element_type() {
        Ok(())
    } else {
        Err(InferError::ElementTypeMismatch {
            op,
            index,
            shape: bare_array(shape),
            other_index,
            other: bare_array(other),
        })
    }
}

/// Dot and convolution operands: equal element types, except that two
/// floating-point types of different precision may be mixed (XLA's
/// `SameElementTypeIgnoringFpPrecision`). Returns the higher-precision type.
pub(crate) fn same_type_ignoring_fp_precision<D: Dim>(
    op: &'static str,
    index: usize,
    shape: &ArrayShape<D>,
    other_index: usize,
    other: &ArrayShape<D>,
) -> Result<PrimitiveType, InferError<D>> {
    let (a, b) = (shape.element_type(), other.element_type());
    if a == b {
        return Ok(a);
    }
    if a.is_floating() && b.is_floating() {
        let precision = |t: PrimitiveType| (t.bit_width(), t.float_bits().map_or(0, |(_, m)| m));
        return Ok(if precision(a) >= precision(b) { a } else { b });
    }
    same_element_type(op, index, shape, other_index, other).map(|()| a)
}

/// Operand `index` must have the dimensions of operand `other_index`
/// (sizes compared as far as they are known).
pub(crate) fn same_dims<D: Dim>(
    op: &'static str,
    index: usize,
    shape: &ArrayShape<D>,
    other_index: usize,
    other: &ArrayShape<D>,
) -> Result<(), InferError<D>> {
    let differ = shape.rank() != other.rank()
        || shape
            .dims()
            .iter()
            .zip(other.dims())
            .any(|(a, b)| a.known_ne(b));
    if differ {
        Err(InferError::ShapeMismatch {
            op,
            index,
            shape: bare_array(shape),
            other_index,
            other: bare_array(other),
            what: "dimensions",
        })
    } else {
        Ok(())
    }
}

/// The op must get `expected` operands.
pub(crate) fn operand_count<D: Dim>(
    op: &'static str,
    actual: usize,
    expected: Count,
) -> Result<(), InferError<D>> {
    if expected.admits(actual) {
        Ok(())
    } else {
        Err(InferError::OperandCount {
            op,
            expected,
            actual,
        })
    }
}

/// What a dimension list must satisfy besides its entries being in range.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(crate) enum Order {
    /// No entry may repeat.
    Unique,
    /// Strictly increasing (which also forbids repeats).
    Increasing,
}

/// Checks a list of dimension numbers: every entry in `[0, bound)`, then the
/// order rule. Errors name the list and the first offending entry.
///
/// | list      | bound | order      | result                                      |
/// |-----------|-------|------------|---------------------------------------------|
/// | `{0,2}`   | 3     | Increasing | ok                                          |
/// | `{2,0}`   | 3     | Unique     | ok                                          |
/// | `{2,0}`   | 3     | Increasing | `list must be increasing, but list[1] = 0 follows 2` |
/// | `{1,1}`   | 3     | Unique     | `list[1] = 1 repeats an earlier entry`      |
/// | `{0,3}`   | 3     | Unique     | `list[1] = 3 is out of range [0, 3)`        |
pub(crate) fn dim_list<D: Dim>(
    op: &'static str,
    list: &'static str,
    dims: &[i64],
    bound: usize,
    order: Order,
) -> Result<(), InferError<D>> {
    for (position, &dim) in dims.iter().enumerate() {
        in_range(op, Attr::entry(list, position), dim, bound)?;
    }
    for (position, &dim) in dims.iter().enumerate() {
        match order {
            Order::Unique => {
                if dims[..position].contains(&dim) {
                    return Err(InferError::DimRepeated {
                        op,
                        list,
                        position,
                        dim,
                    });
                }
            }
            Order::Increasing => {
                if position > 0 && dims[position - 1] >= dim {
                    return Err(InferError::DimsNotIncreasing {
                        op,
                        list,
                        position,
                        dim,
                        previous: dims[position - 1],
                    });
                }
            }
        }
    }
    Ok(())
}

/// A single dimension number must lie in `[0, bound)`.
pub(crate) fn in_range<D: Dim>(
    op: &'static str,
    attr: Attr,
    dim: i64,
    bound: usize,
) -> Result<usize, InferError<D>> {
    if dim >= 0 && (dim as u64) < bound as u64 {
        Ok(dim as usize)
    } else {
        Err(InferError::DimOutOfRange {
            op,
            attr,
            dim,
            bound,
        })
    }
}

/// No dimension number may appear in both lists.
pub(crate) fn disjoint<D: Dim>(
    op: &'static str,
    list: &'static str,
    dims: &[i64],
    other_list: &'static str,
    other: &[i64],
) -> Result<(), InferError<D>> {
    match dims.iter().find(|d| other.contains(d)) {
        Some(&dim) => Err(InferError::DimsOverlap {
            op,
            list,
            other_list,
            dim,
        }),
        None => Ok(()),
    }
}

/// `dims` must be a permutation of `0..rank`.
pub(crate) fn permutation<D: Dim>(
    op: &'static str,
    list: &'static str,
    dims: &[i64],
    rank: usize,
) -> Result<(), InferError<D>> {
    let mut seen = vec![false; rank];
    let ok = dims.len() == rank
        && dims.iter().all(|&d| {
            let fresh = d >= 0 && (d as usize) < rank && !seen[d as usize];
            if fresh {
                seen[d as usize] = true;
            }
            fresh
        });
    if ok {
        Ok(())
    } else {
        Err(InferError::NotPermutation {
            op,
            list,
            dims: DimList(dims.to_vec()),
            rank,
        })
    }
}

/// A list attribute with one entry per dimension of operand `index`.
pub(crate) fn list_rank<D: Dim>(
    op: &'static str,
    list: &'static str,
    len: usize,
    index: usize,
    shape: &ArrayShape<D>,
) -> Result<(), InferError<D>> {
    if len == shape.rank() {
        Ok(())
    } else {
        Err(InferError::ListRank {
            op,
            list,
            len,
            index,
            shape: bare_array(shape),
            rank: shape.rank(),
        })
    }
}

/// A size attribute must not be known to be negative.
pub(crate) fn non_negative<D: Dim>(
    op: &'static str,
    attr: Attr,
    size: &D,
) -> Result<(), InferError<D>> {
    if size.known_lt(&D::constant(0)) {
        Err(InferError::NegativeSize {
            op,
            attr,
            size: size.clone(),
        })
    } else {
        Ok(())
    }
}

/// The product of `dims` (1 for none).
pub(crate) fn product<D: Dim>(dims: &[D]) -> D {
    dims.iter().fold(D::constant(1), |acc, d| acc.mul(d))
}

/// `size / divisor` for a dimension that must split evenly (result dimension
/// `result_dim`): an error naming the operand when the division is known not
/// to be exact; `NotExpressible` when a symbolic size may or may not divide.
pub(crate) fn divide<D: Dim>(
    op: &'static str,
    (index, shape, dim): (usize, &ArrayShape<D>, usize),
    divisor_name: &'static str,
    divisor: &D,
    result_dim: usize,
) -> Result<D, InferError<D>> {
    let size = &shape.dims()[dim];
    if let Some(q) = size.exact_div(divisor) {
        return Ok(q);
    }
    if size.as_const().is_some() && divisor.as_const().is_some() {
        Err(InferError::NotDivisible {
            op,
            index,
            shape: bare_array(shape),
            dim,
            size: size.clone(),
            divisor_name,
            divisor: divisor.clone(),
        })
    } else {
        Err(InferError::NotExpressible {
            op,
            dim: result_dim,
            formula: format!("{size} / {divisor}"),
        })
    }
}

/// An array shape with the given dynamic flags (`false` where `dynamic` is
/// shorter than `dims`).
pub(crate) fn with_dynamic<D: Dim>(
    element_type: crate::PrimitiveType,
    dims: Vec<D>,
    dynamic: &[bool],
) -> ArrayShape<D> {
    let mut out = ArrayShape::new(element_type, dims);
    for (d, &is_dynamic) in dynamic.iter().enumerate() {
        if is_dynamic {
            out.set_dynamic_dim(d, true);
        }
    }
    out
}

/// The dynamic flags of `shape`, one per dimension.
pub(crate) fn dynamic_flags<D: Dim>(shape: &ArrayShape<D>) -> Vec<bool> {
    (0..shape.rank()).map(|d| shape.is_dynamic_dim(d)).collect()
}

/// `true` unless `a` and `b` are known to differ: same structure, element
/// types and ranks, and no pair of sizes known to be different. For
/// concrete shapes this is equality ignoring layouts and dynamic flags.
pub(crate) fn may_equal<D: Dim>(a: &Shape<D>, b: &Shape<D>) -> bool {
    match (a, b) {
        (Shape::Array(x), Shape::Array(y)) => {
            x.element_type() == y.element_type()
                && x.rank() == y.rank()
                && x.dims().iter().zip(y.dims()).all(|(p, q)| !p.known_ne(q))
        }
        (Shape::Tuple(x), Shape::Tuple(y)) => {
            x.len() == y.len() && x.iter().zip(y).all(|(p, q)| may_equal(p, q))
        }
        (Shape::Token, Shape::Token) | (Shape::Opaque, Shape::Opaque) => true,
        _ => false,
    }
}

/// A called computation must take `expected` parameters.
pub(crate) fn called_arity<D: Dim>(
    op: &'static str,
    computation: Callee,
    signature: Signature<'_, D>,
    expected: usize,
) -> Result<(), InferError<D>> {
    if signature.parameters.len() == expected {
        Ok(())
    } else {
        Err(InferError::CalledArity {
            op,
            computation,
            expected,
            actual: signature.parameters.len(),
        })
    }
}

/// Parameter `index` of a called computation must have shape `expected`
/// (layouts ignored). The arity must have been checked.
pub(crate) fn called_parameter<D: Dim>(
    op: &'static str,
    computation: Callee,
    signature: Signature<'_, D>,
    index: usize,
    expected: &Shape<D>,
) -> Result<(), InferError<D>> {
    let actual = &signature.parameters[index];
    if may_equal(actual, expected) {
        Ok(())
    } else {
        Err(InferError::CalledParameter {
            op,
            computation,
            index,
            expected: bare(expected),
            actual: bare(actual),
        })
    }
}

/// A called computation must return `expected` (layouts ignored).
pub(crate) fn called_result<D: Dim>(
    op: &'static str,
    computation: Callee,
    signature: Signature<'_, D>,
    expected: &Shape<D>,
) -> Result<(), InferError<D>> {
    if may_equal(signature.result, expected) {
        Ok(())
    } else {
        Err(InferError::CalledResult {
            op,
            computation,
            expected: bare(expected).to_string(),
            actual: bare(signature.result),
        })
    }
}

/// `Collate(T_0, …, T_{N−1})` (`docs/semantics.md`, *Conventions*): the single shape for
/// `N = 1`, else the tuple.
pub(crate) fn collate<D: Dim>(mut shapes: Vec<Shape<D>>) -> Shape<D> {
    if shapes.len() == 1 {
        shapes.pop().expect("one shape")
    } else {
        Shape::Tuple(shapes)
    }
}

/// A list of sizes printed as in HLO text: `{2,3}`, `{1, N - 1}`.
pub(crate) fn list_string<D: Dim>(sizes: &[D]) -> String {
    let items: Vec<String> = sizes.iter().map(ToString::to_string).collect();
    format!("{{{}}}", items.join(D::SEPARATOR))
}
