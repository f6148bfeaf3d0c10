//! The benchmark suite on small shapes (tests/suite/*.hlo: the modules of
//! the benchmark with every size shrunk, tails not multiples of the vector
//! width): the JIT against the interpreter. Every case must run without
//! any interpreter fallback.

use crate::runtime_support;

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

/// A chain of `y = f(y) + roll(y)` steps fuses only as far as the code stays
/// small (fused whole, the first step would be computed 3^23 times per
/// element) and still computes what the interpreter computes.
#[test]
fn a_long_chain_of_rolls_compiles_in_pieces() {
    let steps = 24;
    let mut body = String::from("  y0 = f32[5,7]{1,0} parameter(0)\n  b = f32[] constant(0.1)\n  bs = f32[5,7]{1,0} broadcast(b), dimensions={}\n");
    for s in 0..steps {
        let root = if s + 1 == steps { "ROOT " } else { "" };
        body += &format!(
            "  m{s} = f32[5,7]{{1,0}} tanh(y{s})\n  last{s} = f32[5,1]{{1,0}} slice(y{s}), slice={{[0:5], [6:7]}}\n  rest{s} = f32[5,6]{{1,0}} slice(y{s}), slice={{[0:5], [0:6]}}\n  r{s} = f32[5,7]{{1,0}} concatenate(last{s}, rest{s}), dimensions={{1}}\n  q{s} = f32[5,7]{{1,0}} multiply(r{s}, bs)\n  {root}y{n} = f32[5,7]{{1,0}} add(m{s}, q{s})\n",
            n = s + 1
        );
    }
    let module = parse(&format!("HloModule rolls\nENTRY e {{\n{body}}}"));
    check_against_interpreter(&module, &random_args(&module, 7), CLOSE);
}

/// Six steps of a 5-point stencil, `y = 0.2·(y + four rolls of y)` as JAX
/// lowers it: each step reads `y` at nine indices per element, so a
/// kernel computes two steps (the older one 9 times per element) and
/// every second step is materialized (9^5 copies of the first step
/// otherwise).
#[test]
fn a_stencil_iterated_in_place_compiles_step_by_step() {
    let steps = 6;
    let mut body = String::from(
        "  y0 = f32[6,9]{1,0} parameter(0)\n  c = f32[] constant(0.2)\n  cs = f32[6,9]{1,0} broadcast(c), dimensions={}\n",
    );
    for s in 0..steps {
        let root = if s + 1 == steps { "ROOT " } else { "" };
        body += &format!(
            "  a{s} = f32[1,9]{{1,0}} slice(y{s}), slice={{[5:6], [0:9]}}
  b{s} = f32[5,9]{{1,0}} slice(y{s}), slice={{[0:5], [0:9]}}
  down{s} = f32[6,9]{{1,0}} concatenate(a{s}, b{s}), dimensions={{0}}
  c{s} = f32[5,9]{{1,0}} slice(y{s}), slice={{[1:6], [0:9]}}
  d{s} = f32[1,9]{{1,0}} slice(y{s}), slice={{[0:1], [0:9]}}
  up{s} = f32[6,9]{{1,0}} concatenate(c{s}, d{s}), dimensions={{0}}
  e{s} = f32[6,1]{{1,0}} slice(y{s}), slice={{[0:6], [8:9]}}
  f{s} = f32[6,8]{{1,0}} slice(y{s}), slice={{[0:6], [0:8]}}
  right{s} = f32[6,9]{{1,0}} concatenate(e{s}, f{s}), dimensions={{1}}
  g{s} = f32[6,8]{{1,0}} slice(y{s}), slice={{[0:6], [1:9]}}
  h{s} = f32[6,1]{{1,0}} slice(y{s}), slice={{[0:6], [0:1]}}
  left{s} = f32[6,9]{{1,0}} concatenate(g{s}, h{s}), dimensions={{1}}
  s1{s} = f32[6,9]{{1,0}} add(y{s}, down{s})
  s2{s} = f32[6,9]{{1,0}} add(s1{s}, up{s})
  s3{s} = f32[6,9]{{1,0}} add(s2{s}, right{s})
  s4{s} = f32[6,9]{{1,0}} add(s3{s}, left{s})
  {root}y{n} = f32[6,9]{{1,0}} multiply(s4{s}, cs)
",
            n = s + 1
        );
    }
    let module = parse(&format!("HloModule stencil\nENTRY e {{\n{body}}}"));
    let exe = check_against_interpreter(&module, &random_args(&module, 3), CLOSE);
    assert_eq!(
        exe.dump().matches("computed 81 times").count(),
        steps / 2 - 1
    );
}

/// A concatenate of 300 computed operands of uneven widths (as
/// `jnp.concatenate` of a long list lowers) scaled, and a sum of 20 arrays: kernels
/// with more buffers than registers load each base pointer where it is read
/// (all of them live through the loop took 15 s to compile at 1000
/// operands).
#[test]
fn kernels_with_hundreds_of_buffers() {
    let n = 300;
    let mut body = String::new();
    for i in 0..n {
        let w = 1 + i % 3;
        body += &format!("  p{i} = f32[2,{w}]{{1,0}} parameter({i})\n  e{i} = f32[2,{w}]{{1,0}} exponential(p{i})\n");
    }
    let width: usize = (0..n).map(|i| 1 + i % 3).sum();
    let operands: Vec<String> = (0..n).map(|i| format!("e{i}")).collect();
    body += &format!(
        "  c = f32[2,{width}]{{1,0}} concatenate({}), dimensions={{1}}\n  h = f32[] constant(0.5)\n  hs = f32[2,{width}]{{1,0}} broadcast(h), dimensions={{}}\n  ROOT r = f32[2,{width}]{{1,0}} multiply(c, hs)\n",
        operands.join(", ")
    );
    let module = parse(&format!("HloModule many\nENTRY e {{\n{body}}}"));
    let exe = check_against_interpreter(&module, &random_args(&module, 5), CLOSE);
    // Too many operands to choose from per element inside the multiply's
    // loop: the concatenate is materialized, a kernel per operand.
    assert!(exe
        .dump()
        .contains("keep c out of r: a concatenate of 300 operands"));

    let mut body = String::from("  s0 = f32[37]{0} parameter(0)\n");
    for i in 1..20 {
        body += &format!(
            "  q{i} = f32[37]{{0}} parameter({i})\n  {root}s{i} = f32[37]{{0}} add(s{p}, q{i})\n",
            root = if i == 19 { "ROOT " } else { "" },
            p = i - 1
        );
    }
    let module = parse(&format!("HloModule sum\nENTRY e {{\n{body}}}"));
    check_against_interpreter(&module, &random_args(&module, 6), CLOSE);
}

/// Concatenates of 8 operands and more run one kernel per operand: along
/// either dimension and in either layout, of parameters, computed values,
/// a broadcast, an empty operand, predicates and f16.
#[test]
fn concatenates_of_many_operands_run_one_kernel_per_operand() {
    let cases = [
        // Along the minor dimension of a row-major result, uneven widths.
        (
            "f32",
            "{1,0}",
            1,
            vec![
                (3, 5),
                (3, 1),
                (3, 0),
                (3, 7),
                (3, 2),
                (3, 9),
                (3, 4),
                (3, 3),
                (3, 8),
            ],
        ),
        // Along the major dimension.
        (
            "f32",
            "{1,0}",
            0,
            vec![
                (2, 6),
                (1, 6),
                (5, 6),
                (3, 6),
                (1, 6),
                (2, 6),
                (4, 6),
                (1, 6),
            ],
        ),
        // Column-major: the concatenated dimension is the minor one in memory.
        (
            "f32",
            "{0,1}",
            0,
            vec![
                (5, 3),
                (1, 3),
                (2, 3),
                (7, 3),
                (3, 3),
                (1, 3),
                (6, 3),
                (2, 3),
                (4, 3),
            ],
        ),
        (
            "pred",
            "{1,0}",
            1,
            vec![
                (2, 5),
                (2, 3),
                (2, 1),
                (2, 9),
                (2, 4),
                (2, 2),
                (2, 6),
                (2, 7),
            ],
        ),
        (
            "f16",
            "{0,1}",
            1,
            vec![
                (3, 5),
                (3, 3),
                (3, 1),
                (3, 6),
                (3, 2),
                (3, 4),
                (3, 7),
                (3, 8),
            ],
        ),
    ];
    for (ty, layout, dim, dims) in cases {
        let mut body = String::new();
        let mut names = Vec::new();
        for (i, (rows, cols)) in dims.iter().enumerate() {
            let shape = format!("{ty}[{rows},{cols}]{layout}");
            body += &format!("  p{i} = {shape} parameter({i})\n");
            let value = match (ty, i % 3) {
                (_, 0) => format!("p{i}"),
                ("pred", 1) => {
                    body += &format!("  v{i} = {shape} not(p{i})\n");
                    format!("v{i}")
                }
                (_, 1) => {
                    body += &format!("  v{i} = {shape} negate(p{i})\n");
                    format!("v{i}")
                }
                _ => {
                    body += &format!("  v{i} = {shape} xor(p{i}, p{i})\n")
                        .replace("xor", if ty == "pred" { "xor" } else { "multiply" });
                    format!("v{i}")
                }
            };
            names.push(value);
        }
        let (rows, cols) = if dim == 0 {
            (dims.iter().map(|d| d.0).sum(), dims[0].1)
        } else {
            (dims[0].0, dims.iter().map(|d| d.1).sum())
        };
        body += &format!(
            "  ROOT c = {ty}[{rows},{cols}]{layout} concatenate({}), dimensions={{{dim}}}\n",
            names.join(", ")
        );
        let module = parse(&format!("HloModule pieces\nENTRY e {{\n{body}}}"));
        let exe = check_against_interpreter(&module, &random_args(&module, 11), CLOSE);
        let pieces = dims.iter().filter(|d| d.0 * d.1 > 0).count();
        let dump = exe.dump();
        let kernels = dump
            .lines()
            .filter(|l| l.trim_start().starts_with("kernel c_piece_") && l.contains(" buffers "))
            .count();
        assert_eq!(kernels, pieces, "{ty} {layout} {dim}");
    }
}

/// Every kind of kernel with more buffers than it keeps in registers (20
/// inputs summed, then reduced along rows, along columns, in full, by
/// windows, in a softmax's row kernel, sorted, scattered into, and as a
/// dot's epilogue): the base pointers are loaded where they are used
/// (a column reduction read the function's parameters before any pointer
/// and panicked).
#[test]
fn every_kernel_kind_with_twenty_inputs() {
    let n = 20;
    let mut sum = String::new();
    for i in 0..n {
        sum += &format!("  p{i} = f32[6,37]{{1,0}} parameter({i})\n");
    }
    sum += "  s0 = f32[6,37]{1,0} add(p0, p1)\n";
    for i in 2..n {
        sum += &format!("  s{} = f32[6,37]{{1,0}} add(s{}, p{i})\n", i - 1, i - 2);
    }
    let x = format!("s{}", n - 2);
    let add = "add {\n  a = f32[] parameter(0)\n  b = f32[] parameter(1)\n  ROOT c = f32[] add(a, b)\n}\n";
    let max = "max {\n  a = f32[] parameter(0)\n  b = f32[] parameter(1)\n  ROOT c = f32[] maximum(a, b)\n}\n";
    let less = "less {\n  a = f32[] parameter(0)\n  b = f32[] parameter(1)\n  ROOT c = pred[] compare(a, b), direction=LT\n}\n";
    let tails = [
        format!("  z = f32[] constant(0)\n  ROOT r = f32[6]{{0}} reduce({x}, z), dimensions={{1}}, to_apply=add\n"),
        format!("  z = f32[] constant(0)\n  ROOT r = f32[37]{{0}} reduce({x}, z), dimensions={{0}}, to_apply=add\n"),
        format!("  z = f32[] constant(0)\n  ROOT r = f32[] reduce({x}, z), dimensions={{0,1}}, to_apply=add\n"),
        format!("  z = f32[] constant(-inf)\n  ROOT r = f32[6,35]{{1,0}} reduce-window({x}, z), window={{size=1x3}}, to_apply=max\n"),
        format!(
            "  z = f32[] constant(-inf)\n  m = f32[6]{{0}} reduce({x}, z), dimensions={{1}}, to_apply=max\n  \
             mb = f32[6,37]{{1,0}} broadcast(m), dimensions={{0}}\n  d = f32[6,37]{{1,0}} subtract({x}, mb)\n  \
             e = f32[6,37]{{1,0}} exponential(d)\n  zero = f32[] constant(0)\n  \
             t = f32[6]{{0}} reduce(e, zero), dimensions={{1}}, to_apply=add\n  \
             tb = f32[6,37]{{1,0}} broadcast(t), dimensions={{0}}\n  ROOT r = f32[6,37]{{1,0}} divide(e, tb)\n"
        ),
        format!("  ROOT r = f32[6,37]{{1,0}} sort({x}), dimensions={{1}}, to_apply=less\n"),
        format!(
            "  i = s32[2,1]{{1,0}} constant({{{{4}}, {{1}}}})\n  u = f32[2,37]{{1,0}} slice({x}), slice={{[0:2], [0:37]}}\n  \
             ROOT r = f32[6,37]{{1,0}} scatter({x}, i, u), update_window_dims={{1}}, inserted_window_dims={{0}}, \
             scatter_dims_to_operand_dims={{0}}, index_vector_dim=1, to_apply=add\n"
        ),
        format!(
            "  w = f32[37,5]{{1,0}} parameter({n})\n  d = f32[6,5]{{1,0}} dot({x}, w), lhs_contracting_dims={{1}}, rhs_contracting_dims={{0}}\n  \
             {}  ROOT r = f32[6,5]{{1,0}} add(d, b{})\n",
            (0..n)
                .map(|i| format!("b{i} = f32[6,5]{{1,0}} slice(p{i}), slice={{[0:6], [0:5]}}\n  "))
                .collect::<String>()
                + &(1..n)
                    .map(|i| format!("b{} = f32[6,5]{{1,0}} add(b{}, b{i})\n  ", n + i, if i == 1 { 0 } else { n + i - 1 }))
                    .collect::<String>(),
            2 * n - 1
        ),
    ];
    for tail in tails {
        let text = format!("HloModule many\n{add}{max}{less}ENTRY e {{\n{sum}{tail}}}");
        let module = parse(&text);
        check_against_interpreter(&module, &random_args(&module, 9), CLOSE);
    }
}

/// Concatenates of concatenates of one value (`y = concatenate([y] * 9)`
/// three times, on u8 whose vectors hold 16 lanes): each operand slot of
/// a fused concatenate holds its own copy of the operand's code, so the
/// slots multiply; a value that would fill more than 16 is materialized
/// (fused whole, the kernels took 2 s to compile).
#[test]
fn nested_concatenates_of_one_value() {
    let text = "HloModule nested
ENTRY e {
  x = u8[3]{0} parameter(0)
  c3 = u8[27]{0} concatenate(x, x, x, x, x, x, x, x, x), dimensions={0}
  c4 = u8[243]{0} concatenate(c3, c3, c3, c3, c3, c3, c3, c3, c3), dimensions={0}
  ROOT c5 = u8[2187]{0} concatenate(c4, c4, c4, c4, c4, c4, c4, c4, c4), dimensions={0}
}";
    let module = parse(text);
    let exe = check_against_interpreter(&module, &random_args(&module, 4), CLOSE);
    assert!(exe
        .dump()
        .contains("keep c3 out of c4: its code would be copied into 81 operand slots"));
}

/// Selects and clamps between pred values held as masks of different
/// widths: a compare of a wider type (a lane per 2, 4 or 8 bytes) and a
/// pred read from memory (a lane per byte). The JIT took only every
/// fourth lane of the pred parameter (found by differential testing).
#[test]
fn selects_between_preds_of_different_widths() {
    for ty in ["s8", "u8", "s16", "f16", "s32", "f32", "s64", "f64"] {
        for n in [3, 5, 8, 17] {
            for root in [
                "select(c, m, y)",
                "select(c, y, m)",
                "clamp(y, m, c)",
                "clamp(m, c, y)",
            ] {
                let text = format!(
                    "HloModule preds
ENTRY e {{
  c = pred[{n}]{{0}} parameter(0)
  x = {ty}[{n}]{{0}} parameter(1)
  y = pred[{n}]{{0}} parameter(2)
  z = {ty}[] constant(0)
  zs = {ty}[{n}]{{0}} broadcast(z), dimensions={{}}
  m = pred[{n}]{{0}} compare(x, zs), direction=GT
  ROOT r = pred[{n}]{{0}} {root}
}}"
                );
                let module = parse(&text);
                for seed in 0..2 {
                    check_against_interpreter(&module, &random_args(&module, seed), CLOSE);
                }
            }
        }
    }
}
