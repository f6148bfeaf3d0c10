//! Dead code: the instructions whose values nothing reads. The math
//! functions written over `LaneOps` compute some values only one accuracy
//! or one back end needs (the error term of a `two_sum`, a flush the
//! function already applies); Cranelift drops them, and so does
//! [`Func::lower`] by asking [`Func::live`].

use super::{Func, Val};

impl Func {
    /// Which instructions to emit: stores, skips and every instruction
    /// whose value is read by one of those (through any chain), or lives
    /// past the body (a fixed value, the tail mask). A value defined more
    /// than once (a rare branch's result) keeps all its definitions.
    pub(super) fn live(&self) -> Vec<bool> {
        let mut needed_v = vec![false; self.vregs as usize];
        let mut needed_m = vec![false; self.mregs as usize];
        for &(v, _) in &self.fixed {
            needed_v[v.0 as usize] = true;
        }
        if let Some(m) = self.tail {
            needed_m[m.0 as usize] = true;
        }
        let mut live = vec![false; self.insts.len()];
        for (i, inst) in self.insts.iter().enumerate().rev() {
            let keep = match inst.def() {
                None => true,
                Some(Val::V(v)) => needed_v[v.0 as usize],
                Some(Val::M(m)) => needed_m[m.0 as usize],
            };
            if keep {
                live[i] = true;
                for u in inst.uses() {
                    match u {
                        Val::V(v) => needed_v[v.0 as usize] = true,
                        Val::M(m) => needed_m[m.0 as usize] = true,
                    }
                }
            }
        }
        live
    }
}
