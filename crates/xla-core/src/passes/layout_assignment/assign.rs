//! The layout decisions for one computation: fixed layouts, a backward
//! sweep of requests from users, a forward sweep for the rest, and the
//! copies that required layouts make necessary.

use super::physical;
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

/// How an op relates its operands' layouts to its result's: the generic
/// propagation rules and the fixed layouts.
#[derive(Copy, Clone, PartialEq, Eq, Debug)]
enum Rule {
    /// Operands of the result's rank share its layout; the others (scalar
    /// operands, indices) are free.
    SameLayout,
    /// The operand's layout permuted.
    Transpose,
    /// A layout under which the reshape moves no byte, if one exists.
    Reshape,
    /// The operand's dimensions keep their relative order.
    Broadcast,
    /// The kept dimensions keep their relative order.
    Reduce,
    /// `tuple`: the result is its operands' buffers.
    Tuple,
    /// `get-tuple-element`, `opt-barrier`: the result is (part of) the
    /// operand.
    Forward,
    /// `while`, `conditional`, `call`, `fusion`: the callee's boundary is
    /// row-major.
    Call,
    /// Buffers seen outside the program: layouts as written.
    External,
    /// `bitcast`: its meaning depends on the layouts written on both sides.
    Bitcast,
    /// The computation's parameters.
    Parameter,
    /// No relation: operands free, result row-major unless asked otherwise.
    Opaque,
}

fn rule(instr: &HloInstruction) -> Rule {
    use Opcode::*;
    match instr.opcode {
        Abs | Add | And | Atan2 | BitcastConvert | Cbrt | Ceil | Clamp | Clz | Compare
        | Complex | Concatenate | Convert | Copy | Cos | Divide | DynamicSlice
        | DynamicUpdateSlice | Erf | Exp | Expm1 | Floor | Imag | IsFinite | Log | Log1p
        | Logistic | Map | Maximum | Minimum | Multiply | Negate | Not | Or | Pad
        | PopulationCount | Power | Real | ReducePrecision | ReduceWindow | Remainder | Reverse
        | RoundNearestAfz | RoundNearestEven | Rsqrt | Scatter | Select | SelectAndScatter
        | SetDimensionSize | ShiftLeft | ShiftRightArithmetic | ShiftRightLogical | Sign | Sin
        | Slice | Sort | Sqrt | Subtract | Tan | Tanh | Xor => Rule::SameLayout,
        AllGather | AllReduce | AllToAll | ReduceScatter => {
            if instr.attrs.constrain_layout {
                Rule::External
            } else {
                Rule::SameLayout
            }
        }
        CollectivePermute => Rule::SameLayout,
        Transpose => Rule::Transpose,
        Reshape => Rule::Reshape,
        Broadcast => Rule::Broadcast,
        Reduce => Rule::Reduce,
        Tuple => Rule::Tuple,
        GetTupleElement | OptimizationBarrier => Rule::Forward,
        Call | Conditional | Fusion | While => Rule::Call,
        CustomCall | Infeed | Outfeed | Recv | RecvDone | Send | SendDone => Rule::External,
        Bitcast => Rule::Bitcast,
        Parameter => Rule::Parameter,
        AfterAll | BatchNormGrad | BatchNormInference | BatchNormTraining | Cholesky | Constant
        | Convolution | Dot | Fft | Gather | GetDimensionSize | Iota | PartitionId | ReplicaId
        | Rng | RngBitGenerator | TopK | TriangularSolve => Rule::Opaque,
    }
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

/// `shape` (an array) with `layout`.
fn with_layout(shape: &Shape, layout: Layout) -> Shape {
    match shape {
        Shape::Array(a) => Shape::Array(a.clone().with_layout(layout)),
        other => other.clone(),
    }
}

/// The minor-to-major order of `layout` alone: what generic preferences
/// carry over (tiles and padding stay where they are required).
fn dense(layout: &Layout) -> Layout {
    Layout::new(layout.minor_to_major.clone())
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

    /// The layout fixed for the result of `id` regardless of its users, if
    /// any.
    fn fixed(&self, id: InstrId) -> Result<Option<Shape>, PassError> {
        let instr = self.instr(id);
        Ok(match rule(instr) {
            Rule::Parameter => {
                let number = instr.attrs.parameter_number.unwrap_or(0) as usize;
                Some(self.boundary.parameters[number].clone())
            }
            Rule::External | Rule::Bitcast => Some(instr.shape.clone().with_default_layouts()),
            Rule::Call => Some(row_major(instr.shape.clone())),
            // A tuple is its operands' buffers and a get-tuple-element is
            // part of its operand's: their layouts follow, never lead.
            Rule::Tuple | Rule::Forward => None,
            _ => match self.backend_result(id)? {
                Some(Constraint::Require(layout)) => Some(with_layout(&instr.shape, layout)),
                _ => None,
            },
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
        self.check(instr, "the result", array, &constraint)?;
        Ok(Some(constraint))
    }

    fn check(
        &self,
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

    /// The backward step for `id`: decide it from its requests if it is not
    /// fixed, then pass requests on to its operands.
    fn backward(&mut self, id: InstrId) -> Result<(), PassError> {
        let i = id.index();
        match rule(self.instr(id)) {
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
            requests
                .iter()
                .filter(|o| o.shape.eq_with_layout(&r.shape))
                .count()
        };
        let best = requests.iter().map(votes).max()?;
        requests.iter().find(|r| votes(r) == best).cloned()
    }

    /// The layout of an instruction that is not fixed, from its users'
    /// requests: a required one, else the backend's preferred result
    /// layout, else the users' preferred one.
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

    /// What `id`, whose result has shape `result`, asks of operand `k`.
    fn operand_request(
        &self,
        id: InstrId,
        k: usize,
        result: &Shape,
    ) -> Result<Option<Request>, PassError> {
        if let Some(shape) = self.mandatory_operand(id, k) {
            return Ok(Some(Request {
                shape,
                required: true,
            }));
        }
        let operand = &self.instr(self.instr(id).operands[k]).shape;
        let Shape::Array(array) = operand else {
            return Ok(None);
        };
        let request = |layout: Layout, required: bool| Request {
            shape: with_layout(operand, layout),
            required,
        };
        Ok(
            match self.backend_operand(id, k, &array.clone().without_layout(), result)? {
                Constraint::Require(layout) => Some(request(layout, true)),
                Constraint::Prefer(layout) => Some(request(layout, false)),
                Constraint::Free => self
                    .generic_operand(id, k, array, result)
                    .map(|layout| request(layout, false)),
            },
        )
    }

    fn backend_operand(
        &self,
        id: InstrId,
        k: usize,
        operand: &ArrayShape,
        result: &Shape,
    ) -> Result<Constraint, PassError> {
        let instr = self.instr(id);
        let constraint = self.constraints.operand_layout(instr, k, operand, result);
        self.check(instr, &format!("operand {k}"), operand, &constraint)?;
        Ok(constraint)
    }

    /// The layout operand `k` of `id` must have by the fixed rules (the
    /// module documentation), if any.
    fn mandatory_operand(&self, id: InstrId, k: usize) -> Option<Shape> {
        let instr = self.instr(id);
        let operand = &self.instr(instr.operands[k]).shape;
        match (rule(instr), instr.opcode) {
            (Rule::Call, Opcode::Conditional) if k == 0 => None,
            (Rule::Call, _) => Some(row_major(operand.clone())),
            (Rule::External, Opcode::CustomCall) => Some(
                match instr
                    .attrs
                    .operand_layout_constraints
                    .as_ref()
                    .and_then(|c| c.get(k))
                {
                    Some(given) => given.clone().with_default_layouts(),
                    None => row_major(operand.clone()),
                },
            ),
            (Rule::External, Opcode::Outfeed) if k == 0 => Some(
                instr
                    .attrs
                    .outfeed_shape
                    .clone()
                    .unwrap_or_else(|| operand.clone())
                    .with_default_layouts(),
            ),
            (Rule::External, Opcode::Send) if k == 0 => instr
                .shape
                .tuple_shapes()
                .and_then(|t| t.first())
                .map(|data| data.clone().with_default_layouts()),
            (Rule::External, Opcode::AllGather | Opcode::AllReduce)
            | (Rule::External, Opcode::AllToAll | Opcode::ReduceScatter)
            | (Rule::Bitcast, _) => Some(operand.clone().with_default_layouts()),
            _ => None,
        }
    }

    /// The generic preference of `id` (result `result`) for its array
    /// operand `k`.
    fn generic_operand(
        &self,
        id: InstrId,
        k: usize,
        operand: &ArrayShape,
        result: &Shape,
    ) -> Option<Layout> {
        let instr = self.instr(id);
        let Shape::Array(result) = result else {
            return None;
        };
        let layout = dense(&result.layout_or_default());
        let dimensions = instr.attrs.dimensions.as_deref().unwrap_or_default();
        match rule(instr) {
            Rule::SameLayout => (operand.rank() == result.rank()).then_some(layout),
            Rule::Transpose => Some(physical::transpose_operand(&layout, dimensions)),
            Rule::Broadcast => Some(physical::broadcast_operand(&layout, dimensions)),
            Rule::Reshape => {
                let result = result.clone().with_layout(layout);
                physical::reshape_layout(&result, operand.dims())
            }
            Rule::Reduce
            | Rule::Tuple
            | Rule::Forward
            | Rule::Call
            | Rule::External
            | Rule::Bitcast
            | Rule::Parameter
            | Rule::Opaque => {
                let _ = k;
                None
            }
        }
    }

    /// The forward decision for `id`, whose operands are all decided.
    fn forward(&self, id: InstrId) -> Result<Shape, PassError> {
        let instr = self.instr(id);
        let operand = |k: usize| self.shape(instr.operands[k]);
        match rule(instr) {
            Rule::Tuple => {
                return Ok(self.tuple_targets[id.index()].clone().unwrap_or_else(|| {
                    Shape::Tuple(
                        (0..instr.operands.len())
                            .map(|k| operand(k).clone())
                            .collect(),
                    )
                }))
            }
            Rule::Forward => {
                let source = operand(0);
                return Ok(match (instr.opcode, instr.attrs.tuple_index) {
                    (Opcode::GetTupleElement, Some(index)) => source
                        .tuple_shapes()
                        .and_then(|t| t.get(index as usize))
                        .cloned()
                        .unwrap_or_else(|| row_major(instr.shape.clone())),
                    _ => source.clone(),
                });
            }
            _ => {}
        }
        if let Some(Constraint::Prefer(layout)) = self.backend_result(id)? {
            return Ok(with_layout(&instr.shape, layout));
        }
        let Shape::Array(result) = &instr.shape else {
            return Ok(self.forward_tuple(id));
        };
        let dimensions = instr.attrs.dimensions.as_deref().unwrap_or_default();
        let first = instr
            .operands
            .first()
            .and_then(|&o| self.shape(o).as_array());
        let from_first = |f: &dyn Fn(&ArrayShape) -> Option<Layout>| first.and_then(f);
        let layout = match rule(instr) {
            Rule::SameLayout => instr
                .operands
                .iter()
                .filter_map(|&o| self.shape(o).as_array())
                .find(|a| a.rank() == result.rank())
                .map(|a| dense(&a.layout_or_default())),
            Rule::Transpose => from_first(&|a| {
                Some(physical::transpose_result(
                    &dense(&a.layout_or_default()),
                    dimensions,
                ))
            }),
            Rule::Broadcast => from_first(&|a| {
                let layout = dense(&a.layout_or_default());
                Some(physical::broadcast_result(
                    &layout,
                    dimensions,
                    result.rank(),
                ))
            }),
            Rule::Reduce => from_first(&|a| {
                Some(physical::reduce_result(
                    &dense(&a.layout_or_default()),
                    dimensions,
                ))
            }),
            Rule::Reshape => from_first(&|a| physical::reshape_layout(a, result.dims())),
            Rule::Tuple
            | Rule::Forward
            | Rule::Call
            | Rule::External
            | Rule::Bitcast
            | Rule::Parameter
            | Rule::Opaque => None,
        };
        Ok(with_layout(
            &instr.shape,
            layout.unwrap_or_else(|| Layout::default_for_rank(result.rank())),
        ))
    }

    /// The forward decision for an op with a tuple result: a variadic
    /// reduce keeps each operand's order in its result, everything else is
    /// row-major.
    fn forward_tuple(&self, id: InstrId) -> Shape {
        let instr = self.instr(id);
        let (Rule::Reduce, Some(results), Some(dimensions)) = (
            rule(instr),
            instr.shape.tuple_shapes(),
            instr.attrs.dimensions.as_deref(),
        ) else {
            return row_major(instr.shape.clone());
        };
        Shape::Tuple(
            results
                .iter()
                .enumerate()
                .map(
                    |(k, element)| match self.shape(instr.operands[k]).as_array() {
                        Some(input) => {
                            let layout = dense(&input.layout_or_default());
                            with_layout(element, physical::reduce_result(&layout, dimensions))
                        }
                        None => row_major(element.clone()),
                    },
                )
                .collect(),
        )
    }

    /// The layout operand `k` of `id` must have once everything is decided:
    /// fixed rules, a required tuple shape, or the backend's requirement.
    fn required_operand(&self, id: InstrId, k: usize) -> Result<Option<Shape>, PassError> {
        if let Some(shape) = self.mandatory_operand(id, k) {
            return Ok(Some(shape));
        }
        if let Some(target) = &self.tuple_targets[id.index()] {
            return Ok(target.tuple_shapes().and_then(|t| t.get(k)).cloned());
        }
        let operand = self.shape(self.instr(id).operands[k]);
        let Shape::Array(array) = operand else {
            return Ok(None);
        };
        let result = self.shape(id);
        Ok(match self.backend_operand(id, k, array, result)? {
            Constraint::Require(layout) => Some(with_layout(operand, layout)),
            Constraint::Prefer(_) | Constraint::Free => None,
        })
    }
}
