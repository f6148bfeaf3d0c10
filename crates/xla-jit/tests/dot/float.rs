//! f32 and f64 products: every shape, transposed and strided operands,
//! tiny cache blocks, batches and matrix-vector products.

use super::*;

const SIZES: [usize; 10] = [0, 1, 2, 3, 5, 7, 13, 64, 100, 257];

#[test]
fn f32_every_shape() {
    let forms = [Form::RowMajor; 3];
    for m in SIZES {
        for n in SIZES {
            for k in SIZES {
                check_float(
                    default_engine(),
                    [1, m, n, k],
                    forms,
                    |x| x as f32,
                    f32::EPSILON as f64,
                );
            }
        }
    }
}

#[test]
fn f32_transposed_and_strided_operands() {
    use Form::*;
    let sizes = [1, 3, 7, 13, 29];
    for engine in engines() {
        for forms in [
            [ColMajor, RowMajor, RowMajor],
            [RowMajor, ColMajor, RowMajor],
            [ColMajor, ColMajor, RowMajor],
            [RowMajor, RowMajor, ColMajor],
            [ColMajor, ColMajor, ColMajor],
            [Padded, Padded, Padded],
            [Padded, ColMajor, ColMajor],
        ] {
            for m in sizes {
                for n in sizes {
                    for k in [0, 1, 17, 40] {
                        check_float(
                            engine,
                            [1, m, n, k],
                            forms,
                            |x| x as f32,
                            f32::EPSILON as f64,
                        );
                    }
                }
            }
        }
    }
}

#[test]
fn f32_stress_blocking() {
    // kc = 16, mc = 12, nc = 16 on 3 threads: many blocks, edges, splits.
    use Form::*;
    for m in [1, 2, 5, 13, 37] {
        for n in [1, 3, 8, 17, 50] {
            for k in [0, 1, 15, 16, 17, 33] {
                for forms in [[RowMajor; 3], [ColMajor, ColMajor, Padded]] {
                    check_float(
                        stress_engine(),
                        [1, m, n, k],
                        forms,
                        |x| x as f32,
                        f32::EPSILON as f64,
                    );
                }
            }
        }
    }
}

#[test]
fn f32_batches() {
    use Form::*;
    for engine in engines() {
        for [batch, m, n, k] in [
            [2, 3, 5, 7],
            [5, 13, 1, 9],
            [4, 1, 20, 3],
            [3, 40, 33, 20],
            [64, 8, 8, 4],
        ] {
            for forms in [[RowMajor; 3], [ColMajor, Padded, ColMajor]] {
                check_float(
                    engine,
                    [batch, m, n, k],
                    forms,
                    |x| x as f32,
                    f32::EPSILON as f64,
                );
            }
        }
    }
}

#[test]
fn a_zero_batch_stride_reuses_one_matrix() {
    let a = [1.0f32, 2.0, 3.0, 4.0]; // one [2,2] for both batches
    let b = [1.0f32, 0.0, 0.0, 1.0, 2.0, 0.0, 0.0, 2.0]; // I, 2I
    let mut c = [0f32; 8];
    default_engine()
        .gemm(
            StridedMatrix::new(
                Operand::Lhs,
                &a,
                MatrixLayout::row_major(2, 2).batched(2, 0),
            )
            .unwrap(),
            StridedMatrix::new(
                Operand::Rhs,
                &b,
                MatrixLayout::row_major(2, 2).batched(2, 4),
            )
            .unwrap(),
            StridedMatrixMut::new(&mut c, MatrixLayout::row_major(2, 2).batched(2, 4)).unwrap(),
            None,
        )
        .unwrap();
    assert_eq!(c, [1.0, 2.0, 3.0, 4.0, 2.0, 4.0, 6.0, 8.0]);
}

#[test]
fn f64_shapes_and_layouts() {
    use Form::*;
    for engine in engines() {
        for m in [0, 1, 5, 13, 64] {
            for n in [1, 3, 4, 9, 100] {
                for k in [0, 1, 7, 257] {
                    for forms in [
                        [RowMajor; 3],
                        [ColMajor, ColMajor, ColMajor],
                        [Padded, RowMajor, Padded],
                    ] {
                        check_float(engine, [2, m, n, k], forms, |x| x, f64::EPSILON);
                    }
                }
            }
        }
    }
}

#[test]
fn matrix_vector_products() {
    // n = 1 (matrix · vector) and m = 1 (vector · matrix): the GEMV path
    // for unit-stride matrices in either orientation, GEMM otherwise.
    use Form::*;
    for engine in engines() {
        for len in [1, 2, 3, 4, 5, 8, 9, 31, 100, 4100] {
            for k in [0, 1, 3, 8, 13, 64] {
                for forms in [
                    [RowMajor; 3],
                    [ColMajor; 3],
                    [Padded; 3],
                    [ColMajor, Padded, RowMajor],
                ] {
                    check_float(
                        engine,
                        [1, len, 1, k],
                        forms,
                        |x| x as f32,
                        f32::EPSILON as f64,
                    );
                    check_float(
                        engine,
                        [1, 1, len, k],
                        forms,
                        |x| x as f32,
                        f32::EPSILON as f64,
                    );
                }
                check_float(
                    engine,
                    [3, len, 1, k],
                    [Padded, ColMajor, RowMajor],
                    |x| x,
                    f64::EPSILON,
                );
                check_float(engine, [2, 1, len, k], [RowMajor; 3], |x| x, f64::EPSILON);
            }
        }
    }
}
