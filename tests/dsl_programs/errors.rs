//! What a program's caller can get wrong at run time: arguments that do
//! not fit the signature, and sizes the macro could not check because they
//! are symbolic. Each is an `Err` naming the function, argument or op.

use super::{backends, lit};
use xla::prelude::*;

xla! {
    pub fn head(x: f32[N]) -> f32[4] {
        x.slice([0], [4])
    }

    /// The error of a function called by another names both.
    pub fn first_four(x: f32[N]) -> f32[4] {
        head(x * 2.0)
    }

    pub fn window(x: f32[N], i: s32) -> f32[4] {
        x.dynamic_slice([i], [4])
    }

    pub fn halves(x: f32[2 * H]) -> f32[H] {
        x.slice([0], [H])
    }

    pub fn masked(x: f32[N], keep: pred[N]) -> f32[N] {
        select(keep, x, 0.0)
    }

    pub fn pairs(x: f32[N], y: f32[N + 1]) -> f32[N] {
        x + y.slice([1], [N + 1])
    }
}

fn error_of(r: Result<impl std::fmt::Debug, DslError>) -> String {
    r.expect_err("an error").to_string()
}

#[test]
fn run_time_errors_name_what_is_wrong() {
    let three = lit(&[3], &[1.0f32, 2.0, 3.0]);
    for (_, be) in backends() {
        assert_eq!(
            error_of(head::call(be, &three)),
            "head: slice: the slice [0:4] of dimension 0 of operand 0 f32[3] does not lie within [0, 3]"
        );
        assert_eq!(
            error_of(window::call(be, &three, &Literal::scalar(0i32))),
            "window: dynamic-slice: dynamic_slice_sizes[0] = 4 exceeds the size 3 of dimension 0 \
             of operand 0 f32[3]"
        );
        assert_eq!(
            error_of(first_four::call(be, &three)),
            "first_four: head: slice: the slice [0:4] of dimension 0 of operand 0 f32[3] does not \
             lie within [0, 3]"
        );
        assert_eq!(
            error_of(halves::call(be, &three)),
            "halves: dimension 0 of argument `x` f32[3] is 3, which is not 2 * H for any size H"
        );
        let ints = lit(&[3], &[1i32, 0, 1]);
        assert_eq!(
            error_of(masked::call(be, &three, &ints)),
            "masked: argument `keep` is s32[3], but its type is pred[N]"
        );
        assert_eq!(
            error_of(pairs::call(be, &three, &three)),
            "pairs: dimension 0 of argument `y` f32[3] must be N + 1 = 4"
        );
    }
}
