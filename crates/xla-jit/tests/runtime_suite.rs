//! The benchmark suite on small shapes (tests/suite/*.hlo: the modules of
//! the benchmark with every size shrunk, tails not multiples of the vector
//! width): the JIT against the interpreter. Every case must run without
//! any interpreter fallback.

mod runtime_support;

use runtime_support::{check_against_interpreter, parse, random_args, CLOSE};

fn suite_case(name: &str) {
    let path = format!("{}/tests/suite/{name}.hlo", env!("CARGO_MANIFEST_DIR"));
    let text = std::fs::read_to_string(&path).unwrap();
    let module = parse(&text);
    for seed in 0..3 {
        let exe = check_against_interpreter(&module, &random_args(&module, seed), CLOSE);
        let fallbacks: Vec<String> = exe
            .fallback_ops()
            .iter()
            .map(|op| format!("{} ({})", op.instruction, op.opcode.name()))
            .collect();
        assert!(fallbacks.is_empty(), "{name} falls back: {fallbacks:?}");
    }
}

macro_rules! suite {
    ($($name:ident,)*) => {$(
        #[test]
        fn $name() {
            suite_case(stringify!($name));
        }
    )*};
}

suite!(
    ew_axpby,
    ew_chain,
    ew_gelu,
    reduce_row_sum,
    reduce_col_sum,
    reduce_all_max,
    softmax,
    layernorm,
    dot_256,
    dot_1024,
    dot_2048,
    matvec,
    bmm,
    mlp,
);
