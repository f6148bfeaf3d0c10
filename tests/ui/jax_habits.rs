// What a JAX or NumPy user writes first, and what the error says instead.
use xla::prelude::*;

xla! {
    fn names(x: f32[B, N], m: f32[B]) -> (f32[B], f32[B], f32[B, N], f32[B, N]) {
        (x.sum([1]), x.mean([1]), x.where_(x > 0.0, 0.0), x.astype(f32))
    }

    fn modules(x: f32[N]) -> f32[N] {
        jnp.exp(x)
    }

    fn ranks(x: f32[B, N], m: f32[B], w: f32[B, N, K], v: f32[K, M]) -> (f32[B, N], f32[B, N, M]) {
        (x - m, w.dot(v))
    }

    fn helpers(x: f32[N]) -> f32[N] {
        let double = |v| v * 2.0;
        double(x)
    }
}

xla! {
    fn indexing(x: f32[N], i: s32) -> f32 {
        x[i]
    }
}

xla! {
    fn casts(x: s32[N]) -> f32[N] {
        x as f32
    }
}

xla! {
    fn power(x: f32[N]) -> f32[N] {
        x ** 2.0
    }
}

xla! {
    fn transposed(x: f32[A, B]) -> f32[B, A] {
        x.T
    }
}

xla! {
    fn early(x: f32[N]) -> f32[N] {
        return x;
    }
}

xla! {
    fn constants(x: f32[N], i: s32[N]) -> (f32[N], s32[N]) {
        (x * f32::consts::PIE, i * s32::consts::PI)
    }
}

fn main() {}

xla! {
    // A literal variable takes the type its uses need, if its value fits.
    fn accumulate(x: s32[N]) -> s32 {
        let mut total = 0.5;
        let mut i = 0;
        while i < N {
            total = total + x.dynamic_slice([i], [1]).reshape([]);
            i += 1;
        }
        total
    }
}
