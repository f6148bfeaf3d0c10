//! The table: one line per shape and thread count, ours against the
//! `gemm` crate.

use gemm::Parallelism;
use half::bf16;
use xla_jit::dot::{DotElement, DotEngine};

use crate::gemms::{data, dot_gemm_crate, dot_ours, dot_ours_bf16, parallelism};
use crate::timing::measure;

/// Minimum number of timed calls per table figure.
const RUNS: usize = 7;

/// Element types of the table.
#[derive(Clone, Copy, Debug)]
pub(super) enum Dtype {
    F32,
    F64,
    /// bf16 operands summed into f32 ([`DotEngine::gemm_to_f32`]).
    Bf16,
}

/// One shape of the table.
pub(super) struct Row {
    /// `[batch, m, n, k]`: `batch` products of `m×k · k×n`.
    dims: [usize; 4],
    dtype: Dtype,
    /// What the shape stands for, if anything.
    what: &'static str,
}

/// A table row.
pub(super) const fn row(dims: [usize; 4], dtype: Dtype, what: &'static str) -> Row {
    Row { dims, dtype, what }
}

/// The table's shapes, `[batch, m, n, k]`.
pub(super) const ROWS: &[Row] = &[
    row([1, 256, 256, 256], Dtype::F32, "dot_256"),
    row([1, 512, 512, 512], Dtype::F32, "dot_512"),
    row([1, 1024, 1024, 1024], Dtype::F32, "dot_1024"),
    row([1, 2048, 2048, 2048], Dtype::F32, "dot_2048"),
    row([1, 128, 2304, 768], Dtype::F32, ""),
    row([1, 128, 3072, 768], Dtype::F32, ""),
    row([1, 128, 768, 3072], Dtype::F32, ""),
    row([1, 25088, 64, 576], Dtype::F32, "ResNet conv as GEMM"),
    row([1, 4096, 128, 1152], Dtype::F32, ""),
    row([1, 576, 64, 8192], Dtype::F32, "conv weight gradient"),
    row([1, 392, 2304, 768], Dtype::F32, ""),
    row([1, 128, 512, 784], Dtype::F32, ""),
    row([1, 128, 10, 512], Dtype::F32, ""),
    row([1, 10, 512, 128], Dtype::F32, ""),
    row([1, 1, 3072, 768], Dtype::F32, "decode matvec"),
    row([24, 196, 196, 64], Dtype::F32, "bmm"),
    row([64, 128, 128, 64], Dtype::F32, "bmm"),
    row([1, 256, 4096, 1024], Dtype::F32, "mlp"),
    row([1, 1024, 1024, 1024], Dtype::F64, "dot_1024"),
    row([1, 512, 1024, 1024], Dtype::Bf16, ""),
];

/// `B×M×K·K×N`, without `B×` for a single matrix.
fn shape_name([batch, m, n, k]: [usize; 4]) -> String {
    let product = format!("{m}×{k}·{k}×{n}");
    if batch == 1 {
        product
    } else {
        format!("{batch}×{product}")
    }
}

/// The note at the end of a row's lines: what the shape is and how the
/// comparison differs from the plain one.
fn row_note(row: &Row) -> String {
    let mut notes: Vec<&str> = Vec::new();
    if !row.what.is_empty() {
        notes.push(row.what);
    }
    if row.dims[0] > 1 {
        notes.push("gemm crate: loop over the batch");
    }
    match row.dtype {
        Dtype::F32 => {}
        Dtype::F64 => notes.push("% of f64 peak (½ f32)"),
        Dtype::Bf16 => notes.push("gemm crate has no bf16: its f32 on the same values"),
    }
    notes.join("; ")
}

/// Prints the table's column headings.
pub(super) fn print_header() {
    println!(
        "\n{:<19} {:<5} {:>3} | {:>9} {:>7} {:>6} {:>7} | {:>9} {:>7} | {:>9} | note",
        "shape",
        "dtype",
        "thr",
        "ours ms",
        "GFLOP/s",
        "%peak",
        "%pk/CPU",
        "gemm ms",
        "GFLOP/s",
        "gemm/ours"
    );
}

/// Times and prints `row` on each of `engines` against the gemm crate on
/// as many threads; `peak` is the f32 per-thread peak.
pub(super) fn report_row(row: &Row, engines: &[(usize, DotEngine)], peak: f64) {
    let [batch, m, n, k] = row.dims;
    match row.dtype {
        Dtype::F32 => compare_same::<f32>(row, engines, peak),
        Dtype::F64 => compare_same::<f64>(row, engines, peak / 2.0),
        Dtype::Bf16 => {
            let a: Vec<bf16> = data::<f32>(batch * m * k, 1)
                .into_iter()
                .map(bf16::from_f32)
                .collect();
            let b: Vec<bf16> = data::<f32>(batch * k * n, 2)
                .into_iter()
                .map(bf16::from_f32)
                .collect();
            let a32: Vec<f32> = a.iter().map(|x| x.to_f32()).collect();
            let b32: Vec<f32> = b.iter().map(|x| x.to_f32()).collect();
            compare(
                row,
                engines,
                peak,
                |engine, c| dot_ours_bf16(engine, row.dims, &a, &b, c),
                |parallelism, c| dot_gemm_crate(row.dims, &a32, &b32, c, parallelism),
            );
        }
    }
}

/// [`compare`] for operands and result of one type `T`.
fn compare_same<T: DotElement + From<f32> + Into<f64>>(
    row: &Row,
    engines: &[(usize, DotEngine)],
    peak: f64,
) {
    let [batch, m, n, k] = row.dims;
    let a = data::<T>(batch * m * k, 1);
    let b = data::<T>(batch * k * n, 2);
    compare(
        row,
        engines,
        peak,
        |engine, c| dot_ours(engine, row.dims, &a, &b, c),
        |parallelism, c| dot_gemm_crate(row.dims, &a, &b, c, parallelism),
    );
}

/// For each of `engines`: times `ours` on it and `theirs` (the gemm crate)
/// on as many threads, checks that they computed the same `C`, and prints
/// a table line. `peak` is the per-thread peak for this element type.
fn compare<C: Copy + Default + Into<f64>>(
    row: &Row,
    engines: &[(usize, DotEngine)],
    peak: f64,
    mut ours: impl FnMut(&DotEngine, &mut [C]),
    mut theirs: impl FnMut(Parallelism, &mut [C]),
) {
    let [batch, m, n, k] = row.dims;
    let flops = 2.0 * (batch * m * n * k) as f64;
    let mut c_ours = vec![C::default(); batch * m * n];
    let mut c_theirs = c_ours.clone();
    for (threads, engine) in engines {
        let t_ours = measure(RUNS, || ours(engine, &mut c_ours));
        let t_theirs = measure(RUNS, || theirs(parallelism(*threads), &mut c_theirs));
        let max_diff = c_ours
            .iter()
            .zip(&c_theirs)
            .map(|(&x, &y)| (x.into() - y.into()).abs())
            .fold(0.0, f64::max);
        assert!(
            max_diff <= 1e-5 * k as f64,
            "{}: ours and the gemm crate differ by {max_diff}",
            shape_name(row.dims)
        );
        let gflops = |seconds: f64| flops / seconds / 1e9;
        let per_cpu = t_ours.cpu.map_or("-".to_string(), |cpu| {
            format!("{:.0}", 100.0 * gflops(cpu) / peak)
        });
        println!(
            "{:<19} {:<5} {threads:>3} | {:9.3} {:7.1} {:6.0} {per_cpu:>7} | {:9.3} {:7.1} | {:8.2}× | {}",
            shape_name(row.dims),
            format!("{:?}", row.dtype).to_lowercase(),
            t_ours.wall * 1e3,
            gflops(t_ours.wall),
            100.0 * gflops(t_ours.wall) / (peak * *threads as f64),
            t_theirs.wall * 1e3,
            gflops(t_theirs.wall),
            t_theirs.wall / t_ours.wall,
            row_note(row)
        );
    }
}
