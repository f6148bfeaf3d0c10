//! The benchmark suite on small shapes (tests/suite/*.hlo: the modules of
//! the benchmark with every size shrunk, tails not multiples of the vector
//! width): the JIT against the interpreter. Cases marked `compiled` must
//! run without any interpreter fallback; the others print theirs (ops
//! whose kernels are not written yet).

mod runtime_support;

use runtime_support::{check_against_interpreter, parse, random_args, CLOSE};

fn suite_case(name: &str, compiled: bool) {
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
        if compiled {
            assert!(fallbacks.is_empty(), "{name} falls back: {fallbacks:?}");
        } else if !fallbacks.is_empty() {
            eprintln!("{name} falls back: {fallbacks:?}");
        }
    }
}

macro_rules! suite {
    ($($name:ident: $compiled:expr,)*) => {$(
        #[test]
        fn $name() {
            suite_case(stringify!($name), $compiled);
        }
    )*};
}

suite!(
    ew_axpby: true,
    ew_chain: false,
    ew_gelu: false,
    reduce_row_sum: true,
    reduce_col_sum: true,
    reduce_all_max: true,
    softmax: false,
    layernorm: false,
    dot_256: true,
    dot_1024: true,
    dot_2048: true,
    matvec: true,
    bmm: true,
    mlp: false,
);
