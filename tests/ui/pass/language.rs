// The examples of the language reference (crates/xla-macros/src/language.md),
// in one program.
use xla::prelude::*;

xla! {
    pub fn scale(x: f32[N], s: f32) -> f32[N] {
        x * s
    }

    /// The largest element of each row, and its index.
    pub fn max_and_index(x: f32[B, N]) -> (f32[B], s32[B]) {
        let idx = iota(s32[B, N], 1);
        reduce([x, idx], [f32::NEG_INFINITY, 0], |av, ai, bv, bi| {
            let first = (av > bv) | ((av == bv) & (ai < bi));
            (select(first, av, bv), select(first, ai, bi))
        }, [1])
    }

    /// 2×2 max pooling of an NHWC image with even sizes.
    pub fn pool(x: f32[B, 2 * H, 2 * W, C]) -> f32[B, H, W, C] {
        x.reduce_window(f32::NEG_INFINITY, |a, b| a.max(b), [1, 2, 2, 1], [1, 2, 2, 1], valid)
    }

    /// `x` to the power `n`, by repeated multiplication.
    pub fn power(x: f32[N], n: s32) -> f32[N] {
        let mut acc = x;
        let mut i = 1;
        while i < n {
            acc = acc * x;
            i += 1;
        }
        acc
    }

    pub fn relu_or_negate(x: f32[N], relu: pred) -> f32[N] {
        if relu { x.max(0.0) } else { -x }
    }

    /// The largest element of `x` and its index, by a scan.
    pub fn scan_max(x: f32[N]) -> (f32, s32) {
        let mut best = f32::NEG_INFINITY;
        let mut at = -1;
        let mut i = 0;
        while i < N {
            let v = x.dynamic_slice([i], [1]).reshape([]);
            if v > best {
                best = v;
                at = i;
            }
            i += 1;
        }
        (best, at)
    }

    #[grad(w)]
    pub fn loss(x: f32[N], w: f32[N]) -> f32 {
        ((x * w).tanh()).reduce_sum([0])
    }
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let b = XlaBuilder::new("model");
    let x = b.parameter(0, &"f32[8]".parse()?, "x")?;
    let s = b.constant_r0(2.0f32)?;
    let y = scale::build(&b, x, s)?;
    b.build(b.exp(y)?)?;
    max_and_index::computation(max_and_index::Dims { B: 2, N: 3 })?;
    pool::computation(pool::Dims { B: 1, H: 2, W: 3, C: 4 })?;
    power::computation(power::Dims { N: 4 })?;
    relu_or_negate::computation(relu_or_negate::Dims { N: 4 })?;
    scan_max::computation(scan_max::Dims { N: 4 })?;
    let (value, (dw,)) = loss::value_and_grad(
        &Interpreter::new(),
        &Literal::vector(&[1.0f32, -2.0]),
        &Literal::vector(&[0.0f32, 0.0]),
    )?;
    assert_eq!(value.to_vec::<f32>()?, [0.0]);
    assert_eq!(dw.to_vec::<f32>()?, [1.0, -2.0]);
    Ok(())
}
