//! The other element types: f16 and bf16 summed in f32, integers that
//! wrap, complex numbers, and the worked examples of `docs/semantics.md`.

use super::*;

/// A tiled dot of small integers: every sum is exact in f32, so the 16-bit
/// result must equal the exact sum rounded once.
fn check_half<H: DotElement>(from: impl Fn(f32) -> H + Copy, to: impl Fn(H) -> f32) {
    for engine in bf16_engines() {
        for [batch, m, n, k] in [
            [1, 7, 9, 5],
            [2, 13, 17, 40],
            [1, 1, 30, 8],
            [1, 30, 1, 8],
            [1, 3, 3, 0],
        ] {
            let mut rng = Rng(7);
            let mut ints = |len| {
                (0..len)
                    .map(|_| (rng.next() * 8.0).round())
                    .collect::<Vec<f64>>()
            };
            let (av, bv) = (ints(batch * m * k), ints(batch * k * n));
            let conv = |x: f64| from(x as f32);
            let a = store(&av, Form::ColMajor, [batch, m, k], conv);
            let b = store(&bv, Form::RowMajor, [batch, k, n], conv);
            let mut c = store(&vec![0.0; batch * m * n], Form::Padded, [batch, m, n], conv);
            engine
                .gemm(
                    StridedMatrix::new(Operand::Lhs, &a.buffer, a.layout).unwrap(),
                    StridedMatrix::new(Operand::Rhs, &b.buffer, b.layout).unwrap(),
                    StridedMatrixMut::new(&mut c.buffer, c.layout).unwrap(),
                    None,
                )
                .unwrap();
            let (expected, _) = reference(&av, &bv, [batch, m, n, k]);
            for bi in 0..batch {
                for i in 0..m {
                    for j in 0..n {
                        let want = to(from(expected[(bi * m + i) * n + j] as f32));
                        assert_eq!(
                            to(c.buffer[c.layout.offset(bi, i, j)]),
                            want,
                            "({bi},{i},{j})"
                        );
                    }
                }
            }
        }
    }
}

#[test]
fn f16_and_bf16_accumulate_in_f32() {
    check_half(f16::from_f32, f16::to_f32);
    check_half(bf16::from_f32, bf16::to_f32);
}

#[test]
fn bf16_rounds_once_at_the_end() {
    // `docs/semantics.md`, *Accumulation in dot and convolution*: [1, 2⁻⁹ ×8] · nine ones is 1 +
    // 8·2⁻⁹ = 1.015625; adding in bf16 would round every partial sum back to 1.
    let tiny = bf16::from_f32(2f32.powi(-9));
    let mut a = [tiny; 9];
    a[0] = bf16::ONE;
    for (m, n) in [(1, 1), (1, 3), (3, 1), (2, 2)] {
        let a_rows: Vec<bf16> = (0..m).flat_map(|_| a.iter().copied()).collect();
        let b_cols: Vec<bf16> = (0..9)
            .flat_map(|_| std::iter::repeat_n(bf16::ONE, n))
            .collect();
        let mut c = vec![bf16::ZERO; m * n];
        default_engine()
            .gemm(
                StridedMatrix::new(Operand::Lhs, &a_rows, MatrixLayout::row_major(m, 9)).unwrap(),
                StridedMatrix::new(Operand::Rhs, &b_cols, MatrixLayout::row_major(9, n)).unwrap(),
                StridedMatrixMut::new(&mut c, MatrixLayout::row_major(m, n)).unwrap(),
                None,
            )
            .unwrap();
        assert!(c.iter().all(|&x| x.to_f32() == 1.015625), "{m}x{n}: {c:?}");
    }
}

/// Runs a dot of element type `T` on row-major data.
fn dot<T: DotElement>(a: &[T], b: &[T], dims: [usize; 4]) -> Vec<T> {
    let [batch, m, n, k] = dims;
    let mut c = vec![T::default(); batch * m * n];
    default_engine()
        .gemm(
            StridedMatrix::new(
                Operand::Lhs,
                a,
                MatrixLayout::row_major(m, k).batched(batch, m * k),
            )
            .unwrap(),
            StridedMatrix::new(
                Operand::Rhs,
                b,
                MatrixLayout::row_major(k, n).batched(batch, k * n),
            )
            .unwrap(),
            StridedMatrixMut::new(&mut c, MatrixLayout::row_major(m, n).batched(batch, m * n))
                .unwrap(),
            None,
        )
        .unwrap();
    c
}

#[test]
fn integers_wrap_in_their_own_type() {
    assert_eq!(dot(&[100i8, 100], &[2, 2], [1, 1, 1, 2]), [-112]); // 400 - 256
    assert_eq!(dot(&[200u8, 100], &[2, 1], [1, 1, 1, 2]), [244]); // 500 - 256
    assert_eq!(dot(&[i32::MAX, 1], &[1, 1], [1, 1, 1, 2]), [i32::MIN]);
    assert_eq!(dot(&[u64::MAX, 3], &[2, 1], [1, 1, 1, 2]), [1]); // 2·(2⁶⁴−1) + 3
    assert_eq!(
        dot(&[-3i16, 7, 2, 5], &[4, -1, 6, 2], [1, 2, 2, 2]),
        [30, 17, 38, 8]
    );
    assert_eq!(dot(&[1u32, 2, 3], &[4, 5, 6], [1, 1, 1, 3]), [32]);
    assert_eq!(dot(&[-1i64, 2], &[3, 4], [1, 2, 2, 1]), [-3, -4, 6, 8]);
    assert_eq!(dot(&[1u16, 2], &[3, 4], [1, 1, 1, 2]), [11]);
    assert_eq!(dot::<i8>(&[], &[], [1, 2, 2, 0]), [0, 0, 0, 0]);
}

#[test]
fn complex_products() {
    let a = [C64::new(1.0, 2.0), C64::new(0.0, 1.0)];
    let b = [C64::new(3.0, -1.0), C64::new(2.0, 0.0)];
    // (1+2i)(3−i) + i·2 = 5 + 5i + 2i.
    assert_eq!(dot(&a, &b, [1, 1, 1, 2]), [C64::new(5.0, 7.0)]);
    let a = [C128::new(0.0, 1.0); 4];
    assert_eq!(dot(&a, &a, [1, 2, 2, 2]), [C128::new(-2.0, 0.0); 4]);
}

#[test]
fn ops_worked_examples() {
    // `docs/semantics.md`, *Dot*.
    assert_eq!(dot(&[1f32, 2., 3.], &[4., 5., 6.], [1, 1, 1, 3]), [32.0]);
    assert_eq!(
        dot(&[1f32, 2., 3., 4., 5., 6.], &[1., 0., -1.], [1, 2, 1, 3]),
        [-2.0, -2.0]
    );
    assert_eq!(
        dot(&[1f32, 2., 3., 4.], &[5., 6., 7., 8.], [1, 2, 2, 2]),
        [19.0, 22.0, 43.0, 50.0]
    );
    // `docs/semantics.md`, *Dot* example 1: lc = {1}, rc = {1}, i.e. lhs · rhsᵀ; rhs [2,3] read
    // as its transpose [3,2] with no copy.
    let (lhs, rhs) = ([1i32, 2, 3, 4, 5, 6], [1i32, 1, 1, 2, 2, 2]);
    for_int_and_float(&lhs, &rhs, |engine_dot| {
        let out = engine_dot(
            MatrixLayout::row_major(2, 3),
            MatrixLayout::row_major(2, 3).transposed(),
            [1, 2, 2],
        );
        assert_eq!(out, [6.0, 12.0, 15.0, 30.0]);
    });
    // Example 2: batch matmul with identities.
    let lhs = [1f32, 2., 3., 4., 5., 6., 7., 8.];
    let identities = [1f32, 0., 0., 1., 1., 0., 0., 1.];
    assert_eq!(dot(&lhs, &identities, [2, 2, 2, 2]), lhs);
    // Example 3: lhs s32[2,3,4], rhs s32[4,2,5], lb = {0}, rb = {1},
    // lc = {2}, rc = {0}. The rhs batch dimension is its dimension 1, so the
    // rhs view is [batch 2, k 4, n 5] with strides [5, 10, 1].
    let lhs: Vec<i32> = (0..24).collect(); // 12i + 4j + k
    let rhs: Vec<i32> = (0..40).collect(); // 10i + 5j + k
    let mut out = vec![0i32; 30];
    default_engine()
        .gemm(
            StridedMatrix::new(
                Operand::Lhs,
                &lhs,
                MatrixLayout::row_major(3, 4).batched(2, 12),
            )
            .unwrap(),
            StridedMatrix::new(
                Operand::Rhs,
                &rhs,
                MatrixLayout::new(4, 5, 10, 1).batched(2, 5),
            )
            .unwrap(),
            StridedMatrixMut::new(&mut out, MatrixLayout::row_major(3, 5).batched(2, 15)).unwrap(),
            None,
        )
        .unwrap();
    assert_eq!(out[15 + 2 * 5 + 3], 2028);
}

/// Runs `check` with a dot function for s32 and for f32 copies of the data.
fn for_int_and_float(
    lhs: &[i32],
    rhs: &[i32],
    check: impl Fn(&dyn Fn(MatrixLayout, MatrixLayout, [usize; 3]) -> Vec<f64>),
) {
    fn run<T: DotElement + Into<f64>>(
        a: &[T],
        b: &[T],
        la: MatrixLayout,
        lb: MatrixLayout,
        [batch, m, n]: [usize; 3],
    ) -> Vec<f64> {
        let mut c = vec![T::default(); batch * m * n];
        default_engine()
            .gemm(
                StridedMatrix::new(Operand::Lhs, a, la).unwrap(),
                StridedMatrix::new(Operand::Rhs, b, lb).unwrap(),
                StridedMatrixMut::new(&mut c, MatrixLayout::row_major(m, n).batched(batch, m * n))
                    .unwrap(),
                None,
            )
            .unwrap();
        c.into_iter().map(Into::into).collect()
    }
    check(&|la, lb, dims| run(lhs, rhs, la, lb, dims));
    let (fl, fr): (Vec<f32>, Vec<f32>) = (
        lhs.iter().map(|&x| x as f32).collect(),
        rhs.iter().map(|&x| x as f32).collect(),
    );
    check(&|la, lb, dims| run(&fl, &fr, la, lb, dims));
}
