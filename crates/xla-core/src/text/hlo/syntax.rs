//! The value syntaxes of HLO attributes, each parser next to its printer:
//!
//! | attribute | text |
//! |---|---|
//! | `window` | `{size=3x3 stride=2x2 pad=1_1x1_1 lhs_dilate=2x2 rhs_dilate=2x3 rhs_reversal=1x0}` |
//! | `dim_labels` | `b01f_01io->b01f` |
//! | `padding` (pad) | `1_2_0x-1_3_2` (`low_high[_interior]` per dimension) |
//! | `slice` | `{[0:4:2], [1:3]}` |
//! | `replica_groups` | `{{0,2},{1,3}}`, `{}`, `[2,2]<=[4]`, `[2,2]<=[2,2]T(1,0)` |
//! | `source_target_pairs` | `{{0,1},{1,2}}` |
//! | `output_to_operand_aliasing` | `{{0}: (1, {}), {1}: (0, {0})}` |
//!
//! Printers write XLA's canonical form (defaults omitted where XLA omits
//! them); parsers also accept the forms XLA normalizes away (`[0:4:1]`,
//! `0_0_0`, iota replica groups).

use std::fmt::Write;

use crate::hlo::{ConvDimensionNumbers, OutputOperandAlias, PadDim, SliceDim, Window, WindowDim};
use crate::text::{Cursor, ParseError};

/// `{1,2,3}` (no spaces, as XLA prints dimension lists).
pub(crate) fn int_list(values: &[i64]) -> String {
    let items: Vec<String> = values.iter().map(i64::to_string).collect();
    format!("{{{}}}", items.join(","))
}

/// Reads `x`-separated integers (`3x3`, `1x0`).
fn x_list(c: &mut Cursor<'_>) -> Result<Vec<i64>, ParseError> {
    let mut out = vec![c.int()?];
    while c.rest().starts_with('x') {
        c.expect("x")?;
        out.push(c.int()?);
    }
    Ok(out)
}

/// Reads `low_high` pairs separated by `x` (`1_1x0_-1`).
fn pad_pairs(c: &mut Cursor<'_>) -> Result<Vec<(i64, i64)>, ParseError> {
    let mut out = Vec::new();
    loop {
        let low = c.int()?;
        c.expect("_")?;
        out.push((low, c.int()?));
        if !c.rest().starts_with('x') {
            return Ok(out);
        }
        c.expect("x")?;
    }
}

pub(crate) fn parse_window(c: &mut Cursor<'_>) -> Result<Window, ParseError> {
    let start = c.pos();
    c.expect("{")?;
    let mut dims: Vec<WindowDim> = Vec::new();
    let mut seen_size = false;
    while !c.eat("}") {
        let at = c.pos();
        let field = c.expect_name(
            "a window field (size, stride, pad, lhs_dilate, rhs_dilate, rhs_reversal) or `}`",
        )?;
        c.expect("=")?;
        if field == "pad" {
            let pairs = pad_pairs(c)?;
            fill(&mut dims, pairs.len(), c, at, field)?;
            for (d, (low, high)) in dims.iter_mut().zip(pairs) {
                d.padding_low = low;
                d.padding_high = high;
            }
            continue;
        }
        let values = x_list(c)?;
        fill(&mut dims, values.len(), c, at, field)?;
        for (d, v) in dims.iter_mut().zip(values) {
            match field {
                "size" => d.size = v,
                "stride" => d.stride = v,
                "lhs_dilate" => d.base_dilation = v,
                "rhs_dilate" => d.window_dilation = v,
                "rhs_reversal" => d.window_reversal = v != 0,
                _ => {
                    return Err(c.message_at(
                        at,
                        format!("unknown window field `{field}` (size, stride, pad, lhs_dilate, rhs_dilate, rhs_reversal)"),
                    ))
                }
            }
        }
        seen_size |= field == "size";
    }
    if !dims.is_empty() && !seen_size {
        return Err(c.message_at(start, "a window needs `size=`"));
    }
    Ok(Window { dims })
}

/// Sizes the window to `n` dimensions on the first field; later fields must
/// have the same count.
fn fill(
    dims: &mut Vec<WindowDim>,
    n: usize,
    c: &Cursor<'_>,
    at: usize,
    field: &str,
) -> Result<(), ParseError> {
    if dims.is_empty() {
        dims.resize(n, WindowDim::default());
    } else if dims.len() != n {
        return Err(c.message_at(
            at,
            format!(
                "window field `{field}` has {n} dimensions, earlier fields have {}",
                dims.len()
            ),
        ));
    }
    Ok(())
}

/// `{size=3x3 stride=2x2 …}`: `size` always, the other fields only where
/// some dimension differs from the default.
pub(crate) fn window(w: &Window) -> String {
    let mut out = String::from("{");
    let mut field = |name: &str, f: &dyn Fn(&WindowDim) -> String, show: bool| {
        if !show || w.dims.is_empty() {
            return;
        }
        if out.len() > 1 {
            out.push(' ');
        }
        let items: Vec<String> = w.dims.iter().map(f).collect();
        let _ = write!(out, "{name}={}", items.join("x"));
    };
    let any = |p: &dyn Fn(&WindowDim) -> bool| w.dims.iter().any(p);
    field("size", &|d| d.size.to_string(), true);
    field("stride", &|d| d.stride.to_string(), any(&|d| d.stride != 1));
    field(
        "pad",
        &|d| format!("{}_{}", d.padding_low, d.padding_high),
        any(&|d| d.padding_low != 0 || d.padding_high != 0),
    );
    field(
        "lhs_dilate",
        &|d| d.base_dilation.to_string(),
        any(&|d| d.base_dilation != 1),
    );
    field(
        "rhs_dilate",
        &|d| d.window_dilation.to_string(),
        any(&|d| d.window_dilation != 1),
    );
    field(
        "rhs_reversal",
        &|d| u8::from(d.window_reversal).to_string(),
        any(&|d| d.window_reversal),
    );
    out.push('}');
    out
}

/// One operand's labels: the positions of the two named dimensions and of
/// each spatial dimension (`"b01f"` with names `b`,`f` → `(0, 3, [1, 2])`).
fn labels(
    c: &Cursor<'_>,
    at: usize,
    text: &str,
    names: [char; 2],
) -> Result<(i64, i64, Vec<i64>), ParseError> {
    let mut found = [None, None];
    let mut spatial: Vec<Option<i64>> = Vec::new();
    for (pos, ch) in text.chars().enumerate() {
        let pos = pos as i64;
        if let Some(k) = names.iter().position(|&n| n == ch) {
            if found[k].replace(pos).is_some() {
                return Err(c.message_at(at, format!("dim_labels `{text}` has `{ch}` twice")));
            }
        } else if let Some(d) = ch.to_digit(10) {
            let d = d as usize;
            if spatial.len() <= d {
                spatial.resize(d + 1, None);
            }
            if spatial[d].replace(pos).is_some() {
                return Err(c.message_at(at, format!("dim_labels `{text}` has `{ch}` twice")));
            }
        } else {
            return Err(c.message_at(
                at,
                format!(
                    "dim_labels `{text}` has `{ch}`; expected `{}`, `{}` or a spatial digit",
                    names[0], names[1]
                ),
            ));
        }
    }
    let [Some(a), Some(b)] = found else {
        return Err(c.message_at(
            at,
            format!(
                "dim_labels `{text}` needs both `{}` and `{}`",
                names[0], names[1]
            ),
        ));
    };
    let spatial: Option<Vec<i64>> = spatial.into_iter().collect();
    let spatial = spatial.ok_or_else(|| {
        c.message_at(
            at,
            format!("dim_labels `{text}` skips a spatial dimension number"),
        )
    })?;
    Ok((a, b, spatial))
}

pub(crate) fn parse_dim_labels(c: &mut Cursor<'_>) -> Result<ConvDimensionNumbers, ParseError> {
    c.skip_ws();
    let at = c.pos();
    let rest = c.rest();
    let len = rest
        .find(|ch: char| !(ch.is_ascii_alphanumeric() || matches!(ch, '_' | '-' | '>')))
        .unwrap_or(rest.len());
    let text = &rest[..len];
    let parts = text
        .split_once('_')
        .and_then(|(lhs, rest)| rest.split_once("->").map(|(rhs, out)| (lhs, rhs, out)));
    let Some((lhs, rhs, out)) = parts else {
        return Err(c.error("dim_labels like `b01f_01io->b01f`"));
    };
    let (input_batch, input_feature, input_spatial) = labels(c, at, lhs, ['b', 'f'])?;
    let (kernel_input_feature, kernel_output_feature, kernel_spatial) =
        labels(c, at, rhs, ['i', 'o'])?;
    let (output_batch, output_feature, output_spatial) = labels(c, at, out, ['b', 'f'])?;
    if kernel_spatial.len() != input_spatial.len() || output_spatial.len() != input_spatial.len() {
        return Err(c.message_at(
            at,
            format!("dim_labels `{text}` gives input, kernel and output different numbers of spatial dimensions"),
        ));
    }
    c.set_pos(at + len);
    Ok(ConvDimensionNumbers {
        input_batch,
        input_feature,
        input_spatial,
        kernel_input_feature,
        kernel_output_feature,
        kernel_spatial,
        output_batch,
        output_feature,
        output_spatial,
    })
}

/// `b01f_01io->b01f`: each operand's dimensions in order, named `b`/`f`
/// (`i`/`o` for the kernel) or by spatial number; `?` for a dimension no
/// number names.
pub(crate) fn dim_labels(d: &ConvDimensionNumbers) -> String {
    let side = |named: [(i64, char); 2], spatial: &[i64]| {
        let rank = named
            .iter()
            .map(|&(p, _)| p)
            .chain(spatial.iter().copied())
            .max()
            .map_or(0, |m| m + 1);
        let mut chars = vec!['?'; rank.max(0) as usize];
        let mut put = |p: i64, ch: char| {
            if let Some(slot) = usize::try_from(p).ok().and_then(|p| chars.get_mut(p)) {
                *slot = ch;
            }
        };
        for &(p, ch) in &named {
            put(p, ch);
        }
        for (i, &p) in spatial.iter().enumerate() {
            put(p, char::from_digit(i as u32 % 10, 10).expect("a digit"));
        }
        chars.into_iter().collect::<String>()
    };
    format!(
        "{}_{}->{}",
        side(
            [(d.input_batch, 'b'), (d.input_feature, 'f')],
            &d.input_spatial
        ),
        side(
            [
                (d.kernel_input_feature, 'i'),
                (d.kernel_output_feature, 'o')
            ],
            &d.kernel_spatial
        ),
        side(
            [(d.output_batch, 'b'), (d.output_feature, 'f')],
            &d.output_spatial
        ),
    )
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
    let total: i64 = dims.iter().product();
    let mut sorted = perm.clone();
    sorted.sort_unstable();
    let valid = groups.len() == 2
        && groups.iter().chain(&dims).all(|&d| d > 0)
        && groups[0].checked_mul(groups[1]) == Some(total)
        && sorted == (0..dims.len() as i64).collect::<Vec<_>>();
    if !valid {
        return Err(c.message_at(
            at,
            "iota replica groups need `[groups,size]<=[dims]` with groups·size = the product of dims, and `T(…)` a permutation of the dims",
        ));
    }
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
        c.expect(")")?;
        out.push(OutputOperandAlias {
            output_index,
            operand,
            operand_index,
        });
        if c.eat("}") {
            return Ok(out);
        }
        if !c.eat(",") {
            return Err(c.error("`,` or `}`"));
        }
    }
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
    fn window_round_trips() {
        for text in [
            "{size=3x3}",
            "{size=3x3 stride=2x2 pad=1_1x1_1 lhs_dilate=2x2 rhs_dilate=2x3 rhs_reversal=1x0}",
            "{size=1x2x2x1 stride=1x2x2x1}",
            "{size=3 stride=2 pad=0_-1}",
            "{}",
        ] {
            assert_eq!(window(&parse(text, parse_window)), text);
        }
        let w = parse("{pad=1_2 size=3 rhs_reversal=1}", parse_window);
        assert_eq!(
            w.dims[0],
            WindowDim {
                size: 3,
                padding_low: 1,
                padding_high: 2,
                window_reversal: true,
                ..WindowDim::default()
            }
        );
        let e = parse_window(&mut Cursor::new("{size=3x3 stride=2}")).unwrap_err();
        assert_eq!(
            e.message.as_deref(),
            Some("window field `stride` has 1 dimensions, earlier fields have 2")
        );
        let e = parse_window(&mut Cursor::new("{stride=2}")).unwrap_err();
        assert_eq!(e.message.as_deref(), Some("a window needs `size=`"));
    }

    #[test]
    fn dim_labels_round_trip() {
        for text in [
            "b01f_01io->b01f",
            "bf0_oi0->bf0",
            "f01b_i01o->01bf",
            "bf_io->bf",
            "bf012_oi012->bf012",
            "b10f_10io->b01f",
        ] {
            assert_eq!(dim_labels(&parse(text, parse_dim_labels)), text);
        }
        let d = parse("b01f_01io->b01f", parse_dim_labels);
        assert_eq!(
            (d.input_batch, d.input_feature, d.input_spatial.clone()),
            (0, 3, vec![1, 2])
        );
        assert_eq!((d.kernel_input_feature, d.kernel_output_feature), (2, 3));
        let err = |t: &str| {
            parse_dim_labels(&mut Cursor::new(t))
                .unwrap_err()
                .to_string()
        };
        assert_eq!(
            err("b0f_0o->b0f"),
            "1:1: dim_labels `0o` needs both `i` and `o`\nb0f_0o->b0f\n^"
        );
        assert_eq!(err("b0f_01io->b0f"), "1:1: dim_labels `b0f_01io->b0f` gives input, kernel and output different numbers of spatial dimensions\nb0f_01io->b0f\n^");
        assert_eq!(
            err("bxf_0io->b0f"),
            "1:1: dim_labels `bxf` has `x`; expected `b`, `f` or a spatial digit\nbxf_0io->b0f\n^"
        );
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
