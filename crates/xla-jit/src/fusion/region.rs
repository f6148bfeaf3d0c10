//! Growing one fusion region from its root towards the parameters.
//!
//! Producers are visited from the highest instruction id down, so when a
//! producer is considered every user that will ever join the region already
//! has (ids grow from operands to users): the "all users inside" test is
//! final.

use std::collections::{BTreeMap, BTreeSet, BinaryHeap, HashMap};

use xla_core::hlo::{Family, HloComputation, HloInstruction, InstrId};
use xla_core::{HloModule, Opcode, Shape};

use super::classify::{classify, Role};
use super::dims::{self, DimRef};
use super::window::patches_view;
use super::{lhs_view, out_view, rhs_view, Backend, DotInput};
use super::{
    DotOperand, DotOperands, Fusion, FusionDecision, FusionKind, InPlace, OperandView, Reason,
    RowPass, FUSED_CONCAT_OPERANDS,
};

/// Rows longer than this many bytes are not fused into row kernels: one row
/// must stay in the L2 cache between the passes.
pub(super) const ROW_BYTES_LIMIT: i64 = 512 * 1024;

/// Ops that read an operand element many times per output element (per
/// window tap or per comparison): an expensive producer is not fused into
/// them.
const READ_MANY_TIMES: &[Opcode] = &[
    Opcode::ReduceWindow,
    Opcode::SelectAndScatter,
    Opcode::Sort,
    Opcode::TopK,
];

/// The members [`Region::read_per_tap`] looks for.
#[derive(Clone, Copy)]
enum Taps {
    /// A convolution (once per output feature and kernel tap).
    Convolution,
    /// [`READ_MANY_TIMES`].
    Window,
}

impl Taps {
    fn readers(self) -> &'static [Opcode] {
        match self {
            Taps::Convolution => &[Opcode::Convolution],
            Taps::Window => READ_MANY_TIMES,
        }
    }
}

/// The most times the emitters may compute one member per output element
/// (XLA's `FusionNodeIndexingEvaluation::kAllowedCodeDuplication`). A
/// producer read at several indices per element (through a slice, a
/// concatenate, a reverse, …) is computed once per index, and so are its
/// own producers: a chain of such steps, like `y = f(y) + roll(y)`
/// repeated, grows the code exponentially unless it is cut.
const ALLOWED_EMISSIONS: u64 = 15;

/// The most copies of one member's code a kernel may hold: a value that
/// fills many operand slots of concatenates (`jnp.concatenate([x] * 20)`,
/// or concatenates of concatenates of one value, whose slots multiply) is
/// emitted once per slot, each a branch of its own, and per lane where
/// the operands' sizes are not whole vectors. Beyond this it is
/// materialized and read in each slot.
const ALLOWED_COPIES: u64 = 16;

struct Region<'a> {
    module: &'a HloModule,
    comp: &'a HloComputation,
    backend: &'a dyn Backend,
    users: &'a [Vec<InstrId>],
    root: InstrId,
    members: BTreeSet<InstrId>,
    maps: HashMap<InstrId, Vec<DimRef>>,
    /// Root dimensions (size > 1) that index rows, once a reduce fixed them.
    rows: Option<Vec<usize>>,
    reduces: Vec<InstrId>,
    dot: Option<InstrId>,
    /// Per operand of the dot, the array it is read from and how, when a
    /// transpose, copy or convolution's patches was absorbed into it.
    dot_sources: [Option<(InstrId, OperandView)>; 2],
    inputs: BTreeSet<InstrId>,
    decisions: Vec<FusionDecision>,
    /// Producer → the member user that first asked for it.
    heap: BinaryHeap<InstrId>,
    asked_by: BTreeMap<InstrId, InstrId>,
    /// Member → the members whose index it is computed at (its users that
    /// transform the index, found through users that keep it): XLA's
    /// "indexing users".
    indexing: HashMap<InstrId, BTreeSet<InstrId>>,
    /// Member → how many times the emitters compute it per output element.
    emissions: HashMap<InstrId, u64>,
    /// Member → how many copies of its code the kernel holds: each operand
    /// slot of a fused concatenate is a branch of its own, with its own
    /// copy of the operand's code.
    copies: HashMap<InstrId, u64>,
    /// Per [`Taps`]: member → whether it, or a member reading it (through
    /// other members), is one of the readers. Final once computed:
    /// producers are decided in decreasing id order, and a member's users
    /// (larger ids) are all decided before any producer asks.
    tapped: [HashMap<InstrId, bool>; 2],
}

/// Grows the region rooted at `root` (which must be fusible: elementwise,
/// data movement, reduce or dot).
pub(super) fn grow(
    module: &HloModule,
    comp: &HloComputation,
    backend: &dyn Backend,
    users: &[Vec<InstrId>],
    root: InstrId,
) -> Fusion {
    let root_instr = comp.instr(root);
    let rank = dims::dims_of(root_instr).len();
    let mut r = Region {
        module,
        comp,
        backend,
        users,
        root,
        members: BTreeSet::from([root]),
        maps: HashMap::from([(root, (0..rank).map(DimRef::Root).collect())]),
        rows: None,
        reduces: Vec::new(),
        dot: None,
        dot_sources: [None, None],
        inputs: BTreeSet::new(),
        decisions: Vec::new(),
        heap: BinaryHeap::new(),
        asked_by: BTreeMap::new(),
        indexing: HashMap::from([(root, BTreeSet::from([root]))]),
        emissions: HashMap::from([(root, 1)]),
        copies: HashMap::from([(root, 1)]),
        tapped: [HashMap::new(), HashMap::new()],
    };
    if root_instr.opcode == Opcode::Reduce {
        r.reduces.push(root);
        let dims = dims::dims_of(root_instr);
        r.rows = Some((0..rank).filter(|&d| dims[d] != 1).collect());
    } else if root_instr.opcode == Opcode::Dot {
        r.dot = Some(root);
    }
    let in_place_operand = matches!(
        root_instr.opcode,
        Opcode::DynamicUpdateSlice | Opcode::Scatter
    )
    .then(|| root_instr.operands[0]);
    if root_instr.opcode == Opcode::Dot {
        r.absorb_dot_operands(root);
    } else {
        r.push_operands(root);
    }
    while let Some(p) = r.heap.pop() {
        if r.members.contains(&p) || r.inputs.contains(&p) {
            continue;
        }
        let consumer = r.asked_by[&p];
        if Some(p) == in_place_operand {
            r.forbid(p, consumer, Reason::InPlaceOperand);
            continue;
        }
        match r.decide(p) {
            Ok(reason) => {
                r.decisions.push(FusionDecision::Fuse {
                    producer: p,
                    consumer,
                    reason,
                });
                r.members.insert(p);
                if r.dot == Some(p) {
                    r.absorb_dot_operands(p);
                } else {
                    r.push_operands(p);
                }
            }
            Err(reason) => r.forbid(p, consumer, reason),
        }
    }
    r.finish(in_place_operand)
}

impl Region<'_> {
    fn forbid(&mut self, producer: InstrId, consumer: InstrId, reason: Reason) {
        self.decisions.push(FusionDecision::Forbid {
            producer,
            consumer,
            reason,
        });
        self.inputs.insert(producer);
    }

    fn push_operands(&mut self, id: InstrId) {
        let instr = self.comp.instr(id);
        for &op in &instr.operands {
            self.asked_by.entry(op).or_insert(id);
            self.heap.push(op);
        }
    }

    /// The map `p` gets from all its member users (all users are members
    /// when this is called, except for duplicated cheap producers).
    fn map_of(&self, p: InstrId) -> Vec<DimRef> {
        let mut merged: Option<Vec<DimRef>> = None;
        for &u in &self.users[p.index()] {
            let Some(map) = self.maps.get(&u) else {
                continue;
            };
            let user = self.comp.instr(u);
            for (k, &op) in user.operands.iter().enumerate() {
                if op == p {
                    let m = dims::operand_map(self.comp, user, k, map);
                    merged = Some(match merged {
                        None => m,
                        Some(prev) => dims::merge(&prev, &m),
                    });
                }
            }
        }
        merged.unwrap_or_else(|| vec![DimRef::Other; dims::dims_of(self.comp.instr(p)).len()])
    }

    /// Whether producer `p` joins the region, and why.
    fn decide(&mut self, p: InstrId) -> Result<Reason, Reason> {
        let role = classify(self.module, self.comp, self.backend, p);
        let outside = self.users[p.index()]
            .iter()
            .copied()
            .find(|u| !self.members.contains(u));
        match role {
            Role::Parameter | Role::Buffer => return Err(Reason::Buffer),
            Role::KernelRoot if self.comp.instr(p).opcode == Opcode::ReduceWindow => {
                return Err(Reason::PrefixScan)
            }
            Role::Thunk | Role::KernelRoot => {
                return Err(Reason::NotFusible(self.comp.instr(p).opcode))
            }
            Role::Unsupported(u) => return Err(Reason::Unsupported(u)),
            Role::ScalarConstant | Role::Cheap => {
                let map = self.map_of(p);
                self.maps.insert(p, map);
                return Ok(Reason::CheapDuplicated);
            }
            Role::Elementwise { .. } | Role::DataMovement | Role::Reduce | Role::Dot => {}
        }
        if let Some(user) = outside {
            return Err(Reason::UsersOutside { user });
        }
        let opcode = self.comp.instr(p).opcode;
        let operands = self.comp.instr(p).operands.len();
        if opcode == Opcode::Concatenate && operands > FUSED_CONCAT_OPERANDS {
            return Err(Reason::ManyOperands { operands });
        }
        let map = self.map_of(p);
        let (indexing, emissions) = self.emissions_of(p);
        if emissions > ALLOWED_EMISSIONS && opcode != Opcode::Broadcast {
            return Err(Reason::CodeDuplication { emissions });
        }
        let copies = self.copies_of(p);
        if copies > ALLOWED_COPIES && opcode != Opcode::Broadcast {
            return Err(Reason::CodeCopies { copies });
        }
        if self.read_per_tap(p, Taps::Convolution) {
            return Err(Reason::ConvolutionOperand);
        }
        let reason = match role {
            Role::Elementwise { expensive: true } if self.read_per_tap(p, Taps::Window) => {
                return Err(Reason::WindowReused);
            }
            Role::DataMovement
                if opcode == Opcode::Convolution && self.read_per_tap(p, Taps::Window) =>
            {
                return Err(Reason::WindowReused);
            }
            Role::DataMovement
                if matches!(opcode, Opcode::ReduceWindow | Opcode::Convolution)
                    && self.rows.is_none()
                    && dims::recomputed_along_broadcast(self.comp, self.root, &map) =>
            {
                return Err(Reason::ExpensiveReused);
            }
            Role::Elementwise { expensive } => {
                if expensive
                    && self.rows.is_none()
                    && dims::recomputed_along_broadcast(self.comp, self.root, &map)
                {
                    return Err(Reason::ExpensiveReused);
                }
                self.producer_reason(Reason::Elementwise)
            }
            Role::DataMovement => self.producer_reason(Reason::DataMovement),
            Role::Reduce => {
                self.check_row_pass(p, &map).map_err(Reason::NotRowPass)?;
                self.reduces.push(p);
                Reason::RowPass
            }
            Role::Dot => {
                self.check_epilogue(p, &map).map_err(Reason::NotEpilogue)?;
                self.dot = Some(p);
                Reason::DotEpilogue
            }
            _ => unreachable!("handled above"),
        };
        self.maps.insert(p, map);
        self.indexing.insert(p, indexing);
        self.emissions.insert(p, emissions);
        self.copies.insert(p, copies);
        Ok(reason)
    }

    /// The members whose index `p` would be computed at, and how many
    /// times per output element that computes it. A member user that
    /// reads `p` at its own index (an elementwise op, or a transpose, whose
    /// index permutes) passes on its own indexing members; any other
    /// (slice, concatenate, reverse, reduce, …) derives a new index, and
    /// is one itself. Each indexing member contributes its own count.
    fn emissions_of(&self, p: InstrId) -> (BTreeSet<InstrId>, u64) {
        let dims = dims::dims_of(self.comp.instr(p));
        let mut indexing = BTreeSet::new();
        for &u in &self.users[p.index()] {
            let Some(of_user) = self.indexing.get(&u) else {
                continue;
            };
            let user = self.comp.instr(u);
            let keeps_index = user.opcode == Opcode::Transpose
                || (user.opcode.family() == Family::Elementwise && dims::dims_of(user) == dims);
            if keeps_index {
                indexing.extend(of_user.iter().copied());
            } else {
                indexing.insert(u);
            }
        }
        let emissions = indexing
            .iter()
            .map(|i| self.emissions[i])
            .fold(0u64, u64::saturating_add);
        (indexing, emissions)
    }

    /// How many copies of `p`'s code the kernel would hold: one per operand
    /// slot it fills in each copy of a concatenate member (each slot is a
    /// branch of its own), and as many as the most copied of its other
    /// member users, whose copies emit it at their own index and share it
    /// through the generator cache (so that a chain of `y = y * y + y`
    /// holds one copy of each step, not two per step).
    fn copies_of(&self, p: InstrId) -> u64 {
        let users: BTreeSet<InstrId> = self.users[p.index()].iter().copied().collect();
        let (mut slots, mut shared) = (0u64, 0u64);
        for u in users {
            let Some(&of_user) = self.copies.get(&u) else {
                continue;
            };
            let user = self.comp.instr(u);
            if user.opcode == Opcode::Concatenate {
                let filled = user.operands.iter().filter(|&&o| o == p).count() as u64;
                slots = slots.saturating_add(of_user.saturating_mul(filled));
            } else {
                shared = shared.max(of_user);
            }
        }
        slots.saturating_add(shared)
    }

    /// `true` if a member whose opcode is one of `taps`' readers reads `p`,
    /// directly or through other members: a convolution once per output
    /// feature and kernel tap, a reduce-window or select-and-scatter once
    /// per window tap, a sort or topk once per comparison
    /// ([`READ_MANY_TIMES`]). Each member's answer is computed once (a
    /// walk per producer made long chains quadratic to plan).
    fn read_per_tap(&mut self, p: InstrId, taps: Taps) -> bool {
        let readers = taps.readers();
        let (comp, users, members) = (self.comp, self.users, &self.members);
        let tapped = &mut self.tapped[taps as usize];
        let member_users = |i: InstrId| {
            users[i.index()]
                .iter()
                .copied()
                .filter(|u| members.contains(u))
        };
        // Post-order over the members reading `p`.
        let mut stack: Vec<(InstrId, bool)> = member_users(p).map(|u| (u, false)).collect();
        while let Some((i, users_done)) = stack.pop() {
            if tapped.contains_key(&i) {
                continue;
            }
            if !users_done {
                stack.push((i, true));
                stack.extend(
                    member_users(i)
                        .filter(|u| !tapped.contains_key(u))
                        .map(|u| (u, false)),
                );
                continue;
            }
            let read =
                readers.contains(&comp.instr(i).opcode) || member_users(i).any(|u| tapped[&u]);
            tapped.insert(i, read);
        }
        member_users(p).any(|u| tapped[&u])
    }

    /// Inside a reduction's operand, producers are reduction inputs.
    fn producer_reason(&self, default: Reason) -> Reason {
        if self.comp.instr(self.root).opcode == Opcode::Reduce && self.reduces.len() == 1 {
            Reason::ReductionInput
        } else {
            default
        }
    }

    /// A row pass walks its reduced elements in the operand's memory order,
    /// so they must be the operand's minor-most dimensions (size-1
    /// dimensions aside). A reduction down columns (`x.sum(0)` of a
    /// row-major `x`) would stride through memory one row per element; as
    /// its own fusion it gets the column kernel, which reads rows
    /// contiguously, and its users run as a small loop over its result.
    fn check_reduces_minor_dims(&self, reduce: &HloInstruction) -> Result<(), String> {
        let operand = self.comp.instr(reduce.operands[0]);
        let Shape::Array(a) = &operand.shape else {
            return Ok(());
        };
        let reduced = reduce.attrs.dimensions.as_deref().unwrap_or_default();
        if dims::are_minor_most(a, |d| reduced.contains(&(d as i64))) {
            Ok(())
        } else {
            Err(format!(
                "it reduces dimensions {reduced:?} of {}, not its minor-most ones: a column reduction",
                operand.shape
            ))
        }
    }

    /// A reduce can be a row pass if it is read only at the row the root is
    /// computing, all reduces agree on the rows, and a row fits in cache.
    fn check_row_pass(&mut self, p: InstrId, map: &[DimRef]) -> Result<(), String> {
        if self.dot.is_some() {
            return Err("the region holds a dot".into());
        }
        self.check_root_per_element()?;
        let reduce = self.comp.instr(p);
        let Shape::Array(out) = &reduce.shape else {
            return Err("a variadic reduce's tuple is read through get-tuple-element".into());
        };
        let rows = dims::row_dims(map, out.dims())
            .ok_or("the reduce is read at indices other than the current row")?;
        self.check_reduces_minor_dims(reduce)?;
        let root = self.comp.instr(self.root);
        let Shape::Array(root_shape) = &root.shape else {
            return Err("the root is not an array".into());
        };
        if let Some(existing) = &self.rows {
            if *existing != rows {
                return Err(format!(
                    "it is read along root dimensions {rows:?}, another reduce along {existing:?}"
                ));
            }
        } else {
            let root_dims = root_shape.dims();
            let cols: Vec<usize> = (0..root_dims.len())
                .filter(|&d| root_dims[d] != 1 && !rows.contains(&d))
                .collect();
            if !dims::are_minor_most(root_shape, |d| cols.contains(&d)) {
                return Err(format!(
                    "the reduced dimensions {cols:?} are not the minor-most dimensions of {}",
                    root.shape
                ));
            }
            let row_elements: i64 = cols.iter().map(|&d| root_dims[d]).product();
            let bytes = row_elements * root_shape.element_type().byte_size() as i64;
            if bytes > ROW_BYTES_LIMIT {
                return Err(format!(
                    "a row of {bytes} bytes exceeds the {ROW_BYTES_LIMIT}-byte cache budget"
                ));
            }
        }
        let operand = self.comp.instr(reduce.operands[0]);
        let reduced: i64 = dims::dims_of(operand).iter().product::<i64>()
            / out.dims().iter().product::<i64>().max(1);
        let bytes = reduced * out.element_type().byte_size() as i64;
        if bytes > ROW_BYTES_LIMIT {
            return Err(format!(
                "a reduced row of {bytes} bytes exceeds the {ROW_BYTES_LIMIT}-byte cache budget"
            ));
        }
        self.rows = Some(rows);
        Ok(())
    }

    /// Row kernels compute the root one element at a time; a root with a
    /// kernel of its own (a [`Role::KernelRoot`]: sort, top-k, scatter,
    /// select-and-scatter, rng-bit-generator, a prefix-scan reduce-window;
    /// or a variadic reduce-window) only fuses producers its own kernel
    /// reads element by element.
    fn check_root_per_element(&self) -> Result<(), String> {
        let root = self.comp.instr(self.root);
        let own_kernel = classify(self.module, self.comp, self.backend, self.root)
            == Role::KernelRoot
            || (root.opcode == Opcode::ReduceWindow && root.shape.is_tuple());
        if own_kernel {
            return Err(format!(
                "the root {} runs a {} kernel, not one element at a time",
                root.name,
                root.opcode.name()
            ));
        }
        Ok(())
    }

    /// A dot can take the region as its epilogue if the region only applies
    /// elementwise work to it at the same index and keeps its element type.
    fn check_epilogue(&self, p: InstrId, map: &[DimRef]) -> Result<(), String> {
        if !self.reduces.is_empty() {
            return Err("the region holds a reduce".into());
        }
        if let Some(dot) = self.dot {
            return Err(format!(
                "the region already holds {}",
                self.comp.instr(dot).name
            ));
        }
        let dot = self.comp.instr(p);
        let root = self.comp.instr(self.root);
        let identity = map.iter().enumerate().all(|(i, &m)| m == DimRef::Root(i));
        if !identity || map.len() != dims::dims_of(root).len() {
            return Err("the epilogue reads the dot's result at other indices".into());
        }
        if dot.shape.element_type() != root.shape.element_type() {
            return Err(format!(
                "the epilogue changes the element type ({} to {}); it runs in place",
                dot.shape, root.shape
            ));
        }
        let dense = root
            .shape
            .as_array()
            .is_some_and(|a| a.layout_or_default().is_dense());
        if !dense {
            return Err(format!("the output layout of {} is not dense", root.shape));
        }
        let lhs_rank = dims::dims_of(self.comp.instr(dot.operands[0])).len();
        let strided = match (dot.attrs.dot_dims.as_ref(), root.shape.as_array()) {
            (Some(numbers), Some(out)) => out_view(out, numbers, lhs_rank).is_some(),
            _ => false,
        };
        if !strided {
            return Err(format!(
                "the dot cannot write its result through the strides of {}",
                root.shape
            ));
        }
        Ok(())
    }

    /// Makes transposes and copies of the dot's operands members and the
    /// arrays they read inputs, and so the im2col of a convolution's
    /// patches (its reshape, concatenate and slices) for the lhs.
    /// Only when the engine can read the source through strides: otherwise
    /// the transpose or copy materializes the operand in a layout it can.
    fn absorb_dot_operands(&mut self, dot: InstrId) {
        let dot_instr = self.comp.instr(dot);
        let window = self.absorb_patches(dot);
        for (k, &op) in dot_instr
            .operands
            .iter()
            .enumerate()
            .skip(usize::from(window))
        {
            let instr = self.comp.instr(op);
            let source = instr.operands.first().map(|&s| self.comp.instr(s));
            let dense_source = source.is_some_and(|s| {
                s.shape
                    .as_array()
                    .is_some_and(|a| a.layout_or_default().is_dense())
            });
            let strided = |view: &OperandView| {
                let (Some(dims), Some(shape)) = (
                    dot_instr.attrs.dot_dims.as_ref(),
                    source.and_then(|s| s.shape.as_array()),
                ) else {
                    return false;
                };
                let input = DotInput { shape, view };
                match k {
                    0 => lhs_view(&input, dims).is_some(),
                    _ => rhs_view(&input, dims).is_some(),
                }
            };
            let absorbed = match instr.opcode {
                _ if !dense_source => None,
                Opcode::Transpose => {
                    let permutation = instr.attrs.dimensions.clone().unwrap_or_default();
                    Some((
                        OperandView::Transpose(permutation),
                        Reason::TransposeAbsorbed,
                    ))
                }
                Opcode::Copy => Some((OperandView::Buffer, Reason::CopyAbsorbed)),
                _ => None,
            };
            match absorbed {
                Some((view, _)) if !strided(&view) => self.forbid(op, dot, Reason::NotStrided),
                Some((view, reason)) => {
                    self.decisions.push(FusionDecision::Fuse {
                        producer: op,
                        consumer: dot,
                        reason,
                    });
                    self.members.insert(op);
                    self.inputs.insert(instr.operands[0]);
                    self.dot_sources[k] = Some((instr.operands[0], view));
                }
                None => {
                    let reason = match classify(self.module, self.comp, self.backend, op) {
                        Role::Parameter | Role::Buffer => Reason::Buffer,
                        _ => Reason::NotFusible(Opcode::Dot),
                    };
                    self.forbid(op, dot, reason);
                }
            }
        }
    }

    /// Absorbs the im2col of the dot's lhs (see [`patches_view`]) when the
    /// engine can read its patches as a window of the sliced buffer and
    /// nothing else reads them; `true` if it did.
    fn absorb_patches(&mut self, dot: InstrId) -> bool {
        let dot_instr = self.comp.instr(dot);
        let Some((x, absorbed, view)) = patches_view(self.comp, dot_instr.operands[0]) else {
            return false;
        };
        // Windows are read by the f32 and f64 kernels' packing, not
        // widened from 16-bit operands.
        let same_type = self.comp.instr(x).shape.element_type() == dot_instr.shape.element_type();
        let readable = same_type
            && dot_instr.attrs.dot_dims.as_ref().is_some_and(|dims| {
                let shape = self.comp.instr(x).shape.as_array();
                shape
                    .is_some_and(|shape| lhs_view(&DotInput { shape, view: &view }, dims).is_some())
            });
        let users = |a: InstrId| &self.users[a.index()];
        let only_the_dot = users(absorbed[0])[..] == [dot]
            && absorbed[1..]
                .iter()
                .all(|&a| users(a).iter().all(|u| absorbed.contains(u)));
        if !readable || !only_the_dot {
            return false;
        }
        for &a in &absorbed {
            self.decisions.push(FusionDecision::Fuse {
                producer: a,
                consumer: dot,
                reason: Reason::WindowAbsorbed,
            });
            self.members.insert(a);
        }
        self.inputs.insert(x);
        self.dot_sources[0] = Some((x, view));
        true
    }

    /// Members whose value does not change along the inner loop of the
    /// kernel (see [`Fusion::invariants`]): every dimension is read at an
    /// outer root dimension or has size 1, and computing it costs more
    /// than index arithmetic.
    fn invariants(&self, kind: FusionKind) -> Vec<RowPass> {
        let root = self.comp.instr(self.root);
        let Shape::Array(shape) = &root.shape else {
            return Vec::new();
        };
        let outer: Vec<usize> = match kind {
            FusionKind::Row => self.rows.clone().unwrap_or_default(),
            FusionKind::Loop => {
                let dims = shape.dims();
                let minor = shape
                    .layout_or_default()
                    .minor_to_major
                    .iter()
                    .map(|&d| d as usize)
                    .find(|&d| dims[d] != 1);
                (0..dims.len()).filter(|&d| Some(d) != minor).collect()
            }
            FusionKind::Reduction | FusionKind::DotEpilogue => return Vec::new(),
        };
        self.members
            .iter()
            .filter(|&&m| m != self.root && !self.reduces.contains(&m))
            .filter(|&&m| {
                let instr = self.comp.instr(m);
                let computes = !matches!(
                    instr.opcode,
                    Opcode::Constant
                        | Opcode::Broadcast
                        | Opcode::Reshape
                        | Opcode::Bitcast
                        | Opcode::Transpose
                        | Opcode::Copy
                        | Opcode::Iota
                );
                computes
                    && self.maps.get(&m).is_some_and(|map| {
                        map.iter()
                            .zip(dims::dims_of(instr))
                            .all(|(r, &size)| match r {
                                DimRef::Root(k) => outer.contains(k),
                                DimRef::Zero => true,
                                _ => size == 1,
                            })
                    })
            })
            .map(|&m| RowPass {
                instr: m,
                dims: self.maps[&m]
                    .iter()
                    .map(|r| match r {
                        DimRef::Root(k) => Some(*k),
                        _ => None,
                    })
                    .collect(),
            })
            .collect()
    }

    /// The positions in `inputs` of the inputs of the root's dimensions
    /// that every member reads only at the root's own index.
    fn read_at_root_index(&self, inputs: &[InstrId]) -> Vec<usize> {
        let root_dims = dims::dims_of(self.comp.instr(self.root));
        let identity: Vec<DimRef> = (0..root_dims.len()).map(DimRef::Root).collect();
        inputs
            .iter()
            .enumerate()
            .filter(|&(_, &input)| {
                dims::dims_of(self.comp.instr(input)) == root_dims && self.map_of(input) == identity
            })
            .map(|(k, _)| k)
            .collect()
    }

    fn finish(self, in_place_operand: Option<InstrId>) -> Fusion {
        let kind = if self.dot.is_some() {
            FusionKind::DotEpilogue
        } else if self.reduces.len() == 1 && self.reduces[0] == self.root {
            FusionKind::Reduction
        } else if !self.reduces.is_empty() {
            FusionKind::Row
        } else {
            FusionKind::Loop
        };
        let inputs: Vec<InstrId> = self.inputs.iter().copied().collect();
        let in_place = in_place_operand.and_then(|operand| {
            // Only if nothing but the root reads the operand, and the root
            // only as its operand 0: a kernel writing into the operand's
            // buffer must not read it.
            let root_operands = &self.comp.instr(self.root).operands;
            let read_elsewhere = root_operands[1..].contains(&operand)
                || self
                    .members
                    .iter()
                    .any(|&m| m != self.root && self.comp.instr(m).operands.contains(&operand));
            (!read_elsewhere).then(|| InPlace {
                input: inputs
                    .iter()
                    .position(|&i| i == operand)
                    .expect("operand is an input"),
                output: 0,
            })
        });
        let aliasable = if kind == FusionKind::Loop && in_place.is_none() {
            self.read_at_root_index(&inputs)
        } else {
            Vec::new()
        };
        let dot = self.dot.map(|d| {
            let operand = |k: usize| {
                let op = self.comp.instr(d).operands[k];
                let (source, view) = self.dot_sources[k]
                    .clone()
                    .unwrap_or((op, OperandView::Buffer));
                DotOperand {
                    input: inputs
                        .iter()
                        .position(|&i| i == source)
                        .expect("dot operand is an input"),
                    view,
                }
            };
            DotOperands {
                dot: d,
                lhs: operand(0),
                rhs: operand(1),
            }
        });
        let mut reduces = self.reduces.clone();
        reduces.sort();
        let read_at = |id: InstrId| -> Vec<Option<usize>> {
            self.maps[&id]
                .iter()
                .map(|m| match m {
                    DimRef::Root(k) => Some(*k),
                    _ => None,
                })
                .collect()
        };
        let passes = reduces
            .iter()
            .map(|&r| RowPass {
                instr: r,
                dims: read_at(r),
            })
            .collect();
        let invariants = self.invariants(kind);
        Fusion {
            kind,
            root: self.root,
            instructions: self.members.into_iter().collect(),
            outputs: vec![self.root],
            inputs,
            decisions: self.decisions,
            in_place,
            aliasable,
            dot,
            passes,
            invariants,
        }
    }
}
