//! The values `gen_npy.py` writes into every 2×3 fixture, rebuilt in Rust
//! (shared by the `.npy` and safetensors tests).

use xla_core::{Literal, PrimitiveType, TypeKind, C128};

/// The element type of a fixture's dtype code (`f4`, `bf16`, …).
pub fn element_type(code: &str) -> PrimitiveType {
    use PrimitiveType as P;
    match code {
        "b1" => P::Pred,
        "i1" => P::S8,
        "i2" => P::S16,
        "i4" => P::S32,
        "i8" => P::S64,
        "u1" => P::U8,
        "u2" => P::U16,
        "u4" => P::U32,
        "u8" => P::U64,
        "f2" => P::F16,
        "f4" => P::F32,
        "f8" => P::F64,
        "c8" => P::C64,
        "c16" => P::C128,
        "bf16" => P::Bf16,
        other => panic!("no fixture code {other}"),
    }
}

/// The 2×3 values `gen_npy.py` writes for a dtype code.
pub fn expected(code: &str) -> Literal {
    let ty = element_type(code);
    let bits = ty.bit_width() as u32;
    let base = match ty.kind() {
        TypeKind::Pred => {
            Literal::from_slice(&[2, 3], &[true, false, false, true, true, false]).unwrap()
        }
        TypeKind::Signed => {
            let (min, max) = (-(1i128 << (bits - 1)), (1i128 << (bits - 1)) - 1);
            Literal::from_slice(&[2, 3], &[0, 1, -2, 3, min as i64, max as i64]).unwrap()
        }
        TypeKind::Unsigned => {
            let max = ((1u128 << bits) - 1) as u64;
            Literal::from_slice(&[2, 3], &[0, 1, 2, 3, max - 1, max]).unwrap()
        }
        TypeKind::Float => {
            let values = [0.0, -1.5, 0.25, f64::INFINITY, f64::NAN, 100.5];
            Literal::from_slice(&[2, 3], &values).unwrap()
        }
        TypeKind::Complex => {
            let c = C128::new;
            let values = [
                c(0.0, 0.0),
                c(1.5, -2.0),
                c(0.0, 0.25),
                c(f64::INFINITY, 0.0),
                c(f64::NAN, 0.0),
                c(100.5, 1.0),
            ];
            Literal::from_slice(&[2, 3], &values).unwrap()
        }
    };
    base.convert(ty).unwrap()
}
