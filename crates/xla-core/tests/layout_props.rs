//! Property tests over random shapes, layouts (any minor_to_major), padding
//! and tilings (one or two levels, with `*`): shape text round-trips,
//! relayout there and back is the identity, and `IndexMap` is a bijection
//! between logical indices and the non-padding buffer slots.

use proptest::prelude::*;
use xla_core::layout::{IndexMap, Layout, Padding, PaddingValue, Tile, COMBINE_DIM};
use xla_core::literal::{AlignedBytes, Storage};
use xla_core::{ArrayShape, Literal, PrimitiveType, Shape};

fn element_type() -> impl Strategy<Value = PrimitiveType> {
    prop::sample::select(PrimitiveType::ALL.to_vec())
}

fn padding_value() -> impl Strategy<Value = PaddingValue> {
    prop::sample::select(vec![
        PaddingValue::Unknown,
        PaddingValue::Zero,
        PaddingValue::One,
        PaddingValue::Lowest,
        PaddingValue::Highest,
    ])
}

/// One tile over `rank` dimensions: 1…rank entries, each 1…4 or `*`, the
/// last never `*`.
fn tile(rank: usize) -> impl Strategy<Value = Tile> {
    (1..=rank)
        .prop_flat_map(|k| {
            prop::collection::vec(prop_oneof![3 => 1i64..=4, 1 => Just(COMBINE_DIM)], k)
        })
        .prop_map(|mut dims| {
            let last = dims.len() - 1;
            if dims[last] == COMBINE_DIM {
                dims[last] = 2;
            }
            Tile::new(dims)
        })
}

/// Zero, one or two tiles; the second applies to what the first produced.
fn tiles(rank: usize) -> BoxedStrategy<Vec<Tile>> {
    if rank == 0 {
        return Just(Vec::new()).boxed();
    }
    let two = tile(rank).prop_flat_map(move |first| {
        let sized = first.dims.iter().filter(|&&d| d != COMBINE_DIM).count();
        let out_rank = rank - first.dims.len() + 2 * sized;
        tile(out_rank).prop_map(move |second| vec![first.clone(), second])
    });
    prop_oneof![Just(Vec::new()), tile(rank).prop_map(|t| vec![t]), two].boxed()
}

/// Dimension sizes and a valid layout for them.
fn dims_and_layout() -> impl Strategy<Value = (Vec<i64>, Layout)> {
    prop::collection::vec(0i64..=5, 0..=4).prop_flat_map(|dims| {
        let rank = dims.len();
        let order = Just((0..rank as i64).collect::<Vec<_>>()).prop_shuffle();
        let padding = prop::option::of((prop::collection::vec(0i64..=2, rank), padding_value()));
        (Just(dims), order, padding, tiles(rank), 0i64..3).prop_map(
            |(dims, minor_to_major, padding, tiles, memory_space)| {
                let mut layout = Layout::new(minor_to_major).with_tiles(tiles);
                layout.memory_space = memory_space;
                layout.padding = padding.map(|(extra, value)| Padding {
                    dims: dims.iter().zip(extra).map(|(d, e)| d + e).collect(),
                    value,
                });
                (dims, layout)
            },
        )
    })
}

/// A literal of random contents (pred: 0 or 1) in the default layout.
fn literal(ty: PrimitiveType, dims: &[i64], seed: u64) -> Literal {
    let shape = ArrayShape::new(ty, dims.to_vec()).with_default_layout();
    let len = shape.byte_size().unwrap() as usize;
    let mut state = seed;
    let bytes: Vec<u8> = (0..len)
        .map(|_| {
            state = state
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            let b = (state >> 40) as u8;
            if ty.is_pred() {
                b & 1
            } else {
                b
            }
        })
        .collect();
    Literal::from_storage(shape, Storage::Owned(AlignedBytes::copy_from(&bytes))).unwrap()
}

/// One element of `ty` holding a padding value, as bytes.
fn padding_bytes(ty: PrimitiveType, value: PaddingValue) -> Vec<u8> {
    let element = match value {
        PaddingValue::Unknown | PaddingValue::Zero => Literal::scalar(false),
        PaddingValue::One => Literal::scalar(true),
        PaddingValue::Lowest if ty.is_pred() => Literal::scalar(false),
        PaddingValue::Highest if ty.is_pred() => Literal::scalar(true),
        PaddingValue::Lowest => Literal::scalar(f64::NEG_INFINITY),
        PaddingValue::Highest => Literal::scalar(f64::INFINITY),
    };
    element.convert(ty).unwrap().bytes().unwrap().to_vec()
}

/// Checks `relaid` against `IndexMap` directly: every element sits at its
/// offset, every padding slot holds the padding value.
fn check_placement(
    original: &Literal,
    relaid: &Literal,
    layout: &Layout,
) -> Result<(), TestCaseError> {
    let shape = original.array_shape().unwrap();
    let map = IndexMap::new(shape.dims(), layout).unwrap();
    let size = shape.element_type().byte_size();
    let (src, dst) = (original.bytes().unwrap(), relaid.bytes().unwrap());
    let value = layout.padding.as_ref().map(|p| p.value).unwrap_or_default();
    let padding = padding_bytes(shape.element_type(), value);
    let row_major = |index: &[i64]| {
        index
            .iter()
            .zip(shape.dims())
            .fold(0, |acc, (&i, &d)| acc * d + i)
    };
    for offset in 0..map.buffer_len() {
        let slot = &dst[offset as usize * size..][..size];
        match map.multi(offset) {
            Some(index) => {
                let at = row_major(&index) as usize * size;
                prop_assert_eq!(slot, &src[at..at + size], "{:?} under {}", index, layout);
            }
            None => prop_assert_eq!(slot, &padding[..], "padding at {} under {}", offset, layout),
        }
    }
    Ok(())
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(512))]

    #[test]
    fn shape_text_round_trips(
        ty in element_type(),
        (dims, layout) in dims_and_layout(),
        dynamic in prop::collection::vec(any::<bool>(), 4),
    ) {
        let mut shape = ArrayShape::new(ty, dims.clone());
        for (d, &flag) in dynamic.iter().take(dims.len()).enumerate() {
            shape.set_dynamic_dim(d, flag);
        }
        // XLA prints a scalar's layout `{}` as nothing, so scalars carry none.
        if !dims.is_empty() {
            shape = shape.with_layout(layout);
        }
        let shape = Shape::Array(shape);
        let text = shape.to_string();
        let parsed: Shape = text.parse().map_err(|e| TestCaseError::fail(format!("{text}: {e}")))?;
        prop_assert_eq!(&parsed, &shape, "{}", text);
        prop_assert_eq!(parsed.to_string(), text);
    }

    #[test]
    fn relayout_there_and_back_is_the_identity(
        ty in element_type(),
        (dims, layout) in dims_and_layout(),
        (_, other) in dims_and_layout(),
        seed in any::<u64>(),
    ) {
        let original = literal(ty, &dims, seed);
        let relaid = original.relayout(&layout).unwrap();
        prop_assert_eq!(relaid.shape().as_array().unwrap().layout_or_default(), layout.clone());
        check_placement(&original, &relaid, &layout)?;
        let back = relaid.relayout(&Layout::default_for_rank(dims.len())).unwrap();
        prop_assert_eq!(&back, &original, "via {}", layout);
        // Through a second random layout, when it fits the rank.
        if other.rank() == dims.len() && IndexMap::new(&dims, &other).is_ok() {
            let twice = relaid.relayout(&other).unwrap();
            let back = twice.relayout(&Layout::default_for_rank(dims.len())).unwrap();
            prop_assert_eq!(&back, &original, "via {} then {}", layout, other);
        }
    }

    #[test]
    fn index_map_is_a_bijection_onto_non_padding_slots((dims, layout) in dims_and_layout()) {
        let map = IndexMap::new(&dims, &layout).unwrap();
        let elements: i64 = dims.iter().product();
        let mut hits = 0;
        for offset in 0..map.buffer_len() {
            if let Some(index) = map.multi(offset) {
                prop_assert!(index.iter().zip(&dims).all(|(&i, &d)| 0 <= i && i < d));
                prop_assert_eq!(map.linear(&index), offset, "{:?} under {}", index, layout);
                hits += 1;
            }
        }
        prop_assert_eq!(hits, elements, "{}", layout);
    }
}
