//! Windows (convolution, reduce-window, select-and-scatter): validation, the
//! number of window positions, and SAME/VALID padding (`docs/semantics.md`,
//! *Windows*, *Reduce-window*).

use super::error::InferError;
use super::parts::DimList;
use crate::hlo::Window;
use crate::Dim;

/// How `Conv`, `ReduceWindow` and `SelectAndScatter` pad when no explicit
/// padding is given (XLA's `Padding::kValid` / `kSame`).
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum PaddingKind {
    /// No padding: windows stop when they no longer fit.
    Valid,
    /// Zero padding chosen so the output size is `⌈input / stride⌉`.
    Same,
}

/// Low and high padding per dimension for `kind` (`docs/semantics.md`, *Windows*).
/// For SAME: `out = ⌈in / s⌉`, `total = max((out − 1)·s + w − in, 0)`,
/// `low = total / 2`, `high = total − low` (the odd element goes high).
///
/// | input | window | stride | SAME padding |
/// |-------|--------|--------|--------------|
/// | 5     | 3      | 2      | `(1, 1)`     |
/// | 3     | 2      | 1      | `(0, 1)`     |
/// | 4     | 1      | 2      | `(0, 0)`     |
pub fn make_padding(
    input: &[i64],
    window: &[i64],
    strides: &[i64],
    kind: PaddingKind,
) -> Vec<(i64, i64)> {
    match kind {
        PaddingKind::Valid => vec![(0, 0); input.len()],
        PaddingKind::Same => input
            .iter()
            .zip(window)
            .zip(strides)
            .map(|((&n, &w), &s)| {
                let s = s.max(1);
                let out = (n + s - 1) / s;
                let total = ((out - 1) * s + w - n).max(0);
                (total / 2, total - total / 2)
            })
            .collect(),
    }
}

/// Checks a window's fields: sizes, strides and both dilations ≥ 1.
pub(crate) fn check_window<D: Dim>(op: &'static str, window: &Window) -> Result<(), InferError<D>> {
    let sizes = window.dims.iter().map(|w| w.size).collect();
    let strides = window.dims.iter().map(|w| w.stride).collect();
    let lhs = window.dims.iter().map(|w| w.base_dilation).collect();
    let rhs = window.dims.iter().map(|w| w.window_dilation).collect();
    let fields: [(&'static str, Vec<i64>, &'static str); 4] = [
        ("window size", sizes, "window sizes must be at least 1"),
        (
            "window stride",
            strides,
            "window strides must be at least 1",
        ),
        ("window lhs_dilate", lhs, "dilations must be at least 1"),
        ("window rhs_dilate", rhs, "dilations must be at least 1"),
    ];
    for (attribute, values, requirement) in fields {
        if values.iter().any(|&v| v < 1) {
            return Err(InferError::InvalidAttribute {
                op,
                attribute,
                value: DimList(values).to_string(),
                requirement,
            });
        }
    }
    Ok(())
}

/// `(x − 1)·d + 1` for `x > 0`, `0` for `x = 0`: the extent of `x` points
/// with `d − 1` holes between neighbours. A symbolic `x` is taken to be ≥ 1.
fn dilate<D: Dim>(x: &D, d: i64) -> D {
    if d == 1 || x.is(0) {
        x.clone()
    } else {
        x.sub(&D::constant(1))
            .mul(&D::constant(d))
            .add(&D::constant(1))
    }
}

/// The number of window positions per dimension (`docs/semantics.md`, *Windows*):
/// with `P = low + dilate(base, lhs_dilate) + high` and `W = dilate(size,
/// rhs_dilate)`, `0` if `W > P`, else `⌊(P − W) / stride⌋ + 1`. `sizes` are
/// the window sizes (a convolution's kernel sizes, which may be symbolic);
/// the window supplies strides, padding and dilations.
///
/// | base | size | stride | pad      | dilations | positions |
/// |------|------|--------|----------|-----------|-----------|
/// | 6    | 3    | 3      | `(0, 0)` | 1, 1      | 2         |
/// | 5    | 3    | 2      | `(1, 1)` | 1, 1      | 3         |
/// | 5    | 2    | 1      | `(0, 0)` | 2, 1      | 8         |
/// | 5    | 2    | 1      | `(0, 0)` | 1, 2      | 3         |
/// | 2    | 3    | 1      | `(0, 0)` | 1, 1      | 0         |
pub(crate) fn window_output<D: Dim>(
    op: &'static str,
    base: &[D],
    sizes: &[D],
    window: &Window,
) -> Result<Vec<D>, InferError<D>> {
    let mut out = Vec::with_capacity(base.len());
    for (dim, ((b, size), w)) in base.iter().zip(sizes).zip(&window.dims).enumerate() {
        let padded = dilate(b, w.base_dilation)
            .add(&D::constant(w.padding_low))
            .add(&D::constant(w.padding_high));
        let extent = dilate(size, w.window_dilation);
        if extent.known_gt(&padded) {
            out.push(D::constant(0));
            continue;
        }
        let room = padded.sub(&extent);
        let positions = room
            .floor_div(w.stride)
            .ok_or_else(|| InferError::NotExpressible {
                op,
                dim,
                formula: format!("⌊({room}) / {}⌋ + 1", w.stride),
            })?;
        out.push(positions.add(&D::constant(1)));
    }
    Ok(out)
}
