//! Buffer assignment: which bytes every runtime value lives in.
//!
//! Lowering gives every value leaf produced by a thunk its own buffer and
//! records, for each thunk, its time (a counter in program order, nested
//! sequences numbered inside their loop or conditional) and the buffers it
//! reads and writes. Where semantics need a copy (a while loop's initial
//! state, a loop body's result, a conditional's branch results, the entry's
//! results, the operand of an in-place dynamic-update-slice) lowering emits
//! an explicit copy; [`BufferTable::coalesce`] then merges the two buffers of
//! a copy whenever neither value is needed while the other is live, so most
//! copies disappear. Finally [`BufferTable::pack`] places the remaining
//! temporaries in one arena, reusing the space of dead values.

use std::collections::BTreeSet;
use std::fmt;

/// A buffer of an executable, by index into its [`BufferTable`].
#[derive(Copy, Clone, PartialEq, Eq, Hash, Debug, PartialOrd, Ord)]
pub(crate) struct BufferId(pub u32);

impl BufferId {
    pub fn index(self) -> usize {
        self.0 as usize
    }
}

/// Where a buffer's bytes are during a run.
#[derive(Copy, Clone, PartialEq, Eq, Debug)]
pub(crate) enum BufferSource {
    /// Leaf `leaf` (depth-first over tuples) of entry argument `parameter`;
    /// read only.
    Parameter { parameter: usize, leaf: usize },
    /// Constant `index` of the executable; read only.
    Constant(usize),
    /// Bytes `[offset, offset + size)` of the run's arena (`offset` is set
    /// by [`BufferTable::pack`]).
    Arena { offset: usize },
    /// Leaf `leaf` of the result.
    Output { leaf: usize },
}

impl BufferSource {
    /// `true` for buffers compiled code may write.
    fn is_writable(self) -> bool {
        matches!(
            self,
            BufferSource::Arena { .. } | BufferSource::Output { .. }
        )
    }
}

/// One buffer: its place, size and the thunk times that touch it.
#[derive(Clone, Debug)]
pub(crate) struct Buffer {
    pub source: BufferSource,
    /// Size in bytes.
    pub size: usize,
    /// The value it holds first (an instruction name), for dumps.
    pub name: String,
    /// Times of the thunks that read or write it (a set: merging a
    /// buffer into another adds the smaller set to the larger, so a chain
    /// of thousands of merges stays cheap).
    accesses: BTreeSet<u32>,
}

/// The loops of a program, as time ranges: a value used inside a loop but
/// defined before it must survive every iteration.
#[derive(Copy, Clone, Debug)]
pub(crate) struct LoopSpan {
    pub start: u32,
    pub end: u32,
}

/// A copy between two buffers, as lowering emitted it.
#[derive(Copy, Clone, Debug)]
pub(crate) struct CopyRecord {
    pub from: BufferId,
    pub to: BufferId,
    pub time: u32,
}

/// Every buffer of an executable.
#[derive(Clone, Debug, Default)]
pub(crate) struct BufferTable {
    buffers: Vec<Buffer>,
    /// Union-find parent of each buffer (itself when a representative).
    merged_into: Vec<u32>,
    loops: Vec<LoopSpan>,
    arena_size: usize,
}

/// Arena slices are aligned to a cache line (and so to any vector).
const SLICE_ALIGN: usize = 64;

impl BufferTable {
    /// A new buffer.
    pub fn add(&mut self, source: BufferSource, size: usize, name: &str) -> BufferId {
        let id = BufferId(self.buffers.len() as u32);
        self.buffers.push(Buffer {
            source,
            size,
            name: name.to_string(),
            accesses: BTreeSet::new(),
        });
        self.merged_into.push(id.0);
        id
    }

    /// Records that the thunk at `time` reads or writes `id`.
    pub fn access(&mut self, id: BufferId, time: u32) {
        self.buffers[id.index()].accesses.insert(time);
    }

    /// Records a loop spanning `[start, end]`.
    pub fn add_loop(&mut self, span: LoopSpan) {
        self.loops.push(span);
        // Inner loops end first: widening by them before their enclosing
        // loops lets the outer widening see the inner result.
        self.loops.sort_by_key(|l| l.end);
    }

    pub fn get(&self, id: BufferId) -> &Buffer {
        &self.buffers[self.find(id).index()]
    }

    pub fn len(&self) -> usize {
        self.buffers.len()
    }

    /// Bytes of arena one run needs.
    pub fn arena_size(&self) -> usize {
        self.arena_size
    }

    /// The largest buffer placed in the arena: its name and size (for an
    /// arena that cannot be allocated).
    pub fn largest_in_arena(&self) -> Option<(&str, usize)> {
        self.buffers
            .iter()
            .filter(|b| matches!(b.source, BufferSource::Arena { .. }))
            .max_by_key(|b| b.size)
            .map(|b| (b.name.as_str(), b.size))
    }

    /// The buffer `id` was merged into (itself if never merged).
    pub fn find(&self, id: BufferId) -> BufferId {
        let mut at = id.0;
        while self.merged_into[at as usize] != at {
            at = self.merged_into[at as usize];
        }
        BufferId(at)
    }

    /// [`find`](Self::find), pointing every buffer on the way at the
    /// result (chains of merges stay short).
    fn find_compressing(&mut self, id: BufferId) -> BufferId {
        let root = self.find(id);
        let mut at = id.0;
        while at != root.0 {
            at = std::mem::replace(&mut self.merged_into[at as usize], root.0);
        }
        root
    }

    /// The live range of a buffer: from its first to its last access,
    /// widened by loops. A buffer accessed inside a loop and before it lives
    /// to the loop's end (every iteration reads it); one accessed inside a
    /// loop and after it lives from the loop's start (the condition of the
    /// last check runs before its definition in the body).
    fn live_range(&self, id: BufferId) -> Option<(u32, u32)> {
        let accesses = &self.buffers[id.index()].accesses;
        let (mut first, mut last) = (*accesses.first()?, *accesses.last()?);
        for span in &self.loops {
            let inside =
                span.start < span.end && accesses.range(span.start + 1..span.end).next().is_some();
            if !inside {
                continue;
            }
            if first < span.start {
                last = last.max(span.end);
            }
            if last > span.end {
                first = first.min(span.start);
            }
        }
        Some((first, last))
    }

    /// Merges the two buffers of each copy where that is safe, so the copy
    /// becomes a no-op; returns how many copies were removed. A copy
    /// `from → to` at time `t` is merged when
    ///
    /// * `from` is writable (not a parameter or constant) and its live range
    ///   ends at `t` (the copy is its last use, loops included);
    /// * `to` is writable and nothing touches it during `from`'s live range,
    ///   except the thunk that defines `from` reading `to` when `prime`
    ///   says that thunk computes `from` in place from `to` (the copy that
    ///   primes an in-place dynamic-update-slice);
    /// * both have the same size.
    ///
    /// Then `to`'s old value is dead while `from` is live, so one storage
    /// serves both, and it takes `to`'s source (an output stays an output).
    pub fn coalesce(
        &mut self,
        copies: &[CopyRecord],
        prime: impl Fn(&Self, u32, BufferId, BufferId) -> bool,
    ) -> usize {
        let mut removed = 0;
        for copy in copies {
            let (from, to) = (
                self.find_compressing(copy.from),
                self.find_compressing(copy.to),
            );
            if from == to {
                removed += 1;
                continue;
            }
            let (a, b) = (&self.buffers[from.index()], &self.buffers[to.index()]);
            if !a.source.is_writable() || !b.source.is_writable() || a.size != b.size {
                continue;
            }
            let Some((first, last)) = self.live_range(from) else {
                continue;
            };
            if last != copy.time {
                continue;
            }
            let between = first < copy.time
                && b.accesses
                    .range(first.saturating_add(1)..copy.time)
                    .next()
                    .is_some();
            let clash = between || b.accesses.contains(&first) && !prime(self, first, to, from);
            if clash {
                continue;
            }
            let mut moved = std::mem::take(&mut self.buffers[from.index()].accesses);
            let target = &mut self.buffers[to.index()].accesses;
            if moved.len() > target.len() {
                std::mem::swap(&mut moved, target);
            }
            target.extend(moved);
            self.merged_into[from.index()] = to.0;
            removed += 1;
        }
        // Point every buffer at its final one, so that the lookups of every
        // thunk's buffers that follow do not walk merge chains (30000
        // nested conditionals made chains thousands long).
        for id in 0..self.merged_into.len() {
            self.find_compressing(BufferId(id as u32));
        }
        removed
    }

    /// Whether output buffer `output` may take the memory of parameter
    /// buffer `param` (a donated argument): every access of the parameter
    /// comes before the output's first (loops included), or at that very
    /// thunk when `prime` says it computes the output in place from the
    /// parameter.
    pub fn reusable(
        &self,
        param: BufferId,
        output: BufferId,
        prime: impl Fn(&Self, u32, BufferId, BufferId) -> bool,
    ) -> bool {
        let (param, output) = (self.find(param), self.find(output));
        if param == output || self.buffers[param.index()].size != self.buffers[output.index()].size
        {
            return false;
        }
        let Some((first, _)) = self.live_range(output) else {
            return false;
        };
        match self.live_range(param) {
            None => true,
            Some((_, last)) => last < first || last == first && prime(self, first, param, output),
        }
    }

    /// Places every arena buffer (representatives only) at an offset such
    /// that buffers with overlapping live ranges never share bytes. Largest
    /// first, each at the lowest offset that fits among the buffers already
    /// placed whose live ranges overlap its own.
    pub fn pack(&mut self) {
        let mut order: Vec<(BufferId, (u32, u32))> = (0..self.buffers.len() as u32)
            .map(BufferId)
            .filter(|&id| self.find(id) == id)
            .filter(|&id| matches!(self.buffers[id.index()].source, BufferSource::Arena { .. }))
            .filter_map(|id| Some((id, self.live_range(id)?)))
            .collect();
        order.sort_by_key(|&(id, range)| (std::cmp::Reverse(self.buffers[id.index()].size), range));
        let mut placed: Vec<(usize, usize, (u32, u32))> = Vec::new();
        let mut arena = 0;
        for (id, range) in order {
            let size = self.buffers[id.index()].size.next_multiple_of(SLICE_ALIGN);
            let mut busy: Vec<(usize, usize)> = placed
                .iter()
                .filter(|(_, _, r)| r.0 <= range.1 && range.0 <= r.1)
                .map(|&(offset, end, _)| (offset, end))
                .collect();
            busy.sort_unstable();
            let mut offset = 0;
            for (start, end) in busy {
                if offset + size <= start {
                    break;
                }
                offset = offset.max(end);
            }
            self.buffers[id.index()].source = BufferSource::Arena { offset };
            placed.push((offset, offset + size, range));
            arena = arena.max(offset + size);
        }
        self.arena_size = arena;
    }
}

impl fmt::Display for BufferTable {
    /// One line per buffer: `b3 = arena[4096..8192) add.4 (live 2..7)`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for index in 0..self.buffers.len() {
            let id = BufferId(index as u32);
            let rep = self.find(id);
            let buffer = &self.buffers[index];
            if rep != id {
                writeln!(f, "  b{index} {} = b{}", buffer.name, rep.0)?;
                continue;
            }
            let place = match buffer.source {
                BufferSource::Parameter { parameter, leaf } => {
                    format!("parameter {parameter} leaf {leaf}")
                }
                BufferSource::Constant(index) => format!("constant {index}"),
                BufferSource::Arena { offset } => {
                    format!("arena [{offset}, {})", offset + buffer.size)
                }
                BufferSource::Output { leaf } => format!("output leaf {leaf}"),
            };
            write!(
                f,
                "  b{index} {}: {place}, {} bytes",
                buffer.name, buffer.size
            )?;
            match self.live_range(id) {
                Some((first, last)) => writeln!(f, ", live {first}..={last}")?,
                None => writeln!(f, ", unused")?,
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn arena(table: &mut BufferTable, size: usize, times: &[u32]) -> BufferId {
        let id = table.add(BufferSource::Arena { offset: 0 }, size, "v");
        for &t in times {
            table.access(id, t);
        }
        id
    }

    fn offset(table: &BufferTable, id: BufferId) -> usize {
        match table.get(id).source {
            BufferSource::Arena { offset } => offset,
            other => panic!("{other:?}"),
        }
    }

    #[test]
    fn dead_values_share_space() {
        let mut t = BufferTable::default();
        let a = arena(&mut t, 100, &[0, 1]);
        let b = arena(&mut t, 100, &[1, 2]);
        let c = arena(&mut t, 100, &[2, 3]);
        t.pack();
        // a and b overlap at time 1, b and c at 2; a and c never.
        assert_eq!(offset(&t, a), offset(&t, c));
        assert_ne!(offset(&t, a), offset(&t, b));
        assert_eq!(t.arena_size(), 256);
    }

    #[test]
    fn loops_keep_outer_values_alive() {
        let mut t = BufferTable::default();
        // x is defined at 0 and read inside a loop spanning [1, 10].
        let x = arena(&mut t, 64, &[0, 3]);
        let y = arena(&mut t, 64, &[5, 6]);
        t.add_loop(LoopSpan { start: 1, end: 10 });
        t.pack();
        assert_ne!(offset(&t, x), offset(&t, y));
        assert_eq!(t.live_range(x), Some((0, 10)));
    }

    #[test]
    fn a_copy_into_a_result_is_coalesced() {
        let mut t = BufferTable::default();
        let v = arena(&mut t, 64, &[0, 1]);
        let out = t.add(BufferSource::Output { leaf: 0 }, 64, "out");
        t.access(out, 1);
        let n = t.coalesce(
            &[CopyRecord {
                from: v,
                to: out,
                time: 1,
            }],
            |_, _, _, _| false,
        );
        assert_eq!(n, 1);
        assert_eq!(t.find(v), out);
        assert_eq!(t.get(v).source, BufferSource::Output { leaf: 0 });
    }

    #[test]
    fn a_parameter_is_never_merged() {
        let mut t = BufferTable::default();
        let p = t.add(
            BufferSource::Parameter {
                parameter: 0,
                leaf: 0,
            },
            64,
            "p",
        );
        t.access(p, 1);
        let out = t.add(BufferSource::Output { leaf: 0 }, 64, "out");
        t.access(out, 1);
        let n = t.coalesce(
            &[CopyRecord {
                from: p,
                to: out,
                time: 1,
            }],
            |_, _, _, _| false,
        );
        assert_eq!(n, 0);
        assert_eq!(t.find(p), p);
    }

    #[test]
    fn a_value_read_after_the_copy_is_not_merged() {
        let mut t = BufferTable::default();
        let v = arena(&mut t, 64, &[0, 1, 2]);
        let w = arena(&mut t, 64, &[1, 3]);
        let n = t.coalesce(
            &[CopyRecord {
                from: v,
                to: w,
                time: 1,
            }],
            |_, _, _, _| false,
        );
        assert_eq!(n, 0);
    }

    #[test]
    fn a_loop_body_result_merges_into_the_loop_state() {
        // Loop [1, 9]: state w; body reads w at 3, computes r at 5 from it,
        // copies r → w at 8.
        let mut t = BufferTable::default();
        let w = arena(&mut t, 64, &[1, 3, 8, 10]);
        let r = arena(&mut t, 64, &[5, 8]);
        t.add_loop(LoopSpan { start: 1, end: 9 });
        let n = t.coalesce(
            &[CopyRecord {
                from: r,
                to: w,
                time: 8,
            }],
            |_, _, _, _| false,
        );
        assert_eq!(n, 1);
        // Had the body read w after r's definition, it would clash.
        let mut t = BufferTable::default();
        let w = arena(&mut t, 64, &[1, 6, 8, 10]);
        let r = arena(&mut t, 64, &[5, 8]);
        t.add_loop(LoopSpan { start: 1, end: 9 });
        assert_eq!(
            t.coalesce(
                &[CopyRecord {
                    from: r,
                    to: w,
                    time: 8
                }],
                |_, _, _, _| false
            ),
            0
        );
    }

    #[test]
    fn an_outer_value_copied_in_a_loop_is_not_merged() {
        let mut t = BufferTable::default();
        let outer = arena(&mut t, 64, &[0, 5]);
        let w = arena(&mut t, 64, &[1, 5, 10]);
        t.add_loop(LoopSpan { start: 1, end: 9 });
        let n = t.coalesce(
            &[CopyRecord {
                from: outer,
                to: w,
                time: 5,
            }],
            |_, _, _, _| false,
        );
        assert_eq!(n, 0);
    }

    #[test]
    fn a_priming_copy_is_allowed_at_the_definition() {
        // u = copy(w) at 4 primes an in-place update at 5; r → w at 8.
        let mut t = BufferTable::default();
        let w = arena(&mut t, 64, &[1, 4, 8]);
        let u = arena(&mut t, 64, &[4, 5, 8]);
        let copies = [CopyRecord {
            from: u,
            to: w,
            time: 8,
        }];
        assert_eq!(t.coalesce(&copies, |_, time, _, _| time == 4), 1);
        assert_eq!(t.find(u), w);
    }
}
