//! `ConvertElementType` rules, `docs/semantics.md`, *Convert* and the subnormal project rule of
//! `docs/semantics.md`, *Flush to zero*: every rule and every worked example.

use half::{bf16, f16};
use xla_core::layout::{Layout, PaddingValue};
use xla_core::literal::convert::{convert_elements, convert_slice, convert_value};
use xla_core::{Literal, NativeType, PrimitiveType, C128, C64};

fn cv<S: NativeType, D: NativeType>(x: S) -> D {
    convert_value::<S, D>(x).unwrap()
}

fn h(x: f32) -> f16 {
    f16::from_f32(x)
}

#[test]
fn same_type_is_the_identity_on_bits() {
    let payload_nan = f32::from_bits(0x7fc0_0001);
    let l = Literal::vector(&[payload_nan, -0.0, 1e-40]);
    let same = l.convert(PrimitiveType::F32).unwrap();
    assert_eq!(same, l);
    assert_eq!(cv::<f32, f32>(1e-40).to_bits(), 1e-40f32.to_bits());
}

#[test]
fn integer_to_integer_wraps() {
    assert_eq!(cv::<i32, i8>(300), 44);
    assert_eq!(cv::<i32, i8>(-129), 127);
    assert_eq!(cv::<u8, i8>(200), -56);
    // Sign extension for signed sources, zero extension for unsigned ones.
    assert_eq!(cv::<i8, u32>(-1), u32::MAX);
    assert_eq!(cv::<u8, i32>(255), 255);
    assert_eq!(cv::<i64, u16>(0x1_2345_6789), 0x6789);
    assert_eq!(cv::<u64, i64>(u64::MAX), -1);
    assert_eq!(cv::<i16, u64>(-2), u64::MAX - 1);
}

#[test]
fn integer_to_float_rounds_to_nearest_even() {
    assert_eq!(cv::<i32, f32>(16_777_217), 16_777_216.0);
    assert_eq!(cv::<i32, f32>(16_777_219), 16_777_220.0);
    assert_eq!(cv::<i32, f32>(16_777_218), 16_777_218.0);
    let l = Literal::vector(&[0i32, 1, 2])
        .convert(PrimitiveType::F32)
        .unwrap();
    assert_eq!(l, Literal::vector(&[0.0f32, 1.0, 2.0]));
    assert_eq!(cv::<u64, f32>(u64::MAX), 18_446_744_073_709_551_616.0);
    assert_eq!(cv::<i64, f64>(i64::MIN), -9_223_372_036_854_775_808.0);
    // f16: ties to even, and overflow to infinity.
    assert_eq!(cv::<i32, f16>(2049), h(2048.0));
    assert_eq!(cv::<i32, f16>(2051), h(2052.0));
    assert_eq!(cv::<i32, f16>(65519), h(65504.0));
    assert_eq!(cv::<i32, f16>(65520), f16::INFINITY);
    assert_eq!(cv::<i32, f16>(-70000), f16::NEG_INFINITY);
    // bf16 rounds once: 2^24 + 2^16 + 1 is just above the midpoint between
    // 2^24 and 2^24 + 2^17. (Rounding to f32 first would land on the
    // midpoint and then round down to 2^24.)
    assert_eq!(
        cv::<i32, bf16>((1 << 24) + (1 << 16) + 1).to_f64(),
        16_908_288.0
    );
    assert_eq!(
        cv::<i32, bf16>((1 << 24) + (1 << 16)).to_f64(),
        16_777_216.0
    );
    // Likewise for 64-bit integers beyond f64's precision.
    let big = (1u64 << 60) + (1 << 52) + 1;
    assert_eq!(
        cv::<u64, bf16>(big).to_f64(),
        ((1u64 << 60) + (1 << 53)) as f64
    );
    assert_eq!(
        cv::<u64, bf16>(u64::MAX).to_f64(),
        18_446_744_073_709_551_616.0
    );
}

#[test]
fn float_to_float_rounds_to_nearest_even() {
    let two = |e: i32| 2f32.powi(e);
    assert_eq!(cv::<f32, f16>(1.0 + two(-11)), h(1.0));
    assert_eq!(
        cv::<f32, f16>(1.0 + 3.0 * two(-11)),
        f16::from_f64(1.001_953_125)
    );
    assert_eq!(cv::<f32, f16>(70000.0), f16::INFINITY);
    assert_eq!(cv::<f32, f16>(65520.0), f16::INFINITY);
    assert_eq!(cv::<f32, f16>(-65520.0), f16::NEG_INFINITY);
    assert_eq!(cv::<f32, f16>(65519.996), h(65504.0));
    assert_eq!(cv::<f64, f16>(65520.0), f16::INFINITY);
    // One rounding from f64: just above a tie rounds up.
    let above_tie = 1.0 + 2f64.powi(-11) + 2f64.powi(-40);
    assert_eq!(cv::<f64, f16>(above_tie), h(1.000_976_6));
    assert_eq!(cv::<f64, f16>(1.0 + 2f64.powi(-11)), h(1.0));
    let above_tie = 1.0 + 2f64.powi(-8) + 2f64.powi(-40);
    assert_eq!(cv::<f64, bf16>(above_tie).to_f64(), 1.0078125);
    assert_eq!(cv::<f64, bf16>(1e39), bf16::INFINITY);
    assert_eq!(cv::<f64, f32>(1e39), f32::INFINITY);
    assert_eq!(cv::<f64, f32>(0.1), 0.1f32);
    assert_eq!(cv::<f32, bf16>(3.140625), bf16::from_f32(3.140625));
    assert_eq!(cv::<bf16, f16>(bf16::from_f32(1e5)), f16::INFINITY);
    assert_eq!(cv::<f16, bf16>(h(1.0009766)).to_f32(), 1.0);
    // NaN stays NaN, through every pair.
    assert!(cv::<f32, f16>(f32::NAN).is_nan());
    assert!(cv::<f64, bf16>(-f64::NAN).is_nan());
    assert!(cv::<f16, f64>(f16::NAN).is_nan());
    assert!(cv::<bf16, f32>(bf16::NAN).is_nan());
    assert!(cv::<f64, f32>(f64::NAN).is_nan());
    assert!(cv::<f32, f64>(f32::NAN).is_nan());
    assert_eq!(cv::<f16, f32>(f16::NEG_INFINITY), f32::NEG_INFINITY);
}

#[test]
fn subnormals_flush_between_f32_or_bf16_and_f64_only() {
    let is_neg_zero = |x: f64| x == 0.0 && x.is_sign_negative();
    assert_eq!(cv::<f32, f64>(1e-40), 0.0);
    assert!(is_neg_zero(cv::<f32, f64>(-1e-40)));
    assert_eq!(cv::<f64, f32>(1e-40), 0.0);
    // Representable as an f32 subnormal, but flushed.
    assert_eq!(cv::<f64, f32>(1e-39).to_bits(), 0);
    assert!(cv::<f64, f32>(-1e-39).is_sign_negative());
    assert_eq!(cv::<f64, f32>(2e-38), 2e-38f32);
    assert_eq!(cv::<f32, f64>(2e-38), f64::from(2e-38f32));
    // f32 ↔ bf16 keeps subnormals: f32 1e-40 → bf16 9.18355e-41 (bits 0x0001).
    assert_eq!(cv::<f32, bf16>(1e-40).to_bits(), 0x0001);
    assert_eq!(cv::<bf16, f32>(bf16::from_bits(1)).to_bits(), 0x0001_0000);
    // f16 subnormal results are kept: f32 1e-7 → f16 1.1920929e-7 (0x0002).
    assert_eq!(cv::<f32, f16>(1e-7).to_bits(), 0x0002);
    assert_eq!(cv::<f64, f16>(6e-8).to_bits(), 0x0001);
    assert_eq!(cv::<f64, bf16>(1e-40).to_bits(), 0x0001);
    // Widening f16 is exact (its subnormals are normal f32 values); bf16
    // subnormals are f32 subnormals and flush on the way to f64, as XLA:CPU
    // flushes them.
    assert_eq!(cv::<f16, f64>(f16::from_bits(1)), 2f64.powi(-24));
    assert_eq!(cv::<bf16, f64>(bf16::from_bits(1)).to_bits(), 0);
    assert!(is_neg_zero(cv::<bf16, f64>(bf16::from_bits(0x8001))));
    assert_eq!(cv::<bf16, f64>(bf16::from_bits(0x0080)), 2f64.powi(-126));
    assert_eq!(cv::<bf16, C128>(bf16::from_bits(1)), C128::new(0.0, 0.0));
    // Complex components follow the same rules.
    assert_eq!(cv::<C64, C128>(C64::new(1e-40, 2.0)), C128::new(0.0, 2.0));
    assert_eq!(cv::<C128, C64>(C128::new(1.0, 1e-39)), C64::new(1.0, 0.0));
    assert_eq!(cv::<f32, C128>(1e-40), C128::new(0.0, 0.0));
    assert_eq!(cv::<f64, C64>(1e-40), C64::new(0.0, 0.0));
    assert_eq!(cv::<C64, f64>(C64::new(1e-40, 1.0)), 0.0);
}

#[test]
fn float_to_integer_truncates_and_saturates() {
    assert_eq!(cv::<f32, i32>(2.7), 2);
    assert_eq!(cv::<f32, i32>(-2.7), -2);
    assert_eq!(cv::<f32, i32>(1e10), 2_147_483_647);
    assert_eq!(cv::<f32, i32>(-1e10), -2_147_483_648);
    assert_eq!(cv::<f32, u8>(-3.5), 0);
    assert_eq!(cv::<f32, u8>(300.0), 255);
    assert_eq!(cv::<f64, i64>(f64::NAN), 0);
    assert_eq!(cv::<f32, u16>(f32::INFINITY), u16::MAX);
    assert_eq!(cv::<bf16, u32>(bf16::NEG_INFINITY), 0);
    assert_eq!(cv::<f16, i8>(h(200.0)), 127);
    assert_eq!(cv::<f16, i8>(h(-0.0)), 0);
    assert_eq!(cv::<f64, u64>(2e19), u64::MAX);
}

#[test]
fn numeric_to_pred_is_not_equal_to_zero() {
    assert!(!cv::<f32, bool>(0.0));
    assert!(!cv::<f32, bool>(-0.0));
    assert!(cv::<f32, bool>(f32::NAN));
    assert!(cv::<f64, bool>(-f64::INFINITY));
    assert!(cv::<i32, bool>(-5));
    assert!(!cv::<u8, bool>(0));
    assert!(cv::<u64, bool>(1 << 63));
    // Subnormal inputs: flushed for f32 and f64 (and bf16, computed in f32);
    // f16 subnormals are normal f32 values.
    assert!(!cv::<f32, bool>(1e-40));
    assert!(!cv::<f64, bool>(1e-310));
    assert!(cv::<f64, bool>(1e-300));
    assert!(!cv::<bf16, bool>(bf16::from_bits(1)));
    assert!(cv::<f16, bool>(f16::from_bits(1)));
}

#[test]
fn pred_to_numeric_is_zero_or_one() {
    assert_eq!(cv::<bool, i8>(true), 1);
    assert_eq!(cv::<bool, u64>(false), 0);
    assert_eq!(cv::<bool, f32>(true), 1.0);
    assert_eq!(cv::<bool, bf16>(true), bf16::ONE);
    assert_eq!(cv::<bool, f16>(false), f16::ZERO);
    assert_eq!(cv::<bool, C128>(true), C128::new(1.0, 0.0));
    assert!(cv::<bool, bool>(true));
}

#[test]
fn complex_conversions() {
    // real → complex: (x, 0) after converting x to the component type.
    assert_eq!(cv::<f32, C64>(1.5), C64::new(1.5, 0.0));
    assert_eq!(cv::<i32, C128>(-7), C128::new(-7.0, 0.0));
    assert_eq!(cv::<i32, C64>(16_777_217), C64::new(16_777_216.0, 0.0));
    assert_eq!(cv::<f16, C64>(h(0.5)), C64::new(0.5, 0.0));
    // complex → complex: each component as float → float.
    assert_eq!(cv::<C64, C128>(C64::new(1.5, -2.0)), C128::new(1.5, -2.0));
    assert_eq!(
        cv::<C128, C64>(C128::new(1e300, 0.1)),
        C64::new(f32::INFINITY, 0.1)
    );
    // complex → real: the real part, converted.
    assert_eq!(cv::<C64, f32>(C64::new(1.7, 2.0)), 1.7);
    assert_eq!(cv::<C64, i32>(C64::new(1.7, 2.0)), 1);
    assert_eq!(cv::<C128, u8>(C128::new(-3.5, 9.0)), 0);
    assert_eq!(cv::<C128, f16>(C128::new(65520.0, 0.0)), f16::INFINITY);
    // complex → pred is not a conversion.
    assert_eq!(
        convert_value::<C64, bool>(C64::new(1.0, 0.0)).unwrap_err().to_string(),
        "cannot convert c64 to pred: complex → pred is not a conversion (compare with zero instead)"
    );
    assert!(Literal::vector(&[C128::new(0.0, 1.0)])
        .convert(PrimitiveType::Pred)
        .is_err());
}

#[test]
fn byte_and_slice_entry_points() {
    let src: Vec<u8> = [1.5f32, -2.5, 1e10]
        .iter()
        .flat_map(|v| v.to_le_bytes())
        .collect();
    let mut dst = [0u8; 6];
    convert_elements(&src, PrimitiveType::F32, &mut dst, PrimitiveType::S16).unwrap();
    assert_eq!(dst, [1, 0, 254, 255, 255, 127]);
    // Unaligned source bytes are fine.
    let mut shifted = vec![0u8];
    shifted.extend_from_slice(&src);
    convert_elements(
        &shifted[1..],
        PrimitiveType::F32,
        &mut dst,
        PrimitiveType::S16,
    )
    .unwrap();
    assert_eq!(dst, [1, 0, 254, 255, 255, 127]);
    assert_eq!(
        convert_elements(&src, PrimitiveType::F32, &mut dst[..4], PrimitiveType::S16)
            .unwrap_err()
            .to_string(),
        "converting f32 to s16: the source holds 3 elements but the destination 2"
    );
    // A pred byte other than 0 reads as true.
    let mut out = [0u8; 2];
    convert_elements(&[0, 7], PrimitiveType::Pred, &mut out, PrimitiveType::U8).unwrap();
    assert_eq!(out, [0, 1]);
    let mut halves = [f16::ZERO; 2];
    convert_slice(&[65520.0f32, 0.5], &mut halves).unwrap();
    assert_eq!(halves, [f16::INFINITY, h(0.5)]);
    assert!(convert_slice(&[1.0f32], &mut halves).is_err());
}

#[test]
fn literal_convert_keeps_the_layout_and_converts_padding() {
    let layout = Layout::new([0, 1]).with_padding([2, 3], PaddingValue::Lowest);
    let l = Literal::matrix(&[[1.5f32, -2.5], [1e10, f32::NAN]])
        .relayout(&layout)
        .unwrap();
    let s = l.convert(PrimitiveType::S32).unwrap();
    assert_eq!(s.shape().to_string(), "s32[2,2]{0,1:P(2,3;lowest)}");
    assert_eq!(s.to_vec::<i32>().unwrap(), [1, -2, 2_147_483_647, 0]);
    // The −∞ padding became the lowest s32.
    assert_eq!(s.data::<i32>().unwrap()[4], i32::MIN);
    let all_types: Vec<Literal> = PrimitiveType::ALL
        .iter()
        .filter(|t| !t.is_complex())
        .map(|&t| Literal::vector(&[1u8, 0]).convert(t).unwrap())
        .collect();
    for l in all_types {
        assert_eq!(
            l.convert(PrimitiveType::Pred).unwrap(),
            Literal::vector(&[true, false])
        );
    }
}
