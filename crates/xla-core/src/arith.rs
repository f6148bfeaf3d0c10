//! Integer arithmetic on sizes and indices, shared by shapes and layouts.

/// `⌈n / d⌉` for `d > 0`, exact over the whole `i64` range (it never forms
/// `n + d − 1`, which overflows near `i64::MAX`): `ceil_div(7, 4) == 2`,
/// `ceil_div(-7, 4) == -1`.
pub fn ceil_div(n: i64, d: i64) -> i64 {
    debug_assert!(d > 0, "ceil_div by {d}");
    n.div_euclid(d) + i64::from(n.rem_euclid(d) != 0)
}
