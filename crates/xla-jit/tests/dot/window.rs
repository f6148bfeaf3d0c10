//! Window views: a convolution's patches read in place.

use super::*;

/// The patches of a stride-2, dilation-2 convolution over a padded
/// `[2, 11, 13, 5]` NHWC image with a 3×2 kernel, as a window view, and the
/// same patches copied out: the engine gives the same products (up to the
/// summation order), for f32 and f64 on every engine (packing straight
/// from the window, with tails of every tile) and for the other element
/// types (through a dense copy).
#[test]
fn window_views_read_patches_in_place() {
    let (batch, height, width, channels) = (2usize, 11usize, 13usize, 5usize);
    let (kh, kw, stride, dilation) = (3usize, 2usize, 2usize, 2usize);
    let (oh, ow) = (
        (height - dilation * (kh - 1) - 1) / stride + 1,
        (width - dilation * (kw - 1) - 1) / stride + 1,
    );
    let (sb, sh, sw) = (height * width * channels, width * channels, channels);
    let offset = 3;
    let layout = WindowLayout {
        rows: WindowDims::new(&[(batch, sb), (oh, stride * sh), (ow, stride * sw)]).unwrap(),
        cols: WindowDims::new(&[(kh, dilation * sh), (kw, dilation * sw), (channels, 1)]).unwrap(),
        offset,
    };
    let (m, k, n) = (batch * oh * ow, kh * kw * channels, 7);
    let mut rng = Rng(17);
    let image = rng.vec(offset + batch * sb);
    let weights = rng.vec(k * n);
    // The patches, copied out by index arithmetic.
    let mut patches = Vec::with_capacity(m * k);
    for b in 0..batch {
        for y in 0..oh {
            for x in 0..ow {
                for i in 0..kh {
                    for j in 0..kw {
                        for c in 0..channels {
                            patches.push(
                                image[offset
                                    + b * sb
                                    + (y * stride + i * dilation) * sh
                                    + (x * stride + j * dilation) * sw
                                    + c],
                            );
                        }
                    }
                }
            }
        }
    }
    fn run<T: DotElement + Copy + Default>(
        engine: &DotEngine,
        image: &[T],
        patches: &[T],
        weights: &[T],
        layout: WindowLayout,
        [m, n, k]: [usize; 3],
    ) -> (Vec<T>, Vec<T>) {
        let b =
            || StridedMatrix::new(Operand::Rhs, weights, MatrixLayout::row_major(k, n)).unwrap();
        let (mut windowed, mut dense) = (vec![T::default(); m * n], vec![T::default(); m * n]);
        engine
            .gemm_window(
                WindowMatrix::new(image, layout).unwrap(),
                b(),
                StridedMatrixMut::new(&mut windowed, MatrixLayout::row_major(m, n)).unwrap(),
                None,
            )
            .unwrap();
        engine
            .gemm(
                StridedMatrix::new(Operand::Lhs, patches, MatrixLayout::row_major(m, k)).unwrap(),
                b(),
                StridedMatrixMut::new(&mut dense, MatrixLayout::row_major(m, n)).unwrap(),
                None,
            )
            .unwrap();
        (windowed, dense)
    }
    let dims = [m, n, k];
    let as_f32 = |v: &[f64]| v.iter().map(|&x| x as f32).collect::<Vec<_>>();
    for engine in engines() {
        let (w, d) = run(
            engine,
            &as_f32(&image),
            &as_f32(&patches),
            &as_f32(&weights),
            layout,
            dims,
        );
        // The window is packed by the engine; the copy may go to the gemm
        // crate (a narrow n), which sums in another order.
        let close = |w: f64, d: f64, eps: f64| (w - d).abs() <= eps * k as f64;
        assert!(w
            .iter()
            .zip(&d)
            .all(|(&w, &d)| close(w.into(), d.into(), 1e-6)));
        let (w, d) = run(engine, &image, &patches, &weights, layout, dims);
        assert!(w.iter().zip(&d).all(|(&w, &d)| close(w, d, 1e-14)));
    }
    let as_i32 = |v: &[f64]| v.iter().map(|&x| (x * 100.0) as i32).collect::<Vec<_>>();
    let (w, d) = run(
        default_engine(),
        &as_i32(&image),
        &as_i32(&patches),
        &as_i32(&weights),
        layout,
        dims,
    );
    assert_eq!(w, d);
    let as_bf16 = |v: &[f64]| v.iter().map(|&x| bf16::from_f64(x)).collect::<Vec<_>>();
    let (w, d) = run(
        default_engine(),
        &as_bf16(&image),
        &as_bf16(&patches),
        &as_bf16(&weights),
        layout,
        dims,
    );
    assert_eq!(w, d);
    // A window reaching past its buffer is refused.
    let short = as_f32(&image[..image.len() - 1]);
    assert!(matches!(
        WindowMatrix::new(&short, layout),
        Err(JitError::DotOutOfBounds { .. })
    ));
}
