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
//!   minor-most, e.g. summing the columns): see `column.rs`.
//! * **full** (every dimension of size > 1 is reduced): two kernels sharing a
//!   scratch buffer: the first reduces each of its iterations' chunks to a
//!   partial result in `scratch[iteration]`, the second (one iteration)
//!   folds the partials into the init value in order. The result does not
//!   depend on how the runtime splits the first kernel's iterations.

use cranelift_codegen::ir::{InstBuilder, Value};
use xla_core::hlo::{HloInstruction, InstrId};
use xla_core::{Opcode, PrimitiveType, Shape};

use super::access::{read_from, write, Access};
use super::combine::{operand_index, operand_rank, reduce_at, Accumulators, Combiner, Signs};
use super::elemental::Elemental;
use super::index::{Index, IndexDim};
use super::iterate::{emit_inner_steps, unroll_for, IterSpace, Walker};
use super::kernel::KernelBuilder;
use super::loop_kernel::{elemental, fusion_lanes};
use super::{column, cost, Emit, KernelInfo, KernelPlan, Unsupported};

/// The kernels of a reduction fusion.
pub(super) fn plan(info: &KernelInfo) -> Result<Vec<KernelPlan>, Unsupported> {
    let root = info.comp.instr(info.fusion.root);
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
        return column::plan(info, root_id, out_dim, lanes, per_element);
    }
    let space = IterSpace::of_positions(
        out_dims,
        &out_layout,
        info.iteration_elements,
        reduced_count,
    );
    let cost_per_iteration = (space.elements_per_iteration() * reduced_count) as f64 * per_element;
    Ok(vec![KernelPlan {
        part: "row_reduce",
        iterations: space.iterations(),
        cost_per_iteration,
        scratch_bytes: 0,
        epilogue: false,
        emit: Emit::Clif(Box::new(move |kb, info| {
            row_kernel(kb, info, root_id, &space, lanes)
        })),
    }])
}

fn row_kernel(
    kb: &mut KernelBuilder,
    info: &KernelInfo,
    root: InstrId,
    space: &IterSpace,
    lanes: u32,
) -> Result<(), Unsupported> {
    let el = elemental(info);
    let reduce = info.comp.instr(root);
    let comb = Combiner::new(info.module, info.comp, reduce)?;
    let max_unroll = cost::max_unroll(info, root);
    let rank = operand_rank(info.comp, reduce);
    let outs = info.fusion.inputs.len();
    let (start, end) = (kb.param(1), kb.param(2));
    space.emit_positions(kb, start, end, |kb, at| {
        let out = Index::new(1, at);
        let base = operand_index(reduce, rank, &out);
        let vals = reduce_at(&el, kb, &comb, reduce, &base, (lanes, max_unroll))?;
        for (k, v) in vals.into_iter().enumerate() {
            let spec = &info.buffers[outs + k];
            let ptr = kb.buffer(outs + k);
            write(kb, spec, ptr, &out, v);
        }
        Ok::<(), Unsupported>(())
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
    let recognized = n == 1
        && Combiner::new(info.module, info.comp, reduce)?
            .identity()
            .is_some();
    let total = dims.iter().product::<i64>() as f64;
    if !recognized {
        return Ok(vec![KernelPlan {
            part: "reduce_all",
            iterations: 1,
            cost_per_iteration: total * per_element,
            scratch_bytes: 0,
            epilogue: false,
            emit: Emit::Clif(Box::new(move |kb, info| {
                let el = elemental(info);
                let reduce = info.comp.instr(root);
                let comb = Combiner::new(info.module, info.comp, reduce)?;
                let rank = operand_rank(info.comp, reduce);
                let outs = info.fusion.inputs.len();
                let (start, end) = (kb.param(1), kb.param(2));
                let out_rank = info.buffers[outs].dims.len();
                kb.try_for_range(start, end, 1, |kb, _| {
                    let base = Index::new(1, vec![IndexDim::constant(0); rank]);
                    let vals = reduce_at(&el, kb, &comb, reduce, &base, (1, 1))?;
                    let out = Index::new(1, vec![IndexDim::constant(0); out_rank]);
                    for (k, v) in vals.into_iter().enumerate() {
                        let base = kb.buffer(outs + k);
                        write(kb, &info.buffers[outs + k], base, &out, v);
                    }
                    Ok(())
                })
            })),
        }]);
    }
    let space = IterSpace::new(dims, layout, info.iteration_elements);
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
            emit: Emit::Clif(Box::new(move |kb, info| {
                partial_kernel(kb, info, root, &partial_space, lanes)
            })),
        },
        combine_plan(root, partials, scratch_bytes),
    ])
}

/// The kernel folding a full reduction's `partials` partials (in the
/// scratch buffer of `scratch_bytes`) into the init value.
pub(super) fn combine_plan(root: InstrId, partials: i64, scratch_bytes: usize) -> KernelPlan {
    KernelPlan {
        part: "reduce_combine",
        iterations: 1,
        cost_per_iteration: partials as f64 * 2.0,
        scratch_bytes,
        epilogue: false,
        emit: Emit::Clif(Box::new(move |kb, info| {
            combine_kernel(kb, info, root, partials)
        })),
    }
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
    /// Whether float extrema keep their signs; deferred, an iteration
    /// whose result is a zero or a subnormal is redone with them.
    signs: Signs,
    acc: Option<Accumulators>,
    scratch: (super::access::BufferSpec, Value),
}

impl Walker<Unsupported> for Partials<'_, '_> {
    fn begin(&mut self, kb: &mut KernelBuilder, _it: Value) -> Result<(), Unsupported> {
        let shape = (self.lanes, self.unroll);
        self.acc = Some(Accumulators::new(kb, self.comb, shape, &[], self.signs));
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
            Some((d, _)) => {
                emit_inner_steps(kb, begin, end, self.lanes, self.unroll, |kb, step, l| {
                    for &inner in step {
                        let mut idx = row.to_vec();
                        idx[d] = inner;
                        let x = self
                            .el
                            .gen(kb, self.reduce.operands[0], &Index::new(l, idx))?;
                        acc.add(kb, self.comb, &[x], l)?;
                    }
                    acc.end_step(kb);
                    Ok(())
                })
            }
        }
    }

    fn end(&mut self, kb: &mut KernelBuilder, it: Value) -> Result<(), Unsupported> {
        let acc = self.acc.take().expect("begin ran");
        let (total, unsure) = acc.finish_deferred(kb, self.comb)?;
        let Some(unsure) = unsure else {
            self.store(kb, it, total[0]);
            return Ok(());
        };
        kb.branch(unsure, |kb, redo| {
            if !redo {
                self.store(kb, it, total[0]);
                return Ok(());
            }
            // A zero or subnormal extremum: again, with signs.
            let mut exact = Partials {
                unroll: 1,
                signs: Signs::Kept,
                acc: None,
                scratch: self.scratch.clone(),
                ..*self
            };
            let next = kb.b.ins().iadd_imm_s(it, 1);
            self.space.walk(kb, it, next, &mut exact)
        })
    }
}

impl Partials<'_, '_> {
    /// Stores iteration `it`'s partial.
    fn store(&self, kb: &mut KernelBuilder, it: Value, partial: Value) {
        let (spec, base) = &self.scratch;
        let at = Index::new(1, vec![IndexDim::uniform(it)]);
        write(kb, spec, *base, &at, partial);
    }
}

fn partial_kernel(
    kb: &mut KernelBuilder,
    info: &KernelInfo,
    root: InstrId,
    space: &IterSpace,
    lanes: u32,
) -> Result<(), Unsupported> {
    let el = elemental(info);
    let reduce = info.comp.instr(root);
    let comb = Combiner::new(info.module, info.comp, reduce)?;
    let n_inner = space.inner.map_or(1, |(_, n)| n);
    let lanes = if n_inner >= lanes as i64 { lanes } else { 1 };
    let unroll = unroll_for(space.elements_per_iteration().min(n_inner), lanes)
        .min(cost::max_unroll(info, root));
    let scratch = kb.buffer(info.buffers.len());
    let mut walker = Partials {
        el: &el,
        comb: &comb,
        reduce,
        space,
        lanes,
        unroll,
        signs: Signs::Deferred,
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
    let el = elemental(info);
    let reduce = info.comp.instr(root);
    let comb = Combiner::new(info.module, info.comp, reduce)?;
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
        let base = kb.buffer(outs);
        write(kb, &info.buffers[outs], base, &out, v);
        Ok(())
    })
}
