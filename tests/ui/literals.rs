// A literal takes the element type of the other operand and must be a
// valid value of it.
use xla::prelude::*;

xla! {
    fn float_for_ints(i: s32[N]) -> s32[N] {
        i * 2.5
    }

    fn out_of_range(b: u8[N]) -> u8[N] {
        b + 300
    }

    fn negative_unsigned(b: u32[N]) -> u32[N] {
        b.max(-1)
    }

    fn overflow(h: f16[N]) -> f16[N] {
        h * 1e6
    }

    fn bad_suffix(x: f32[N]) -> f32[N] {
        x + 2.0f33
    }

    fn bad_constant(x: s32[N]) -> s32[N] {
        x.max(s32::INFINITY)
    }
}

fn main() {}
