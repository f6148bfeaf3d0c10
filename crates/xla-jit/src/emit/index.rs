//! The index model: where in an array a generator is evaluated.
//!
//! An [`Index`] has one [`IndexDim`] per logical dimension. Each holds the
//! index of lane 0 as `var + offset` (a Cranelift value, or none for 0, plus
//! a compile-time constant) and a compile-time `lane_stride`: lane `l` is at
//! `var + offset + l·lane_stride`. Keeping the constant apart lets the
//! unrolled copies of a loop body share `var` and differ only in `offset`,
//! which ends up in the memory instructions' immediates.
//!
//! Example: a 4-lane loop over `f32[8,16]{1,0}` at row `r`, columns
//! `j..j+4` (second unrolled copy) has the index `[(r, 0, 0), (j, 4, 1)]`.
//! `transpose(x, {1,0})` maps it to `[(j, 4, 1), (r, 0, 0)]` for `x`; a
//! `slice` with start 2 and stride 3 maps `(j, 4, 1)` to `(3j, 14, 3)`, which
//! reads with a strided gather; `reverse` gives `(−j, 15 − 4, −1)`, a vector
//! load and a lane reversal.

use cranelift_codegen::ir::{types, InstBuilder, Value};

use super::kernel::{CacheKey, KernelBuilder};

/// One dimension of an [`Index`]: lane `l` is at `var + offset + l·lane_stride`.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub struct IndexDim {
    /// The variable part of lane 0's index (`None` = 0), an `i64`.
    pub var: Option<Value>,
    /// The constant part of lane 0's index.
    pub offset: i64,
    /// How much the index grows from one lane to the next.
    pub lane_stride: i64,
    /// `var` is known to be a multiple of the kernel's lane count.
    pub aligned: bool,
}

impl IndexDim {
    /// The constant index `c` in every lane.
    pub fn constant(c: i64) -> Self {
        IndexDim {
            var: None,
            offset: c,
            lane_stride: 0,
            aligned: true,
        }
    }

    /// `var` in every lane (a uniform index).
    pub fn uniform(var: Value) -> Self {
        IndexDim {
            var: Some(var),
            offset: 0,
            lane_stride: 0,
            aligned: false,
        }
    }

    /// `var + l` in lane `l`, where `var` is a multiple of the lane count
    /// when `aligned`.
    pub fn consecutive(var: Value, aligned: bool) -> Self {
        IndexDim {
            var: Some(var),
            offset: 0,
            lane_stride: 1,
            aligned,
        }
    }

    /// The index plus the constant `c`.
    pub fn plus(self, c: i64) -> Self {
        IndexDim {
            offset: self.offset + c,
            ..self
        }
    }

    /// The index times the constant `k` (lane stride and offset scale).
    pub fn times(self, kb: &mut KernelBuilder, k: i64) -> Self {
        if k == 1 {
            return self;
        }
        IndexDim {
            var: self.var.map(|v| kb.b.ins().imul_imm_s(v, k)),
            offset: self.offset * k,
            lane_stride: self.lane_stride * k,
            aligned: self.aligned,
        }
    }

    /// `c − index` (for reversed dimensions).
    pub fn reversed(self, kb: &mut KernelBuilder, c: i64) -> Self {
        IndexDim {
            var: self.var.map(|v| kb.b.ins().ineg(v)),
            offset: c - self.offset,
            lane_stride: -self.lane_stride,
            aligned: self.aligned,
        }
    }

    /// Lane 0's index as an `i64` value.
    pub fn value(&self, kb: &mut KernelBuilder) -> Value {
        match self.var {
            Some(v) if self.offset == 0 => v,
            Some(v) => kb.b.ins().iadd_imm_s(v, self.offset),
            None => kb.b.ins().iconst(types::I64, self.offset),
        }
    }

    /// The same index seen by one lane `l` (a scalar index).
    pub fn lane(&self, l: u32) -> Self {
        IndexDim {
            var: self.var,
            offset: self.offset + l as i64 * self.lane_stride,
            lane_stride: 0,
            aligned: false,
        }
    }

    /// `true` if lane 0's value modulo `lanes` is known to be 0.
    pub fn lane_aligned(&self, lanes: u32) -> bool {
        (self.var.is_none() || self.aligned) && self.offset.rem_euclid(lanes as i64) == 0
    }
}

/// Where a generator is evaluated: one [`IndexDim`] per dimension, for
/// `lanes` consecutive positions of the kernel's iteration.
#[derive(Clone, PartialEq, Eq, Debug)]
pub struct Index {
    /// Number of positions (vector lanes) evaluated at once.
    pub lanes: u32,
    /// Per logical dimension.
    pub dims: Vec<IndexDim>,
}

impl Index {
    /// An index with the given dimensions.
    pub fn new(lanes: u32, dims: Vec<IndexDim>) -> Self {
        Index { lanes, dims }
    }

    /// The index of a rank-0 array.
    pub fn scalar(lanes: u32) -> Self {
        Index {
            lanes,
            dims: Vec::new(),
        }
    }

    /// The index seen by lane `l` alone.
    pub fn lane(&self, l: u32) -> Index {
        Index {
            lanes: 1,
            dims: self.dims.iter().map(|d| d.lane(l)).collect(),
        }
    }

    /// `true` if every lane reads the same position.
    pub fn is_uniform(&self) -> bool {
        self.lanes == 1 || self.dims.iter().all(|d| d.lane_stride == 0)
    }

    /// The generator-cache key of instruction `id` at this index.
    pub(crate) fn key(&self, id: u32) -> CacheKey {
        (
            id,
            self.dims
                .iter()
                .map(|d| (d.var, d.offset, d.lane_stride))
                .collect(),
            self.lanes,
        )
    }
}

/// The indices `index + l·lane_stride` of `lanes` lanes as a vector of
/// integer type `ty` (a scalar when `lanes == 1`), wrapping to its width.
pub fn lane_values(
    kb: &mut KernelBuilder,
    dim: &IndexDim,
    ty: cranelift_codegen::ir::Type,
    lanes: u32,
) -> Value {
    let v = dim.value(kb);
    let v = if ty.lane_type() == types::I64 {
        v
    } else {
        kb.b.ins().ireduce(ty.lane_type(), v)
    };
    if lanes == 1 {
        return v;
    }
    let vector = crate::clif::vector_of(ty.lane_type());
    let bytes_per = (ty.lane_bits() / 8) as usize;
    let count = 16 / bytes_per;
    let mut bytes = Vec::with_capacity(16);
    for l in 0..count as i64 {
        let step = (l * dim.lane_stride) as u64;
        bytes.extend_from_slice(&step.to_le_bytes()[..bytes_per]);
    }
    let steps = kb.vconst(vector, bytes);
    let base = kb.b.ins().splat(vector, v);
    kb.b.ins().iadd(base, steps)
}
