// Parameter and result types: every dimension name must be bindable from
// the arguments.
use xla::prelude::*;

xla! {
    fn only_in_expression(x: f32[N * M]) -> f32[N * M] {
        x
    }

    fn only_in_result(x: f32[N]) -> f32[M] {
        x
    }

    fn duplicate(x: f32[N], x: f32[N]) -> f32[N] {
        x
    }

    fn tuple_parameter(t: (f32[N], f32[N])) -> f32[N] {
        t.0
    }

    fn duplicate(x: f32[N]) -> f32[N] {
        x
    }
}

fn main() {}
