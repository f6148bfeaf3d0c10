//! MLIR bytecode (`ML\xefR`, `mlir/docs/BytecodeFormat.md`) holding a
//! StableHLO portable artifact (the VHLO dialect), read into
//! [`ir::Module`] with no MLIR library.
//!
//! The reader follows MLIR's `BytecodeReader`: the string, dialect,
//! attribute/type (offsets and data), IR, resource and properties sections;
//! prefix varints; regions with value numbering and forward references;
//! isolated regions in their own IR sections. Attributes and types use the
//! builtin and VHLO dialects' custom encodings (`BuiltinDialectBytecode`,
//! `VhloBytecode.cpp`); those written in their textual fallback form, or
//! custom-encoded by another dialect, are kept as
//! [`Attr::Opaque`](super::ir::Attr::Opaque) /
//! [`ElementType::Other`](super::ir::ElementType::Other) text. VHLO ops are
//! then mapped to StableHLO's as StableHLO's own deserialization does.
//!
//! Every read is bounds-checked: a truncated or corrupted file gives a
//! [`BytecodeError`] naming the byte offset, never a panic; counts are
//! capped by the bytes that remain, nesting is bounded by [`MAX_DEPTH`] and
//! the total size of the decoded attributes by a budget proportional to the
//! input.

mod attrs;
mod ir_section;
mod sdy;
mod vhlo;

use std::fmt;

use super::ir;

/// The MLIR bytecode versions read: VHLO 1.x is written as version 6.
pub const BYTECODE_VERSIONS: std::ops::RangeInclusive<u64> = 6..=6;

/// The oldest VHLO version read (`StableHLO_v1.0.0`).
pub const MIN_VHLO_VERSION: VhloVersion = VhloVersion(1, 0, 0);

/// The newest VHLO version read (any patch of `StableHLO_v1.20`); jaxlib
/// 0.10.2 writes 1.15.0 by default and at most 1.17.0.
pub const MAX_VHLO_VERSION: VhloVersion = VhloVersion(1, 20, u32::MAX);

/// How deeply regions, attributes and types may nest.
pub const MAX_DEPTH: usize = 128;

/// A VHLO (StableHLO release) version, `major.minor.patch`, as the producer
/// string `StableHLO_vX.Y.Z` of a portable artifact names it.
#[derive(Copy, Clone, PartialEq, Eq, PartialOrd, Ord, Hash, Debug)]
pub struct VhloVersion(pub u32, pub u32, pub u32);

impl fmt::Display for VhloVersion {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}.{}.{}", self.0, self.1, self.2)
    }
}

impl VhloVersion {
    /// Parses the `X.Y.Z` of a producer string `StableHLO_vX.Y.Z`.
    pub fn from_producer(producer: &str) -> Option<VhloVersion> {
        let rest = producer.strip_prefix("StableHLO_v")?;
        let mut parts = rest.split('.').map(|p| p.parse::<u32>().ok());
        let v = VhloVersion(parts.next()??, parts.next()??, parts.next()??);
        parts.next().is_none().then_some(v)
    }
}

/// Why a bytecode file could not be read. Offsets count bytes from the
/// start of the bytecode (its magic number).
#[derive(Clone, PartialEq, Debug, thiserror::Error)]
pub enum BytecodeError {
    /// The file does not start with `ML\xefR`.
    #[error("not MLIR bytecode: the magic number `ML\\xefR` is missing")]
    BadMagic,
    /// The bytecode version is outside [`BYTECODE_VERSIONS`].
    #[error("MLIR bytecode version {found} is outside the supported window {min}..={max}")]
    BytecodeVersion {
        /// The version the file names.
        found: u64,
        /// The oldest version read.
        min: u64,
        /// The newest version read.
        max: u64,
    },
    /// The producer string is not `StableHLO_vX.Y.Z`.
    #[error("producer `{0}` is not a StableHLO portable artifact (`StableHLO_vX.Y.Z`)")]
    NotPortableArtifact(String),
    /// The VHLO version is outside [`MIN_VHLO_VERSION`]..=[`MAX_VHLO_VERSION`].
    #[error("VHLO version {0} is outside the supported window 1.0.0..=1.20.x")]
    VhloVersion(VhloVersion),
    /// The data ends before a value that must follow.
    #[error("at byte {offset}: truncated, expected {expected}")]
    Truncated {
        /// Where the value should start.
        offset: usize,
        /// What was expected (`varint`, `IR section`, …).
        expected: &'static str,
    },
    /// A value is present but wrong.
    #[error("at byte {offset}: malformed {what}: {detail}")]
    Malformed {
        /// Where the value starts.
        offset: usize,
        /// What was being read (`section`, `attribute`, `op`, …).
        what: &'static str,
        /// What is wrong.
        detail: String,
    },
    /// A well-formed construct this reader does not handle.
    #[error("at byte {offset}: unsupported {what}: {detail}")]
    Unsupported {
        /// Where the construct starts.
        offset: usize,
        /// Its kind (`op`, `attribute`, `type`, …).
        what: &'static str,
        /// Which one.
        detail: String,
    },
    /// Regions, attributes or types nest deeper than [`MAX_DEPTH`].
    #[error("at byte {offset}: {what} nest deeper than {MAX_DEPTH}")]
    TooDeep {
        /// Where the nesting went too deep.
        offset: usize,
        /// What nests (`regions`, `attributes`).
        what: &'static str,
    },
    /// The decoded attributes would be far larger than the input (shared
    /// sub-attributes expanded many times).
    #[error("decoded attributes exceed {limit} units for this input size")]
    TooLarge {
        /// The budget, in nodes plus bytes.
        limit: usize,
    },
}

/// Shorthand for results of this module.
type Result<T> = std::result::Result<T, BytecodeError>;

/// Reads a StableHLO portable artifact (VHLO bytecode, as `jax.export` and
/// `stablehlo.serialize_portable_artifact` write it) into the MLIR form the
/// StableHLO text parser also produces: ops named as in StableHLO text,
/// older VHLO op versions upgraded, attributes with VHLO's names (see the
/// [`ir`] conventions).
pub fn read_bytecode(bytes: &[u8]) -> Result<ir::Module> {
    let file = File::parse(bytes)?;
    ir_section::read_module(&file)
}

/// The producer string and VHLO version of a portable artifact, without
/// decoding it.
pub fn portable_artifact_version(bytes: &[u8]) -> Result<(String, VhloVersion)> {
    let mut c = Cur::new(bytes, 0);
    if c.take(4, "magic number").ok() != Some(&b"ML\xefR"[..]) {
        return Err(BytecodeError::BadMagic);
    }
    c.varint()?;
    let producer = String::from_utf8_lossy(c.cstr("producer string")?).into_owned();
    let version = VhloVersion::from_producer(&producer)
        .ok_or_else(|| BytecodeError::NotPortableArtifact(producer.clone()))?;
    Ok((producer, version))
}

/// A bounds-checked cursor over a slice of the bytecode; `base` is the
/// slice's offset in the whole bytecode (for errors and alignment).
#[derive(Clone)]
pub(crate) struct Cur<'a> {
    data: &'a [u8],
    pos: usize,
    base: usize,
}

impl<'a> Cur<'a> {
    pub(crate) fn new(data: &'a [u8], base: usize) -> Self {
        Cur { data, pos: 0, base }
    }

    /// The absolute offset of the next byte.
    pub(crate) fn offset(&self) -> usize {
        self.base + self.pos
    }

    pub(crate) fn remaining(&self) -> usize {
        self.data.len() - self.pos
    }

    pub(crate) fn is_empty(&self) -> bool {
        self.pos == self.data.len()
    }

    pub(crate) fn truncated(&self, expected: &'static str) -> BytecodeError {
        BytecodeError::Truncated {
            offset: self.offset(),
            expected,
        }
    }

    pub(crate) fn malformed(&self, what: &'static str, detail: impl Into<String>) -> BytecodeError {
        BytecodeError::Malformed {
            offset: self.offset(),
            what,
            detail: detail.into(),
        }
    }

    pub(crate) fn unsupported(
        &self,
        what: &'static str,
        detail: impl Into<String>,
    ) -> BytecodeError {
        BytecodeError::Unsupported {
            offset: self.offset(),
            what,
            detail: detail.into(),
        }
    }

    pub(crate) fn byte(&mut self) -> Result<u8> {
        let b = *self
            .data
            .get(self.pos)
            .ok_or_else(|| self.truncated("byte"))?;
        self.pos += 1;
        Ok(b)
    }

    pub(crate) fn take(&mut self, n: usize, expected: &'static str) -> Result<&'a [u8]> {
        if n > self.remaining() {
            return Err(self.truncated(expected));
        }
        let s = &self.data[self.pos..self.pos + n];
        self.pos += n;
        Ok(s)
    }

    /// A prefix varint: the count of trailing zero bits of the first byte
    /// is the number of extra bytes.
    pub(crate) fn varint(&mut self) -> Result<u64> {
        let first = self.byte()?;
        if first & 1 == 1 {
            return Ok(u64::from(first >> 1));
        }
        if first == 0 {
            let b = self.take(8, "9-byte varint")?;
            let mut w = [0u8; 8];
            w.copy_from_slice(b);
            return Ok(u64::from_le_bytes(w));
        }
        let extra = first.trailing_zeros() as usize;
        let rest = self.take(extra, "varint")?;
        let mut w = [0u8; 8];
        w[0] = first;
        w[1..=extra].copy_from_slice(rest);
        Ok(u64::from_le_bytes(w) >> (extra + 1))
    }

    /// A zigzag-encoded signed varint.
    pub(crate) fn svarint(&mut self) -> Result<i64> {
        let v = self.varint()?;
        Ok(((v >> 1) as i64) ^ -((v & 1) as i64))
    }

    /// A varint whose low bit is a flag: `(value, flag)`.
    pub(crate) fn varint_flag(&mut self) -> Result<(u64, bool)> {
        let v = self.varint()?;
        Ok((v >> 1, v & 1 == 1))
    }

    /// A count of items each at least one byte long: capped by what remains.
    pub(crate) fn count(&mut self, what: &'static str) -> Result<usize> {
        let at = self.offset();
        let n = self.varint()?;
        if n > self.remaining() as u64 {
            return Err(BytecodeError::Malformed {
                offset: at,
                what,
                detail: format!(
                    "count {n} exceeds the {} bytes that remain",
                    self.remaining()
                ),
            });
        }
        Ok(n as usize)
    }

    /// An index below `len`.
    pub(crate) fn index(&mut self, len: usize, what: &'static str) -> Result<usize> {
        let at = self.offset();
        let i = self.varint()?;
        if i >= len as u64 {
            return Err(BytecodeError::Malformed {
                offset: at,
                what,
                detail: format!("index {i} out of range (table has {len})"),
            });
        }
        Ok(i as usize)
    }

    /// A NUL-terminated string (without its NUL).
    pub(crate) fn cstr(&mut self, expected: &'static str) -> Result<&'a [u8]> {
        let rest = &self.data[self.pos..];
        let n = rest
            .iter()
            .position(|&b| b == 0)
            .ok_or_else(|| self.truncated(expected))?;
        self.pos += n + 1;
        Ok(&rest[..n])
    }

    /// A section: `id | hasAlign << 7`, length, optional alignment and
    /// `0xCB` padding (relative to the start of the bytecode), data.
    pub(crate) fn section(&mut self) -> Result<(u8, Cur<'a>)> {
        let at = self.offset();
        let id_align = self.byte()?;
        let len = self.varint()?;
        let id = id_align & 0x7f;
        if id >= SECTION_COUNT {
            return Err(BytecodeError::Malformed {
                offset: at,
                what: "section",
                detail: format!("unknown section id {id}"),
            });
        }
        if id_align & 0x80 != 0 {
            let align = self.varint()?;
            if !align.is_power_of_two() || align > 1 << 20 {
                return Err(self.malformed("section", format!("alignment {align}")));
            }
            while !(self.offset() as u64).is_multiple_of(align) {
                if self.byte()? != 0xCB {
                    return Err(self.malformed("section", "alignment padding is not 0xCB"));
                }
            }
        }
        if len > self.remaining() as u64 {
            return Err(self.truncated("section data"));
        }
        let base = self.offset();
        let data = self.take(len as usize, "section data")?;
        Ok((id, Cur::new(data, base)))
    }
}

/// The section ids of MLIR bytecode.
pub(crate) mod section {
    pub const STRING: u8 = 0;
    pub const DIALECT: u8 = 1;
    pub const ATTR_TYPE: u8 = 2;
    pub const ATTR_TYPE_OFFSET: u8 = 3;
    pub const IR: u8 = 4;
    pub const DIALECT_VERSIONS: u8 = 7;
    pub const PROPERTIES: u8 = 8;
}

/// The number of section kinds (`kNumSections`).
const SECTION_COUNT: u8 = 9;

/// An op name of the dialect section.
pub(crate) struct OpName {
    pub dialect: usize,
    pub name: String,
    pub registered: bool,
}

/// An attribute or type entry of the attribute/type section.
pub(crate) struct Entry<'a> {
    pub dialect: usize,
    pub custom: bool,
    pub data: Cur<'a>,
}

/// The sections of a bytecode file, split and indexed.
pub(crate) struct File<'a> {
    pub len: usize,
    pub strings: Vec<&'a [u8]>,
    pub dialects: Vec<String>,
    pub op_names: Vec<OpName>,
    pub attrs: Vec<Entry<'a>>,
    pub types: Vec<Entry<'a>>,
    pub props: Vec<Cur<'a>>,
    pub ir: Cur<'a>,
}

impl<'a> File<'a> {
    fn parse(bytes: &'a [u8]) -> Result<File<'a>> {
        let (_, version) = portable_artifact_version(bytes)?;
        let mut c = Cur::new(bytes, 0);
        c.take(4, "magic number")?;
        let bc_version = c.varint()?;
        if !BYTECODE_VERSIONS.contains(&bc_version) {
            return Err(BytecodeError::BytecodeVersion {
                found: bc_version,
                min: *BYTECODE_VERSIONS.start(),
                max: *BYTECODE_VERSIONS.end(),
            });
        }
        if !(MIN_VHLO_VERSION..=MAX_VHLO_VERSION).contains(&version) {
            return Err(BytecodeError::VhloVersion(version));
        }
        c.cstr("producer string")?;
        let mut sections: [Option<Cur<'a>>; SECTION_COUNT as usize] = Default::default();
        while !c.is_empty() {
            let at = c.offset();
            let (id, data) = c.section()?;
            if sections[id as usize].replace(data).is_some() {
                return Err(BytecodeError::Malformed {
                    offset: at,
                    what: "section",
                    detail: format!("duplicate section {id}"),
                });
            }
        }
        let mut need = |id: u8, name: &'static str| {
            sections[id as usize]
                .take()
                .ok_or(BytecodeError::Truncated {
                    offset: bytes.len(),
                    expected: name,
                })
        };
        let string_sec = need(section::STRING, "string section")?;
        let dialect_sec = need(section::DIALECT, "dialect section")?;
        let attr_sec = need(section::ATTR_TYPE, "attribute/type section")?;
        let offset_sec = need(section::ATTR_TYPE_OFFSET, "attribute/type offset section")?;
        let ir = need(section::IR, "IR section")?;
        let props_sec = need(section::PROPERTIES, "properties section")?;
        let strings = parse_strings(string_sec)?;
        let (dialects, op_names) = parse_dialects(dialect_sec, &strings)?;
        let (attrs, types) = parse_attr_type_offsets(offset_sec, attr_sec, dialects.len())?;
        let props = parse_properties(props_sec)?;
        Ok(File {
            len: bytes.len(),
            strings,
            dialects,
            op_names,
            attrs,
            types,
            props,
            ir,
        })
    }

    pub(crate) fn string(&self, c: &mut Cur<'_>) -> Result<&'a [u8]> {
        let i = c.index(self.strings.len(), "string reference")?;
        Ok(self.strings[i])
    }
}

fn parse_strings(mut c: Cur<'_>) -> Result<Vec<&[u8]>> {
    let data = c.data;
    let n = c.count("string section")?;
    let mut lens = Vec::with_capacity(n);
    for _ in 0..n {
        lens.push(c.varint()?);
    }
    let mut end = data.len();
    let mut strings = vec![&data[0..0]; n];
    for (slot, len) in strings.iter_mut().rev().zip(lens) {
        if len == 0 || len > (end - c.pos) as u64 {
            return Err(c.malformed("string section", format!("string length {len}")));
        }
        let start = end - len as usize;
        *slot = &data[start..end - 1];
        end = start;
    }
    if end != c.pos {
        return Err(c.malformed(
            "string section",
            "trailing data between lengths and strings",
        ));
    }
    Ok(strings)
}

fn parse_dialects(mut c: Cur<'_>, strings: &[&[u8]]) -> Result<(Vec<String>, Vec<OpName>)> {
    let n = c.count("dialect section")?;
    let mut dialects = Vec::with_capacity(n);
    for _ in 0..n {
        let at = c.offset();
        let (idx, versioned) = c.varint_flag()?;
        let name = strings.get(idx as usize).ok_or(BytecodeError::Malformed {
            offset: at,
            what: "dialect",
            detail: format!("string index {idx} out of range"),
        })?;
        if versioned {
            let (id, _) = c.section()?;
            if id != section::DIALECT_VERSIONS {
                return Err(c.malformed("dialect", "expected a dialect version section"));
            }
        }
        dialects.push(String::from_utf8_lossy(name).into_owned());
    }
    let num_ops = c.count("op name table")?;
    let mut op_names = Vec::with_capacity(num_ops);
    while !c.is_empty() {
        let dialect = c.index(dialects.len(), "op name dialect")?;
        let k = c.count("op name group")?;
        for _ in 0..k {
            let at = c.offset();
            let (idx, registered) = c.varint_flag()?;
            let name = strings.get(idx as usize).ok_or(BytecodeError::Malformed {
                offset: at,
                what: "op name",
                detail: format!("string index {idx} out of range"),
            })?;
            op_names.push(OpName {
                dialect,
                name: String::from_utf8_lossy(name).into_owned(),
                registered,
            });
        }
    }
    Ok((dialects, op_names))
}

type Entries<'a> = (Vec<Entry<'a>>, Vec<Entry<'a>>);

fn parse_attr_type_offsets<'a>(
    mut c: Cur<'_>,
    data: Cur<'a>,
    ndialects: usize,
) -> Result<Entries<'a>> {
    let num_attrs = c.count("attribute table")?;
    let num_types = c.count("type table")?;
    let mut offset = 0usize;
    let mut read = |c: &mut Cur<'_>, n: usize| -> Result<Vec<Entry<'a>>> {
        let mut out = Vec::with_capacity(n);
        while out.len() < n {
            let dialect = c.index(ndialects, "attribute/type dialect")?;
            let k = c.count("attribute/type group")?;
            if k > n - out.len() {
                return Err(c.malformed("attribute/type offsets", "group overruns the table"));
            }
            for _ in 0..k {
                let (size, custom) = c.varint_flag()?;
                if size > (data.data.len() - offset) as u64 {
                    return Err(c.malformed(
                        "attribute/type offsets",
                        "entry past the end of its section",
                    ));
                }
                let size = size as usize;
                out.push(Entry {
                    dialect,
                    custom,
                    data: Cur::new(&data.data[offset..offset + size], data.base + offset),
                });
                offset += size;
            }
        }
        Ok(out)
    };
    let attrs = read(&mut c, num_attrs)?;
    let types = read(&mut c, num_types)?;
    if !c.is_empty() {
        return Err(c.malformed("attribute/type offsets", "trailing data"));
    }
    Ok((attrs, types))
}

fn parse_properties(mut c: Cur<'_>) -> Result<Vec<Cur<'_>>> {
    if c.is_empty() {
        return Ok(Vec::new());
    }
    let n = c.count("properties section")?;
    let mut out = Vec::with_capacity(n);
    for _ in 0..n {
        let size = c.varint()?;
        if size > c.remaining() as u64 {
            return Err(c.truncated("properties entry"));
        }
        let base = c.offset();
        let data = c.take(size as usize, "properties entry")?;
        out.push(Cur::new(data, base));
    }
    if !c.is_empty() {
        return Err(c.malformed("properties section", "trailing data"));
    }
    Ok(out)
}
