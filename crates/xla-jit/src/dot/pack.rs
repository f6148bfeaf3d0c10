//! Packing: copying a block of an operand, read through any strides, into
//! the contiguous panel order the micro-kernel streams.
//!
//! Both packed formats are tiled layouts (`docs/semantics.md`, *Tiles*) of the block they copy;
//! tiles that overrun the block are padded with zeros, so edge panels run
//! the full kernel and contribute nothing from the padding.
//!
//! **Packed `A`**: an `mc×kc` block, as `MR`-row panels, each value repeated
//! `copies` times (the kernel's broadcast, see
//! [`KernelShape::a_copies`](super::kernel::KernelShape::a_copies)). With
//! `copies = 1` it is `f32[mc,kc]{0,1:T(kc,MR)}`: physical order `[k, m]`,
//! one tile per panel, inside a tile `k`-major. With copies it is the same
//! tiling of `A` broadcast along a new minor dimension,
//! `f32[mc,kc,copies]{2,0,1:T(kc,MR,copies)}`. Element `A[i, p]` is at
//! `((i / MR)·kc + p)·MR·copies + (i % MR)·copies + l` for `l < copies`.
//!
//! Worked example, `MR = 2`, `copies = 1`, a `3×2` block `[[a,b],[c,d],[e,f]]`:
//! panel 0 (rows 0–1) is `a c b d`, panel 1 (row 2 + a zero row) is `e 0 f 0`;
//! buffer `a c b d e 0 f 0`. `A[2,1] = f` is at `(1·2 + 1)·2 + 0 = 6`.
//!
//! **Packed `B`**: a `kc×nc` block as `NR`-column panels,
//! `f32[kc,nc]{1,0:T(kc,NR)}`: `B[p, j]` is at `((j / NR)·kc + p)·NR + j % NR`.
//! Worked example, `NR = 2`, the `2×3` block `[[a,b,c],[d,e,f]]`: panel 0 is
//! `a b d e`, panel 1 is `c 0 f 0`; `B[1,2] = f` is at `(1·2 + 1)·2 + 0 = 6`.

use half::{bf16, f16};

use super::window::WindowDims;

/// An element type packing converts to the kernel's type `T` (f16 and bf16
/// widen to f32, so their products accumulate in f32).
pub(crate) trait Widen<T>: Copy + Send + Sync + 'static {
    fn widen(self) -> T;
}

impl Widen<f32> for f32 {
    fn widen(self) -> f32 {
        self
    }
}

impl Widen<f64> for f64 {
    fn widen(self) -> f64 {
        self
    }
}

impl Widen<f32> for f16 {
    fn widen(self) -> f32 {
        self.to_f32()
    }
}

impl Widen<f32> for bf16 {
    fn widen(self) -> f32 {
        self.to_f32()
    }
}

/// A strided matrix in memory: element `(i, j)` at `ptr + i·rs + j·cs`
/// (in elements). The GEMM driver's internal form of a view.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Strided<P> {
    pub ptr: P,
    pub rs: usize,
    pub cs: usize,
}

// SAFETY: a `Strided` is an address plus strides; the drivers hand each
// thread disjoint output elements and read inputs only.
unsafe impl<P> Send for Strided<P> {}
// SAFETY: as above.
unsafe impl<P> Sync for Strided<P> {}

impl<S> Strided<*const S> {
    /// The same matrix starting at element `(i, j)`.
    ///
    /// # Safety
    ///
    /// `(i, j)` must be inside the allocation.
    pub unsafe fn at(self, i: usize, j: usize) -> Self {
        Strided {
            ptr: self.ptr.add(i * self.rs + j * self.cs),
            ..self
        }
    }
}

impl<T> Strided<*mut T> {
    /// The same matrix starting at element `(i, j)`.
    ///
    /// # Safety
    ///
    /// `(i, j)` must be inside the allocation.
    pub unsafe fn at(self, i: usize, j: usize) -> Self {
        Strided {
            ptr: self.ptr.add(i * self.rs + j * self.cs),
            ..self
        }
    }
}

/// Packs the `rows×kc` block of `A` at `src` into `dst` as `MR`-row panels
/// with `copies` copies of each value; `dst` holds
/// `⌈rows/MR⌉·kc·MR·copies` elements.
///
/// # Safety
///
/// Every element `(i < rows, p < kc)` of `src` must be readable.
pub(crate) unsafe fn pack_a<S: Widen<T>, T: Copy + Default + 'static>(
    src: Strided<*const S>,
    rows: usize,
    kc: usize,
    mr: usize,
    copies: usize,
    dst: &mut [T],
) {
    let (row, col) = (|i: usize| src.ptr.add(i * src.rs), |p: usize| p * src.cs);
    pack_a_panels(row, col, rows, kc, (mr, copies), dst);
}

/// Packs rows `row0 .. row0 + rows` and columns `col0 .. col0 + kc` of a
/// window view of `A` (element `(i, p)` at `ptr + row offset + column
/// offset`, see [`WindowDims::offsets`]) into `dst`, as [`pack_a`] packs a
/// strided block; `offsets` is scratch.
///
/// # Safety
///
/// Every element of the block must be readable.
#[allow(clippy::too_many_arguments)]
pub(crate) unsafe fn pack_a_window<S: Widen<T>, T: Copy + Default + 'static>(
    ptr: *const S,
    (row_dims, col_dims): (&WindowDims, &WindowDims),
    (row0, rows): (usize, usize),
    (col0, kc): (usize, usize),
    mr: usize,
    copies: usize,
    dst: &mut [T],
    offsets: &mut Vec<usize>,
) {
    offsets.resize(rows + kc, 0);
    let (row_offsets, col_offsets) = offsets.split_at_mut(rows);
    row_dims.offsets(row0, row_offsets);
    col_dims.offsets(col0, col_offsets);
    let (row, col) = (
        |i: usize| ptr.add(row_offsets[i]),
        |p: usize| col_offsets[p],
    );
    pack_a_panels(row, col, rows, kc, (mr, copies), dst);
}

/// The panels of `rows×kc` elements of `A`, element `(i, p)` at
/// `row(i) + col(p)`: full panels of the kernels' shapes by loops with
/// their sizes known at compile time, the others (and edge panels,
/// zero-padded) by [`pack_a_edge`].
unsafe fn pack_a_panels<S: Widen<T>, T: Copy + Default + 'static>(
    row: impl Fn(usize) -> *const S,
    col: impl Fn(usize) -> usize + Copy,
    rows: usize,
    kc: usize,
    (mr, copies): (usize, usize),
    dst: &mut [T],
) {
    let panel_len = kc * mr * copies;
    debug_assert!(dst.len() >= rows.div_ceil(mr) * panel_len);
    // The 14-row f32 panels in zmm registers, with the contiguous runs of
    // columns found once for all the panels.
    #[cfg(target_arch = "x86_64")]
    let runs = ((mr, copies) == (14, 1)
        && std::any::TypeId::of::<(S, T)>() == std::any::TypeId::of::<(f32, f32)>()
        && std::arch::is_x86_feature_detected!("avx512f"))
    .then(|| contiguous_runs(col, kc));
    #[cfg(not(target_arch = "x86_64"))]
    let runs: Option<Vec<usize>> = None;
    for (panel, out) in dst
        .chunks_exact_mut(panel_len)
        .take(rows.div_ceil(mr))
        .enumerate()
    {
        let r0 = panel * mr;
        let height = mr.min(rows - r0);
        let row = |i: usize| row(r0 + i);
        match (height == mr, mr, copies, runs.as_deref()) {
            (true, 6, 4, _) => pack_a_panel::<S, T, 6, 4>(row, col, kc, out),
            (true, 6, 2, _) => pack_a_panel::<S, T, 6, 2>(row, col, kc, out),
            (true, 6, 1, _) => pack_a_panel::<S, T, 6, 1>(row, col, kc, out),
            #[cfg(target_arch = "x86_64")]
            (true, 14, 1, Some(runs)) => {
                // S and T are f32 (checked with `runs`): the casts change
                // no type.
                let rows: [*const f32; 14] = std::array::from_fn(|i| row(i).cast());
                pack_a_panel_14_avx512(&rows, col, runs, out.as_mut_ptr().cast());
            }
            (true, 14, 1, _) => pack_a_panel::<S, T, 14, 1>(row, col, kc, out),
            _ => pack_a_edge(row, col, (height, kc), (mr, copies), out),
        }
    }
}

/// One full `MR`-row panel, with the sizes known at compile time.
unsafe fn pack_a_panel<S: Widen<T>, T: Copy, const MR: usize, const COPIES: usize>(
    row: impl Fn(usize) -> *const S,
    col: impl Fn(usize) -> usize,
    kc: usize,
    out: &mut [T],
) {
    let rows: [*const S; MR] = std::array::from_fn(row);
    let out = out.as_mut_ptr().cast::<[[T; COPIES]; MR]>();
    for p in 0..kc {
        let offset = col(p);
        let step: [[T; COPIES]; MR] =
            std::array::from_fn(|i| [(*rows[i].add(offset)).widen(); COPIES]);
        out.add(p).write_unaligned(step);
    }
}

/// `runs[p]`: how many columns from `p` on (of `kc`) lie at consecutive
/// offsets, `col(p + j) = col(p) + j`.
#[cfg(target_arch = "x86_64")]
fn contiguous_runs(col: impl Fn(usize) -> usize, kc: usize) -> Vec<usize> {
    let mut runs = vec![1; kc];
    for p in (0..kc.saturating_sub(1)).rev() {
        if col(p + 1) == col(p) + 1 {
            runs[p] = runs[p + 1] + 1;
        }
    }
    runs
}

/// A full 14-row f32 panel (AVX-512's kernel) in `zmm` registers: where
/// 16 columns in a row are contiguous in memory (within a run of a
/// convolution's features, or a row-major `A`), the 14 rows' 16 values
/// are loaded as vectors and transposed as a 16×16 block (two zero rows)
/// by three rounds of unpacks and two of 128-bit shuffles, then each
/// column's 14 values stored under a mask; other columns one element at a
/// time. Element by element, a panel cost about as much as the 128 flops
/// that an `N = 64` product spends on each element of `A`.
///
/// # Safety
///
/// As [`pack_a_panel`]; the CPU runs AVX-512F; `runs` is
/// [`contiguous_runs`] of `col` over the panel's `kc` columns; `out` holds
/// `14·kc` floats.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx512f")]
unsafe fn pack_a_panel_14_avx512(
    rows: &[*const f32; 14],
    col: impl Fn(usize) -> usize,
    runs: &[usize],
    out: *mut f32,
) {
    use std::arch::x86_64::*;
    let mut p = 0;
    while p < runs.len() {
        let offset = col(p);
        if runs[p] < 16 {
            for (i, r) in rows.iter().enumerate() {
                *out.add(p * 14 + i) = *r.add(offset);
            }
            p += 1;
            continue;
        }
        let mut r = [_mm512_setzero_ps(); 16];
        for (v, row) in r.iter_mut().zip(rows) {
            *v = _mm512_loadu_ps(row.add(offset));
        }
        // Pairs of rows interleaved by 32 bits, then by 64 bits: each
        // 128-bit lane holds four rows' values of one column.
        let mut t = [_mm512_setzero_ps(); 16];
        for i in 0..8 {
            t[2 * i] = _mm512_unpacklo_ps(r[2 * i], r[2 * i + 1]);
            t[2 * i + 1] = _mm512_unpackhi_ps(r[2 * i], r[2 * i + 1]);
        }
        for q in 0..4 {
            let (a, b) = (_mm512_castps_pd(t[4 * q]), _mm512_castps_pd(t[4 * q + 2]));
            let (c, d) = (
                _mm512_castps_pd(t[4 * q + 1]),
                _mm512_castps_pd(t[4 * q + 3]),
            );
            r[4 * q] = _mm512_castpd_ps(_mm512_unpacklo_pd(a, b));
            r[4 * q + 1] = _mm512_castpd_ps(_mm512_unpackhi_pd(a, b));
            r[4 * q + 2] = _mm512_castpd_ps(_mm512_unpacklo_pd(c, d));
            r[4 * q + 3] = _mm512_castpd_ps(_mm512_unpackhi_pd(c, d));
        }
        // 128-bit lanes: rows 0–3 with 4–7 (and 8–11 with 12–15), then
        // the two halves together.
        for h in 0..2 {
            for j in 0..4 {
                let (a, b) = (r[8 * h + j], r[8 * h + 4 + j]);
                t[8 * h + j] = _mm512_shuffle_f32x4::<0x88>(a, b);
                t[8 * h + 4 + j] = _mm512_shuffle_f32x4::<0xdd>(a, b);
            }
        }
        for j in 0..8 {
            r[j] = _mm512_shuffle_f32x4::<0x88>(t[j], t[8 + j]);
            r[8 + j] = _mm512_shuffle_f32x4::<0xdd>(t[j], t[8 + j]);
        }
        // `r[j]` is column j: rows 0–13 in its lanes 0–13.
        for (j, v) in r.into_iter().enumerate() {
            _mm512_mask_storeu_ps(out.add((p + j) * 14), 0x3FFF, v);
        }
        p += 16;
    }
}

/// A panel of any shape, zero-padded below `height` rows.
unsafe fn pack_a_edge<S: Widen<T>, T: Copy + Default>(
    row: impl Fn(usize) -> *const S,
    col: impl Fn(usize) -> usize,
    (height, kc): (usize, usize),
    (mr, copies): (usize, usize),
    out: &mut [T],
) {
    for p in 0..kc {
        let offset = col(p);
        for i in 0..mr {
            let value = if i < height {
                (*row(i).add(offset)).widen()
            } else {
                T::default()
            };
            let at = (p * mr + i) * copies;
            out[at..at + copies].fill(value);
        }
    }
}

/// Two bf16 values of consecutive `k` as one 32-bit panel entry (`lo` in
/// the low half, as `vdpbf16ps` pairs them), kept as an f32's bits.
fn pair(lo: bf16, hi: bf16) -> f32 {
    f32::from_bits(u32::from(lo.to_bits()) | (u32::from(hi.to_bits()) << 16))
}

/// Packs the `rows×kc` bf16 block of `A` at `src` into `MR`-row panels of
/// pairs for the bf16 kernel: entry `(q, i)` of a panel, at `q·MR + i`, is
/// the pair `A[i, 2q], A[i, 2q+1]`; an odd `kc`'s last pair and the rows
/// past the block are zeros. `dst` holds `⌈rows/MR⌉·⌈kc/2⌉·MR` entries.
///
/// # Safety
///
/// Every element `(i < rows, p < kc)` of `src` must be readable.
pub(crate) unsafe fn pack_a_pairs(
    src: Strided<*const bf16>,
    rows: usize,
    kc: usize,
    mr: usize,
    dst: &mut [f32],
) {
    let pairs = kc.div_ceil(2);
    for (panel, out) in dst
        .chunks_exact_mut(pairs * mr)
        .take(rows.div_ceil(mr))
        .enumerate()
    {
        let r0 = panel * mr;
        let height = mr.min(rows - r0);
        // Row-contiguous full panels: each pair is one 32-bit load.
        let whole = if height == mr && src.cs == 1 && mr == 14 {
            a_pair_panel::<14>(src.at(r0, 0), kc / 2, out);
            kc / 2
        } else {
            0
        };
        let at = |i: usize, p: usize| {
            if i < height && p < kc {
                *src.ptr.add((r0 + i) * src.rs + p * src.cs)
            } else {
                bf16::ZERO
            }
        };
        for q in whole..pairs {
            for i in 0..mr {
                out[q * mr + i] = pair(at(i, 2 * q), at(i, 2 * q + 1));
            }
        }
    }
}

/// The first `pairs` pairs of a full `MR`-row panel of a row-contiguous
/// `A`.
unsafe fn a_pair_panel<const MR: usize>(src: Strided<*const bf16>, pairs: usize, out: &mut [f32]) {
    let rows: [*const u32; MR] = std::array::from_fn(|i| src.ptr.add(i * src.rs).cast::<u32>());
    let out = out.as_mut_ptr().cast::<[u32; MR]>();
    for q in 0..pairs {
        out.add(q)
            .write_unaligned(std::array::from_fn(|i| rows[i].add(q).read_unaligned()));
    }
}

/// Packs the `kc×cols` bf16 block of `B` at `src` into `NR`-column panels
/// of pairs: entry `(q, j)` of a panel, at `q·NR + j`, is the pair
/// `B[2q, j], B[2q+1, j]`; an odd `kc`'s last pair and the columns past
/// the block are zeros. `dst` holds `⌈cols/NR⌉·⌈kc/2⌉·NR` entries.
///
/// # Safety
///
/// Every element `(p < kc, j < cols)` of `src` must be readable.
pub(crate) unsafe fn pack_b_pairs(
    src: Strided<*const bf16>,
    kc: usize,
    cols: usize,
    nr: usize,
    dst: &mut [f32],
) {
    let pairs = kc.div_ceil(2);
    for (panel, out) in dst
        .chunks_exact_mut(pairs * nr)
        .take(cols.div_ceil(nr))
        .enumerate()
    {
        let c0 = panel * nr;
        let width = nr.min(cols - c0);
        // Column-contiguous full panels: two rows interleaved at a time.
        let whole = match (width == nr && src.cs == 1, nr) {
            #[cfg(target_arch = "x86_64")]
            (true, 32) if std::arch::is_x86_feature_detected!("avx512bw") => {
                b_pair_panel_32_avx512(src.at(0, c0), kc / 2, out.as_mut_ptr().cast())
            }
            (true, 32) => b_pair_panel::<32>(src.at(0, c0), kc / 2, out),
            (true, 16) => b_pair_panel::<16>(src.at(0, c0), kc / 2, out),
            _ => 0,
        };
        let at = |p: usize, j: usize| {
            if j < width && p < kc {
                *src.ptr.add(p * src.rs + (c0 + j) * src.cs)
            } else {
                bf16::ZERO
            }
        };
        for q in whole..pairs {
            for j in 0..nr {
                out[q * nr + j] = pair(at(2 * q, j), at(2 * q + 1, j));
            }
        }
    }
}

/// [`b_pair_panel`] for 32 columns in AVX-512 registers: each row of 32
/// bf16 is one `zmm`, two rows interleave by 16-bit unpacks (within
/// 128-bit lanes) and a permute of 64-bit pieces puts the pairs back in
/// column order. Returns `pairs`.
///
/// # Safety
///
/// As [`pack_b_pairs`]; the CPU runs AVX-512BW; `out` holds `32·pairs`
/// entries.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx512f,avx512bw")]
unsafe fn b_pair_panel_32_avx512(src: Strided<*const bf16>, pairs: usize, out: *mut u32) -> usize {
    use std::arch::x86_64::*;
    // 64-bit pieces: the unpacks' lanes 0, 1 (columns 0–15), then 2, 3.
    let first = _mm512_set_epi64(11, 10, 3, 2, 9, 8, 1, 0);
    let second = _mm512_set_epi64(15, 14, 7, 6, 13, 12, 5, 4);
    for q in 0..pairs {
        let row = |p: usize| _mm512_loadu_si512(src.ptr.add(p * src.rs).cast());
        let (lo, hi) = (row(2 * q), row(2 * q + 1));
        let (low, high) = (_mm512_unpacklo_epi16(lo, hi), _mm512_unpackhi_epi16(lo, hi));
        let dst = out.add(32 * q);
        _mm512_storeu_si512(dst.cast(), _mm512_permutex2var_epi64(low, first, high));
        _mm512_storeu_si512(
            dst.add(16).cast(),
            _mm512_permutex2var_epi64(low, second, high),
        );
    }
    pairs
}

/// The first `pairs` pairs of a full `NR`-column panel of a
/// column-contiguous `B`; returns `pairs`.
unsafe fn b_pair_panel<const NR: usize>(
    src: Strided<*const bf16>,
    pairs: usize,
    out: &mut [f32],
) -> usize {
    let out = out.as_mut_ptr().cast::<[u32; NR]>();
    for q in 0..pairs {
        let row = |p: usize| src.ptr.add(p * src.rs).cast::<[u16; NR]>().read_unaligned();
        let (lo, hi) = (row(2 * q), row(2 * q + 1));
        out.add(q).write_unaligned(std::array::from_fn(|j| {
            u32::from(lo[j]) | (u32::from(hi[j]) << 16)
        }));
    }
    pairs
}

/// Packs the `kc×cols` block of `B` at `src` into `dst` as `NR`-column
/// panels; `dst` holds `⌈cols/NR⌉·kc·NR` elements.
///
/// # Safety
///
/// Every element `(p < kc, j < cols)` of `src` must be readable.
pub(crate) unsafe fn pack_b<S: Widen<T>, T: Copy + Default>(
    src: Strided<*const S>,
    kc: usize,
    cols: usize,
    nr: usize,
    dst: &mut [T],
) {
    let panel_len = kc * nr;
    debug_assert!(dst.len() >= cols.div_ceil(nr) * panel_len);
    for (panel, out) in dst
        .chunks_exact_mut(panel_len)
        .take(cols.div_ceil(nr))
        .enumerate()
    {
        let c0 = panel * nr;
        let width = nr.min(cols - c0);
        let src = src.at(0, c0);
        match (width == nr, nr) {
            (true, 32) => pack_b_panel::<S, T, 32>(src, kc, out),
            (true, 16) => pack_b_panel::<S, T, 16>(src, kc, out),
            (true, 8) => pack_b_panel::<S, T, 8>(src, kc, out),
            (true, 4) => pack_b_panel::<S, T, 4>(src, kc, out),
            _ => pack_b_edge(src, width, kc, nr, out),
        }
    }
}

/// One full `NR`-column panel, with `NR` known at compile time.
unsafe fn pack_b_panel<S: Widen<T>, T: Copy, const NR: usize>(
    src: Strided<*const S>,
    kc: usize,
    out: &mut [T],
) {
    let out = out.as_mut_ptr().cast::<[T; NR]>();
    if src.cs == 1 {
        for p in 0..kc {
            let row = src.ptr.add(p * src.rs).cast::<[S; NR]>().read_unaligned();
            out.add(p).write_unaligned(row.map(Widen::widen));
        }
    } else {
        let cols: [*const S; NR] = std::array::from_fn(|j| src.ptr.add(j * src.cs));
        for p in 0..kc {
            let offset = p * src.rs;
            out.add(p)
                .write_unaligned(std::array::from_fn(|j| (*cols[j].add(offset)).widen()));
        }
    }
}

/// A panel of any width, zero-padded right of `width` columns.
unsafe fn pack_b_edge<S: Widen<T>, T: Copy + Default>(
    src: Strided<*const S>,
    width: usize,
    kc: usize,
    nr: usize,
    out: &mut [T],
) {
    for p in 0..kc {
        for j in 0..nr {
            out[p * nr + j] = if j < width {
                (*src.ptr.add(p * src.rs + j * src.cs)).widen()
            } else {
                T::default()
            };
        }
    }
}

#[cfg(test)]
mod tests;
