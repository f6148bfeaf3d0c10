//! The fusion plan as text, for `xla dump`.
//!
//! ```text
//! fusion 0 (loop) root add.1 <- inputs (a.1, x.1, b.1, y.1)
//!   fuse mul.5 into add.1: elementwise producer
//!   fuse mul.4 into mul.5: cheap, duplicated into each consumer
//!   keep x.1 out of mul.5: a buffer (parameter or constant)
//! standalone
//!   a.1: parameter
//! ```

use std::fmt;

use xla_core::hlo::{HloComputation, InstrId};

use super::{FusionDecision, FusionPlan, Reason, StandaloneReason, FUSED_CONCAT_OPERANDS};

/// Displays a [`FusionPlan`] with instruction names.
pub struct PlanDisplay<'a> {
    plan: &'a FusionPlan,
    comp: &'a HloComputation,
}

impl FusionPlan {
    /// The plan as text, naming instructions of `comp` (the planned
    /// computation).
    pub fn display<'a>(&'a self, comp: &'a HloComputation) -> PlanDisplay<'a> {
        PlanDisplay { plan: self, comp }
    }
}

impl Reason {
    /// The reason as text, naming instructions of `comp`.
    pub fn describe(&self, comp: &HloComputation) -> String {
        let name = |id: InstrId| comp.instr(id).name.clone();
        match self {
            Reason::Elementwise => "elementwise producer".into(),
            Reason::DataMovement => "data movement (index arithmetic)".into(),
            Reason::CheapDuplicated => "cheap, duplicated into each consumer".into(),
            Reason::ReductionInput => "computed inside the reduction loop".into(),
            Reason::RowPass => "reduce read only at the current row: a row pass".into(),
            Reason::DotEpilogue => "dot whose output blocks the epilogue transforms".into(),
            Reason::TransposeAbsorbed => "transpose read through the dot's operand strides".into(),
            Reason::CopyAbsorbed => "copy read through the dot's operand strides".into(),
            Reason::WindowAbsorbed => {
                "patches read as a window of the sliced buffer (never written)".into()
            }
            Reason::UsersOutside { user } => {
                format!("used by {} outside the fusion", name(*user))
            }
            Reason::Buffer => "a buffer (parameter or constant)".into(),
            Reason::NotStrided => {
                "the dot cannot read its source through strides: materialized".into()
            }
            Reason::NotFusible(op) => format!("{op} runs as its own thunk"),
            Reason::PrefixScan => "a prefix scan, computed by a kernel of its own".into(),
            Reason::Unsupported(u) => format!("not compiled: {u}"),
            Reason::ExpensiveReused => {
                "expensive, and would be recomputed along a broadcast dimension".into()
            }
            Reason::WindowReused => {
                "expensive, and would be recomputed for every window tap or comparison".into()
            }
            Reason::CodeDuplication { emissions } => format!(
                "would be computed {emissions} times per element (through index-changing users)"
            ),
            Reason::ConvolutionOperand => {
                "a convolution operand, read for every output feature and tap".into()
            }
            Reason::CodeCopies { copies } => format!(
                "its code would be copied into {copies} operand slots of concatenates"
            ),
            Reason::ManyOperands { operands } => format!(
                "a concatenate of {operands} operands (more than {FUSED_CONCAT_OPERANDS} are copied one by one, not chosen per element)"
            ),
            Reason::InPlaceOperand => {
                "operand of an in-place dynamic-update-slice or scatter (its buffer is the output)"
                    .into()
            }
            Reason::NotRowPass(why) => format!("not a row pass: {why}"),
            Reason::NotEpilogue(why) => format!("not a dot epilogue: {why}"),
        }
    }
}

impl fmt::Display for PlanDisplay<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let name = |id: InstrId| self.comp.instr(id).name.as_str();
        let names = |ids: &[InstrId]| ids.iter().map(|&i| name(i)).collect::<Vec<_>>().join(", ");
        for (i, fusion) in self.plan.fusions.iter().enumerate() {
            write!(
                f,
                "fusion {i} ({}) root {} <- inputs ({})",
                fusion.kind.name(),
                name(fusion.root),
                names(&fusion.inputs)
            )?;
            if let Some(p) = fusion.in_place {
                write!(f, ", in place on {}", name(fusion.inputs[p.input]))?;
            }
            writeln!(f)?;
            for d in &fusion.decisions {
                match d {
                    FusionDecision::Fuse {
                        producer,
                        consumer,
                        reason,
                    } => writeln!(
                        f,
                        "  fuse {} into {}: {}",
                        name(*producer),
                        name(*consumer),
                        reason.describe(self.comp)
                    )?,
                    FusionDecision::Forbid {
                        producer,
                        consumer,
                        reason,
                    } => writeln!(
                        f,
                        "  keep {} out of {}: {}",
                        name(*producer),
                        name(*consumer),
                        reason.describe(self.comp)
                    )?,
                }
            }
        }
        if !self.plan.standalone.is_empty() {
            writeln!(f, "standalone")?;
        }
        for s in &self.plan.standalone {
            let why = match &s.reason {
                StandaloneReason::Parameter => "parameter".to_string(),
                StandaloneReason::Constant => "constant buffer".to_string(),
                StandaloneReason::Thunk(op) => format!("{op} thunk"),
                StandaloneReason::Unsupported(u) => format!("interpreted: {u}"),
                StandaloneReason::Unused => "unused".to_string(),
            };
            writeln!(f, "  {}: {why}", name(s.instr))?;
        }
        Ok(())
    }
}
