//! The MLIR bytecode and `jax.export` readers against the conformance
//! fixtures (`tests/conformance/cases/*/module.jax_export`), StableHLO's
//! own VHLO test artifacts and a symbolic-shape export.

use std::path::{Path, PathBuf};

use xla_core::mlir::bytecode::{read_bytecode, BytecodeError, VhloVersion};
use xla_core::mlir::export::{read_jax_export, DType, Exported, NamedSharding, Sharding};
use xla_core::mlir::ir::{Attr, ElementType, Module, Operation, Type};
use xla_core::PrimitiveType;
use xla_testkit::XorShift;

fn cases_dir() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/conformance/cases")
}

fn data(name: &str) -> Vec<u8> {
    std::fs::read(
        Path::new(env!("CARGO_MANIFEST_DIR"))
            .join("tests/data")
            .join(name),
    )
    .unwrap()
}

/// The case directories holding a `module.jax_export`, sorted (every
/// conformance case has one).
fn cases() -> Vec<PathBuf> {
    let rd = std::fs::read_dir(cases_dir()).expect("the conformance cases");
    let mut v: Vec<PathBuf> = rd
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.join("module.jax_export").exists())
        .collect();
    assert!(v.len() >= 900, "{} conformance artifacts", v.len());
    v.sort();
    v
}

fn read_case(dir: &Path) -> Exported {
    let bytes = std::fs::read(dir.join("module.jax_export")).unwrap();
    read_jax_export(&bytes).unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
}

/// All ops, depth first, in order.
fn walk<'a>(ops: &'a [Operation], out: &mut Vec<&'a Operation>) {
    for op in ops {
        out.push(op);
        for r in &op.regions {
            for b in &r.blocks {
                walk(&b.ops, out);
            }
        }
    }
}

fn all_ops(m: &Module) -> Vec<&Operation> {
    let mut v = Vec::new();
    walk(&m.ops, &mut v);
    v
}

/// The `stablehlo.*` op names of a module's text, in order: a crude line
/// scan for `stablehlo.name` or `"stablehlo.name"` where an op starts
/// (after the results' `%x = `, or at the start of the line).
fn text_op_names(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    for line in text.lines() {
        let mut rest = line.trim_start();
        if rest.starts_with('%') {
            let Some(i) = rest.find(" = ") else { continue };
            rest = &rest[i + 3..];
        }
        let rest = rest.trim_start_matches('"');
        if !rest.starts_with("stablehlo.") {
            continue;
        }
        let name: String = rest
            .chars()
            .take_while(|c| c.is_ascii_alphanumeric() || *c == '.' || *c == '_')
            .collect();
        out.push(name);
        // `stablehlo.reduce(…) applies stablehlo.add …`: the body's op.
        if let Some(i) = line.find(" applies stablehlo.") {
            let name: String = line[i + 9..]
                .chars()
                .take_while(|c| c.is_ascii_alphanumeric() || *c == '.' || *c == '_')
                .collect();
            out.push(name);
        }
    }
    out
}

fn decoded_op_names(m: &Module) -> Vec<String> {
    all_ops(m)
        .into_iter()
        .map(|o| o.name.clone())
        .filter(|n| n.starts_with("stablehlo.") && n != "stablehlo.return")
        .collect()
}

#[test]
fn every_fixture_decodes_and_matches_its_case() {
    let cases = cases();
    for dir in &cases {
        let e = read_case(dir);
        let case: serde_json::Value =
            serde_json::from_slice(&std::fs::read(dir.join("case.json")).unwrap()).unwrap();
        let check = |avals: &[xla_core::mlir::export::Aval], key: &str| {
            let want = case[key].as_array().unwrap();
            assert_eq!(avals.len(), want.len(), "{}: {key}", dir.display());
            for (a, w) in avals.iter().zip(want) {
                assert_eq!(
                    a.dtype.name(),
                    w["dtype"].as_str().unwrap(),
                    "{}: {key}",
                    dir.display()
                );
                let shape: Vec<Option<i64>> = w["shape"]
                    .as_array()
                    .unwrap()
                    .iter()
                    .map(|d| d.as_i64())
                    .collect();
                assert_eq!(a.dims(), shape, "{}: {key}", dir.display());
            }
        };
        check(&e.in_avals, "args");
        check(&e.out_avals, "outs");
        let num = |n: &str| match e.module.attrs.iter().find(|(k, _)| k == n) {
            Some((_, Attr::Int(v, _))) => *v as u32,
            other => panic!("{}: {n} = {other:?}", dir.display()),
        };
        assert_eq!(
            e.nr_devices,
            num("mhlo.num_partitions") * num("mhlo.num_replicas"),
            "{}",
            dir.display()
        );
        assert!(!e.function_name.is_empty(), "{}", dir.display());
        assert_eq!(
            e.in_tree.num_leaves(),
            e.in_avals.len(),
            "{}",
            dir.display()
        );
        assert_eq!(
            e.out_tree.num_leaves(),
            e.out_avals.len(),
            "{}",
            dir.display()
        );
        let main = e
            .module
            .ops
            .iter()
            .find(|o| o.attr("sym_name") == Some(&Attr::String(b"main".to_vec())));
        assert!(main.is_some(), "{}: no main", dir.display());
    }
}

#[test]
fn op_names_match_the_text() {
    let cases = cases();
    let (mut exact, mut differ) = (0, Vec::new());
    for dir in cases.iter().step_by(2) {
        let e = read_case(dir);
        let text = std::fs::read_to_string(dir.join("module.mlir")).unwrap();
        if text.contains("chlo.") {
            // CHLO ops are serialized as `stablehlo.composite` ops calling
            // their decompositions: the op lists differ by design.
            continue;
        }
        // JAX serializes after canonicalization: constants are hoisted and
        // de-duplicated; every other op keeps its order.
        let non_const = |v: Vec<String>| {
            v.into_iter()
                .filter(|n| n != "stablehlo.constant" && n != "stablehlo.return")
                .collect::<Vec<_>>()
        };
        let want = non_const(text_op_names(&text));
        let got = non_const(decoded_op_names(&e.module));
        if got == want {
            exact += 1;
        } else {
            // Serialization also simplifies (dead code removed) and expands
            // some ops (complex `exp`, `sqrt`, `log`) into real arithmetic.
            differ.push(dir.file_name().unwrap().to_string_lossy().into_owned());
        }
    }
    eprintln!(
        "op names: {exact} exact, {} differ: {differ:?}",
        differ.len()
    );
    assert!(
        exact > 300 && differ.len() * 20 < exact,
        "{exact} exact, {differ:?}"
    );
}

fn case_module(name: &str) -> Module {
    read_case(&cases_dir().join(name)).module
}

fn find<'a>(m: &'a Module, name: &str) -> &'a Operation {
    all_ops(m)
        .into_iter()
        .find(|o| o.name == name)
        .unwrap_or_else(|| panic!("no {name}"))
}

fn ints(v: &[i64]) -> Attr {
    Attr::Ints(v.to_vec())
}

fn s64(v: i64) -> Attr {
    Attr::Int(v, ElementType::Known(PrimitiveType::S64))
}

fn tensor(p: PrimitiveType, dims: &[i64]) -> Type {
    Type::Tensor {
        element: ElementType::Known(p),
        dims: dims.iter().map(|&d| Some(d)).collect(),
    }
}

fn enum_(kind: &str, v: &str) -> Attr {
    Attr::Enum(kind.into(), v.into())
}

#[test]
fn representative_attributes() {
    // The module text of each case is quoted above each check.
    let m = case_module("dot__bf16_preferred_f32");
    // stablehlo.dot_general %arg0, %arg1, contracting_dims = [1] x [0],
    //   precision = [DEFAULT, DEFAULT] : (…bf16…) -> tensor<6x7xf32>
    let dot = find(&m, "stablehlo.dot_general");
    assert_eq!(
        dot.attrs,
        vec![
            ("lhs_batching_dimensions".into(), ints(&[])),
            ("rhs_batching_dimensions".into(), ints(&[])),
            ("lhs_contracting_dimensions".into(), ints(&[1])),
            ("rhs_contracting_dimensions".into(), ints(&[0])),
            (
                "precision_config".into(),
                Attr::Array(vec![
                    enum_("precision", "DEFAULT"),
                    enum_("precision", "DEFAULT")
                ])
            ),
        ]
    );
    assert_eq!(dot.results[0].1, tensor(PrimitiveType::F32, &[6, 7]));

    let m = case_module("gather__3d_collapsed_middle_bf16");
    // #stablehlo.gather<offset_dims = [1, 2], collapsed_slice_dims = [1],
    //   start_index_map = [1, 0], index_vector_dim = 1>,
    //   indices_are_sorted = false, slice_sizes = array<i64: 2, 1, 3>
    let g = find(&m, "stablehlo.gather");
    assert_eq!(
        g.attrs,
        vec![
            ("offset_dims".into(), ints(&[1, 2])),
            ("collapsed_slice_dims".into(), ints(&[1])),
            ("operand_batching_dims".into(), ints(&[])),
            ("start_indices_batching_dims".into(), ints(&[])),
            ("start_index_map".into(), ints(&[1, 0])),
            ("index_vector_dim".into(), s64(1)),
            ("slice_sizes".into(), ints(&[2, 1, 3])),
            ("indices_are_sorted".into(), Attr::Bool(false)),
        ]
    );

    let m = case_module("conv__spec_stride2_pad1");
    // dim_numbers = [b, f, 0, 1]x[o, i, 0, 1]->[b, f, 0, 1], window = {stride
    // = [2, 2], pad = [[1, 1], [1, 1]], lhs_dilate = [1, 1], rhs_dilate =
    // [1, 1], reverse = [false, false]} {batch_group_count = 1,
    // feature_group_count = 1, precision_config = [DEFAULT, DEFAULT]}
    let c = find(&m, "stablehlo.convolution");
    let expect = [
        ("window_strides", ints(&[2, 2])),
        ("padding", ints(&[1, 1, 1, 1])),
        ("lhs_dilation", ints(&[1, 1])),
        ("rhs_dilation", ints(&[1, 1])),
        ("window_reversal", Attr::Bools(vec![false, false])),
        ("input_batch_dimension", s64(0)),
        ("input_feature_dimension", s64(1)),
        ("input_spatial_dimensions", ints(&[2, 3])),
        ("kernel_input_feature_dimension", s64(1)),
        ("kernel_output_feature_dimension", s64(0)),
        ("kernel_spatial_dimensions", ints(&[2, 3])),
        ("output_batch_dimension", s64(0)),
        ("output_feature_dimension", s64(1)),
        ("output_spatial_dimensions", ints(&[2, 3])),
        ("feature_group_count", s64(1)),
        ("batch_group_count", s64(1)),
        (
            "precision_config",
            Attr::Array(vec![
                enum_("precision", "DEFAULT"),
                enum_("precision", "DEFAULT"),
            ]),
        ),
    ];
    assert_eq!(c.attrs, expect.map(|(n, a)| (n.to_string(), a)).to_vec());

    let m = case_module("compare__lt_pred");
    // stablehlo.compare LT, %arg0, %arg1, UNSIGNED
    let cmp = find(&m, "stablehlo.compare");
    assert_eq!(
        cmp.attr("comparison_direction"),
        Some(&enum_("comparison_direction", "LT"))
    );
    assert_eq!(
        cmp.attr("compare_type"),
        Some(&enum_("comparison_type", "UNSIGNED"))
    );
    assert_eq!(m.name.as_deref(), Some("jit_lt"));
    let main = &m.ops[0];
    assert_eq!(main.name, "func.func");
    assert_eq!(
        main.attr("sym_visibility"),
        Some(&Attr::String(b"public".to_vec()))
    );
    assert_eq!(main.attr("arg_attrs"), None);
    let Some(Attr::Array(res)) = main.attr("res_attrs") else {
        panic!()
    };
    assert!(matches!(&res[..], [Attr::Dict(d)] if d[0].0 == "jax.result_info"));
    let body = &main.regions[0].blocks[0];
    assert_eq!(
        body.args.iter().map(|(v, _)| v.0).collect::<Vec<_>>(),
        vec![0, 1]
    );
    assert_eq!(body.ops[1].name, "func.return");

    let m = case_module("reduce__sum_f32_rank3_dims02");
    // %cst = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    // stablehlo.reduce(%arg0 init: %cst) applies stablehlo.add across
    //   dimensions = [0, 2]
    let k = find(&m, "stablehlo.constant");
    assert_eq!(
        k.attr("value"),
        Some(&Attr::Dense {
            ty: tensor(PrimitiveType::F32, &[]),
            bytes: vec![0; 4],
            splat: true
        })
    );
    let r = find(&m, "stablehlo.reduce");
    assert_eq!(r.attr("dimensions"), Some(&ints(&[0, 2])));
    let block = &r.regions[0].blocks[0];
    assert_eq!(block.args.len(), 2);
    assert_eq!(
        block
            .ops
            .iter()
            .map(|o| o.name.as_str())
            .collect::<Vec<_>>(),
        ["stablehlo.add", "stablehlo.return"]
    );
    assert_eq!(
        block.ops[0].operands,
        vec![block.args[0].0, block.args[1].0]
    );
    // Values are unique within the function, region values included.
    let mut seen = std::collections::HashSet::new();
    for op in all_ops(&m) {
        for r in &op.regions {
            for b in &r.blocks {
                for (v, _) in &b.args {
                    assert!(seen.insert(*v) || op.name == "func.func");
                }
            }
        }
        for (v, _) in &op.results {
            assert!(seen.insert(*v));
        }
    }

    let m = case_module("optimized__scan_tanh");
    let w = find(&m, "stablehlo.while");
    assert_eq!(w.regions.len(), 2);
    assert_eq!(
        w.regions[0].blocks[0].ops.last().unwrap().name,
        "stablehlo.return"
    );
    assert_eq!(w.regions[1].blocks[0].args.len(), w.operands.len());
}

/// Constants across the fixtures: splats hold one element (`i1` one byte,
/// 0 or 1), others every element; both kinds occur.
#[test]
fn non_splat_constants_and_booleans() {
    let mut non_splat = 0;
    let mut pred_splat = 0;
    for dir in cases().iter().step_by(5) {
        let e = read_case(dir);
        for op in all_ops(&e.module) {
            if let Some(Attr::Dense {
                ty: Type::Tensor { element, dims },
                bytes,
                splat,
            }) = op.attr("value")
            {
                let n: i64 = dims.iter().map(|d| d.unwrap()).product();
                let size = match element {
                    ElementType::Known(p) => p.byte_size(),
                    _ => continue,
                };
                if *splat {
                    assert_eq!(bytes.len(), size);
                    if *element == ElementType::Known(PrimitiveType::Pred) {
                        assert!(bytes[0] <= 1);
                        pred_splat += 1;
                    }
                } else {
                    assert_eq!(bytes.len() as i64, n * size as i64, "{}", dir.display());
                    non_splat += 1;
                }
            }
        }
    }
    assert!(non_splat > 0 && pred_splat > 0, "{non_splat} {pred_splat}");
}

/// StableHLO's own VHLO test artifacts (every op, written at VHLO 1.0,
/// 1.5, 1.10, 1.15 and 1.20) decode, every op mapped to StableHLO or func.
#[test]
fn stablehlo_vhlo_test_artifacts_decode() {
    for v in ["1_0_0", "1_5_0", "1_10_0", "1_15_0", "1_20_0"] {
        let bytes = data(&format!("vhlo/stablehlo_legalize_to_vhlo.{v}.mlir.bc"));
        let m = read_bytecode(&bytes).unwrap_or_else(|e| panic!("{v}: {e}"));
        let ops = all_ops(&m);
        assert!(ops.len() > 300, "{v}: {}", ops.len());
        for op in &ops {
            assert!(
                op.name.starts_with("stablehlo.") || op.name.starts_with("func."),
                "{v}: {}",
                op.name
            );
        }
        // Gather v1 (1.0) is upgraded to carry the batching dimensions.
        let g = find(&m, "stablehlo.gather");
        assert!(g.attr("operand_batching_dims").is_some(), "{v}");
    }
}

#[test]
fn versions_outside_the_window_are_typed_errors() {
    let mut bytes = data("vhlo/stablehlo_legalize_to_vhlo.1_15_0.mlir.bc");
    assert!(read_bytecode(&bytes).is_ok());
    // `StableHLO_v1.15.0` → `StableHLO_v0.15.0`.
    let at = bytes.windows(11).position(|w| w == b"StableHLO_v").unwrap() + 11;
    let mut old = bytes.clone();
    old[at] = b'0';
    assert_eq!(
        read_bytecode(&old),
        Err(BytecodeError::VhloVersion(VhloVersion(0, 15, 0)))
    );
    // `StableHLO_v1.15.0` → `StableHLO_v9.15.0`.
    old[at] = b'9';
    assert_eq!(
        read_bytecode(&old),
        Err(BytecodeError::VhloVersion(VhloVersion(9, 15, 0)))
    );
    // Bytecode version 6 → 5.
    assert_eq!(bytes[4], 6 << 1 | 1);
    bytes[4] = 5 << 1 | 1;
    assert!(matches!(
        read_bytecode(&bytes),
        Err(BytecodeError::BytecodeVersion { found: 5, .. })
    ));
    assert_eq!(read_bytecode(b"not bytecode"), Err(BytecodeError::BadMagic));
}

/// Truncations and byte mutations of every input (the VHLO artifacts, the
/// symbolic export and every conformance fixture) never panic.
#[test]
fn mutated_and_truncated_inputs_never_panic() {
    let mut inputs = vec![
        (data("vhlo/stablehlo_legalize_to_vhlo.1_0_0.mlir.bc"), 400),
        (data("vhlo/stablehlo_legalize_to_vhlo.1_20_0.mlir.bc"), 400),
        (data("symbolic_b4.jax_export"), 400),
    ];
    inputs.extend(
        cases()
            .iter()
            .map(|d| (std::fs::read(d.join("module.jax_export")).unwrap(), 40)),
    );
    let mut rng = XorShift(0x9e37_79b9_7f4a_7c15);
    let mut decoded = 0usize;
    for (input, mutations) in &inputs {
        let bc = input.windows(4).position(|w| w == b"ML\xefR").unwrap();
        let mut read = |b: &[u8]| {
            let _ = read_jax_export(b);
            let _ = read_bytecode(&b[bc.min(b.len())..]);
            decoded += 1;
        };
        for len in (0..input.len()).step_by(1 + input.len() / 23) {
            read(&input[..len]);
        }
        for _ in 0..*mutations {
            let mut b = input.clone();
            for _ in 0..1 + rng.next_u64() % 4 {
                let i = (rng.next_u64() % b.len() as u64) as usize;
                b[i] = match rng.next_u64() % 4 {
                    0 => rng.next_u64() as u8,
                    1 => b[i] ^ (1 << (rng.next_u64() % 8)),
                    2 => 0xff,
                    _ => 0,
                };
            }
            read(&b);
        }
    }
    assert!(decoded >= 3 * 400);
}

#[test]
fn symbolic_shapes() {
    let e = read_jax_export(&data("symbolic_b4.jax_export")).unwrap();
    assert_eq!(e.in_avals.len(), 1);
    assert_eq!(e.in_avals[0].shape, vec!["b".to_string(), "4".to_string()]);
    assert_eq!(e.in_avals[0].dims(), vec![None, Some(4)]);
    assert_eq!(e.in_avals[0].dtype, DType::Known(PrimitiveType::F32));
    let main = e
        .module
        .ops
        .iter()
        .find(|o| o.attr("sym_name") == Some(&Attr::String(b"main".to_vec())))
        .unwrap();
    let Some(Attr::Type(Type::Function(ins, _))) = main.attr("function_type") else {
        panic!()
    };
    // The platform index comes first when the module has more than one
    // platform; the array argument is the last.
    let Type::Tensor { dims, .. } = ins.last().unwrap() else {
        panic!()
    };
    assert_eq!(dims, &vec![None, Some(4)]);
    assert!(e
        .module
        .attrs
        .iter()
        .any(|(k, a)| k == "jax.uses_shape_polymorphism" && *a == Attr::Bool(true)));
}

#[test]
fn shardings_and_metadata() {
    let dir = cases_dir().join("collectives__all_to_all");
    let e = read_case(&dir);
    // func.func public @main(%arg0: tensor<4x16xi32> {sdy.sharding =
    //   #sdy.sharding<@mesh, [{"i"}, {}]>}) on a 4-device mesh `i`.
    assert_eq!(e.nr_devices, 4);
    assert_eq!(e.platforms, vec!["cpu".to_string()]);
    assert_eq!(e.in_shardings.len(), 1);
    let Sharding::Named(n) = &e.in_shardings[0] else {
        panic!("{:?}", e.in_shardings)
    };
    assert_eq!(
        (n.axis_names.clone(), n.axis_sizes.clone()),
        (vec!["i".to_string()], vec![4])
    );
    assert_eq!(
        e.in_shardings[0].hlo_sharding(2).as_deref(),
        Some("{devices=[4,1]<=[4]}")
    );
    assert_eq!(e.out_shardings, vec![Sharding::Unspecified]);
    assert_eq!(e.module_kept_var_idx, vec![0]);
    assert_eq!(e.vhlo_version, VhloVersion(1, 15, 0));
    assert_eq!(e.producer, "StableHLO_v1.15.0");
    // ((x,), {}): one leaf.
    assert_eq!(e.in_tree.kind, 2);
    assert_eq!(e.in_tree.num_leaves(), 1);
    assert!(all_ops(&e.module)
        .iter()
        .any(|o| o.name == "sdy.manual_computation"));
}

#[test]
fn hlo_sharding_strings() {
    let mesh = |partitions: &[&[&str]]| NamedSharding {
        axis_names: vec!["a".into(), "b".into()],
        axis_sizes: vec![2, 3],
        partitions: partitions
            .iter()
            .map(|p| p.iter().map(|s| s.to_string()).collect())
            .collect(),
        memory_kind: None,
    };
    assert_eq!(
        mesh(&[&[], &[]]).hlo_sharding(2).as_deref(),
        Some("{replicated}")
    );
    assert_eq!(
        mesh(&[&["a"], &["b"]]).hlo_sharding(2).as_deref(),
        Some("{devices=[2,3]<=[6]}")
    );
    assert_eq!(
        mesh(&[&["a", "b"]]).hlo_sharding(2).as_deref(),
        Some("{devices=[6,1]<=[6]}")
    );
    assert_eq!(
        mesh(&[&["b"]]).hlo_sharding(2).as_deref(),
        Some("{devices=[3,1,2]<=[2,3]T(1,0) last_tile_dim_replicate}")
    );
    assert_eq!(mesh(&[&["c"]]).hlo_sharding(1), None);
}

#[test]
fn constants_of_empty_tensors_decode_empty() {
    // MLIR writes `dense<1> : tensor<0xi16>` as a one-element splat.
    let bytes = data("vhlo/empty_splat_constants.jax_export");
    let module = xla_core::load_module(&bytes).unwrap();
    let text = module.to_string();
    assert!(text.contains("s16[0]{0} constant({})"), "{text}");
    let x = xla_core::Literal::zeros(&xla_core::Shape::array(PrimitiveType::F16, vec![0])).unwrap();
    let out = xla_core::interp::Interpreter::new()
        .run(&module, &[&x])
        .unwrap();
    assert!(
        out.shape().eq_ignoring_layout(x.shape()),
        "{:?}",
        out.shape()
    );
}

#[test]
fn shardy_shardings_reach_the_shard_conversions() {
    // The `sdy` attributes decode to their text, and the manual
    // computation's shardings become HLO sharding strings, one per value,
    // on the conversions in and out.
    let module = xla_core::load_module(&data("vhlo/shard_map_two_devices.jax_export")).unwrap();
    let config = |target: &str| {
        let entry = module.entry_computation();
        let call = (entry.instructions.iter())
            .find(|i| i.attrs.custom_call_target.as_deref() == Some(target))
            .unwrap_or_else(|| panic!("no {target}"));
        call.attrs.backend_config.clone()
    };
    assert_eq!(
        config("xla.sdy.GlobalToLocalShape").as_deref(),
        Some("{devices=[2,1]<=[2]}\n{replicated}")
    );
    assert_eq!(
        config("xla.sdy.LocalToGlobalShape").as_deref(),
        Some("{replicated}\n{devices=[2,1]<=[2]}")
    );
    assert_eq!(module.num_partitions, 2);
}
