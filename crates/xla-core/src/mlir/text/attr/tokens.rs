//! Quoted strings, `@symbols`, and the attributes kept as text (skipped
//! over as balanced bracketed groups).

use crate::mlir::text::Parser;
use crate::text::ParseError;

impl<'a> Parser<'a> {
    /// Skips an attribute this reader keeps as text: `#name…<…>` with
    /// balanced brackets, or `<…>`.
    pub(crate) fn opaque_attr(&mut self) -> Result<(), ParseError> {
        self.c.skip_ws();
        let start = self.c.pos();
        let bytes = self.c.source().as_bytes();
        let mut i = start;
        while i < bytes.len()
            && !matches!(
                bytes[i],
                b'<' | b',' | b'}' | b')' | b']' | b'>' | b' ' | b'\n'
            )
        {
            i += 1;
        }
        if i < bytes.len() && bytes[i] == b'<' {
            self.c.set_pos(i);
            return self.skip_group();
        }
        if i == start {
            return Err(self.c.error("an attribute"));
        }
        self.c.set_pos(i);
        Ok(())
    }

    /// The text `skip` passes over (from the next non-blank character):
    /// what the reader keeps of an attribute it does not interpret.
    pub(crate) fn skipped_text(
        &mut self,
        skip: fn(&mut Self) -> Result<(), ParseError>,
    ) -> Result<String, ParseError> {
        self.c.skip_ws();
        let start = self.c.pos();
        skip(self)?;
        Ok(self.c.source()[start..self.c.pos()].to_string())
    }

    /// Skips one bracketed group at the cursor (`<…>`, `[…]`, `{…}`,
    /// `(…)`), nested brackets, quoted strings and `->` arrows included.
    pub(crate) fn skip_group(&mut self) -> Result<(), ParseError> {
        self.c.skip_ws();
        let start = self.c.pos();
        let bytes = self.c.source().as_bytes();
        let (mut depth, mut in_string) = (0usize, false);
        let mut i = start;
        while i < bytes.len() {
            match bytes[i] {
                b'\\' if in_string => i += 1,
                b'"' => in_string = !in_string,
                _ if in_string => {}
                b'<' | b'(' | b'[' | b'{' => depth += 1,
                b'>' if i > start && bytes[i - 1] == b'-' => {}
                b'>' | b')' | b']' | b'}' => {
                    depth = depth.saturating_sub(1);
                    if depth == 0 {
                        self.c.set_pos(i + 1);
                        return Ok(());
                    }
                }
                _ if depth == 0 => break,
                _ => {}
            }
            i += 1;
        }
        Err(self.c.error_at(start, "a balanced bracketed group"))
    }

    /// Reads a quoted string's bytes: MLIR's escapes are `\\`, `\"`, `\n`,
    /// `\t` and `\XX` (two hex digits).
    pub(crate) fn string_bytes(&mut self) -> Result<Vec<u8>, ParseError> {
        self.c.skip_ws();
        let start = self.c.pos();
        let src = self.c.rest().as_bytes();
        if src.first() != Some(&b'"') {
            return Err(self.c.error("a quoted string"));
        }
        let mut out = Vec::new();
        let mut i = 1;
        while i < src.len() {
            match src[i] {
                b'"' => {
                    self.c.set_pos(start + i + 1);
                    return Ok(out);
                }
                b'\\' => {
                    let hex = |b: u8| (b as char).to_digit(16);
                    match (src.get(i + 1), src.get(i + 2)) {
                        (Some(b'n'), _) => out.push(b'\n'),
                        (Some(b't'), _) => out.push(b'\t'),
                        (Some(b'\\'), _) => out.push(b'\\'),
                        (Some(b'"'), _) => out.push(b'"'),
                        (Some(&a), Some(&b)) if hex(a).is_some() && hex(b).is_some() => {
                            out.push((hex(a).unwrap_or(0) * 16 + hex(b).unwrap_or(0)) as u8);
                            i += 1;
                        }
                        _ => return Err(self.c.message_at(start + i, "a bad string escape")),
                    }
                    i += 2;
                }
                b => {
                    out.push(b);
                    i += 1;
                }
            }
        }
        Err(self.c.message_at(start, "an unterminated string"))
    }

    /// A quoted string that must be UTF-8.
    pub(crate) fn string_utf8(&mut self) -> Result<String, ParseError> {
        let start = self.c.pos();
        String::from_utf8(self.string_bytes()?)
            .map_err(|_| self.c.message_at(start, "a string that is not UTF-8"))
    }

    /// `@name` (and `@"quoted name"`).
    pub(crate) fn symbol(&mut self) -> Result<String, ParseError> {
        self.c.expect("@")?;
        if self.c.rest().starts_with('"') {
            return self.string_utf8();
        }
        let rest = self.c.rest();
        let len = rest
            .find(|c: char| !(c.is_ascii_alphanumeric() || matches!(c, '_' | '.' | '$' | '-')))
            .unwrap_or(rest.len());
        if len == 0 {
            return Err(self.c.error("a symbol name"));
        }
        self.c.set_pos(self.c.pos() + len);
        Ok(rest[..len].to_string())
    }
}
