//! Reading and writing buffers at an [`Index`], through their layouts.
//!
//! A dense layout (a `minor_to_major` order, no tiles or padding) has one
//! stride per dimension; the address of lane 0 is
//! `base + Σ var_d·stride_d·size` with `Σ offset_d·stride_d·size` in the
//! memory instruction's immediate, and the memory stride between lanes,
//! `Σ lane_stride_d·stride_d` elements, picks the access: 0 → one scalar
//! load splatted, 1 → a vector load, −1 → a vector load and a lane
//! reversal, anything else → one load per lane.
//!
//! Padded and tiled layouts use per-dimension offset tables (the buffer
//! offset of an index is `Σ_d table_d[index_d]`, see
//! [`Addressing::Tables`]), one scalar access per lane.

use cranelift_codegen::ir::condcodes::IntCC;
use cranelift_codegen::ir::{types, InstBuilder, Type, Value};
use xla_core::layout::{IndexMap, Layout, COMBINE_DIM};
use xla_core::{ArrayShape, PrimitiveType};

use super::float16::{bf16_to_f32, f16_to_f32, f32_to_bf16, f32_to_f16};
use super::index::Index;
use super::kernel::KernelBuilder;
use super::repr::{from_lanes, lane, lane_type, mask_as, scalar_pred, splat};
use super::Unsupported;
use crate::clif::vector_of;

/// How a buffer's element offsets are computed.
#[derive(Clone, Debug)]
pub enum Addressing {
    /// Offset = `Σ index_d · strides[d]` (elements).
    Dense(Vec<i64>),
    /// Offset = `Σ_d tables[d][index_d]`: the addresses of per-dimension
    /// tables of `i64` offsets (kept alive by the `Jit`). Exists for every
    /// layout whose tiles merge no dimensions: padding and permutation scale
    /// coordinates and a tile splits one into `(⌊e/t⌋, e mod t)`, so each
    /// coordinate of the tiled index depends on one logical dimension.
    /// Example: `f32[3,5]{1,0:T(2,2)}` has tables `[0, 2, 12]` and
    /// `[0, 1, 4, 5, 8]`; element `(2,3)` is at `12 + 5 = 17`.
    Tables(Vec<usize>),
}

/// A buffer as a kernel sees it.
#[derive(Clone, Debug)]
pub struct BufferSpec {
    /// Element type.
    pub ty: PrimitiveType,
    /// Logical dimension sizes.
    pub dims: Vec<i64>,
    /// How offsets are computed.
    pub addressing: Addressing,
}

impl BufferSpec {
    /// The spec of an array of `shape`; `tables` registers offset tables for
    /// non-dense layouts and returns their addresses.
    pub fn new(
        shape: &ArrayShape,
        tables: &mut dyn FnMut(Vec<i64>) -> usize,
    ) -> Result<Self, Unsupported> {
        let layout = shape.layout_or_default();
        let dims = shape.dims().to_vec();
        let addressing = match layout.dense_strides(&dims) {
            Some(strides) => Addressing::Dense(strides),
            None => Addressing::Tables(offset_tables(&dims, &layout, tables)?),
        };
        Ok(BufferSpec {
            ty: shape.element_type(),
            dims,
            addressing,
        })
    }
}

fn offset_tables(
    dims: &[i64],
    layout: &Layout,
    register: &mut dyn FnMut(Vec<i64>) -> usize,
) -> Result<Vec<usize>, Unsupported> {
    if layout.tiles.iter().any(|t| t.dims.contains(&COMBINE_DIM)) {
        return Err(Unsupported::layout(format!(
            "tiles that combine dimensions (`*`) in layout {layout:?}"
        )));
    }
    let map = IndexMap::new(dims, layout).map_err(|e| Unsupported::layout(e.to_string()))?;
    let mut index = vec![0i64; dims.len()];
    (0..dims.len())
        .map(|d| {
            // A table has one entry per index of its dimension; a dimension
            // too large for memory leaves the buffer to the interpreter
            // (whose allocation then reports the lack of memory).
            let len = dims[d].max(1);
            let mut table = Vec::new();
            usize::try_from(len)
                .ok()
                .and_then(|n| table.try_reserve_exact(n).ok())
                .ok_or_else(|| {
                    Unsupported::layout(format!(
                        "the offset table of dimension {d} (size {}) of layout {layout:?} \
                         does not fit in memory",
                        dims[d]
                    ))
                })?;
            table.extend((0..len).map(|v| {
                index[d] = v.min(dims[d] - 1).max(0);
                if dims.contains(&0) {
                    0
                } else {
                    map.linear(&index)
                }
            }));
            index[d] = 0;
            Ok(register(table))
        })
        .collect()
}

/// The storage lane type of an element type in memory.
fn storage_lane(ty: PrimitiveType) -> Type {
    match ty {
        PrimitiveType::F16 | PrimitiveType::Bf16 => types::I16,
        _ => lane_type(ty),
    }
}

/// Lane 0's address (`base` plus the variable part) and constant byte
/// offset, and the memory stride between lanes in elements.
fn dense_address(
    kb: &mut KernelBuilder,
    strides: &[i64],
    size: i64,
    base: Value,
    idx: &Index,
) -> (Value, i64, i64) {
    let mut addr = base;
    let mut konst = 0;
    let mut lane_stride = 0;
    for (d, s) in idx.dims.iter().zip(strides) {
        konst += d.offset * s * size;
        lane_stride += d.lane_stride * s;
        if let Some(v) = d.var {
            let scaled = kb.b.ins().imul_imm_s(v, s * size);
            addr = kb.b.ins().iadd(addr, scaled);
        }
    }
    (addr, konst, lane_stride)
}

/// The byte address of lane `l` through offset tables.
fn table_address(
    kb: &mut KernelBuilder,
    tables: &[usize],
    size: i64,
    base: Value,
    idx: &Index,
    l: u32,
) -> Value {
    let mut offset = kb.iconst(0);
    for (d, &table) in idx.dims.iter().zip(tables) {
        let i = d.lane(l).value(kb);
        let byte = kb.b.ins().imul_imm_s(i, 8);
        let t = kb.iconst(table as i64);
        let entry = kb.b.ins().iadd(t, byte);
        let off = kb.load(types::I64, entry, 0);
        offset = kb.b.ins().iadd(offset, off);
    }
    let bytes = kb.b.ins().imul_imm_s(offset, size);
    kb.b.ins().iadd(base, bytes)
}

/// Which memory a load reads.
#[derive(Copy, Clone, PartialEq, Eq, Debug)]
pub enum Access {
    /// An input: never written by the kernel, so loads may move.
    Input,
    /// An output the kernel also writes (accumulators): loads stay ordered
    /// with stores.
    Output,
}

/// Reads the input buffer `spec` at `base` at `idx`, in register form.
pub fn read(kb: &mut KernelBuilder, spec: &BufferSpec, base: Value, idx: &Index) -> Value {
    read_from(kb, spec, base, idx, Access::Input)
}

/// Reads buffer `spec` at `base` at `idx` as `access` says.
pub fn read_from(
    kb: &mut KernelBuilder,
    spec: &BufferSpec,
    base: Value,
    idx: &Index,
    access: Access,
) -> Value {
    let size = spec.ty.byte_size() as i64;
    let lanes = idx.lanes;
    match &spec.addressing {
        Addressing::Dense(strides) => {
            let (addr, konst, ms) = dense_address(kb, strides, size, base, idx);
            if lanes == 1 || ms == 0 {
                let v = load_scalar(kb, spec.ty, addr, konst, access);
                return splat_elem(kb, spec.ty, v, lanes);
            }
            match ms {
                1 => load_vector(kb, spec.ty, lanes, addr, konst, access),
                -1 => {
                    let v = load_vector(
                        kb,
                        spec.ty,
                        lanes,
                        addr,
                        konst - (lanes as i64 - 1) * size,
                        access,
                    );
                    reverse_lanes(kb, v, lanes)
                }
                _ => {
                    let scalars: Vec<Value> = (0..lanes as i64)
                        .map(|l| load_scalar(kb, spec.ty, addr, konst + l * ms * size, access))
                        .collect();
                    pack(kb, spec.ty, &scalars)
                }
            }
        }
        Addressing::Tables(tables) => {
            let count = if idx.is_uniform() { 1 } else { lanes };
            let scalars: Vec<Value> = (0..count)
                .map(|l| {
                    let addr = table_address(kb, tables, size, base, idx, l);
                    load_scalar(kb, spec.ty, addr, 0, access)
                })
                .collect();
            if count == 1 {
                splat_elem(kb, spec.ty, scalars[0], lanes)
            } else {
                pack(kb, spec.ty, &scalars)
            }
        }
    }
}

/// Writes `v` (register form of `spec.ty` at `idx.lanes` lanes) to the
/// buffer `spec` at `base` at `idx`.
pub fn write(kb: &mut KernelBuilder, spec: &BufferSpec, base: Value, idx: &Index, v: Value) {
    let size = spec.ty.byte_size() as i64;
    let lanes = idx.lanes;
    match &spec.addressing {
        Addressing::Dense(strides) => {
            let (addr, konst, ms) = dense_address(kb, strides, size, base, idx);
            if lanes == 1 {
                store_scalar(kb, spec.ty, v, addr, konst);
            } else if ms == 1 {
                store_vector(kb, spec.ty, lanes, v, addr, konst);
            } else {
                for l in 0..lanes {
                    let x = lane_scalar(kb, spec.ty, v, l);
                    store_scalar(kb, spec.ty, x, addr, konst + l as i64 * ms * size);
                }
            }
        }
        Addressing::Tables(tables) => {
            for l in 0..lanes {
                let addr = table_address(kb, tables, size, base, idx, l);
                let x = lane_scalar(kb, spec.ty, v, l);
                store_scalar(kb, spec.ty, x, addr, 0);
            }
        }
    }
}

/// Lane `l` of a register value, pred masks as 0/1.
pub fn lane_scalar(kb: &mut KernelBuilder, ty: PrimitiveType, v: Value, l: u32) -> Value {
    let x = lane(kb, v, l);
    if ty == PrimitiveType::Pred {
        scalar_pred(kb, x)
    } else {
        x
    }
}

/// Packs per-lane scalars (pred as 0/1) into a register value.
pub fn pack(kb: &mut KernelBuilder, ty: PrimitiveType, scalars: &[Value]) -> Value {
    if ty == PrimitiveType::Pred && scalars.len() > 1 {
        let masks: Vec<Value> = scalars
            .iter()
            .map(|&s| {
                let s = scalar_pred(kb, s);
                kb.b.ins().ineg(s)
            })
            .collect();
        return from_lanes(kb, &masks);
    }
    from_lanes(kb, scalars)
}

/// A scalar element value in every lane (pred as a mask).
pub fn splat_elem(kb: &mut KernelBuilder, ty: PrimitiveType, v: Value, lanes: u32) -> Value {
    if ty == PrimitiveType::Pred && lanes > 1 {
        let m = kb.b.ins().ineg(v);
        return splat(kb, m, lanes);
    }
    splat(kb, v, lanes)
}

fn reverse_lanes(kb: &mut KernelBuilder, v: Value, lanes: u32) -> Value {
    let w = (kb.ty(v).lane_bits() / 8) as usize;
    let lanes = lanes as usize;
    let mut mask = [0u8; 16];
    for (j, byte) in mask.iter_mut().enumerate() {
        let (l, k) = (j / w, j % w);
        *byte = if l < lanes {
            ((lanes - 1 - l) * w + k) as u8
        } else {
            0
        };
    }
    let ty = kb.ty(v);
    let r = kb.shuffle_bytes(v, v, mask);
    kb.bitcast(ty, r)
}

/// Loads one element at `addr + offset` bytes into its register form.
pub fn load_scalar(
    kb: &mut KernelBuilder,
    ty: PrimitiveType,
    addr: Value,
    offset: i64,
    access: Access,
) -> Value {
    let load = |kb: &mut KernelBuilder, t: Type| match access {
        Access::Input => kb.load(t, addr, offset),
        Access::Output => kb.load_mut(t, addr, offset),
    };
    match ty {
        PrimitiveType::F16 | PrimitiveType::Bf16 => {
            let h = load(kb, types::I16);
            let h = kb.b.ins().uextend(types::I32, h);
            if ty == PrimitiveType::F16 {
                f16_to_f32(kb, h)
            } else {
                bf16_to_f32(kb, h)
            }
        }
        PrimitiveType::Pred => {
            let byte = load(kb, types::I8);
            kb.b.ins().icmp_imm_s(IntCC::NotEqual, byte, 0)
        }
        _ => load(kb, storage_lane(ty)),
    }
}

/// The integer type of `bytes` bytes (1, 2, 4 or 8) and the 128-bit vector
/// of such lanes.
fn chunk_types(bytes: i64) -> (Type, Type) {
    match bytes {
        1 => (types::I8, types::I8X16),
        2 => (types::I16, types::I16X8),
        4 => (types::I32, types::I32X4),
        8 => (types::I64, types::I64X2),
        _ => unreachable!("a partial vector of {bytes} bytes"),
    }
}

/// Loads `lanes` consecutive elements (exactly `lanes · size` bytes: never
/// past the buffer's end) into their register form.
pub fn load_vector(
    kb: &mut KernelBuilder,
    ty: PrimitiveType,
    lanes: u32,
    addr: Value,
    offset: i64,
    access: Access,
) -> Value {
    let load = |kb: &mut KernelBuilder, t: Type| match access {
        Access::Input => kb.load(t, addr, offset),
        Access::Output => kb.load_mut(t, addr, offset),
    };
    let lane = storage_lane(ty);
    let bytes = lanes as i64 * ty.byte_size() as i64;
    let raw = if bytes == 16 {
        load(kb, vector_of(lane))
    } else {
        let (scalar, vector) = chunk_types(bytes);
        let s = load(kb, scalar);
        let v = kb.b.ins().scalar_to_vector(vector, s);
        kb.bitcast(vector_of(lane), v)
    };
    match ty {
        PrimitiveType::F16 => {
            let wide = kb.b.ins().uwiden_low(raw);
            f16_to_f32(kb, wide)
        }
        PrimitiveType::Bf16 => {
            let wide = kb.b.ins().uwiden_low(raw);
            bf16_to_f32(kb, wide)
        }
        PrimitiveType::Pred => {
            let zero = kb.vconst(types::I8X16, vec![0; 16]);
            kb.b.ins().icmp(IntCC::NotEqual, raw, zero)
        }
        _ => raw,
    }
}

/// Stores one element in register form (pred as 0/1).
pub fn store_scalar(kb: &mut KernelBuilder, ty: PrimitiveType, v: Value, addr: Value, offset: i64) {
    let v = match ty {
        PrimitiveType::F16 | PrimitiveType::Bf16 => {
            let bits = if ty == PrimitiveType::F16 {
                f32_to_f16(kb, v)
            } else {
                f32_to_bf16(kb, v)
            };
            kb.b.ins().ireduce(types::I16, bits)
        }
        _ => v,
    };
    kb.store(v, addr, offset);
}

/// Stores the first `lanes` lanes of a register value (exactly
/// `lanes · size` bytes).
pub fn store_vector(
    kb: &mut KernelBuilder,
    ty: PrimitiveType,
    lanes: u32,
    v: Value,
    addr: Value,
    offset: i64,
) {
    let raw = match ty {
        PrimitiveType::F16 | PrimitiveType::Bf16 => {
            let bits = if ty == PrimitiveType::F16 {
                f32_to_f16(kb, v)
            } else {
                f32_to_bf16(kb, v)
            };
            kb.b.ins().unarrow(bits, bits)
        }
        PrimitiveType::Pred => {
            let m = mask_as(kb, v, 8);
            let one = kb.vconst(types::I8X16, vec![1; 16]);
            kb.b.ins().band(m, one)
        }
        _ => v,
    };
    let bytes = lanes as i64 * ty.byte_size() as i64;
    if bytes == 16 {
        kb.store(raw, addr, offset);
    } else {
        let (_, vector) = chunk_types(bytes);
        let chunks = kb.bitcast(vector, raw);
        let low = kb.b.ins().extractlane(chunks, 0);
        kb.store(low, addr, offset);
    }
}
