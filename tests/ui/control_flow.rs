// `while` and `if`: conditions are pred scalars, the state keeps its type,
// branches agree.
use xla::prelude::*;

xla! {
    fn condition_not_scalar(x: f32[N]) -> f32[N] {
        let mut y = x;
        while y > 0.0 {
            y = y - 1.0;
        }
        y
    }

    fn state_changes_type(x: f32[N]) -> f32[N] {
        let mut y = x;
        let mut i = 0;
        while i < 3 {
            y = y.reshape([N, 1]);
            i += 1;
        }
        y
    }

    fn immutable(x: f32[N]) -> f32[N] {
        let y = x;
        y = y * 2.0;
        y
    }

    fn branches_differ(x: f32[N], p: pred) -> f32[N] {
        if p { x } else { x.reduce_sum([0]) }
    }

    fn no_else(x: f32[N], p: pred) -> f32[N] {
        if p { x }
    }

    fn assign_changes_type(x: f32[N], p: pred) -> f32[N] {
        let mut y = x;
        if p {
            y = y.reduce_sum([0]);
        }
        y
    }

    fn closure_assigns(x: f32[N]) -> f32[N] {
        let mut count = 0;
        x.map(|v| {
            count = count + 1;
            v
        })
    }

    fn array_predicate(x: f32[N]) -> f32[N] {
        if x > 0.0 { x } else { -x }
    }
}

fn main() {}
