//! 16-bit operands into f32 results, and bf16 dots on AMX tiles.

use super::*;

/// Only 16-bit floats widen into an f32 result.
#[test]
fn only_half_operands_widen() {
    let (a, b) = ([1.0f32; 4], [1.0f32; 4]);
    let mut c = [0.0f32; 4];
    let layout = MatrixLayout::row_major(2, 2);
    let result = default_engine().gemm_to_f32(
        StridedMatrix::new(Operand::Lhs, &a, layout).unwrap(),
        StridedMatrix::new(Operand::Rhs, &b, layout).unwrap(),
        StridedMatrixMut::new(&mut c, layout).unwrap(),
        None,
    );
    let error = result.unwrap_err().to_string();
    assert!(
        error.contains("only f16 and bf16 operands widen"),
        "{error}"
    );
}

/// Rounding to a 16-bit float and widening back.
type Conversions<H> = (fn(f64) -> H, fn(H) -> f64);

/// `gemm_to_f32` of 16-bit operands (`from` rounds to them, `to` widens
/// back) stored in `forms` (A, B, C), against the f64 reference on the
/// widened values, within f32 summation error; `epilogue` sees the blocks.
fn check_widening<H: DotElement>(
    engine: &DotEngine,
    [batch, m, n, k]: [usize; 4],
    [a_form, b_form, c_form]: [Form; 3],
    (from, to): Conversions<H>,
    epilogue: Option<&dyn Epilogue<f32>>,
) {
    let mut rng = Rng(3);
    let (av, bv) = (rng.vec(batch * m * k), rng.vec(batch * k * n));
    let wide = |v: &[f64]| v.iter().map(|&x| to(from(x))).collect::<Vec<_>>();
    let (want, magnitude) = reference(&wide(&av), &wide(&bv), [batch, m, n, k]);
    let a = store(&av, a_form, [batch, m, k], from);
    let b = store(&bv, b_form, [batch, k, n], from);
    let mut c = store(&vec![0.0; batch * m * n], c_form, [batch, m, n], |x| {
        x as f32
    });
    engine
        .gemm_to_f32(
            StridedMatrix::new(Operand::Lhs, &a.buffer, a.layout).unwrap(),
            StridedMatrix::new(Operand::Rhs, &b.buffer, b.layout).unwrap(),
            StridedMatrixMut::new(&mut c.buffer, c.layout).unwrap(),
            epilogue,
        )
        .unwrap();
    for bi in 0..batch {
        for i in 0..m {
            for j in 0..n {
                let at = (bi * m + i) * n + j;
                let got = c.buffer[c.layout.offset(bi, i, j)] as f64;
                let bound = 1e-5 * magnitude[at].max(1.0);
                assert!(
                    (got - want[at]).abs() <= bound,
                    "{batch}×{m}×{n}×{k} {b_form:?} ({bi},{i},{j}): {got} vs {}",
                    want[at]
                );
            }
        }
    }
}

/// bf16 and f16 operands of an f32 result (XLA's preferred element type):
/// every engine, bf16 pairs included where the CPU has them: odd `k` (a
/// pair half-filled), tails of every tile, transposed operands and
/// batches.
#[test]
fn half_operands_into_f32_results() {
    for engine in bf16_engines() {
        for dims in [
            [1, 29, 70, 33],
            [3, 15, 33, 64],
            [1, 2, 40, 1],
            [2, 1, 1, 7],
        ] {
            let bf16s: Conversions<bf16> = (bf16::from_f64, bf16::to_f64);
            let f16s: Conversions<f16> = (f16::from_f64, f16::to_f64);
            check_widening(
                engine,
                dims,
                [Form::ColMajor, Form::RowMajor, Form::Padded],
                bf16s,
                None,
            );
            check_widening(
                engine,
                dims,
                [Form::RowMajor, Form::ColMajor, Form::RowMajor],
                f16s,
                None,
            );
        }
    }
}

/// bf16 dots on AMX tiles where the CPU has them (shapes of multiples of
/// 32, row-contiguous A and C, any B), against the f64 reference on the
/// widened values; the epilogue sees every element once. Elsewhere the
/// same products run on the f32 kernels and must agree just as well.
#[test]
fn bf16_dots_on_tiles() {
    assert_eq!(
        default_engine().runs_amx(),
        xla_jit::dot::amx_available(),
        "the default engine uses AMX where it is available"
    );
    let seen = AtomicUsize::new(0);
    let count = |block: OutputBlock<'_, f32>| {
        let l = block.c.layout();
        seen.fetch_add(l.rows * l.cols, SeqCst);
    };
    let bf16s: Conversions<bf16> = (bf16::from_f64, bf16::to_f64);
    for dims in [[1, 32, 32, 32], [2, 64, 96, 128], [1, 96, 320, 64]] {
        for b_form in [Form::RowMajor, Form::ColMajor] {
            seen.store(0, SeqCst);
            let forms = [Form::RowMajor, b_form, Form::RowMajor];
            check_widening(default_engine(), dims, forms, bf16s, Some(&count));
            assert_eq!(seen.load(SeqCst), dims[0] * dims[1] * dims[2]);
        }
    }
}
