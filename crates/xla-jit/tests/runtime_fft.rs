//! `fft` on the JIT (rustfft/realfft routines) against the reference
//! interpreter, which computes every transform in `c128`: every type, rank
//! 1 to 3, lengths 1, 2, primes, smooth and power-of-two sizes, batched,
//! `c64` and `c128`, non-default layouts, and sizes that split over the
//! pool's threads.

use xla_core::literal::Tolerance;

use crate::runtime_support::{check_against_interpreter, compile_all, parse, random_args};

/// `f32` transforms: errors grow with `log n` times the signal's norm,
/// which for inputs in `[-2, 2)` is about `sqrt(n)`; the absolute part
/// covers the near-zero outputs.
fn tolerance(single: bool, signal: i64) -> Tolerance {
    let scale = (signal as f64).sqrt().max(1.0);
    if single {
        Tolerance::new(2e-5 * scale, 2e-5)
    } else {
        Tolerance::new(1e-12 * scale, 1e-12)
    }
}

/// A module of one `fft` of `kind` with `fft_length={lengths}` whose
/// operand has `leading` dimensions before the transformed ones.
fn module(kind: &str, complex: &str, leading: &[i64], lengths: &[i64], layout: &str) -> String {
    let real = if complex == "c64" { "f32" } else { "f64" };
    let mut spectrum = lengths.to_vec();
    let last = spectrum.len() - 1;
    spectrum[last] = lengths[last] / 2 + 1;
    let (in_ty, in_dims, out_ty, out_dims) = match kind {
        "FFT" | "IFFT" => (complex, lengths, complex, lengths),
        "RFFT" => (real, lengths, complex, &spectrum[..]),
        _ => (complex, &spectrum[..], real, lengths),
    };
    let dims = |d: &[i64]| {
        leading
            .iter()
            .chain(d)
            .map(|x| x.to_string())
            .collect::<Vec<_>>()
            .join(",")
    };
    let list = |d: &[i64]| {
        d.iter()
            .map(|x| x.to_string())
            .collect::<Vec<_>>()
            .join(",")
    };
    format!(
        "HloModule fft\n\nENTRY e {{\n  x = {in_ty}[{}]{layout} parameter(0)\n  \
         ROOT f = {out_ty}[{}]{layout} fft(x), fft_type={kind}, fft_length={{{}}}\n}}\n",
        dims(in_dims),
        dims(out_dims),
        list(lengths)
    )
}

fn check(kind: &str, complex: &str, leading: &[i64], lengths: &[i64], layout: &str) {
    let text = module(kind, complex, leading, lengths, layout);
    let module = parse(&text);
    compile_all(&module);
    let signal: i64 = lengths.iter().product();
    let args = random_args(&module, signal as u64 ^ leading.len() as u64);
    check_against_interpreter(&module, &args, tolerance(complex == "c64", signal));
}

const KINDS: [&str; 4] = ["FFT", "IFFT", "RFFT", "IRFFT"];

#[test]
fn one_dimensional_lengths_of_every_kind() {
    for kind in KINDS {
        for n in [1, 2, 3, 7, 8, 12, 13, 16, 97, 100, 128, 1000, 4096] {
            check(kind, "c64", &[3], &[n], "");
        }
        for n in [1, 5, 64, 257] {
            check(kind, "c128", &[2], &[n], "");
        }
    }
}

#[test]
fn two_and_three_dimensions() {
    for kind in KINDS {
        for lengths in [
            &[4, 8][..],
            &[6, 5],
            &[1, 9],
            &[17, 16],
            &[128, 128],
            &[3, 4, 5],
            &[8, 1, 6],
        ] {
            check(kind, "c64", &[2], lengths, "");
        }
        check(kind, "c128", &[], &[12, 10], "");
        check(kind, "c128", &[2], &[5, 3, 8], "");
    }
}

/// Batches and transforms big enough to run on every thread of the pool,
/// and an unbatched one.
#[test]
fn batched_over_the_pool() {
    for kind in KINDS {
        check(kind, "c64", &[64], &[4096], "");
        check(kind, "c64", &[4, 4], &[64, 128], "");
        check(kind, "c64", &[], &[256, 256], "");
        check(kind, "c64", &[], &[30000], "");
    }
}

/// Operands and results in a column-major layout reach the routine
/// through relayout copies.
#[test]
fn non_default_layouts() {
    for kind in KINDS {
        check(kind, "c64", &[3], &[10], "{0,1}");
        check(kind, "c64", &[2], &[4, 6], "{1,0,2}");
    }
}
