//! safetensors files: what the Python `safetensors` package wrote, every
//! dtype we have, zero-copy mapping, round trips and malformed files.
//! Fixtures come from `tests/data/gen_npy.py`.

use std::path::PathBuf;

use xla_core::io::{
    decode_safetensors, encode_safetensors, read_safetensors, write_safetensors, IoErrorKind,
};
use xla_core::layout::{Layout, Tile};
use xla_core::literal::Tolerance;
use xla_core::{Literal, C64};

use crate::values;
use values::expected;

const CODES: [&str; 13] = [
    "b1", "i1", "i2", "i4", "i8", "u1", "u2", "u4", "u8", "f2", "f4", "f8", "bf16",
];

fn fixture(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("tests/data/safetensors")
        .join(name)
}

fn bytes(name: &str) -> Vec<u8> {
    std::fs::read(fixture(name)).unwrap()
}

fn decode_err(file: &[u8]) -> String {
    decode_safetensors(file).unwrap_err().to_string()
}

#[test]
fn reads_every_dtype_python_wrote_in_file_order() {
    let tensors = read_safetensors(fixture("all.safetensors")).unwrap();
    let names: Vec<&str> = tensors.iter().map(|(n, _)| n.as_str()).collect();
    // The order of the data in the file (Python sorts by alignment).
    assert_eq!(
        names,
        [
            "u8", "i8", "f8", "f4", "scalar", "u4", "empty", "i4", "bf16", "f2", "u2", "i2", "i1",
            "u1", "b1"
        ]
    );
    for (name, literal) in &tensors {
        let expected = match name.as_str() {
            "scalar" => Literal::scalar(7.5f32),
            "empty" => Literal::from_slice::<i32>(&[0, 4], &[]).unwrap(),
            code => expected(code),
        };
        assert_eq!(literal.shape(), expected.shape(), "{name}");
        if let Err(m) = expected.check_close(literal, Tolerance::EXACT) {
            panic!("{name}: {m}");
        }
    }
    assert_eq!(tensors.len(), CODES.len() + 2);
    // Writing them back gives Python's bytes exactly.
    let refs: Vec<(&str, &Literal)> = tensors.iter().map(|(n, l)| (n.as_str(), l)).collect();
    assert_eq!(encode_safetensors(&refs).unwrap(), bytes("all.safetensors"));
}

#[test]
fn round_trips_and_writes_row_major() {
    let mut literals: Vec<(String, Literal)> =
        CODES.iter().map(|c| (c.to_string(), expected(c))).collect();
    let tiled = expected("f4")
        .relayout(&Layout::new([0, 1]).with_tiles([Tile::new([2, 2])]))
        .unwrap();
    literals.push(("tiled".into(), tiled));
    literals.push(("scalar".into(), Literal::scalar(-1i64)));
    let refs: Vec<(&str, &Literal)> = literals.iter().map(|(n, l)| (n.as_str(), l)).collect();
    let encoded = encode_safetensors(&refs).unwrap();
    let mut decoded = decode_safetensors(&encoded).unwrap();
    decoded.sort_by(|a, b| a.0.cmp(&b.0));
    literals.sort_by(|a, b| a.0.cmp(&b.0));
    for ((name, want), (got_name, got)) in literals.iter().zip(&decoded) {
        assert_eq!(name, got_name);
        if let Err(m) = want.check_close(got, Tolerance::EXACT) {
            panic!("{name}: {m}");
        }
        let got = got.shape().as_array().unwrap();
        assert_eq!(
            got.layout_or_default(),
            Layout::default_for_rank(got.rank())
        );
    }
    assert_eq!(decoded.len(), literals.len());
}

#[test]
fn unsupported_dtypes_and_bad_writes() {
    let err = read_safetensors(fixture("f8.safetensors")).unwrap_err();
    assert!(
        err.to_string().ends_with(
            "f8.safetensors: tensor \"q\": unsupported dtype \"F8_E4M3\" (xla-rs has no 8-bit float types)"
        ),
        "{err}"
    );
    assert_eq!(
        decode_err(&bytes("c64.safetensors")),
        "tensor \"z\": unsupported dtype \"C64\""
    );
    let c = Literal::vector(&[C64::new(1.0, 2.0)]);
    assert_eq!(
        encode_safetensors(&[("z", &c)]).unwrap_err().to_string(),
        "tensor \"z\": unsupported dtype \"c64\" (safetensors has no complex dtype)"
    );
    let x = Literal::scalar(1u8);
    assert_eq!(
        encode_safetensors(&[("x", &x), ("x", &x)])
            .unwrap_err()
            .to_string(),
        "tensor name \"x\" appears twice"
    );
    let t = Literal::tuple(vec![]);
    assert_eq!(
        encode_safetensors(&[("t", &t)]).unwrap_err().to_string(),
        "tensor \"t\": only arrays can be written, not a literal of shape ()"
    );
}

/// A scratch directory removed when dropped.
struct TempDir(PathBuf);

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

#[test]
fn large_files_are_mapped_when_aligned() {
    let dir = TempDir(std::env::temp_dir().join(format!("xla-core-st-{}", std::process::id())));
    std::fs::create_dir_all(&dir.0).unwrap();
    let big = Literal::vector(&(0..40_000).map(|i| i as f64).collect::<Vec<_>>());
    let half = Literal::vector(
        &(0..1001)
            .map(|i| half::f16::from_f32(i as f32))
            .collect::<Vec<_>>(),
    );
    let flags = Literal::vector(&(0..5000).map(|i| i % 2 == 0).collect::<Vec<_>>());
    let path = dir.0.join("big.safetensors");
    write_safetensors(&path, &[("big", &big), ("half", &half), ("flags", &flags)]).unwrap();
    let read = read_safetensors(&path).unwrap();
    let get = |name: &str| &read.iter().find(|(n, _)| n == name).unwrap().1;
    assert!(get("big").storage().unwrap().is_mapped());
    assert!(get("half").storage().unwrap().is_mapped());
    // Bool data is validated and copied, never viewed in place.
    assert!(!get("flags").storage().unwrap().is_mapped());
    assert_eq!(get("big"), &big);
    assert_eq!(get("half"), &half);
    assert_eq!(get("flags"), &flags);
    let missing = dir.0.join("missing.safetensors");
    assert!(matches!(
        read_safetensors(&missing).unwrap_err().kind,
        IoErrorKind::Os { action: "open", .. }
    ));
}

/// A file with the given header JSON (padded to 8 bytes) and data.
fn file(header: &str, data: &[u8]) -> Vec<u8> {
    let mut header = header.to_string();
    while !header.len().is_multiple_of(8) {
        header.push(' ');
    }
    let mut out = (header.len() as u64).to_le_bytes().to_vec();
    out.extend_from_slice(header.as_bytes());
    out.extend_from_slice(data);
    out
}

#[test]
fn malformed_files_give_clear_errors() {
    let cases: Vec<(Vec<u8>, &str)> = vec![
        (vec![1, 2, 3], "truncated file: the header length needs 8 bytes, but only 3 remain"),
        (file("{}", &[])[..12].to_vec(), "truncated file: the header needs 8 bytes, but only 4 remain"),
        (u64::MAX.to_le_bytes().to_vec(), "the header is 18446744073709551615 bytes long, more than the limit of 100000000 bytes"),
        (file("[1]", &[]), "malformed safetensors file: the header is not a JSON object"),
        (file("{\"a\": 1", &[]), "malformed safetensors file: the header is not JSON: EOF while parsing an object"),
        (
            file(r#"{"w":{"dtype":"F32","shape":[2],"data_offsets":[0,8]},"b":{"dtype":"BOOL","shape":[3],"data_offsets":[8,11]}}"#, &[0, 0, 0, 0, 0, 0, 0, 0, 1, 2, 0]),
            "tensor \"b\": bool data byte 1 holds 2; bool elements are 0 or 1",
        ),
        (
            file(r#"{"w":{"dtype":"F32","shape":[3],"data_offsets":[0,8]}}"#, &[0; 8]),
            "malformed safetensors file: a tensor's data_offsets do not span its shape times its dtype size",
        ),
        (
            file(r#"{"w":{"dtype":"F32","shape":[2],"data_offsets":[0,8]}}"#, &[0; 9]),
            "malformed safetensors file: the tensors' data does not end exactly at the end of the file",
        ),
        (
            file(r#"{"w":{"dtype":"F32","shape":[2],"data_offsets":[4,12]}}"#, &[0; 12]),
            "malformed safetensors file: tensor \"w\": its data_offsets do not start where the previous tensor's data ends",
        ),
        (
            file(r#"{"w":{"dtype":"F32","shape":[4611686018427387904,8],"data_offsets":[0,0]}}"#, &[]),
            "malformed safetensors file: a tensor's element or byte count overflows",
        ),
        (
            file(r#"{"w":{"dtype":"F4","shape":[2],"data_offsets":[0,1]}}"#, &[0]),
            "tensor \"w\": unsupported dtype \"F4\"",
        ),
    ];
    for (file, message) in cases {
        let err = decode_err(&file);
        assert!(
            err.starts_with(message),
            "expected {message:?}\n     got {err:?}"
        );
    }
}

#[test]
fn corrupted_files_never_panic() {
    let original = bytes("all.safetensors");
    let check = |file: &[u8]| {
        if let Ok(tensors) = decode_safetensors(file) {
            for (_, l) in tensors {
                let shape = l.array_shape().unwrap();
                assert_eq!(l.bytes().unwrap().len() as i64, shape.byte_size().unwrap());
            }
        }
    };
    for len in 0..original.len() {
        check(&original[..len]);
    }
    let mut state = 11u64;
    for _ in 0..3000 {
        let mut file = original.clone();
        for _ in 0..3 {
            state = state
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            let at = (state >> 33) as usize % file.len();
            file[at] = (state >> 20) as u8;
        }
        check(&file);
    }
}
