//! Every module JAX printed for `tests/fixtures/gen_hlo.py`, and every
//! benchmark module, parses and prints back.

use std::fs;
use std::path::{Path, PathBuf};

use xla_core::text::parse_hlo_module;
use xla_core::HloModule;

/// Fixtures whose text carries attributes the parser drops, so printing
/// does not give the file back byte for byte (it still round-trips as a
/// module).
const NORMALIZED: &[(&str, &str)] = &[
    (
        "collectives_pmap",
        "frontend_attributes (sdy meshes and shardings)",
    ),
    (
        "collectives_shard_map",
        "frontend_attributes (sdy meshes and shardings)",
    ),
    (
        "compiled_softmax",
        "XLA's dump style: `%` names, signatures, metadata, debug tables",
    ),
    (
        "compiled_while",
        "XLA's dump style: `%` names, signatures, metadata, debug tables",
    ),
    ("dot", "operand_precision={highest,highest}"),
    ("host_callbacks", "sharding and frontend_attributes"),
    ("linalg", "frontend_attributes (sdy sharding rules)"),
    (
        "linalg_decompositions",
        "frontend_attributes (sdy sharding rules)",
    ),
    ("sharded_jit", "sharding and frontend_attributes"),
];

fn fixtures() -> Vec<PathBuf> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures");
    let mut files: Vec<PathBuf> = ["hlo", "bench"]
        .iter()
        .flat_map(|dir| fs::read_dir(root.join(dir)).unwrap_or_else(|e| panic!("{dir}: {e}")))
        .map(|entry| entry.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "hlo"))
        .collect();
    files.sort();
    files
}

#[test]
fn fixtures_round_trip() {
    let files = fixtures();
    assert!(files.len() >= 60, "found only {} fixtures", files.len());
    let mut normalized_seen = Vec::new();
    for path in &files {
        let name = path.file_stem().unwrap().to_str().unwrap();
        let text = fs::read_to_string(path).unwrap();
        let module = parse_hlo_module(&text).unwrap_or_else(|e| panic!("{}:\n{e}", path.display()));
        let printed = module.to_string();
        match NORMALIZED.iter().find(|(n, _)| *n == name) {
            Some(_) => normalized_seen.push(name.to_string()),
            None => assert_eq!(
                printed,
                text,
                "{} does not print back unchanged",
                path.display()
            ),
        }
        let reparsed: HloModule = printed.parse().unwrap_or_else(|e| {
            panic!(
                "{} printed unparsable text:\n{e}\n{printed}",
                path.display()
            )
        });
        assert_eq!(reparsed, module, "{}: parse(print(m)) != m", path.display());
        assert_eq!(
            reparsed.to_string(),
            printed,
            "{}: printing is not a fixed point",
            path.display()
        );
    }
    assert_eq!(
        normalized_seen.len(),
        NORMALIZED.len(),
        "every NORMALIZED entry names a fixture"
    );
}

/// Truncated and corrupted fixtures give errors (or, by chance, another
/// valid module), never a panic.
#[test]
fn corrupted_fixtures_never_panic() {
    const REPLACEMENTS: &[&str] = &[
        "{", "}", "(", ")", "[", "]", ",", "=", ":", "%", "\"", "x", "7", "-", " ", "\n", "/*",
        "nan(",
    ];
    let mut state = 0x9e37_79b9_7f4a_7c15u64;
    let mut next = |n: usize| {
        state = state
            .wrapping_mul(6_364_136_223_846_793_005)
            .wrapping_add(1_442_695_040_888_963_407);
        (state >> 33) as usize % n
    };
    let mut errors = 0;
    for path in fixtures() {
        let text = fs::read_to_string(&path).unwrap();
        for _ in 0..40 {
            let cut = next(text.len());
            if !text.is_char_boundary(cut) {
                continue;
            }
            let truncated = &text[..cut];
            let replaced = format!(
                "{}{}{}",
                &text[..cut],
                REPLACEMENTS[next(REPLACEMENTS.len())],
                &text[cut..]
            );
            for corrupted in [truncated, replaced.as_str()] {
                errors += usize::from(parse_hlo_module(corrupted).is_err());
            }
        }
    }
    assert!(
        errors > 2000,
        "only {errors} corrupted inputs were rejected"
    );
}
