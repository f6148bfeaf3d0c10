// Unknown methods, functions, variables, dimensions and element types get
// the closest known name as a suggestion.
use xla::prelude::*;

xla! {
    fn method(x: f32[B, N]) -> f32[B] {
        x.reduce_summ([1])
    }

    fn function(x: f32[N]) -> f32[N] {
        sofmax(x)
    }

    fn function_as_method(x: f32[N]) -> f32[N] {
        x.softmax()
    }

    fn variable(input: f32[N]) -> f32[N] {
        inptu.exp()
    }

    fn dimension(x: f32[N]) -> f32[M] {
        x
    }

    fn element_type(x: f23[N]) -> f32[N] {
        x
    }

    fn rust_type_name(x: i32[N]) -> i32[N] {
        x
    }

    fn softmax(x: f32[N]) -> f32[N] {
        x
    }
}

fn main() {}
