//! The forms of the language reference's "Coming from JAX" table, each
//! checked against the NumPy result it stands for.

use super::{backends, lit, vals};
use xla::prelude::*;

xla! {
    pub fn table_rows(x: f32[B, N], b: f32[N], labels: s32[B], i: s32)
        -> (f32[B, N], f32[B], f32[B], s32[B], f32[B, N], f32[B, N], f32[N, B], f32[1, B * N], f32[N - 2], f32[B, N], f32[B, B], s32[N], f32)
    {
        let biased = x.add(b, [1]) - x - b.broadcast_in_dim([B, N], [1]);
        let mean = x.reduce_sum([1]) / N;
        let running = x.cumsum(1);
        let clipped = select(x > 0.0, x, 0.0).clamp(0.0, 1.0);
        let onehot = iota(s32[B, B], 1).eq(labels, [0]).convert(f32);
        let row = x.dynamic_slice([i, 0], [1, N]).reshape([N]);
        (biased, mean, x.reduce_max([1]), x.argmax(1), running, clipped, x.transpose([1, 0]),
         x.reshape([1, B * N]), row.slice([1], [N - 1]), broadcast(0.0, [B, N]) + x.rev([1]),
         onehot, iota(s32[N], 0), std::f32::consts::PI * x.reduce_sum([0, 1]))
    }
}

#[test]
fn jax_forms() {
    let x = lit(&[2, 4], &[1.0f32, -2.0, 3.0, 0.5, 4.0, 0.0, -1.0, 2.0]);
    let b = lit(&[4], &[10.0f32, 20.0, 30.0, 40.0]);
    let labels = lit(&[2], &[1i32, 0]);
    for (name, be) in backends() {
        let (
            biased,
            mean,
            max,
            argmax,
            running,
            clipped,
            t,
            flat,
            inner,
            rev,
            onehot,
            ramp,
            scaled,
        ) = table_rows::call(be, &x, &b, &labels, &Literal::scalar(1i32)).unwrap();
        assert_eq!(vals::<f32>(&biased), [0.0; 8], "{name}");
        assert_eq!(vals::<f32>(&mean), [0.625, 1.25], "{name}");
        assert_eq!(vals::<f32>(&max), [3.0, 4.0], "{name}");
        assert_eq!(vals::<i32>(&argmax), [2, 0], "{name}");
        assert_eq!(
            vals::<f32>(&running),
            [1.0, -1.0, 2.0, 2.5, 4.0, 4.0, 3.0, 5.0],
            "{name}"
        );
        assert_eq!(
            vals::<f32>(&clipped),
            [1.0, 0.0, 1.0, 0.5, 1.0, 0.0, 0.0, 1.0],
            "{name}"
        );
        assert_eq!(
            vals::<f32>(&t),
            [1.0, 4.0, -2.0, 0.0, 3.0, -1.0, 0.5, 2.0],
            "{name}"
        );
        assert_eq!(vals::<f32>(&flat), vals::<f32>(&x), "{name}");
        assert_eq!(vals::<f32>(&inner), [0.0, -1.0], "{name}");
        assert_eq!(
            vals::<f32>(&rev),
            [0.5, 3.0, -2.0, 1.0, 2.0, -1.0, 0.0, 4.0],
            "{name}"
        );
        assert_eq!(vals::<f32>(&onehot), [0.0, 1.0, 1.0, 0.0], "{name}");
        assert_eq!(vals::<i32>(&ramp), [0, 1, 2, 3], "{name}");
        assert_eq!(vals::<f32>(&scaled), [std::f32::consts::PI * 7.5], "{name}");
    }
}
