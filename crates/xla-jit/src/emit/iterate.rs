//! Iteration spaces: how a kernel walks an array and how the runtime splits
//! that walk across threads.
//!
//! An array is walked in physical order. Its dimensions of size > 1, most
//! major first, are the *outer* dimensions and the *inner* one (the
//! minor-most); the inner loop runs in vectors. The runtime's iteration
//! space `[0, iterations)` is made of
//!
//! * row groups (`Chunking::Rows`): each iteration covers `per_iter` whole
//!   rows (a row = one index of the outer dimensions), when rows are short;
//! * chunks (`Chunking::Chunks`): each iteration covers `chunk` elements of
//!   one row, when rows are long (a 1-D array of 16M elements has one row).
//!
//! Example: `f32[4096,1024]{1,0}` with a 16384-element target gives rows of
//! 1024 elements, 16 rows per iteration, 256 iterations; `f32[16777216]`
//! gives one row in 1024 chunks of 16384.

use cranelift_codegen::ir::{InstBuilder, Value};
use xla_core::arith::ceil_div;
use xla_core::layout::Layout;

use super::index::IndexDim;
use super::kernel::KernelBuilder;

/// Elements one iteration aims to cover: large enough to amortize the
/// per-iteration work and a task switch, small enough to balance threads.
pub const TARGET_ELEMENTS: i64 = 16384;

/// Inner elements per tile of a tiled walk (see [`Chunking::Tiles`]).
const TILE: i64 = 16;

/// The inner elements per tile when the input read across rows has a row
/// stride that is a multiple of [`SET_PERIOD`]: all of a tile's input
/// lines then fall in one set of the L1 data cache, whose 8 to 12 ways
/// hold fewer than 16 of them. A 1024×1024 f32 transpose ran in 0.20 ms
/// with 8 against 0.40 with 16; rows of other strides, 0.45 against 0.14
/// (`f32[4096,256]`), as the shorter tiles cost more loop overhead (Zen 4,
/// 2 threads).
const SHORT_TILE: i64 = 8;

/// The address period of the L1 data cache's sets (64 sets of 64-byte
/// lines on every x86-64 core we target: Zen 3 to 5, Intel since Skylake).
const SET_PERIOD: i64 = 4096;

/// The fewest rows per iteration of a tiled walk: a 64-byte cache line of
/// `f32`s read across them.
const TILE_ROWS: i64 = 16;

/// How iterations map to the array.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Chunking {
    /// `per_iter` whole rows per iteration.
    Rows {
        /// Rows per iteration.
        per_iter: i64,
    },
    /// `chunk` inner elements (a multiple of every vector step) per
    /// iteration, `per_row` iterations per row.
    Chunks {
        /// Elements per iteration.
        chunk: i64,
        /// Iterations per row.
        per_row: i64,
    },
    /// `per_iter` whole rows per iteration, walked in tiles: `tile` inner
    /// elements of each of the rows, then the next `tile` of each. A
    /// kernel that reads an input transposed (one element per input row
    /// for each output element along the row) then uses each input cache
    /// line whole while it is in the cache: row by row, a 1024×1024 f32
    /// transpose touches a new cache line per element and runs about five
    /// times slower.
    Tiles {
        /// Rows per iteration.
        per_iter: i64,
        /// Inner elements per tile (a multiple of every vector step).
        tile: i64,
    },
}

/// A walk over an array in physical order.
#[derive(Clone, Debug)]
pub struct IterSpace {
    /// Rank of the array.
    pub rank: usize,
    /// Outer dimensions (logical dimension, size), most major first.
    pub outer: Vec<(usize, i64)>,
    /// The inner (vectorized) dimension; `None` if every dimension has
    /// size 1.
    pub inner: Option<(usize, i64)>,
    /// Number of rows (product of the outer sizes; 0 for an empty array).
    pub rows: i64,
    /// How iterations are formed.
    pub chunking: Chunking,
}

impl IterSpace {
    /// The walk over an array of `dims` under `layout` (its
    /// `minor_to_major` order), aiming at `target` elements per iteration.
    pub fn new(dims: &[i64], layout: &Layout, target: i64) -> Self {
        let phys: Vec<usize> = layout.major_to_minor().filter(|&d| dims[d] != 1).collect();
        let empty = dims.contains(&0);
        let (outer, inner) = match phys.split_last() {
            Some((&last, rest)) => (
                rest.iter().map(|&d| (d, dims[d])).collect::<Vec<_>>(),
                Some((last, dims[last])),
            ),
            None => (Vec::new(), None),
        };
        let rows = if empty {
            0
        } else {
            outer.iter().map(|&(_, n)| n).product()
        };
        let n = inner.map_or(1, |(_, n)| n);
        let chunking = if n >= 2 * target {
            let chunk = (target / 64).max(1) * 64;
            Chunking::Chunks {
                chunk,
                per_row: ceil_div(n, chunk),
            }
        } else {
            Chunking::Rows {
                per_iter: (target / n.max(1)).max(1),
            }
        };
        IterSpace {
            rank: dims.len(),
            outer,
            inner,
            rows,
            chunking,
        }
    }

    /// The walk over the positions of a kernel that computes each one on
    /// its own from a row of `row_elements` (a row reduction, a row
    /// kernel, a reduce-window line: [`IterSpace::emit_positions`]),
    /// aiming at `iteration_elements` elements of work per iteration: as
    /// [`IterSpace::new`], but when long rows put that below 64 positions,
    /// iterations of exactly that many, not of 64: the argmax of 64 rows of
    /// 50257 made one iteration, one thread's work.
    pub fn of_positions(
        dims: &[i64],
        layout: &Layout,
        iteration_elements: i64,
        row_elements: i64,
    ) -> Self {
        let target = (iteration_elements / row_elements.max(1)).max(1);
        if target >= 64 {
            Self::new(dims, layout, target)
        } else {
            Self::with_chunk(dims, layout, target)
        }
    }

    /// The walk over an array of `dims` under `layout` in iterations of at
    /// most `chunk` inner elements, one row per iteration when rows are
    /// shorter.
    pub fn with_chunk(dims: &[i64], layout: &Layout, chunk: i64) -> Self {
        let mut space = Self::new(dims, layout, chunk);
        let n = space.inner.map_or(1, |(_, n)| n);
        space.chunking = if n > chunk {
            Chunking::Chunks {
                chunk,
                per_row: ceil_div(n, chunk),
            }
        } else {
            Chunking::Rows { per_iter: 1 }
        };
        space
    }

    /// The walk in tiles (see [`Chunking::Tiles`]) of at least
    /// [`TILE_ROWS`] rows, for a kernel that reads an input across its
    /// rows at `stride` bytes, where rows are long enough and many enough
    /// for tiles to differ from rows.
    pub fn tiled(mut self, stride: i64) -> Self {
        let n = self.inner.map_or(1, |(_, n)| n);
        let tile = if stride % SET_PERIOD == 0 {
            SHORT_TILE
        } else {
            TILE
        };
        if let Chunking::Rows { per_iter } = self.chunking {
            if n >= 2 * tile && self.rows >= 2 {
                self.chunking = Chunking::Tiles {
                    per_iter: per_iter.max(TILE_ROWS),
                    tile,
                };
            }
        }
        self
    }

    /// The size of the runtime's iteration space.
    pub fn iterations(&self) -> i64 {
        match self.chunking {
            Chunking::Rows { per_iter } | Chunking::Tiles { per_iter, .. } => {
                ceil_div(self.rows, per_iter)
            }
            Chunking::Chunks { per_row, .. } => self.rows * per_row,
        }
    }

    /// Elements one iteration covers (at most).
    pub fn elements_per_iteration(&self) -> i64 {
        let n = self.inner.map_or(1, |(_, n)| n);
        match self.chunking {
            Chunking::Rows { per_iter } | Chunking::Tiles { per_iter, .. } => per_iter * n,
            Chunking::Chunks { chunk, .. } => chunk,
        }
    }

    /// Emits the walk over iterations `[start, end)`: `segment` runs once
    /// per (row, inner range) with the row's index (the inner dimension
    /// and size-1 dimensions at constant 0) and the inner range
    /// `[begin, end)`.
    pub fn emit<E>(
        &self,
        kb: &mut KernelBuilder,
        start: Value,
        end: Value,
        segment: impl FnMut(&mut KernelBuilder, &[IndexDim], Value, Value) -> Result<(), E>,
    ) -> Result<(), E> {
        self.walk(kb, start, end, &mut Segments(segment))
    }

    /// Emits `body` once per position of the walk over iterations
    /// `[start, end)`: the segment's index with its inner dimension (when
    /// the space walks one) set to each position of the segment in turn.
    pub fn emit_positions<E>(
        &self,
        kb: &mut KernelBuilder,
        start: Value,
        end: Value,
        mut body: impl FnMut(&mut KernelBuilder, Vec<IndexDim>) -> Result<(), E>,
    ) -> Result<(), E> {
        let inner = self.inner;
        self.emit(kb, start, end, |kb, row, c0, c1| match inner {
            None => body(kb, row.to_vec()),
            Some((d, _)) => kb.try_for_range(c0, c1, 1, |kb, c| {
                let mut idx = row.to_vec();
                idx[d] = IndexDim::uniform(c);
                body(kb, idx)
            }),
        })
    }

    /// Emits the walk over iterations `[start, end)` with per-iteration
    /// hooks (see [`Walker`]).
    pub fn walk<E>(
        &self,
        kb: &mut KernelBuilder,
        start: Value,
        end: Value,
        walker: &mut impl Walker<E>,
    ) -> Result<(), E> {
        let n = self.inner.map_or(1, |(_, n)| n);
        match self.chunking {
            Chunking::Chunks { .. } => kb.try_for_range(start, end, 1, |kb, it| {
                walker.begin(kb, it)?;
                let (idx, c0, c1) = self.segment_of(kb, it);
                walker.segment(kb, &idx, c0, c1)?;
                walker.end(kb, it)
            }),
            Chunking::Rows { per_iter } => kb.try_for_range(start, end, 1, |kb, it| {
                walker.begin(kb, it)?;
                let (r0, r1) = self.row_group(kb, it, per_iter);
                kb.try_for_range(r0, r1, 1, |kb, row| {
                    let idx = self.row_index(kb, row);
                    let c0 = kb.iconst(0);
                    let c1 = kb.iconst(n);
                    walker.segment(kb, &idx, c0, c1)
                })?;
                walker.end(kb, it)
            }),
            Chunking::Tiles { per_iter, tile } => kb.try_for_range(start, end, 1, |kb, it| {
                walker.begin(kb, it)?;
                let (r0, r1) = self.row_group(kb, it, per_iter);
                let mut tiles = |kb: &mut KernelBuilder, c0: Value, len: i64| {
                    // `c0 + len` as an `iadd` of a constant, so that the
                    // segment's length is known when it is emitted.
                    let len = kb.iconst(len);
                    let c1 = kb.b.ins().iadd(c0, len);
                    kb.try_for_range(r0, r1, 1, |kb, row| {
                        let idx = self.row_index(kb, row);
                        walker.segment(kb, &idx, c0, c1)
                    })
                };
                let whole = n / tile * tile;
                let (zero, end_of_whole) = (kb.iconst(0), kb.iconst(whole));
                kb.try_for_range(zero, end_of_whole, tile, |kb, c0| tiles(kb, c0, tile))?;
                if whole < n {
                    let c0 = kb.iconst(whole);
                    tiles(kb, c0, n - whole)?;
                }
                walker.end(kb, it)
            }),
        }
    }

    /// The rows `[r0, r1)` of iteration `it` of a walk of `per_iter` rows
    /// per iteration (the last group may be short).
    fn row_group(&self, kb: &mut KernelBuilder, it: Value, per_iter: i64) -> (Value, Value) {
        let r0 = kb.b.ins().imul_imm_s(it, per_iter);
        let r1 = kb.b.ins().iadd_imm_s(r0, per_iter);
        let rows = kb.iconst(self.rows);
        (r0, kb.b.ins().smin(r1, rows))
    }

    /// The one segment of iteration `it` (row index, inner range), for walks
    /// whose iterations cover one segment each (chunks, or one row per
    /// iteration).
    pub fn segment_of(&self, kb: &mut KernelBuilder, it: Value) -> (Vec<IndexDim>, Value, Value) {
        let n = self.inner.map_or(1, |(_, n)| n);
        match self.chunking {
            Chunking::Chunks { chunk, per_row } => {
                let (row, c0) = chunk_start(kb, it, chunk, per_row);
                let mut c1 = kb.b.ins().iadd_imm_s(c0, chunk);
                // Only a row's last chunk can be short.
                if n % chunk != 0 {
                    let limit = kb.iconst(n);
                    c1 = kb.b.ins().smin(c1, limit);
                }
                (self.row_index(kb, row), c0, c1)
            }
            Chunking::Rows { per_iter } | Chunking::Tiles { per_iter, .. } => {
                debug_assert_eq!(per_iter, 1, "one row per iteration");
                let (c0, c1) = (kb.iconst(0), kb.iconst(n));
                (self.row_index(kb, it), c0, c1)
            }
        }
    }

    /// The first position iteration `it` covers, numbering the walk's
    /// positions `row · n + inner` (`n` the inner size); `it` =
    /// [`IterSpace::iterations`] gives the number of positions.
    pub fn first_position(&self, kb: &mut KernelBuilder, it: Value) -> Value {
        let n = self.inner.map_or(1, |(_, n)| n);
        match self.chunking {
            Chunking::Chunks { chunk, per_row } => {
                let (row, c0) = chunk_start(kb, it, chunk, per_row);
                let row_start = kb.b.ins().imul_imm_s(row, n);
                kb.b.ins().iadd(row_start, c0)
            }
            Chunking::Rows { per_iter } | Chunking::Tiles { per_iter, .. } => {
                let r = kb.b.ins().imul_imm_s(it, per_iter);
                let rows = kb.iconst(self.rows);
                let r = kb.b.ins().smin(r, rows);
                kb.b.ins().imul_imm_s(r, n)
            }
        }
    }

    /// The index of position `p` (see [`IterSpace::first_position`]).
    pub fn position_index(&self, kb: &mut KernelBuilder, p: Value) -> Vec<IndexDim> {
        let Some((d, n)) = self.inner else {
            return self.row_index(kb, p);
        };
        // Positions are chunks of one, `n` per row.
        let (row, inner) = chunk_start(kb, p, 1, n);
        let mut idx = self.row_index(kb, row);
        idx[d] = IndexDim::uniform(inner);
        idx
    }

    /// The index of row `row` (outer dimensions decoded, others 0).
    pub fn row_index(&self, kb: &mut KernelBuilder, row: Value) -> Vec<IndexDim> {
        let mut idx = vec![IndexDim::constant(0); self.rank];
        let mut rest = row;
        for (k, &(d, size)) in self.outer.iter().enumerate().rev() {
            if k == 0 {
                idx[d] = IndexDim::uniform(rest);
            } else {
                let i = kb.b.ins().urem_imm_u(rest, size);
                idx[d] = IndexDim::uniform(i);
                rest = kb.b.ins().udiv_imm_u(rest, size);
            }
        }
        idx
    }
}

/// The row of chunk iteration `it` and the chunk's first inner position.
fn chunk_start(kb: &mut KernelBuilder, it: Value, chunk: i64, per_row: i64) -> (Value, Value) {
    let row = kb.b.ins().udiv_imm_u(it, per_row);
    let first = kb.b.ins().imul_imm_s(row, per_row);
    let c = kb.b.ins().isub(it, first);
    (row, kb.b.ins().imul_imm_s(c, chunk))
}

/// What a walk does at each iteration: `begin`, then `segment` for each
/// (row, inner range) of the iteration, then `end`.
pub trait Walker<E> {
    /// Before the first segment of iteration `it`.
    fn begin(&mut self, kb: &mut KernelBuilder, it: Value) -> Result<(), E> {
        let _ = (kb, it);
        Ok(())
    }
    /// One row's inner range `[begin, end)`.
    fn segment(
        &mut self,
        kb: &mut KernelBuilder,
        row: &[IndexDim],
        begin: Value,
        end: Value,
    ) -> Result<(), E>;
    /// After the last segment of iteration `it`.
    fn end(&mut self, kb: &mut KernelBuilder, it: Value) -> Result<(), E> {
        let _ = (kb, it);
        Ok(())
    }
}

/// A [`Walker`] that only handles segments.
struct Segments<F>(F);

impl<E, F> Walker<E> for Segments<F>
where
    F: FnMut(&mut KernelBuilder, &[IndexDim], Value, Value) -> Result<(), E>,
{
    fn segment(
        &mut self,
        kb: &mut KernelBuilder,
        row: &[IndexDim],
        begin: Value,
        end: Value,
    ) -> Result<(), E> {
        (self.0)(kb, row, begin, end)
    }
}

/// The most vectors an inner loop step computes.
pub const MAX_UNROLL: u32 = 4;

/// The vector constants a loop of one vector per step holds in registers
/// (see [`crate::clif::ConstTable`]). Such loops compute vector math
/// (see `cost::max_unroll`), whose other values leave about this many of
/// the 16 vector registers free; an unrolled loop's values need them all.
const HELD_CONSTANTS: usize = 4;

/// The vector unroll factor for an inner dimension of `n` elements at
/// `lanes` lanes: up to [`MAX_UNROLL`] vectors per loop step.
pub fn unroll_for(n: i64, lanes: u32) -> u32 {
    let l = lanes as i64;
    match n / l.max(1) {
        v if v >= 4 => MAX_UNROLL,
        v if v >= 2 => 2,
        _ => 1,
    }
}

/// Emits the inner loop over `[begin, end)`: `unroll` vectors of `lanes`
/// per step while a full step fits, then single vectors, then single
/// elements. `body` receives the inner dimension's index and the lane
/// count (1 in the tail). `begin` must be a multiple of `unroll · lanes`.
pub fn emit_inner<E>(
    kb: &mut KernelBuilder,
    begin: Value,
    end: Value,
    lanes: u32,
    unroll: u32,
    mut body: impl FnMut(&mut KernelBuilder, IndexDim, u32) -> Result<(), E>,
) -> Result<(), E> {
    emit_inner_steps(kb, begin, end, lanes, unroll, |kb, step, l| {
        step.iter().try_for_each(|&idx| body(kb, idx, l))
    })
}

/// [`emit_inner`] with a body that receives the indices of a whole loop
/// step at once (`unroll` of them in the unrolled loop, one elsewhere), so
/// that it can emit work for all of them before finishing each.
pub fn emit_inner_steps<E>(
    kb: &mut KernelBuilder,
    begin: Value,
    end: Value,
    lanes: u32,
    unroll: u32,
    mut step: impl FnMut(&mut KernelBuilder, &[IndexDim], u32) -> Result<(), E>,
) -> Result<(), E> {
    // With a length known at compile time, loops that would run zero
    // times are not emitted (a 1024-element row or a whole chunk needs no
    // tail): less code to compile.
    let known = kb.distance(begin, end);
    let l = lanes as i64;
    let mut tail_start = begin;
    if lanes > 1 {
        let step_len = unroll as i64 * l;
        let (main_end, rest) = match known {
            Some(len) => {
                let main = len / step_len * step_len;
                (kb.b.ins().iadd_imm_s(begin, main), Some(len - main))
            }
            None => {
                let len = kb.b.ins().isub(end, begin);
                let steps = kb.b.ins().udiv_imm_u(len, step_len);
                let main_len = kb.b.ins().imul_imm_s(steps, step_len);
                (kb.b.ins().iadd(begin, main_len), None)
            }
        };
        if known.is_none_or(|len| len >= step_len) {
            let held = if unroll == 1 { HELD_CONSTANTS } else { 0 };
            kb.try_for_range_holding(begin, main_end, step_len, held, |kb, j| {
                let idxs: Vec<IndexDim> = (0..unroll)
                    .map(|u| IndexDim {
                        var: Some(j),
                        offset: (u * lanes) as i64,
                        lane_stride: 1,
                        aligned: true,
                    })
                    .collect();
                step(kb, &idxs, lanes)
            })?;
        }
        tail_start = main_end;
        if unroll > 1 && rest.is_none_or(|r| r >= l) {
            let vec_end = match rest {
                Some(r) => kb.b.ins().iadd_imm_s(main_end, r / l * l),
                None => {
                    let rest = kb.b.ins().isub(end, main_end);
                    let vectors = kb.b.ins().udiv_imm_u(rest, l);
                    let vec_len = kb.b.ins().imul_imm_s(vectors, l);
                    kb.b.ins().iadd(main_end, vec_len)
                }
            };
            kb.try_for_range(main_end, vec_end, l, |kb, j| {
                step(kb, &[IndexDim::consecutive(j, true)], lanes)
            })?;
            tail_start = vec_end;
        }
        if rest.is_some_and(|r| r % l == 0) {
            return Ok(());
        }
    }
    kb.try_for_range(tail_start, end, 1, |kb, j| {
        step(kb, &[IndexDim::uniform(j)], 1)
    })
}
