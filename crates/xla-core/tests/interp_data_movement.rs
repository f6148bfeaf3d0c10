//! The interpreter's data-movement ops: broadcast, reshape, transpose,
//! reverse, slice, concatenate, pad, iota, copy and bitcast (`docs/semantics.md`,
//! *Pad*, *Data movement*, *Broadcasting*), with the worked examples and non-default layouts.

use crate::interp_common;

use interp_common::*;
use xla_core::layout::{Layout, Tile};
use xla_core::Literal;

/// `v = f32[4,2,3]` of `docs/semantics.md`, *Reshape*.
fn v() -> Literal {
    let values: Vec<f32> = [10, 20, 30, 40]
        .iter()
        .flat_map(|&base| [0, 5].map(|row| (0..3).map(move |c| (base + row + c) as f32)))
        .flatten()
        .collect();
    Literal::from_vec(&[4, 2, 3], values).unwrap()
}

fn f32s(l: &Literal) -> Vec<f32> {
    l.to_vec::<f32>().unwrap()
}

fn i32s(l: &Literal) -> Vec<i32> {
    l.to_vec::<i32>().unwrap()
}

#[test]
fn broadcast_in_dim() {
    // `docs/semantics.md`, *InDim broadcasting*: X + v with v along dimension 1, then dimension 0.
    let x = Literal::matrix(&[[1i32, 2, 3], [4, 5, 6], [7, 8, 9]]);
    let vec = Literal::vector(&[7i32, 8, 9]);
    let body = |d: usize| {
        format!(
            "x = s32[3,3] parameter(0)\nv = s32[3] parameter(1)\n\
             b = s32[3,3] broadcast(v), dimensions={{{d}}}\nr = s32[3,3] add(x, b)"
        )
    };
    assert_eq!(
        i32s(&run(&body(1), &[&x, &vec])),
        [8, 10, 12, 11, 13, 15, 14, 16, 18]
    );
    assert_eq!(
        i32s(&run(&body(0), &[&x, &vec])),
        [8, 9, 10, 12, 13, 14, 16, 17, 18]
    );
    // A scalar, and a size-1 dimension repeated.
    let r = run(
        "s = f32[] parameter(0)\nr = f32[2,2] broadcast(s), dimensions={}",
        &[&Literal::scalar(2.5f32)],
    );
    assert_eq!(f32s(&r), [2.5; 4]);
    let col = Literal::from_vec(&[2, 1], vec![1i32, 2]).unwrap();
    let r = run(
        "c = s32[2,1] parameter(0)\nr = s32[2,4,1] broadcast(c), dimensions={0,2}",
        &[&col],
    );
    assert_eq!(i32s(&r), [[1; 4], [2; 4]].concat());
    // Cuboid (2,3,4) + matrix (3,4) along dimensions (1,2).
    let m: Vec<i32> = (0..12).collect();
    let r = run(
        "m = s32[3,4] parameter(0)\nr = s32[2,3,4] broadcast(m), dimensions={1,2}",
        &[&Literal::from_vec(&[3, 4], m.clone()).unwrap()],
    );
    assert_eq!(i32s(&r), [m.clone(), m].concat());
}

#[test]
fn reshape_and_collapse_examples() {
    // `docs/semantics.md`, *Reshape*, *Collapse*: Reshape(v, {0,1,2}, …) is a row-major refill.
    let all: Vec<f32> = f32s(&v());
    let r = run(
        "v = f32[4,2,3] parameter(0)\nr = f32[24] reshape(v)",
        &[&v()],
    );
    assert_eq!(f32s(&r), all);
    let r = run(
        "v = f32[4,2,3] parameter(0)\nr = f32[8,3] reshape(v)",
        &[&v()],
    );
    assert_eq!(f32s(&r), all);
    let r = run(
        "v = f32[4,2,3] parameter(0)\nr = f32[4,6] reshape(v)",
        &[&v()],
    );
    assert_eq!(f32s(&r), all);
    // Reshape(v, {1,2,0}, …) = Reshape(Transpose(v, {1,2,0}), …).
    let expected = [
        10, 20, 30, 40, 11, 21, 31, 41, 12, 22, 32, 42, 15, 25, 35, 45, 16, 26, 36, 46, 17, 27, 37,
        47,
    ]
    .map(|x| x as f32);
    for dims in ["24", "8,3", "2,6,2"] {
        let body = format!(
            "v = f32[4,2,3] parameter(0)\nt = f32[2,3,4] transpose(v), dimensions={{1,2,0}}\nr = f32[{dims}] reshape(t)"
        );
        assert_eq!(f32s(&run(&body, &[&v()])), expected, "{dims}");
    }
    let one = Literal::from_vec(&[1, 1], vec![5.0f32]).unwrap();
    let r = run("x = f32[1,1] parameter(0)\nr = f32[] reshape(x)", &[&one]);
    assert_eq!(r.shape().to_string(), "f32[]");
    assert_eq!(f32s(&r), [5.0]);
    let r = run(
        "x = f32[] parameter(0)\nr = f32[1,1] reshape(x)",
        &[&Literal::scalar(5.0f32)],
    );
    assert_eq!(r, one);
    // A column-major operand is reshaped by its logical order.
    let col = Literal::matrix(&[[1i32, 2, 3], [4, 5, 6]])
        .relayout(&Layout::new([0, 1]))
        .unwrap();
    let r = run(
        "x = s32[2,3]{0,1} parameter(0)\nr = s32[3,2] reshape(x)",
        &[&col],
    );
    assert_eq!(i32s(&r), [1, 2, 3, 4, 5, 6]);
}

#[test]
fn transpose_examples() {
    let m = Literal::matrix(&[[1i32, 2, 3], [4, 5, 6]]);
    let r = run(
        "x = s32[2,3] parameter(0)\nr = s32[3,2] transpose(x), dimensions={1,0}",
        &[&m],
    );
    assert_eq!(i32s(&r), [1, 4, 2, 5, 3, 6]);
    let r = run(
        "x = f32[4,2,3] parameter(0)\nr = f32[3,4,2] transpose(x), dimensions={2,0,1}",
        &[&v()],
    );
    assert_eq!(r.shape().to_string(), "f32[3,4,2]{2,1,0}");
    assert_eq!(r.get::<f32>(&[2, 3, 1]).unwrap(), 47.0);
    assert_eq!(r.get::<f32>(&[1, 0, 1]).unwrap(), 16.0);
    // Column-major and tiled operands.
    let col = m.relayout(&Layout::new([0, 1])).unwrap();
    let r = run(
        "x = s32[2,3]{0,1} parameter(0)\nr = s32[3,2] transpose(x), dimensions={1,0}",
        &[&col],
    );
    assert_eq!(i32s(&r), [1, 4, 2, 5, 3, 6]);
    let tiled = m
        .relayout(&Layout::new([1, 0]).with_tiles([Tile::new([2, 2])]))
        .unwrap();
    let r = run(
        "x = s32[2,3]{1,0:T(2,2)} parameter(0)\nr = s32[3,2] transpose(x), dimensions={1,0}",
        &[&tiled],
    );
    assert_eq!(i32s(&r), [1, 4, 2, 5, 3, 6]);
}

#[test]
fn reverse_examples() {
    let m = Literal::matrix(&[[1i32, 2, 3], [4, 5, 6]]);
    let r = run(
        "x = s32[2,3] parameter(0)\nr = s32[2,3] reverse(x), dimensions={1}",
        &[&m],
    );
    assert_eq!(i32s(&r), [3, 2, 1, 6, 5, 4]);
    let r = run(
        "x = s32[2,3] parameter(0)\nr = s32[2,3] reverse(x), dimensions={0,1}",
        &[&m],
    );
    assert_eq!(i32s(&r), [6, 5, 4, 3, 2, 1]);
    let r = run(
        "x = s32[2,3] parameter(0)\nr = s32[2,3] reverse(x), dimensions={}",
        &[&m],
    );
    assert_eq!(i32s(&r), [1, 2, 3, 4, 5, 6]);
}

#[test]
fn slice_examples() {
    let a = Literal::vector(&[0i32, 1, 2, 3, 4]);
    let b = Literal::from_vec(&[4, 3], (0..12).collect::<Vec<i32>>()).unwrap();
    assert_eq!(
        i32s(&run(
            "a = s32[5] parameter(0)\nr = s32[2] slice(a), slice={[2:4]}",
            &[&a]
        )),
        [2, 3]
    );
    let r = run(
        "b = s32[4,3] parameter(0)\nr = s32[2,2] slice(b), slice={[2:4], [1:3]}",
        &[&b],
    );
    assert_eq!(i32s(&r), [7, 8, 10, 11]);
    let r = run(
        "b = s32[4,3] parameter(0)\nr = s32[2,2] slice(b), slice={[0:4:2], [0:3:2]}",
        &[&b],
    );
    assert_eq!(i32s(&r), [0, 2, 6, 8]);
    assert_eq!(
        i32s(&run(
            "a = s32[5] parameter(0)\nr = s32[2] slice(a), slice={[1:5:3]}",
            &[&a]
        )),
        [1, 4]
    );
    let r = run(
        "a = s32[5] parameter(0)\nr = s32[0] slice(a), slice={[3:3]}",
        &[&a],
    );
    assert_eq!(i32s(&r), Vec::<i32>::new());
}

#[test]
fn concatenate_examples() {
    let body = "a = s32[2] parameter(0)\nb = s32[2] parameter(1)\nc = s32[2] parameter(2)\nr = s32[6] concatenate(a, b, c), dimensions={0}";
    let r = run(
        body,
        &[
            &Literal::vector(&[2i32, 3]),
            &Literal::vector(&[4i32, 5]),
            &Literal::vector(&[6i32, 7]),
        ],
    );
    assert_eq!(i32s(&r), [2, 3, 4, 5, 6, 7]);
    let a = Literal::matrix(&[[1i32, 2], [3, 4], [5, 6]]);
    let b = Literal::matrix(&[[7i32, 8]]);
    let r = run("a = s32[3,2] parameter(0)\nb = s32[1,2] parameter(1)\nr = s32[4,2] concatenate(a, b), dimensions={0}", &[&a, &b]);
    assert_eq!(i32s(&r), [1, 2, 3, 4, 5, 6, 7, 8]);
    let a = Literal::matrix(&[[1i32, 2], [3, 4]]);
    let b = Literal::matrix(&[[9i32], [8]])
        .relayout(&Layout::new([0, 1]))
        .unwrap();
    let r = run("a = s32[2,2] parameter(0)\nb = s32[2,1]{0,1} parameter(1)\nr = s32[2,3] concatenate(a, b), dimensions={1}", &[&a, &b]);
    assert_eq!(i32s(&r), [1, 2, 9, 3, 4, 8]);
}

#[test]
fn pad_examples() {
    // `docs/semantics.md`, *Pad*.
    let a = Literal::vector(&[1i32, 2, 3]);
    let pad = |config: &str, value: i32, n: usize| {
        let body = format!("a = s32[3] parameter(0)\np = s32[] parameter(1)\nr = s32[{n}] pad(a, p), padding={config}");
        i32s(&run(&body, &[&a, &Literal::scalar(value)]))
    };
    assert_eq!(pad("2_1_0", 0, 6), [0, 0, 1, 2, 3, 0]);
    assert_eq!(pad("0_0_2", 0, 7), [1, 0, 0, 2, 0, 0, 3]);
    assert_eq!(pad("-1_-1_1", 9, 3), [9, 2, 9]);
    assert_eq!(pad("0_0_0", 9, 3), [1, 2, 3]);
    assert_eq!(pad("-3_0_0", 9, 0), Vec::<i32>::new());
    let m = Literal::matrix(&[[1i32, 2], [3, 4]]);
    let body = "a = s32[2,2] parameter(0)\np = s32[] parameter(1)\nr = s32[4,4] pad(a, p), padding=1_0_1x-1_2_1";
    assert_eq!(
        i32s(&run(body, &[&m, &Literal::scalar(0i32)])),
        [0, 0, 0, 0, 0, 2, 0, 0, 0, 0, 0, 0, 0, 4, 0, 0]
    );
    let m = Literal::matrix(&[[1i32, 2, 3], [4, 5, 6]]);
    let body = "a = s32[2,3] parameter(0)\np = s32[] parameter(1)\nr = s32[3,6] pad(a, p), padding=1_0_0x0_1_1";
    assert_eq!(
        i32s(&run(body, &[&m, &Literal::scalar(0i32)])),
        [0, 0, 0, 0, 0, 0, 1, 0, 2, 0, 3, 0, 4, 0, 5, 0, 6, 0]
    );
    // Padding keeps bit patterns of the value (a NaN payload here).
    let nan = f32::from_bits(0x7FC0_0123);
    let body =
        "a = f32[1] parameter(0)\np = f32[] parameter(1)\nr = f32[2] pad(a, p), padding=1_0_0";
    let r = run(body, &[&Literal::vector(&[1.0f32]), &Literal::scalar(nan)]);
    assert_eq!(bits32(&f32s(&r)), [0x7FC0_0123, 1f32.to_bits()]);
}

#[test]
fn iota_examples() {
    let r = run("r = s32[4,8] iota(), iota_dimension=0", &[]);
    assert_eq!(i32s(&r), (0..4).flat_map(|i| [i; 8]).collect::<Vec<_>>());
    let r = run("r = s32[4,8] iota(), iota_dimension=1", &[]);
    assert_eq!(i32s(&r), (0..4).flat_map(|_| 0..8).collect::<Vec<_>>());
    // A float iota is the conversion of the integer iota (rounded above 2^24).
    let r = run("r = f32[3] iota(), iota_dimension=0", &[]);
    assert_eq!(f32s(&r), [0.0, 1.0, 2.0]);
    let r = run("r = u8[300] iota(), iota_dimension=0", &[]);
    assert_eq!(r.get::<u8>(&[299]).unwrap(), 43);
    let r = run("r = bf16[300] iota(), iota_dimension=0", &[]);
    assert_eq!(r.get::<half::bf16>(&[257]).unwrap().to_f32(), 256.0);
}

#[test]
fn copy_changes_the_layout_only() {
    let m = Literal::matrix(&[[1i32, 2, 3], [4, 5, 6]]);
    let r = run(
        "x = s32[2,3]{1,0} parameter(0)\nr = s32[2,3]{0,1} copy(x)",
        &[&m],
    );
    assert_eq!(r.data::<i32>().unwrap(), [1, 4, 2, 5, 3, 6]);
    assert_eq!(i32s(&r), [1, 2, 3, 4, 5, 6]);
}

#[test]
fn bitcast_reinterprets_the_buffer_under_the_result_layout() {
    // [[1,2,3],[4,5,6]] row-major as f32[3,2]{0,1}: element (i,j) at i + 3j.
    let m = Literal::matrix(&[[1i32, 2, 3], [4, 5, 6]]);
    let r = run(
        "x = s32[2,3]{1,0} parameter(0)\nr = s32[3,2]{0,1} bitcast(x)",
        &[&m],
    );
    assert_eq!(i32s(&r), [1, 4, 2, 5, 3, 6]);
    let r = run(
        "x = s32[2,3]{1,0} parameter(0)\nr = s32[6]{0} bitcast(x)",
        &[&m],
    );
    assert_eq!(i32s(&r), [1, 2, 3, 4, 5, 6]);
    // The operand is first given its declared layout.
    let r = run(
        "x = s32[2,3]{0,1} parameter(0)\nr = s32[6]{0} bitcast(x)",
        &[&m],
    );
    assert_eq!(i32s(&r), [1, 4, 2, 5, 3, 6]);
}

#[test]
fn empty_and_rank_zero() {
    let e = Literal::from_vec::<i32>(&[2, 0], vec![]).unwrap();
    let r = run(
        "x = s32[2,0] parameter(0)\nr = s32[0,2] transpose(x), dimensions={1,0}",
        &[&e],
    );
    assert_eq!(r.shape().to_string(), "s32[0,2]{1,0}");
    let r = run(
        "x = s32[2,0] parameter(0)\nr = s32[2,0,3] broadcast(x), dimensions={0,1}",
        &[&e],
    );
    assert_eq!(i32s(&r), Vec::<i32>::new());
    let body = "x = s32[2,0] parameter(0)\np = s32[] parameter(1)\nr = s32[2,2] pad(x, p), padding=0_0_0x1_1_3";
    assert_eq!(
        i32s(&run(body, &[&e, &Literal::scalar(7i32)])),
        [7, 7, 7, 7]
    );
    let r = run(
        "x = s32[] parameter(0)\nr = s32[] reverse(x), dimensions={}",
        &[&Literal::scalar(3i32)],
    );
    assert_eq!(i32s(&r), [3]);
}
