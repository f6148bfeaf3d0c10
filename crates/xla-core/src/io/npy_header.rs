//! The `.npy` header: a preamble, then a Python dict literal.
//!
//! ```text
//! offset 0   \x93NUMPY                magic (6 bytes)
//! offset 6   major, minor             format version: 1.0, 2.0 or 3.0
//! offset 8   header length            u16 LE (1.0) or u32 LE (2.0, 3.0)
//! offset 10 or 12: {'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), }   ␣…␣\n
//! ```
//!
//! The dict is ASCII (1.0, 2.0) or UTF-8 (3.0), padded with spaces and a
//! newline so that the data starts at a multiple of 64 bytes. Parsing is
//! strict: exactly the keys `descr` (a string), `fortran_order` (a bool) and
//! `shape` (a tuple of non-negative ints), each once.

use super::IoErrorKind;

const MAGIC: &[u8] = b"\x93NUMPY";

/// Longest header text accepted, in bytes (NumPy's own reader stops at
/// 10 000 characters).
pub(super) const MAX_HEADER_LEN: u64 = 1 << 20;

/// NumPy aligns the data to this many bytes.
const ARRAY_ALIGN: usize = 64;

/// Room NumPy leaves for the growing dimension's size to get longer.
const GROWTH_AXIS_MAX_DIGITS: usize = 21;

/// Deepest nesting of brackets accepted in a header.
const MAX_DEPTH: usize = 32;

/// A `.npy` format version.
#[derive(Copy, Clone, PartialEq, Eq, Debug)]
pub enum NpyVersion {
    /// 1.0: a 16-bit header length, ASCII header.
    V1,
    /// 2.0: a 32-bit header length, ASCII header.
    V2,
    /// 3.0: a 32-bit header length, UTF-8 header.
    V3,
}

impl NpyVersion {
    /// Bytes before the header text: magic, version and length.
    fn preamble_len(self) -> usize {
        match self {
            NpyVersion::V1 => 10,
            NpyVersion::V2 | NpyVersion::V3 => 12,
        }
    }
}

/// A parsed header.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(super) struct Header {
    pub version: NpyVersion,
    pub descr: String,
    pub fortran_order: bool,
    pub shape: Vec<u64>,
    /// Where the data starts, in bytes from the start of the file.
    pub data_offset: usize,
}

/// Parses the preamble and header at the start of `bytes`.
pub(super) fn parse(bytes: &[u8]) -> Result<Header, IoErrorKind> {
    let prefix = &bytes[..bytes.len().min(MAGIC.len())];
    if prefix != &MAGIC[..prefix.len()] {
        return Err(IoErrorKind::BadMagic {
            found: bytes[..bytes.len().min(8)].escape_ascii().to_string(),
        });
    }
    let truncated = |what, needed: usize| IoErrorKind::Truncated {
        what,
        needed: needed as u64,
        available: bytes.len() as u64,
    };
    if bytes.len() < 8 {
        return Err(truncated("magic string and version", 8));
    }
    let version = match (bytes[6], bytes[7]) {
        (1, 0) => NpyVersion::V1,
        (2, 0) => NpyVersion::V2,
        (3, 0) => NpyVersion::V3,
        (major, minor) => return Err(IoErrorKind::UnsupportedVersion { major, minor }),
    };
    let start = version.preamble_len();
    if bytes.len() < start {
        return Err(truncated("header length", start));
    }
    let len = match version {
        NpyVersion::V1 => u64::from(u16::from_le_bytes([bytes[8], bytes[9]])),
        NpyVersion::V2 | NpyVersion::V3 => u64::from(u32::from_le_bytes([
            bytes[8], bytes[9], bytes[10], bytes[11],
        ])),
    };
    if len > MAX_HEADER_LEN {
        return Err(IoErrorKind::HeaderTooLarge {
            len,
            limit: MAX_HEADER_LEN,
        });
    }
    let end = start + len as usize;
    if bytes.len() < end {
        return Err(IoErrorKind::Truncated {
            what: "header",
            needed: len,
            available: (bytes.len() - start) as u64,
        });
    }
    let raw = &bytes[start..end];
    let text = match version {
        NpyVersion::V1 | NpyVersion::V2 if !raw.is_ascii() => None,
        _ => std::str::from_utf8(raw).ok(),
    };
    let Some(text) = text else {
        let encoding = if version == NpyVersion::V3 {
            "UTF-8"
        } else {
            "ASCII"
        };
        return Err(IoErrorKind::BadHeader {
            detail: format!("the header text is not {encoding}"),
            header: String::from_utf8_lossy(raw).into_owned(),
        });
    };
    let bad = |detail: String| IoErrorKind::BadHeader {
        detail,
        header: text.trim_end().to_string(),
    };
    let fields = Parser { text, pos: 0 }.header().map_err(bad)?;
    Ok(Header {
        version,
        descr: fields.0,
        fortran_order: fields.1,
        shape: fields.2,
        data_offset: end,
    })
}

/// The preamble and header NumPy writes for an array, byte for byte: the
/// dict with sorted keys, spare room for the growing dimension, spaces and a
/// newline up to a multiple of 64 bytes. Without a `version`, 1.0 unless the
/// header is too long for it (then 2.0).
pub(super) fn format(
    descr: &str,
    fortran_order: bool,
    shape: &[i64],
    version: Option<NpyVersion>,
) -> Vec<u8> {
    let sizes: Vec<String> = shape.iter().map(i64::to_string).collect();
    let shape_text = match sizes.len() {
        1 => format!("({},)", sizes[0]),
        _ => format!("({})", sizes.join(", ")),
    };
    let order = if fortran_order { "True" } else { "False" };
    let mut dict =
        format!("{{'descr': '{descr}', 'fortran_order': {order}, 'shape': {shape_text}, }}");
    if !sizes.is_empty() {
        let growing = if fortran_order { sizes.len() - 1 } else { 0 };
        let room = GROWTH_AXIS_MAX_DIGITS.saturating_sub(sizes[growing].len());
        dict.extend(std::iter::repeat_n(' ', room));
    }
    let padded_len = |v: NpyVersion| {
        let with_newline = dict.len() + 1;
        with_newline + ARRAY_ALIGN - (v.preamble_len() + with_newline) % ARRAY_ALIGN
    };
    let version = version.unwrap_or(if padded_len(NpyVersion::V1) <= usize::from(u16::MAX) {
        NpyVersion::V1
    } else {
        NpyVersion::V2
    });
    let len = padded_len(version);
    let mut out = Vec::with_capacity(version.preamble_len() + len);
    out.extend_from_slice(MAGIC);
    match version {
        NpyVersion::V1 => {
            out.extend_from_slice(&[1, 0]);
            out.extend_from_slice(&(len as u16).to_le_bytes());
        }
        NpyVersion::V2 | NpyVersion::V3 => {
            out.push(if version == NpyVersion::V2 { 2 } else { 3 });
            out.push(0);
            out.extend_from_slice(&(len as u32).to_le_bytes());
        }
    }
    out.extend_from_slice(dict.as_bytes());
    out.resize(version.preamble_len() + len - 1, b' ');
    out.push(b'\n');
    out
}

/// A value of the Python literal subset a header uses.
#[derive(Clone, Debug, PartialEq)]
enum Py {
    Str(String),
    Bool(bool),
    Int(i128),
    Tuple(Vec<Py>),
    List(Vec<Py>),
    Dict(Vec<(Py, Py)>),
}

impl Py {
    fn kind(&self) -> &'static str {
        match self {
            Py::Str(_) => "a string",
            Py::Bool(_) => "a bool",
            Py::Int(_) => "an int",
            Py::Tuple(_) => "a tuple",
            Py::List(_) => "a list",
            Py::Dict(_) => "a dict",
        }
    }
}

/// A recursive-descent parser over the header text; errors are plain
/// sentences with the column (1-based, in characters).
struct Parser<'a> {
    text: &'a str,
    pos: usize,
}

impl Parser<'_> {
    /// The whole header: one dict, then only whitespace.
    fn header(mut self) -> Result<(String, bool, Vec<u64>), String> {
        self.skip_space();
        if !self.rest().starts_with('{') {
            return Err(self.expected("a dict `{…}`"));
        }
        let Py::Dict(entries) = self.value(0)? else {
            unreachable!("a value starting with `{{` is a dict")
        };
        self.skip_space();
        if !self.rest().is_empty() {
            return Err(self.expected("the end of the header after the dict"));
        }
        let mut descr = None;
        let mut fortran_order = None;
        let mut shape = None;
        for (key, value) in entries {
            let Py::Str(key) = key else {
                return Err(format!("a key is {}, not a string", key.kind()));
            };
            let slot_taken = match key.as_str() {
                "descr" => descr.replace(value).is_some(),
                "fortran_order" => fortran_order.replace(value).is_some(),
                "shape" => shape.replace(value).is_some(),
                other => {
                    return Err(format!(
                    "unexpected key {other:?} (the keys are 'descr', 'fortran_order' and 'shape')"
                ))
                }
            };
            if slot_taken {
                return Err(format!("key {key:?} appears twice"));
            }
        }
        let missing = |key| format!("key {key:?} is missing");
        let descr = match descr.ok_or_else(|| missing("descr"))? {
            Py::Str(s) => s,
            other => {
                return Err(format!(
                    "'descr' is {}, not a string (structured dtypes are not supported)",
                    other.kind()
                ))
            }
        };
        let fortran_order = match fortran_order.ok_or_else(|| missing("fortran_order"))? {
            Py::Bool(b) => b,
            other => return Err(format!("'fortran_order' is {}, not a bool", other.kind())),
        };
        let Py::Tuple(sizes) = shape.ok_or_else(|| missing("shape"))? else {
            return Err("'shape' is not a tuple".to_string());
        };
        let shape = sizes
            .into_iter()
            .map(|s| match s {
                Py::Int(i) => u64::try_from(i).map_err(|_| {
                    format!("'shape' has size {i}; sizes are non-negative and below 2^64")
                }),
                other => Err(format!("'shape' holds {}, not an int", other.kind())),
            })
            .collect::<Result<_, _>>()?;
        Ok((descr, fortran_order, shape))
    }

    fn rest(&self) -> &str {
        &self.text[self.pos..]
    }

    fn column(&self) -> usize {
        self.text[..self.pos].chars().count() + 1
    }

    fn expected(&self, what: &str) -> String {
        let found: String = self.rest().chars().take(12).collect();
        let found = found.trim_end();
        format!(
            "expected {what} at column {}, found {found:?}",
            self.column()
        )
    }

    fn skip_space(&mut self) {
        let trimmed = self.rest().trim_start_matches([' ', '\t', '\n', '\r']);
        self.pos = self.text.len() - trimmed.len();
    }

    fn eat(&mut self, token: &str) -> bool {
        self.skip_space();
        if self.rest().starts_with(token) {
            self.pos += token.len();
            true
        } else {
            false
        }
    }

    fn value(&mut self, depth: usize) -> Result<Py, String> {
        if depth > MAX_DEPTH {
            return Err(format!(
                "brackets nest deeper than {MAX_DEPTH} at column {}",
                self.column()
            ));
        }
        self.skip_space();
        let rest = self.rest();
        if rest.starts_with('\'') || rest.starts_with('"') {
            return self.string();
        }
        if rest.starts_with(|c: char| c.is_ascii_digit() || c == '-') {
            return self.int();
        }
        if self.eat("True") {
            return Ok(Py::Bool(true));
        }
        if self.eat("False") {
            return Ok(Py::Bool(false));
        }
        if self.eat("(") {
            let (items, trailing_comma) = self.items(")", depth)?;
            // `(x)` is just `x` in Python; `(x,)` is a one-element tuple.
            if items.len() == 1 && !trailing_comma {
                return Ok(items.into_iter().next().expect("one item"));
            }
            return Ok(Py::Tuple(items));
        }
        if self.eat("[") {
            return Ok(Py::List(self.items("]", depth)?.0));
        }
        if self.eat("{") {
            let mut entries = Vec::new();
            loop {
                if self.eat("}") {
                    return Ok(Py::Dict(entries));
                }
                let key = self.value(depth + 1)?;
                if !self.eat(":") {
                    return Err(self.expected("`:`"));
                }
                entries.push((key, self.value(depth + 1)?));
                if !self.eat(",") && !self.rest().starts_with('}') {
                    return Err(self.expected("`,` or `}`"));
                }
            }
        }
        Err(self.expected("a string, int, True, False, tuple, list or dict"))
    }

    /// Comma-separated values up to `close`; also says whether a comma came
    /// last.
    fn items(&mut self, close: &str, depth: usize) -> Result<(Vec<Py>, bool), String> {
        let mut items = Vec::new();
        let mut trailing_comma = false;
        loop {
            if self.eat(close) {
                return Ok((items, trailing_comma));
            }
            items.push(self.value(depth + 1)?);
            trailing_comma = self.eat(",");
            if !trailing_comma && !self.rest().starts_with(close) {
                return Err(self.expected(&format!("`,` or `{close}`")));
            }
        }
    }

    fn string(&mut self) -> Result<Py, String> {
        let quote = self.rest().chars().next().expect("at a quote");
        let body = &self.rest()[1..];
        let Some(end) = body.find([quote, '\\', '\n']) else {
            return Err(format!("unterminated string at column {}", self.column()));
        };
        if !body[end..].starts_with(quote) {
            return Err(format!(
                "escape sequences and line breaks in strings are not supported (string at column {})",
                self.column()
            ));
        }
        let s = body[..end].to_string();
        self.pos += end + 2;
        Ok(Py::Str(s))
    }

    fn int(&mut self) -> Result<Py, String> {
        let start = self.pos;
        let rest = self.rest();
        let sign = usize::from(rest.starts_with('-'));
        let digits = rest[sign..].len()
            - rest[sign..]
                .trim_start_matches(|c: char| c.is_ascii_digit())
                .len();
        if digits == 0 {
            return Err(self.expected("a digit"));
        }
        let literal = &rest[..sign + digits];
        let value = literal
            .parse::<i128>()
            .ok()
            .filter(|v| v.unsigned_abs() <= u128::from(u64::MAX))
            .ok_or_else(|| format!("integer {literal} at column {} is too large", self.column()))?;
        self.pos = start + sign + digits;
        Ok(Py::Int(value))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn header(text: &str) -> Result<(String, bool, Vec<u64>), String> {
        Parser { text, pos: 0 }.header()
    }

    #[test]
    fn parses_what_numpy_writes() {
        let text = "{'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), }            \n";
        assert_eq!(header(text).unwrap(), ("<f4".into(), false, vec![2, 3]));
        assert_eq!(
            header("{\"shape\": (7,), \"descr\": \"|b1\", \"fortran_order\": True}").unwrap(),
            ("|b1".into(), true, vec![7])
        );
        assert_eq!(
            header("{'descr':'<c16','fortran_order':False,'shape':()}").unwrap(),
            ("<c16".into(), false, vec![])
        );
    }

    #[test]
    fn rejects_everything_else() {
        let err = |text: &str| header(text).unwrap_err();
        assert_eq!(
            err("{'descr': '<f4', 'fortran_order': False}"),
            "key \"shape\" is missing"
        );
        assert_eq!(
            err("{'descr': '<f4', 'fortran_order': False, 'shape': (2,), 'shape': (3,)}"),
            "key \"shape\" appears twice"
        );
        assert_eq!(
            err("{'descr': '<f4', 'fortran_order': 0, 'shape': ()}"),
            "'fortran_order' is an int, not a bool"
        );
        assert_eq!(
            err("{'descr': '<f4', 'fortran_order': False, 'shape': (-1,)}"),
            "'shape' has size -1; sizes are non-negative and below 2^64"
        );
        assert_eq!(
            err("{'descr': '<f4', 'fortran_order': False, 'shape': (2)}"),
            "'shape' is not a tuple"
        );
        assert_eq!(
            err("{'descr': [('a', '<f4')], 'fortran_order': False, 'shape': ()}"),
            "'descr' is a list, not a string (structured dtypes are not supported)"
        );
        assert_eq!(
            err("{'descr': '<f4', 'fortran_order': False, 'shape': (2, 3) 'x'}"),
            "expected `,` or `}` at column 58, found \"'x'}\""
        );
        assert_eq!(
            err("[1, 2]"),
            "expected a dict `{…}` at column 1, found \"[1, 2]\""
        );
        assert_eq!(
            err("{'descr': '<f4', 'fortran_order': False, 'shape': (99999999999999999999999,)}"),
            "integer 99999999999999999999999 at column 52 is too large"
        );
        assert!(err(&format!("{{'a': {}}}", "(".repeat(100))).starts_with("brackets nest deeper"));
        assert!(err("{'descr': 'a\\'b'}").starts_with("escape sequences"));
        assert!(err("{'descr': '<f4").starts_with("unterminated string"));
        assert_eq!(
            err("{'descr': '<f4', 'fortran_order': False, 'shape': (), } x"),
            "expected the end of the header after the dict at column 57, found \"x\""
        );
    }

    #[test]
    fn formats_like_numpy() {
        let h = format("<f4", false, &[2, 3], None);
        assert_eq!(h.len(), 128);
        assert_eq!(&h[..10], b"\x93NUMPY\x01\x00\x76\x00");
        assert!(h[10..].starts_with(b"{'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), }"));
        assert_eq!(h.last(), Some(&b'\n'));
        let parsed = parse(&h).unwrap();
        assert_eq!(parsed.shape, [2, 3]);
        assert_eq!(parsed.data_offset, 128);
        let v3 = format("<c8", true, &[2, 3], Some(NpyVersion::V3));
        assert_eq!(&v3[..12], b"\x93NUMPY\x03\x00\x74\x00\x00\x00");
        assert_eq!(parse(&v3).unwrap().version, NpyVersion::V3);
    }
}
