//! The interpreter's indexing ops: dynamic-slice, dynamic-update-slice,
//! gather and scatter (`docs/semantics.md`, *Gather*, *Scatter*, *Dynamic slices*) — every worked
//! example, clamping, unsigned indices, batching dimensions and the scatter order.

use crate::interp_common;

use interp_common::*;
use xla_core::Literal;

fn i32s(l: &Literal) -> Vec<i32> {
    l.to_vec::<i32>().unwrap()
}

fn f32s(l: &Literal) -> Vec<f32> {
    l.to_vec::<f32>().unwrap()
}

fn a() -> Literal {
    Literal::vector(&[0.0f32, 1.0, 2.0, 3.0, 4.0])
}

fn b() -> Literal {
    Literal::from_vec(&[4, 3], (0..12).map(|x| x as f32).collect()).unwrap()
}

fn slice_a(start: i32, size: i64) -> Vec<f32> {
    let body = format!(
        "a = f32[5] parameter(0)\ns = s32[] parameter(1)\nr = f32[{size}] dynamic-slice(a, s), dynamic_slice_sizes={{{size}}}"
    );
    f32s(&run(&body, &[&a(), &Literal::scalar(start)]))
}

#[test]
fn dynamic_slice_examples() {
    // `docs/semantics.md`, *Dynamic slices*.
    assert_eq!(slice_a(2, 2), [2.0, 3.0]);
    assert_eq!(slice_a(4, 2), [3.0, 4.0]);
    assert_eq!(slice_a(-7, 2), [0.0, 1.0]);
    assert_eq!(slice_a(1, 0), Vec::<f32>::new());
    let body = "b = f32[4,3] parameter(0)\ni = s32[] parameter(1)\nj = s32[] parameter(2)\n\
                r = f32[2,2] dynamic-slice(b, i, j), dynamic_slice_sizes={2,2}";
    let at = |i: i32, j: i32| {
        f32s(&run(
            body,
            &[&b(), &Literal::scalar(i), &Literal::scalar(j)],
        ))
    };
    assert_eq!(at(2, 1), [7.0, 8.0, 10.0, 11.0]);
    assert_eq!(at(3, -5), [6.0, 7.0, 9.0, 10.0]);
    // Index types are read by their signedness: u32 0xFFFFFFFF is large.
    let body = "a = f32[5] parameter(0)\ns = u32[] parameter(1)\nr = f32[2] dynamic-slice(a, s), dynamic_slice_sizes={2}";
    assert_eq!(
        f32s(&run(body, &[&a(), &Literal::scalar(u32::MAX)])),
        [3.0, 4.0]
    );
    let body = "a = f32[5] parameter(0)\ns = s8[] parameter(1)\nr = f32[2] dynamic-slice(a, s), dynamic_slice_sizes={2}";
    assert_eq!(
        f32s(&run(body, &[&a(), &Literal::scalar(-1i8)])),
        [0.0, 1.0]
    );
}

#[test]
fn dynamic_update_slice_examples() {
    let body = "a = f32[5] parameter(0)\nu = f32[2] parameter(1)\ns = s32[] parameter(2)\nr = f32[5] dynamic-update-slice(a, u, s)";
    let update = Literal::vector(&[5.0f32, 6.0]);
    let at = |s: i32| f32s(&run(body, &[&a(), &update, &Literal::scalar(s)]));
    assert_eq!(at(2), [0.0, 1.0, 5.0, 6.0, 4.0]);
    assert_eq!(at(4), [0.0, 1.0, 2.0, 5.0, 6.0]);
    assert_eq!(at(i32::MIN), [5.0, 6.0, 2.0, 3.0, 4.0]);
    let body = "b = f32[4,3] parameter(0)\nu = f32[3,2] parameter(1)\ni = s32[] parameter(2)\nj = s32[] parameter(3)\n\
                r = f32[4,3] dynamic-update-slice(b, u, i, j)";
    let update = Literal::matrix(&[[12.0f32, 13.0], [14.0, 15.0], [16.0, 17.0]]);
    let r = run(
        body,
        &[
            &b(),
            &update,
            &Literal::scalar(1i32),
            &Literal::scalar(1i32),
        ],
    );
    assert_eq!(
        f32s(&r),
        [0.0, 1.0, 2.0, 3.0, 12.0, 13.0, 6.0, 14.0, 15.0, 9.0, 16.0, 17.0]
    );
    // An empty update leaves the operand unchanged.
    let body = "a = f32[5] parameter(0)\nu = f32[0] parameter(1)\ns = u64[] parameter(2)\nr = f32[5] dynamic-update-slice(a, u, s)";
    let empty = Literal::from_vec::<f32>(&[0], vec![]).unwrap();
    assert_eq!(
        f32s(&run(body, &[&a(), &empty, &Literal::scalar(u64::MAX)])),
        f32s(&a())
    );
}

fn op3() -> Literal {
    Literal::matrix(&[[1i32, 2, 3], [4, 5, 6], [7, 8, 9]])
}

/// `gather(op, indices)` with the given attributes and result shape.
fn gather(operand: &Literal, indices: &Literal, attrs: &str, out: &str) -> Vec<i32> {
    let body = format!(
        "o = {} parameter(0)\ni = {} parameter(1)\nr = s32[{out}] gather(o, i), {attrs}",
        operand.shape(),
        indices.shape()
    );
    i32s(&run(&body, &[operand, indices]))
}

#[test]
fn gather_examples() {
    // `docs/semantics.md`, *Gather*.
    let rows = Literal::matrix(&[[0i32], [2]]);
    let attrs = "offset_dims={1}, collapsed_slice_dims={0}, start_index_map={0}, index_vector_dim=1, slice_sizes={1,3}";
    assert_eq!(gather(&op3(), &rows, attrs, "2,3"), [1, 2, 3, 7, 8, 9]);
    let starts = Literal::matrix(&[[0i32, 1], [1, 0], [2, 2]]);
    let attrs = "offset_dims={1,2}, collapsed_slice_dims={}, start_index_map={0,1}, index_vector_dim=1, slice_sizes={2,2}";
    assert_eq!(
        gather(&op3(), &starts, attrs, "3,2,2"),
        [2, 3, 5, 6, 4, 5, 7, 8, 5, 6, 8, 9]
    );
    let cols = Literal::vector(&[2i32, 0]);
    let attrs = "offset_dims={0}, collapsed_slice_dims={1}, start_index_map={1}, index_vector_dim=1, slice_sizes={3,1}";
    assert_eq!(gather(&op3(), &cols, attrs, "3,2"), [3, 1, 6, 4, 9, 7]);
    let points = Literal::matrix(&[[0i32, 0], [1, 2], [2, 1]]);
    let attrs = "offset_dims={}, collapsed_slice_dims={0,1}, start_index_map={0,1}, index_vector_dim=1, slice_sizes={1,1}";
    assert_eq!(gather(&op3(), &points, attrs, "3"), [1, 6, 8]);
    let op43 = Literal::from_vec(&[4, 3], (0..12).collect::<Vec<i32>>()).unwrap();
    let nd = Literal::from_vec(&[2, 2, 1], vec![3i32, 1, 0, 2]).unwrap();
    let attrs = "offset_dims={2}, collapsed_slice_dims={0}, start_index_map={0}, index_vector_dim=2, slice_sizes={1,3}";
    assert_eq!(
        gather(&op43, &nd, attrs, "2,2,3"),
        [9, 10, 11, 3, 4, 5, 0, 1, 2, 6, 7, 8]
    );
}

#[test]
fn gather_clamps_and_reads_unsigned_indices() {
    let starts = Literal::vector(&[u32::MAX, 1]);
    let attrs = "offset_dims={1,2}, collapsed_slice_dims={}, start_index_map={0}, index_vector_dim=1, slice_sizes={2,3}";
    // Each start picks 2 rows; u32::MAX clamps to the last valid start (1).
    let r = gather(&op3(), &starts, attrs, "2,2,3");
    assert_eq!(r, [4, 5, 6, 7, 8, 9, 4, 5, 6, 7, 8, 9]);
    let negative = Literal::matrix(&[[-5i64, 7]]);
    let attrs = "offset_dims={1,2}, collapsed_slice_dims={}, start_index_map={0,1}, index_vector_dim=1, slice_sizes={2,2}";
    assert_eq!(gather(&op3(), &negative, attrs, "1,2,2"), [2, 3, 5, 6]);
    // Zero slice sizes and an empty index array give empty results.
    let none = Literal::from_vec::<i32>(&[0, 1], vec![]).unwrap();
    let attrs = "offset_dims={1}, collapsed_slice_dims={0}, start_index_map={0}, index_vector_dim=1, slice_sizes={1,3}";
    assert_eq!(gather(&op3(), &none, attrs, "0,3"), Vec::<i32>::new());
}

#[test]
fn gather_with_batching_dims() {
    // Operand [2,3] with batch dimension 0 paired with indices dimension 0:
    // row b of the result picks operand[b, idx[b, k]].
    let operand = Literal::matrix(&[[10i32, 11, 12], [20, 21, 22]]);
    let indices = Literal::from_vec(&[2, 2, 1], vec![2i32, 0, 1, 1]).unwrap();
    let attrs = "offset_dims={}, collapsed_slice_dims={1}, start_index_map={1}, operand_batching_dims={0}, \
                 start_indices_batching_dims={0}, index_vector_dim=2, slice_sizes={1,1}";
    assert_eq!(gather(&operand, &indices, attrs, "2,2"), [12, 10, 21, 21]);
}

/// `scatter(operand, indices, updates)` with `to_apply=add` (s32).
fn scatter(
    operand: &Literal,
    indices: &Literal,
    updates: &Literal,
    attrs: &str,
    apply: &str,
) -> Vec<i32> {
    let extra = [
        binary_computation("add", "add", "s32"),
        "replace {\n  a = s32[] parameter(0)\n  ROOT b = s32[] parameter(1)\n}\n".to_string(),
        "first_minus {\n  a = s32[] parameter(0)\n  b = s32[] parameter(1)\n  m = s32[] multiply(a, b)\n  ROOT r = s32[] subtract(m, b)\n}\n".to_string(),
    ]
    .concat();
    let body = format!(
        "o = {} parameter(0)\ni = {} parameter(1)\nu = {} parameter(2)\nr = {} scatter(o, i, u), {attrs}, to_apply={apply}",
        operand.shape(),
        indices.shape(),
        updates.shape(),
        operand.shape()
    );
    i32s(&run_with(&extra, &body, &[operand, indices, updates]))
}

fn z() -> Literal {
    Literal::from_vec(&[3, 3], vec![0i32; 9]).unwrap()
}

#[test]
fn scatter_examples() {
    // `docs/semantics.md`, *Scatter*.
    let rows = "update_window_dims={1}, inserted_window_dims={0}, scatter_dims_to_operand_dims={0}, index_vector_dim=1";
    let updates = Literal::matrix(&[[1i32, 2, 3], [4, 5, 6]]);
    assert_eq!(
        scatter(
            &z(),
            &Literal::matrix(&[[0i32], [2]]),
            &updates,
            rows,
            "add"
        ),
        [1, 2, 3, 0, 0, 0, 4, 5, 6]
    );
    let dup = Literal::matrix(&[[0i32], [0]]);
    assert_eq!(
        scatter(&z(), &dup, &updates, rows, "add"),
        [5, 7, 9, 0, 0, 0, 0, 0, 0]
    );
    // The project rule: updates apply in row-major order, so the last wins.
    assert_eq!(
        scatter(&z(), &dup, &updates, rows, "replace"),
        [4, 5, 6, 0, 0, 0, 0, 0, 0]
    );
    let points = "update_window_dims={}, inserted_window_dims={0,1}, scatter_dims_to_operand_dims={0,1}, index_vector_dim=1";
    let r = scatter(
        &z(),
        &Literal::matrix(&[[0i32, 0], [1, 2], [0, 0]]),
        &Literal::vector(&[10i32, 20, 5]),
        points,
        "add",
    );
    assert_eq!(r, [15, 0, 0, 0, 0, 20, 0, 0, 0]);
    let windows = "update_window_dims={1,2}, inserted_window_dims={}, scatter_dims_to_operand_dims={0,1}, index_vector_dim=1";
    let updates = Literal::from_vec(&[2, 2, 2], vec![1i32, 1, 1, 1, 7, 8, 9, 10]).unwrap();
    let r = scatter(
        &z(),
        &Literal::matrix(&[[0i32, 2], [1, 1]]),
        &updates,
        windows,
        "add",
    );
    assert_eq!(r, [0, 0, 0, 0, 7, 8, 0, 9, 10]);
}

#[test]
fn variadic_scatter() {
    // `docs/semantics.md`, *Scatter* example 5: sum and count.
    let extra = "sum_count {\n  s = s32[] parameter(0)\n  c = s32[] parameter(1)\n  us = s32[] parameter(2)\n  \
                 uc = s32[] parameter(3)\n  a = s32[] add(s, us)\n  b = s32[] add(c, uc)\n  ROOT t = (s32[], s32[]) tuple(a, b)\n}";
    let body = "s = s32[3] parameter(0)\nc = s32[3] parameter(1)\ni = s32[3,1] parameter(2)\nus = s32[3] parameter(3)\n\
                uc = s32[3] parameter(4)\nr = (s32[3], s32[3]) scatter(s, c, i, us, uc), update_window_dims={}, \
                inserted_window_dims={0}, scatter_dims_to_operand_dims={0}, index_vector_dim=1, to_apply=sum_count";
    let zeros = Literal::vector(&[0i32; 3]);
    let indices = Literal::from_vec(&[3, 1], vec![2i32, 0, 2]).unwrap();
    let r = run_with(
        extra,
        body,
        &[
            &zeros,
            &zeros,
            &indices,
            &Literal::vector(&[5i32, 6, 7]),
            &Literal::vector(&[1i32; 3]),
        ],
    );
    let parts = r.tuple_elements().unwrap();
    assert_eq!(i32s(&parts[0]), [6, 0, 12]);
    assert_eq!(i32s(&parts[1]), [1, 0, 2]);
}

#[test]
fn scatter_order_and_operand_order() {
    // first_minus(current, update) = current·update − update, applied in
    // row-major order of the update index: 1 → 1·2−2 = 0 → 0·3−3 = −3.
    let points = "update_window_dims={}, inserted_window_dims={0}, scatter_dims_to_operand_dims={0}, index_vector_dim=1";
    let operand = Literal::vector(&[1i32, 1]);
    let indices = Literal::from_vec(&[2, 1], vec![0i32, 0]).unwrap();
    let r = scatter(
        &operand,
        &indices,
        &Literal::vector(&[2i32, 3]),
        points,
        "first_minus",
    );
    assert_eq!(r, [-3, 1]);
    // Window dimension before the scatter dimension: the update index
    // (w, g) is visited row-major, so for "replace" the largest g wins per w.
    let attrs = "update_window_dims={0}, inserted_window_dims={0}, scatter_dims_to_operand_dims={0}, index_vector_dim=1";
    let operand = Literal::from_vec(&[2, 2], vec![0i32; 4]).unwrap();
    let indices = Literal::from_vec(&[2, 1], vec![1i32, 1]).unwrap();
    let updates = Literal::matrix(&[[1i32, 2], [3, 4]]);
    assert_eq!(
        scatter(&operand, &indices, &updates, attrs, "replace"),
        [0, 0, 2, 4]
    );
    // Out-of-range (negative, too large, unsigned wrap) windows are dropped.
    let idx = Literal::from_vec(&[3, 1], vec![-1i32, 3, 1]).unwrap();
    let r = scatter(
        &Literal::vector(&[0i32; 3]),
        &idx,
        &Literal::vector(&[5i32, 6, 7]),
        points,
        "add",
    );
    assert_eq!(r, [0, 7, 0]);
}

#[test]
fn scatter_with_batching_dims() {
    // operand [2,3], batch dimension 0 paired with indices dimension 0.
    let operand = Literal::matrix(&[[0i32; 3], [0; 3]]);
    let indices = Literal::from_vec(&[2, 2, 1], vec![2i32, 0, 1, 1]).unwrap();
    let updates = Literal::matrix(&[[1i32, 2], [3, 4]]);
    let attrs =
        "update_window_dims={}, inserted_window_dims={1}, scatter_dims_to_operand_dims={1}, \
                 input_batching_dims={0}, scatter_indices_batching_dims={0}, index_vector_dim=2";
    assert_eq!(
        scatter(&operand, &indices, &updates, attrs, "add"),
        [2, 0, 1, 0, 7, 0]
    );
}

#[test]
fn scatter_add_rounds_f16_after_each_update() {
    // 2048 + 1 + 1 in f16, one update at a time: each sum rounds back to 2048.
    let extra = binary_computation("add", "add", "f16");
    let body = "o = f16[1] parameter(0)\ni = s32[2,1] parameter(1)\nu = f16[2] parameter(2)\n\
                r = f16[1] scatter(o, i, u), update_window_dims={}, inserted_window_dims={0}, \
                scatter_dims_to_operand_dims={0}, index_vector_dim=1, to_apply=add";
    let h = half::f16::from_f32;
    let r = run_with(
        &extra,
        body,
        &[
            &Literal::vector(&[h(2048.0)]),
            &Literal::from_vec(&[2, 1], vec![0i32, 0]).unwrap(),
            &Literal::vector(&[h(1.0), h(1.0)]),
        ],
    );
    assert_eq!(r.to_vec::<half::f16>().unwrap(), [h(2048.0)]);
}
