// Element types must agree; there is no implicit promotion.
use xla::prelude::*;

xla! {
    fn mixed(x: f32[N], i: s32[N]) -> f32[N] {
        x + i
    }

    fn float_op_on_ints(i: s32[N]) -> s32[N] {
        i.exp()
    }

    fn shift_floats(x: f32[N]) -> f32[N] {
        x << x
    }

    fn logical_on_ints(a: s32[N], b: s32[N]) -> s32[N] {
        a && b
    }

    fn reduce_and_of_floats(x: f32[N]) -> f32[] {
        x.reduce_and([0])
    }
}

fn main() {}
