//! A position in a text being parsed.

use std::fmt;

/// A syntax error: where, what was expected, and what was found instead.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub struct ParseError {
    /// 1-based line.
    pub line: usize,
    /// 1-based column (in characters).
    pub col: usize,
    /// What the parser expected, e.g. "`]`" or "an element type".
    pub expected: String,
    /// The text found there (a short excerpt), or "end of input".
    pub found: String,
    /// The whole source line; the message quotes a window of it around
    /// the column (at most 120 characters).
    pub source_line: String,
    /// A complete message that replaces "expected …, found …", for errors
    /// that are not about the next token (an undefined name, a duplicate).
    pub message: Option<String>,
}

/// The most characters of the source line an error quotes: a longer line
/// (a 1 MB constant, a generated module on one line) is quoted as a window
/// around the column, cut ends marked `…`.
const QUOTED_CHARS: usize = 120;

impl fmt::Display for ParseError {
    /// `2:14: expected `]`, found `,3}`` (or the message) followed by the
    /// source line (at most 120 characters of it) and a caret under the
    /// column.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}:{}: ", self.line, self.col)?;
        match &self.message {
            Some(message) => f.write_str(message)?,
            None => write!(f, "expected {}, found {}", self.expected, self.found)?,
        }
        let (quoted, caret) = quote(&self.source_line, self.col.saturating_sub(1));
        write!(f, "\n{quoted}\n{}^", " ".repeat(caret))
    }
}

/// At most [`QUOTED_CHARS`] characters of `line` around character `col`
/// (0-based), with `…` where the line was cut, and the caret's column in
/// the quote.
fn quote(line: &str, col: usize) -> (String, usize) {
    let len = line.chars().count();
    if len <= QUOTED_CHARS {
        return (line.to_string(), col);
    }
    // The column two thirds of the way in: what led to it, and a little of
    // what follows.
    let end = (col + QUOTED_CHARS / 3).clamp(QUOTED_CHARS, len);
    let start = end - QUOTED_CHARS;
    let mut quoted = String::new();
    if start > 0 {
        quoted.push('…');
    }
    quoted.extend(line.chars().skip(start).take(end - start));
    if end < len {
        quoted.push('…');
    }
    (quoted, col - start + usize::from(start > 0))
}

/// A parser's position in its source text.
///
/// Whitespace, `/* … */` comments (HLO's `/*index=5*/`) and `//` line
/// comments are skipped by every method that reads a token.
#[derive(Clone, Debug)]
pub struct Cursor<'a> {
    src: &'a str,
    pos: usize,
    /// Tuples (of shapes or literals) open at the cursor.
    depth: usize,
}

/// The deepest nesting of tuples the parser reads: far beyond any real
/// module, and well within the stack of the recursion that reads them.
pub const MAX_NESTING: usize = 1000;

impl<'a> Cursor<'a> {
    /// A cursor at the start of `src`.
    pub fn new(src: &'a str) -> Self {
        Cursor {
            src,
            pos: 0,
            depth: 0,
        }
    }

    /// Runs `parse` one tuple deeper: an error when that exceeds
    /// `MAX_NESTING`, instead of a stack overflow.
    pub fn nested<T>(
        &mut self,
        parse: impl FnOnce(&mut Self) -> Result<T, ParseError>,
    ) -> Result<T, ParseError> {
        if self.depth >= MAX_NESTING {
            return Err(self.message_at(
                self.pos,
                format!("tuples nested more than {MAX_NESTING} deep"),
            ));
        }
        self.depth += 1;
        let parsed = parse(self);
        self.depth -= 1;
        parsed
    }

    /// The whole source.
    pub fn source(&self) -> &'a str {
        self.src
    }

    /// Byte offset into the source.
    pub fn pos(&self) -> usize {
        self.pos
    }

    /// Moves to a byte offset previously returned by [`Cursor::pos`].
    pub fn set_pos(&mut self, pos: usize) {
        self.pos = pos;
    }

    /// The unread text (whitespace not skipped).
    pub fn rest(&self) -> &'a str {
        &self.src[self.pos..]
    }

    /// Skips whitespace, `/* … */` and `//` comments.
    pub fn skip_ws(&mut self) {
        loop {
            let rest = self.rest();
            let trimmed = rest.trim_start();
            self.pos += rest.len() - trimmed.len();
            if trimmed.starts_with("/*") {
                match trimmed.find("*/") {
                    Some(end) => self.pos += end + 2,
                    None => self.pos = self.src.len(),
                }
            } else if trimmed.starts_with("//") {
                self.pos += trimmed.find('\n').unwrap_or(trimmed.len());
            } else {
                return;
            }
        }
    }

    /// `true` at the end of the source (after skipping whitespace).
    pub fn at_end(&mut self) -> bool {
        self.skip_ws();
        self.pos == self.src.len()
    }

    /// The next character, without consuming it (after skipping whitespace).
    pub fn peek(&mut self) -> Option<char> {
        self.skip_ws();
        self.rest().chars().next()
    }

    /// `true` if the next token starts with `s` (after skipping whitespace).
    pub fn looking_at(&mut self, s: &str) -> bool {
        self.skip_ws();
        self.rest().starts_with(s)
    }

    /// Consumes `s` if it comes next.
    pub fn eat(&mut self, s: &str) -> bool {
        if self.looking_at(s) {
            self.pos += s.len();
            true
        } else {
            false
        }
    }

    /// Consumes `s` or fails with "expected `s`".
    pub fn expect(&mut self, s: &str) -> Result<(), ParseError> {
        if self.eat(s) {
            Ok(())
        } else {
            Err(self.error(format!("`{s}`")))
        }
    }

    /// Consumes `s` only if it is a whole word (not followed by a name
    /// character).
    pub fn eat_keyword(&mut self, s: &str) -> bool {
        let save = self.pos;
        if self.eat(s) && !self.rest().starts_with(is_name_char) {
            return true;
        }
        self.pos = save;
        false
    }

    /// Reads a name: a letter, `_`, `%` or `$` followed by letters, digits,
    /// `_`, `.`, `-`. Returns `None` (consuming nothing) if none comes next.
    pub fn name(&mut self) -> Option<&'a str> {
        self.skip_ws();
        let rest = self.rest();
        let mut chars = rest.char_indices();
        match chars.next() {
            Some((_, c)) if c.is_ascii_alphabetic() || c == '_' => {}
            _ => return None,
        }
        let end = chars
            .find(|&(_, c)| !is_name_char(c))
            .map_or(rest.len(), |(i, _)| i);
        self.pos += end;
        Some(&rest[..end])
    }

    /// Reads a name or fails with "expected `what`".
    pub fn expect_name(&mut self, what: &str) -> Result<&'a str, ParseError> {
        self.name().ok_or_else(|| self.error(what))
    }

    /// Reads a decimal integer with an optional sign.
    pub fn int(&mut self) -> Result<i64, ParseError> {
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
        match rest[..end].parse() {
            Ok(v) => {
                self.pos += end;
                Ok(v)
            }
            Err(_) => Err(self.error("an integer that fits in 64 bits")),
        }
    }

    /// Reads a comma-separated list of integers between `open` and `close`,
    /// e.g. `{1,0}` or `(8,128)`.
    pub fn int_list(&mut self, open: &str, close: &str) -> Result<Vec<i64>, ParseError> {
        self.expect(open)?;
        let mut out = Vec::new();
        if self.eat(close) {
            return Ok(out);
        }
        loop {
            out.push(self.int()?);
            if self.eat(close) {
                return Ok(out);
            }
            if !self.eat(",") {
                return Err(self.error(format!("`,` or `{close}`")));
            }
        }
    }

    /// A parse error at the current position.
    pub fn error(&self, expected: impl Into<String>) -> ParseError {
        self.error_at(self.pos, expected)
    }

    /// An error at byte offset `pos` with a complete message, e.g.
    /// "unknown instruction `y` in computation `main`".
    pub fn message_at(&self, pos: usize, message: impl Into<String>) -> ParseError {
        ParseError {
            message: Some(message.into()),
            ..self.error_at(pos, "")
        }
    }

    /// A parse error at byte offset `pos`.
    pub fn error_at(&self, pos: usize, expected: impl Into<String>) -> ParseError {
        let pos = pos.min(self.src.len());
        let line_start = self.src[..pos].rfind('\n').map_or(0, |i| i + 1);
        let line_end = self.src[pos..]
            .find('\n')
            .map_or(self.src.len(), |i| pos + i);
        let line = self.src[..pos].matches('\n').count() + 1;
        let col = self.src[line_start..pos].chars().count() + 1;
        let excerpt: String = self.src[pos..line_end]
            .trim_end()
            .chars()
            .take(16)
            .collect();
        let found = if pos == self.src.len() {
            "end of input".to_string()
        } else if excerpt.is_empty() {
            "end of line".to_string()
        } else {
            format!("`{excerpt}`")
        };
        ParseError {
            line,
            col,
            expected: expected.into(),
            found,
            source_line: self.src[line_start..line_end].to_string(),
            message: None,
        }
    }
}

fn is_name_char(c: char) -> bool {
    c.is_ascii_alphanumeric() || matches!(c, '_' | '.' | '-')
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tokens_and_comments() {
        let mut c = Cursor::new("  foo.1-bar /*index=5*/ -12 {1, 0}");
        assert_eq!(c.name(), Some("foo.1-bar"));
        assert_eq!(c.int().unwrap(), -12);
        assert_eq!(c.int_list("{", "}").unwrap(), vec![1, 0]);
        assert!(c.at_end());
    }

    #[test]
    fn line_comments_are_skipped() {
        let mut c = Cursor::new("a // note {\n  b");
        assert_eq!(c.name(), Some("a"));
        assert_eq!(c.name(), Some("b"));
        let e = c.message_at(c.pos() - 1, "unknown `b`");
        assert_eq!(e.to_string(), "2:3: unknown `b`\n  b\n  ^");
    }

    /// A long line is quoted as a window around the column, whatever its
    /// length (a 1 MB line once came back whole in the message).
    #[test]
    fn long_lines_are_quoted_as_a_window() {
        let line = format!("x = f32[2] constant({{{}}})", "1,".repeat(500_000));
        let src = format!("a\n{line}@");
        let mut c = Cursor::new(&src);
        c.name();
        let at = src.len() - 1;
        let e = c.error_at(at, "`}`");
        let text = e.to_string();
        assert!(text.len() < 400, "{} bytes", text.len());
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(
            lines[0],
            format!("2:{}: expected `}}`, found `@`", line.len() + 1)
        );
        assert!(
            lines[1].starts_with('…') && lines[1].ends_with("1,})@"),
            "{text}"
        );
        assert_eq!(lines[1].chars().count(), QUOTED_CHARS + 1);
        // The caret is under the `@`.
        assert_eq!(lines[2].len() - 1, lines[1].chars().count() - 1);
        // A column near the start: the window begins at the line's start.
        let e = c.error_at(src.find("constant").unwrap(), "x");
        let text = e.to_string();
        let lines: Vec<&str> = text.lines().collect();
        assert!(lines[1].starts_with("x = f32[2] constant(") && lines[1].ends_with('…'));
        assert_eq!(lines[2], format!("{}^", " ".repeat(11)));
        // Short lines are quoted whole.
        assert_eq!(quote("abc", 1), ("abc".to_string(), 1));
    }

    #[test]
    fn error_display_has_line_col_and_caret() {
        let mut c = Cursor::new("a\n  b = x");
        c.name();
        c.name();
        let e = c.expect(":").unwrap_err();
        assert_eq!((e.line, e.col), (2, 5));
        assert_eq!(
            e.to_string(),
            "2:5: expected `:`, found `= x`\n  b = x\n    ^"
        );
    }
}
