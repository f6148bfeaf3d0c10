//! Approximate comparison of literals, for tests: shapes compared ignoring
//! layout, values compared in logical order.

use std::fmt;

use half::{bf16, f16};

use super::convert::{convert_value, widen, Wide};
use super::Literal;
use crate::{dispatch_native, NativeType, PrimitiveType, Shape};

/// How far a floating value may be from the expected one:
/// `|actual − expected| ≤ abs + rel · |expected|`.
///
/// Integers and pred always compare exactly; NaN matches NaN; an infinity
/// matches only the same infinity. Complex values compare each component.
#[derive(Copy, Clone, Debug, PartialEq)]
pub struct Tolerance {
    /// Absolute tolerance.
    pub abs: f64,
    /// Relative tolerance, a fraction of `|expected|`.
    pub rel: f64,
}

impl Tolerance {
    /// Exact comparison (NaN still matches NaN, and `−0` matches `+0`).
    pub const EXACT: Tolerance = Tolerance { abs: 0.0, rel: 0.0 };

    /// A tolerance with the given absolute and relative parts.
    pub const fn new(abs: f64, rel: f64) -> Self {
        Tolerance { abs, rel }
    }

    fn close(self, expected: f64, actual: f64) -> bool {
        if expected.is_nan() || actual.is_nan() {
            return expected.is_nan() && actual.is_nan();
        }
        if expected == actual {
            return true;
        }
        if expected.is_infinite() || actual.is_infinite() {
            return false;
        }
        (actual - expected).abs() <= self.abs + self.rel * expected.abs()
    }

    fn matches(self, expected: Wide, actual: Wide) -> bool {
        match (expected, actual) {
            (Wide::Pred(e), Wide::Pred(a)) => e == a,
            (Wide::Int(e), Wide::Int(a)) => e == a,
            (Wide::Float { value: e, .. }, Wide::Float { value: a, .. }) => self.close(e, a),
            (Wide::Complex { re: er, im: ei, .. }, Wide::Complex { re: ar, im: ai, .. }) => {
                self.close(er, ar) && self.close(ei, ai)
            }
            _ => false,
        }
    }
}

/// Why an actual literal is not close to the expected one.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
pub enum Mismatch {
    /// Different shapes (layouts are ignored).
    #[error(
        "{}shape mismatch: expected {expected}, got {actual}",
        TuplePath(tuple_index)
    )]
    Shape {
        /// Where in nested tuples (empty at the top).
        tuple_index: Vec<usize>,
        /// The expected shape.
        expected: Box<Shape>,
        /// The actual shape.
        actual: Box<Shape>,
    },
    /// Same shape, but some element is not within tolerance.
    #[error(
        "{}first mismatch at index {}: expected {expected}, got {actual} \
         ({count} of {total} elements differ)",
        TuplePath(tuple_index),
        Index(index)
    )]
    Value {
        /// Where in nested tuples (empty at the top).
        tuple_index: Vec<usize>,
        /// Logical index of the first differing element.
        index: Vec<i64>,
        /// The expected element, printed.
        expected: String,
        /// The actual element, printed.
        actual: String,
        /// How many elements differ.
        count: usize,
        /// How many elements there are.
        total: usize,
    },
}

impl Literal {
    /// `true` if `other` has this literal's shape (ignoring layouts) and
    /// values within `tolerance`; see [`Literal::check_close`].
    pub fn approx_eq(&self, other: &Literal, tolerance: Tolerance) -> bool {
        self.check_close(other, tolerance).is_ok()
    }

    /// Compares `actual` against `self` (the expected value): shapes ignoring
    /// layouts, then values in logical order, reporting the first mismatch.
    ///
    /// ```
    /// use xla_core::{Literal, literal::Tolerance};
    /// let expected = Literal::matrix(&[[1.0f32, 2.0, 1.5], [0.0, 0.0, 1.5]]);
    /// let actual = Literal::matrix(&[[1.0f32, 2.0, 1.5], [0.0, 0.0, 1.25]]);
    /// let err = expected.check_close(&actual, Tolerance::new(1e-6, 1e-6)).unwrap_err();
    /// assert_eq!(
    ///     err.to_string(),
    ///     "first mismatch at index [1,2]: expected 1.5, got 1.25 (1 of 6 elements differ)"
    /// );
    /// ```
    pub fn check_close(&self, actual: &Literal, tolerance: Tolerance) -> Result<(), Mismatch> {
        self.check_close_at(actual, tolerance, &mut Vec::new())
    }

    fn check_close_at(
        &self,
        actual: &Literal,
        tolerance: Tolerance,
        tuple_index: &mut Vec<usize>,
    ) -> Result<(), Mismatch> {
        if !self.shape().eq_ignoring_layout(actual.shape()) {
            return Err(Mismatch::Shape {
                tuple_index: tuple_index.clone(),
                expected: Box::new(self.shape().clone()),
                actual: Box::new(actual.shape().clone()),
            });
        }
        if let (Some(e), Some(a)) = (self.tuple_elements(), actual.tuple_elements()) {
            for (i, (e, a)) in e.iter().zip(a).enumerate() {
                tuple_index.push(i);
                e.check_close_at(a, tolerance, tuple_index)?;
                tuple_index.pop();
            }
            return Ok(());
        }
        let Some(ty) = self.element_type() else {
            return Ok(());
        };
        dispatch_native!(ty, T => compare_values::<T>(self, actual, tolerance, tuple_index))
    }
}

fn compare_values<T: NativeType>(
    expected: &Literal,
    actual: &Literal,
    tolerance: Tolerance,
    tuple_index: &[usize],
) -> Result<(), Mismatch> {
    let (e, a) = match (expected.to_vec::<T>(), actual.to_vec::<T>()) {
        (Ok(e), Ok(a)) => (e, a),
        _ => unreachable!("both are arrays of {:?}", T::TYPE),
    };
    let differ = |(x, y): (&T, &T)| !tolerance.matches(widen(*x), widen(*y));
    let count = e.iter().zip(&a).filter(|&p| differ(p)).count();
    let Some(first) = e.iter().zip(&a).position(differ) else {
        return Ok(());
    };
    let dims = expected.array_shape().map(|s| s.dims()).unwrap_or_default();
    Err(Mismatch::Value {
        tuple_index: tuple_index.to_vec(),
        index: unravel(first, dims),
        expected: show(widen(e[first])),
        actual: show(widen(a[first])),
        count,
        total: e.len(),
    })
}

/// The row-major multi-index of logical position `position`.
fn unravel(mut position: usize, dims: &[i64]) -> Vec<i64> {
    let mut index = vec![0; dims.len()];
    for (i, &size) in dims.iter().enumerate().rev() {
        index[i] = (position % size as usize) as i64;
        position /= size as usize;
    }
    index
}

/// An element printed in its own type's shortest round-trip form: `1.5`,
/// `-3`, `true`, `(1, 2)` for complex; an f16 `0.1` prints as `0.1`, not as
/// the f32 `0.099975586` it widens to.
fn show(w: Wide) -> String {
    fn float(value: f64, from: PrimitiveType) -> String {
        match from {
            PrimitiveType::F16 => shortest::<f16>(value),
            PrimitiveType::Bf16 => shortest::<bf16>(value),
            PrimitiveType::F32 => (value as f32).to_string(),
            _ => value.to_string(),
        }
    }
    match w {
        Wide::Pred(b) => b.to_string(),
        Wide::Int(i) => i.to_string(),
        Wide::Float { value, from } => float(value, from),
        Wide::Complex { re, im, from } => format!("({}, {})", float(re, from), float(im, from)),
    }
}

/// The shortest decimal that converts back to the same `T` value.
fn shortest<T: NativeType>(value: f64) -> String {
    if !value.is_finite() {
        return value.to_string();
    }
    let target = convert_value::<f64, T>(value);
    (1..17)
        .map(|digits| {
            format!("{:.*e}", digits - 1, value)
                .parse::<f64>()
                .expect("a formatted float parses")
        })
        .find(|&short| convert_value::<f64, T>(short) == target)
        .unwrap_or(value)
        .to_string()
}

/// Prints a tuple path as `in tuple element {1, 0}: `, nothing at the top.
struct TuplePath<'a>(&'a [usize]);

impl fmt::Display for TuplePath<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.0.is_empty() {
            return Ok(());
        }
        let parts: Vec<String> = self.0.iter().map(usize::to_string).collect();
        write!(f, "in tuple element {{{}}}: ", parts.join(", "))
    }
}

/// Prints a multi-index as `[1,2]`.
struct Index<'a>(&'a [i64]);

impl fmt::Display for Index<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let parts: Vec<String> = self.0.iter().map(i64::to_string).collect();
        write!(f, "[{}]", parts.join(","))
    }
}
