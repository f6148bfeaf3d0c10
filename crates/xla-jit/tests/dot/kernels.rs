//! Checked configurations and the micro-kernels' code: size mismatches,
//! gemv blockings, registers only, broadcasts of `A`, native kernel shapes.

use super::*;

#[test]
fn size_mismatches_name_the_dimension() {
    let a = [0f32; 6];
    let mut c = [0f32; 4];
    let err = default_engine()
        .gemm(
            StridedMatrix::new(Operand::Lhs, &a, MatrixLayout::row_major(2, 3)).unwrap(),
            StridedMatrix::new(Operand::Rhs, &a, MatrixLayout::row_major(2, 3)).unwrap(),
            StridedMatrixMut::new(&mut c, MatrixLayout::row_major(2, 2)).unwrap(),
            None,
        )
        .unwrap_err();
    assert_eq!(
        err.to_string(),
        "dot: the n sizes disagree: operand 0 (lhs) [batch,m,k] = [1, 2, 3], \
         operand 1 (rhs) [batch,k,n] = [1, 2, 3], output [batch,m,n] = [1, 2, 2]"
    );
    let err = StridedMatrix::new(Operand::Rhs, &a, MatrixLayout::row_major(3, 3))
        .err()
        .unwrap();
    assert!(matches!(
        &err,
        JitError::DotOutOfBounds {
            operand,
            needed: 9,
            len: 6,
            ..
        } if operand == "operand 1 (rhs)"
    ));
}

#[test]
fn gemv_blockings_are_checked() {
    for (rows, vectors) in [(3, 2), (4, 0), (16, 1), (1, 12)] {
        let config = DotConfig {
            gemv: GemvBlock { rows, vectors },
            ..DotConfig::default()
        };
        let Err(JitError::InvalidConfig(why)) = DotEngine::new(config) else {
            panic!("rows {rows}, vectors {vectors} accepted");
        };
        assert!(
            why.contains("rows and vectors must be 1, 2, 4 or 8"),
            "{why}"
        );
    }
}

#[test]
fn the_cranelift_micro_kernels_keep_everything_in_registers() {
    let config = DotConfig {
        keep_disasm: true,
        f32: DotConfig::CRANELIFT_F32,
        ..DotConfig::default()
    };
    let engine = DotEngine::new(config).unwrap();
    for name in ["gemm_f32", "gemm_f64"] {
        let (_, listing) = engine.disasm().iter().find(|(n, _)| n == name).unwrap();
        // No stack traffic at all: no spills, no reloads.
        assert!(!listing.contains("rsp)"), "{name} spills:\n{listing}");
        assert!(listing.contains("vmulp"), "{name}:\n{listing}");
    }
}

/// The listing of the f32 micro-kernel of `f32` (a native kernel), after
/// checking it has no stack traffic.
fn native_kernel_listing(f32: KernelConfig) -> String {
    let config = DotConfig {
        keep_disasm: true,
        f32,
        ..DotConfig::default()
    };
    let engine = DotEngine::new(config).unwrap();
    let (_, listing) = engine
        .disasm()
        .iter()
        .find(|(n, _)| n == "gemm_f32")
        .unwrap();
    assert!(!listing.contains("rsp"), "{listing}");
    listing.clone()
}

/// The AVX-512 f32 kernel: no stack traffic, and a step of 14×32 is two
/// loads of `B` and 28 FMAs reading `A` as broadcast memory operands.
#[test]
fn the_avx512_micro_kernel_broadcasts_a_from_memory() {
    if !xla_jit::wide::cpu_has_avx512() {
        eprintln!("skipped: this CPU has no AVX-512");
        return;
    }
    let listing = native_kernel_listing(DotConfig::AVX512_F32);
    let fmas = listing
        .lines()
        .filter(|l| l.contains("vfmadd231ps") && l.contains("{1to16}"))
        .count();
    // The unrolled steps and the single step.
    let unroll = DotConfig::AVX512_F32.shape.unroll;
    assert_eq!(fmas, 28 * (unroll + 1), "{listing}");
}

/// The AVX2 f32 kernel: no stack traffic, and a step of 6×16 is two
/// loads of `B`, six broadcasts of `A` and 12 register FMAs.
#[test]
fn the_avx2_micro_kernel_broadcasts_a_into_registers() {
    if !xla_jit::wide::cpu_has_avx2() {
        eprintln!("skipped: this CPU has no AVX2");
        return;
    }
    let listing = native_kernel_listing(DotConfig::AVX2_F32);
    let count = |what: &str| {
        listing
            .lines()
            .filter(|l| l.contains(what) && l.contains(",%ymm"))
            .count()
    };
    // The unrolled steps and the single step.
    let steps = DotConfig::AVX2_F32.shape.unroll + 1;
    assert_eq!(count("vfmadd231ps"), 12 * steps, "{listing}");
    assert_eq!(count("vbroadcastss"), 6 * steps, "{listing}");
}

/// A native configuration that does not fit the registers (16 rows or
/// 24 columns at 512 bits, 7 rows or 12 columns at 256), or with choices
/// the kernel does not make, is an error naming the instruction set.
#[test]
fn native_kernel_shapes_are_checked() {
    let widths = [
        (
            xla_jit::wide::cpu_has_avx512(),
            DotConfig::AVX512_F32,
            [16, 24],
            "AVX-512",
        ),
        (
            xla_jit::wide::cpu_has_avx2(),
            DotConfig::AVX2_F32,
            [7, 12],
            "AVX2",
        ),
    ];
    for (has, native, [mr, nr], name) in widths {
        if !has {
            continue;
        }
        let shape = native.shape;
        for bad in [
            xla_jit::dot::KernelShape { mr, ..shape },
            xla_jit::dot::KernelShape { nr, ..shape },
            xla_jit::dot::KernelShape {
                accumulate: xla_jit::dot::Accumulate::MulAdd,
                ..shape
            },
        ] {
            let config = DotConfig {
                f32: KernelConfig {
                    shape: bad,
                    blocking: Blocking {
                        mc: bad.mr * 4,
                        nc: bad.nr * 4,
                        ..native.blocking
                    },
                },
                ..DotConfig::default()
            };
            let Err(JitError::InvalidConfig(why)) = DotEngine::new(config) else {
                panic!("{bad:?} accepted");
            };
            assert!(why.contains(name), "{why}");
        }
    }
}
