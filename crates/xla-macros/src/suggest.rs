//! "Did you mean …?" for unknown names, by edit distance (as rustc does).

/// The candidate closest to `name`, if it is close enough to be a likely
/// typo: at most a third of the name's length in edits (at least one).
pub fn closest<'a>(name: &str, candidates: impl IntoIterator<Item = &'a str>) -> Option<&'a str> {
    let limit = (name.chars().count() / 3).max(1);
    candidates
        .into_iter()
        .map(|c| (distance(name, c), c))
        .filter(|&(d, _)| d <= limit)
        .min_by_key(|&(d, c)| (d, c))
        .map(|(_, c)| c)
}

/// `; did you mean `x`?` or nothing.
pub fn did_you_mean<'a>(name: &str, candidates: impl IntoIterator<Item = &'a str>) -> String {
    match closest(name, candidates) {
        Some(c) => format!("; did you mean `{c}`?"),
        None => String::new(),
    }
}

/// What a JAX or NumPy name is in the `xla!` language, for the names a
/// JAX user reaches for first: `jax_equivalent("sum")` is `; JAX's `sum`
/// is `x.reduce_sum([dimensions])``. (`where` is a Rust keyword: `where_`
/// is the JAX user's spelling.)
pub fn jax_equivalent(name: &str) -> Option<String> {
    let (code, note) = match name {
        "sum" => ("x.reduce_sum([dimensions])", ""),
        "mean" => (
            "x.reduce_sum([dimensions]) / N",
            " (a dimension name used as a value is its size)",
        ),
        "prod" => ("x.reduce_prod([dimensions])", ""),
        "amax" => ("x.reduce_max([dimensions])", ""),
        "amin" => ("x.reduce_min([dimensions])", ""),
        "all" => ("x.reduce_and([dimensions])", ""),
        "any" => ("x.reduce_or([dimensions])", ""),
        "var" | "std" => (
            "(d * d).reduce_sum([dimensions]) / N",
            " with `d` the deviations from the mean",
        ),
        "where_" => ("select(pred, on_true, on_false)", ""),
        "matmul" | "inner" | "vdot" => (
            "x.dot(y)",
            " for ranks 1 and 2, `x.dot_general(y, ([lhs_contracting], [rhs_contracting]), ([lhs_batch], [rhs_batch]))` beyond",
        ),
        "einsum" | "tensordot" => (
            "x.dot_general(y, ([lhs_contracting], [rhs_contracting]), ([lhs_batch], [rhs_batch]))",
            "",
        ),
        "sigmoid" => ("x.logistic()", ""),
        "relu" => ("x.max(0.0)", ""),
        "astype" => ("x.convert(f32)", ""),
        "clip" => ("x.clamp(min, max)", ""),
        "maximum" => ("x.max(y)", ""),
        "minimum" => ("x.min(y)", ""),
        "power" => ("x.pow(y)", ""),
        "absolute" => ("x.abs()", ""),
        "negative" => ("-x", ""),
        "square" => ("x * x", ""),
        "exp2" => ("(x * 0.6931472).exp()", " (ln 2 = 0.6931472)"),
        "log2" => ("x.log() * 1.442695", " (1 / ln 2 = 1.442695)"),
        "log10" => ("x.log() * 0.4342945", " (1 / ln 10 = 0.4342945)"),
        "concatenate" => ("concat([a, b], dimension)", ""),
        "stack" => (
            "concat([a.reshape([1, N]), b.reshape([1, N])], 0)",
            "",
        ),
        "squeeze" | "expand_dims" | "ravel" | "flatten" => ("x.reshape([sizes])", ""),
        "swapaxes" | "moveaxis" | "permute_dims" => ("x.transpose([permutation])", ""),
        "flip" => ("x.rev([dimensions])", ""),
        "take" | "take_along_axis" => ("x.gather(indices, GatherDims { … }, [slice_sizes])", ""),
        "arange" => ("iota(s32[N], 0)", ""),
        "zeros" | "ones" | "full" | "zeros_like" | "ones_like" | "full_like" => {
            ("broadcast(0.0, [sizes])", "")
        }
        "eye" | "identity" => ("iota(s32[N, N], 0).eq(iota(s32[N, N], 1)).convert(f32)", ""),
        "logical_and" => ("a && b", ""),
        "logical_or" => ("a || b", ""),
        "logical_not" | "invert" | "bitwise_not" => ("!x", ""),
        "bitwise_and" => ("a & b", ""),
        "bitwise_or" => ("a | b", ""),
        "bitwise_xor" | "logical_xor" => ("a ^ b", ""),
        "left_shift" => ("a << b", ""),
        "right_shift" => ("a >> b", ""),
        "equal" => ("a == b", ""),
        "not_equal" => ("a != b", ""),
        "less" => ("a < b", ""),
        "less_equal" => ("a <= b", ""),
        "greater" => ("a > b", ""),
        "greater_equal" => ("a >= b", ""),
        "remainder" | "fmod" => ("a % b", ""),
        "floor_divide" => ("(a / b).floor()", " for floats"),
        "softmax" | "log_softmax" => (
            "(x - m).exp()",
            " divided by its `reduce_sum`, with `m` the `reduce_max` (see `softmax` in the documentation of `xla!`)",
        ),
        _ => return None,
    };
    let name = name.trim_end_matches('_');
    Some(format!("; JAX's `{name}` is `{code}`{note}"))
}

/// Levenshtein distance, counting a swap of neighbours as one edit.
fn distance(a: &str, b: &str) -> usize {
    let (a, b): (Vec<char>, Vec<char>) = (a.chars().collect(), b.chars().collect());
    let mut d = vec![vec![0usize; b.len() + 1]; a.len() + 1];
    for (i, row) in d.iter_mut().enumerate() {
        row[0] = i;
    }
    for (j, cell) in d[0].iter_mut().enumerate() {
        *cell = j;
    }
    for i in 1..=a.len() {
        for j in 1..=b.len() {
            let cost = usize::from(a[i - 1] != b[j - 1]);
            let mut best = (d[i - 1][j] + 1)
                .min(d[i][j - 1] + 1)
                .min(d[i - 1][j - 1] + cost);
            if i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] {
                best = best.min(d[i - 2][j - 2] + 1);
            }
            d[i][j] = best;
        }
    }
    d[a.len()][b.len()]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn typos_find_the_name() {
        let names = ["reduce_sum", "reduce_max", "reshape", "exp"];
        assert_eq!(closest("reduce_summ", names), Some("reduce_sum"));
        assert_eq!(closest("resahpe", names), Some("reshape"));
        assert_eq!(closest("exq", names), Some("exp"));
        assert_eq!(closest("transpose", names), None);
        assert_eq!(did_you_mean("f23", ["f32", "s32"]), "; did you mean `f32`?");
    }

    #[test]
    fn jax_names_find_the_op() {
        assert_eq!(
            jax_equivalent("sum").as_deref(),
            Some("; JAX's `sum` is `x.reduce_sum([dimensions])`")
        );
        assert_eq!(
            jax_equivalent("mean").as_deref(),
            Some("; JAX's `mean` is `x.reduce_sum([dimensions]) / N` (a dimension name used as a value is its size)")
        );
        assert_eq!(jax_equivalent("reduce_sum"), None);
    }
}
