//! Tokens shared by the literal and HLO parsers: C-escaped strings, numbers,
//! HLO names, and skipping of attribute values nobody reads.

use super::{Cursor, ParseError};

impl<'a> Cursor<'a> {
    /// Reads a double-quoted string with C escapes (`"a\"b\n"`) and returns
    /// its unescaped content.
    pub fn string(&mut self) -> Result<String, ParseError> {
        self.skip_ws();
        let start = self.pos();
        if !self.rest().starts_with('"') {
            return Err(self.error("a quoted string"));
        }
        let body = &self.rest()[1..];
        let mut bytes = Vec::new();
        let mut chars = body.char_indices();
        while let Some((i, ch)) = chars.next() {
            match ch {
                '"' => {
                    self.set_pos(start + 1 + i + 1);
                    return String::from_utf8(bytes).map_err(|_| {
                        self.message_at(start, "string escapes do not form valid UTF-8")
                    });
                }
                '\\' => {
                    let Some((j, esc)) = chars.next() else { break };
                    let byte = match esc {
                        'n' => b'\n',
                        't' => b'\t',
                        'r' => b'\r',
                        'a' => 0x07,
                        'b' => 0x08,
                        'f' => 0x0c,
                        'v' => 0x0b,
                        '\\' | '"' | '\'' | '?' => esc as u8,
                        '0'..='7' => {
                            let digits: String = body[j..]
                                .chars()
                                .take(3)
                                .take_while(|c| ('0'..='7').contains(c))
                                .collect();
                            for _ in 1..digits.len() {
                                chars.next();
                            }
                            u8::try_from(u32::from_str_radix(&digits, 8).expect("octal digits"))
                                .map_err(|_| {
                                    self.message_at(start + 1 + j, "octal escape above \\377")
                                })?
                        }
                        'x' => {
                            let digits: String = body[j + 1..]
                                .chars()
                                .take(2)
                                .take_while(char::is_ascii_hexdigit)
                                .collect();
                            if digits.is_empty() {
                                return Err(
                                    self.message_at(start + 1 + j, "`\\x` needs hex digits")
                                );
                            }
                            for _ in 0..digits.len() {
                                chars.next();
                            }
                            u8::from_str_radix(&digits, 16).expect("hex digits")
                        }
                        other => {
                            return Err(self.message_at(
                                start + 1 + i,
                                format!("unknown escape `\\{other}` in a string"),
                            ))
                        }
                    };
                    bytes.push(byte);
                }
                other => {
                    let mut buf = [0u8; 4];
                    bytes.extend_from_slice(other.encode_utf8(&mut buf).as_bytes());
                }
            }
        }
        Err(self.message_at(start, "unterminated string"))
    }

    /// Reads an integer of up to 128 bits with an optional sign (enough for
    /// every element type, `u64` maximum and `s64` minimum included).
    pub(crate) fn int128(&mut self) -> Result<i128, ParseError> {
        self.skip_ws();
        let rest = self.rest();
        let bytes = rest.as_bytes();
        let mut end = usize::from(matches!(bytes.first(), Some(b'-' | b'+')));
        let digits_start = end;
        while end < bytes.len() && bytes[end].is_ascii_digit() {
            end += 1;
        }
        if end == digits_start {
            return Err(self.error("an integer"));
        }
        let value = rest[..end]
            .parse()
            .map_err(|_| self.error("an integer of at most 128 bits"))?;
        self.set_pos(self.pos() + end);
        Ok(value)
    }

    /// Reads a floating-point token without interpreting it: `1.5`, `-2e-05`,
    /// `inf`, `-nan`, `nan(0x1)`, `3`. Returns `None` (consuming nothing) if
    /// none comes next.
    pub(crate) fn float_token(&mut self) -> Option<&'a str> {
        self.skip_ws();
        let rest = self.rest();
        let unsigned = rest.strip_prefix(['-', '+']).unwrap_or(rest);
        let sign = rest.len() - unsigned.len();
        let len = if unsigned.starts_with("inf") {
            3
        } else if let Some(after) = unsigned.strip_prefix("nan") {
            let payload = after
                .strip_prefix("(0x")
                .and_then(|p| p.find(')').map(|close| close + 4));
            3 + payload.unwrap_or(0)
        } else {
            let bytes = unsigned.as_bytes();
            let digits = |mut i: usize| {
                while i < bytes.len() && bytes[i].is_ascii_digit() {
                    i += 1;
                }
                i
            };
            let mut end = digits(0);
            if bytes.get(end) == Some(&b'.') {
                end = digits(end + 1);
            }
            if end == 0 || (end == 1 && bytes[0] == b'.') {
                return None;
            }
            if matches!(bytes.get(end), Some(b'e' | b'E')) {
                let exp_start =
                    end + 1 + usize::from(matches!(bytes.get(end + 1), Some(b'-' | b'+')));
                let exp_end = digits(exp_start);
                if exp_end > exp_start {
                    end = exp_end;
                }
            }
            end
        };
        let token = &rest[..sign + len];
        if unsigned[len..].starts_with(|c: char| c.is_ascii_alphanumeric() || c == '_') {
            return None;
        }
        self.set_pos(self.pos() + token.len());
        Some(token)
    }

    /// Reads an HLO name: an optional `%`, then a name (`add.1`,
    /// `get-tuple-element.5`, `%1`).
    pub(crate) fn hlo_name(&mut self) -> Option<&'a str> {
        self.skip_ws();
        let save = self.pos();
        if self.eat("%") {
            let rest = self.rest();
            let end = rest
                .find(|c: char| !(c.is_ascii_alphanumeric() || matches!(c, '_' | '.' | '-')))
                .unwrap_or(rest.len());
            if end > 0 {
                self.set_pos(self.pos() + end);
                return Some(&rest[..end]);
            }
            self.set_pos(save);
            return None;
        }
        self.name()
    }

    /// Reads an HLO name or fails with "expected `what`".
    pub(crate) fn expect_hlo_name(&mut self, what: &str) -> Result<&'a str, ParseError> {
        self.hlo_name().ok_or_else(|| self.error(what))
    }

    /// Reads a brace-delimited group `{…}` (nested brackets and quoted
    /// strings included) and returns its text, braces included.
    pub(crate) fn balanced(&mut self) -> Result<&'a str, ParseError> {
        self.skip_ws();
        let start = self.pos();
        if !self.rest().starts_with(['{', '(', '[']) {
            return Err(self.error("`{`"));
        }
        let end = scan_value(self.rest(), true)
            .ok_or_else(|| self.message_at(start, "unbalanced brackets in this value"))?;
        self.set_pos(start + end);
        Ok(&self.source()[start..start + end])
    }

    /// Skips an attribute value whatever its form: a quoted string, a
    /// bracketed group, or a bare token running to the next `,` or line end.
    pub(crate) fn skip_value(&mut self) -> Result<(), ParseError> {
        self.skip_ws();
        let start = self.pos();
        if self.rest().starts_with('"') {
            return self.string().map(drop);
        }
        let end = scan_value(self.rest(), false)
            .ok_or_else(|| self.message_at(start, "unbalanced brackets in this value"))?;
        if end == 0 {
            return Err(self.error("an attribute value"));
        }
        self.set_pos(start + end);
        Ok(())
    }
}

/// The length of the value at the start of `text`: with `group`, one
/// bracketed group; otherwise everything up to a `,`, a closing bracket or a
/// line end at nesting depth 0. Quoted strings (with escapes) are skipped
/// whole. `None` if the brackets do not balance.
fn scan_value(text: &str, group: bool) -> Option<usize> {
    let mut depth = 0usize;
    let mut chars = text.char_indices();
    while let Some((i, ch)) = chars.next() {
        match ch {
            '"' => loop {
                match chars.next()?.1 {
                    '\\' => {
                        chars.next()?;
                    }
                    '"' => break,
                    _ => {}
                }
            },
            '{' | '(' | '[' => depth += 1,
            '}' | ')' | ']' => {
                if depth == 0 {
                    return (!group).then_some(i);
                }
                depth -= 1;
                if group && depth == 0 {
                    return Some(i + 1);
                }
            }
            ',' | '\n' if depth == 0 && !group => return Some(i),
            _ => {}
        }
    }
    (!group && depth == 0).then_some(text.len())
}

/// Escapes a string as C (and XLA's `CEscape`) does: `\n`, `\t`, `\r`, `\"`,
/// `\'`, `\\`, and octal `\ooo` for every other byte outside printable ASCII.
pub(crate) fn c_escape(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for &b in s.as_bytes() {
        match b {
            b'\n' => out.push_str("\\n"),
            b'\r' => out.push_str("\\r"),
            b'\t' => out.push_str("\\t"),
            b'"' => out.push_str("\\\""),
            b'\'' => out.push_str("\\'"),
            b'\\' => out.push_str("\\\\"),
            0x20..=0x7e => out.push(b as char),
            _ => out.push_str(&format!("\\{b:03o}")),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn strings_unescape_and_escape() {
        let text = r#""a\"b\n\t\\ \303\251 \x41 \'" rest"#;
        let mut c = Cursor::new(text);
        let s = c.string().unwrap();
        assert_eq!(s, "a\"b\n\t\\ é A '");
        assert_eq!(c.name(), Some("rest"));
        assert_eq!(c_escape(&s), r#"a\"b\n\t\\ \303\251 A \'"#);
        let e = Cursor::new("\"abc").string().unwrap_err();
        assert_eq!(e.to_string(), "1:1: unterminated string\n\"abc\n^");
        let e = Cursor::new(r#""a\qb""#).string().unwrap_err();
        assert_eq!(
            e.message.as_deref(),
            Some("unknown escape `\\q` in a string")
        );
    }

    #[test]
    fn float_tokens() {
        fn toks(s: &str) -> (Vec<&str>, String) {
            let mut c = Cursor::new(s);
            let mut out = Vec::new();
            while let Some(t) = c.float_token() {
                out.push(t);
                c.eat(",");
            }
            (out, c.rest().to_string())
        }
        assert_eq!(
            toks("1.5, -2e-05, inf, -nan, nan(0x1), 3, .5, 1e+300, 7."),
            (
                vec!["1.5", "-2e-05", "inf", "-nan", "nan(0x1)", "3", ".5", "1e+300", "7."],
                String::new()
            )
        );
        assert_eq!(toks("infinity").0, Vec::<&str>::new());
        assert_eq!(toks("x").0, Vec::<&str>::new());
        assert_eq!(toks("1e").0, Vec::<&str>::new());
    }

    #[test]
    fn names_with_percent_and_skipping() {
        let mut c = Cursor::new("%get-tuple-element.5 %1 x");
        assert_eq!(c.hlo_name(), Some("get-tuple-element.5"));
        assert_eq!(c.hlo_name(), Some("1"));
        assert_eq!(c.hlo_name(), Some("x"));
        let mut c = Cursor::new(r#"{a={b="}"}, c=[1]}, next=SCHEDULE_LATEST, z"#);
        assert_eq!(c.balanced().unwrap(), r#"{a={b="}"}, c=[1]}"#);
        c.expect(",").unwrap();
        c.name();
        c.expect("=").unwrap();
        c.skip_value().unwrap();
        assert_eq!(c.rest(), ", z");
        let mut c = Cursor::new("x={unclosed");
        c.name();
        c.eat("=");
        assert_eq!(
            c.skip_value().unwrap_err().message.as_deref(),
            Some("unbalanced brackets in this value")
        );
    }
}
