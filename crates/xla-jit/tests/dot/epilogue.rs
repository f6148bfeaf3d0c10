//! The epilogue hook: every element seen once, closures for every type.

use super::*;

/// `relu(C + bias[column])`, counting how often each element is visited.
struct BiasRelu<'a> {
    bias: &'a [f32],
    visits: Mutex<Vec<usize>>,
    cols: usize,
    rows: usize,
    blocks: AtomicUsize,
}

impl Epilogue<f32> for BiasRelu<'_> {
    fn apply(&self, mut block: OutputBlock<'_, f32>) {
        self.blocks.fetch_add(1, SeqCst);
        let layout = block.c.layout();
        let mut visits = self.visits.lock().unwrap();
        for i in 0..layout.rows {
            for j in 0..layout.cols {
                let (row, col) = (block.row0 + i, block.col0 + j);
                visits[(block.batch * self.rows + row) * self.cols + col] += 1;
                let value = block.c.get(0, i, j) + self.bias[col];
                block.c.set(0, i, j, value.max(0.0));
            }
        }
    }
}

/// Every engine, `[batch, m, n, k]` and operand and output forms the
/// epilogue tests run: matrix-vector shapes and `k = 0` among them.
fn cases() -> Vec<(&'static DotEngine, [usize; 4], [Form; 3])> {
    use Form::*;
    let shapes = [
        [1, 100, 600, 300],
        // Few rows, many columns: split by columns over the threads, and
        // (with a column-major B and a row-major C) computed column-major
        // and copied by the gemm crate's path.
        [1, 20, 700, 300],
        [2, 13, 17, 40],
        [1, 1, 50, 9],
        [1, 50, 1, 9],
        [1, 4, 4, 0],
    ];
    let forms = [
        [RowMajor; 3],
        [ColMajor, RowMajor, ColMajor],
        [RowMajor, RowMajor, Padded],
        [RowMajor, ColMajor, RowMajor],
    ];
    let mut cases = Vec::new();
    for engine in engines() {
        for shape in shapes {
            cases.extend(forms.iter().map(|&f| (engine, shape, f)));
        }
    }
    cases
}

#[test]
fn the_epilogue_sees_every_element_once() {
    for (engine, [batch, m, n, k], forms) in cases() {
        let mut rng = Rng(11);
        let (av, bv) = (rng.vec(batch * m * k), rng.vec(batch * k * n));
        let bias: Vec<f32> = rng.vec(n).into_iter().map(|x| x as f32).collect();
        let a = store(&av, forms[0], [batch, m, k], |x| x as f32);
        let b = store(&bv, forms[1], [batch, k, n], |x| x as f32);
        let mut c = store(&vec![0.0; batch * m * n], forms[2], [batch, m, n], |x| {
            x as f32
        });
        let epilogue = BiasRelu {
            bias: &bias,
            visits: Mutex::new(vec![0; batch * m * n]),
            cols: n,
            rows: m,
            blocks: AtomicUsize::new(0),
        };
        engine
            .gemm(
                StridedMatrix::new(Operand::Lhs, &a.buffer, a.layout).unwrap(),
                StridedMatrix::new(Operand::Rhs, &b.buffer, b.layout).unwrap(),
                StridedMatrixMut::new(&mut c.buffer, c.layout).unwrap(),
                Some(&epilogue),
            )
            .unwrap();
        assert!(epilogue
            .visits
            .into_inner()
            .unwrap()
            .iter()
            .all(|&v| v == 1));
        assert!(epilogue.blocks.load(SeqCst) >= batch);
        let round = |v: &[f64]| v.iter().map(|&x| x as f32 as f64).collect::<Vec<_>>();
        let (expected, magnitude) = reference(&round(&av), &round(&bv), [batch, m, n, k]);
        for bi in 0..batch {
            for i in 0..m {
                for (j, &bias_j) in bias.iter().enumerate() {
                    let at = (bi * m + i) * n + j;
                    let want = (expected[at] + bias_j as f64).max(0.0);
                    let got = c.buffer[c.layout.offset(bi, i, j)] as f64;
                    let bound = 2.0 * (k + 1) as f64 * f32::EPSILON as f64 * (magnitude[at] + 1.0);
                    assert!(
                        (got - want).abs() <= bound,
                        "{forms:?} ({bi},{i},{j}): {got} vs {want}"
                    );
                }
            }
        }
    }
}

#[test]
fn closures_are_epilogues_for_every_type() {
    let double = |mut block: OutputBlock<'_, i32>| {
        let layout = block.c.layout();
        for i in 0..layout.rows {
            let row = block.c.row_mut(0, i).unwrap();
            row.iter_mut().for_each(|x| *x *= 2);
        }
    };
    let mut c = [0i32; 4];
    default_engine()
        .gemm(
            StridedMatrix::new(Operand::Lhs, &[1, 2, 3, 4], MatrixLayout::row_major(2, 2)).unwrap(),
            StridedMatrix::new(Operand::Rhs, &[5, 6, 7, 8], MatrixLayout::row_major(2, 2)).unwrap(),
            StridedMatrixMut::new(&mut c, MatrixLayout::row_major(2, 2)).unwrap(),
            Some(&double),
        )
        .unwrap();
    assert_eq!(c, [38, 44, 86, 100]);
    let plus_one = |mut block: OutputBlock<'_, bf16>| {
        let l = block.c.layout();
        for i in 0..l.rows {
            for j in 0..l.cols {
                let v = block.c.get(0, i, j);
                block.c.set(0, i, j, v + bf16::ONE);
            }
        }
    };
    let ones = [bf16::ONE; 6];
    let mut c = [bf16::ZERO; 4];
    default_engine()
        .gemm(
            StridedMatrix::new(Operand::Lhs, &ones, MatrixLayout::row_major(2, 3)).unwrap(),
            StridedMatrix::new(Operand::Rhs, &ones, MatrixLayout::row_major(3, 2)).unwrap(),
            StridedMatrixMut::new(&mut c, MatrixLayout::col_major(2, 2)).unwrap(),
            Some(&plus_one),
        )
        .unwrap();
    assert!(c.iter().all(|x| x.to_f32() == 4.0), "{c:?}");
}

/// An epilogue that asks for `C += A·B`.
struct Adds;

impl<T> Epilogue<T> for Adds {
    fn apply(&self, _: OutputBlock<'_, T>) {}

    fn accumulates(&self) -> bool {
        true
    }
}

/// An accumulating epilogue adds the product to the output's contents on
/// every engine (the gemm crate's, the engine's own kernels with tiny
/// blocks, Cranelift's), for matrix-vector shapes (which then skip the
/// matrix-vector kernels), `k = 0` (the output stays) and every output
/// form.
#[test]
fn an_accumulating_epilogue_adds_the_product_to_the_output() {
    for (engine, [batch, m, n, k], forms) in cases() {
        let mut rng = Rng(5);
        let (av, bv) = (rng.vec(batch * m * k), rng.vec(batch * k * n));
        let cv = rng.vec(batch * m * n);
        let a = store(&av, forms[0], [batch, m, k], |x| x as f32);
        let b = store(&bv, forms[1], [batch, k, n], |x| x as f32);
        let mut c = store(&cv, forms[2], [batch, m, n], |x| x as f32);
        engine
            .gemm(
                StridedMatrix::new(Operand::Lhs, &a.buffer, a.layout).unwrap(),
                StridedMatrix::new(Operand::Rhs, &b.buffer, b.layout).unwrap(),
                StridedMatrixMut::new(&mut c.buffer, c.layout).unwrap(),
                Some(&Adds),
            )
            .unwrap();
        let round = |v: &[f64]| v.iter().map(|&x| x as f32 as f64).collect::<Vec<_>>();
        let (expected, magnitude) = reference(&round(&av), &round(&bv), [batch, m, n, k]);
        for bi in 0..batch {
            for i in 0..m {
                for j in 0..n {
                    let at = (bi * m + i) * n + j;
                    let want = expected[at] + cv[at] as f32 as f64;
                    let got = c.buffer[c.layout.offset(bi, i, j)] as f64;
                    let bound = 2.0 * (k + 2) as f64 * f32::EPSILON as f64 * (magnitude[at] + 1.0);
                    assert!(
                        (got - want).abs() <= bound,
                        "{forms:?} {m}x{n}x{k} ({bi},{i},{j}): {got} vs {want}"
                    );
                }
            }
        }
    }
}
