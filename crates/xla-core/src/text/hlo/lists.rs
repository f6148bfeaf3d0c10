//! Bracketed list syntaxes of HLO attributes, each parser next to its
//! printer:
//!
//! | attribute | text |
//! |---|---|
//! | `dimensions` and other dimension lists | `{1,0}` |
//! | `padding` (pad) | `1_2_0x-1_3_2` (`low_high[_interior]` per dimension) |
//! | `slice` | `{[0:4:2], [1:3]}` |
//! | `replica_groups` | `{{0,2},{1,3}}`, `{}`, `[2,2]<=[4]`, `[2,2]<=[2,2]T(1,0)` |
//! | `source_target_pairs` | `{{0,1},{1,2}}` |
//! | `output_to_operand_aliasing` | `{{0}: (1, {}), {1}: (0, {0})}` |
//!
//! Printers write XLA's canonical form; parsers also accept the forms XLA
//! normalizes away (`[0:4:1]`, `0_0_0`, iota replica groups).

use crate::hlo::{InputOutputAlias, OutputOperandAlias, PadDim, SliceDim};
use crate::text::{Cursor, ParseError};

/// `{1,2,3}` (no spaces, as XLA prints dimension lists).
pub(crate) fn int_list(values: &[i64]) -> String {
    let items: Vec<String> = values.iter().map(i64::to_string).collect();
    format!("{{{}}}", items.join(","))
}

/// `padding=` of a pad: `low_high[_interior]` per dimension, `x`-separated;
/// empty for a scalar operand.
pub(crate) fn parse_pad_config(c: &mut Cursor<'_>) -> Result<Vec<PadDim>, ParseError> {
    c.skip_ws();
    if !c
        .rest()
        .starts_with(|ch: char| ch.is_ascii_digit() || ch == '-')
    {
        return Ok(Vec::new());
    }
    let mut out = Vec::new();
    loop {
        let low = c.int()?;
        c.expect("_")?;
        let high = c.int()?;
        let interior = if c.rest().starts_with('_') {
            c.expect("_")?;
            c.int()?
        } else {
            0
        };
        out.push(PadDim {
            low,
            high,
            interior,
        });
        if !c.rest().starts_with('x') {
            return Ok(out);
        }
        c.expect("x")?;
    }
}

/// `1_2x0_1`, with `_interior` on every dimension when any is non-zero.
pub(crate) fn pad_config(dims: &[PadDim]) -> String {
    let interior = dims.iter().any(|d| d.interior != 0);
    let items: Vec<String> = dims
        .iter()
        .map(|d| match interior {
            true => format!("{}_{}_{}", d.low, d.high, d.interior),
            false => format!("{}_{}", d.low, d.high),
        })
        .collect();
    items.join("x")
}

pub(crate) fn parse_slice(c: &mut Cursor<'_>) -> Result<Vec<SliceDim>, ParseError> {
    c.expect("{")?;
    let mut out = Vec::new();
    if c.eat("}") {
        return Ok(out);
    }
    loop {
        c.expect("[")?;
        let start = c.int()?;
        c.expect(":")?;
        let limit = c.int()?;
        let stride = if c.eat(":") { c.int()? } else { 1 };
        c.expect("]")?;
        out.push(SliceDim {
            start,
            limit,
            stride,
        });
        if c.eat("}") {
            return Ok(out);
        }
        if !c.eat(",") {
            return Err(c.error("`,` or `}`"));
        }
    }
}

/// `{[0:4:2], [1:3]}`: the stride only when it is not 1.
pub(crate) fn slice(dims: &[SliceDim]) -> String {
    let items: Vec<String> = dims
        .iter()
        .map(|d| match d.stride {
            1 => format!("[{}:{}]", d.start, d.limit),
            s => format!("[{}:{}:{s}]", d.start, d.limit),
        })
        .collect();
    format!("{{{}}}", items.join(", "))
}

/// `{{0,1},{2,3}}` (also `{}` and `{{}}`).
pub(crate) fn parse_int_lists(c: &mut Cursor<'_>) -> Result<Vec<Vec<i64>>, ParseError> {
    c.expect("{")?;
    let mut out = Vec::new();
    if c.eat("}") {
        return Ok(out);
    }
    loop {
        out.push(c.int_list("{", "}")?);
        if c.eat("}") {
            return Ok(out);
        }
        if !c.eat(",") {
            return Err(c.error("`,` or `}`"));
        }
    }
}

pub(crate) fn int_lists(lists: &[Vec<i64>]) -> String {
    let items: Vec<String> = lists.iter().map(|l| int_list(l)).collect();
    format!("{{{}}}", items.join(","))
}

/// The most devices an iota replica-group list may enumerate.
const MAX_IOTA_DEVICES: i64 = 1 << 24;

/// Replica groups, explicit (`{{0,2},{1,3}}`) or in XLA's iota form
/// `[G,S]<=[d0,d1,…]T(p0,p1,…)`: the devices `0..N` laid out with sizes
/// `d`, transposed by `p`, then read row-major into `G` groups of `S`.
/// `[2,2]<=[2,2]T(1,0)` is `{{0,2},{1,3}}`.
pub(crate) fn parse_replica_groups(c: &mut Cursor<'_>) -> Result<Vec<Vec<i64>>, ParseError> {
    if !c.looking_at("[") {
        return parse_int_lists(c);
    }
    let at = c.pos();
    let groups = c.int_list("[", "]")?;
    c.expect("<=")?;
    let dims = c.int_list("[", "]")?;
    let perm = if c.rest().starts_with('T') {
        c.expect("T")?;
        c.int_list("(", ")")?
    } else {
        (0..dims.len() as i64).collect()
    };
    let total = dims
        .iter()
        .try_fold(1i64, |acc, &d| acc.checked_mul(d))
        .filter(|&t| t <= MAX_IOTA_DEVICES);
    let mut sorted = perm.clone();
    sorted.sort_unstable();
    let valid = groups.len() == 2
        && groups.iter().chain(&dims).all(|&d| d > 0)
        && total.is_some()
        && groups[0].checked_mul(groups[1]) == total
        && sorted == (0..dims.len() as i64).collect::<Vec<_>>();
    let Some(total) = total.filter(|_| valid) else {
        return Err(c.message_at(
            at,
            format!(
                "iota replica groups need `[groups,size]<=[dims]` with groups·size = the \
                 product of dims (at most {MAX_IOTA_DEVICES} devices), and `T(…)` a \
                 permutation of the dims"
            ),
        ));
    };
    // Walk the transposed array row-major; each position's value is the
    // row-major offset of the matching index in the untransposed array.
    let transposed: Vec<i64> = perm.iter().map(|&p| dims[p as usize]).collect();
    let mut strides = vec![1i64; dims.len()];
    for d in (0..dims.len().saturating_sub(1)).rev() {
        strides[d] = strides[d + 1] * dims[d + 1];
    }
    let mut index = vec![0i64; dims.len()];
    let mut devices = Vec::with_capacity(total as usize);
    for _ in 0..total {
        devices.push(
            index
                .iter()
                .zip(&perm)
                .map(|(&i, &p)| i * strides[p as usize])
                .sum(),
        );
        for d in (0..index.len()).rev() {
            index[d] += 1;
            if index[d] < transposed[d] {
                break;
            }
            index[d] = 0;
        }
    }
    Ok(devices
        .chunks(groups[1] as usize)
        .map(<[i64]>::to_vec)
        .collect())
}

pub(crate) fn parse_source_target_pairs(c: &mut Cursor<'_>) -> Result<Vec<(i64, i64)>, ParseError> {
    let at = c.pos();
    parse_int_lists(c)?
        .into_iter()
        .map(|pair| match pair[..] {
            [s, t] => Ok((s, t)),
            _ => Err(c.message_at(at, "each source_target_pairs entry is `{source,target}`")),
        })
        .collect()
}

pub(crate) fn source_target_pairs(pairs: &[(i64, i64)]) -> String {
    let items: Vec<String> = pairs.iter().map(|(s, t)| format!("{{{s},{t}}}")).collect();
    format!("{{{}}}", items.join(","))
}

pub(crate) fn parse_aliasing(c: &mut Cursor<'_>) -> Result<Vec<OutputOperandAlias>, ParseError> {
    let entries = parse_alias_entries(c, false)?;
    Ok(entries
        .into_iter()
        .map(
            |(output_index, operand, operand_index, _)| OutputOperandAlias {
                output_index,
                operand,
                operand_index,
            },
        )
        .collect())
}

/// `{ {0}: (1, {}, may-alias), … }`, a module's `input_output_alias`.
pub(crate) fn parse_input_output_alias(
    c: &mut Cursor<'_>,
) -> Result<Vec<InputOutputAlias>, ParseError> {
    let entries = parse_alias_entries(c, true)?;
    Ok(entries
        .into_iter()
        .map(
            |(output_index, parameter, parameter_index, must_alias)| InputOutputAlias {
                output_index,
                parameter,
                parameter_index,
                must_alias,
            },
        )
        .collect())
}

/// `{ {out}: (operand, {index}[, kind]), … }`: the entries of an aliasing
/// list, each `(output index, operand, operand index, must-alias)`; with
/// `kinds`, each entry may end in `may-alias` or `must-alias`.
#[allow(clippy::type_complexity)]
fn parse_alias_entries(
    c: &mut Cursor<'_>,
    kinds: bool,
) -> Result<Vec<(Vec<i64>, i64, Vec<i64>, bool)>, ParseError> {
    c.expect("{")?;
    let mut out = Vec::new();
    if c.eat("}") {
        return Ok(out);
    }
    loop {
        let output_index = c.int_list("{", "}")?;
        c.expect(":")?;
        c.expect("(")?;
        let operand = c.int()?;
        c.expect(",")?;
        let operand_index = c.int_list("{", "}")?;
        let mut must_alias = false;
        if kinds && c.eat(",") {
            must_alias = match c.expect_name("`may-alias` or `must-alias`")? {
                "may-alias" => false,
                "must-alias" => true,
                _ => return Err(c.error("`may-alias` or `must-alias`")),
            };
        }
        c.expect(")")?;
        out.push((output_index, operand, operand_index, must_alias));
        if c.eat("}") {
            return Ok(out);
        }
        if !c.eat(",") {
            return Err(c.error("`,` or `}`"));
        }
    }
}

/// A module's `input_output_alias` as XLA prints it.
pub(crate) fn input_output_alias(entries: &[InputOutputAlias]) -> String {
    let items: Vec<String> = entries
        .iter()
        .map(|a| {
            let kind = if a.must_alias {
                "must-alias"
            } else {
                "may-alias"
            };
            format!(
                "{}: ({}, {}, {kind})",
                int_list(&a.output_index),
                a.parameter,
                int_list(&a.parameter_index)
            )
        })
        .collect();
    format!("{{ {} }}", items.join(", "))
}

pub(crate) fn aliasing(entries: &[OutputOperandAlias]) -> String {
    let items: Vec<String> = entries
        .iter()
        .map(|a| {
            format!(
                "{}: ({}, {})",
                int_list(&a.output_index),
                a.operand,
                int_list(&a.operand_index)
            )
        })
        .collect();
    format!("{{{}}}", items.join(", "))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse<T>(text: &str, f: impl FnOnce(&mut Cursor<'_>) -> Result<T, ParseError>) -> T {
        let mut c = Cursor::new(text);
        let v = f(&mut c).unwrap_or_else(|e| panic!("{text}: {e}"));
        assert!(c.at_end(), "{text}: left {:?}", c.rest());
        v
    }

    #[test]
    fn pad_slice_and_lists() {
        let p = parse("1_2_0x-1_3_2", parse_pad_config);
        assert_eq!(
            p[1],
            PadDim {
                low: -1,
                high: 3,
                interior: 2
            }
        );
        assert_eq!(pad_config(&p), "1_2_0x-1_3_2");
        assert_eq!(
            pad_config(&parse("0_0_0x2_-3_0", parse_pad_config)),
            "0_0x2_-3"
        );
        assert!(parse("", parse_pad_config).is_empty());
        let s = parse("{[0:4:2], [1:3:1], [5:5]}", parse_slice);
        assert_eq!(slice(&s), "{[0:4:2], [1:3], [5:5]}");
        assert_eq!(slice(&parse("{}", parse_slice)), "{}");
        assert_eq!(
            int_lists(&parse("{{0,2},{1,3}}", parse_replica_groups)),
            "{{0,2},{1,3}}"
        );
        assert_eq!(parse("{}", parse_replica_groups), Vec::<Vec<i64>>::new());
        assert_eq!(
            parse("[2,2]<=[4]", parse_replica_groups),
            vec![vec![0, 1], vec![2, 3]]
        );
        assert_eq!(
            parse("[2,2]<=[2,2]T(1,0)", parse_replica_groups),
            vec![vec![0, 2], vec![1, 3]]
        );
        assert_eq!(
            parse("[1,6]<=[2,3]T(1,0)", parse_replica_groups),
            vec![vec![0, 3, 1, 4, 2, 5]]
        );
        let e = parse_replica_groups(&mut Cursor::new("[2,3]<=[4]")).unwrap_err();
        assert!(e.message.unwrap().starts_with("iota replica groups need"));
        let pairs = parse("{{0,1},{1,2}}", parse_source_target_pairs);
        assert_eq!(source_target_pairs(&pairs), "{{0,1},{1,2}}");
        let a = parse("{{0}: (1, {}), {1}: (0, {0})}", parse_aliasing);
        assert_eq!(aliasing(&a), "{{0}: (1, {}), {1}: (0, {0})}");
    }
}
