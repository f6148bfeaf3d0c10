//! Packing against a reference layout: every format, edge, window and
//! element type.

use super::*;

/// The edge packing of a strided block.
unsafe fn edge(
    src: Strided<*const f32>,
    height: usize,
    kc: usize,
    mr: usize,
    copies: usize,
    out: &mut [f32],
) {
    let (row, col) = (|i: usize| src.ptr.add(i * src.rs), |p: usize| p * src.cs);
    pack_a_edge(row, col, (height, kc), (mr, copies), out);
}

fn strided(data: &[f32], rs: usize, cs: usize) -> Strided<*const f32> {
    Strided {
        ptr: data.as_ptr(),
        rs,
        cs,
    }
}

#[test]
fn packs_a_as_in_the_worked_example() {
    // [[1,2],[3,4],[5,6]] row-major; MR = 2, no copies.
    let a = [1.0, 2.0, 3.0, 4.0, 5.0, 6.0];
    let mut dst = [f32::NAN; 8];
    unsafe { pack_a(strided(&a, 2, 1), 3, 2, 2, 1, &mut dst) };
    assert_eq!(dst, [1.0, 3.0, 2.0, 4.0, 5.0, 0.0, 6.0, 0.0]);
    // The same block read from column-major storage, with 2 copies.
    let a_t = [1.0, 3.0, 5.0, 2.0, 4.0, 6.0];
    let mut dst = [f32::NAN; 16];
    unsafe { pack_a(strided(&a_t, 1, 3), 3, 2, 2, 2, &mut dst) };
    let expected = [
        1., 1., 3., 3., 2., 2., 4., 4., 5., 5., 0., 0., 6., 6., 0., 0.,
    ];
    assert_eq!(dst, expected);
}

#[test]
fn packs_full_panels_like_edge_panels() {
    let a: Vec<f32> = (0..7 * 5).map(|x| x as f32).collect();
    for (rs, cs) in [(5, 1), (1, 7)] {
        let mut fast = vec![f32::NAN; 2 * 5 * 6 * 4];
        let mut slow = fast.clone();
        unsafe {
            pack_a(strided(&a, rs, cs), 7, 5, 6, 4, &mut fast);
            edge(strided(&a, rs, cs), 6, 5, 6, 4, &mut slow[..120]);
            edge(strided(&a, rs, cs).at(6, 0), 1, 5, 6, 4, &mut slow[120..]);
        }
        assert_eq!(fast, slow);
    }
}

/// The 14-row f32 panel, transposed in registers where 16 columns are
/// contiguous, packs as the generic code does: columns in runs of 40
/// (a convolution's taps of 40 features: blocks of 16 and single
/// columns at each run's end), a block cut short at the end; and
/// columns whose offsets step out and back inside a block (its ends 15
/// apart, its middle not contiguous).
#[test]
fn panels_of_14_transpose_like_single_elements() {
    let (run, gap, kc) = (40, 7, 117);
    let a: Vec<f32> = (0..14 * 200).map(|x| x as f32).collect();
    let runs = |p: usize| p / run * (run + gap) + p % run;
    let detour = |p: usize| if p % 40 == 5 { 190 + p / 40 } else { p };
    let row = |i: usize| unsafe { a.as_ptr().add(i * 200) };
    for col in [&runs as &dyn Fn(usize) -> usize, &detour] {
        let mut fast = vec![f32::NAN; 14 * kc];
        let mut slow = fast.clone();
        unsafe { pack_a_panels(row, col, 14, kc, (14, 1), &mut fast) };
        unsafe { pack_a_panel::<f32, f32, 14, 1>(row, col, kc, &mut slow) };
        assert_eq!(fast, slow);
    }
}

/// Every full-panel shape the kernels use packs as the generic edge
/// code does, from row- and column-major storage.
#[test]
fn specialized_panels_pack_like_edge_panels() {
    let (rows, cols) = (29, 70);
    let a: Vec<f32> = (0..rows * cols).map(|x| x as f32).collect();
    for (rs, cs) in [(cols, 1), (1, rows)] {
        for (mr, copies) in [(6, 4), (6, 2), (6, 1), (14, 1)] {
            let (height, kc) = (2 * mr, 9);
            let mut fast = vec![f32::NAN; height * kc * copies];
            let mut slow = fast.clone();
            let src = strided(&a, rs, cs);
            unsafe {
                pack_a(src, height, kc, mr, copies, &mut fast);
                for (panel, out) in slow.chunks_exact_mut(kc * mr * copies).enumerate() {
                    edge(src.at(panel * mr, 0), mr, kc, mr, copies, out);
                }
            }
            assert_eq!(fast, slow, "A {mr}×{copies} ({rs}, {cs})");
        }
        for nr in [4, 8, 16, 32] {
            let (kc, width) = (7, 2 * nr);
            let mut fast = vec![f32::NAN; kc * width];
            let mut slow = fast.clone();
            let src = strided(&a, rs, cs);
            unsafe {
                pack_b(src, kc, width, nr, &mut fast);
                for (panel, out) in slow.chunks_exact_mut(kc * nr).enumerate() {
                    pack_b_edge(src.at(0, panel * nr), nr, kc, nr, out);
                }
            }
            assert_eq!(fast, slow, "B {nr} ({rs}, {cs})");
        }
    }
}

/// A window view whose dimensions nest (rows `(4, 8)` and columns `(3,
/// 4)` of a row-major `32×12` matrix) packs as the strided block does,
/// for every panel shape.
#[test]
fn windows_pack_like_strided_blocks() {
    let (rows, cols) = (32, 12);
    let a: Vec<f32> = (0..rows * cols).map(|x| x as f32).collect();
    let window_rows = WindowDims::new(&[(4, 8 * cols), (8, cols)]).unwrap();
    let window_cols = WindowDims::new(&[(3, 4), (4, 1)]).unwrap();
    let mut offsets = Vec::new();
    for (mr, copies) in [(14, 1), (6, 4), (6, 2), (6, 1), (5, 1)] {
        for (row0, height, col0, kc) in [(0usize, 28usize, 0usize, 12usize), (3, 17, 2, 7)] {
            let len = height.div_ceil(mr) * mr * kc * copies;
            let (mut by_strides, mut by_window) = (vec![f32::NAN; len], vec![f32::NAN; len]);
            unsafe {
                pack_a(
                    strided(&a, cols, 1).at(row0, col0),
                    height,
                    kc,
                    mr,
                    copies,
                    &mut by_strides,
                );
                pack_a_window(
                    a.as_ptr(),
                    (&window_rows, &window_cols),
                    (row0, height),
                    (col0, kc),
                    mr,
                    copies,
                    &mut by_window,
                    &mut offsets,
                );
            }
            assert_eq!(by_strides, by_window, "{mr}×{copies} at ({row0}, {col0})");
        }
    }
}

/// Pair panels: `A`'s rows and `B`'s columns hold pairs of
/// consecutive `k`, zero-padded past the block and an odd `kc`.
#[test]
fn packs_bf16_pairs() {
    let b16 = |x: f32| bf16::from_f32(x);
    let halves = |x: f32| {
        let bits = x.to_bits();
        (
            bf16::from_bits(bits as u16).to_f32(),
            bf16::from_bits((bits >> 16) as u16).to_f32(),
        )
    };
    // A = [[1,2,3],[4,5,6]] row-major; MR = 3, kc = 3.
    let a: Vec<bf16> = [1., 2., 3., 4., 5., 6.].map(b16).to_vec();
    let mut dst = [f32::NAN; 6];
    let src = Strided {
        ptr: a.as_ptr(),
        rs: 3,
        cs: 1,
    };
    unsafe { pack_a_pairs(src, 2, 3, 3, &mut dst) };
    let got: Vec<(f32, f32)> = dst.iter().map(|&x| halves(x)).collect();
    assert_eq!(
        got,
        [(1., 2.), (4., 5.), (0., 0.), (3., 0.), (6., 0.), (0., 0.)]
    );
    // B = the same values as a 3×2 matrix [[1,2],[3,4],[5,6]]; NR = 4.
    let mut dst = [f32::NAN; 8];
    let src = Strided {
        ptr: a.as_ptr(),
        rs: 2,
        cs: 1,
    };
    unsafe { pack_b_pairs(src, 3, 2, 4, &mut dst) };
    let got: Vec<(f32, f32)> = dst.iter().map(|&x| halves(x)).collect();
    assert_eq!(
        got,
        [
            (1., 3.),
            (2., 4.),
            (0., 0.),
            (0., 0.),
            (5., 0.),
            (6., 0.),
            (0., 0.),
            (0., 0.)
        ]
    );
    // The row- and column-contiguous full panels (14 rows, 32 and 16
    // columns) pack as the same block read through other strides.
    let (rows, cols) = (30, 67);
    let m: Vec<bf16> = (0..rows * cols).map(|x| b16(x as f32)).collect();
    let t: Vec<bf16> = (0..rows * cols)
        .map(|x| m[(x % rows) * cols + x / rows])
        .collect();
    let row_major = Strided {
        ptr: m.as_ptr(),
        rs: cols,
        cs: 1,
    };
    let col_major = Strided {
        ptr: t.as_ptr(),
        rs: 1,
        cs: rows,
    };
    let bits = |v: &[f32]| v.iter().map(|x| x.to_bits()).collect::<Vec<_>>();
    for kc in [8, 9] {
        let (mut fast, mut slow) = (vec![0.0; 3 * 14 * 5], vec![0.0; 3 * 14 * 5]);
        unsafe {
            pack_a_pairs(row_major, 29, kc, 14, &mut fast);
            pack_a_pairs(col_major, 29, kc, 14, &mut slow);
        }
        assert_eq!(bits(&fast), bits(&slow), "A, kc {kc}");
        for nr in [16, 32] {
            let len = cols.div_ceil(nr) * nr * 5;
            let (mut fast, mut slow) = (vec![0.0; len], vec![0.0; len]);
            unsafe {
                pack_b_pairs(row_major, kc, cols, nr, &mut fast);
                pack_b_pairs(col_major, kc, cols, nr, &mut slow);
            }
            assert_eq!(bits(&fast), bits(&slow), "B {nr}, kc {kc}");
        }
    }
}

#[test]
fn packs_b_as_in_the_worked_example() {
    // [[1,2,3],[4,5,6]] row-major; NR = 2.
    let b = [1.0, 2.0, 3.0, 4.0, 5.0, 6.0];
    let mut dst = [f32::NAN; 8];
    unsafe { pack_b(strided(&b, 3, 1), 2, 3, 2, &mut dst) };
    assert_eq!(dst, [1.0, 2.0, 4.0, 5.0, 3.0, 0.0, 6.0, 0.0]);
    // 8-wide panels from row-major and column-major storage agree.
    let b: Vec<f32> = (0..3 * 9).map(|x| x as f32).collect();
    let b_t: Vec<f32> = (0..9 * 3).map(|x| ((x % 3) * 9 + x / 3) as f32).collect();
    let (mut row, mut col) = (vec![0.0; 48], vec![0.0; 48]);
    unsafe {
        pack_b(strided(&b, 9, 1), 3, 9, 8, &mut row);
        pack_b(strided(&b_t, 1, 3), 3, 9, 8, &mut col);
    }
    assert_eq!(row, col);
    assert_eq!(&row[..8], &[0.0, 1.0, 2.0, 3.0, 4.0, 5.0, 6.0, 7.0]);
    assert_eq!(&row[24..27], &[8.0, 0.0, 0.0]);
}

#[test]
fn widens_half_precision() {
    let a = [f16::from_f32(1.5), f16::from_f32(-2.0)];
    let mut dst = [0f32; 2];
    unsafe {
        pack_b(
            Strided {
                ptr: a.as_ptr(),
                rs: 2,
                cs: 1,
            },
            1,
            2,
            2,
            &mut dst,
        )
    };
    assert_eq!(dst, [1.5, -2.0]);
}
