//! Shardy's shardings, as the readers keep them (their MLIR text:
//! `<["i"=2, "j"=4]>` for a mesh, `[<@mesh, [{"i"}, {}]>, …]` for the
//! shardings of several values), turned into HLO sharding strings
//! (`{devices=[2,1]<=[2]}`) for the shard conversions of a manual
//! computation, where a PJRT plugin reports them back to the framework.

use std::collections::HashMap;

use crate::mlir::export::NamedSharding;

/// A mesh's axis names and sizes, from `<["i"=2, "j"=4]>`; `None` for a
/// mesh of explicit device ids or anything else.
pub(crate) fn mesh_axes(text: &str) -> Option<(Vec<String>, Vec<u32>)> {
    let inner = text.trim().strip_prefix("<[")?.strip_suffix("]>")?;
    let (mut names, mut sizes) = (Vec::new(), Vec::new());
    for axis in inner.split(',').map(str::trim).filter(|a| !a.is_empty()) {
        let (name, size) = axis.split_once('=')?;
        names.push(unquote(name)?);
        sizes.push(size.trim().parse().ok()?);
    }
    Some((names, sizes))
}

/// The HLO sharding strings of `[<@mesh, [{…}, …]>, …]` for values of
/// `ranks`; `None` when one cannot be expressed (sub-axes, an unknown or
/// inline mesh).
pub(crate) fn hlo_shardings(
    text: &str,
    meshes: &HashMap<String, (Vec<String>, Vec<u32>)>,
    ranks: &[usize],
) -> Option<Vec<String>> {
    let inner = text.trim().strip_prefix('[')?.strip_suffix(']')?;
    let shardings = split_top(inner, ',');
    if shardings.len() != ranks.len() {
        return None;
    }
    (shardings.iter().zip(ranks))
        .map(|(s, &rank)| hlo_sharding(s, meshes, rank))
        .collect()
}

/// `<@mesh, [{"i"}, {}]>` (optionally with `replicated={…}`).
fn hlo_sharding(
    text: &str,
    meshes: &HashMap<String, (Vec<String>, Vec<u32>)>,
    rank: usize,
) -> Option<String> {
    let inner = text.trim().strip_prefix('<')?.strip_suffix('>')?;
    let parts = split_top(inner, ',');
    let (mesh, dims) = (parts.first()?.trim(), parts.get(1)?.trim());
    if parts[2..]
        .iter()
        .any(|p| !p.trim().starts_with("replicated="))
    {
        return None;
    }
    let (axis_names, axis_sizes) = meshes.get(mesh.strip_prefix('@')?)?.clone();
    let dims = dims.strip_prefix('[')?.strip_suffix(']')?;
    let mut partitions = Vec::new();
    for dim in split_top(dims, ',') {
        let dim = dim.trim();
        let axes = dim.strip_prefix('{')?.split_once('}')?.0;
        let axes = split_top(axes, ',')
            .into_iter()
            .map(str::trim)
            .filter(|a| !a.is_empty() && *a != "?")
            .map(unquote)
            .collect::<Option<Vec<_>>>()?;
        partitions.push(axes);
    }
    if partitions.len() != rank {
        return None;
    }
    NamedSharding {
        axis_names,
        axis_sizes,
        partitions,
        memory_kind: None,
    }
    .hlo_sharding(rank)
}

/// `"name"` without its quotes; `None` for anything else (a sub-axis
/// `"i":(1)2`).
fn unquote(s: &str) -> Option<String> {
    let s = s.trim().strip_prefix('"')?.strip_suffix('"')?;
    (!s.contains('"')).then(|| s.to_string())
}

/// `text` split at `sep` outside brackets and quotes.
fn split_top(text: &str, sep: char) -> Vec<&str> {
    let (mut parts, mut depth, mut quoted, mut start) = (Vec::new(), 0usize, false, 0);
    for (i, ch) in text.char_indices() {
        match ch {
            '"' => quoted = !quoted,
            _ if quoted => {}
            '<' | '[' | '{' | '(' => depth += 1,
            '>' | ']' | '}' | ')' => depth = depth.saturating_sub(1),
            c if c == sep && depth == 0 => {
                parts.push(&text[start..i]);
                start = i + 1;
            }
            _ => {}
        }
    }
    if !text[start..].trim().is_empty() || !parts.is_empty() {
        parts.push(&text[start..]);
    }
    parts
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shardy_text_to_hlo_strings() {
        let mesh = mesh_axes(r#"<["i"=2, "j"=3]>"#).unwrap();
        assert_eq!(mesh, (vec!["i".to_string(), "j".to_string()], vec![2, 3]));
        let meshes = HashMap::from([("mesh".to_string(), mesh)]);
        let text = r#"[<@mesh, [{"i"}, {}]>, <@mesh, [{}, {}]>, <@mesh, [{"j", "i"}]>, <@mesh, [{"j"}, {?}], replicated={"i"}>]"#;
        assert_eq!(
            hlo_shardings(text, &meshes, &[2, 2, 1, 2]).unwrap(),
            [
                "{devices=[2,1,3]<=[6] last_tile_dim_replicate}",
                "{replicated}",
                "{devices=[6]<=[2,3]T(1,0)}",
                "{devices=[3,1,2]<=[2,3]T(1,0) last_tile_dim_replicate}",
            ]
        );
        // Sub-axes, unknown meshes and rank mismatches are not expressed.
        assert_eq!(
            hlo_shardings(r#"[<@mesh, [{"i":(1)2}]>]"#, &meshes, &[1]),
            None
        );
        assert_eq!(hlo_shardings(r#"[<@other, [{}]>]"#, &meshes, &[1]), None);
        assert_eq!(hlo_shardings(r#"[<@mesh, [{}]>]"#, &meshes, &[2]), None);
        assert_eq!(mesh_axes("<[], device_ids=[0]>"), None);
    }
}
