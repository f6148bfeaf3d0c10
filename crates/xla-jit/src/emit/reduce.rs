//! Reduction fusions: a `reduce` root whose operands' producers are
//! computed inside the reduction loop.
//!
//! Three shapes of kernel, by where the reduced dimensions lie in the
//! operand's layout:
//!
//! * **row** (the operand's minor-most dimension is reduced, e.g. summing
//!   each row of `f32[4096,4096]{1,0}`): the runtime's iterations cover
//!   output elements; each streams its reduced elements through `unroll`
//!   vector accumulators, combines them lane by lane and stores one value.
//! * **column** (the minor-most dimension is kept and is also the output's
//!   minor-most, e.g. summing the columns): iterations cover chunks of up to
//!   [`COLUMN_CHUNK`] output columns; the chunk of the output buffer, which
//!   stays in L1, is the accumulator: it is set to the init value, then
//!   every reduced row is combined into it with vector loads and stores.
//! * **full** (every dimension of size > 1 is reduced): two kernels sharing a
//!   scratch buffer: the first reduces each of its iterations' chunks to a
//!   partial result in `scratch[iteration]`, the second (one iteration)
//!   folds the partials into the init value in order. The result does not
//!   depend on how the runtime splits the first kernel's iterations.
//!
//! Vector accumulators need the combiner's identity (add, multiply, max,
//! min, and, or, xor recognized in `to_apply`); other reducers (variadic
//! ones such as argmax, or arbitrary computations) fold one element at a
//! time from the init value, except in column kernels, where every lane is
//! its own fold anyway.

use cranelift_codegen::ir::Value;
use cranelift_frontend::Variable;
use xla_core::hlo::{ComputationId, HloInstruction, InstrId};
use xla_core::{HloModule, Opcode, PrimitiveType, Shape};

use super::access::{lane_scalar, read_from, write, Access};
use super::elemental::{emit_computation, Elemental};
use super::elementwise;
use super::index::{Index, IndexDim};
use super::iterate::{emit_inner, unroll_for, IterSpace, Walker, TARGET_ELEMENTS};
use super::kernel::KernelBuilder;
use super::loop_kernel::{elemental, fusion_lanes};
use super::repr::{constant, Const};
use super::{cost, KernelInfo, KernelPlan, Unsupported};

/// Output columns per iteration of a column reduction: 4 KiB of f32
/// accumulators, which stay in L1 while the reduced rows stream by.
pub const COLUMN_CHUNK: i64 = 1024;

/// A reduce's `to_apply`, applied to register values.
pub(super) struct Combiner<'m> {
    module: &'m HloModule,
    to_apply: ComputationId,
    /// `Some(op)` when `to_apply` is `op(p0, p1)` of a single value.
    op: Option<Opcode>,
    /// Element types of the reduced values.
    pub tys: Vec<PrimitiveType>,
}

impl<'m> Combiner<'m> {
    /// The combiner of `reduce`.
    pub fn new(
        module: &'m HloModule,
        el: &Elemental,
        reduce: &HloInstruction,
    ) -> Result<Self, Unsupported> {
        let to_apply = *reduce
            .called
            .first()
            .ok_or_else(|| Unsupported::new(Opcode::Reduce, "no to_apply"))?;
        let n = reduce.operands.len() / 2;
        let tys: Vec<PrimitiveType> = reduce.operands[..n].iter().map(|&o| el.ty(o)).collect();
        let comp = module.computation(to_apply);
        let root = comp.root_instr();
        let params = |i: usize| comp.instr(root.operands[i]).opcode == Opcode::Parameter;
        let op = (n == 1
            && root.operands.len() == 2
            && params(0)
            && params(1)
            && root.operands[0] != root.operands[1])
            .then_some(root.opcode)
            .filter(|op| {
                matches!(
                    op,
                    Opcode::Add
                        | Opcode::Multiply
                        | Opcode::Maximum
                        | Opcode::Minimum
                        | Opcode::And
                        | Opcode::Or
                        | Opcode::Xor
                ) && identity(*op, tys[0]).is_some()
            });
        Ok(Combiner {
            module,
            to_apply,
            op,
            tys,
        })
    }

    /// The identity of a recognized combiner, if any.
    pub fn identity(&self) -> Option<Const> {
        self.op.and_then(|op| identity(op, self.tys[0]))
    }

    /// `to_apply(accs, xs)`, lane-wise.
    pub fn combine(
        &self,
        kb: &mut KernelBuilder,
        accs: &[Value],
        xs: &[Value],
        lanes: u32,
    ) -> Result<Vec<Value>, Unsupported> {
        if let Some(op) = self.op {
            return Ok(vec![elementwise::binary(
                kb,
                op,
                self.tys[0],
                accs[0],
                xs[0],
                lanes,
            )?]);
        }
        let args: Vec<(Value, PrimitiveType)> = accs
            .iter()
            .chain(xs)
            .zip(self.tys.iter().chain(&self.tys))
            .map(|(&v, &t)| (v, t))
            .collect();
        emit_computation(kb, self.module, self.to_apply, &args, lanes)
    }
}

/// The identity of `op` on `ty` (`−0` for float sums, so an all-`−0` sum
/// stays `−0`).
fn identity(op: Opcode, ty: PrimitiveType) -> Option<Const> {
    let float = ty.is_floating();
    let bits = ty.bit_width() as u32;
    let all_ones = if bits >= 64 {
        u64::MAX
    } else {
        (1u64 << bits) - 1
    };
    let signed = ty.is_signed_integral();
    Some(match op {
        Opcode::Add | Opcode::Or | Opcode::Xor if float => Const::Float(-0.0),
        Opcode::Add | Opcode::Or | Opcode::Xor => Const::Bits(0),
        Opcode::Multiply if float => Const::Float(1.0),
        Opcode::Multiply => Const::Bits(1),
        Opcode::Maximum if float => Const::Float(f64::NEG_INFINITY),
        Opcode::Maximum if signed => Const::Bits(1u64 << (bits - 1)),
        Opcode::Maximum => Const::Bits(0),
        Opcode::Minimum if float => Const::Float(f64::INFINITY),
        Opcode::Minimum if signed => Const::Bits((1u64 << (bits - 1)) - 1),
        Opcode::Minimum => Const::Bits(all_ones),
        Opcode::And if !float => Const::Bits(all_ones),
        _ => return None,
    })
}

/// Running results of one reduction: `unroll` vector accumulators and one
/// scalar accumulator per reduced value, as Cranelift variables.
pub(super) struct Accumulators {
    vectors: Vec<Vec<Variable>>,
    scalars: Vec<Variable>,
    lanes: u32,
    unroll: u32,
    next: usize,
}

impl Accumulators {
    /// Accumulators starting at the combiner's identity (vectors) — or at
    /// `init` for scalar folds (`lanes == 1`).
    pub fn new(
        kb: &mut KernelBuilder,
        comb: &Combiner,
        lanes: u32,
        unroll: u32,
        init: &[Value],
    ) -> Self {
        let scalars = comb
            .tys
            .iter()
            .enumerate()
            .map(|(k, &t)| {
                let v = match comb.identity() {
                    Some(c) => constant(kb, t, c, 1),
                    None => init[k],
                };
                let var = kb.b.declare_var(kb.ty(v));
                kb.b.def_var(var, v);
                var
            })
            .collect();
        let vectors = if lanes > 1 {
            let c = comb
                .identity()
                .expect("vector accumulators need an identity");
            (0..unroll)
                .map(|_| {
                    comb.tys
                        .iter()
                        .map(|&t| {
                            let v = constant(kb, t, c, lanes);
                            let var = kb.b.declare_var(kb.ty(v));
                            kb.b.def_var(var, v);
                            var
                        })
                        .collect()
                })
                .collect()
        } else {
            Vec::new()
        };
        Accumulators {
            vectors,
            scalars,
            lanes,
            unroll,
            next: 0,
        }
    }

    /// Folds `xs` (at `lanes` lanes: a full vector or one element) into
    /// the accumulators.
    pub fn add(
        &mut self,
        kb: &mut KernelBuilder,
        comb: &Combiner,
        xs: &[Value],
        lanes: u32,
    ) -> Result<(), Unsupported> {
        let vars = if lanes == 1 {
            self.scalars.clone()
        } else {
            let k = self.next % self.unroll as usize;
            self.next += 1;
            self.vectors[k].clone()
        };
        let accs: Vec<Value> = vars.iter().map(|&v| kb.b.use_var(v)).collect();
        let r = comb.combine(kb, &accs, xs, lanes)?;
        for (&var, v) in vars.iter().zip(r) {
            kb.b.def_var(var, v);
        }
        Ok(())
    }

    /// The reduction of everything added, one scalar per value (not yet
    /// combined with the init value when an identity was used).
    pub fn finish(
        &self,
        kb: &mut KernelBuilder,
        comb: &Combiner,
    ) -> Result<Vec<Value>, Unsupported> {
        let mut total: Vec<Value> = self.scalars.iter().map(|&v| kb.b.use_var(v)).collect();
        if self.lanes == 1 {
            return Ok(total);
        }
        let mut vec: Vec<Value> = self.vectors[0].iter().map(|&v| kb.b.use_var(v)).collect();
        for u in 1..self.unroll as usize {
            let other: Vec<Value> = self.vectors[u].iter().map(|&v| kb.b.use_var(v)).collect();
            vec = comb.combine(kb, &vec, &other, self.lanes)?;
        }
        for l in 0..self.lanes {
            let xs: Vec<Value> = vec
                .iter()
                .zip(&comb.tys)
                .map(|(&v, &t)| lane_scalar(kb, t, v, l))
                .collect();
            total = comb.combine(kb, &total, &xs, 1)?;
        }
        Ok(total)
    }
}

/// The reduced dimensions of `reduce`'s operand of size > 1, in the
/// operand's physical order (most major first).
fn reduced_dims(el: &Elemental, reduce: &HloInstruction) -> Vec<(usize, i64)> {
    let operand = el.comp.instr(reduce.operands[0]);
    let Shape::Array(a) = &operand.shape else {
        return Vec::new();
    };
    let reduced = reduce.attrs.dimensions.clone().unwrap_or_default();
    a.layout_or_default()
        .major_to_minor()
        .filter(|&d| reduced.contains(&(d as i64)) && a.dims()[d] != 1)
        .map(|d| (d, a.dims()[d]))
        .collect()
}

/// The operand index of output index `out` (kept dimensions in order,
/// reduced dimensions at 0).
pub(super) fn operand_index(reduce: &HloInstruction, rank: usize, out: &Index) -> Index {
    let reduced = reduce.attrs.dimensions.clone().unwrap_or_default();
    let mut kept = out.dims.iter();
    let dims = (0..rank as i64)
        .map(|d| {
            if reduced.contains(&d) {
                IndexDim::constant(0)
            } else {
                *kept
                    .next()
                    .expect("one output dimension per kept dimension")
            }
        })
        .collect();
    Index::new(out.lanes, dims)
}

/// Reduces `reduce` over all its reduced dimensions at one output position
/// (`base`: the operand index with reduced dimensions at 0); returns one
/// scalar per reduced value, combined with the init values.
pub(super) fn reduce_at(
    el: &Elemental,
    kb: &mut KernelBuilder,
    comb: &Combiner,
    reduce: &HloInstruction,
    base: &Index,
    lanes: u32,
) -> Result<Vec<Value>, Unsupported> {
    let n = comb.tys.len();
    let init = (0..n)
        .map(|k| el.gen(kb, reduce.operands[n + k], &Index::scalar(1)))
        .collect::<Result<Vec<_>, _>>()?;
    let reduced = reduced_dims(el, reduce);
    let lanes = if comb.identity().is_some() { lanes } else { 1 };
    let inner_len = reduced.last().map_or(1, |&(_, s)| s);
    let lanes = if inner_len >= lanes as i64 { lanes } else { 1 };
    let unroll = unroll_for(inner_len, lanes);
    let mut acc = Accumulators::new(kb, comb, lanes, unroll, &init);
    let operands = &reduce.operands[..n];
    let body = |kb: &mut KernelBuilder, idx: &Index, acc: &mut Accumulators| {
        let xs = operands
            .iter()
            .map(|&o| el.gen(kb, o, idx))
            .collect::<Result<Vec<_>, _>>()?;
        acc.add(kb, comb, &xs, idx.lanes)
    };
    nest(
        kb,
        &reduced,
        base.dims.clone(),
        lanes,
        unroll,
        &mut |kb, idx| body(kb, idx, &mut acc),
    )?;
    let total = acc.finish(kb, comb)?;
    if comb.identity().is_some() {
        comb.combine(kb, &init, &total, 1)
    } else {
        Ok(total)
    }
}

/// Nested loops over `dims` (physical order): scalar loops over all but the
/// last, the last in vectors. With no dimensions, `body` runs once.
fn nest(
    kb: &mut KernelBuilder,
    dims: &[(usize, i64)],
    idx: Vec<IndexDim>,
    lanes: u32,
    unroll: u32,
    body: &mut dyn FnMut(&mut KernelBuilder, &Index) -> Result<(), Unsupported>,
) -> Result<(), Unsupported> {
    match dims {
        [] => body(kb, &Index::new(1, idx)),
        [(d, size)] => {
            let (zero, end) = (kb.iconst(0), kb.iconst(*size));
            emit_inner(kb, zero, end, lanes, unroll, |kb, inner, l| {
                let mut at = idx.clone();
                at[*d] = inner;
                body(kb, &Index::new(l, at))
            })
        }
        [(d, size), rest @ ..] => {
            let (zero, end) = (kb.iconst(0), kb.iconst(*size));
            kb.try_for_range(zero, end, 1, |kb, i| {
                let mut at = idx.clone();
                at[*d] = IndexDim::uniform(i);
                nest(kb, rest, at, lanes, unroll, body)
            })
        }
    }
}

/// The kernels of a reduction fusion.
pub(super) fn plan(info: &KernelInfo) -> Result<Vec<KernelPlan>, Unsupported> {
    let root = info.comp.instr(info.fusion.root);
    let n = root.operands.len() / 2;
    let operand = info.comp.instr(root.operands[0]);
    let (Shape::Array(op_shape), out_shapes) = (&operand.shape, root.shape.array_leaves()) else {
        return Err(Unsupported::new(Opcode::Reduce, "operand is not an array"));
    };
    let out_shape = out_shapes[0];
    let out_dims = out_shape.dims();
    let out_layout = out_shape.layout_or_default();
    let op_layout = op_shape.layout_or_default();
    let op_minor = op_layout
        .minor_to_major
        .iter()
        .map(|&d| d as usize)
        .find(|&d| op_shape.dims()[d] != 1);
    let reduced = root.attrs.dimensions.clone().unwrap_or_default();
    let lanes = fusion_lanes(info);
    let per_element = cost::per_element(info, lanes);
    let reduced_count: i64 = op_shape.element_count() / out_shape.element_count().max(1);
    let full = out_dims.iter().all(|&d| d == 1);
    let column = match op_minor {
        Some(m) if !reduced.contains(&(m as i64)) => {
            // The output dimension of kept operand dimension `m`.
            let out_dim = (0..m).filter(|d| !reduced.contains(&(*d as i64))).count();
            let out_minor = out_layout
                .minor_to_major
                .iter()
                .map(|&d| d as usize)
                .find(|&d| out_dims[d] != 1);
            (out_minor == Some(out_dim)).then_some(out_dim)
        }
        _ => None,
    };
    let root_id = info.fusion.root;
    if full {
        return full_reduction(
            info,
            root_id,
            op_shape.dims(),
            &op_layout,
            lanes,
            per_element,
        );
    }
    if let Some(out_dim) = column {
        let space = IterSpace::with_chunk(out_dims, &out_layout, COLUMN_CHUNK);
        let cost_per_iteration =
            (space.elements_per_iteration() * reduced_count) as f64 * per_element;
        return Ok(vec![KernelPlan {
            part: "column_reduce",
            iterations: space.iterations(),
            cost_per_iteration,
            scratch_bytes: 0,
            epilogue: false,
            emit: Box::new(move |kb, info| {
                column_kernel(kb, info, root_id, &space, out_dim, lanes, n)
            }),
        }]);
    }
    let target = (TARGET_ELEMENTS / reduced_count.max(1)).max(1);
    let space = IterSpace::new(out_dims, &out_layout, target);
    let cost_per_iteration = (space.elements_per_iteration() * reduced_count) as f64 * per_element;
    Ok(vec![KernelPlan {
        part: "row_reduce",
        iterations: space.iterations(),
        cost_per_iteration,
        scratch_bytes: 0,
        epilogue: false,
        emit: Box::new(move |kb, info| row_kernel(kb, info, root_id, &space, lanes)),
    }])
}

fn row_kernel(
    kb: &mut KernelBuilder,
    info: &KernelInfo,
    root: InstrId,
    space: &IterSpace,
    lanes: u32,
) -> Result<(), Unsupported> {
    let el = elemental(info, kb);
    let reduce = info.comp.instr(root);
    let comb = Combiner::new(info.module, &el, reduce)?;
    let rank = el
        .comp
        .instr(reduce.operands[0])
        .shape
        .as_array()
        .map_or(0, |a| a.rank());
    let outs = info.fusion.inputs.len();
    let (start, end) = (kb.param(1), kb.param(2));
    let inner = space.inner;
    space.emit(kb, start, end, |kb, row, c0, c1| {
        let one = |kb: &mut KernelBuilder, out: Index| -> Result<(), Unsupported> {
            let base = operand_index(reduce, rank, &out);
            let vals = reduce_at(&el, kb, &comb, reduce, &base, lanes)?;
            for (k, v) in vals.into_iter().enumerate() {
                let spec = &info.buffers[outs + k];
                let ptr = kb.buffer(outs + k);
                write(kb, spec, ptr, &out, v);
            }
            Ok(())
        };
        match inner {
            None => one(kb, Index::new(1, row.to_vec())),
            Some((d, _)) => kb.try_for_range(c0, c1, 1, |kb, c| {
                let mut idx = row.to_vec();
                idx[d] = IndexDim::uniform(c);
                one(kb, Index::new(1, idx))
            }),
        }
    })
}

#[allow(clippy::too_many_arguments)]
fn column_kernel(
    kb: &mut KernelBuilder,
    info: &KernelInfo,
    root: InstrId,
    space: &IterSpace,
    out_dim: usize,
    lanes: u32,
    n: usize,
) -> Result<(), Unsupported> {
    let el = elemental(info, kb);
    let reduce = info.comp.instr(root);
    let comb = Combiner::new(info.module, &el, reduce)?;
    let rank = el
        .comp
        .instr(reduce.operands[0])
        .shape
        .as_array()
        .map_or(0, |a| a.rank());
    let reduced = reduced_dims(&el, reduce);
    let outs = info.fusion.inputs.len();
    let (start, end) = (kb.param(1), kb.param(2));
    let n_cols = space.inner.map_or(1, |(_, c)| c);
    let lanes = if n_cols >= lanes as i64 { lanes } else { 1 };
    let unroll = unroll_for(COLUMN_CHUNK.min(n_cols), lanes);
    space.emit(kb, start, end, |kb, row, c0, c1| {
        let at = |inner: IndexDim, l: u32| {
            let mut idx = row.to_vec();
            idx[out_dim] = inner;
            Index::new(l, idx)
        };
        // The accumulators start at the init values.
        emit_inner(kb, c0, c1, lanes, unroll, |kb, inner, l| {
            for k in 0..n {
                let init = el.gen(kb, reduce.operands[n + k], &Index::scalar(l))?;
                let init = elementwise::splat_pred(kb, init, l);
                write(
                    kb,
                    &info.buffers[outs + k],
                    kb.buffer(outs + k),
                    &at(inner, l),
                    init,
                );
            }
            Ok(())
        })?;
        let zeros = vec![IndexDim::constant(0); rank];
        nest(kb, &reduced, zeros, 1, 1, &mut |kb, red| {
            emit_inner(kb, c0, c1, lanes, unroll, |kb, inner, l| {
                let out = at(inner, l);
                let mut op_idx = operand_index(reduce, rank, &out);
                for (d, x) in red.dims.iter().enumerate() {
                    if x.var.is_some() {
                        op_idx.dims[d] = *x;
                    }
                }
                let accs: Vec<Value> = (0..n)
                    .map(|k| {
                        read_from(
                            kb,
                            &info.buffers[outs + k],
                            kb.buffer(outs + k),
                            &out,
                            Access::Output,
                        )
                    })
                    .collect();
                let xs = (0..n)
                    .map(|k| el.gen(kb, reduce.operands[k], &op_idx))
                    .collect::<Result<Vec<_>, _>>()?;
                let r = comb.combine(kb, &accs, &xs, l)?;
                for (k, v) in r.into_iter().enumerate() {
                    write(kb, &info.buffers[outs + k], kb.buffer(outs + k), &out, v);
                }
                Ok(())
            })
        })
    })
}

/// A full reduction: per-iteration partials into the scratch buffer, then
/// their fold into the init value. Without an identity (generic reducers)
/// the whole operand is folded by one iteration of one kernel.
fn full_reduction(
    info: &KernelInfo,
    root: InstrId,
    dims: &[i64],
    layout: &xla_core::Layout,
    lanes: u32,
    per_element: f64,
) -> Result<Vec<KernelPlan>, Unsupported> {
    let reduce = info.comp.instr(root);
    let n = reduce.operands.len() / 2;
    let recognized = n == 1 && {
        let el = Elemental::new(info.module, info.comp, Default::default());
        Combiner::new(info.module, &el, reduce)?
            .identity()
            .is_some()
    };
    let total = dims.iter().product::<i64>() as f64;
    if !recognized {
        return Ok(vec![KernelPlan {
            part: "reduce_all",
            iterations: 1,
            cost_per_iteration: total * per_element,
            scratch_bytes: 0,
            epilogue: false,
            emit: Box::new(move |kb, info| {
                let el = elemental(info, kb);
                let reduce = info.comp.instr(root);
                let comb = Combiner::new(info.module, &el, reduce)?;
                let rank = el
                    .comp
                    .instr(reduce.operands[0])
                    .shape
                    .as_array()
                    .map_or(0, |a| a.rank());
                let outs = info.fusion.inputs.len();
                let (start, end) = (kb.param(1), kb.param(2));
                let out_rank = info.buffers[outs].dims.len();
                kb.try_for_range(start, end, 1, |kb, _| {
                    let base = Index::new(1, vec![IndexDim::constant(0); rank]);
                    let vals = reduce_at(&el, kb, &comb, reduce, &base, 1)?;
                    let out = Index::new(1, vec![IndexDim::constant(0); out_rank]);
                    for (k, v) in vals.into_iter().enumerate() {
                        write(kb, &info.buffers[outs + k], kb.buffer(outs + k), &out, v);
                    }
                    Ok(())
                })
            }),
        }]);
    }
    let space = IterSpace::new(dims, layout, TARGET_ELEMENTS);
    let partials = space.iterations();
    let ty = element_of(reduce);
    let size = ty.byte_size();
    let scratch_bytes = (partials.max(1) as usize) * size;
    let partial_space = space.clone();
    Ok(vec![
        KernelPlan {
            part: "reduce_partials",
            iterations: partials,
            cost_per_iteration: space.elements_per_iteration() as f64 * per_element,
            scratch_bytes,
            epilogue: false,
            emit: Box::new(move |kb, info| partial_kernel(kb, info, root, &partial_space, lanes)),
        },
        KernelPlan {
            part: "reduce_combine",
            iterations: 1,
            cost_per_iteration: partials as f64 * 2.0,
            scratch_bytes,
            epilogue: false,
            emit: Box::new(move |kb, info| combine_kernel(kb, info, root, partials)),
        },
    ])
}

fn element_of(reduce: &HloInstruction) -> PrimitiveType {
    reduce.shape.array_leaves()[0].element_type()
}

/// The scratch buffer as a vector of partials.
fn scratch_spec(ty: PrimitiveType, partials: i64) -> super::access::BufferSpec {
    super::access::BufferSpec {
        ty,
        dims: vec![partials],
        addressing: super::access::Addressing::Dense(vec![1]),
    }
}

struct Partials<'a, 'm> {
    el: &'a Elemental<'m>,
    comb: &'a Combiner<'m>,
    reduce: &'a HloInstruction,
    space: &'a IterSpace,
    lanes: u32,
    unroll: u32,
    acc: Option<Accumulators>,
    scratch: (super::access::BufferSpec, Value),
}

impl Walker<Unsupported> for Partials<'_, '_> {
    fn begin(&mut self, kb: &mut KernelBuilder, _it: Value) -> Result<(), Unsupported> {
        self.acc = Some(Accumulators::new(
            kb,
            self.comb,
            self.lanes,
            self.unroll,
            &[],
        ));
        Ok(())
    }

    fn segment(
        &mut self,
        kb: &mut KernelBuilder,
        row: &[IndexDim],
        begin: Value,
        end: Value,
    ) -> Result<(), Unsupported> {
        let acc = self.acc.as_mut().expect("begin ran");
        match self.space.inner {
            None => {
                let x = self
                    .el
                    .gen(kb, self.reduce.operands[0], &Index::new(1, row.to_vec()))?;
                acc.add(kb, self.comb, &[x], 1)
            }
            Some((d, _)) => emit_inner(kb, begin, end, self.lanes, self.unroll, |kb, inner, l| {
                let mut idx = row.to_vec();
                idx[d] = inner;
                let x = self
                    .el
                    .gen(kb, self.reduce.operands[0], &Index::new(l, idx))?;
                acc.add(kb, self.comb, &[x], l)
            }),
        }
    }

    fn end(&mut self, kb: &mut KernelBuilder, it: Value) -> Result<(), Unsupported> {
        let acc = self.acc.take().expect("begin ran");
        let total = acc.finish(kb, self.comb)?;
        let (spec, base) = &self.scratch;
        write(
            kb,
            spec,
            *base,
            &Index::new(1, vec![IndexDim::uniform(it)]),
            total[0],
        );
        Ok(())
    }
}

fn partial_kernel(
    kb: &mut KernelBuilder,
    info: &KernelInfo,
    root: InstrId,
    space: &IterSpace,
    lanes: u32,
) -> Result<(), Unsupported> {
    let el = elemental(info, kb);
    let reduce = info.comp.instr(root);
    let comb = Combiner::new(info.module, &el, reduce)?;
    let n_inner = space.inner.map_or(1, |(_, n)| n);
    let lanes = if n_inner >= lanes as i64 { lanes } else { 1 };
    let unroll = unroll_for(space.elements_per_iteration().min(n_inner), lanes);
    let scratch = kb.buffer(info.buffers.len());
    let mut walker = Partials {
        el: &el,
        comb: &comb,
        reduce,
        space,
        lanes,
        unroll,
        acc: None,
        scratch: (scratch_spec(comb.tys[0], space.iterations()), scratch),
    };
    let (start, end) = (kb.param(1), kb.param(2));
    space.walk(kb, start, end, &mut walker)
}

fn combine_kernel(
    kb: &mut KernelBuilder,
    info: &KernelInfo,
    root: InstrId,
    partials: i64,
) -> Result<(), Unsupported> {
    let el = elemental(info, kb);
    let reduce = info.comp.instr(root);
    let comb = Combiner::new(info.module, &el, reduce)?;
    let outs = info.fusion.inputs.len();
    let spec = scratch_spec(comb.tys[0], partials);
    let scratch = kb.buffer(info.buffers.len());
    let (start, end) = (kb.param(1), kb.param(2));
    let out_rank = info.buffers[outs].dims.len();
    kb.try_for_range(start, end, 1, |kb, _| {
        let init = el.gen(kb, reduce.operands[1], &Index::scalar(1))?;
        let var = kb.b.declare_var(kb.ty(init));
        kb.b.def_var(var, init);
        let (zero, count) = (kb.iconst(0), kb.iconst(partials));
        kb.try_for_range(zero, count, 1, |kb, p| {
            let x = read_from(
                kb,
                &spec,
                scratch,
                &Index::new(1, vec![IndexDim::uniform(p)]),
                Access::Output,
            );
            let acc = kb.b.use_var(var);
            let r = comb.combine(kb, &[acc], &[x], 1)?;
            kb.b.def_var(var, r[0]);
            Ok(())
        })?;
        let v = kb.b.use_var(var);
        let out = Index::new(1, vec![IndexDim::constant(0); out_rank]);
        write(kb, &info.buffers[outs], kb.buffer(outs), &out, v);
        Ok(())
    })
}
