//! `.npy` files: we read exactly what NumPy (and ml_dtypes) wrote, in every
//! dtype, order, byte order and format version, and we write the bytes NumPy
//! writes. Fixtures come from `tests/data/gen_npy.py`.

use std::path::PathBuf;

use xla_core::io::{
    decode_npy, encode_npy, read_npy, write_npy, IoErrorKind, NpyOptions, NpyVersion,
};
use xla_core::layout::{Layout, PaddingValue, Tile};
use xla_core::literal::Tolerance;
use xla_core::{Literal, PrimitiveType};

use crate::values;
use values::{element_type, expected};

const CODES: [&str; 15] = [
    "b1", "i1", "i2", "i4", "i8", "u1", "u2", "u4", "u8", "f2", "f4", "f8", "c8", "c16", "bf16",
];

fn fixture(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("tests/data/npy")
        .join(name)
}

fn bytes(name: &str) -> Vec<u8> {
    std::fs::read(fixture(name)).unwrap()
}

fn options(code: &str) -> NpyOptions {
    NpyOptions {
        as_type: (code == "bf16").then_some(PrimitiveType::Bf16),
    }
}

fn assert_same_values(actual: &Literal, expected: &Literal, what: &str) {
    if let Err(m) = expected.check_close(actual, Tolerance::EXACT) {
        panic!("{what}: {m}");
    }
}

#[test]
fn reads_every_dtype_order_and_byte_order_as_numpy_wrote_it() {
    let mut read = 0;
    for code in CODES {
        for endian in ["", "_be"] {
            for (order, layout) in [("c", "{1,0}"), ("f", "{0,1}")] {
                let name = format!("{code}{endian}_{order}.npy");
                if !fixture(&name).exists() {
                    assert!(endian == "_be", "missing fixture {name}");
                    continue;
                }
                let l = read_npy(fixture(&name), &options(code)).unwrap();
                let ty = element_type(code);
                assert_eq!(
                    l.shape().to_string(),
                    format!("{ty}[2,3]{layout}"),
                    "{name}"
                );
                assert_same_values(&l, &expected(code), &name);
                // We write the bytes NumPy wrote for the native-endian file.
                let native = format!("{code}_{order}.npy");
                assert_eq!(encode_npy(&l, None).unwrap(), bytes(&native), "{name}");
                read += 1;
            }
        }
    }
    // 15 dtypes in two orders, 11 of them also big-endian.
    assert_eq!(read, 15 * 2 + 11 * 2);
}

#[test]
fn reads_and_writes_format_versions_2_and_3() {
    let o = NpyOptions::default();
    for (name, version) in [
        ("f4_c_v2.npy", NpyVersion::V2),
        ("f4_c_v3.npy", NpyVersion::V3),
    ] {
        let l = read_npy(fixture(name), &o).unwrap();
        assert_same_values(&l, &expected("f4"), name);
        assert_eq!(encode_npy(&l, Some(version)).unwrap(), bytes(name));
        assert_eq!(encode_npy(&l, None).unwrap(), bytes("f4_c.npy"));
    }
    let l = read_npy(fixture("i8_be_c_v2.npy"), &o).unwrap();
    assert_same_values(&l, &expected("i8"), "i8_be_c_v2");
    let l = read_npy(fixture("c16_be_f_v3.npy"), &o).unwrap();
    assert_eq!(l.shape().to_string(), "c128[2,3]{0,1}");
    assert_same_values(&l, &expected("c16"), "c16_be_f_v3");
    let v3 = encode_npy(&l, Some(NpyVersion::V3)).unwrap();
    assert_eq!(decode_npy(&v3, &o).unwrap(), l);
    assert_eq!(encode_npy(&l, None).unwrap(), bytes("c16_f.npy"));
}

#[test]
fn bf16_is_read_only_when_asked_for() {
    let bf16 = options("bf16");
    for name in ["bf16_c.npy", "bf16_u2_c.npy", "bf16_u2_be_c.npy"] {
        let l = read_npy(fixture(name), &bf16).unwrap();
        assert_same_values(&l, &expected("bf16"), name);
        assert_eq!(encode_npy(&l, None).unwrap(), bytes("bf16_c.npy"), "{name}");
    }
    let err = read_npy(fixture("bf16_c.npy"), &NpyOptions::default()).unwrap_err();
    assert!(err.to_string().ends_with(
        "bf16_c.npy: unsupported dtype \"<V2\" (2 raw bytes, how NumPy stores ml_dtypes' \
         bfloat16: read it with NpyOptions { as_type: Some(PrimitiveType::Bf16) })"
    ));
    let raw = read_npy(fixture("bf16_u2_c.npy"), &NpyOptions::default()).unwrap();
    assert_eq!(raw.element_type(), Some(PrimitiveType::U16));
    let err = decode_npy(&bytes("f8_c.npy"), &options("bf16")).unwrap_err();
    assert_eq!(
        err.to_string(),
        "the file holds dtype \"<f8\", not the requested bf16"
    );
    let f8 = NpyOptions {
        as_type: Some(PrimitiveType::F64),
    };
    assert_same_values(
        &decode_npy(&bytes("f8_c.npy"), &f8).unwrap(),
        &expected("f8"),
        "f8",
    );
}

#[test]
fn rank_0_size_0_and_rank_3() {
    let o = NpyOptions::default();
    let cases = [
        ("f8_scalar.npy", Literal::scalar(-2.5f64), "f64[]"),
        ("b1_scalar.npy", Literal::scalar(true), "pred[]"),
        (
            "f4_empty.npy",
            Literal::from_slice::<f32>(&[2, 0], &[]).unwrap(),
            "f32[2,0]{1,0}",
        ),
        (
            "c8_be_empty.npy",
            Literal::vector::<xla_core::C64>(&[]),
            "c64[0]{0}",
        ),
    ];
    for (name, expected, shape) in cases {
        let l = read_npy(fixture(name), &o).unwrap();
        assert_eq!(l.shape().to_string(), shape, "{name}");
        assert_same_values(&l, &expected, name);
        if !name.contains("_be") {
            assert_eq!(encode_npy(&l, None).unwrap(), bytes(name), "{name}");
        }
    }
    let l = read_npy(fixture("i2_rank3_f.npy"), &o).unwrap();
    assert_eq!(l.shape().to_string(), "s16[2,3,4]{0,1,2}");
    assert_eq!(l.to_vec::<i16>().unwrap(), (0..24).collect::<Vec<i16>>());
    assert_eq!(l.get::<i16>(&[1, 2, 3]).unwrap(), 23);
    assert_eq!(encode_npy(&l, None).unwrap(), bytes("i2_rank3_f.npy"));
}

#[test]
fn other_layouts_are_written_in_c_order() {
    let l = expected("f4");
    let layouts = [
        Layout::new([1, 0]).with_tiles([Tile::new([2, 2])]),
        Layout::new([0, 1]).with_padding([3, 4], PaddingValue::Highest),
        Layout::new([1, 0]).with_padding([2, 5], PaddingValue::Zero),
    ];
    for layout in layouts {
        let relaid = l.relayout(&layout).unwrap();
        assert_eq!(
            encode_npy(&relaid, None).unwrap(),
            bytes("f4_c.npy"),
            "{layout}"
        );
    }
    let col = l.relayout(&Layout::new([0, 1])).unwrap();
    assert_eq!(encode_npy(&col, None).unwrap(), bytes("f4_f.npy"));
    let tuple = Literal::tuple(vec![l]);
    assert_eq!(
        encode_npy(&tuple, None).unwrap_err().to_string(),
        "only arrays can be written, not a literal of shape (f32[2,3]{1,0})"
    );
}

/// A scratch directory removed when dropped.
struct TempDir(PathBuf);

impl TempDir {
    fn new(tag: &str) -> Self {
        let dir = std::env::temp_dir().join(format!("xla-core-{tag}-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        TempDir(dir)
    }
}

impl Drop for TempDir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

#[test]
fn large_files_are_mapped_when_aligned_and_native() {
    let dir = TempDir::new("npy");
    let n = 300_000i64;
    let values: Vec<f32> = (0..n).map(|i| i as f32 * 0.5).collect();
    let l = Literal::from_slice(&[n / 100, 100], &values).unwrap();
    let path = dir.0.join("big.npy");
    write_npy(&path, &l).unwrap();
    let mut read = read_npy(&path, &NpyOptions::default()).unwrap();
    assert!(read.storage().unwrap().is_mapped());
    assert_eq!(read, l);
    // Writing copies the mapped data first; the file is unchanged.
    read.set(&[0, 1], -1.0f32).unwrap();
    assert!(!read.storage().unwrap().is_mapped());
    assert_eq!(read_npy(&path, &NpyOptions::default()).unwrap(), l);

    // Big-endian data is swapped into owned storage.
    let mut big_endian = std::fs::read(&path).unwrap();
    let descr = big_endian.windows(3).position(|w| w == b"<f4").unwrap();
    big_endian[descr] = b'>';
    for chunk in big_endian[128..].chunks_exact_mut(4) {
        chunk.reverse();
    }
    let be_path = dir.0.join("big_be.npy");
    std::fs::write(&be_path, &big_endian).unwrap();
    let be = read_npy(&be_path, &NpyOptions::default()).unwrap();
    assert!(!be.storage().unwrap().is_mapped());
    assert_eq!(be, l);

    // Pred data is validated and copied, never viewed in place.
    let flags: Vec<bool> = (0..n).map(|i| i % 3 == 0).collect();
    let p = Literal::vector(&flags);
    let pred_path = dir.0.join("pred.npy");
    write_npy(&pred_path, &p).unwrap();
    let read = read_npy(&pred_path, &NpyOptions::default()).unwrap();
    assert!(!read.storage().unwrap().is_mapped());
    assert_eq!(read, p);
    let mut bad = std::fs::read(&pred_path).unwrap();
    bad[128 + 100_000] = 7;
    std::fs::write(&pred_path, &bad).unwrap();
    let err = read_npy(&pred_path, &NpyOptions::default()).unwrap_err();
    assert!(
        matches!(
            err.kind,
            IoErrorKind::InvalidBool {
                offset: 100_000,
                byte: 7
            }
        ),
        "{err}"
    );

    let missing = dir.0.join("missing.npy");
    let err = read_npy(&missing, &NpyOptions::default()).unwrap_err();
    assert_eq!(
        err.to_string(),
        format!(
            "{}: cannot open: No such file or directory (os error 2)",
            missing.display()
        )
    );
}

/// A version-1.0 file with the given header dict (padded as NumPy pads it)
/// and data.
fn npy_v1(dict: &str, data: &[u8]) -> Vec<u8> {
    let mut header = dict.to_string();
    while !(10 + header.len() + 1).is_multiple_of(64) {
        header.push(' ');
    }
    header.push('\n');
    let mut out = b"\x93NUMPY\x01\x00".to_vec();
    out.extend_from_slice(&(header.len() as u16).to_le_bytes());
    out.extend_from_slice(header.as_bytes());
    out.extend_from_slice(data);
    out
}

fn decode_err(file: &[u8]) -> String {
    decode_npy(file, &NpyOptions::default())
        .unwrap_err()
        .to_string()
}

#[test]
fn malformed_files_give_clear_errors() {
    let good = bytes("f4_c.npy");
    let dict = |descr: &str, shape: &str| {
        format!("{{'descr': '{descr}', 'fortran_order': False, 'shape': {shape}, }}")
    };
    let cases: Vec<(Vec<u8>, &str)> = vec![
        (
            Vec::new(),
            "truncated file: the magic string and version needs 8 bytes, but only 0 remain",
        ),
        (
            good[..9].to_vec(),
            "truncated file: the header length needs 10 bytes, but only 9 remain",
        ),
        (
            good[..60].to_vec(),
            "truncated file: the header needs 118 bytes, but only 50 remain",
        ),
        (
            good[..130].to_vec(),
            "the shape needs 24 bytes of data, but the file holds 2",
        ),
        (
            [&good[..], &[0]].concat(),
            "the shape needs 24 bytes of data, but the file holds 25",
        ),
        (
            b"\x93NUMPX\x01\x00rest".to_vec(),
            "not a .npy file: it starts with \\x93NUMPX\\x01\\x00, not the magic string \\x93NUMPY",
        ),
        (
            b"PK\x03\x04".to_vec(),
            "not a .npy file: it starts with PK\\x03\\x04, not the magic string \\x93NUMPY",
        ),
        (
            b"\x93NUMPY\x04\x00\x00\x00".to_vec(),
            "unsupported .npy format version 4.0 (versions 1.0, 2.0 and 3.0 are read)",
        ),
        (
            b"\x93NUMPY\x02\x00\x00\x00\x20\x00".to_vec(),
            "the header is 2097152 bytes long, more than the limit of 1048576 bytes",
        ),
        (
            npy_v1("[1, 2]", &[]),
            "malformed header: expected a dict `{…}` at column 1, found \"[1, 2]\"",
        ),
        (
            npy_v1(&dict("<U4", "(1,)"), &[0; 16]),
            "unsupported dtype \"<U4\"",
        ),
        (
            npy_v1(&dict("|O", "(1,)"), &[0; 8]),
            "unsupported dtype \"|O\" (object arrays hold pickled Python objects)",
        ),
        (
            npy_v1(&dict("|f4", "(1,)"), &[0; 4]),
            "unsupported dtype \"|f4\" (byte order `|` on a multi-byte type)",
        ),
        (
            npy_v1(&dict("<f4", "(1099511627776, 1099511627776)"), &[]),
            "shape [1099511627776, 1099511627776] has more elements or bytes than fit in 64 bits",
        ),
        (
            npy_v1(&dict("<f8", "(4611686018427387904,)"), &[]),
            "shape [4611686018427387904] has more elements or bytes than fit in 64 bits",
        ),
        (
            npy_v1(&dict("<f4", "(1000000,)"), &[0; 24]),
            "the shape needs 4000000 bytes of data, but the file holds 24",
        ),
        (
            npy_v1(&dict("|b1", "(3,)"), &[1, 2, 0]),
            "bool data byte 1 holds 2; bool elements are 0 or 1",
        ),
        (
            npy_v1(&dict("<f4", "(1,)").replace("f4", "f\u{e9}"), &[0; 4]),
            "malformed header: the header text is not ASCII",
        ),
    ];
    for (file, message) in cases {
        let err = decode_err(&file);
        assert!(
            err.starts_with(message),
            "expected {message:?}\n     got {err:?}"
        );
    }
    let err = decode_npy(
        &bytes("f8_c.npy"),
        &NpyOptions {
            as_type: Some(PrimitiveType::F32),
        },
    );
    assert_eq!(
        err.unwrap_err().to_string(),
        "the file holds dtype \"<f8\", not the requested f32"
    );
}

/// A small deterministic generator (64-bit LCG, high bits).
struct Lcg(u64);

impl Lcg {
    fn next(&mut self) -> u64 {
        self.0 = self
            .0
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        self.0 >> 33
    }
}

#[test]
fn corrupted_files_never_panic() {
    let originals: Vec<Vec<u8>> = ["f4_c.npy", "b1_f.npy", "c16_be_f_v3.npy", "f8_scalar.npy"]
        .iter()
        .map(|n| bytes(n))
        .collect();
    let check = |file: &[u8]| {
        for o in [NpyOptions::default(), options("bf16")] {
            if let Ok(l) = decode_npy(file, &o) {
                // Whatever parses is a consistent literal.
                let shape = l.array_shape().unwrap();
                assert_eq!(l.bytes().unwrap().len() as i64, shape.byte_size().unwrap());
            }
        }
    };
    let mut rng = Lcg(7);
    for original in &originals {
        for len in 0..original.len() {
            check(&original[..len]);
        }
        let interesting = [
            0u8, b' ', b'(', b')', b',', b'\'', b'{', b'}', b'9', b'-', 0xff, 0x93,
        ];
        for at in 0..original.len().min(192) {
            for &b in &interesting {
                let mut file = original.clone();
                file[at] = b;
                check(&file);
            }
        }
        for _ in 0..2000 {
            let mut file = original.clone();
            for _ in 0..1 + rng.next() % 4 {
                let at = rng.next() as usize % file.len();
                file[at] = rng.next() as u8;
            }
            check(&file);
        }
    }
}
