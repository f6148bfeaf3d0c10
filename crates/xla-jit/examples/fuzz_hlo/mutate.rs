//! Text mutations that keep HLO parseable (mostly) but change its meaning.
//!
//! Every mutation edits the canonical text of a seed module: a number (a
//! size, a dimension number, a slice bound, a parameter number, an index),
//! an element type, a brace list (a layout's minor_to_major, `dimensions`),
//! a layout's tiling, an opcode (to another of the same arity), an operand
//! (retargeted to another instruction, or two swapped), the `ROOT`, an
//! instruction (dropped, its users retargeted), an enumerated attribute
//! (comparison direction, a called computation, `dim_labels`, …) or the
//! `entry_computation_layout` (dropped).

use std::ops::Range;

use xla_core::hlo::{Arity, Opcode};

use crate::runtime_support::Rng;
use crate::spans::{
    attr_values, brace_lists, computation_names, earlier_names, instructions, line_offset,
    matching, number_spans, shape_size_spans, type_spans, Instr, TYPES,
};

/// Scalar constants at the edges of some type (a literal another type
/// cannot hold is a parse error).
const SPECIAL_VALUES: &[&str] = &[
    "0",
    "-0",
    "1",
    "-1",
    "nan",
    "-nan",
    "inf",
    "-inf",
    "1e+30",
    "-1e+30",
    "65504",
    "1e-45",
    "3.40282e+38",
    "2147483647",
    "-2147483648",
    "255",
    "4294967295",
    "true",
    "false",
];

/// Attributes with a closed set of values, and those values.
const ENUMS: &[(&str, &[&str])] = &[
    ("direction", &["EQ", "NE", "LT", "LE", "GT", "GE"]),
    ("type", &["TOTALORDER", "FLOAT", "SIGNED", "UNSIGNED"]),
    ("fft_type", &["FFT", "IFFT", "RFFT", "IRFFT"]),
    ("lower", &["true", "false"]),
    ("left_side", &["true", "false"]),
    ("unit_diagonal", &["true", "false"]),
    ("transpose_a", &["NO_TRANSPOSE", "TRANSPOSE", "ADJOINT"]),
    ("indices_are_sorted", &["true", "false"]),
    ("unique_indices", &["true", "false"]),
    ("is_stable", &["true", "false"]),
    ("largest", &["true", "false"]),
    ("distribution", &["rng_uniform", "rng_normal"]),
    ("algorithm", &["rng_default", "rng_three_fry", "rng_philox"]),
];

/// Attributes naming one called computation.
const CALLED: &[&str] = &[
    "to_apply",
    "calls",
    "body",
    "condition",
    "select",
    "scatter",
    "true_computation",
    "false_computation",
];

/// One mutation kind and its weight (how often it is drawn).
const KINDS: &[(Kind, usize)] = &[
    (Kind::Number, 20),
    (Kind::Resize, 10),
    (Kind::Type, 8),
    (Kind::Retype, 6),
    (Kind::SpecialConstant, 5),
    (Kind::BraceList, 14),
    (Kind::Tiling, 4),
    (Kind::Opcode, 10),
    (Kind::Retarget, 10),
    (Kind::SwapOperands, 5),
    (Kind::Root, 4),
    (Kind::Drop, 5),
    (Kind::Enum, 8),
    (Kind::Called, 5),
    (Kind::DimLabels, 2),
    (Kind::EntryLayout, 1),
];

#[derive(Clone, Copy, Debug)]
enum Kind {
    Number,
    Resize,
    Type,
    Retype,
    SpecialConstant,
    BraceList,
    Tiling,
    Opcode,
    Retarget,
    SwapOperands,
    Root,
    Drop,
    Enum,
    Called,
    DimLabels,
    EntryLayout,
}

/// Applies 1–3 random mutations to `text`; returns the new text and what
/// was done (one line per mutation).
pub fn mutate(text: &str, rng: &mut Rng) -> (String, Vec<String>) {
    let mut text = text.to_string();
    let mut done = Vec::new();
    let count = 1 + rng.below(3);
    let total: usize = KINDS.iter().map(|(_, w)| w).sum();
    let mut attempts = 0;
    while done.len() < count && attempts < 50 {
        attempts += 1;
        let mut draw = rng.below(total);
        let kind = KINDS
            .iter()
            .find(|(_, w)| {
                let hit = draw < *w;
                draw = draw.saturating_sub(*w);
                hit
            })
            .map_or(Kind::Number, |(k, _)| *k);
        if let Some((new, what)) = apply(kind, &text, rng) {
            text = new;
            done.push(what);
        }
    }
    (text, done)
}

fn apply(kind: Kind, text: &str, rng: &mut Rng) -> Option<(String, String)> {
    match kind {
        Kind::Number => {
            let spans = number_spans(text);
            let span = rng.pick(&spans)?.clone();
            let old: i64 = text[span.clone()].parse().ok()?;
            let other = rng.pick(&spans).and_then(|s| text[s.clone()].parse().ok());
            let new = interesting(old, other.unwrap_or(0), rng);
            Some(splice(text, span, &new.to_string(), "number"))
        }
        Kind::Resize => {
            // Every size equal to one of the module's sizes, in every shape,
            // becomes another: the module often stays valid, at an unusual
            // size (0, 1, large).
            let sizes = shape_size_spans(text);
            let pick = rng.pick(&sizes)?.clone();
            let old = &text[pick];
            let new = match rng.below(6) {
                0 => 0,
                1 => 1,
                2 => 2,
                3 => 7,
                4 => 1 << 40,
                _ => old.parse::<i64>().ok()?.saturating_add(1),
            }
            .to_string();
            let mut out = String::with_capacity(text.len());
            let mut at = 0;
            for span in sizes.iter().filter(|s| &text[(*s).clone()] == old) {
                out.push_str(&text[at..span.start]);
                out.push_str(&new);
                at = span.end;
            }
            out.push_str(&text[at..]);
            Some((out, format!("resize: every size {old} → {new}")))
        }
        Kind::Type => {
            let spans = type_spans(text);
            let span = rng.pick(&spans)?.clone();
            let new = *rng.pick(TYPES)?;
            Some(splice(text, span, new, "element type"))
        }
        Kind::Retype => {
            // Every shape of one element type gets another: the module often
            // stays valid, in a type its seed never had.
            let spans = type_spans(text);
            let old = &text[rng.pick(&spans)?.clone()];
            let new = *rng.pick(TYPES)?;
            let mut out = String::with_capacity(text.len());
            let mut at = 0;
            for span in spans.iter().filter(|s| &text[(*s).clone()] == old) {
                out.push_str(&text[at..span.start]);
                out.push_str(new);
                at = span.end;
            }
            out.push_str(&text[at..]);
            Some((out, format!("retype: every {old} → {new}")))
        }
        Kind::SpecialConstant => {
            let spans: Vec<Range<usize>> = text
                .match_indices(" constant(")
                .filter_map(|(at, m)| {
                    let start = at + m.len();
                    let len = text[start..].find(')')?;
                    let inside = &text[start..start + len];
                    (!inside.contains('{')).then_some(start..start + len)
                })
                .collect();
            let span = rng.pick(&spans)?.clone();
            let new = *rng.pick(SPECIAL_VALUES)?;
            Some(splice(text, span, new, "constant"))
        }
        Kind::BraceList => {
            let spans = brace_lists(text);
            let span = rng.pick(&spans)?.clone();
            let new = mutate_list(&text[span.clone()], rng);
            Some(splice(text, span, &new, "brace list"))
        }
        Kind::Tiling => {
            let spans: Vec<_> = brace_lists(text)
                .into_iter()
                .filter(|s| s.start >= 2 && &text[s.start - 2..s.start] == "]{")
                .collect();
            let span = rng.pick(&spans)?.clone();
            let tiles = *rng.pick(&[":T(2,128)", ":T(8)", ":T(4)(2,1)", ":T(2,2)", ":T(1,128)"])?;
            let new = format!("{}{tiles}", &text[span.clone()]);
            Some(splice(text, span, &new, "tiling"))
        }
        Kind::Opcode => {
            let instrs = instructions(text);
            let instr = rng.pick(&instrs)?;
            let old = Opcode::from_name(&text[instr.opcode.clone()])?;
            if old.arity() == Arity::Fixed(0) {
                // Parameters, constants and iotas have their own syntax.
                return None;
            }
            let same: Vec<Opcode> = Opcode::ALL
                .iter()
                .copied()
                .filter(|op| *op != old && same_arity(op.arity(), old.arity()))
                .collect();
            let new = rng.pick(&same)?.name();
            Some(splice(text, instr.opcode.clone(), new, "opcode"))
        }
        Kind::Retarget => {
            let instrs = instructions(text);
            let instr = rng.pick(&instrs)?;
            let slot = rng.pick(&instr.operands)?.clone();
            let peers = earlier_names(&instrs, instr);
            let new = rng.pick(&peers)?;
            Some(splice(text, slot, new, "operand retargeted"))
        }
        Kind::SwapOperands => {
            let instrs = instructions(text);
            let with_two: Vec<&Instr> = instrs.iter().filter(|i| i.operands.len() >= 2).collect();
            let instr = rng.pick(&with_two)?;
            let a = rng.below(instr.operands.len());
            let b = (a + 1 + rng.below(instr.operands.len() - 1)) % instr.operands.len();
            let (lo, hi) = (a.min(b), a.max(b));
            let (lo, hi) = (instr.operands[lo].clone(), instr.operands[hi].clone());
            let mut out = String::with_capacity(text.len());
            out.push_str(&text[..lo.start]);
            out.push_str(&text[hi.clone()]);
            out.push_str(&text[lo.end..hi.start]);
            out.push_str(&text[lo]);
            out.push_str(&text[hi.end..]);
            Some((out, "operands swapped".into()))
        }
        Kind::Root => {
            let instrs = instructions(text);
            let instr = rng.pick(&instrs)?;
            let old = instrs
                .iter()
                .find(|i| i.computation == instr.computation && i.root)?;
            if old.line == instr.line {
                return None;
            }
            let mut lines: Vec<String> = text.lines().map(str::to_string).collect();
            lines[old.line] = lines[old.line].replacen("ROOT ", "", 1);
            lines[instr.line] = lines[instr.line].replacen("  ", "  ROOT ", 1);
            Some((lines.join("\n") + "\n", "root moved".into()))
        }
        Kind::Drop => {
            let instrs = instructions(text);
            let droppable: Vec<&Instr> = instrs.iter().filter(|i| !i.root).collect();
            let gone = rng.pick(&droppable)?;
            let peers = earlier_names(&instrs, gone);
            let heir = rng.pick(&peers)?.clone();
            let mut lines: Vec<String> = text.lines().map(str::to_string).collect();
            for user in instrs.iter().filter(|i| i.computation == gone.computation) {
                for slot in user.operands.iter().rev() {
                    if text[slot.clone()] == gone.name {
                        let line_start = line_offset(text, user.line);
                        let range = slot.start - line_start..slot.end - line_start;
                        lines[user.line].replace_range(range, &heir);
                    }
                }
            }
            lines.remove(gone.line);
            Some((lines.join("\n") + "\n", "instruction dropped".into()))
        }
        Kind::Enum => {
            let (key, values) = rng.pick(ENUMS)?;
            let spans = attr_values(text, key);
            let span = rng.pick(&spans)?.clone();
            let new = *rng.pick(values)?;
            Some(splice(text, span, new, "enum attribute"))
        }
        Kind::Called => {
            let key = rng.pick(CALLED)?;
            let spans = attr_values(text, key);
            let span = rng.pick(&spans)?.clone();
            let names = computation_names(text);
            let new = rng.pick(&names)?;
            Some(splice(text, span, new, "called computation"))
        }
        Kind::DimLabels => {
            let spans = attr_values(text, "dim_labels");
            let span = rng.pick(&spans)?.clone();
            let mut labels: Vec<u8> = text[span.clone()].bytes().collect();
            let a = rng.below(labels.len());
            let b = rng.below(labels.len());
            if labels[a].is_ascii_alphanumeric() && labels[b].is_ascii_alphanumeric() {
                labels.swap(a, b);
            }
            let new = String::from_utf8(labels).ok()?;
            Some(splice(text, span, &new, "dim_labels"))
        }
        Kind::EntryLayout => {
            let start = text.find(", entry_computation_layout={")?;
            let open = start + ", entry_computation_layout=".len();
            let end = matching(text, open)?;
            Some(splice(text, start..end + 1, "", "entry layout dropped"))
        }
    }
}

fn same_arity(a: Arity, b: Arity) -> bool {
    match (a, b) {
        (Arity::Fixed(x), Arity::Fixed(y)) => x == y,
        (Arity::Variadic, Arity::Variadic) => true,
        (Arity::Fixed(_), Arity::Variadic) | (Arity::Variadic, Arity::Fixed(_)) => false,
    }
}

fn splice(text: &str, span: Range<usize>, new: &str, what: &str) -> (String, String) {
    let old = &text[span.clone()];
    let line = text[..span.start].matches('\n').count() + 1;
    let out = format!("{}{new}{}", &text[..span.start], &text[span.end..]);
    (out, format!("{what} on line {line}: `{old}` → `{new}`"))
}

/// A replacement for the number `old`: a boundary value, a neighbour, a
/// huge size, or another number of the module.
fn interesting(old: i64, other: i64, rng: &mut Rng) -> i64 {
    match rng.below(14) {
        0 => 0,
        1 => 1,
        2 => 2,
        3 => old.saturating_add(1),
        4 => old.saturating_sub(1),
        5 => -1,
        6 => old.saturating_neg(),
        7 => old.saturating_mul(2),
        8 => i64::from(i32::MAX),
        9 => 1 << 40,
        10 => i64::MAX,
        11 => other,
        12 => 1 << 31,
        _ => rng.below(9) as i64,
    }
}

/// A permuted, shortened, lengthened or duplicated integer list.
fn mutate_list(list: &str, rng: &mut Rng) -> String {
    let mut items: Vec<i64> = list.split(',').filter_map(|s| s.parse().ok()).collect();
    match rng.below(5) {
        0 if items.len() >= 2 => {
            let a = rng.below(items.len());
            let b = rng.below(items.len());
            items.swap(a, b);
        }
        1 if !items.is_empty() => {
            items.remove(rng.below(items.len()));
        }
        2 if !items.is_empty() => {
            let dup = items[rng.below(items.len())];
            items.insert(rng.below(items.len() + 1), dup);
        }
        3 => items.reverse(),
        _ => {
            let extra = rng.below(items.len() + 2) as i64;
            items.insert(rng.below(items.len() + 1), extra);
        }
    }
    let items: Vec<String> = items.iter().map(i64::to_string).collect();
    items.join(",")
}
