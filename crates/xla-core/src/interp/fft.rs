//! Fourier transforms (`docs/semantics.md`, *FFT*): FFT, IFFT (scaled by 1/N),
//! RFFT and IRFFT over the 1 to 3 innermost dimensions.
//!
//! Every type computes in `c128` and rounds once at the end. A 1-D
//! transform of length `n` uses radix-2 for powers of two, the direct sum
//! for `n ≤ 64`, and Bluestein's chirp-z algorithm (a power-of-two
//! convolution) otherwise, so any length — primes, 1 and 0 included — costs
//! `O(n log n)` and stays accurate to a few ulps of `c128`.

use std::f64::consts::PI;

use super::eval::invalid;
use super::linalg::{literal, values};
use super::InterpError;
use crate::hlo::{FftType, HloInstruction};
use crate::{Literal, C128};

/// `fft(operand), fft_type=…, fft_length={…}`.
pub(super) fn fft(instr: &HloInstruction, operands: &[&Literal]) -> Result<Literal, InterpError> {
    let kind = instr
        .attrs
        .fft_type
        .ok_or_else(|| invalid(instr, "needs fft_type"))?;
    let lengths = instr
        .attrs
        .fft_length
        .as_deref()
        .ok_or_else(|| invalid(instr, "needs fft_length"))?;
    let operand = operands[0];
    let shape = operand.array_shape()?;
    let ty = shape.element_type();
    let mut dims = shape.dims().to_vec();
    let rank = dims.len();
    let l = lengths.len();
    if !(1..=3).contains(&l) || rank < l {
        return Err(invalid(
            instr,
            format!(
                "fft_length {lengths:?} does not fit operand 0 {}",
                operand.shape()
            ),
        ));
    }
    let mut data = values::<C128>(operand)?;
    let inner = *lengths.last().expect("1 to 3 lengths") as usize;
    let axes = rank - l..rank;
    match kind {
        FftType::Fft | FftType::Ifft => {
            for axis in axes {
                transform_axis(&mut data, &dims, axis, kind == FftType::Ifft);
            }
            literal(&dims, data, ty)
        }
        FftType::Rfft => {
            let out_type = ty
                .complex_type()
                .ok_or_else(|| invalid(instr, format!("RFFT of {ty}")))?;
            transform_axis(&mut data, &dims, rank - 1, false);
            let kept = if inner == 0 { 0 } else { inner / 2 + 1 };
            data = resize_rows(&data, dims[rank - 1] as usize, kept, |row, out| {
                out.copy_from_slice(&row[..out.len()]);
            });
            dims[rank - 1] = kept as i64;
            for axis in rank - l..rank - 1 {
                transform_axis(&mut data, &dims, axis, false);
            }
            literal(&dims, data, out_type)
        }
        FftType::Irfft => {
            for axis in rank - l..rank - 1 {
                transform_axis(&mut data, &dims, axis, true);
            }
            let given = dims[rank - 1] as usize;
            data = resize_rows(&data, given, inner, |row, out| {
                // H[k] = X[k] for k ≤ n/2, conj(X[n − k]) above.
                let n = out.len();
                for (k, h) in out.iter_mut().enumerate() {
                    let (source, conjugate) = if k <= n / 2 {
                        (k, false)
                    } else {
                        (n - k, true)
                    };
                    let x = row.get(source).copied().unwrap_or_default();
                    *h = if conjugate { x.conj() } else { x };
                }
                dft(out, true);
                for h in out.iter_mut() {
                    h.im = 0.0;
                }
            });
            dims[rank - 1] = inner as i64;
            literal(&dims, data, ty.component_type())
        }
    }
}

/// Rebuilds a row-major array whose rows (innermost dimension) have `from`
/// elements into rows of `to` elements, `fill` writing each new row.
fn resize_rows(
    data: &[C128],
    from: usize,
    to: usize,
    mut fill: impl FnMut(&[C128], &mut [C128]),
) -> Vec<C128> {
    let rows = data.len().checked_div(from).unwrap_or(0);
    let mut out = vec![C128::default(); rows * to];
    if to > 0 {
        for (row, new) in data.chunks_exact(from.max(1)).zip(out.chunks_exact_mut(to)) {
            fill(row, new);
        }
    }
    out
}

/// Transforms every 1-D line of a row-major array along `axis`.
fn transform_axis(data: &mut [C128], dims: &[i64], axis: usize, inverse: bool) {
    let n = dims[axis] as usize;
    let stride: usize = dims[axis + 1..].iter().product::<i64>() as usize;
    if n <= 1 || data.is_empty() {
        return;
    }
    let mut line = vec![C128::default(); n];
    for block in data.chunks_exact_mut(n * stride) {
        for offset in 0..stride {
            for (k, v) in line.iter_mut().enumerate() {
                *v = block[k * stride + offset];
            }
            dft(&mut line, inverse);
            for (k, v) in line.iter().enumerate() {
                block[k * stride + offset] = *v;
            }
        }
    }
}

/// The discrete Fourier transform of `x` in place:
/// `X[k] = Σₙ x[n]·exp(∓2πi·k·n/N)`, divided by `N` when `inverse`.
fn dft(x: &mut [C128], inverse: bool) {
    let n = x.len();
    if n <= 1 {
        return;
    }
    if n.is_power_of_two() {
        radix2(x, inverse);
    } else if n <= 64 {
        direct(x, inverse);
    } else {
        bluestein(x, inverse);
    }
    if inverse {
        let scale = 1.0 / n as f64;
        for v in x.iter_mut() {
            *v *= scale;
        }
    }
}

/// `exp(sign·2πi·m/n)` for `m` in `[0, n)`, each from its own exact angle.
fn twiddles(n: usize, inverse: bool) -> Vec<C128> {
    let sign = if inverse { 1.0 } else { -1.0 };
    (0..n)
        .map(|m| {
            let (s, c) = (2.0 * PI * m as f64 / n as f64).sin_cos();
            C128::new(c, sign * s)
        })
        .collect()
}

/// The unscaled DFT by its definition, `O(n²)`.
fn direct(x: &mut [C128], inverse: bool) {
    let n = x.len();
    let w = twiddles(n, inverse);
    let out: Vec<C128> = (0..n)
        .map(|k| {
            x.iter()
                .enumerate()
                .fold(C128::default(), |acc, (j, &v)| acc + v * w[k * j % n])
        })
        .collect();
    x.copy_from_slice(&out);
}

/// The unscaled DFT of a power-of-two length: iterative Cooley–Tukey.
fn radix2(x: &mut [C128], inverse: bool) {
    let n = x.len();
    let bits = n.trailing_zeros();
    for i in 0..n {
        let j = i.reverse_bits() >> (usize::BITS - bits);
        if i < j {
            x.swap(i, j);
        }
    }
    let w = twiddles(n, inverse);
    let mut size = 2;
    while size <= n {
        let step = n / size;
        for start in (0..n).step_by(size) {
            for k in 0..size / 2 {
                let t = w[k * step] * x[start + k + size / 2];
                let u = x[start + k];
                x[start + k] = u + t;
                x[start + k + size / 2] = u - t;
            }
        }
        size *= 2;
    }
}

/// The unscaled DFT of any length as a convolution with a chirp:
/// `X[k] = conj(c[k])·Σₙ (x[n]·conj(c[n]))·c[k − n]`, `c[m] = exp(±πi·m²/n)`.
fn bluestein(x: &mut [C128], inverse: bool) {
    let n = x.len();
    let sign = if inverse { 1.0 } else { -1.0 };
    // m² mod 2n keeps the angle small and exact.
    let chirp: Vec<C128> = (0..n)
        .map(|m| {
            let q = (m as u128 * m as u128 % (2 * n as u128)) as f64;
            let (s, c) = (PI * q / n as f64).sin_cos();
            C128::new(c, -sign * s)
        })
        .collect();
    let size = (2 * n - 1).next_power_of_two();
    let mut a = vec![C128::default(); size];
    for m in 0..n {
        a[m] = x[m] * chirp[m].conj();
    }
    let mut b = vec![C128::default(); size];
    b[0] = chirp[0];
    for m in 1..n {
        b[m] = chirp[m];
        b[size - m] = chirp[m];
    }
    radix2(&mut a, false);
    radix2(&mut b, false);
    for (a, b) in a.iter_mut().zip(&b) {
        *a *= b;
    }
    radix2(&mut a, true);
    let scale = 1.0 / size as f64;
    for k in 0..n {
        x[k] = a[k] * scale * chirp[k].conj();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn naive(x: &[C128], inverse: bool) -> Vec<C128> {
        let n = x.len();
        let sign = if inverse { 1.0 } else { -1.0 };
        (0..n)
            .map(|k| {
                x.iter().enumerate().fold(C128::default(), |acc, (j, &v)| {
                    let angle = sign * 2.0 * PI * ((k * j) % n) as f64 / n as f64;
                    acc + v * C128::new(angle.cos(), angle.sin())
                })
            })
            .collect()
    }

    /// Every algorithm (radix-2, direct, Bluestein) agrees with the
    /// definition to within a few ulps of the input's size.
    #[test]
    fn algorithms_agree_with_the_definition() {
        for n in [2usize, 3, 5, 8, 13, 64, 65, 97, 128, 200] {
            let x: Vec<C128> = (0..n)
                .map(|i| C128::new((i as f64 * 0.37).sin(), (i as f64 * 1.3).cos()))
                .collect();
            for inverse in [false, true] {
                let mut y = x.clone();
                match n {
                    _ if n.is_power_of_two() => radix2(&mut y, inverse),
                    _ if n <= 64 => direct(&mut y, inverse),
                    _ => bluestein(&mut y, inverse),
                }
                let want = naive(&x, inverse);
                for (got, want) in y.iter().zip(&want) {
                    assert!(
                        (got - want).norm() < 1e-12 * n as f64,
                        "n={n}: {got} vs {want}"
                    );
                }
            }
        }
    }
}
