//! Shared by the runtime tests (and the `fuzz_hlo` example): seeded random
//! literals and the differential check (the JIT against the reference
//! interpreter).

#![allow(dead_code)]

use xla_core::interp::Interpreter;
use xla_core::literal::convert::convert_value;
use xla_core::literal::Tolerance;
use xla_core::{dispatch_native, HloModule, Literal, NativeType, PrimitiveType, Shape};
use xla_jit::{Client, CompileOptions, Executable};

/// Floats within a few hundred ulp of f32 (the JIT's transcendental
/// approximations and reassociated reductions), relative to the value.
pub const CLOSE: Tolerance = Tolerance::new(1e-5, 2e-5);

pub fn parse(text: &str) -> HloModule {
    text.parse().unwrap_or_else(|e| panic!("{e}\n{text}"))
}

/// `module` compiled by the JIT, every op compiled (none left to the
/// interpreter).
pub fn compile_all(module: &HloModule) -> Executable {
    let exe = Client::cpu().unwrap().compile(module).unwrap();
    assert!(
        exe.fallback_ops().is_empty(),
        "interpreted: {:?}",
        exe.fallback_ops()
    );
    exe
}

/// SplitMix64: seeded, well mixed, reproducible on every platform.
pub struct Rng(pub u64);

impl Rng {
    pub fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    /// Uniform in `[0, n)`; `n > 0`.
    pub fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }

    /// A uniformly chosen item; `None` for no items.
    pub fn pick<'a, T>(&mut self, items: &'a [T]) -> Option<&'a T> {
        (!items.is_empty()).then(|| &items[self.below(items.len())])
    }

    /// Uniform in `[-1, 1)`, scaled.
    pub fn uniform(&mut self, scale: f64) -> f64 {
        ((self.next() >> 11) as f64 / (1u64 << 52) as f64 - 1.0) * scale
    }
}

/// A literal of `shape` (with its layout): floats uniform in `[-2, 2)`,
/// signed integers in `[-8, 8)`, unsigned in `[0, 16)`, fair preds.
pub fn random_literal(shape: &Shape, rng: &mut Rng) -> Literal {
    try_random_literal(shape, rng).expect("the literal fits in memory")
}

/// [`random_literal`], or `None` when the literal cannot be allocated.
pub fn try_random_literal(shape: &Shape, rng: &mut Rng) -> Option<Literal> {
    if let Shape::Tuple(elements) = shape {
        let elements: Option<Vec<Literal>> = elements
            .iter()
            .map(|e| try_random_literal(e, rng))
            .collect();
        return elements.map(Literal::tuple);
    }
    let mut literal = Literal::zeros(shape).ok()?;
    let Some(ty) = literal.element_type() else {
        return Some(literal);
    };
    dispatch_native!(ty, T => fill::<T>(literal.data_mut::<T>().ok()?, ty, rng));
    Some(literal)
}

fn fill<T: NativeType>(data: &mut [T], ty: PrimitiveType, rng: &mut Rng) {
    for x in data {
        let value = if ty.is_floating() || ty.is_complex() {
            rng.uniform(2.0)
        } else if ty.is_signed_integral() {
            rng.below(16) as f64 - 8.0
        } else {
            rng.below(if ty.is_pred() { 2 } else { 16 }) as f64
        };
        *x = convert_value::<f64, T>(value).unwrap();
    }
}

/// Random arguments for the entry parameters of `module`.
pub fn random_args(module: &HloModule, seed: u64) -> Vec<Literal> {
    let mut rng = Rng(seed);
    module
        .entry_program_shape()
        .parameters
        .iter()
        .map(|p| random_literal(p, &mut rng))
        .collect()
}

/// Compiles `module` with the JIT, runs it and the interpreter on `args`,
/// and checks the results agree within `tolerance` (and the JIT's result
/// has the entry's result layouts). Then again with every kernel split
/// into pool tasks ([`CompileOptions::split_kernels`]), so that the small
/// inputs take the multi-threaded paths too. Returns the executable of the
/// ordinary compilation.
pub fn check_against_interpreter(
    module: &HloModule,
    args: &[Literal],
    tolerance: Tolerance,
) -> Executable {
    let refs: Vec<&Literal> = args.iter().collect();
    let want = Interpreter::new()
        .run(module, &refs)
        .unwrap_or_else(|e| panic!("interpreter: {e}\n{module}"));
    let client = Client::cpu().unwrap();
    let check = |options: &CompileOptions| {
        let exe = client
            .compile_with(module, options)
            .unwrap_or_else(|e| panic!("compile: {e}\n{module}"));
        let got = exe
            .execute(&refs)
            .unwrap_or_else(|e| panic!("execute: {e}\n{module}"));
        assert!(
            got.shape()
                .eq_with_layout(&module.entry_program_shape().result),
            "result {} for {}",
            got.shape(),
            module.entry_program_shape()
        );
        if let Err(mismatch) = want.check_close(&got, tolerance) {
            panic!("{mismatch}\n{}", exe.dump());
        }
        exe
    };
    let exe = check(&CompileOptions::default());
    check(&CompileOptions {
        split_kernels: true,
        ..CompileOptions::default()
    });
    exe
}
