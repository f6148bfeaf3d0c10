//! `scatter` kernels against the interpreter and the worked examples of
//! `docs/semantics.md`, *Scatter*: duplicate indices (add accumulates, set keeps the last
//! in row-major order), dropped windows, batching dimensions, every index
//! type, wrapping and 64-bit element types, non-commutative computations,
//! size-0 dimensions, non-default layouts, fused producers and the
//! in-place decision.

use crate::emit_harness;

use emit_harness::*;
use xla_core::{Literal, Shape};

/// A literal of `shape` (any layout) with distinct values.
fn data(shape: &str) -> Literal {
    let shape: Shape = shape.parse().unwrap();
    let a = shape.as_array().unwrap();
    let n = a.element_count() as usize;
    let values: Vec<f64> = (0..n)
        .map(|i| ((i * 37 + 11) % 101) as f64 - 40.5)
        .collect();
    let lit = Literal::from_vec(a.dims(), values).unwrap();
    let lit = lit.convert(a.element_type()).unwrap();
    lit.relayout(&a.layout_or_default()).unwrap()
}

/// Integer values of `shape` (any layout).
fn ints(shape: &str, values: &[i64]) -> Literal {
    let shape: Shape = shape.parse().unwrap();
    let a = shape.as_array().unwrap();
    let lit = Literal::from_vec(a.dims(), values.to_vec()).unwrap();
    let lit = lit.convert(a.element_type()).unwrap();
    lit.relayout(&a.layout_or_default()).unwrap()
}

/// The computations: `add`, `set` (the update wins) and `sub`
/// (current − update).
fn computations(ty: &str) -> String {
    format!(
        "add {{\n  a = {ty}[] parameter(0)\n  b = {ty}[] parameter(1)\n  \
         ROOT r = {ty}[] add(a, b)\n}}\n\
         set {{\n  a = {ty}[] parameter(0)\n  ROOT b = {ty}[] parameter(1)\n}}\n\
         sub {{\n  a = {ty}[] parameter(0)\n  b = {ty}[] parameter(1)\n  \
         ROOT r = {ty}[] subtract(a, b)\n}}\n\
         max {{\n  a = {ty}[] parameter(0)\n  b = {ty}[] parameter(1)\n  \
         ROOT r = {ty}[] maximum(a, b)\n}}\n"
    )
}

/// A module scattering `updates` into `operand` at `indices`.
fn module(ty: &str, operand: &str, idx: &str, updates: &str, attrs: &str, comp: &str) -> String {
    format!(
        "HloModule m\n{}ENTRY e {{\n  p0 = {operand} parameter(0)\n  p1 = {idx} parameter(1)\n  \
         p2 = {updates} parameter(2)\n  \
         ROOT s = {operand} scatter(p0, p1, p2), {attrs}, to_apply={comp}\n}}",
        computations(ty)
    )
}

/// Checks the kernels against the interpreter and, when given, against
/// `want` (row-major `s32` values).
fn check_scatter(text: &str, args: &[&Literal], want: Option<&[i32]>) {
    assert_eq!(check(text, args), Checked::Same, "{text}");
    if let Some(want) = want {
        let c = compile(text);
        let got = run(&c, args);
        assert_eq!(got.data::<i32>().unwrap(), want, "{text}");
    }
}

const ROWS: &str = "update_window_dims={1}, inserted_window_dims={0}, \
                    scatter_dims_to_operand_dims={0}, index_vector_dim=1";
const POINTS: &str = "update_window_dims={}, inserted_window_dims={0,1}, \
                      scatter_dims_to_operand_dims={0,1}, index_vector_dim=1";
const POINTS_1D: &str = "update_window_dims={}, inserted_window_dims={0}, \
                         scatter_dims_to_operand_dims={0}, index_vector_dim=1";
const WINDOWS: &str = "update_window_dims={1,2}, inserted_window_dims={}, \
                       scatter_dims_to_operand_dims={0,1}, index_vector_dim=1";

/// Rows of 11 elements combine in vectors (8) and a scalar tail (3), for
/// every lane-wise combiner; `sub` keeps the scalar form. Duplicate
/// indices accumulate in row-major order, the out-of-range row is dropped,
/// and a column-major operand is written through strided lanes.
#[test]
fn wide_windows_combine_in_vectors() {
    for ty in ["f32", "f64", "s32", "u8", "bf16"] {
        for layout in ["1,0", "0,1"] {
            let operand = format!("{ty}[6,11]{{{layout}}}");
            let updates = format!("{ty}[5,11]{{1,0}}");
            let at = ints("s32[5,1]", &[2, 0, 2, 9, 5]);
            for comp in ["add", "set", "sub", "max"] {
                let text = module(ty, &operand, "s32[5,1]", &updates, ROWS, comp);
                check_scatter(&text, &[&data(&operand), &at, &data(&updates)], None);
            }
        }
    }
    let text = module("s32", "s32[2,11]", "s32[3,1]", "s32[3,11]", ROWS, "add");
    let at = ints("s32[3,1]", &[1, 1, 0]);
    let upd = ints("s32[3,11]", &(0..33).collect::<Vec<_>>());
    let mut want = vec![0; 22];
    for (k, row) in [1usize, 1, 0].into_iter().enumerate() {
        for j in 0..11 {
            want[row * 11 + j] += (k * 11 + j) as i32;
        }
    }
    check_scatter(
        &text,
        &[&ints("s32[2,11]", &[0; 22]), &at, &upd],
        Some(&want),
    );
}

#[test]
fn worked_examples() {
    let z = ints("s32[3,3]", &[0; 9]);
    let rows = module("s32", "s32[3,3]", "s32[2,1]", "s32[2,3]", ROWS, "add");
    let upd = ints("s32[2,3]", &[1, 2, 3, 4, 5, 6]);
    let at = ints("s32[2,1]", &[0, 2]);
    check_scatter(&rows, &[&z, &at, &upd], Some(&[1, 2, 3, 0, 0, 0, 4, 5, 6]));
    let same = ints("s32[2,1]", &[0, 0]);
    check_scatter(
        &rows,
        &[&z, &same, &upd],
        Some(&[5, 7, 9, 0, 0, 0, 0, 0, 0]),
    );
    // The project rule: updates apply in row-major order, the last wins.
    let set = module("s32", "s32[3,3]", "s32[2,1]", "s32[2,3]", ROWS, "set");
    check_scatter(&set, &[&z, &same, &upd], Some(&[4, 5, 6, 0, 0, 0, 0, 0, 0]));
    let points = module("s32", "s32[3,3]", "s32[3,2]", "s32[3]", POINTS, "add");
    let at = ints("s32[3,2]", &[0, 0, 1, 2, 0, 0]);
    let upd = ints("s32[3]", &[10, 20, 5]);
    check_scatter(
        &points,
        &[&z, &at, &upd],
        Some(&[15, 0, 0, 0, 0, 20, 0, 0, 0]),
    );
    let windows = module("s32", "s32[3,3]", "s32[2,2]", "s32[2,2,2]", WINDOWS, "add");
    let at = ints("s32[2,2]", &[0, 2, 1, 1]);
    let upd = ints("s32[2,2,2]", &[1, 1, 1, 1, 7, 8, 9, 10]);
    check_scatter(
        &windows,
        &[&z, &at, &upd],
        Some(&[0, 0, 0, 0, 7, 8, 0, 9, 10]),
    );
}

#[test]
fn duplicates_apply_in_order_for_every_computation() {
    let op = data("f32[6,5]");
    let at = ints("s32[4,2]", &[1, 1, 0, 0, 1, 1, 3, 2]);
    let upd = data("f32[4,3,3]");
    for comp in ["add", "set", "sub", "max"] {
        let text = module("f32", "f32[6,5]", "s32[4,2]", "f32[4,3,3]", WINDOWS, comp);
        check_scatter(&text, &[&op, &at, &upd], None);
    }
}

#[test]
fn out_of_bounds_windows_are_dropped_for_every_index_type() {
    let op = data("f32[6,5]");
    let upd = data("f32[6,2,3]");
    for ty in ["s8", "u8", "s16", "u16", "s32", "u32", "s64", "u64"] {
        let idx = format!("{ty}[6,2]");
        // Negative (a large value when unsigned), past the end, a window
        // crossing the end, and fits.
        let low = if ty.starts_with('s') { -1 } else { 200 };
        let at = ints(&idx, &[low, 0, 4, 2, 5, 0, 0, 3, 2, 1, 4, 2]);
        let text = module("f32", "f32[6,5]", &idx, "f32[6,2,3]", WINDOWS, "add");
        check_scatter(&text, &[&op, &at, &upd], None);
    }
    // Starts at the ends of the 64-bit ranges (u64 2^64 - 1 and i64::MAX
    // must not overflow into windows that fit).
    for ty in ["s64", "u64"] {
        let idx = format!("{ty}[2,2]");
        let at = ints(&idx, &[i64::MIN, 0, i64::MAX, 1]);
        let text = module("f32", "f32[6,5]", &idx, "f32[2,2,3]", WINDOWS, "add");
        check_scatter(&text, &[&op, &at, &data("f32[2,2,3]")], None);
        let at = ints(&idx, &[-1, 0, 0, i64::MAX]);
        check_scatter(&text, &[&op, &at, &data("f32[2,2,3]")], None);
    }
}

#[test]
fn element_types_bf16_s8_wrap_u64() {
    let text = module("bf16", "bf16[4,3]", "s32[5,1]", "bf16[5,3]", ROWS, "add");
    let at = ints("s32[5,1]", &[1, 1, 3, 1, 0]);
    check_scatter(&text, &[&data("bf16[4,3]"), &at, &data("bf16[5,3]")], None);
    let text = module(
        "s8",
        "s8[10]",
        "s32[4,1]",
        "s8[4]",
        "update_window_dims={}, inserted_window_dims={0}, \
         scatter_dims_to_operand_dims={0}, index_vector_dim=1",
        "add",
    );
    let op = ints("s8[10]", &[120, 0, -128, 3, 4, 5, 6, 7, 8, 9]);
    let at = ints("s32[4,1]", &[0, 0, 2, 9]);
    let upd = ints("s8[4]", &[5, 100, -1, 127]);
    check_scatter(&text, &[&op, &at, &upd], None);
    let text = module(
        "u64",
        "u64[4]",
        "s32[3,1]",
        "u64[3]",
        "update_window_dims={}, inserted_window_dims={0}, \
         scatter_dims_to_operand_dims={0}, index_vector_dim=1",
        "max",
    );
    let op = Literal::vector(&[1u64, u64::MAX - 1, 7, 0]);
    let upd = Literal::vector(&[u64::MAX, 3, 1 << 63]);
    let at = ints("s32[3,1]", &[1, 2, 3]);
    check_scatter(&text, &[&op, &at, &upd], None);
    let got = run(&compile(&text), &[&op, &at, &upd]);
    assert_eq!(got.data::<u64>().unwrap(), &[1, u64::MAX, 7, 1 << 63]);
}

#[test]
fn index_vector_dim_first_and_implicit() {
    let op = data("f32[6,5]");
    let text = module(
        "f32",
        "f32[6,5]",
        "s32[2,3]",
        "f32[3,2,2]",
        "update_window_dims={1,2}, inserted_window_dims={}, \
         scatter_dims_to_operand_dims={0,1}, index_vector_dim=0",
        "add",
    );
    let at = ints("s32[2,3]", &[0, 4, 2, 1, 3, 3]);
    check_scatter(&text, &[&op, &at, &data("f32[3,2,2]")], None);
    let text = module(
        "f32",
        "f32[6,5]",
        "s32[4]",
        "f32[4,5]",
        "update_window_dims={1}, inserted_window_dims={0}, \
         scatter_dims_to_operand_dims={0}, index_vector_dim=1",
        "sub",
    );
    let at = ints("s32[4]", &[5, 0, 6, 5]);
    check_scatter(&text, &[&op, &at, &data("f32[4,5]")], None);
}

#[test]
fn batching_dims() {
    // Per batch `b`, an 8-wide row gets a window of 4 at a start of its
    // own (jax.vmap of dynamic_update_slice).
    let text = module(
        "f32",
        "f32[3,8]",
        "s32[3,1]",
        "f32[3,4]",
        "update_window_dims={1}, inserted_window_dims={}, \
         scatter_dims_to_operand_dims={1}, input_batching_dims={0}, \
         scatter_indices_batching_dims={0}, index_vector_dim=1",
        "set",
    );
    let at = ints("s32[3,1]", &[4, 5, 0]);
    check_scatter(&text, &[&data("f32[3,8]"), &at, &data("f32[3,4]")], None);
    // Batching dimension of the indices after the index vector.
    let text = module(
        "f32",
        "f32[3,5,2]",
        "s32[2,2,3]",
        "f32[2,3]",
        "update_window_dims={}, inserted_window_dims={1,2}, \
         scatter_dims_to_operand_dims={1,2}, input_batching_dims={0}, \
         scatter_indices_batching_dims={2}, index_vector_dim=0",
        "add",
    );
    let at = ints("s32[2,2,3]", &[0, 4, 9, 2, 2, 1, 1, 0, 1, 1, 0, 0]);
    check_scatter(&text, &[&data("f32[3,5,2]"), &at, &data("f32[2,3]")], None);
}

#[test]
fn size_zero_dims() {
    let text = module("f32", "f32[4,3]", "s32[0,1]", "f32[0,3]", ROWS, "add");
    check_scatter(
        &text,
        &[&data("f32[4,3]"), &ints("s32[0,1]", &[]), &data("f32[0,3]")],
        None,
    );
    let text = module("f32", "f32[0,3]", "s32[2,1]", "f32[2,3]", ROWS, "add");
    check_scatter(
        &text,
        &[
            &data("f32[0,3]"),
            &ints("s32[2,1]", &[0, 1]),
            &data("f32[2,3]"),
        ],
        None,
    );
}

/// Every window into an inserted dimension of size 0 is out of bounds: its
/// bound `0 − 1` must not read as a huge unsigned one (fuzzing found the
/// kernel writing past the empty operand and corrupting the heap).
#[test]
fn updates_into_an_empty_inserted_dimension_are_dropped() {
    for (operand, dims) in [("s8[0]", POINTS_1D), ("f32[0,3]", ROWS)] {
        let (ty, updates) = match operand {
            "s8[0]" => ("s8", "s8[64]"),
            _ => ("f32", "f32[64,3]"),
        };
        let text = module(ty, operand, "s32[64,1]", updates, dims, "add");
        let indices: Vec<i64> = (0..64).map(|i| i % 8 - 2).collect();
        for _ in 0..20 {
            check_scatter(
                &text,
                &[&data(operand), &ints("s32[64,1]", &indices), &data(updates)],
                None,
            );
        }
    }
}

#[test]
fn layouts() {
    for (ol, il, ul) in [
        ("{0,1}", "{1,0}", "{1,2,0}"),
        ("{1,0}", "{0,1}", "{0,1,2}"),
        ("{0,1:T(2,2)}", "{1,0}", "{2,1,0}"),
        ("{1,0:P(40,40)}", "{0,1}", "{2,0,1}"),
    ] {
        let operand = format!("f32[16,11]{ol}");
        let idx = format!("s64[5,2]{il}");
        let updates = format!("f32[5,8,6]{ul}");
        let text = module("f32", &operand, &idx, &updates, WINDOWS, "add");
        let at = ints(&idx, &[0, 0, 3, 4, 9, 6, -5, 1, 8, 5]);
        check_scatter(&text, &[&data(&operand), &at, &data(&updates)], None);
    }
}

#[test]
fn producers_fuse_and_the_operand_is_updated_in_place() {
    let text = format!(
        "HloModule m\n{}ENTRY e {{\n  p0 = f32[6,5] parameter(0)\n  p1 = s64[4,1] parameter(1)\n  \
         p2 = f32[4,5] parameter(2)\n  c = s32[4,1] convert(p1)\n  n = f32[4,5] negate(p2)\n  \
         ROOT s = f32[6,5] scatter(p0, c, n), {ROWS}, to_apply=add\n}}",
        computations("f32")
    );
    let args = [
        &data("f32[6,5]"),
        &ints("s64[4,1]", &[2, 0, 2, 9]),
        &data("f32[4,5]"),
    ];
    check_scatter(&text, &args, None);
    let c = compile(&text);
    assert_eq!(c.plan.fusions.len(), 1, "{}", plan_text(&c));
    assert!(c.plan.fusions[0].in_place.is_some(), "{}", plan_text(&c));
    // The updates read the operand: the kernel copies it first.
    let text = format!(
        "HloModule m\n{}ENTRY e {{\n  p0 = f32[6] parameter(0)\n  p1 = s32[6,1] parameter(1)\n  \
         n = f32[6] negate(p0)\n  \
         ROOT s = f32[6] scatter(p0, p1, n), update_window_dims={{}}, inserted_window_dims={{0}}, \
         scatter_dims_to_operand_dims={{0}}, index_vector_dim=1, to_apply=add\n}}",
        computations("f32")
    );
    let args = [&data("f32[6]"), &ints("s32[6,1]", &[5, 4, 3, 2, 1, 0])];
    check_scatter(&text, &args, None);
    let c = compile(&text);
    assert!(c.plan.fusions[0].in_place.is_none(), "{}", plan_text(&c));
}

#[test]
fn variadic_scatter_is_interpreted() {
    let text = "HloModule m\nsc {\n  a = s32[] parameter(0)\n  b = s32[] parameter(1)\n  \
                c = s32[] parameter(2)\n  d = s32[] parameter(3)\n  e = s32[] add(a, c)\n  \
                f = s32[] add(b, d)\n  ROOT t = (s32[], s32[]) tuple(e, f)\n}\n\
                ENTRY e {\n  p0 = s32[3] parameter(0)\n  p1 = s32[3,1] parameter(1)\n  \
                p2 = s32[3] parameter(2)\n  \
                ROOT s = (s32[3], s32[3]) scatter(p0, p0, p1, p2, p2), update_window_dims={}, \
                inserted_window_dims={0}, scatter_dims_to_operand_dims={0}, index_vector_dim=1, \
                to_apply=sc\n}";
    let args = [
        &ints("s32[3]", &[0, 0, 0]),
        &ints("s32[3,1]", &[2, 0, 2]),
        &ints("s32[3]", &[5, 6, 7]),
    ];
    assert_eq!(check(text, &args), Checked::Interpreted);
}
