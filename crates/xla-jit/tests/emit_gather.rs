//! `gather` kernels against the interpreter and the worked examples of
//! `docs/semantics.md`, *Gather*: clamped starts, batching dimensions, index_vector_dim
//! in the middle and implicit, every index type, size-0/size-1
//! dimensions, non-default layouts, and fusion with elementwise users.

use crate::emit_harness;

use emit_harness::*;
use xla_core::{Literal, Shape};

/// A literal of `shape` (any layout) with distinct values.
fn data(shape: &str) -> Literal {
    let shape: Shape = shape.parse().unwrap();
    let a = shape.as_array().unwrap();
    let n = a.element_count() as usize;
    let values: Vec<f64> = (0..n).map(|i| ((i * 37 + 11) % 101) as f64).collect();
    let lit = Literal::from_vec(a.dims(), values).unwrap();
    lit.convert(a.element_type()).unwrap()
}

/// Index values (some out of range, some negative) of `shape`.
fn indices(shape: &str, values: &[i64]) -> Literal {
    let shape: Shape = shape.parse().unwrap();
    let a = shape.as_array().unwrap();
    let lit = Literal::from_vec(a.dims(), values.to_vec()).unwrap();
    let lit = lit.convert(a.element_type()).unwrap();
    lit.relayout(&a.layout_or_default()).unwrap()
}

/// A module gathering from `operand` with `idx`, attributes `attrs`.
fn module(operand: &str, idx: &str, out: &str, attrs: &str) -> String {
    format!(
        "HloModule m\nENTRY e {{\n  p0 = {operand} parameter(0)\n  p1 = {idx} parameter(1)\n  \
         ROOT g = {out} gather(p0, p1), {attrs}\n}}"
    )
}

/// Runs the kernels, checks them against the interpreter and, when given,
/// against `want` (row-major values).
fn check_gather(text: &str, args: &[&Literal], want: Option<&[i32]>) {
    assert_eq!(check(text, args), Checked::Same, "{text}");
    if let Some(want) = want {
        let c = compile(text);
        let got = run(&c, args)
            .relayout(&xla_core::layout::Layout::default_for_rank(
                c.module
                    .entry_computation()
                    .root_instr()
                    .shape
                    .as_array()
                    .unwrap()
                    .rank(),
            ))
            .unwrap();
        assert_eq!(got.data::<i32>().unwrap(), want, "{text}");
    }
}

fn op3x3() -> Literal {
    Literal::from_vec(&[3, 3], (1..=9).collect::<Vec<i32>>()).unwrap()
}

#[test]
fn worked_examples() {
    let op = op3x3();
    let rows = indices("s32[2,1]", &[0, 2]);
    check_gather(
        &module(
            "s32[3,3]",
            "s32[2,1]",
            "s32[2,3]",
            "offset_dims={1}, collapsed_slice_dims={0}, start_index_map={0}, \
             index_vector_dim=1, slice_sizes={1,3}",
        ),
        &[&op, &rows],
        Some(&[1, 2, 3, 7, 8, 9]),
    );
    let windows = indices("s32[3,2]", &[0, 1, 1, 0, 2, 2]);
    check_gather(
        &module(
            "s32[3,3]",
            "s32[3,2]",
            "s32[3,2,2]",
            "offset_dims={1,2}, collapsed_slice_dims={}, start_index_map={0,1}, \
             index_vector_dim=1, slice_sizes={2,2}",
        ),
        &[&op, &windows],
        Some(&[2, 3, 5, 6, 4, 5, 7, 8, 5, 6, 8, 9]),
    );
    let columns = indices("s32[2]", &[2, 0]);
    check_gather(
        &module(
            "s32[3,3]",
            "s32[2]",
            "s32[3,2]",
            "offset_dims={0}, collapsed_slice_dims={1}, start_index_map={1}, \
             index_vector_dim=1, slice_sizes={3,1}",
        ),
        &[&op, &columns],
        Some(&[3, 1, 6, 4, 9, 7]),
    );
    let points = indices("s32[3,2]", &[0, 0, 1, 2, 2, 1]);
    check_gather(
        &module(
            "s32[3,3]",
            "s32[3,2]",
            "s32[3]",
            "offset_dims={}, collapsed_slice_dims={0,1}, start_index_map={0,1}, \
             index_vector_dim=1, slice_sizes={1,1}",
        ),
        &[&op, &points],
        Some(&[1, 6, 8]),
    );
    let op43 = Literal::from_vec(&[4, 3], (0..12).collect::<Vec<i32>>()).unwrap();
    let nd = indices("s32[2,2,1]", &[3, 1, 0, 2]);
    check_gather(
        &module(
            "s32[4,3]",
            "s32[2,2,1]",
            "s32[2,2,3]",
            "offset_dims={2}, collapsed_slice_dims={0}, start_index_map={0}, \
             index_vector_dim=2, slice_sizes={1,3}",
        ),
        &[&op43, &nd],
        Some(&[9, 10, 11, 3, 4, 5, 0, 1, 2, 6, 7, 8]),
    );
}

#[test]
fn starts_are_clamped_for_every_index_type() {
    let op = data("f32[16,11]");
    let attrs = "offset_dims={1,2}, collapsed_slice_dims={}, start_index_map={0,1}, \
                 index_vector_dim=1, slice_sizes={8,6}";
    for ty in ["s8", "s16", "s32", "s64", "u8", "u16", "u32", "u64"] {
        let idx_shape = format!("{ty}[5,2]");
        let values: &[i64] = if ty.starts_with('u') {
            &[0, 0, 3, 4, 9, 6, 200, 1, 8, 250]
        } else {
            &[0, 0, 3, 4, 9, 6, -5, 1, 8, -100]
        };
        let idx = indices(&idx_shape, values);
        let text = module("f32[16,11]", &idx_shape, "f32[5,8,6]", attrs);
        check_gather(&text, &[&op, &idx], None);
    }
}

#[test]
fn index_vector_dim_in_the_middle_and_first() {
    let op = data("f32[6,7,5]");
    // Index vectors along dimension 1 of s32[4,2,3].
    let idx = indices(
        "s32[4,2,3]",
        &[
            0, 1, 2, 3, 4, 5, 5, 4, 3, 2, 1, 0, 9, -1, 2, 0, 6, 3, 1, 1, 1, 2, 2, 2,
        ],
    );
    let text = module(
        "f32[6,7,5]",
        "s32[4,2,3]",
        "f32[4,3,2,5]",
        "offset_dims={2,3}, collapsed_slice_dims={0}, start_index_map={0,1}, \
         index_vector_dim=1, slice_sizes={1,2,5}",
    );
    check_gather(&text, &[&op, &idx], None);
    let idx = indices("s32[2,3]", &[4, 0, 9, 1, 6, -2]);
    let text = module(
        "f32[6,7,5]",
        "s32[2,3]",
        "f32[7,3,5]",
        "offset_dims={0,2}, collapsed_slice_dims={0}, start_index_map={2,0}, \
         index_vector_dim=0, slice_sizes={1,7,5}",
    );
    check_gather(&text, &[&op, &idx], None);
}

#[test]
fn batching_dims() {
    // Per batch b, gather rows of operand[b] (XLA's batched gather).
    let op = data("f32[3,5,8]");
    let idx = indices("s32[3,4,1]", &[0, 4, 2, 9, 1, 1, 3, -1, 4, 0, 2, 2]);
    let text = module(
        "f32[3,5,8]",
        "s32[3,4,1]",
        "f32[3,4,8]",
        "offset_dims={2}, collapsed_slice_dims={1}, start_index_map={1}, \
         operand_batching_dims={0}, start_indices_batching_dims={0}, \
         index_vector_dim=2, slice_sizes={1,1,8}",
    );
    check_gather(&text, &[&op, &idx], None);
    // The batch dimension of the indices after the gathered one.
    let idx = indices("s32[4,3]", &[0, 4, 2, 9, 1, 1, 3, -1, 4, 0, 2, 2]);
    let text = module(
        "f32[3,5,8]",
        "s32[4,3]",
        "f32[4,3,8]",
        "offset_dims={2}, collapsed_slice_dims={1}, start_index_map={1}, \
         operand_batching_dims={0}, start_indices_batching_dims={1}, \
         index_vector_dim=2, slice_sizes={1,1,8}",
    );
    check_gather(&text, &[&op, &idx], None);
}

#[test]
fn size_zero_and_size_one_dims() {
    let op = data("f32[4,3]");
    let idx = indices("s32[0,1]", &[]);
    let text = module(
        "f32[4,3]",
        "s32[0,1]",
        "f32[0,3]",
        "offset_dims={1}, collapsed_slice_dims={0}, start_index_map={0}, \
         index_vector_dim=1, slice_sizes={1,3}",
    );
    check_gather(&text, &[&op, &idx], None);
    let idx = indices("s32[1,1]", &[7]);
    let text = module(
        "f32[4,3]",
        "s32[1,1]",
        "f32[1,1,3]",
        "offset_dims={1,2}, collapsed_slice_dims={}, start_index_map={0}, \
         index_vector_dim=1, slice_sizes={1,3}",
    );
    check_gather(&text, &[&op, &idx], None);
    let idx = indices("s32[2,1]", &[1, 2]);
    let text = module(
        "f32[4,3]",
        "s32[2,1]",
        "f32[2,0]",
        "offset_dims={1}, collapsed_slice_dims={0}, start_index_map={0}, \
         index_vector_dim=1, slice_sizes={1,0}",
    );
    check_gather(&text, &[&op, &idx], None);
}

/// A collapsed slice dimension of size 0 (`docs/semantics.md`, *Gather*, rule 5
/// accepts it): the result is not empty, yet every slice is, and XLA
/// gives zeros. The kernels read at the clamped start, one past the end
/// of the dimension (fuzzing found garbage values), so the gather is left
/// to the interpreter.
#[test]
fn a_collapsed_slice_of_size_zero_gives_zeros() {
    let text = module(
        "bf16[5,7,3]",
        "s32[4,2]",
        "bf16[4,2,3]",
        "offset_dims={1,2}, collapsed_slice_dims={1}, start_index_map={1,0}, \
         index_vector_dim=1, slice_sizes={2,0,3}",
    );
    assert_eq!(
        check(
            &text,
            &[&data("bf16[5,7,3]"), &indices("s32[4,2]", &[0; 8])]
        ),
        Checked::Interpreted
    );
    let module: xla_core::HloModule = text.parse().unwrap();
    let got = xla_jit::Client::cpu()
        .unwrap()
        .compile(&module)
        .unwrap()
        .execute(&[
            &data("bf16[5,7,3]"),
            &indices("s32[4,2]", &[7, 0, 6, 1, 0, 4, 3, 3]),
        ])
        .unwrap();
    assert_eq!(
        got.convert(xla_core::PrimitiveType::F32)
            .unwrap()
            .to_vec::<f32>()
            .unwrap(),
        [0.0; 24]
    );
}

#[test]
fn layouts() {
    for (ol, il, rl) in [
        ("{0,1}", "{1,0}", "{1,2,0}"),
        ("{1,0}", "{0,1}", "{0,1,2}"),
        ("{0,1:T(2,2)}", "{1,0}", "{2,1,0}"),
        ("{1,0:P(20,20)}", "{0,1}", "{2,0,1}"),
    ] {
        let op = data(&format!("f32[16,11]{ol}"));
        let idx = indices(&format!("s64[5,2]{il}"), &[0, 0, 3, 4, 9, 6, -5, 1, 8, 99]);
        let text = module(
            &format!("f32[16,11]{ol}"),
            &format!("s64[5,2]{il}"),
            &format!("f32[5,8,6]{rl}"),
            "offset_dims={1,2}, collapsed_slice_dims={}, start_index_map={0,1}, \
             index_vector_dim=1, slice_sizes={8,6}",
        );
        check_gather(&text, &[&op, &idx], None);
    }
}

#[test]
fn gather_fuses_with_elementwise_users_and_index_producers() {
    let text = "HloModule m\nENTRY e {\n  p0 = f32[16,11] parameter(0)\n  \
                p1 = s64[7,1] parameter(1)\n  c = s32[7,1] convert(p1)\n  \
                g = f32[7,11] gather(p0, c), offset_dims={1}, collapsed_slice_dims={0}, \
                start_index_map={0}, index_vector_dim=1, slice_sizes={1,11}\n  \
                ROOT n = f32[7,11] negate(g)\n}";
    let op = data("f32[16,11]");
    let idx = indices("s64[7,1]", &[0, 15, 3, -2, 40, 7, 8]);
    check_gather(text, &[&op, &idx], None);
    let c = compile(text);
    assert_eq!(c.plan.fusions.len(), 1, "{}", plan_text(&c));
}
