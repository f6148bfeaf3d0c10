//! The syntaxes of windowed ops: `window={size=3x3 stride=2x2 pad=1_1x1_1
//! lhs_dilate=2x2 rhs_dilate=2x3 rhs_reversal=1x0}` and convolution
//! `dim_labels=b01f_01io->b01f`, each parser next to its printer. Printers
//! omit what XLA omits (window fields at their defaults); parsers accept
//! fields in any order.

use std::fmt::Write;

use crate::hlo::{ConvDimensionNumbers, Window, WindowDim};
use crate::text::{Cursor, ParseError};

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
}
