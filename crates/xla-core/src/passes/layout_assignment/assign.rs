//! The layout decisions for one computation: fixed layouts, a backward
//! sweep of requests from users, a forward sweep for the rest, and the
//! copies that required layouts make necessary (see the module
//! documentation of `layout_assignment`).

use super::rules::{self, with_layout, Rule};
use super::{row_major, Constraint, LayoutConstraints};
use crate::hlo::{HloComputation, HloInstruction, InstrId, Opcode, ProgramShape};
use crate::layout::Layout;
use crate::passes::PassError;
use crate::{ArrayShape, Shape};

/// What layout assignment decided for a computation.
pub(super) struct Plan {
    /// Every instruction's shape, with a layout on every array leaf.
    pub shapes: Vec<Shape>,
    /// Operands to replace by a copy in the given shape: `(user, operand
    /// index, shape)`.
    pub copies: Vec<(InstrId, usize, Shape)>,
    /// The shape the root must be copied into to match the computation's
    /// result layout, if it differs.
    pub root_copy: Option<Shape>,
}

/// A layout some user asked an instruction for.
#[derive(Clone, Debug)]
struct Request {
    shape: Shape,
    required: bool,
}

/// The state of the three sweeps over one computation.
struct Assigner<'a> {
    computation: &'a HloComputation,
    boundary: &'a ProgramShape,
    constraints: &'a dyn LayoutConstraints,
    decided: Vec<Option<Shape>>,
    requests: Vec<Vec<Request>>,
    /// The shape a `tuple` must have because a user requires it; its
    /// operands are then copied as needed.
    tuple_targets: Vec<Option<Shape>>,
}

/// Decides the layouts of `computation`, whose parameters and result have
/// the layouts of `boundary`.
pub(super) fn assign(
    computation: &HloComputation,
    boundary: &ProgramShape,
    constraints: &dyn LayoutConstraints,
) -> Result<Plan, PassError> {
    let n = computation.instructions.len();
    let mut a = Assigner {
        computation,
        boundary,
        constraints,
        decided: vec![None; n],
        requests: vec![Vec::new(); n],
        tuple_targets: vec![None; n],
    };
    for id in computation.ids() {
        a.decided[id.index()] = a.fixed(id)?;
    }
    a.requests[computation.root.index()].push(Request {
        shape: boundary.result.clone(),
        required: true,
    });
    for i in (0..n as u32).rev() {
        a.backward(InstrId(i))?;
    }
    for id in computation.ids() {
        if a.decided[id.index()].is_none() {
            let shape = a.forward(id)?;
            a.decided[id.index()] = Some(shape);
        }
    }
    let mut copies = Vec::new();
    for id in computation.ids() {
        for k in 0..computation.instr(id).operands.len() {
            if let Some(target) = a.required_operand(id, k)? {
                let operand = computation.instr(id).operands[k];
                if !a.shape(operand).eq_with_layout(&target) {
                    copies.push((id, k, target));
                }
            }
        }
    }
    let root = a.shape(computation.root);
    let root_copy = (!root.eq_with_layout(&boundary.result)).then(|| boundary.result.clone());
    let shapes = a
        .decided
        .into_iter()
        .map(|s| s.expect("every instruction is decided"))
        .collect();
    Ok(Plan {
        shapes,
        copies,
        root_copy,
    })
}

impl Assigner<'_> {
    fn instr(&self, id: InstrId) -> &HloInstruction {
        self.computation.instr(id)
    }

    /// The decided shape of `id` (all operands of an instruction being
    /// decided forwards are decided).
    fn shape(&self, id: InstrId) -> &Shape {
        self.decided[id.index()]
            .as_ref()
            .expect("operands are decided before their users")
    }

    /// The layout fixed for the result of `id` regardless of its users: by
    /// its op, or required by the backend. A tuple is its operands' buffers
    /// and a get-tuple-element part of its operand's: their layouts follow,
    /// never lead.
    fn fixed(&self, id: InstrId) -> Result<Option<Shape>, PassError> {
        let instr = self.instr(id);
        if let Some(shape) = rules::fixed_result(instr, self.boundary) {
            return Ok(Some(shape));
        }
        if matches!(rules::rule(instr), Rule::Tuple | Rule::Forward) {
            return Ok(None);
        }
        Ok(match self.backend_result(id)? {
            Some(Constraint::Require(layout)) => Some(with_layout(&instr.shape, layout)),
            _ => None,
        })
    }

    /// The backend's constraint on the array result of `id`, checked
    /// against its dimensions.
    fn backend_result(&self, id: InstrId) -> Result<Option<Constraint>, PassError> {
        let instr = self.instr(id);
        let Shape::Array(array) = &instr.shape else {
            return Ok(None);
        };
        let operands: Vec<&Shape> = instr
            .operands
            .iter()
            .map(|&o| &self.instr(o).shape)
            .collect();
        let constraint = self.constraints.result_layout(instr, &operands);
        check(instr, "the result", array, &constraint)?;
        Ok(Some(constraint))
    }

    /// The backend's constraint on operand `k` of `id`, checked against its
    /// dimensions.
    fn backend_operand(
        &self,
        id: InstrId,
        k: usize,
        operand: &ArrayShape,
        result: &Shape,
    ) -> Result<Constraint, PassError> {
        let instr = self.instr(id);
        let constraint = self.constraints.operand_layout(instr, k, operand, result);
        check(instr, &format!("operand {k}"), operand, &constraint)?;
        Ok(constraint)
    }

    /// The backward step for `id`: decide it from its requests if it is not
    /// fixed, then pass requests on to its operands. A tuple passes its
    /// strongest request on element by element; a get-tuple-element waits
    /// for the forward sweep.
    fn backward(&mut self, id: InstrId) -> Result<(), PassError> {
        let i = id.index();
        match rules::rule(self.instr(id)) {
            Rule::Tuple => {
                let Some(wanted) = self.strongest_request(i) else {
                    return Ok(());
                };
                if wanted.required {
                    self.tuple_targets[i] = Some(wanted.shape.clone());
                }
                let elements = wanted.shape.tuple_shapes().unwrap_or_default().to_vec();
                let operands = self.instr(id).operands.clone();
                for (operand, element) in operands.into_iter().zip(elements) {
                    self.requests[operand.index()].push(Request {
                        shape: element,
                        required: wanted.required,
                    });
                }
                return Ok(());
            }
            Rule::Forward => return Ok(()),
            _ => {}
        }
        if self.decided[i].is_none() {
            self.decided[i] = self.choose(id)?;
        }
        let Some(result) = self.decided[i].clone() else {
            return Ok(());
        };
        let operands = self.instr(id).operands.clone();
        for (k, operand) in operands.into_iter().enumerate() {
            if let Some(request) = self.operand_request(id, k, &result)? {
                self.requests[operand.index()].push(request);
            }
        }
        Ok(())
    }

    /// A required request if any, else the most common preferred one (the
    /// first among equals).
    fn strongest_request(&self, i: usize) -> Option<Request> {
        let requests = &self.requests[i];
        if let Some(required) = requests.iter().find(|r| r.required) {
            return Some(required.clone());
        }
        let votes = |r: &Request| {
            let same = |o: &&Request| o.shape.eq_with_layout(&r.shape);
            requests.iter().filter(same).count()
        };
        let best = requests.iter().map(votes).max()?;
        requests.iter().find(|r| votes(r) == best).cloned()
    }

    /// The layout of an instruction that is not fixed, from its users'
    /// requests: a required one, else the backend's preferred result
    /// layout, else the users' preferred one (none: wait for the forward
    /// sweep).
    fn choose(&self, id: InstrId) -> Result<Option<Shape>, PassError> {
        let wanted = self.strongest_request(id.index());
        if let Some(request) = wanted.as_ref().filter(|r| r.required) {
            return Ok(Some(request.shape.clone()));
        }
        if let Some(Constraint::Prefer(layout)) = self.backend_result(id)? {
            return Ok(Some(with_layout(&self.instr(id).shape, layout)));
        }
        Ok(wanted.map(|r| r.shape))
    }

    /// What `id`, whose result has shape `result`, asks of operand `k`: a
    /// fixed layout, else the backend's constraint, else the generic
    /// preference.
    fn operand_request(
        &self,
        id: InstrId,
        k: usize,
        result: &Shape,
    ) -> Result<Option<Request>, PassError> {
        let instr = self.instr(id);
        let operand = &self.instr(instr.operands[k]).shape;
        if let Some(shape) = rules::fixed_operand(instr, k, operand) {
            let required = true;
            return Ok(Some(Request { shape, required }));
        }
        let Shape::Array(array) = operand else {
            return Ok(None);
        };
        let request = |layout: Layout, required: bool| Request {
            shape: with_layout(operand, layout),
            required,
        };
        let unlaid = array.clone().without_layout();
        Ok(match self.backend_operand(id, k, &unlaid, result)? {
            Constraint::Require(layout) => Some(request(layout, true)),
            Constraint::Prefer(layout) => Some(request(layout, false)),
            Constraint::Free => result
                .as_array()
                .and_then(|result| rules::preferred_operand(instr, array, result))
                .map(|layout| request(layout, false)),
        })
    }

    /// The forward decision for `id`, whose operands are all decided.
    fn forward(&self, id: InstrId) -> Result<Shape, PassError> {
        let instr = self.instr(id);
        let operands: Vec<&Shape> = instr.operands.iter().map(|&o| self.shape(o)).collect();
        match rules::rule(instr) {
            Rule::Tuple => {
                let own = || Shape::Tuple(operands.iter().map(|&s| s.clone()).collect());
                return Ok(self.tuple_targets[id.index()].clone().unwrap_or_else(own));
            }
            Rule::Forward => {
                return Ok(match (instr.opcode, instr.attrs.tuple_index) {
                    (Opcode::GetTupleElement, Some(index)) => operands[0]
                        .tuple_shapes()
                        .and_then(|t| t.get(index as usize))
                        .cloned()
                        .unwrap_or_else(|| row_major(instr.shape.clone())),
                    _ => operands[0].clone(),
                });
            }
            _ => {}
        }
        if let Some(Constraint::Prefer(layout)) = self.backend_result(id)? {
            return Ok(with_layout(&instr.shape, layout));
        }
        let Shape::Array(result) = &instr.shape else {
            return Ok(rules::preferred_tuple_result(instr, &operands));
        };
        let layout = rules::preferred_result(instr, result, &operands)
            .unwrap_or_else(|| Layout::default_for_rank(result.rank()));
        Ok(with_layout(&instr.shape, layout))
    }

    /// The layout operand `k` of `id` must have once everything is decided:
    /// a fixed one, a required tuple shape, or the backend's requirement.
    fn required_operand(&self, id: InstrId, k: usize) -> Result<Option<Shape>, PassError> {
        let instr = self.instr(id);
        if let Some(shape) = rules::fixed_operand(instr, k, &self.instr(instr.operands[k]).shape) {
            return Ok(Some(shape));
        }
        if let Some(target) = &self.tuple_targets[id.index()] {
            return Ok(target.tuple_shapes().and_then(|t| t.get(k)).cloned());
        }
        let operand = self.shape(instr.operands[k]);
        let Shape::Array(array) = operand else {
            return Ok(None);
        };
        Ok(match self.backend_operand(id, k, array, self.shape(id))? {
            Constraint::Require(layout) => Some(with_layout(operand, layout)),
            Constraint::Prefer(_) | Constraint::Free => None,
        })
    }
}

/// Checks a backend's layout against the dimensions it constrains.
fn check(
    instr: &HloInstruction,
    what: &str,
    array: &ArrayShape,
    constraint: &Constraint,
) -> Result<(), PassError> {
    match constraint {
        Constraint::Prefer(layout) | Constraint::Require(layout) => layout
            .validate(array.dims())
            .map_err(|source| PassError::InvalidConstraint {
                instruction: instr.name.clone(),
                what: what.to_string(),
                shape: Box::new(Shape::Array(array.clone().without_layout())),
                source: Box::new(source),
            }),
        Constraint::Free => Ok(()),
    }
}
