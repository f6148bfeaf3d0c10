//! Random dots on the engine: batch dimensions, transposed operands (read
//! through strides), non-default operand and result layouts, and fused
//! epilogues (bias along either dimension, relu, scaling), against the
//! reference interpreter. Then dots the engine only computes after the
//! JIT's dot preparation (permuted or multiple contracting dimensions,
//! batch dimensions anywhere, narrow operands with wider results, integer
//! and pred dots, size-0 and size-1 dimensions), each without any
//! interpreter fallback.

use crate::runtime_support;

use runtime_support::{check_against_interpreter, random_args, Rng};
use xla_core::builder::{XlaBuilder, XlaOp};
use xla_core::hlo::DotDimensionNumbers;
use xla_core::layout::Layout;
use xla_core::literal::Tolerance;
use xla_core::{ArrayShape, HloModule, Literal, Opcode, PrimitiveType, Shape};

/// `dot(a, b)` with `a` and `b` possibly transposed and batched, then a
/// random epilogue.
fn random_dot(seed: u64) -> HloModule {
    let mut rng = Rng(seed);
    let ty = if rng.below(4) == 0 {
        PrimitiveType::F64
    } else {
        PrimitiveType::F32
    };
    let b = XlaBuilder::new(format!("dot_{seed}"));
    let size = |rng: &mut Rng| 1 + rng.below(24) as i64;
    let (m, k, n) = (size(&mut rng), size(&mut rng), size(&mut rng));
    let batch = (rng.below(3) == 0).then(|| 1 + rng.below(4) as i64);
    let array = |dims: Vec<i64>| Shape::from(ArrayShape::new(ty, dims));
    let lead: Vec<i64> = batch.into_iter().collect();
    let nb = lead.len() as i64;
    // Each operand is a parameter, or the transpose of one (absorbed into
    // the dot's strides).
    let mut params = 0;
    let mut operand = |rows: i64, cols: i64, rng: &mut Rng| -> XlaOp {
        let transposed = rng.below(2) == 0;
        let dims = if transposed {
            [cols, rows]
        } else {
            [rows, cols]
        };
        let shape = array(lead.iter().copied().chain(dims).collect());
        let p = b.parameter(params, &shape, &format!("p{params}")).unwrap();
        params += 1;
        if transposed {
            let mut perm: Vec<i64> = (0..nb).collect();
            perm.extend([nb + 1, nb]);
            b.transpose(p, &perm).unwrap()
        } else {
            p
        }
    };
    let lhs = operand(m, k, &mut rng);
    let rhs = operand(k, n, &mut rng);
    let dims = DotDimensionNumbers {
        lhs_batch: (0..nb).collect(),
        rhs_batch: (0..nb).collect(),
        lhs_contracting: vec![nb + 1],
        rhs_contracting: vec![nb],
    };
    let mut value = b.dot_general(lhs, rhs, &dims).unwrap();
    let out_dims: Vec<i64> = lead.iter().copied().chain([m, n]).collect();
    for _ in 0..rng.below(4) {
        value = match rng.below(4) {
            0 | 1 => {
                // A bias along the rows or the columns.
                let along = nb + rng.below(2) as i64;
                let len = out_dims[along as usize];
                let bias = b
                    .parameter(params, &array(vec![len]), &format!("p{params}"))
                    .unwrap();
                params += 1;
                let bias = b.broadcast_in_dim(bias, &out_dims, &[along]).unwrap();
                b.add(value, bias, &[]).unwrap()
            }
            2 => {
                let zero = b.constant_r0(0.0f64).unwrap();
                let zero = b.convert_element_type(zero, ty).unwrap();
                let zero = b.broadcast_in_dim(zero, &out_dims, &[]).unwrap();
                b.max(value, zero, &[]).unwrap()
            }
            _ => {
                let half = b.constant_r0(0.5f64).unwrap();
                let half = b.convert_element_type(half, ty).unwrap();
                let half = b.broadcast_in_dim(half, &out_dims, &[]).unwrap();
                b.mul(value, half, &[]).unwrap()
            }
        };
    }
    let mut module = b.build(value).unwrap().into_module();
    // Random layouts for the operands and the result.
    let mut signature = module.entry_program_shape();
    let relayout = |shape: &mut Shape, rng: &mut Rng| {
        if let Shape::Array(a) = shape {
            if a.rank() >= 2 && rng.below(2) == 0 {
                let mut order: Vec<i64> = (0..a.rank() as i64).collect();
                order.swap(0, 1);
                *a = a.clone().with_layout(Layout::new(order));
            }
        }
    };
    signature
        .parameters
        .iter_mut()
        .for_each(|p| relayout(p, &mut rng));
    relayout(&mut signature.result, &mut rng);
    let entry = module.entry;
    for instr in &mut module.computation_mut(entry).instructions {
        if instr.opcode == Opcode::Parameter {
            instr.shape =
                signature.parameters[instr.attrs.parameter_number.unwrap() as usize].clone();
        }
    }
    module.entry_layout = Some(signature);
    module
}

#[test]
fn random_dots_with_epilogues_match_the_interpreter() {
    let mut on_the_engine = 0;
    for seed in 0..200u64 {
        let module = random_dot(seed);
        let args = random_args(&module, seed);
        let outcome = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            check_against_interpreter(&module, &args, Tolerance::new(1e-4, 1e-4))
        }));
        let Ok(exe) = outcome else {
            panic!("random dot {seed} failed:\n{module}");
        };
        let dump = exe.dump();
        let program = &dump[dump.find("== program").unwrap()..dump.find("== buffers").unwrap()];
        on_the_engine += program.contains("  dot ") as usize;
        assert!(
            exe.fallback_ops().iter().all(|op| op.opcode != Opcode::Dot),
            "random dot {seed} does not run on the engine:\n{dump}"
        );
    }
    assert_eq!(on_the_engine, 200);
}

/// Runs `text` on the JIT and the interpreter for a few random arguments
/// (integers and preds must agree exactly, floats within `tolerance`) and
/// checks that nothing falls back to the interpreter. Returns the
/// program part of the last dump.
fn check_compiled(text: &str, tolerance: Tolerance) -> String {
    let module = runtime_support::parse(text);
    let mut program = String::new();
    for seed in 0..3 {
        let args = random_args(&module, seed);
        let exe = check_against_interpreter(&module, &args, tolerance);
        let dump = exe.dump();
        assert!(
            exe.fallback_ops().is_empty(),
            "interpreted: {:?}\n{dump}",
            exe.fallback_ops()
        );
        program = dump[dump.find("== program").unwrap()..dump.find("== buffers").unwrap()].into();
        assert!(program.contains("  dot "), "no dot thunk:\n{dump}");
    }
    program
}

const F32_TOLERANCE: Tolerance = Tolerance::new(1e-4, 1e-4);
const EXACT: Tolerance = Tolerance::new(0.0, 0.0);

/// One entry `dot` of `lhs` and `rhs` (shapes with layouts) into `out`.
fn dot_module(lhs: &str, rhs: &str, out: &str, dims: &str) -> String {
    format!(
        "HloModule m, entry_computation_layout={{({lhs}, {rhs})->{out}}}
ENTRY e {{
  a = {lhs} parameter(0)
  b = {rhs} parameter(1)
  ROOT d = {out} dot(a, b), {dims}
}}"
    )
}

#[test]
fn permuted_and_multiple_contracting_dims() {
    // rhs contracting {1,0} cannot be read as one strided k: the rhs is
    // transposed by a kernel first.
    let program = check_compiled(
        &dot_module(
            "f32[3,4,5]{2,1,0}",
            "f32[5,4,2]{2,1,0}",
            "f32[3,2]{1,0}",
            "lhs_contracting_dims={1,2}, rhs_contracting_dims={1,0}",
        ),
        F32_TOLERANCE,
    );
    assert!(program.contains("transpose"), "{program}");
    // Listed minor-first on both sides: sorting the pairs is enough, no
    // copy.
    let program = check_compiled(
        &dot_module(
            "f32[3,4,5]{2,1,0}",
            "f32[4,5,2]{2,1,0}",
            "f32[3,2]{1,0}",
            "lhs_contracting_dims={2,1}, rhs_contracting_dims={1,0}",
        ),
        F32_TOLERANCE,
    );
    assert_eq!(program.matches("kernel ").count(), 0, "{program}");
    // Three contracting dimensions around a batch dimension.
    check_compiled(
        &dot_module(
            "f32[2,3,2,4,5]{4,3,2,1,0}",
            "f32[5,2,4,3,6]{4,3,2,1,0}",
            "f32[2,2,6]{2,1,0}",
            "lhs_batch_dims={0}, lhs_contracting_dims={4,1,3}, \
             rhs_batch_dims={1}, rhs_contracting_dims={0,3,2}",
        ),
        F32_TOLERANCE,
    );
}

#[test]
fn batch_dims_in_other_positions() {
    // Batch in the middle of the lhs and of the rhs.
    check_compiled(
        &dot_module(
            "f32[5,2,3,4]{3,2,1,0}",
            "f32[4,2,6]{2,1,0}",
            "f32[2,5,3,6]{3,2,1,0}",
            "lhs_batch_dims={1}, lhs_contracting_dims={3}, \
             rhs_batch_dims={1}, rhs_contracting_dims={0}",
        ),
        F32_TOLERANCE,
    );
    // Batch last on both sides.
    check_compiled(
        &dot_module(
            "f32[3,4,7]{2,1,0}",
            "f32[4,5,7]{2,1,0}",
            "f32[7,3,5]{2,1,0}",
            "lhs_batch_dims={2}, lhs_contracting_dims={1}, \
             rhs_batch_dims={2}, rhs_contracting_dims={0}",
        ),
        F32_TOLERANCE,
    );
    // Two batch dimensions, listed in opposite orders on the two sides.
    check_compiled(
        &dot_module(
            "f64[2,3,4,5]{3,2,1,0}",
            "f64[3,2,5,6]{3,2,1,0}",
            "f64[2,3,4,6]{3,2,1,0}",
            "lhs_batch_dims={0,1}, lhs_contracting_dims={3}, \
             rhs_batch_dims={1,0}, rhs_contracting_dims={2}",
        ),
        Tolerance::new(1e-12, 1e-12),
    );
}

#[test]
fn column_major_operands_and_results() {
    check_compiled(
        &dot_module(
            "f32[4,5]{0,1}",
            "f32[5,3]{0,1}",
            "f32[4,3]{0,1}",
            "lhs_contracting_dims={1}, rhs_contracting_dims={0}",
        ),
        F32_TOLERANCE,
    );
    check_compiled(
        &dot_module(
            "f32[2,3,4]{0,1,2}",
            "f32[2,4,5]{1,2,0}",
            "f32[2,3,5]{0,2,1}",
            "lhs_batch_dims={0}, lhs_contracting_dims={2}, \
             rhs_batch_dims={0}, rhs_contracting_dims={1}",
        ),
        F32_TOLERANCE,
    );
    // The two free lhs dimensions of the result are not nested in
    // {0,1,2}: the dot writes a row-major result and a kernel relays it.
    let program = check_compiled(
        &dot_module(
            "f32[2,3,4]{2,1,0}",
            "f32[4,5]{1,0}",
            "f32[2,3,5]{0,1,2}",
            "lhs_contracting_dims={2}, rhs_contracting_dims={0}",
        ),
        F32_TOLERANCE,
    );
    assert_eq!(program.matches("kernel ").count(), 1, "{program}");
}

#[test]
fn narrow_float_operands_with_a_wider_result() {
    check_compiled(
        &dot_module(
            "bf16[6,40]{1,0}",
            "bf16[40,7]{1,0}",
            "f32[6,7]{1,0}",
            "lhs_contracting_dims={1}, rhs_contracting_dims={0}",
        ),
        F32_TOLERANCE,
    );
    check_compiled(
        &dot_module(
            "f16[2,3,8]{2,1,0}",
            "f16[2,8,5]{1,2,0}",
            "f32[2,3,5]{2,1,0}",
            "lhs_batch_dims={0}, lhs_contracting_dims={2}, \
             rhs_batch_dims={0}, rhs_contracting_dims={1}",
        ),
        F32_TOLERANCE,
    );
    check_compiled(
        &dot_module(
            "f32[5,9]{1,0}",
            "f32[9,4]{1,0}",
            "f64[5,4]{1,0}",
            "lhs_contracting_dims={1}, rhs_contracting_dims={0}",
        ),
        Tolerance::new(1e-12, 1e-12),
    );
}

#[test]
fn integer_dots_match_bit_for_bit() {
    let mat = "lhs_contracting_dims={1}, rhs_contracting_dims={0}";
    // Widened before the products: no s8 wrapping.
    check_compiled(
        &dot_module("s8[4,30]{1,0}", "s8[30,3]{1,0}", "s32[4,3]{1,0}", mat),
        EXACT,
    );
    check_compiled(
        &dot_module("u8[4,30]{1,0}", "u8[30,3]{0,1}", "s32[4,3]{1,0}", mat),
        EXACT,
    );
    // Same-type dots wrap in their type (sums of 30 products up to 225).
    check_compiled(
        &dot_module("u8[4,30]{1,0}", "u8[30,3]{1,0}", "u8[4,3]{1,0}", mat),
        EXACT,
    );
    check_compiled(
        &dot_module("s32[5,17]{0,1}", "s32[17,6]{1,0}", "s32[5,6]{1,0}", mat),
        EXACT,
    );
    check_compiled(
        &dot_module(
            "s64[2,3,4,5]{3,2,1,0}",
            "s64[5,4,2]{2,1,0}",
            "s64[2,3]{1,0}",
            "lhs_batch_dims={0}, lhs_contracting_dims={3,2}, \
             rhs_batch_dims={2}, rhs_contracting_dims={0,1}",
        ),
        EXACT,
    );
}

#[test]
fn pred_dots_are_an_or_of_ands() {
    let mat = "lhs_contracting_dims={1}, rhs_contracting_dims={0}";
    check_compiled(
        &dot_module("pred[3,3]{1,0}", "pred[3,2]{1,0}", "pred[3,2]{1,0}", mat),
        EXACT,
    );
    check_compiled(
        &dot_module(
            "pred[2,4,17]{2,1,0}",
            "pred[2,17,5]{1,2,0}",
            "pred[2,4,5]{2,1,0}",
            "lhs_batch_dims={0}, lhs_contracting_dims={2}, \
             rhs_batch_dims={0}, rhs_contracting_dims={1}",
        ),
        EXACT,
    );
    // Pred operands summed as integers.
    check_compiled(
        &dot_module("pred[4,6]{1,0}", "pred[6,3]{1,0}", "s32[4,3]{1,0}", mat),
        EXACT,
    );
}

#[test]
fn size_zero_and_size_one_dims() {
    let mat = "lhs_contracting_dims={1}, rhs_contracting_dims={0}";
    // No rows.
    check_compiled(
        &dot_module("f32[0,5]{1,0}", "f32[5,3]{1,0}", "f32[0,3]{1,0}", mat),
        F32_TOLERANCE,
    );
    // Nothing to contract: zeros (false for pred).
    check_compiled(
        &dot_module("f32[4,0]{1,0}", "f32[0,3]{1,0}", "f32[4,3]{1,0}", mat),
        F32_TOLERANCE,
    );
    check_compiled(
        &dot_module("pred[4,0]{1,0}", "pred[0,3]{1,0}", "pred[4,3]{1,0}", mat),
        EXACT,
    );
    check_compiled(
        &dot_module("s8[4,0]{1,0}", "s8[0,3]{0,1}", "s32[4,3]{1,0}", mat),
        EXACT,
    );
    // Size-1 dimensions in every group, in scrambled positions.
    check_compiled(
        &dot_module(
            "f32[1,3,1,4]{0,3,2,1}",
            "f32[4,1,1,2]{3,1,0,2}",
            "f32[1,3,2]{0,2,1}",
            "lhs_batch_dims={2}, lhs_contracting_dims={3,0}, \
             rhs_batch_dims={2}, rhs_contracting_dims={0,1}",
        ),
        F32_TOLERANCE,
    );
    // An empty batch.
    check_compiled(
        &dot_module(
            "f32[0,3,4]{2,1,0}",
            "f32[0,4,2]{2,1,0}",
            "f32[0,3,2]{2,1,0}",
            "lhs_batch_dims={0}, lhs_contracting_dims={2}, \
             rhs_batch_dims={0}, rhs_contracting_dims={1}",
        ),
        F32_TOLERANCE,
    );
}

#[test]
fn complex_dots_with_epilogues_match_the_interpreter() {
    for ty in ["c64", "c128"] {
        let text = format!(
            "HloModule m\nENTRY e {{\n  a = {ty}[5,7]{{1,0}} parameter(0)\n  \
             b = {ty}[7,3]{{1,0}} parameter(1)\n  c = {ty}[3]{{0}} parameter(2)\n  \
             d = {ty}[5,3]{{1,0}} dot(a, b), lhs_contracting_dims={{1}}, rhs_contracting_dims={{0}}\n  \
             cb = {ty}[5,3]{{1,0}} broadcast(c), dimensions={{1}}\n  \
             m = {ty}[5,3]{{1,0}} multiply(d, cb)\n  \
             ROOT r = {ty}[5,3]{{1,0}} add(m, d)\n}}"
        );
        let module = runtime_support::parse(&text);
        let args = random_args(&module, 11);
        check_against_interpreter(&module, &args, Tolerance::new(1e-4, 1e-4));
    }
}

/// Two dots added before a bias and relu (an RNN step): one dot carries the
/// epilogue, the other is its own dot thunk; both run on the engine and the
/// epilogue compiles (a region once took both dots, and the second ran in
/// the interpreter — and crashed Cranelift when the verifier was off).
#[test]
fn an_epilogue_reading_a_second_dot_runs_on_the_engine() {
    let module = runtime_support::parse(
        "HloModule m
ENTRY e {
  x = f32[2,3]{1,0} parameter(0)
  wx = f32[3,2]{1,0} parameter(1)
  h = f32[2,2]{1,0} parameter(2)
  wh = f32[2,2]{1,0} parameter(3)
  b = f32[2]{0} parameter(4)
  dx = f32[2,2]{1,0} dot(x, wx), lhs_contracting_dims={1}, rhs_contracting_dims={0}
  dh = f32[2,2]{1,0} dot(h, wh), lhs_contracting_dims={1}, rhs_contracting_dims={0}
  sum = f32[2,2]{1,0} add(dx, dh)
  bb = f32[2,2]{1,0} broadcast(b), dimensions={1}
  pre = f32[2,2]{1,0} add(sum, bb)
  zero = f32[] constant(0)
  zeros = f32[2,2]{1,0} broadcast(zero), dimensions={}
  ROOT r = f32[2,2]{1,0} maximum(pre, zeros)
}",
    );
    let exe = runtime_support::compile_all(&module);
    let x = Literal::matrix(&[[1.0f32, 2.0, 3.0], [-1.0, 0.0, 1.0]]);
    let wx = Literal::matrix(&[[1.0f32, 0.0], [0.0, 1.0], [1.0, -1.0]]);
    let h = Literal::matrix(&[[0.5f32, -0.5], [2.0, 1.0]]);
    let wh = Literal::matrix(&[[2.0f32, 0.0], [0.0, 4.0]]);
    let b = Literal::vector(&[0.25f32, -10.0]);
    let out = exe.execute(&[&x, &wx, &h, &wh, &b]).unwrap();
    // x·wx = [[4, -1], [0, -1]], h·wh = [[1, -2], [4, 4]], + b, relu.
    assert_eq!(out.to_vec::<f32>().unwrap(), [5.25, 0.0, 4.25, 0.0]);
}

/// Scores from a `dot`, sorted along each row (retrieval, top-k routing):
/// the dot runs on the engine and the sort kernel reads its result.
#[test]
fn a_dot_feeding_a_sort_runs_on_the_engine() {
    let module = runtime_support::parse(
        "HloModule m
cmp {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT r = pred[] compare(a, b), direction=GT
}
ENTRY e {
  a = f32[2,2]{1,0} parameter(0)
  b = f32[2,3]{1,0} parameter(1)
  d = f32[2,3]{1,0} dot(a, b), lhs_contracting_dims={1}, rhs_contracting_dims={0}
  ROOT s = f32[2,3]{1,0} sort(d), dimensions={1}, to_apply=cmp
}",
    );
    let exe = runtime_support::compile_all(&module);
    let a = Literal::matrix(&[[1.0f32, 0.0], [1.0, -1.0]]);
    let b = Literal::matrix(&[[1.0f32, 3.0, 2.0], [0.5, 4.0, -1.0]]);
    // a·b = [[1, 3, 2], [0.5, -1, 3]], each row descending.
    let out = exe.execute(&[&a, &b]).unwrap();
    assert_eq!(
        out.to_vec::<f32>().unwrap(),
        [3.0, 2.0, 1.0, 3.0, 0.5, -1.0]
    );
}

/// `(aᵀ·x)ᵀ` with a column-major result, as JAX's gradient of `h @ w`
/// prints it: the transpose becomes a layout-swapping bitcast of the square
/// product, which must not be mistaken for an elementwise epilogue (the
/// dot would write its result through the transposed strides).
#[test]
fn a_transposed_square_product_in_column_major() {
    let module = runtime_support::parse(
        "HloModule m, entry_computation_layout={(f32[2,2]{1,0}, f32[2,2]{1,0})->f32[2,2]{0,1}}
ENTRY e {
  a = f32[2,2]{1,0} parameter(0)
  x = f32[2,2]{1,0} parameter(1)
  d = f32[2,2]{1,0} dot(a, x), lhs_contracting_dims={0}, rhs_contracting_dims={0}
  ROOT t = f32[2,2]{0,1} transpose(d), dimensions={1,0}
}",
    );
    let exe = runtime_support::compile_all(&module);
    let a = Literal::matrix(&[[1.0f32, 2.0], [3.0, 4.0]]);
    let x = Literal::matrix(&[[1.0f32, 0.0], [0.0, 10.0]]);
    let out = exe.execute(&[&a, &x]).unwrap();
    // aᵀ·x = [[1, 30], [2, 40]]; its transpose is [[1, 2], [30, 40]].
    let logical = out.relayout(&Layout::new(vec![1, 0])).unwrap();
    assert_eq!(logical.to_vec::<f32>().unwrap(), [1.0, 2.0, 30.0, 40.0]);
}

/// A dot split over the pool flushes subnormals on every thread, as XLA's
/// does: products of `1e-20`s (each `1e-40`, subnormal) sum to zero, and
/// `inf · 1e-40` is `inf · 0`, NaN. Several runs, since which thread takes
/// which block varies.
#[test]
fn parallel_dots_flush_subnormals_on_every_thread() {
    for n in [128usize, 200] {
        let module = runtime_support::parse(&format!(
            "HloModule m
ENTRY e {{
  a = f32[{n},{n}]{{1,0}} parameter(0)
  b = f32[{n},{n}]{{1,0}} parameter(1)
  ROOT d = f32[{n},{n}]{{1,0}} dot(a, b), lhs_contracting_dims={{1}}, rhs_contracting_dims={{0}}
}}"
        ));
        let exe = runtime_support::compile_all(&module);
        let dims = [n as i64, n as i64];
        let tiny = Literal::from_vec(&dims, vec![1e-20f32; n * n]).unwrap();
        let mut ones = vec![1.0f32; n * n];
        ones[0] = f32::INFINITY;
        let mut subnormal = vec![1.0f32; n * n];
        subnormal[0] = 1e-40;
        let a = Literal::from_vec(&dims, ones).unwrap();
        let b = Literal::from_vec(&dims, subnormal).unwrap();
        for run in 0..8 {
            let zeros = exe
                .execute(&[&tiny, &tiny])
                .unwrap()
                .to_vec::<f32>()
                .unwrap();
            let nonzero = zeros.iter().filter(|v| **v != 0.0).count();
            assert_eq!(nonzero, 0, "n {n}, run {run}");
            let out = exe.execute(&[&a, &b]).unwrap().to_vec::<f32>().unwrap();
            assert!(out[0].is_nan(), "n {n}, run {run}: {}", out[0]);
        }
    }
}

/// `add(x, dot)` with `x` of the result's shape and layout (f32, f64;
/// either operand order; a transposed product, which the simplifier turns
/// into the dot of the swapped operands) runs as one dot adding to its
/// output, primed with `x`: in a loop whose running sum is `x`, without a
/// copy of it. Integers, an addend of another layout and an addend the
/// caller owns (an entry parameter, which would always be copied) keep
/// the epilogue; every result is the interpreter's.
#[test]
fn a_dot_added_to_an_input_accumulates_into_its_output() {
    let entry = |ty: &str, swap: bool, x: &str| {
        let (first, second) = if swap { ("d", "x") } else { ("x", "d") };
        format!(
            "HloModule m
ENTRY e {{
  a = {ty}[16,40]{{1,0}} parameter(0)
  b = {ty}[16,24]{{1,0}} parameter(1)
  c = {ty}[40,24]{{1,0}} parameter(2)
  e = {ty}[24,24]{{1,0}} parameter(3)
  x = {ty}[40,24]{{1,0}} {x}
  d = {ty}[40,24]{{1,0}} dot(a, b), lhs_contracting_dims={{0}}, rhs_contracting_dims={{0}}
  ROOT r = {ty}[40,24]{{1,0}} add({first}, {second})
}}"
        )
    };
    let product = "dot(c, e), lhs_contracting_dims={1}, rhs_contracting_dims={0}";
    for (ty, tolerance) in [("f32", F32_TOLERANCE), ("f64", F32_TOLERANCE)] {
        for swap in [false, true] {
            let program = check_compiled(&entry(ty, swap, product), tolerance);
            assert!(program.contains("adding to its output"), "{program}");
            let program = check_compiled(&entry(ty, swap, "parameter(4)"), tolerance);
            assert!(!program.contains("adding to its output"), "{program}");
        }
    }
    let integers = check_compiled(&entry("s32", false, product), EXACT);
    assert!(!integers.contains("adding to its output"), "{integers}");
    let other_layout = "HloModule m
ENTRY e {
  a = f32[16,40]{1,0} parameter(0)
  b = f32[16,24]{1,0} parameter(1)
  x = f32[40,24]{0,1} parameter(2)
  d = f32[40,24]{1,0} dot(a, b), lhs_contracting_dims={0}, rhs_contracting_dims={0}
  ROOT r = f32[40,24]{1,0} add(x, d)
}";
    let program = check_compiled(other_layout, F32_TOLERANCE);
    assert!(!program.contains("adding to its output"), "{program}");
    let running_sum = "HloModule m
cond {
  cs = (s32[], f32[24,40]{1,0}, f32[6,16,40]{2,1,0}, f32[6,16,24]{2,1,0}) parameter(0)
  ci = s32[] get-tuple-element(cs), index=0
  n = s32[] constant(6)
  ROOT lt = pred[] compare(ci, n), direction=LT
}
body {
  bs = (s32[], f32[24,40]{1,0}, f32[6,16,40]{2,1,0}, f32[6,16,24]{2,1,0}) parameter(0)
  i = s32[] get-tuple-element(bs), index=0
  acc = f32[24,40]{1,0} get-tuple-element(bs), index=1
  as = f32[6,16,40]{2,1,0} get-tuple-element(bs), index=2
  bs2 = f32[6,16,24]{2,1,0} get-tuple-element(bs), index=3
  z = s32[] constant(0)
  sa = f32[1,16,40]{2,1,0} dynamic-slice(as, i, z, z), dynamic_slice_sizes={1,16,40}
  sb = f32[1,16,24]{2,1,0} dynamic-slice(bs2, i, z, z), dynamic_slice_sizes={1,16,24}
  ra = f32[16,40]{1,0} reshape(sa)
  rb = f32[16,24]{1,0} reshape(sb)
  d = f32[40,24]{1,0} dot(ra, rb), lhs_contracting_dims={0}, rhs_contracting_dims={0}
  t = f32[24,40]{1,0} transpose(d), dimensions={1,0}
  next = f32[24,40]{1,0} add(acc, t)
  one = s32[] constant(1)
  i1 = s32[] add(i, one)
  ROOT out = (s32[], f32[24,40]{1,0}, f32[6,16,40]{2,1,0}, f32[6,16,24]{2,1,0}) tuple(i1, next, as, bs2)
}
ENTRY e {
  a = f32[6,16,40]{2,1,0} parameter(0)
  b = f32[6,16,24]{2,1,0} parameter(1)
  x = f32[24,40]{1,0} parameter(2)
  z = s32[] constant(0)
  init = (s32[], f32[24,40]{1,0}, f32[6,16,40]{2,1,0}, f32[6,16,24]{2,1,0}) tuple(z, x, a, b)
  w = (s32[], f32[24,40]{1,0}, f32[6,16,40]{2,1,0}, f32[6,16,24]{2,1,0}) while(init), condition=cond, body=body
  ROOT sum = f32[24,40]{1,0} get-tuple-element(w), index=1
}";
    let program = check_compiled(running_sum, F32_TOLERANCE);
    let body = &program[program.find("body:").expect("a loop")..];
    assert!(body.contains("adding to its output"), "{program}");
    assert!(!body.contains("copy b"), "{program}");
}
