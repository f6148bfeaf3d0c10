//! Finding things in canonical HLO text: numbers that are values, shape
//! sizes, element types, integer lists, instruction lines (their opcode
//! and operands), computation names and attribute values. Each returns
//! byte ranges into the text, for `mutate.rs` to replace.

use std::ops::Range;

use xla_core::hlo::{Arity, Opcode};

/// The element type names.
pub const TYPES: &[&str] = &[
    "pred", "s8", "s16", "s32", "s64", "u8", "u16", "u32", "u64", "f16", "bf16", "f32", "f64",
    "c64", "c128",
];

/// The byte offset where line `line` (0-based) starts.
pub fn line_offset(text: &str, line: usize) -> usize {
    text.split_inclusive('\n').take(line).map(str::len).sum()
}

/// The index of the bracket closing the one at `open`.
pub fn matching(text: &str, open: usize) -> Option<usize> {
    let (opener, closer) = match text.as_bytes()[open] {
        b'{' => (b'{', b'}'),
        b'(' => (b'(', b')'),
        b'[' => (b'[', b']'),
        _ => return None,
    };
    let mut depth = 0usize;
    for (i, &b) in text.as_bytes().iter().enumerate().skip(open) {
        if b == opener {
            depth += 1;
        } else if b == closer {
            depth -= 1;
            if depth == 0 {
                return Some(i);
            }
        }
    }
    None
}

/// Integers that are values (sizes, dimension numbers, bounds, indices),
/// not parts of names or floats, nor of layouts (the brace-list
/// mutation edits those): `[4,8]`, `dimensions={1,0}`, `size=3x3`, `pad=0_-1`,
/// `index=2`, `parameter(0)`, `[0:2:1]`.
pub fn number_spans(text: &str) -> Vec<Range<usize>> {
    let layouts: Vec<Range<usize>> = brace_lists(text)
        .into_iter()
        .filter(|s| s.start >= 2 && &text[s.start - 2..s.start] == "]{")
        .collect();
    let b = text.as_bytes();
    let before_ok = |i: usize| -> bool {
        if i == 0 {
            return false;
        }
        match b[i - 1] {
            b'[' | b'(' | b'{' | b',' | b'=' | b':' | b' ' => true,
            b'x' | b'_' => i >= 2 && (b[i - 2].is_ascii_digit()),
            _ => false,
        }
    };
    let mut spans = Vec::new();
    let mut i = 0;
    while i < b.len() {
        if !b[i].is_ascii_digit() || (i > 0 && b[i - 1].is_ascii_digit()) {
            i += 1;
            continue;
        }
        let negative = i > 0 && b[i - 1] == b'-' && before_ok(i - 1);
        if !(negative || before_ok(i)) {
            i += 1;
            continue;
        }
        let start = if negative { i - 1 } else { i };
        let mut end = i;
        while end < b.len() && b[end].is_ascii_digit() {
            end += 1;
        }
        let after_ok =
            end == b.len() || !(b[end].is_ascii_alphabetic() && b[end] != b'x' || b[end] == b'.');
        let in_layout = layouts.iter().any(|l| l.contains(&start));
        if after_ok && !in_layout && end - i <= 18 {
            spans.push(start..end);
        }
        i = end;
    }
    spans
}

/// The sizes inside shapes' `[…]` (after an element type).
pub fn shape_size_spans(text: &str) -> Vec<Range<usize>> {
    let mut spans = Vec::new();
    for ty in type_spans(text) {
        let open = ty.end;
        let Some(close) = matching(text, open) else {
            continue;
        };
        let mut at = open + 1;
        for part in text[open + 1..close].split(',') {
            if !part.is_empty() && part.bytes().all(|b| b.is_ascii_digit()) {
                spans.push(at..at + part.len());
            }
            at += part.len() + 1;
        }
    }
    spans
}

/// Element type names of shapes (`f32` in `f32[2]`).
pub fn type_spans(text: &str) -> Vec<Range<usize>> {
    let mut spans = Vec::new();
    for ty in TYPES {
        let pattern = format!("{ty}[");
        for (at, _) in text.match_indices(&pattern) {
            let boundary = at == 0 || !is_name_byte(text.as_bytes()[at - 1]);
            if boundary {
                spans.push(at..at + ty.len());
            }
        }
    }
    spans.sort_by_key(|s| s.start);
    spans
}

fn is_name_byte(b: u8) -> bool {
    b.is_ascii_alphanumeric() || b == b'_' || b == b'.' || b == b'-'
}

/// The insides of `{…}` lists of integers (`{1,0}`, `{}`).
pub fn brace_lists(text: &str) -> Vec<Range<usize>> {
    let b = text.as_bytes();
    let mut spans = Vec::new();
    for (open, _) in text.match_indices('{') {
        let mut end = open + 1;
        while end < b.len() && (b[end].is_ascii_digit() || b[end] == b',' || b[end] == b'-') {
            end += 1;
        }
        if end < b.len() && b[end] == b'}' {
            spans.push(open + 1..end);
        }
    }
    spans
}

/// One instruction line of the text.
pub struct Instr {
    pub line: usize,
    pub computation: usize,
    pub root: bool,
    pub name: String,
    pub opcode: Range<usize>,
    /// Byte ranges of the operand names.
    pub operands: Vec<Range<usize>>,
}

/// The instruction lines, with the computation each belongs to.
pub fn instructions(text: &str) -> Vec<Instr> {
    let mut out = Vec::new();
    let mut computation = 0;
    let mut offset = 0;
    for (line_no, line) in text.split_inclusive('\n').enumerate() {
        let start = offset;
        offset += line.len();
        let line = line.trim_end_matches('\n');
        if line.ends_with('{') && !line.contains(" = ") {
            computation += 1;
            continue;
        }
        let Some(body) = line.strip_prefix("  ") else {
            continue;
        };
        let (root, body) = match body.strip_prefix("ROOT ") {
            Some(rest) => (true, rest),
            None => (false, body),
        };
        let Some(eq) = body.find(" = ") else { continue };
        let name = body[..eq].to_string();
        let body_start = start + (line.len() - body.len());
        let Some((opcode, open)) = find_opcode(text, body_start + eq + 3, start + line.len())
        else {
            continue;
        };
        let Some(close) = matching(text, open) else {
            continue;
        };
        let operands = if matches!(
            Opcode::from_name(&text[opcode.clone()]).map(Opcode::arity),
            Some(Arity::Fixed(0))
        ) {
            Vec::new()
        } else {
            operand_spans(text, open + 1..close)
        };
        out.push(Instr {
            line: line_no,
            computation,
            root,
            name,
            opcode,
            operands,
        });
    }
    out
}

/// The opcode after an instruction's shape: the first `word(` whose word
/// is an opcode name, between `from` and `end`.
fn find_opcode(text: &str, from: usize, end: usize) -> Option<(Range<usize>, usize)> {
    let b = text.as_bytes();
    for open in (from..end).filter(|&i| b[i] == b'(') {
        let mut start = open;
        while start > from && is_name_byte(b[start - 1]) {
            start -= 1;
        }
        if start < open && Opcode::from_name(&text[start..open]).is_some() {
            return Some((start..open, open));
        }
    }
    None
}

/// The operand names of an operand list (`a.1, b.2`).
fn operand_spans(text: &str, inside: Range<usize>) -> Vec<Range<usize>> {
    let mut spans = Vec::new();
    let mut at = inside.start;
    for part in text[inside.clone()].split(", ") {
        let trimmed = part.trim();
        if !trimmed.is_empty() && trimmed.bytes().all(is_name_byte) {
            let lead = part.len() - part.trim_start().len();
            spans.push(at + lead..at + lead + trimmed.len());
        }
        at += part.len() + 2;
    }
    spans
}

/// The names of the instructions defined before `user` in its
/// computation (the parser resolves operands only backwards).
pub fn earlier_names(instrs: &[Instr], user: &Instr) -> Vec<String> {
    instrs
        .iter()
        .filter(|i| i.computation == user.computation && i.line < user.line)
        .map(|i| i.name.clone())
        .collect()
}

/// The names of the module's computations.
pub fn computation_names(text: &str) -> Vec<String> {
    text.lines()
        .filter(|l| l.ends_with('{') && !l.contains(" = ") && !l.starts_with("HloModule"))
        .filter_map(|l| l.trim_end_matches('{').split_whitespace().last())
        .map(str::to_string)
        .collect()
}

/// The value spans of `key=value` attributes (`direction=LT` → `LT`).
pub fn attr_values(text: &str, key: &str) -> Vec<Range<usize>> {
    let pattern = format!(", {key}=");
    text.match_indices(&pattern)
        .map(|(at, _)| {
            let start = at + pattern.len();
            let len = text[start..]
                .bytes()
                .take_while(|&b| is_name_byte(b) || b == b'>')
                .count();
            start..start + len
        })
        .filter(|r| !r.is_empty())
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn numbers_skip_names_floats_and_layouts() {
        let text = "  add.1 = f32[4,8]{1,0} add(Arg_0.1, b), window={size=3x3 pad=0_-1}, \
                    dimensions={2,0}, c=1.5";
        let found: Vec<&str> = number_spans(text).into_iter().map(|s| &text[s]).collect();
        assert_eq!(found, ["4", "8", "3", "3", "0", "-1", "2", "0"]);
    }
}
