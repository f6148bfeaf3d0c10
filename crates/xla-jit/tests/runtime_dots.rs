//! Random dots on the engine: batch dimensions, transposed operands (read
//! through strides), non-default operand and result layouts, and fused
//! epilogues (bias along either dimension, relu, scaling), against the
//! reference interpreter.

mod runtime_support;

use runtime_support::{check_against_interpreter, random_args, Rng};
use xla_core::builder::{XlaBuilder, XlaOp};
use xla_core::hlo::DotDimensionNumbers;
use xla_core::layout::Layout;
use xla_core::literal::Tolerance;
use xla_core::{ArrayShape, HloModule, Opcode, PrimitiveType, Shape};

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
        let dump = exe.dump(false);
        let program = &dump[dump.find("== program").unwrap()..dump.find("== buffers").unwrap()];
        on_the_engine += program.contains("  dot ") as usize;
        assert!(
            exe.fallback_ops().iter().all(|op| op.opcode != Opcode::Dot),
            "random dot {seed} does not run on the engine:\n{dump}"
        );
    }
    assert_eq!(on_the_engine, 200);
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
