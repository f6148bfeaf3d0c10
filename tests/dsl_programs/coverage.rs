//! The documented forms no other program here uses, each run with values:
//! dilated grouped convolutions, reduce_precision, bitcasts, int8 matrix
//! products, slice_in_dim, padding by sizes, closures with branches,
//! multi-operand map, tuple state and fields, compound assignments, blocks.

use super::{backends, check, fx, lit, vals};
use xla::prelude::*;

xla! {
    /// A strided convolution with input and kernel dilation and two
    /// feature groups (NHWC, HWIO).
    pub fn conv_dilated(x: f32[1, 7, 7, 4], k: f32[3, 3, 2, 6]) -> f32[1, 3, 12, 6] {
        x.conv_general_dilated(k, [2, 1], [(1, 2), (0, 1)], [1, 2], [2, 1], "b01f_01io->b01f", 2, 1)
    }

    /// f32 rounded to f16's and bf16's precision, kept in f32.
    pub fn precisions(x: f32[N]) -> (f32[N], f32[N]) {
        (x.reduce_precision(5, 10), x.reduce_precision(8, 7))
    }

    /// An int8 matrix product accumulated in s32.
    pub fn int8_matmul(a: s8[M, K], b: s8[K, N]) -> s32[M, N] {
        a.dot_general(b, ([1], [0]), s32)
    }

    /// Bit patterns: f32 to u32 and back, and to bytes and back.
    pub fn bitcasts(x: f32[N]) -> (u32[N], u8[N, 4], f32[N]) {
        let bytes = x.bitcast_convert(u8);
        (x.bitcast_convert(u32), bytes, bytes.bitcast_convert(f32))
    }

    /// slice_in_dim, concat as a method, and padding by sizes.
    pub fn slicing(x: s32[R, C], y: s32[R, 3]) -> (s32[R, 2], s32[3 * R, C], s32[R, 2 * C], s32[R, 7]) {
        (x.slice_in_dim(0, 3, 2, 1), x.concat([x, x], 0), x.pad(0, [(0, 0), (C, 0)]),
         y.pad(-1, [(0, 0, 0), (0, 0, 2)]))
    }

    /// Closures with `let`, branches and calls; a map over two operands.
    pub fn closures(x: f32[N], y: f32[N]) -> (f32, f32[N], f32[N]) {
        let positive_sum = x.reduce(0.0, |acc, v| if v > 0.0 { acc + v } else { acc }, [0]);
        let hyp = map([x, y], |a, b| {
            let s = a * a + b * b;
            s.sqrt()
        });
        (positive_sum, hyp, x.map(|v| clip_unit(v)))
    }

    pub fn clip_unit(v: f32) -> f32 {
        v.clamp(-1.0, 1.0)
    }

    /// A loop over tuple state, with every compound assignment.
    pub fn compound(a: s32, b: u32) -> ((s32, u32), s32, u32) {
        let mut pair = (a, b);
        let mut i = 0;
        let mut x = a;
        let mut y = b;
        while i < 3 {
            pair = (pair.1.convert(s32) + pair.0, pair.1 * 2);
            x += 5;
            x -= 1;
            x *= 3;
            x /= 2;
            x %= 1000;
            y <<= 2;
            y >>= 1;
            y |= 1;
            y &= 0xFF;
            y ^= 3;
            i += 1;
        }
        (pair, x, y)
    }

    /// Loops in loops, a loop in a branch, a branch giving a tuple in a
    /// loop.
    pub fn nesting(n: s32, x: f32[N], p: pred) -> (s32, f32[N], f32[N], s32) {
        let mut total = 0;
        let mut i = 0;
        while i < n {
            let mut j = 0;
            while j < i {
                total += j;
                j += 1;
            }
            i += 1;
        }
        let mut scaled = x;
        if p {
            let mut k = 0;
            while k < 3 {
                scaled = scaled * 2.0;
                k += 1;
            }
        }
        let mut y = x;
        let mut odd = 0;
        let mut t = 0;
        while t < 4 {
            let (a, b) = if t % 2 == 0 { (y + 1.0, odd + 1) } else { (y * 2.0, odd) };
            y = a;
            odd = b;
            t += 1;
        }
        (total, scaled, y, odd)
    }

    /// A reduction of three operands of three types; maps that change the
    /// element type.
    pub fn variadic(x: f32[N], y: s32[N], z: u8[N]) -> ((f32, s32, u8), pred[N], s32[N]) {
        let r = reduce([x, y, z], [0.0, 0, 0], |a, b, c, d, e, f| (a + d, b.max(e), c | f), [0]);
        (r, x.map(|v| v > 0.0), x.map(|v| v.convert(s32) * 2))
    }

    /// `take_along_axis` as JAX emits it: a gather with batch dimensions.
    pub fn take_along(x: f32[B, N], idx: s32[B, K]) -> f32[B, K] {
        x.gather(idx.reshape([B, K, 1]), GatherDims {
            offset_dims: [], collapsed_slice_dims: [1], start_index_map: [1], index_vector_dim: 2,
            operand_batching_dims: [0], start_indices_batching_dims: [0],
        }, [1, 1])
    }

    /// Nested tuples and their fields; blocks as values.
    pub fn fields(x: f32[N]) -> (f32[N], f32, f32[N]) {
        let t = ((x, x.reduce_sum([0])), x * 2.0);
        let inner = { let doubled = t.1; doubled + t.0.0 };
        (inner, t.0.1, t.1)
    }
}

#[test]
fn dilated_grouped_convolution() {
    for (name, be) in backends() {
        let y = conv_dilated::call(be, fx("conv_dilated/x"), fx("conv_dilated/k")).unwrap();
        check(name, "conv_dilated/out0", &y, 1e-5, 1e-5);
    }
}

#[test]
fn reduced_precision() {
    for (name, be) in backends() {
        let (h, b) = precisions::call(be, fx("reduce_precision/x")).unwrap();
        check(name, "reduce_precision/out0", &h, 0.0, 0.0);
        check(name, "reduce_precision/out1", &b, 0.0, 0.0);
    }
}

#[test]
fn int8_products() {
    for (name, be) in backends() {
        let y = int8_matmul::call(be, fx("int8_matmul/a"), fx("int8_matmul/b")).unwrap();
        check(name, "int8_matmul/out0", &y, 0.0, 0.0);
    }
}

#[test]
fn bit_patterns() {
    let x = [1.0f32, -0.0, f32::INFINITY];
    for (name, be) in backends() {
        let (words, bytes, back) = bitcasts::call(be, &lit(&[3], &x)).unwrap();
        assert_eq!(vals::<u32>(&words), x.map(f32::to_bits), "{name}");
        let le: Vec<u8> = x.iter().flat_map(|v| v.to_le_bytes()).collect();
        assert_eq!(vals::<u8>(&bytes), le, "{name}");
        assert_eq!(vals::<f32>(&back), x, "{name}");
    }
}

#[test]
fn slices_and_pads() {
    let x = lit(&[2, 3], &[1i32, 2, 3, 4, 5, 6]);
    for (name, be) in backends() {
        let (strided, stacked, shifted, spread) = slicing::call(be, &x, &x).unwrap();
        assert_eq!(vals::<i32>(&strided), [1, 3, 4, 6], "{name}");
        assert_eq!(
            vals::<i32>(&stacked),
            [1, 2, 3, 4, 5, 6].repeat(3),
            "{name}"
        );
        assert_eq!(
            vals::<i32>(&shifted),
            [0, 0, 0, 1, 2, 3, 0, 0, 0, 4, 5, 6],
            "{name}"
        );
        let want = [1, -1, -1, 2, -1, -1, 3, 4, -1, -1, 5, -1, -1, 6];
        assert_eq!(vals::<i32>(&spread), want, "{name}");
    }
}

#[test]
fn closures_with_branches() {
    let x = lit(&[4], &[3.0f32, -4.0, 0.5, 2.0]);
    let y = lit(&[4], &[4.0f32, 3.0, 0.0, 0.0]);
    for (name, be) in backends() {
        let (sum, hyp, clipped) = closures::call(be, &x, &y).unwrap();
        assert_eq!(vals::<f32>(&sum), [5.5], "{name}");
        assert_eq!(vals::<f32>(&hyp), [5.0, 5.0, 0.5, 2.0], "{name}");
        assert_eq!(vals::<f32>(&clipped), [1.0, -1.0, 0.5, 1.0], "{name}");
    }
}

#[test]
fn tuple_state_and_compound_assignment() {
    let (mut p0, mut p1, mut x, mut y) = (7i32, 5u32, 7i32, 5u32);
    for _ in 0..3 {
        (p0, p1) = (p1 as i32 + p0, p1 * 2);
        x = ((x + 5 - 1) * 3 / 2) % 1000;
        y = ((((y << 2) >> 1) | 1) & 0xFF) ^ 3;
    }
    for (name, be) in backends() {
        let ((a, b), c, d) =
            compound::call(be, &Literal::scalar(7i32), &Literal::scalar(5u32)).unwrap();
        assert_eq!(vals::<i32>(&a), [p0], "{name}");
        assert_eq!(vals::<u32>(&b), [p1], "{name}");
        assert_eq!(vals::<i32>(&c), [x], "{name}");
        assert_eq!(vals::<u32>(&d), [y], "{name}");
    }
}

#[test]
fn nested_tuple_fields() {
    let x = lit(&[2], &[1.0f32, 2.0]);
    for (name, be) in backends() {
        let (inner, total, doubled) = fields::call(be, &x).unwrap();
        assert_eq!(vals::<f32>(&inner), [3.0, 6.0], "{name}");
        assert_eq!(vals::<f32>(&total), [3.0], "{name}");
        assert_eq!(vals::<f32>(&doubled), [2.0, 4.0], "{name}");
    }
}

#[test]
fn nested_control_flow() {
    let x = lit(&[3], &[1.5f32, -2.0, 0.0]);
    for (name, be) in backends() {
        let (total, scaled, y, odd) =
            nesting::call(be, &Literal::scalar(5i32), &x, &Literal::scalar(true)).unwrap();
        assert_eq!(
            vals::<i32>(&total),
            [10],
            "{name}: 0 + (0+1) + (0+1+2) + (0+1+2+3)"
        );
        assert_eq!(vals::<f32>(&scaled), [12.0, -16.0, 0.0], "{name}");
        assert_eq!(vals::<f32>(&y), [12.0, -2.0, 6.0], "{name}");
        assert_eq!(vals::<i32>(&odd), [2], "{name}");
        let (_, same, _, _) =
            nesting::call(be, &Literal::scalar(0i32), &x, &Literal::scalar(false)).unwrap();
        assert_eq!(vals::<f32>(&same), [1.5, -2.0, 0.0], "{name}");
    }
}

#[test]
fn variadic_reduce_and_typed_maps() {
    let x = lit(&[3], &[1.5f32, -2.0, 0.0]);
    let y = lit(&[3], &[3i32, 9, -1]);
    let z = lit(&[3], &[1u8, 4, 16]);
    for (name, be) in backends() {
        let ((sum, max, or), positive, doubled) = variadic::call(be, &x, &y, &z).unwrap();
        assert_eq!(vals::<f32>(&sum), [-0.5], "{name}");
        assert_eq!(vals::<i32>(&max), [9], "{name}");
        assert_eq!(vals::<u8>(&or), [21], "{name}");
        assert_eq!(vals::<bool>(&positive), [true, false, false], "{name}");
        assert_eq!(vals::<i32>(&doubled), [2, -4, 0], "{name}");
    }
}

#[test]
fn gather_with_batch_dimensions() {
    let x = lit(&[2, 3], &[1.0f32, 2.0, 3.0, 4.0, 5.0, 6.0]);
    let idx = lit(&[2, 2], &[2i32, 0, 1, 1]);
    for (name, be) in backends() {
        let y = take_along::call(be, &x, &idx).unwrap();
        assert_eq!(vals::<f32>(&y), [3.0, 1.0, 5.0, 5.0], "{name}");
    }
}
