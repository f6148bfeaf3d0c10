//! The HLO IR: a module of named computations, each a list of instructions
//! in SSA form.
//!
//! Instructions of a computation live in one `Vec`, in an order where every
//! operand comes before its users; [`InstrId`] indexes that `Vec`. Called
//! computations (`to_apply`, `condition`/`body`, branches, …) are
//! [`ComputationId`]s into the module's list.

mod attrs;
mod opcode;

use std::fmt;

pub use attrs::{
    scan_init_is_neutral, Attrs, ComparisonDirection, ComparisonType, ConvDimensionNumbers,
    DotDimensionNumbers, FftType, GatherDimensionNumbers, InputOutputAlias, OutputOperandAlias,
    PadDim, RngAlgorithm, RngDistribution, Scan, ScatterDimensionNumbers, SliceDim, TransposeKind,
    TriangularSolveOptions, Window, WindowDim, REVERSE_SCAN_MIN,
};
pub(crate) use opcode::op_table;
pub use opcode::{Arity, Cost, Family, Flags, Form, Opcode, Produces};

use crate::{PrimitiveType, Shape};

/// An instruction's position in its computation.
#[derive(Copy, Clone, PartialEq, Eq, Hash, Debug, PartialOrd, Ord)]
pub struct InstrId(pub u32);

impl InstrId {
    /// The index into [`HloComputation::instructions`].
    pub fn index(self) -> usize {
        self.0 as usize
    }
}

/// A computation's position in its module.
#[derive(Copy, Clone, PartialEq, Eq, Hash, Debug, PartialOrd, Ord)]
pub struct ComputationId(pub u32);

impl ComputationId {
    /// The index into [`HloModule::computations`].
    pub fn index(self) -> usize {
        self.0 as usize
    }
}

/// One operation in a computation.
#[derive(Clone, PartialEq, Debug)]
pub struct HloInstruction {
    /// Unique within the module, e.g. `add.3`.
    pub name: String,
    /// What it computes.
    pub opcode: Opcode,
    /// The result shape (with layouts).
    pub shape: Shape,
    /// Operands, by position in the same computation.
    pub operands: Vec<InstrId>,
    /// Called computations, in the op's order: `to_apply` for most ops;
    /// `[condition, body]` for while; the branches for conditional
    /// (`[true, false]` in the predicate form); `[select, scatter]` for
    /// select-and-scatter; `[calls]` for fusion and custom-call.
    pub called: Vec<ComputationId>,
    /// Compile-time arguments.
    pub attrs: Attrs,
}

impl HloInstruction {
    /// An instruction with no called computations and no attributes.
    pub fn new(
        name: impl Into<String>,
        opcode: Opcode,
        shape: Shape,
        operands: Vec<InstrId>,
    ) -> Self {
        HloInstruction {
            name: name.into(),
            opcode,
            shape,
            operands,
            called: Vec::new(),
            attrs: Attrs::default(),
        }
    }

    /// XLA:CPU's `custom-call(x), custom_call_target="TopK"` (what its
    /// optimized modules make of `lax.top_k`: the `k` largest values of
    /// each row of `x` and their `s32` indices, in the total order, ties by
    /// lower index, as its comparator says) as the `topk(x), k=…,
    /// largest=true` instruction that computes the same; `None` for any
    /// other instruction.
    pub fn xla_topk_as_topk(&self) -> Option<HloInstruction> {
        if self.opcode != Opcode::CustomCall
            || self.attrs.custom_call_target.as_deref() != Some("TopK")
            || self.operands.len() != 1
        {
            return None;
        }
        let Shape::Tuple(parts) = &self.shape else {
            return None;
        };
        let [values, indices] = parts.as_slice() else {
            return None;
        };
        let (values, indices) = (values.as_array()?, indices.as_array()?);
        if indices.element_type() != PrimitiveType::S32 || values.dims() != indices.dims() {
            return None;
        }
        let mut topk = HloInstruction::new(
            self.name.clone(),
            Opcode::TopK,
            self.shape.clone(),
            self.operands.clone(),
        );
        topk.attrs.k = Some(*values.dims().last()?);
        topk.attrs.largest = Some(true);
        Some(topk)
    }
}

/// A named sub-program: parameters, instructions, a root.
#[derive(Clone, PartialEq, Debug)]
pub struct HloComputation {
    /// Unique within the module.
    pub name: String,
    /// In an order where operands precede their users.
    pub instructions: Vec<HloInstruction>,
    /// The instruction whose value the computation returns.
    pub root: InstrId,
}

impl HloComputation {
    /// The instruction at `id`.
    pub fn instr(&self, id: InstrId) -> &HloInstruction {
        &self.instructions[id.index()]
    }

    /// The instruction at `id`, mutably.
    pub fn instr_mut(&mut self, id: InstrId) -> &mut HloInstruction {
        &mut self.instructions[id.index()]
    }

    /// The root instruction.
    pub fn root_instr(&self) -> &HloInstruction {
        self.instr(self.root)
    }

    /// The op when the computation is `op(p0, p1)` of its two parameters
    /// (in either order for a commutative op), as reducers are: what a
    /// backend recognizes to vectorize a reduction.
    pub fn binary_of_parameters(&self) -> Option<Opcode> {
        let root = self.root_instr();
        let number = |k: usize| {
            let operand = self.instr(*root.operands.get(k)?);
            (operand.opcode == Opcode::Parameter)
                .then_some(operand.attrs.parameter_number)
                .flatten()
        };
        let in_order = (number(0)?, number(1)?) == (0, 1);
        let swapped = (number(0)?, number(1)?) == (1, 0);
        let binary = matches!(root.opcode.form(), Form::Binary(..)) && root.operands.len() == 2;
        (binary && (in_order || swapped && root.opcode.has(Flags::COMMUTATIVE)))
            .then_some(root.opcode)
    }

    /// All instruction ids, in order.
    pub fn ids(&self) -> impl Iterator<Item = InstrId> {
        (0..self.instructions.len() as u32).map(InstrId)
    }

    /// The parameter instructions, ordered by parameter number.
    pub fn parameters(&self) -> Vec<InstrId> {
        let mut params: Vec<(i64, InstrId)> = self
            .ids()
            .filter_map(|id| {
                let instr = self.instr(id);
                (instr.opcode == Opcode::Parameter)
                    .then(|| (instr.attrs.parameter_number.unwrap_or(0), id))
            })
            .collect();
        params.sort();
        params.into_iter().map(|(_, id)| id).collect()
    }

    /// Parameter shapes and result shape.
    pub fn program_shape(&self) -> ProgramShape {
        ProgramShape {
            parameters: self
                .parameters()
                .into_iter()
                .map(|id| self.instr(id).shape.clone())
                .collect(),
            result: self.root_instr().shape.clone(),
        }
    }

    /// For every instruction, the instructions that use it (in order, once
    /// per use).
    pub fn users(&self) -> Vec<Vec<InstrId>> {
        let mut users = vec![Vec::new(); self.instructions.len()];
        for id in self.ids() {
            for &op in &self.instr(id).operands {
                users[op.index()].push(id);
            }
        }
        users
    }
}

/// The parameter and result shapes of a computation.
#[derive(Clone, PartialEq, Eq, Hash, Debug)]
pub struct ProgramShape {
    /// Parameter shapes, by parameter number.
    pub parameters: Vec<Shape>,
    /// The result shape.
    pub result: Shape,
}

impl fmt::Display for ProgramShape {
    /// `(f32[4,8]{1,0}, f32[8,16]{1,0}) -> f32[4]{0}`
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("(")?;
        for (i, p) in self.parameters.iter().enumerate() {
            if i > 0 {
                f.write_str(", ")?;
            }
            write!(f, "{p}")?;
        }
        write!(f, ") -> {}", self.result)
    }
}

impl ProgramShape {
    /// The same signature with every array leaf given an explicit default
    /// layout where it has none.
    pub fn with_default_layouts(self) -> Self {
        ProgramShape {
            parameters: self
                .parameters
                .into_iter()
                .map(Shape::with_default_layouts)
                .collect(),
            result: self.result.with_default_layouts(),
        }
    }
}

/// A module: computations, one of which is the entry.
#[derive(Clone, PartialEq, Debug)]
pub struct HloModule {
    /// The module name (`HloModule jit_f`).
    pub name: String,
    /// Every computation; callees may come before or after callers.
    pub computations: Vec<HloComputation>,
    /// The entry computation.
    pub entry: ComputationId,
    /// `entry_computation_layout={…}` from the header, if given: the layouts
    /// the caller's buffers have.
    pub entry_layout: Option<ProgramShape>,
    /// Number of replicas running the module (`replica_count=` in the
    /// header; 1 when absent).
    pub replica_count: i64,
    /// Number of partitions running the module (`num_partitions=` in the
    /// header; 1 when absent).
    pub num_partitions: i64,
    /// Result parts that may take a parameter's buffer
    /// (`input_output_alias=` in the header).
    pub input_output_alias: Vec<InputOutputAlias>,
}

impl HloModule {
    /// A module run by one replica and one partition, without an
    /// `entry_computation_layout`.
    pub fn new(
        name: impl Into<String>,
        computations: Vec<HloComputation>,
        entry: ComputationId,
    ) -> Self {
        HloModule {
            name: name.into(),
            computations,
            entry,
            entry_layout: None,
            replica_count: 1,
            num_partitions: 1,
            input_output_alias: Vec::new(),
        }
    }

    /// The computation at `id`.
    pub fn computation(&self, id: ComputationId) -> &HloComputation {
        &self.computations[id.index()]
    }

    /// The computation at `id`, mutably.
    pub fn computation_mut(&mut self, id: ComputationId) -> &mut HloComputation {
        &mut self.computations[id.index()]
    }

    /// The entry computation.
    pub fn entry_computation(&self) -> &HloComputation {
        self.computation(self.entry)
    }

    /// How deep computations nest below the entry: 1 for an entry that
    /// calls nothing, one more for each level of called computations along
    /// the deepest chain. `None` if the calls form a cycle or name a
    /// computation that does not exist (the verifier reports which).
    pub fn call_depth(&self) -> Option<usize> {
        let mut depth = vec![0usize; self.computations.len()];
        for c in self.callees_first().ok()? {
            let below = self.computations[c]
                .instructions
                .iter()
                .flat_map(|i| &i.called)
                .map(|id| depth[id.index()])
                .max()
                .unwrap_or(0);
            depth[c] = below + 1;
        }
        depth.get(self.entry.index()).copied()
    }

    /// For each computation, the instructions it would have with every
    /// call site of a computation inside it (calls, loop bodies, branches,
    /// reducers, …) replaced by its own copy of the callee, recursively:
    /// what inlining or lowering each call site separately produces, which
    /// grows exponentially when computations call a shared one more than
    /// once per level. Saturates at `u64::MAX`; `None` as for
    /// [`call_depth`](Self::call_depth).
    pub fn expanded_sizes(&self) -> Option<Vec<u64>> {
        let mut size = vec![0u64; self.computations.len()];
        for c in self.callees_first().ok()? {
            let instructions = &self.computations[c].instructions;
            size[c] = instructions
                .iter()
                .flat_map(|i| &i.called)
                .fold(instructions.len() as u64, |total, id| {
                    total.saturating_add(size[id.index()])
                });
        }
        Some(size)
    }

    /// Every computation (the entry's callees and the others), each after
    /// the computations it calls. `Err(Some(cycle))` names the computations
    /// on a cycle of calls (the first repeated at the end), `Err(None)` a
    /// callee that does not exist.
    pub(crate) fn callees_first(&self) -> Result<Vec<usize>, Option<Vec<usize>>> {
        let count = self.computations.len();
        let callees = |c: usize| -> Vec<usize> {
            let mut ids: Vec<usize> = self.computations[c]
                .instructions
                .iter()
                .flat_map(|i| i.called.iter().map(|id| id.index()))
                .collect();
            ids.sort_unstable();
            ids.dedup();
            ids
        };
        #[derive(Clone, Copy, PartialEq)]
        enum Mark {
            New,
            OnPath,
            Done,
        }
        let mut marks = vec![Mark::New; count];
        let mut order = Vec::with_capacity(count);
        for start in 0..count {
            if marks[start] != Mark::New {
                continue;
            }
            // Iterative depth-first search: (computation, its callees, next).
            let mut path = vec![(start, callees(start), 0usize)];
            marks[start] = Mark::OnPath;
            while let Some((node, next_callees, next)) = path.last_mut() {
                let Some(&callee) = next_callees.get(*next) else {
                    marks[*node] = Mark::Done;
                    order.push(*node);
                    path.pop();
                    continue;
                };
                *next += 1;
                match marks.get(callee) {
                    None => return Err(None),
                    Some(Mark::OnPath) => {
                        let from = path.iter().position(|p| p.0 == callee).unwrap_or(0);
                        let mut cycle: Vec<usize> = path[from..].iter().map(|p| p.0).collect();
                        cycle.push(callee);
                        return Err(Some(cycle));
                    }
                    Some(Mark::New) => {
                        marks[callee] = Mark::OnPath;
                        path.push((callee, callees(callee), 0));
                    }
                    Some(Mark::Done) => {}
                }
            }
        }
        Ok(order)
    }

    /// The module of computation `id` alone: it as the entry, with every
    /// computation it calls (directly or not), renumbered.
    pub fn extract(&self, id: ComputationId) -> HloModule {
        let mut keep = vec![false; self.computations.len()];
        let mut stack = vec![id.index()];
        while let Some(c) = stack.pop() {
            if std::mem::replace(&mut keep[c], true) {
                continue;
            }
            let called = self.computations[c]
                .instructions
                .iter()
                .flat_map(|i| &i.called);
            stack.extend(called.map(|callee| callee.index()).filter(|&k| !keep[k]));
        }
        let mut renumber = vec![ComputationId(0); self.computations.len()];
        let mut computations = Vec::new();
        for (c, computation) in self.computations.iter().enumerate() {
            if keep[c] {
                renumber[c] = ComputationId(computations.len() as u32);
                computations.push(computation.clone());
            }
        }
        for instr in computations.iter_mut().flat_map(|c| &mut c.instructions) {
            for callee in &mut instr.called {
                *callee = renumber[callee.index()];
            }
        }
        HloModule::new(self.name.clone(), computations, renumber[id.index()])
    }

    /// All computation ids, in order.
    pub fn computation_ids(&self) -> impl Iterator<Item = ComputationId> {
        (0..self.computations.len() as u32).map(ComputationId)
    }

    /// Looks a computation up by name.
    pub fn find_computation(&self, name: &str) -> Option<ComputationId> {
        self.computation_ids()
            .find(|&id| self.computation(id).name == name)
    }

    /// The entry signature with the layouts callers use: the
    /// `entry_computation_layout` if given, else the entry's own shapes.
    pub fn entry_program_shape(&self) -> ProgramShape {
        self.entry_layout
            .clone()
            .unwrap_or_else(|| self.entry_computation().program_shape())
    }

    /// The module as XLA's parser builds it: every array shape without a
    /// layout gets the default one (minor-to-major `{rank-1,…,0}`), and a
    /// module without an `entry_computation_layout` gets its entry
    /// signature as one. The values it computes are unchanged.
    pub fn with_default_layouts(mut self) -> Self {
        for computation in &mut self.computations {
            for instr in &mut computation.instructions {
                instr.shape =
                    std::mem::replace(&mut instr.shape, Shape::Token).with_default_layouts();
            }
        }
        self.entry_layout = Some(self.entry_program_shape().with_default_layouts());
        self
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn binary_of_parameters_takes_either_order_only_when_commutative() {
        let op = |body: &str| {
            let text = format!(
                "HloModule m\nENTRY e {{\n  p0 = f32[] parameter(0)\n  p1 = f32[] parameter(1)\n  \
                 ROOT r = f32[] {body}\n}}"
            );
            let module: HloModule = text.parse().unwrap();
            module.entry_computation().binary_of_parameters()
        };
        assert_eq!(op("add(p0, p1)"), Some(Opcode::Add));
        assert_eq!(op("maximum(p1, p0)"), Some(Opcode::Maximum));
        assert_eq!(op("subtract(p0, p1)"), Some(Opcode::Subtract));
        assert_eq!(op("subtract(p1, p0)"), None);
        assert_eq!(op("add(p0, p0)"), None);
        assert_eq!(op("atan2(p1, p0)"), None);
    }
}
