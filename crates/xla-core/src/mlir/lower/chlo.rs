//! `chlo` ops: each expanded into the HLO XLA makes of it.

use super::OpResult;
use crate::mlir::ir::{Attr, Operation};
use crate::{XlaBuilder, XlaOp};

/// Lowers the `chlo` op `op` with operands `args`; returns its results.
pub(crate) fn lower(b: &XlaBuilder, op: &Operation, args: &[XlaOp]) -> OpResult<Vec<XlaOp>> {
    let e = |r: crate::Result<XlaOp>| r.map_err(|e| e.to_string());
    let name = op.name.trim_start_matches("chlo.");
    let x = *args.first().ok_or("an operand")?;
    let one = match name {
        "square" => e(b.mul(x, x, &[]))?,
        "erf" => e(b.erf(x))?,
        "conj" => e(b.conj(x))?,
        "top_k" => {
            let k = match op.attr("k") {
                Some(Attr::Int(k, _)) => *k,
                _ => return Err("missing `k`".into()),
            };
            let t = e(b.top_k(x, k, true))?;
            return Ok(vec![
                e(b.get_tuple_element(t, 0))?,
                e(b.get_tuple_element(t, 1))?,
            ]);
        }
        other => return Err(format!("`chlo.{other}` is not supported yet")),
    };
    Ok(vec![one])
}
