//! Image code: convolutions in NHWC and NCHW (strided, padded,
//! depthwise), max and average pooling, global average pooling, batch
//! normalization, and u8 image preprocessing.

use super::{backends, check, fx};
use xla::prelude::*;

xla! {
    /// A 3×3 same-padded convolution with bias and ReLU (NHWC, HWIO).
    pub fn conv_nhwc(x: f32[B, H, W, C], k: f32[3, 3, C, O], b: f32[O]) -> f32[B, H, W, O] {
        let y = x.conv(k, [1, 1], same, "b01f_01io->b01f");
        (y + b.broadcast_in_dim([B, H, W, O], [3])).max(0.0)
    }

    /// A strided 3×3 convolution with explicit padding (NCHW, OIHW).
    pub fn conv_nchw(x: f32[N, C, 2 * H, 2 * W], k: f32[O, C, 3, 3]) -> f32[N, O, H, W] {
        x.conv(k, [2, 2], [(1, 1), (1, 1)], "bf01_oi01->bf01")
    }

    /// A depthwise 2×2 convolution: one feature group per channel.
    pub fn depthwise(x: f32[B, H, W, 3], k: f32[2, 2, 1, 3]) -> f32[B, H - 1, W - 1, 3] {
        x.conv_general_dilated(k, [1, 1], valid, [1, 1], [1, 1], "b01f_01io->b01f", 3, 1)
    }

    /// 2×2 max and average pooling, and global average pooling.
    pub fn pools(x: f32[B, 2 * H, 2 * W, C]) -> (f32[B, H, W, C], f32[B, H, W, C], f32[B, C]) {
        let mx = x.reduce_window(f32::NEG_INFINITY, |a, b| a.max(b), [1, 2, 2, 1], [1, 2, 2, 1], valid);
        let avg = x.reduce_window(0.0, |a, b| a + b, [1, 2, 2, 1], [1, 2, 2, 1], valid) / 4.0;
        let gap = x.reduce_sum([1, 2]) / (4 * H * W);
        (mx, avg, gap)
    }

    /// 3×3 max pooling with stride 2 and `same` padding, NCHW.
    pub fn pool_nchw(x: f32[1, 2, 5, 5]) -> f32[1, 2, 3, 3] {
        x.reduce_window(f32::NEG_INFINITY, |a, b| a.max(b), [1, 1, 3, 3], [1, 1, 2, 2], same)
    }

    /// Normalization of a u8 RGB image, its u8 grayscale, and a flip.
    pub fn image_u8(img: u8[H, W, 3], mean: f32[3], std: f32[3]) -> (f32[H, W, 3], u8[H, W], u8[H, W, 3]) {
        let f = img.convert(f32);
        let x = (f / 255.0).sub(mean, [2]).div(std, [2]);
        let r = f.slice([0, 0, 0], [H, W, 1]).reshape([H, W]);
        let g = f.slice([0, 0, 1], [H, W, 2]).reshape([H, W]);
        let b = f.slice([0, 0, 2], [H, W, 3]).reshape([H, W]);
        let gray = r * 0.299 + g * 0.587 + b * 0.114;
        let back = gray.round_nearest_even().clamp(0.0, 255.0).convert(u8);
        (x, back, img.rev([1]))
    }

    /// Batch normalization over N, H and W (training mode), with the
    /// statistics.
    pub fn batchnorm(x: f32[N, H, W, C], gamma: f32[C], beta: f32[C]) -> (f32[N, H, W, C], f32[C], f32[C]) {
        let count = N * H * W;
        let mean = x.reduce_sum([0, 1, 2]) / count;
        let xc = x - mean.broadcast_in_dim([N, H, W, C], [3]);
        let var = (xc * xc).reduce_sum([0, 1, 2]) / count;
        let y = xc * (var + 1e-5).rsqrt().broadcast_in_dim([N, H, W, C], [3]);
        (y.mul(gamma, [3]).add(beta, [3]), mean, var)
    }
}

#[test]
fn convolutions() {
    for (name, be) in backends() {
        let p = |n: &str| fx(&format!("conv_nhwc/{n}"));
        let y = conv_nhwc::call(be, p("x"), p("k"), p("b")).unwrap();
        check(name, "conv_nhwc/out0", &y, 1e-5, 1e-5);
        let y = conv_nchw::call(be, fx("conv_nchw/x"), fx("conv_nchw/k")).unwrap();
        check(name, "conv_nchw/out0", &y, 1e-5, 1e-5);
        let y = depthwise::call(be, fx("depthwise/x"), fx("depthwise/k")).unwrap();
        check(name, "depthwise/out0", &y, 1e-5, 1e-5);
    }
}

#[test]
fn pooling() {
    for (name, be) in backends() {
        let (mx, avg, gap) = pools::call(be, fx("pools/x")).unwrap();
        check(name, "pools/out0", &mx, 0.0, 0.0);
        check(name, "pools/out1", &avg, 1e-6, 1e-6);
        check(name, "pools/out2", &gap, 1e-6, 1e-6);
        let y = pool_nchw::call(be, fx("pool_nchw/x")).unwrap();
        check(name, "pool_nchw/out0", &y, 0.0, 0.0);
    }
}

#[test]
fn u8_images() {
    for (name, be) in backends() {
        let p = |n: &str| fx(&format!("image_u8/{n}"));
        let (x, gray, flipped) = image_u8::call(be, p("img"), p("mean"), p("std")).unwrap();
        check(name, "image_u8/out0", &x, 1e-6, 1e-6);
        check(name, "image_u8/out1", &gray, 0.0, 0.0);
        check(name, "image_u8/out2", &flipped, 0.0, 0.0);
    }
}

#[test]
fn batch_normalization() {
    for (name, be) in backends() {
        let p = |n: &str| fx(&format!("batchnorm/{n}"));
        let (y, mean, var) = batchnorm::call(be, p("x"), p("gamma"), p("beta")).unwrap();
        check(name, "batchnorm/out0", &y, 1e-5, 1e-5);
        check(name, "batchnorm/out1", &mean, 1e-6, 1e-6);
        check(name, "batchnorm/out2", &var, 1e-5, 1e-6);
    }
}
