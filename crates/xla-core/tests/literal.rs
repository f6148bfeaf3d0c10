//! Literals: construction, element access under any layout, relayout (the
//! worked examples of `docs/semantics.md`, *Untiled layouts* and *Tiles*), comparison.
//! The conversion rules (`docs/semantics.md`, *Convert*) are tested in `convert.rs`.

use xla_core::layout::{Layout, PaddingValue, Tile, COMBINE_DIM};
use xla_core::literal::{LiteralError, Tolerance};
use xla_core::{Literal, PrimitiveType, Shape};

/// `[[a,b,c],[d,e,f]]` as the bytes `a..f`.
fn abc_def() -> Literal {
    Literal::matrix(&[[b'a', b'b', b'c'], [b'd', b'e', b'f']])
}

fn memory_order(l: &Literal) -> String {
    l.data::<u8>()
        .unwrap()
        .iter()
        .map(|&b| if b == 0 { '0' } else { b as char })
        .collect()
}

#[test]
fn constructors() {
    let m = Literal::matrix(&[[1.0f32, 2.0, 3.0], [4.0, 5.0, 6.0]]);
    assert_eq!(m.shape().to_string(), "f32[2,3]{1,0}");
    assert_eq!(
        m,
        Literal::from_slice(&[2, 3], &[1.0f32, 2., 3., 4., 5., 6.]).unwrap()
    );
    assert_eq!(
        m,
        Literal::from_vec(&[2, 3], vec![1.0f32, 2., 3., 4., 5., 6.]).unwrap()
    );
    assert_eq!(Literal::scalar(7u16).shape().to_string(), "u16[]");
    assert_eq!(Literal::vector::<i8>(&[]).shape().to_string(), "s8[0]{0}");
    assert_eq!(
        Literal::matrix::<bool, 0>(&[[], []]).shape().to_string(),
        "pred[2,0]{1,0}"
    );
    assert_eq!(
        Literal::from_slice(&[2, 2], &[1u8; 3])
            .unwrap_err()
            .to_string(),
        "shape u8[2,2]{1,0} needs 4 elements but 3 were given"
    );
}

#[test]
fn get_set_and_to_vec_under_every_kind_of_layout() {
    let values: Vec<i32> = (0..15).collect();
    let base = Literal::from_slice(&[3, 5], &values).unwrap();
    let layouts = [
        Layout::new([1, 0]),
        Layout::new([0, 1]),
        Layout::new([0, 1]).with_padding([4, 7], PaddingValue::Highest),
        Layout::new([1, 0]).with_tiles([Tile::new([2, 2])]),
        Layout::new([0, 1]).with_tiles([Tile::new([2, 4]), Tile::new([2, 1])]),
        Layout::new([1, 0]).with_tiles([Tile::new([COMBINE_DIM, 4])]),
    ];
    for layout in layouts {
        let mut l = base.relayout(&layout).unwrap();
        assert_eq!(l.to_vec::<i32>().unwrap(), values, "{layout}");
        assert_eq!(l.get::<i32>(&[2, 3]).unwrap(), 13, "{layout}");
        l.set(&[1, 4], -1i32).unwrap();
        assert_eq!(l.get::<i32>(&[1, 4]).unwrap(), -1);
        let mut expected = values.clone();
        expected[9] = -1;
        assert_eq!(l.to_vec::<i32>().unwrap(), expected, "{layout}");
    }
}

#[test]
fn access_errors_name_index_dimension_and_shape() {
    let l = Literal::matrix(&[[1.0f32, 2.0, 3.0], [4.0, 5.0, 6.0]]);
    assert_eq!(
        l.get::<f32>(&[1]).unwrap_err().to_string(),
        "index [1] has 1 entries, but the literal of shape f32[2,3]{1,0} has rank 2"
    );
    assert_eq!(
        l.get::<f32>(&[1, 3]).unwrap_err().to_string(),
        "index [1,3] is out of range for f32[2,3]{1,0}: dimension 1 has size 3"
    );
    assert_eq!(
        l.get::<f32>(&[-1, 0]).unwrap_err().to_string(),
        "index [-1,0] is out of range for f32[2,3]{1,0}: dimension 0 has size 2"
    );
    assert_eq!(
        l.get::<f64>(&[0, 0]).unwrap_err().to_string(),
        "literal of shape f32[2,3]{1,0} holds f32, not f64"
    );
    let mut t = Literal::tuple(vec![l.clone()]);
    assert_eq!(
        t.set(&[0, 0], 1.0f32).unwrap_err().to_string(),
        "expected an array literal, found one of shape (f32[2,3]{1,0})"
    );
    assert_eq!(Literal::scalar(2.5f64).get::<f64>(&[]).unwrap(), 2.5);
}

// `docs/semantics.md`, *Untiled layouts*, Example 1.
#[test]
fn example1_column_major_memory_order() {
    let col = abc_def().relayout(&Layout::new([0, 1])).unwrap();
    assert_eq!(col.shape().to_string(), "u8[2,3]{0,1}");
    assert_eq!(memory_order(&col), "adbecf");
    assert_eq!(col.get::<u8>(&[1, 2]).unwrap(), b'f');
    assert_eq!(col.get::<u8>(&[0, 1]).unwrap(), b'b');
    assert_eq!(col.relayout(&Layout::new([1, 0])).unwrap(), abc_def());
}

// `docs/semantics.md`, *Untiled layouts*, Example 2.
#[test]
fn example2_padding_to_3x5() {
    let col = Layout::new([0, 1]).with_padding([3, 5], PaddingValue::Zero);
    let row = Layout::new([1, 0]).with_padding([3, 5], PaddingValue::Zero);
    let padded_col = abc_def().relayout(&col).unwrap();
    assert_eq!(memory_order(&padded_col), "ad0be0cf0000000");
    let padded_row = abc_def().relayout(&row).unwrap();
    assert_eq!(memory_order(&padded_row), "abc00def0000000");
    assert_eq!(padded_col.get::<u8>(&[1, 2]).unwrap(), b'f');
    assert_eq!(padded_col.data::<u8>().unwrap()[7], b'f');
    assert_eq!(padded_row.data::<u8>().unwrap()[7], b'f');
    assert_eq!(
        padded_col
            .relayout(&Layout::new([1, 0]))
            .unwrap()
            .relayout(&row)
            .unwrap(),
        padded_row
    );
}

// `docs/semantics.md`, *Untiled layouts*, Examples 3 and 5.
#[test]
fn example3_four_layouts_of_2x3x4() {
    // Element (i,j,k) holds the number ijk.
    let values: Vec<i32> = (0..2)
        .flat_map(|i| (0..3).flat_map(move |j| (0..4).map(move |k| 100 * i + 10 * j + k)))
        .collect();
    let l = Literal::from_slice(&[2, 3, 4], &values).unwrap();
    let cases = [
        (
            [2, 1, 0],
            "000 001 002 003 010 011 012 013 020 021 022 023 100 101 102 103 110 111 112 113 120 121 122 123",
        ),
        (
            [0, 1, 2],
            "000 100 010 110 020 120 001 101 011 111 021 121 002 102 012 112 022 122 003 103 013 113 023 123",
        ),
        (
            [1, 2, 0],
            "000 010 020 001 011 021 002 012 022 003 013 023 100 110 120 101 111 121 102 112 122 103 113 123",
        ),
        (
            [0, 2, 1],
            "000 100 001 101 002 102 003 103 010 110 011 111 012 112 013 113 020 120 021 121 022 122 023 123",
        ),
    ];
    for (m2m, order) in cases {
        let r = l.relayout(&Layout::new(m2m)).unwrap();
        let text: Vec<String> = r
            .data::<i32>()
            .unwrap()
            .iter()
            .map(|v| format!("{v:03}"))
            .collect();
        assert_eq!(text.join(" "), order, "{m2m:?}");
        assert_eq!(r.to_vec::<i32>().unwrap(), values);
        assert_eq!(r.relayout(&Layout::new([2, 1, 0])).unwrap(), l);
    }
    // Example 4: offset 18 of {1,2,0} holds element (1,0,2).
    let r = l.relayout(&Layout::new([1, 2, 0])).unwrap();
    assert_eq!(r.data::<i32>().unwrap()[18], 102);
    // Example 5: a scalar has one element at offset 0; a tuple's elements
    // are independent buffers.
    let scalar = Literal::scalar(1.5f32).relayout(&Layout::new([])).unwrap();
    assert_eq!(scalar.data::<f32>().unwrap(), &[1.5]);
    let t = Literal::tuple(vec![
        Literal::matrix(&[[1.0f32; 3]; 2]),
        Literal::scalar(7i32),
    ]);
    assert_eq!(t.shape().to_string(), "(f32[2,3]{1,0}, s32[])");
    assert_eq!(t.tuple_elements().unwrap()[1].data::<i32>().unwrap(), &[7]);
}

/// The 3×5 array whose element (r,c) is `10r + c + 1` (so 0 marks padding).
fn numbered_3x5() -> Literal {
    let values: Vec<i32> = (0..3)
        .flat_map(|r| (0..5).map(move |c| 10 * r + c + 1))
        .collect();
    Literal::from_slice(&[3, 5], &values).unwrap()
}

// `docs/semantics.md`, *Tiles*: the buffer of f32[3,5]{1,0:T(2,2)}, offsets 0…23.
#[test]
fn tiling_3_1_buffer_contents() {
    let tiled = numbered_3x5()
        .relayout(&Layout::new([1, 0]).with_tiles([Tile::new([2, 2])]))
        .unwrap();
    assert_eq!(tiled.shape().to_string(), "s32[3,5]{1,0:T(2,2)}");
    #[rustfmt::skip]
    let expected = [
        1, 2, 11, 12,   3, 4, 13, 14,   5, 0, 15, 0,
        21, 22, 0, 0,   23, 24, 0, 0,   25, 0, 0, 0,
    ];
    assert_eq!(tiled.data::<i32>().unwrap(), &expected);
    assert_eq!(tiled.data::<i32>().unwrap()[17], 24); // element (2,3)
    assert_eq!(
        tiled.relayout(&Layout::new([1, 0])).unwrap(),
        numbered_3x5()
    );
}

// `docs/semantics.md`, *Tiles*, *Repeated tiles*, *Combined dimensions*: the element lands at the
// documented offset.
#[test]
fn tiling_worked_examples_place_elements() {
    fn offset_of(dims: &[i64], layout: Layout, index: &[i64]) -> usize {
        let n: i64 = dims.iter().product();
        let values: Vec<i64> = (0..n).collect();
        let l = Literal::from_slice(dims, &values).unwrap();
        let target = l.get::<i64>(index).unwrap();
        let tiled = l.relayout(&layout).unwrap();
        assert_eq!(
            tiled
                .relayout(&Layout::default_for_rank(dims.len()))
                .unwrap(),
            l
        );
        let buffer = tiled.data::<i64>().unwrap();
        assert_ne!(target, 0, "0 also fills the padding");
        assert_eq!(buffer.iter().filter(|&&v| v == target).count(), 1);
        buffer.iter().position(|&v| v == target).unwrap()
    }
    let t = |dims: &[i64]| Tile::new(dims.to_vec());
    assert_eq!(
        offset_of(
            &[2, 3, 5],
            Layout::new([2, 1, 0]).with_tiles([t(&[2, 2])]),
            &[1, 2, 3]
        ),
        41
    );
    assert_eq!(
        offset_of(
            &[4, 8],
            Layout::new([1, 0]).with_tiles([t(&[2, 4]), t(&[2, 1])]),
            &[2, 5]
        ),
        26
    );
    let packed = || Layout::new([1, 0]).with_tiles([t(&[8, 128]), t(&[2, 1])]);
    assert_eq!(offset_of(&[16, 256], packed(), &[9, 130]), 3077);
    assert_eq!(offset_of(&[16, 256], packed(), &[8, 130]), 3076);
    assert_eq!(offset_of(&[16, 256], packed(), &[8, 128]), 3072);
    assert_eq!(offset_of(&[16, 256], packed(), &[9, 128]), 3073);
    assert_eq!(
        offset_of(
            &[8, 8],
            Layout::new([1, 0]).with_tiles([t(&[2, 4]), t(&[2, 1, 1, 1])]),
            &[6, 5]
        ),
        51
    );
    assert_eq!(
        offset_of(
            &[2, 7, 8, 11, 10],
            Layout::new([4, 3, 2, 1, 0]).with_tiles([t(&[
                COMBINE_DIM,
                COMBINE_DIM,
                2,
                COMBINE_DIM,
                3
            ])]),
            &[1, 3, 5, 7, 9]
        ),
        9484
    );
    assert_eq!(
        offset_of(
            &[5, 3],
            Layout::new([0, 1]).with_tiles([t(&[2, 2])]),
            &[3, 2]
        ),
        17
    );
}

// `docs/semantics.md`, *Repeated tiles*: the whole 4×8 offset table of T(2,4)(2,1).
#[test]
fn tiling_6_1_full_table() {
    let values: Vec<i32> = (0..32).collect();
    let l = Literal::from_slice(&[4, 8], &values).unwrap();
    let tiled = l
        .relayout(&Layout::new([1, 0]).with_tiles([Tile::new([2, 4]), Tile::new([2, 1])]))
        .unwrap();
    #[rustfmt::skip]
    let offsets = [
        0, 2, 4, 6, 8, 10, 12, 14,
        1, 3, 5, 7, 9, 11, 13, 15,
        16, 18, 20, 22, 24, 26, 28, 30,
        17, 19, 21, 23, 25, 27, 29, 31,
    ];
    let buffer = tiled.data::<i32>().unwrap();
    for (element, &offset) in offsets.iter().enumerate() {
        assert_eq!(buffer[offset], element as i32);
    }
}

#[test]
fn padding_slots_hold_the_layout_padding_value() {
    let pad = |value| {
        Literal::vector(&[5i8, 6])
            .relayout(&Layout::new([0]).with_padding([4], value))
            .unwrap()
    };
    assert_eq!(pad(PaddingValue::Zero).data::<i8>().unwrap(), &[5, 6, 0, 0]);
    assert_eq!(
        pad(PaddingValue::Unknown).data::<i8>().unwrap(),
        &[5, 6, 0, 0]
    );
    assert_eq!(pad(PaddingValue::One).data::<i8>().unwrap(), &[5, 6, 1, 1]);
    assert_eq!(
        pad(PaddingValue::Lowest).data::<i8>().unwrap(),
        &[5, 6, -128, -128]
    );
    assert_eq!(
        pad(PaddingValue::Highest).data::<i8>().unwrap(),
        &[5, 6, 127, 127]
    );
    let floats = Literal::vector(&[1.5f32])
        .relayout(&Layout::new([0]).with_padding([2], PaddingValue::Lowest))
        .unwrap();
    assert_eq!(floats.data::<f32>().unwrap(), &[1.5, f32::NEG_INFINITY]);
    // Padding and tiling: every padding slot, tile padding included.
    let both = Literal::vector(&[true, true, true])
        .relayout(
            &Layout::new([0])
                .with_padding([3], PaddingValue::Highest)
                .with_tiles([Tile::new([2])]),
        )
        .unwrap();
    assert_eq!(both.data::<bool>().unwrap(), &[true; 4]);
    let tiles_only = Literal::vector(&[7u16, 8, 9])
        .relayout(&Layout::new([0]).with_tiles([Tile::new([4])]))
        .unwrap();
    assert_eq!(tiles_only.data::<u16>().unwrap(), &[7, 8, 9, 0]);
}

#[test]
fn relayout_errors() {
    let l = abc_def();
    assert_eq!(
        l.relayout(&Layout::new([0])).unwrap_err().to_string(),
        "layout {0} has 1 entries in minor_to_major but the array has rank 2"
    );
    assert_eq!(
        Literal::token()
            .relayout(&Layout::new([]))
            .unwrap_err()
            .to_string(),
        "expected an array literal, found one of shape token[]"
    );
}

#[test]
fn pred_buffers_hold_only_zero_and_one() {
    let mut l = Literal::vector(&[true, false, true]);
    l.bytes_mut().unwrap()[1] = 2;
    assert_eq!(
        l.data::<bool>().unwrap_err().to_string(),
        "literal of shape pred[3]{0}: buffer byte 1 holds 2, but pred elements hold 0 or 1"
    );
    assert!(matches!(
        l.data_mut::<bool>(),
        Err(LiteralError::InvalidPred { .. })
    ));
    // Element reads never materialise an invalid bool.
    assert!(l.get::<bool>(&[1]).unwrap());
    assert_eq!(l.to_vec::<bool>().unwrap(), [true, true, true]);
    let shape = l.array_shape().unwrap().clone();
    let storage =
        xla_core::literal::Storage::Owned(xla_core::literal::AlignedBytes::copy_from(&[0, 1, 255]));
    assert_eq!(
        Literal::from_storage(shape, storage)
            .unwrap_err()
            .to_string(),
        "literal of shape pred[3]{0}: buffer byte 2 holds 255, but pred elements hold 0 or 1"
    );
}

#[test]
fn approx_comparison() {
    let tol = Tolerance::new(1e-6, 1e-6);
    let e = Literal::matrix(&[[1.0f32, f32::NAN, f32::INFINITY], [0.0, -0.0, 1.5]]);
    let a = Literal::matrix(&[[1.0000005f32, f32::NAN, f32::INFINITY], [-0.0, 0.0, 1.5]]);
    assert!(e.approx_eq(&a, tol));
    assert!(!e.approx_eq(&a, Tolerance::EXACT));
    // Layouts are ignored; values compare in logical order.
    assert!(e.approx_eq(&a.relayout(&Layout::new([0, 1])).unwrap(), tol));
    let b = Literal::matrix(&[[1.0f32, f32::NAN, f32::NEG_INFINITY], [0.0, 0.0, 1.25]]);
    assert_eq!(
        e.check_close(&b, tol).unwrap_err().to_string(),
        "first mismatch at index [0,2]: expected inf, got -inf (2 of 6 elements differ)"
    );
    let ints = Literal::vector(&[1i32, 2, 3]);
    assert_eq!(
        ints.check_close(&Literal::vector(&[1i32, 2, 4]), Tolerance::new(10.0, 10.0))
            .unwrap_err()
            .to_string(),
        "first mismatch at index [2]: expected 3, got 4 (1 of 3 elements differ)"
    );
    assert_eq!(
        ints.check_close(&Literal::vector(&[1i64, 2, 3]), tol)
            .unwrap_err()
            .to_string(),
        "shape mismatch: expected s32[3]{0}, got s64[3]{0}"
    );
    let c = Literal::vector(&[xla_core::C64::new(1.0, 2.0)]);
    let t1 = Literal::tuple(vec![Literal::scalar(true), Literal::tuple(vec![c.clone()])]);
    let t2 = Literal::tuple(vec![
        Literal::scalar(true),
        Literal::tuple(vec![Literal::vector(&[xla_core::C64::new(1.0, 2.5)])]),
    ]);
    assert_eq!(
        t1.check_close(&t2, tol).unwrap_err().to_string(),
        "in tuple element {1, 0}: first mismatch at index [0]: expected (1, 2), got (1, 2.5) (1 of 1 elements differ)"
    );
    assert!(t1.approx_eq(&t1.clone(), Tolerance::EXACT));
    let h = Literal::vector(&[half::f16::from_f32(0.1)]);
    assert_eq!(
        h.check_close(&Literal::vector(&[half::f16::from_f32(0.2)]), tol)
            .unwrap_err()
            .to_string(),
        "first mismatch at index [0]: expected 0.1, got 0.2 (1 of 1 elements differ)"
    );
    let shape: Shape = "pred[0]".parse().unwrap();
    let empty = Literal::zeros(&shape).unwrap();
    assert!(empty.approx_eq(&Literal::vector::<bool>(&[]), Tolerance::EXACT));
    assert_eq!(empty.element_type(), Some(PrimitiveType::Pred));
}

/// A relayout into tiles that pad the buffer beyond any address space is an
/// error, not an abort (found by fuzzing).
#[test]
fn relayout_beyond_memory_is_an_error() {
    let v = Literal::vector(&[1.5f32; 31]);
    let tiled = Layout::new([0]).with_tiles([Tile::new([4]), Tile::new([2, 1 << 45])]);
    assert_eq!(
        v.relayout(&tiled).unwrap_err(),
        LiteralError::OutOfMemory {
            shape: "f32[31]{0:T(4)(2,35184372088832)}".into(),
            bytes: 1 << 50,
        }
    );
    let overflowing = Layout::new([0]).with_tiles([Tile::new([1 << 62])]);
    assert_eq!(
        v.relayout(&overflowing).unwrap_err().to_string(),
        "layout {0:T(4611686018427387904)}: the buffer size overflows"
    );
}
