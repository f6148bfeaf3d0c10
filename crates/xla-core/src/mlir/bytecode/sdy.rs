//! Shardy's (`sdy`) attributes in their custom bytecode encoding, decoded
//! to the text MLIR prints for them (`<@mesh, [{"i"}, {}]>`), the form the
//! text reader keeps: a sharding reads the same from either door.
//!
//! Each entry starts with a code naming the attribute (Shardy's
//! `bytecode.td`, whose order is fixed for compatibility); fields are
//! varints, strings and references to other attributes.

use super::attrs::Tables;
use super::{Cur, Result};
use crate::mlir::ir::Attr;

impl Tables<'_, '_> {
    /// One `sdy` attribute entry as its text.
    pub(super) fn sdy_attr(&mut self, c: &mut Cur<'_>) -> Result<Attr> {
        let at = c.clone();
        let code = c.varint()?;
        let text = match code {
            // ManualAxesAttr: `{"a", "b"}`.
            0 => format!("{{{}}}", self.sdy_list(c, |t, c| t.sdy_text(c))?),
            // MeshAxisAttr: `"a"=4`.
            1 => {
                let name = self.quoted(c)?;
                format!("{name}={}", c.svarint()?)
            }
            // MeshAttr: `<["a"=2, "b"=4]>`, with `device_ids=[…]`.
            2 => {
                let axes = self.sdy_list(c, |t, c| t.sdy_text(c))?;
                let n = c.count("device ids")?;
                let ids = (0..n)
                    .map(|_| c.svarint().map(|i| i.to_string()))
                    .collect::<Result<Vec<_>>>()?;
                match ids.is_empty() {
                    true => format!("<[{axes}]>"),
                    false => format!("<[{axes}], device_ids=[{}]>", ids.join(", ")),
                }
            }
            // SubAxisInfoAttr: `(pre)size`.
            3 => format!("({}){}", c.svarint()?, c.svarint()?),
            // AxisRefAttr: `"a"` or `"a":(1)2`.
            4 => {
                let name = self.quoted(c)?;
                let (index, present) = c.varint_flag()?;
                match present {
                    true => format!("{name}:{}", self.sdy_text_at(index as usize, &at)?),
                    false => name,
                }
            }
            // DimensionShardingAttr: `{"a", "b"}`, `{"a", ?}` when open,
            // `p1` for a priority.
            5 => {
                let axes = self.sdy_list(c, |t, c| t.sdy_text(c))?;
                let closed = c.byte()? != 0;
                let (priority, has_priority) = c.varint_flag()?;
                let open = match (closed, axes.is_empty()) {
                    (true, _) => String::new(),
                    (false, true) => "?".into(),
                    (false, false) => ", ?".into(),
                };
                let priority = match has_priority {
                    true => format!("p{priority}"),
                    false => String::new(),
                };
                format!("{{{axes}{open}}}{priority}")
            }
            // TensorShardingAttr (v1, v2 with unreduced axes, v3 with a
            // reduction): `<@mesh, [{…}, …], replicated={…}, unreduced={…}>`.
            6 | 15 | 17 => {
                let mesh = match self.attr(c)? {
                    Attr::Symbol(s) => format!("@{s}"),
                    Attr::Opaque(text) => text,
                    other => return Err(at.malformed("sdy sharding", format!("mesh {other:?}"))),
                };
                let dims = self.sdy_list(c, |t, c| t.sdy_text(c))?;
                let mut text = format!("<{mesh}, [{dims}]");
                let replicated = self.sdy_list(c, |t, c| t.sdy_text(c))?;
                if !replicated.is_empty() {
                    text += &format!(", replicated={{{replicated}}}");
                }
                if code != 6 {
                    let unreduced = self.sdy_list(c, |t, c| t.sdy_text(c))?;
                    if !unreduced.is_empty() {
                        text += &format!(", unreduced={{{unreduced}}}");
                    }
                }
                if code == 17 {
                    c.svarint()?;
                }
                text + ">"
            }
            // TensorShardingPerValueAttr: `[<…>, <…>]`.
            7 | 16 => format!("[{}]", self.sdy_list(c, |t, c| t.sdy_text(c))?),
            other => {
                // Sharding rules, collective parameters: not needed to run
                // a program; kept opaque.
                c.pos = c.data.len();
                format!("#sdy<attribute {other}>")
            }
        };
        Ok(Attr::Opaque(text))
    }

    /// A counted list of items, each read by `item`, joined by `, `.
    fn sdy_list(
        &mut self,
        c: &mut Cur<'_>,
        mut item: impl FnMut(&mut Self, &mut Cur<'_>) -> Result<String>,
    ) -> Result<String> {
        let n = c.count("sdy list")?;
        let items = (0..n).map(|_| item(self, c)).collect::<Result<Vec<_>>>()?;
        Ok(items.join(", "))
    }

    /// A referenced attribute's text (a builtin string quoted).
    fn sdy_text(&mut self, c: &mut Cur<'_>) -> Result<String> {
        let at = c.clone();
        match self.attr(c)? {
            Attr::Opaque(text) => Ok(text),
            Attr::String(s) => Ok(format!("{:?}", String::from_utf8_lossy(&s))),
            other => Err(at.malformed("sdy attribute", format!("{other:?}"))),
        }
    }

    /// The text of attribute `index` (an optional reference's target).
    fn sdy_text_at(&mut self, index: usize, at: &Cur<'_>) -> Result<String> {
        match &*self.attr_entry(index, at)? {
            super::attrs::Decoded::Attr(Attr::Opaque(text)) => Ok(text.clone()),
            _ => Err(at.malformed("sdy attribute", "not an sdy attribute")),
        }
    }

    /// A string-section reference, quoted.
    fn quoted(&mut self, c: &mut Cur<'_>) -> Result<String> {
        Ok(format!(
            "{:?}",
            String::from_utf8_lossy(self.file.string(c)?)
        ))
    }
}
