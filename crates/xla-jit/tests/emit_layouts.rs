//! Data movement through layouts, against the interpreter: every
//! data-movement op with inputs and outputs in row-major, column-major,
//! tiled and padded layouts, rank 0 and size-0/size-1 dimensions, element
//! types of every width.

use crate::emit_harness;

use emit_harness::*;
use xla_core::{Literal, PrimitiveType, Shape};

/// A literal of `shape` (any layout) with distinct values.
fn data(shape: &str) -> Literal {
    let shape: Shape = shape.parse().unwrap();
    let a = shape.as_array().unwrap();
    let n = a.element_count() as usize;
    let values: Vec<f64> = (0..n)
        .map(|i| ((i * 37 + 11) % 101) as f64 - 50.0)
        .collect();
    let lit = Literal::from_vec(a.dims(), values).unwrap();
    lit.convert(a.element_type()).unwrap()
}

/// Checks `body` (instructions after the parameters, `ROOT` last) on
/// parameters of the given shapes, for each replacement of `L0`, `L1`, …
/// in the text by the layouts in `layouts`.
fn check_all(params: &[&str], body: &str, layouts: &[[&str; 2]]) {
    for ls in layouts {
        let fill = |s: &str| s.replace("L0", ls[0]).replace("L1", ls[1]);
        let mut text = String::from("HloModule m\nENTRY e {\n");
        let mut args = Vec::new();
        for (i, p) in params.iter().enumerate() {
            let p = fill(p);
            text.push_str(&format!("  p{i} = {p} parameter({i})\n"));
            args.push(data(&p));
        }
        text.push_str(&fill(body));
        text.push_str("\n}");
        let refs: Vec<&Literal> = args.iter().collect();
        assert_eq!(check(&text, &refs), Checked::Same, "{text}");
    }
}

const LAYOUTS_2D: &[[&str; 2]] = &[
    ["{1,0}", "{1,0}"],
    ["{0,1}", "{1,0}"],
    ["{1,0}", "{0,1}"],
    ["{1,0:T(2,2)}", "{1,0}"],
    ["{1,0}", "{0,1:T(4,2)}"],
    ["{0,1:P(40,40)}", "{1,0:P(40,41)}"],
];

#[test]
fn transpose_slice_reverse() {
    check_all(
        &["f32[7,9]L0"],
        "  ROOT r = f32[9,7]L1 transpose(p0), dimensions={1,0}",
        LAYOUTS_2D,
    );
    check_all(
        &["f32[7,9]L0"],
        "  ROOT r = f32[3,5]L1 slice(p0), slice={[1:7:2], [0:9:2]}",
        LAYOUTS_2D,
    );
    check_all(
        &["f32[7,9]L0"],
        "  ROOT r = f32[7,9]L1 reverse(p0), dimensions={0,1}",
        LAYOUTS_2D,
    );
    check_all(
        &["s8[5,13]L0"],
        "  ROOT r = s8[5,13]L1 reverse(p0), dimensions={1}",
        LAYOUTS_2D,
    );
    check_all(
        &["f16[4,3,10]{2,1,0}"],
        "  t = f16[10,4,3]{2,1,0} transpose(p0), dimensions={2,0,1}\n  ROOT r = f16[10,4,3]{0,2,1} negate(t)",
        &[["", ""]],
    );
}

/// Transposing reads walk the output in tiles (16 elements of each of
/// at least 16 rows, 8 when the input's rows are a multiple of 4 KiB
/// apart): whole and partial tiles, iterations of whole and partial row
/// groups, rows of several dimensions, and a tiled kernel that also reads
/// an input along its rows.
#[test]
fn transposes_walk_in_tiles() {
    let copies = [
        // 37 = two tiles of 16 and one of 5; all 70 rows in one iteration.
        ["f32[37,70]{1,0}", "f32[37,70]{0,1}"],
        // Rows of 4 KiB: tiles of 8 (two, and one of 4); 1024 rows.
        ["f32[20,1024]{1,0}", "f32[20,1024]{0,1}"],
        // 40 rows of 2048, 16 per iteration: the last iteration has 8.
        ["f32[2048,40]{1,0}", "f32[2048,40]{0,1}"],
        // Tiles of 8 (twelve, and one of 4); 512 rows in iterations of 163.
        ["f64[100,512]{1,0}", "f64[100,512]{0,1}"],
        ["bf16[48,33]{0,1}", "bf16[48,33]{1,0}"],
    ];
    for [from, to] in copies {
        check_all(&[from], &format!("  ROOT r = {to} copy(p0)"), &[["", ""]]);
    }
    check_all(
        &["f32[3,40,50]{2,1,0}", "f32[3,50,40]{2,1,0}"],
        "  t = f32[3,50,40]{2,1,0} transpose(p0), dimensions={0,2,1}
  n = f32[3,50,40]{2,1,0} negate(p1)
  ROOT r = f32[3,50,40]{2,1,0} add(t, n)",
        &[["", ""]],
    );
}

#[test]
fn pad_concatenate_broadcast() {
    check_all(
        &["f32[5,6]L0", "f32[]"],
        "  ROOT r = f32[8,11]L1 pad(p0, p1), padding=1_2_0x-1_1_1",
        LAYOUTS_2D,
    );
    check_all(
        &["u16[4,3]L0", "u16[]"],
        "  ROOT r = u16[12,9]L1 pad(p0, p1), padding=3_5_0x0_0_3",
        LAYOUTS_2D,
    );
    check_all(
        &["f32[3,5]L0", "f32[3,2]L0", "f32[3,9]L0"],
        "  ROOT r = f32[3,16]L1 concatenate(p0, p1, p2), dimensions={1}",
        LAYOUTS_2D,
    );
    check_all(
        &["pred[2,8]L0", "pred[3,8]L0"],
        "  ROOT r = pred[5,8]L1 concatenate(p0, p1), dimensions={0}",
        LAYOUTS_2D,
    );
    check_all(
        &["f32[6]{0}"],
        "  ROOT r = f32[6,10]L1 broadcast(p0), dimensions={0}",
        LAYOUTS_2D,
    );
    check_all(
        &["f64[10]{0}"],
        "  ROOT r = f64[6,10]L1 broadcast(p0), dimensions={1}",
        LAYOUTS_2D,
    );
    check_all(
        &["s64[]"],
        "  ROOT r = s64[3,5]L1 broadcast(p0), dimensions={}",
        LAYOUTS_2D,
    );
}

#[test]
fn reshapes_and_bitcasts() {
    check_all(
        &["f32[6,10]L0"],
        "  ROOT r = f32[4,15]L1 reshape(p0)",
        LAYOUTS_2D,
    );
    check_all(
        &["f32[6,8]L0"],
        "  ROOT r = f32[48]{0} reshape(p0)",
        LAYOUTS_2D,
    );
    check_all(
        &["s32[2,3,8]{2,1,0}"],
        "  ROOT r = s32[6,2,4]{2,1,0} reshape(p0)",
        &[["", ""]],
    );
    check_all(
        &["f32[12]{0}"],
        "  ROOT r = f32[1,3,1,4]{3,2,1,0} reshape(p0)",
        &[["", ""]],
    );
    check_all(
        &["f32[6,4]{1,0}"],
        "  ROOT r = f32[24]{0} bitcast(p0)",
        &[["", ""]],
    );
    check_all(
        &["f32[6,4]{0,1}"],
        "  ROOT r = f32[4,6]{1,0} bitcast(p0)",
        &[["", ""]],
    );
    check_all(
        &["f32[6,5]L0"],
        "  ROOT r = f32[6,5]L1 copy(p0)",
        LAYOUTS_2D,
    );
}

#[test]
fn iota_of_every_type() {
    for ty in ["s8", "u8", "s32", "u64", "f16", "bf16", "f32", "f64"] {
        for dim in 0..2 {
            check_all(
                &[],
                &format!("  ROOT r = {ty}[7,33]L1 iota(), iota_dimension={dim}"),
                LAYOUTS_2D,
            );
        }
    }
}

#[test]
fn dynamic_slices_clamp_their_starts() {
    for (i, j) in [(0i32, 0i32), (2, 3), (-5, 100), (6, -1)] {
        let text = "HloModule m
ENTRY e {
  x = f32[7,9]{1,0} parameter(0)
  i = s32[] parameter(1)
  j = s32[] parameter(2)
  ROOT r = f32[3,5]{1,0} dynamic-slice(x, i, j), dynamic_slice_sizes={3,5}
}";
        let args = [
            &data("f32[7,9]{1,0}"),
            &Literal::scalar(i),
            &Literal::scalar(j),
        ];
        assert_eq!(check(text, &args), Checked::Same, "({i},{j})");
        let text = "HloModule m
ENTRY e {
  x = f32[7,9]{1,0} parameter(0)
  u = f32[3,5]{1,0} parameter(1)
  i = s32[] parameter(2)
  j = s32[] parameter(3)
  n = f32[3,5]{1,0} negate(u)
  ROOT r = f32[7,9]{1,0} dynamic-update-slice(x, n, i, j)
}";
        let args = [
            &data("f32[7,9]{1,0}"),
            &data("f32[3,5]{1,0}"),
            &Literal::scalar(i),
            &Literal::scalar(j),
        ];
        assert_eq!(check(text, &args), Checked::Same, "update ({i},{j})");
        // Not in place: the update-slice feeds another op.
        let text = text.replace(
            "ROOT r = f32[7,9]{1,0} dynamic-update-slice",
            "d = f32[7,9]{1,0} dynamic-update-slice",
        ) + "";
        let text = text.replace("\n}", "\n  ROOT r = f32[7,9]{1,0} abs(d)\n}");
        assert_eq!(check(&text, &args), Checked::Same, "fused update ({i},{j})");
    }
    let c = compile(
        "HloModule m
ENTRY e {
  x = f32[16]{0} parameter(0)
  u = f32[4]{0} parameter(1)
  i = u8[] parameter(2)
  ROOT r = f32[16]{0} dynamic-update-slice(x, u, i)
}",
    );
    assert!(c.plan.fusions[0].in_place.is_some());
    let args = [
        &data("f32[16]{0}"),
        &data("f32[4]{0}"),
        &Literal::scalar(200u8),
    ];
    let want = interpret(&c, &args).unwrap();
    assert_same(&run(&c, &args), &want, "u8 start");
}

#[test]
fn rank_zero_and_empty_arrays() {
    check_all(
        &["f32[]", "f32[]"],
        "  ROOT r = f32[] add(p0, p1)",
        &[["", ""]],
    );
    check_all(
        &["f32[0,5]{1,0}"],
        "  ROOT r = f32[5,0]{1,0} transpose(p0), dimensions={1,0}",
        &[["", ""]],
    );
    check_all(
        &["f32[3,1,1]{2,1,0}"],
        "  ROOT r = f32[3,1,1]{0,1,2} negate(p0)",
        &[["", ""]],
    );
    check_all(
        &["pred[1]{0}"],
        "  ROOT r = pred[1]{0} not(p0)",
        &[["", ""]],
    );
}

/// A reshape between empty shapes whose non-zero sizes do not pair up
/// (`[0] → [0,5,5]`): fuzzing found the reshape indexer panicking on it.
#[test]
fn reshapes_of_empty_arrays() {
    check_all(
        &["f32[0]{0}"],
        "  r = f32[0,5,5]{2,1,0} reshape(p0)\n  ROOT n = f32[0,5,5]{2,1,0} negate(r)",
        &[["", ""]],
    );
    check_all(
        &["f32[5,0,3]{2,1,0}"],
        "  r = f32[3,5,0,2]{3,2,1,0} reshape(p0)\n  ROOT n = f32[3,5,0,2]{3,2,1,0} negate(r)",
        &[["", ""]],
    );
}

#[test]
fn element_types_of_every_width_move() {
    for ty in [
        PrimitiveType::Pred,
        PrimitiveType::S8,
        PrimitiveType::U16,
        PrimitiveType::S32,
        PrimitiveType::U64,
        PrimitiveType::F16,
        PrimitiveType::Bf16,
        PrimitiveType::F64,
    ] {
        let t = ty.name();
        check_all(
            &[&format!("{t}[9,17]L0")],
            &format!("  s = {t}[4,17]L1 slice(p0), slice={{[1:9:2], [0:17:1]}}\n  ROOT r = {t}[17,4]L1 transpose(s), dimensions={{1,0}}"),
            LAYOUTS_2D,
        );
    }
}

/// Concatenates of many operands (found by fuzzing: 1000 operands took 13 s
/// to compile when each element searched a chain of them), with sizes of
/// 0, sizes that are not multiples of the vector width and, in the second
/// module, whole vectors; against the interpreter. As the root, each
/// operand is a kernel of its own; fused into a user, each element finds
/// its operand by bisection.
#[test]
fn concatenate_of_many_operands() {
    for sizes in [
        (0..37)
            .map(|k| [1i64, 4, 0, 3, 8, 5][k % 6])
            .collect::<Vec<_>>(),
        vec![4; 64],
    ] {
        let total: i64 = sizes.iter().sum();
        let mut text = String::from("HloModule m\nENTRY e {\n");
        let mut args = Vec::new();
        let mut next = 0.0f32;
        for (k, &n) in sizes.iter().enumerate() {
            text.push_str(&format!("  p{k} = f32[{n},3]{{1,0}} parameter({k})\n"));
            let values: Vec<f32> = (0..n * 3)
                .map(|_| {
                    next += 1.0;
                    next
                })
                .collect();
            args.push(Literal::from_vec(&[n, 3], values).unwrap());
        }
        let names: Vec<String> = (0..sizes.len()).map(|k| format!("p{k}")).collect();
        let concat = format!(
            "f32[{total},3]{{1,0}} concatenate({}), dimensions={{0}}",
            names.join(", ")
        );
        let refs: Vec<&Literal> = args.iter().collect();
        let root = format!("{text}  ROOT r = {concat}\n}}");
        assert_eq!(check(&root, &refs), Checked::Same, "{root}");
        let fused = format!("{text}  c = {concat}\n  ROOT r = f32[{total},3]{{1,0}} negate(c)\n}}");
        assert_eq!(check(&fused, &refs), Checked::Same, "{fused}");
    }
}
