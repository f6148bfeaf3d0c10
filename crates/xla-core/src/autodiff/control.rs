//! Gradients of control flow: `while` loops of known trip count and
//! `conditional`.

use super::rules::no_rule;
use super::{Ct, Tape};
use crate::hlo::HloInstruction;
use crate::Result;

impl Tape<'_> {
    pub(super) fn while_rule(&self, instr: &HloInstruction, _ct: Ct) -> Result<Vec<Option<Ct>>> {
        Err(no_rule(instr, "loops are not differentiated yet"))
    }

    pub(super) fn conditional_rule(
        &self,
        instr: &HloInstruction,
        _ct: Ct,
        _wanted: &[bool],
    ) -> Result<Vec<Option<Ct>>> {
        Err(no_rule(instr, "conditionals are not differentiated yet"))
    }
}
