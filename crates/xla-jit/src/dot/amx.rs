//! bf16 dots on AMX tiles (Intel Sapphire Rapids and later), summed in
//! f32: XLA's `preferred_element_type=f32` bf16 matmul. On Emerald Rapids
//! (2026-12-06, `examples/gemm.rs`) a 512×1024·1024×1024 dot ran at 585
//! GFLOP/s on one thread, 3.3 times the f32 FMA peak of 176 measured in
//! the same run.
//!
//! A tile is a 2-D register of up to 16 rows of 64 bytes. The kernel keeps
//! a `32×32` f32 block of `C` in four tiles (`tmm0`–`tmm3`, 16×16 each)
//! and steps through `k` 32 values at a time: `A`'s two 16-row tiles
//! (`tmm4`, `tmm5`: 32 bf16 a row) are loaded straight from `A`'s rows,
//! `B`'s two 16-column tiles (`tmm6`, `tmm7`) from the pair panels the
//! `vdpbf16ps` kernel also reads (each 32-bit entry a pair of consecutive
//! `k`: the layout `tdpbf16ps` wants), and four `tdpbf16ps` add their
//! products. Each `tdpbf16ps` is `16×16×32` multiply-adds.
//!
//! Shapes whose `m`, `n` and `k` are multiples of 32, with `A`'s rows and
//! `C`'s rows contiguous, run here; the others widen bf16 for the f32
//! kernels. Like `vdpbf16ps`, `tdpbf16ps` treats subnormal inputs as zero
//! and flushes subnormal results, whatever the flush mode.

use std::sync::OnceLock;

use half::bf16;

use super::epilogue::{Epilogue, OutputBlock};
use super::gemm::{for_each_task, parts_per_matrix, with_buffers, Problem};
use super::matrix::{MatrixLayout, StridedMatrixMut};
use super::pack::{pack_b_pairs, Strided};
use crate::pool::ThreadPool;
use crate::wide::asm::{gpr::*, Asm, Cond, Mem};

/// The tile block's rows and columns (and `k` per step).
const BLOCK: usize = 32;
/// Columns of `B` whose packed panels a task keeps in L2 while it sweeps
/// its rows of `A`.
const PANELS_COLUMNS: usize = 256;

/// `kernel(blocks, a, lda, b, c, ldc)`: `C = A·B` for a `32×32` block of
/// f32 `C` (rows `ldc` bytes apart) from `blocks·32` columns of bf16 `A`
/// (rows `lda` bytes apart) and a 32-column pair panel of `B`.
pub(crate) type AmxFn =
    unsafe extern "C" fn(usize, *const bf16, usize, *const f32, *mut f32, usize);

/// `true` if the CPU has AMX-TILE and AMX-BF16 and the operating system
/// lets this process use the tile registers (Linux gives them on request,
/// once per process).
pub fn available() -> bool {
    static AVAILABLE: OnceLock<bool> = OnceLock::new();
    *AVAILABLE.get_or_init(|| cpu_has_amx_bf16() && tile_data_permitted())
}

fn cpu_has_amx_bf16() -> bool {
    #[cfg(target_arch = "x86_64")]
    {
        let leaf = std::arch::x86_64::__cpuid_count(7, 0);
        let (bf16, tile) = (leaf.edx >> 22 & 1, leaf.edx >> 24 & 1);
        crate::wide::cpu_has_avx512() && bf16 == 1 && tile == 1
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        false
    }
}

/// Asks Linux for the tile data state (`arch_prctl(ARCH_REQ_XCOMP_PERM,
/// XFEATURE_XTILEDATA)`); `false` where it refuses or elsewhere.
fn tile_data_permitted() -> bool {
    #[cfg(all(target_os = "linux", target_arch = "x86_64"))]
    {
        const ARCH_REQ_XCOMP_PERM: libc::c_long = 0x1023;
        const XFEATURE_XTILEDATA: libc::c_long = 18;
        // SAFETY: a request about this process's own state; no memory.
        unsafe {
            libc::syscall(
                libc::SYS_arch_prctl,
                ARCH_REQ_XCOMP_PERM,
                XFEATURE_XTILEDATA,
            ) == 0
        }
    }
    #[cfg(not(all(target_os = "linux", target_arch = "x86_64")))]
    {
        false
    }
}

/// The machine code of the kernel (see [`AmxFn`] and the module docs).
pub(super) fn kernel() -> Vec<u8> {
    let mut asm = Asm::default();
    let config = asm.label();
    // rdi = blocks, rsi = a, rdx = lda, rcx = b, r8 = c, r9 = ldc.
    asm.lea_label(RAX, config);
    asm.ldtilecfg(Mem::at(RAX, 0));
    for t in 0..4 {
        asm.tilezero(t);
    }
    // rax = A's row 16, r10 = a pair row of a panel (32 entries).
    asm.imul_imm(RAX, RDX, 16);
    asm.add(RAX, RSI);
    asm.mov_imm32(R10, 4 * BLOCK as u32);
    let step = asm.label();
    asm.bind(step);
    asm.tileloadd(4, RSI, RDX, 0);
    asm.tileloadd(5, RAX, RDX, 0);
    asm.tileloadd(6, RCX, R10, 0);
    asm.tileloadd(7, RCX, R10, 64);
    asm.tdpbf16ps(0, 4, 6);
    asm.tdpbf16ps(1, 4, 7);
    asm.tdpbf16ps(2, 5, 6);
    asm.tdpbf16ps(3, 5, 7);
    // 32 bf16 of A's rows; 16 pair rows of the panel.
    asm.add_imm(RSI, 2 * BLOCK as i32);
    asm.add_imm(RAX, 2 * BLOCK as i32);
    asm.add_imm(RCX, (16 * 4 * BLOCK) as i32);
    asm.add_imm(RDI, -1);
    asm.cmp_imm(RDI, 0);
    asm.jcc(Cond::G, step);
    // r11 = C's row 16.
    asm.imul_imm(R11, R9, 16);
    asm.add(R11, R8);
    asm.tilestored(R8, R9, 0, 0);
    asm.tilestored(R8, R9, 64, 1);
    asm.tilestored(R11, R9, 0, 2);
    asm.tilestored(R11, R9, 64, 3);
    asm.tilerelease();
    asm.ret();
    asm.data(64, &[]);
    asm.bind(config);
    asm.data(1, &tile_config());
    asm.finish()
}

/// The 64-byte tile configuration: palette 1, eight tiles of 16 rows of
/// 64 bytes.
fn tile_config() -> [u8; 64] {
    let mut config = [0u8; 64];
    config[0] = 1;
    for t in 0..8 {
        config[16 + 2 * t..18 + 2 * t].copy_from_slice(&64u16.to_le_bytes());
        config[48 + t] = 16;
    }
    config
}

/// `true` if `problem` has the shape the kernel takes (module docs).
pub(crate) fn takes(problem: &Problem<bf16, f32>) -> bool {
    let p = problem;
    [p.m, p.n, p.k].iter().all(|&d| d > 0 && d % BLOCK == 0)
        && p.strided_a().is_some_and(|a| a.cs == 1)
        && p.c.cs == 1
}

/// Runs `problem` (which [`takes`] accepts) on `kernel` over `pool`: `B`
/// packed into pair panels by tasks over its columns, then `C` by tasks
/// over its 32-row blocks, `epilogue` on each task's rows.
///
/// # Safety
///
/// As [`super::gemm::run`]; `kernel` is [`kernel`]'s code and the CPU
/// runs it ([`available`]).
pub(crate) unsafe fn run(
    pool: &ThreadPool,
    kernel: AmxFn,
    problem: &Problem<bf16, f32>,
    epilogue: Option<&dyn Epilogue<f32>>,
    parallel_min_flops: usize,
) {
    // A reference: the tasks capture it, not its (raw pointer) fields.
    let p = problem;
    let threads = p.threads(pool, parallel_min_flops);
    let panels = p.n / BLOCK;
    // One pair panel: k/2 pair rows of 32 entries.
    let panel_len = p.k / 2 * BLOCK;
    // The calling thread's packing buffer (kept between calls: no fresh
    // pages to fault in, no zeroing; every entry is written below).
    with_buffers(|buffers| {
        let buffer = buffers.b.slice::<f32>(p.batch * panels * panel_len);
        // Panel `t` (of batch matrix `t / panels`) is row `t`.
        let packed = Strided {
            ptr: buffer.as_mut_ptr(),
            rs: panel_len,
            cs: 1,
        };
        run_packed(pool, kernel, problem, epilogue, threads, packed);
    });
}

/// [`run`] with the packed panels of `B` as the rows of `packed` (the
/// packing tasks write disjoint rows, which the tasks over `C` read once
/// those are joined).
unsafe fn run_packed(
    pool: &ThreadPool,
    kernel: AmxFn,
    problem: &Problem<bf16, f32>,
    epilogue: Option<&dyn Epilogue<f32>>,
    threads: usize,
    packed: Strided<*mut f32>,
) {
    let p = problem;
    // A reference, as `p`: the tasks capture it, not its raw pointer.
    let a_matrix = &p.strided_a().expect("takes() accepts a strided A only");
    let panels = p.n / BLOCK;
    let panel_len = packed.rs;
    for_each_task(pool, threads, p.batch * panels, |task| {
        let (b, panel) = (task / panels, task % panels);
        let src = Strided {
            ptr: p.b.ptr.add(b * p.b_batch_stride),
            ..p.b
        }
        .at(0, panel * BLOCK);
        let dst = std::slice::from_raw_parts_mut(packed.at(task, 0).ptr, panel_len);
        pack_b_pairs(src, p.k, BLOCK, BLOCK, dst);
    });
    let row_blocks = p.m / BLOCK;
    let parts = parts_per_matrix(threads, p.batch, row_blocks);
    for_each_task(pool, threads, p.batch * parts, |task| {
        let (b, part) = (task / parts, task % parts);
        let (r0, r1) = (part * row_blocks / parts, (part + 1) * row_blocks / parts);
        let a = a_matrix.ptr.add(b * p.a_batch_stride);
        let c = p.c.ptr.add(b * p.c_batch_stride);
        let panels_of_batch = packed.at(b * panels, 0).ptr;
        for first in (0..panels).step_by(PANELS_COLUMNS / BLOCK) {
            let last = (first + PANELS_COLUMNS / BLOCK).min(panels);
            for row in r0..r1 {
                let a_rows = a.add(row * BLOCK * a_matrix.rs);
                for panel in first..last {
                    kernel(
                        p.k / BLOCK,
                        a_rows,
                        a_matrix.rs * 2,
                        panels_of_batch.add(panel * panel_len),
                        c.add(row * BLOCK * p.c.rs + panel * BLOCK),
                        p.c.rs * 4,
                    );
                }
            }
        }
        if let Some(epilogue) = epilogue {
            let rows = (r1 - r0) * BLOCK;
            let layout = MatrixLayout::new(rows, p.n, p.c.rs, 1);
            epilogue.apply(OutputBlock {
                c: StridedMatrixMut::from_raw(c.add(r0 * BLOCK * p.c.rs), layout),
                batch: b,
                row0: r0 * BLOCK,
                col0: 0,
            });
        }
    });
}
