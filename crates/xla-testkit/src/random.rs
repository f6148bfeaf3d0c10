//! Deterministic arguments for parameters, from a seed.

use xla_core::{Literal, Shape};

/// Values for a parameter of `shape`, advancing `seed`: floats (and
/// complex parts) in `[−2, 2)`, integers in `[−8, 8)` (wrapped for unsigned
/// types), random preds; tuples element by element; a token for a token.
///
/// # Panics
///
/// For an opaque shape, which has no values.
pub fn random_literal(shape: &Shape, seed: &mut u64) -> Literal {
    match shape {
        Shape::Array(a) => {
            let count = a.element_count() as usize;
            let values: Vec<f64> = (0..count)
                .map(|_| {
                    *seed = seed
                        .wrapping_mul(6364136223846793005)
                        .wrapping_add(1442695040888963407);
                    let unit = (*seed >> 11) as f64 / (1u64 << 53) as f64;
                    if a.element_type().is_floating() || a.element_type().is_complex() {
                        unit * 4.0 - 2.0
                    } else {
                        (unit * 16.0).floor() - 8.0
                    }
                })
                .collect();
            Literal::from_vec(a.dims(), values)
                .and_then(|l| l.convert(a.element_type()))
                .expect("every element type converts from f64")
        }
        Shape::Tuple(elements) => {
            Literal::tuple(elements.iter().map(|e| random_literal(e, seed)).collect())
        }
        Shape::Token => Literal::token(),
        Shape::Opaque => panic!("no values for an opaque parameter"),
    }
}

/// A small deterministic generator (xorshift64) for mutation tests and
/// fuzzers: the same seed gives the same sequence on every machine.
pub struct XorShift(pub u64);

impl XorShift {
    /// The next 64 random bits.
    pub fn next_u64(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }

    /// A number below `n` (0 when `n` is 0).
    pub fn below(&mut self, n: usize) -> usize {
        (self.next_u64() % n.max(1) as u64) as usize
    }
}
