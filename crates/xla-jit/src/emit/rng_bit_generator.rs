//! `rng-bit-generator` kernels (`docs/semantics.md`, *Random numbers*), bit-exact with the
//! interpreter (and so with XLA): Threefry-2x32 (20 rounds) and
//! Philox-4x32 (10 rounds) hashes of a counter, one iteration per hash, so
//! the runtime may split the hashes across threads.
//!
//! * Threefry, 64-bit outputs: hash `i` is `threefry(counter + i)` and
//!   fills element `i` (row-major) with `lo | hi << 32`.
//! * Threefry, 32-bit (and narrower) outputs: the *split* dimension is the
//!   first of even size (else the largest); hash `p` is at position `p` of
//!   the shape with the split dimension halved (rounded up) and fills the
//!   elements at split coordinate `2c` (word 0) and `2c + 1` (word 1, when
//!   in bounds). `u32[3]`: hashes `c, c+1` give `[t(c)₀, t(c)₁, t(c+1)₀]`. A
//!   scalar takes word 0 of one hash.
//! * Philox (and `rng_default`): block `b` is `philox(counter + b)` with a
//!   128-bit counter, and fills four 32-bit elements `4b … 4b+3` or two
//!   64-bit elements `2b, 2b+1` (`w₀ | w₁ << 32`, `w₂ | w₃ << 32`),
//!   row-major, the last block cut at the element count.
//!
//! Narrow outputs (`u8`, `u16`) keep the low bits of 32-bit words. The
//! state output (`u64`): the key (element 0), then the counter advanced by
//! the hashes drawn; written by the iteration range that starts at 0.

use cranelift_codegen::ir::condcodes::IntCC;
use cranelift_codegen::ir::{types, InstBuilder, Type, Value};
use xla_core::arith::ceil_div;
use xla_core::hlo::{HloInstruction, RngAlgorithm};
use xla_core::{Opcode, PrimitiveType, Shape};

use super::access::write;
use super::index::{Index, IndexDim};
use super::kernel::KernelBuilder;
use super::loop_kernel::elemental;
use super::{cost, Emit, KernelInfo, KernelPlan, Unsupported};

/// What one generator computes, from the instruction's shapes.
#[derive(Clone, Debug)]
struct Generator {
    philox: bool,
    /// Bits per draw: 32 or 64.
    width: u32,
    /// The bits' element type.
    ty: PrimitiveType,
    /// The bits' dimension sizes.
    dims: Vec<i64>,
    /// Elements of the `u64` state.
    state_len: i64,
}

impl Generator {
    fn of(instr: &HloInstruction, state: &Shape) -> Result<Generator, Unsupported> {
        let unsupported = |why: String| Unsupported::new(Opcode::RngBitGenerator, why);
        let out = instr
            .shape
            .tuple_shapes()
            .and_then(|t| t.get(1))
            .and_then(|s| s.as_array())
            .ok_or_else(|| {
                unsupported(format!("result shape {} is not (state, bits)", instr.shape))
            })?;
        let ty = out.element_type();
        let width = match ty {
            PrimitiveType::U64 => 64,
            PrimitiveType::U8 | PrimitiveType::U16 | PrimitiveType::U32 => 32,
            other => return Err(unsupported(format!("{other} bits"))),
        };
        let state = state
            .as_array()
            .filter(|s| s.element_type() == PrimitiveType::U64 && s.rank() == 1)
            .ok_or_else(|| unsupported(format!("state {state} is not u64[n]")))?;
        let state_len = state.dims()[0];
        let philox = match instr.attrs.rng_algorithm.unwrap_or(RngAlgorithm::Default) {
            RngAlgorithm::ThreeFry => false,
            RngAlgorithm::Philox | RngAlgorithm::Default => true,
        };
        let valid_state = if philox {
            state_len == 2 || state_len == 3
        } else {
            state_len == 2
        };
        if !valid_state {
            return Err(unsupported(format!(
                "state {state} of `{}` has the wrong size",
                instr.name
            )));
        }
        Ok(Generator {
            philox,
            width,
            ty,
            dims: out.dims().to_vec(),
            state_len,
        })
    }

    fn count(&self) -> i64 {
        self.dims.iter().product()
    }

    /// Output elements per Philox block.
    fn per_block(&self) -> i64 {
        if self.width == 64 {
            2
        } else {
            4
        }
    }

    /// Threefry's split dimension for 32-bit draws (`None` for a scalar).
    fn split(&self) -> Option<usize> {
        let dims = &self.dims;
        if dims.is_empty() {
            return None;
        }
        Some(dims.iter().position(|&d| d % 2 == 0).unwrap_or_else(|| {
            (0..dims.len()).fold(0, |m, d| if dims[d] > dims[m] { d } else { m })
        }))
    }

    /// Threefry's draw shape for 32-bit draws: the split dimension halved.
    fn halved(&self) -> Vec<i64> {
        let mut half = self.dims.clone();
        if let Some(s) = self.split() {
            half[s] = ceil_div(half[s], 2);
        }
        half
    }

    /// The number of hashes (the kernel's iterations, before `max(1)`).
    fn hashes(&self) -> i64 {
        if self.philox {
            ceil_div(self.count(), self.per_block())
        } else if self.width == 64 {
            self.count()
        } else {
            self.halved().iter().product()
        }
    }
}

/// What the kernels handle: unsigned outputs (as shape inference requires)
/// and the interpreter's state sizes.
pub(super) fn check(instr: &HloInstruction, state: &Shape) -> Result<(), Unsupported> {
    Generator::of(instr, state).map(|_| ())
}

/// The kernel of a fusion whose root is an `rng-bit-generator`: one
/// iteration per hash (at least one, which writes the state when nothing
/// is drawn).
pub(super) fn plan(info: &KernelInfo) -> Result<Vec<KernelPlan>, Unsupported> {
    let root = info.comp.instr(info.fusion.root);
    let state = root.operands[0];
    let generator = Generator::of(root, &info.comp.instr(state).shape)?;
    let hashes = generator.hashes();
    // A hash is 70–80 dependent integer ops (about 3 ns), then 2 or 4
    // stores.
    let per_hash = if generator.philox { 4.0 } else { 2.0 };
    Ok(vec![KernelPlan {
        part: "rng_bit_generator",
        iterations: hashes.max(1),
        cost_per_iteration: 3.0 + per_hash * cost::per_element(info, 1),
        scratch_bytes: 0,
        epilogue: false,
        emit: Emit::Clif(Box::new(move |kb, info| {
            let el = elemental(info);
            let element = |kb: &mut KernelBuilder, k: i64| {
                let k = kb.iconst(k);
                el.gen(kb, state, &Index::new(1, vec![IndexDim::uniform(k)]))
            };
            let key = element(kb, 0)?;
            let low = element(kb, 1)?;
            let high = if generator.state_len == 3 {
                element(kb, 2)?
            } else {
                key
            };
            let (start, end) = (kb.param(1), kb.param(2));
            let first = kb.b.ins().icmp_imm_s(IntCC::Equal, start, 0);
            let out = info.fusion.inputs.len();
            kb.branch(first, |kb, taken| {
                if taken {
                    write_state(kb, info, out, &generator, [key, low, high], hashes);
                }
                Ok::<_, Unsupported>(())
            })?;
            if hashes == 0 {
                return Ok(());
            }
            let limit = kb.iconst(hashes);
            let end = kb.b.ins().smin(end, limit);
            let key = halves(kb, key);
            kb.try_for_range(start, end, 1, |kb, i| {
                if generator.philox {
                    philox_block(kb, info, out + 1, &generator, key, [low, high], i)
                } else {
                    threefry_hash(kb, info, out + 1, &generator, key, low, i)
                }
            })
        })),
    }])
}

/// Writes the new state: the key, then the counter advanced by `hashes`
/// (Philox: 128-bit `(low, high)`, keeping as many words as the state has).
fn write_state(
    kb: &mut KernelBuilder,
    info: &KernelInfo,
    out: usize,
    generator: &Generator,
    [key, low, high]: [Value; 3],
    hashes: i64,
) {
    let n = kb.iconst(hashes);
    let (low, high) = add128(kb, low, high, n);
    let base = kb.buffer(out);
    for (k, v) in [key, low, high]
        .into_iter()
        .take(generator.state_len as usize)
        .enumerate()
    {
        let k = kb.iconst(k as i64);
        let idx = Index::new(1, vec![IndexDim::uniform(k)]);
        write(kb, &info.buffers[out], base, &idx, v);
    }
}

/// `(low, high) + n` as a 128-bit sum (`n` an `i64` ≥ 0).
fn add128(kb: &mut KernelBuilder, low: Value, high: Value, n: Value) -> (Value, Value) {
    let sum = kb.b.ins().iadd(low, n);
    let carry = kb.b.ins().icmp(IntCC::UnsignedLessThan, sum, low);
    let carry = kb.b.ins().uextend(types::I64, carry);
    (sum, kb.b.ins().iadd(high, carry))
}

/// The `i32` halves of an `i64`, low first.
fn halves(kb: &mut KernelBuilder, v: Value) -> [Value; 2] {
    let lo = kb.b.ins().ireduce(types::I32, v);
    let hi = kb.b.ins().ushr_imm_u(v, 32);
    [lo, kb.b.ins().ireduce(types::I32, hi)]
}

/// `lo | hi << 32` as an `i64`.
fn join(kb: &mut KernelBuilder, lo: Value, hi: Value) -> Value {
    let lo = kb.b.ins().uextend(types::I64, lo);
    let hi = kb.b.ins().uextend(types::I64, hi);
    let hi = kb.b.ins().ishl_imm_u(hi, 32);
    kb.b.ins().bor(lo, hi)
}

/// Threefry-2x32, 20 rounds, on `i32` values.
fn threefry2x32(kb: &mut KernelBuilder, input: [Value; 2], key: [Value; 2]) -> [Value; 2] {
    const ROTATIONS: [[i64; 4]; 2] = [[13, 15, 26, 6], [17, 29, 16, 24]];
    let parity = kb.b.ins().bxor(key[0], key[1]);
    let ks = [key[0], key[1], kb.b.ins().bxor_imm_u(parity, 0x1BD1_1BDA)];
    let mut x = [
        kb.b.ins().iadd(input[0], ks[0]),
        kb.b.ins().iadd(input[1], ks[1]),
    ];
    for block in 0..5usize {
        for &r in &ROTATIONS[block % 2] {
            x[0] = kb.b.ins().iadd(x[0], x[1]);
            let rotated = kb.b.ins().rotl_imm_u(x[1], r);
            x[1] = kb.b.ins().bxor(rotated, x[0]);
        }
        let i = block + 1;
        x[0] = kb.b.ins().iadd(x[0], ks[i % 3]);
        let x1 = kb.b.ins().iadd(x[1], ks[(i + 1) % 3]);
        x[1] = kb.b.ins().iadd_imm_s(x1, i as i64);
    }
    x
}

/// Philox-4x32, 10 rounds, on `i32` values.
fn philox4x32(kb: &mut KernelBuilder, counter: [Value; 4], key: [Value; 2]) -> [Value; 4] {
    const M0: i64 = 0xD251_1F53;
    const M1: i64 = 0xCD9E_8D57;
    const W0: i64 = 0x9E37_79B9;
    const W1: i64 = 0xBB67_AE85;
    let [m0, m1, w0, w1] = [M0, M1, W0, W1].map(|c| kb.int(types::I32, c));
    let (mut x, mut k) = (counter, key);
    for _ in 0..10 {
        let (lo0, hi0) = (kb.b.ins().imul(x[0], m0), kb.b.ins().umulhi(x[0], m0));
        let (lo1, hi1) = (kb.b.ins().imul(x[2], m1), kb.b.ins().umulhi(x[2], m1));
        let a = kb.b.ins().bxor(hi1, x[1]);
        let c = kb.b.ins().bxor(hi0, x[3]);
        x = [kb.b.ins().bxor(a, k[0]), lo1, kb.b.ins().bxor(c, k[1]), lo0];
        k = [kb.b.ins().iadd(k[0], w0), kb.b.ins().iadd(k[1], w1)];
    }
    x
}

/// The row-major index of element `e` (an `i64`) of `dims`.
fn row_major(kb: &mut KernelBuilder, dims: &[i64], e: Value) -> Vec<Value> {
    let mut stride = 1;
    let mut coordinates = vec![e; dims.len()];
    for d in (0..dims.len()).rev() {
        let q = kb.b.ins().udiv_imm_u(e, stride);
        coordinates[d] = kb.b.ins().urem_imm_u(q, dims[d]);
        stride *= dims[d];
    }
    coordinates
}

/// Writes a 32-bit word (`i32`) or a 64-bit draw (`i64`) as an element of
/// the bits output (narrow types keep the low bits).
fn store(
    kb: &mut KernelBuilder,
    info: &KernelInfo,
    bits: usize,
    ty: Type,
    index: &[Value],
    v: Value,
) {
    let v = if kb.ty(v).bits() > ty.bits() {
        kb.b.ins().ireduce(ty, v)
    } else {
        v
    };
    let idx = Index::new(1, index.iter().map(|&c| IndexDim::uniform(c)).collect());
    let base = kb.buffer(bits);
    write(kb, &info.buffers[bits], base, &idx, v);
}

/// The Cranelift type of the bits' elements.
fn bits_type(generator: &Generator) -> Type {
    match generator.ty.byte_size() {
        1 => types::I8,
        2 => types::I16,
        4 => types::I32,
        _ => types::I64,
    }
}

/// Threefry hash `i` and the elements it fills.
fn threefry_hash(
    kb: &mut KernelBuilder,
    info: &KernelInfo,
    bits: usize,
    generator: &Generator,
    key: [Value; 2],
    counter: Value,
    i: Value,
) -> Result<(), Unsupported> {
    let ty = bits_type(generator);
    let input = kb.b.ins().iadd(counter, i);
    let input = halves(kb, input);
    let [w0, w1] = threefry2x32(kb, input, key);
    if generator.width == 64 {
        let index = row_major(kb, &generator.dims, i);
        let v = join(kb, w0, w1);
        store(kb, info, bits, ty, &index, v);
        return Ok(());
    }
    let Some(split) = generator.split() else {
        store(kb, info, bits, ty, &[], w0);
        return Ok(());
    };
    let mut index = row_major(kb, &generator.halved(), i);
    let c = index[split];
    index[split] = kb.b.ins().ishl_imm_u(c, 1);
    store(kb, info, bits, ty, &index, w0);
    index[split] = kb.b.ins().iadd_imm_s(index[split], 1);
    let size = generator.dims[split];
    if size % 2 == 0 {
        store(kb, info, bits, ty, &index, w1);
        return Ok(());
    }
    let inside =
        kb.b.ins()
            .icmp_imm_s(IntCC::SignedLessThan, index[split], size);
    kb.branch(inside, |kb, taken| {
        if taken {
            store(kb, info, bits, ty, &index, w1);
        }
        Ok(())
    })
}

/// Philox block `b` and the elements it fills.
#[allow(clippy::too_many_arguments)]
fn philox_block(
    kb: &mut KernelBuilder,
    info: &KernelInfo,
    bits: usize,
    generator: &Generator,
    key: [Value; 2],
    [low, high]: [Value; 2],
    b: Value,
) -> Result<(), Unsupported> {
    let ty = bits_type(generator);
    let (low, high) = add128(kb, low, high, b);
    let [w0, w1] = halves(kb, low);
    let [w2, w3] = halves(kb, high);
    let w = philox4x32(kb, [w0, w1, w2, w3], key);
    let draws = if generator.width == 64 {
        vec![join(kb, w[0], w[1]), join(kb, w[2], w[3])]
    } else {
        w.to_vec()
    };
    let per_block = generator.per_block();
    let count = generator.count();
    let first = kb.b.ins().imul_imm_s(b, per_block);
    for (k, v) in draws.into_iter().enumerate() {
        let e = kb.b.ins().iadd_imm_s(first, k as i64);
        let index = row_major(kb, &generator.dims, e);
        if count % per_block == 0 {
            store(kb, info, bits, ty, &index, v);
            continue;
        }
        let inside = kb.b.ins().icmp_imm_s(IntCC::SignedLessThan, e, count);
        kb.branch(inside, |kb, taken| {
            if taken {
                store(kb, info, bits, ty, &index, v);
            }
            Ok(())
        })?;
    }
    Ok(())
}
