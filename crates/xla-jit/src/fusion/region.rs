//! Growing one fusion region from its root towards the parameters.
//!
//! Producers are visited from the highest instruction id down, so when a
//! producer is considered every user that will ever join the region already
//! has (ids grow from operands to users): the "all users inside" test is
//! final.

mod dot_reduce;
mod finish;

use std::collections::{BTreeMap, BTreeSet, BinaryHeap, HashMap};

use xla_core::hlo::{Family, HloComputation, InstrId};
use xla_core::{HloModule, Opcode};

use super::classify::{classify, Role};
use super::dims::{self, DimRef};
use super::Backend;
use super::{Fusion, FusionDecision, OperandView, Reason, FUSED_CONCAT_OPERANDS};

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
}
