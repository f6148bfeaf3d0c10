//! Lowerings the `xla!` expansion calls: each builds a few builder calls
//! that would otherwise be repeated in every expansion (a reduction's init
//! value and computation, a literal broadcast to a shape). They take the
//! builder first and return its `Result`.

use xla_core::builder::{create_scalar_computation, ConvConfig, XlaBuilder, XlaComputation, XlaOp};
use xla_core::hlo::{ConvDimensionNumbers, Window, WindowDim};
use xla_core::infer::{make_padding, PaddingKind};
use xla_core::{ArrayShape, Literal, PrimitiveType, Result, Shape};

use super::DslError;

/// The element type of `x` (an array).
fn element_type(b: &XlaBuilder, x: XlaOp) -> Result<PrimitiveType> {
    let shape = b.get_shape(x)?;
    Ok(shape
        .element_type()
        .expect("the macro checked that reduction operands are arrays"))
}

/// A scalar constant of type `ty` converted from `value`.
fn scalar<T: xla_core::NativeType>(b: &XlaBuilder, ty: PrimitiveType, value: T) -> Result<XlaOp> {
    b.constant(&Literal::scalar(value).convert(ty)?)
}

/// `reduce(x, init, to_apply=op)` over `dims`, with `op`'s identity as init.
fn reduce_by(
    b: &XlaBuilder,
    x: XlaOp,
    dims: &[i64],
    name: &str,
    init: impl FnOnce(PrimitiveType) -> Result<XlaOp>,
    op: fn(&XlaBuilder, XlaOp, XlaOp, &[i64]) -> Result<XlaOp>,
) -> Result<XlaOp> {
    let ty = element_type(b, x)?;
    let init = init(ty)?;
    let computation = create_scalar_computation(name, ty, |b, l, r| op(b, l, r, &[]))?;
    b.reduce(&[x], &[init], &computation, dims)
}

/// The sum over `dims` (init 0).
pub fn reduce_sum(b: &XlaBuilder, x: XlaOp, dims: &[i64]) -> Result<XlaOp> {
    reduce_by(b, x, dims, "add", |ty| scalar(b, ty, 0i64), XlaBuilder::add)
}

/// The product over `dims` (init 1).
pub fn reduce_prod(b: &XlaBuilder, x: XlaOp, dims: &[i64]) -> Result<XlaOp> {
    reduce_by(b, x, dims, "mul", |ty| scalar(b, ty, 1i64), XlaBuilder::mul)
}

/// The identity of max: −∞, the type's minimum, or `false`.
fn lowest(b: &XlaBuilder, ty: PrimitiveType) -> Result<XlaOp> {
    match ty {
        PrimitiveType::Pred => scalar(b, ty, false),
        // Converting −∞ saturates to an integer type's minimum.
        _ => scalar(b, ty, f64::NEG_INFINITY),
    }
}

/// The identity of min: +∞, the type's maximum, or `true`.
fn highest(b: &XlaBuilder, ty: PrimitiveType) -> Result<XlaOp> {
    match ty {
        PrimitiveType::Pred => scalar(b, ty, true),
        _ => scalar(b, ty, f64::INFINITY),
    }
}

/// The maximum over `dims` (init −∞, the type's minimum, or `false`).
pub fn reduce_max(b: &XlaBuilder, x: XlaOp, dims: &[i64]) -> Result<XlaOp> {
    reduce_by(b, x, dims, "max", |ty| lowest(b, ty), XlaBuilder::max)
}

/// The minimum over `dims` (init +∞, the type's maximum, or `true`).
pub fn reduce_min(b: &XlaBuilder, x: XlaOp, dims: &[i64]) -> Result<XlaOp> {
    reduce_by(b, x, dims, "min", |ty| highest(b, ty), XlaBuilder::min)
}

/// The logical (pred) or bitwise (integers) and over `dims` (init all
/// ones: `−1` wraps to every bit set).
pub fn reduce_and(b: &XlaBuilder, x: XlaOp, dims: &[i64]) -> Result<XlaOp> {
    reduce_by(
        b,
        x,
        dims,
        "and",
        |ty| scalar(b, ty, -1i64),
        XlaBuilder::and,
    )
}

/// The logical or bitwise or over `dims` (init 0).
pub fn reduce_or(b: &XlaBuilder, x: XlaOp, dims: &[i64]) -> Result<XlaOp> {
    reduce_by(b, x, dims, "or", |ty| scalar(b, ty, 0i64), XlaBuilder::or)
}

/// A cumulative reduction of `x` along `dimension` by `op`, as JAX lowers
/// `lax.cumsum` & co: a reduce-window whose window spans the dimension
/// (size `n`), padded by `n − 1` identities in front, so that output `i`
/// reduces inputs `0..=i`. `cumsum([1, 2, 3])`: windows `[0, 0, 1]`,
/// `[0, 1, 2]`, `[1, 2, 3]` give `[1, 3, 6]`.
fn cumulative(
    b: &XlaBuilder,
    x: XlaOp,
    dimension: i64,
    name: &str,
    init: impl FnOnce(PrimitiveType) -> Result<XlaOp>,
    op: fn(&XlaBuilder, XlaOp, XlaOp, &[i64]) -> Result<XlaOp>,
) -> Result<XlaOp> {
    let ty = element_type(b, x)?;
    let shape = b.get_shape(x)?;
    let sizes = shape
        .as_array()
        .expect("the macro checked that cumulative operands are arrays")
        .dims()
        .to_vec();
    let dims = sizes
        .iter()
        .enumerate()
        .map(|(d, &n)| {
            let along = d as i64 == dimension;
            WindowDim {
                size: if along { n.max(1) } else { 1 },
                stride: 1,
                padding_low: if along { (n - 1).max(0) } else { 0 },
                ..WindowDim::default()
            }
        })
        .collect();
    let init = init(ty)?;
    let computation = create_scalar_computation(name, ty, |b, l, r| op(b, l, r, &[]))?;
    b.reduce_window_with_general_padding(&[x], &[init], &computation, &Window { dims })
}

/// The running sum along `dimension`.
pub fn cumsum(b: &XlaBuilder, x: XlaOp, dimension: i64) -> Result<XlaOp> {
    let zero = |ty| scalar(b, ty, 0i64);
    cumulative(b, x, dimension, "add", zero, XlaBuilder::add)
}

/// The running product along `dimension`.
pub fn cumprod(b: &XlaBuilder, x: XlaOp, dimension: i64) -> Result<XlaOp> {
    let one = |ty| scalar(b, ty, 1i64);
    cumulative(b, x, dimension, "mul", one, XlaBuilder::mul)
}

/// The running maximum along `dimension`.
pub fn cummax(b: &XlaBuilder, x: XlaOp, dimension: i64) -> Result<XlaOp> {
    cumulative(b, x, dimension, "max", |ty| lowest(b, ty), XlaBuilder::max)
}

/// The running minimum along `dimension`.
pub fn cummin(b: &XlaBuilder, x: XlaOp, dimension: i64) -> Result<XlaOp> {
    cumulative(b, x, dimension, "min", |ty| highest(b, ty), XlaBuilder::min)
}

/// The index of the largest element along `dimension` (JAX's `argmax`),
/// as `index_type`: the first index of the largest, and NaN is larger
/// than every number (the first NaN wins).
pub fn argmax(
    b: &XlaBuilder,
    x: XlaOp,
    dimension: i64,
    index_type: PrimitiveType,
) -> Result<XlaOp> {
    arg_best(
        b,
        x,
        dimension,
        index_type,
        "argmax",
        XlaBuilder::gt,
        lowest,
    )
}

/// The index of the smallest element along `dimension` (JAX's `argmin`),
/// as `index_type`: the first index of the smallest, and NaN is smaller
/// than every number (the first NaN wins).
pub fn argmin(
    b: &XlaBuilder,
    x: XlaOp,
    dimension: i64,
    index_type: PrimitiveType,
) -> Result<XlaOp> {
    arg_best(
        b,
        x,
        dimension,
        index_type,
        "argmin",
        XlaBuilder::lt,
        highest,
    )
}

/// A compare method of the builder (`gt`, `lt`).
type Compare = fn(&XlaBuilder, XlaOp, XlaOp, &[i64]) -> Result<XlaOp>;

/// The index of the best element along `dimension`, by a variadic reduce
/// over `(value, index)` pairs. Its computation keeps the pair `a` over
/// `b` when `a` is a NaN and `b` is not, when `better(a, b)`, or when they
/// tie (equal, or both NaN) and `a`'s index is lower: a choice that does
/// not depend on the order the reduction visits the elements in.
fn arg_best(
    b: &XlaBuilder,
    x: XlaOp,
    dimension: i64,
    index_type: PrimitiveType,
    name: &str,
    better: Compare,
    worst: fn(&XlaBuilder, PrimitiveType) -> Result<XlaOp>,
) -> Result<XlaOp> {
    let shape = b.get_shape(x)?;
    let array = shape
        .as_array()
        .expect("the macro checked that argmax operands are arrays");
    let ty = array.element_type();
    let indices = b.iota(
        &ArrayShape::new(index_type, array.dims().to_vec()),
        dimension,
    )?;
    let c = XlaBuilder::new(name);
    let (value, index) = (Shape::scalar(ty), Shape::scalar(index_type));
    let av = c.parameter(0, &value, "a_value")?;
    let ai = c.parameter(1, &index, "a_index")?;
    let bv = c.parameter(2, &value, "b_value")?;
    let bi = c.parameter(3, &index, "b_index")?;
    let a_nan = c.ne(av, av, &[])?;
    let b_nan = c.ne(bv, bv, &[])?;
    let b_number = c.not(b_nan)?;
    let nan_over_number = c.and(a_nan, b_number, &[])?;
    let a_better = c.and(b_number, better(&c, av, bv, &[])?, &[])?;
    let both_nan = c.and(a_nan, b_nan, &[])?;
    let tie = c.or(c.eq(av, bv, &[])?, both_nan, &[])?;
    let first = c.and(tie, c.lt(ai, bi, &[])?, &[])?;
    let keep_a = c.or(c.or(nan_over_number, a_better, &[])?, first, &[])?;
    let root = c.tuple(&[c.select(keep_a, av, bv)?, c.select(keep_a, ai, bi)?])?;
    let computation = c.build(root)?;
    let inits = [worst(b, ty)?, scalar(b, index_type, 0i64)?];
    let reduced = b.reduce(&[x, indices], &inits, &computation, &[dimension])?;
    b.get_tuple_element(reduced, 1)
}

/// A dimension's size used as a value: a scalar of type `ty`. A size an
/// integer type cannot hold is an error, as a literal out of its type's
/// range is (`b + N` on `u8` with `N = 300`; `N - 5` on `u8` with `N =
/// 2`); `text` is the size as written.
pub fn size_constant(
    b: &XlaBuilder,
    ty: PrimitiveType,
    size: i64,
    text: &str,
) -> std::result::Result<XlaOp, DslError> {
    if let Some((min, max)) = ty.integer_range() {
        if !(min..=max).contains(&i128::from(size)) {
            return Err(DslError::Sizes(format!(
                "the size {text} = {size} used as a value is out of the range of {} [{min}, {max}]",
                ty.name()
            )));
        }
    }
    Ok(scalar(b, ty, size)?)
}

/// The scalar `x` broadcast to the dimensions of `like`.
pub fn broadcast_like(b: &XlaBuilder, x: XlaOp, like: XlaOp) -> Result<XlaOp> {
    let shape = b.get_shape(like)?;
    let dims = shape
        .as_array()
        .map(|a| a.dims().to_vec())
        .unwrap_or_default();
    b.broadcast(x, &dims)
}

/// `reduce_window` with explicit `(low, high)` padding per dimension.
pub fn reduce_window_padded(
    b: &XlaBuilder,
    operands: &[XlaOp],
    init_values: &[XlaOp],
    computation: &XlaComputation,
    window_dimensions: &[i64],
    window_strides: &[i64],
    padding: &[(i64, i64)],
) -> Result<XlaOp> {
    let dims = window_dimensions
        .iter()
        .zip(window_strides)
        .zip(padding)
        .map(|((&size, &stride), &(low, high))| WindowDim {
            size,
            stride,
            padding_low: low,
            padding_high: high,
            ..WindowDim::default()
        })
        .collect();
    b.reduce_window_with_general_padding(operands, init_values, computation, &Window { dims })
}

/// A convolution's padding: SAME or VALID, or explicit pairs.
pub enum ConvPadding<'a> {
    /// SAME or VALID, computed from the sizes.
    Kind(PaddingKind),
    /// `(low, high)` per spatial dimension.
    Pairs(&'a [(i64, i64)]),
}

impl From<PaddingKind> for ConvPadding<'_> {
    fn from(kind: PaddingKind) -> Self {
        ConvPadding::Kind(kind)
    }
}

impl<'a> From<&'a [(i64, i64)]> for ConvPadding<'a> {
    fn from(pairs: &'a [(i64, i64)]) -> Self {
        ConvPadding::Pairs(pairs)
    }
}

impl<'a, const N: usize> From<&'a [(i64, i64); N]> for ConvPadding<'a> {
    fn from(pairs: &'a [(i64, i64); N]) -> Self {
        ConvPadding::Pairs(pairs)
    }
}

/// `(x − 1)·d + 1`: the extent of `x` points `d` apart (0 stays 0).
fn dilate(x: i64, d: i64) -> i64 {
    if x == 0 {
        0
    } else {
        (x - 1) * d + 1
    }
}

/// A general convolution; SAME padding is computed on the dilated input
/// and kernel sizes, as the macro computed it.
#[allow(clippy::too_many_arguments)]
pub fn conv<'a>(
    b: &XlaBuilder,
    lhs: XlaOp,
    rhs: XlaOp,
    window_strides: &[i64],
    padding: impl Into<ConvPadding<'a>>,
    lhs_dilation: &[i64],
    rhs_dilation: &[i64],
    dims: &ConvDimensionNumbers,
    feature_group_count: i64,
    batch_group_count: i64,
) -> Result<XlaOp> {
    let padding = match padding.into() {
        ConvPadding::Pairs(pairs) => pairs.to_vec(),
        ConvPadding::Kind(kind) => {
            let (input, kernel) = (b.get_shape(lhs)?, b.get_shape(rhs)?);
            let dilation = |list: &[i64], i: usize| list.get(i).copied().unwrap_or(1);
            let size = |shape: &Shape, d: i64| shape.as_array().map_or(0, |a| a.dims()[d as usize]);
            let base: Vec<i64> = (0..dims.input_spatial.len())
                .map(|i| {
                    dilate(
                        size(&input, dims.input_spatial[i]),
                        dilation(lhs_dilation, i),
                    )
                })
                .collect();
            let window: Vec<i64> = (0..dims.kernel_spatial.len())
                .map(|i| {
                    dilate(
                        size(&kernel, dims.kernel_spatial[i]),
                        dilation(rhs_dilation, i),
                    )
                })
                .collect();
            make_padding(&base, &window, window_strides, kind)
        }
    };
    let config = ConvConfig {
        lhs_dilation: lhs_dilation.to_vec(),
        rhs_dilation: rhs_dilation.to_vec(),
        feature_group_count,
        batch_group_count,
        ..ConvConfig::new(window_strides, &padding)
    };
    b.conv_general_dilated(lhs, rhs, &config, dims)
}

/// Checks that `root`'s array leaves, in order, have the declared sizes
/// (`(sizes, type as written)`): the macro checks sizes symbolically,
/// and a few rules only hold for some sizes (a `valid` window larger than
/// its input has no positions where the declared `N - 2` is negative).
pub fn check_result(
    b: &XlaBuilder,
    root: XlaOp,
    declared: &[(&[i64], &str)],
) -> std::result::Result<(), DslError> {
    let shape = b.get_shape(root)?;
    let leaves = shape.array_leaves();
    for (i, ((want, text), got)) in declared.iter().zip(leaves).enumerate() {
        let got = got.dims();
        if *want != got {
            let which = if declared.len() == 1 {
                "the result".to_string()
            } else {
                format!("result {i}")
            };
            return Err(DslError::Sizes(format!(
                "{which} has dimensions {got:?}, but its declared type {text} is {want:?} for these sizes"
            )));
        }
    }
    Ok(())
}

/// The `n` elements of a tuple result.
pub fn untuple(value: Literal, n: usize) -> std::result::Result<Vec<Literal>, DslError> {
    let shape = value.shape().clone();
    match value.into_tuple_elements() {
        Some(elements) if elements.len() == n => Ok(elements),
        _ => Err(DslError::Backend(
            format!(
                "expected a result tuple of {n} elements, got {}",
                shape.without_layouts()
            )
            .into(),
        )),
    }
}
