//! Gradients of reductions, windows, sorting and top-k.

use super::linear::{lhs_padding, Dilated};
use super::rules::no_rule;
use super::{Ct, Tape};
use crate::builder::{create_scalar_computation, XlaBuilder, XlaComputation, XlaOp};
use crate::hlo::{
    ComparisonDirection, ComputationId, HloInstruction, Opcode, PadDim, Window, WindowDim,
};
use crate::{ArrayShape, PrimitiveType, Result, Shape};

impl Tape<'_> {
    /// `reduce`, `sort` and `topk`, whose cotangent may be a tuple (one
    /// per result).
    pub(super) fn multi_output_rule(
        &self,
        instr: &HloInstruction,
        y: XlaOp,
        ct: Ct,
    ) -> Result<Vec<Option<XlaOp>>> {
        let cts = ct.parts(instr)?;
        match instr.opcode {
            Opcode::Reduce => self.reduce(instr, y, &cts),
            Opcode::Sort => self.sort(instr, &cts),
            _ => self.top_k(instr, y, &cts),
        }
    }

    /// The result `k` of a multi-result instruction whose value is `y`.
    fn part(&self, instr: &HloInstruction, y: XlaOp, k: usize) -> Result<XlaOp> {
        match instr.shape.is_tuple() {
            true => self.b.get_tuple_element(y, k as i64),
            false => Ok(y),
        }
    }

    fn reduce(
        &self,
        instr: &HloInstruction,
        y: XlaOp,
        cts: &[Option<XlaOp>],
    ) -> Result<Vec<Option<XlaOp>>> {
        let b = self.b;
        let inputs = instr.operands.len() / 2;
        let x = self.operand_shape(instr, 0);
        let dims = instr.attrs.dimensions.clone().unwrap_or_default();
        let kept: Vec<i64> = (0..x.rank() as i64).filter(|d| !dims.contains(d)).collect();
        let spread = |v: XlaOp| b.broadcast_in_dim(v, x.dims(), &kept);
        let mut out = vec![None; instr.operands.len()];
        let combiner = self.module.computation(instr.called[0]);
        if inputs == 2
            && cts.get(1).is_none_or(Option::is_none)
            && !self.operand_shape(instr, 1).element_type().is_floating()
        {
            // A value with its index (argmax-style): the cotangent goes to
            // the element whose value and index were chosen.
            let Some(g) = cts[0] else { return Ok(out) };
            let hit_value = b.eq(
                self.operand(instr, 0)?,
                spread(self.part(instr, y, 0)?)?,
                &[],
            )?;
            let hit_index = b.eq(
                self.operand(instr, 1)?,
                spread(self.part(instr, y, 1)?)?,
                &[],
            )?;
            out[0] =
                Some(self.share_among(b.and(hit_value, hit_index, &[])?, g, x, &dims, &kept)?);
            return Ok(out);
        }
        if inputs != 1 {
            return Err(no_rule(
                instr,
                "a variadic reduce other than value-with-index has no gradient rule",
            ));
        }
        let Some(g) = cts[0] else { return Ok(out) };
        match combiner.binary_of_parameters() {
            Some(Opcode::Add) => {
                out[0] = Some(spread(g)?);
                out[1] = Some(self.sum(g, &(0..kept.len() as i64).collect::<Vec<_>>())?);
            }
            Some(Opcode::Maximum | Opcode::Minimum) => {
                let hit = b.eq(self.operand(instr, 0)?, spread(y)?, &[])?;
                out[0] = Some(self.share_among(hit, g, x, &dims, &kept)?);
            }
            Some(Opcode::Multiply) => out[0] = Some(self.product_rule(instr, g, x, &dims, &kept)?),
            _ => {
                return Err(no_rule(
                    instr,
                    "only reductions by add, multiply, maximum and minimum have a gradient rule",
                ))
            }
        }
        Ok(out)
    }

    /// The cotangent `g` of a reduction spread evenly over the elements
    /// `hit` marks in each reduced group (JAX's rule for `max`/`min`: ties
    /// share).
    fn share_among(
        &self,
        hit: XlaOp,
        g: XlaOp,
        x: &ArrayShape,
        dims: &[i64],
        kept: &[i64],
    ) -> Result<XlaOp> {
        let b = self.b;
        let ones = b.convert_element_type(hit, x.element_type())?;
        let counts = self.sum(ones, dims)?;
        let each = b.broadcast_in_dim(b.div(g, counts, &[])?, x.dims(), kept)?;
        b.mul(each, ones, &[])
    }

    /// A product's cotangent: `g` times the product of the other elements
    /// of each group (exclusive products from both ends, so zeros are
    /// handled exactly).
    fn product_rule(
        &self,
        instr: &HloInstruction,
        g: XlaOp,
        x: &ArrayShape,
        dims: &[i64],
        kept: &[i64],
    ) -> Result<XlaOp> {
        let b = self.b;
        let perm: Vec<i64> = kept.iter().chain(dims).copied().collect();
        let size = |ds: &[i64]| ds.iter().map(|&d| x.dims()[d as usize]).product::<i64>();
        let (k, r) = (size(kept), size(dims));
        let flat = b.reshape(b.transpose(self.operand(instr, 0)?, &perm)?, &[k, r])?;
        let one = self.scalar(x.element_type(), 1.0)?;
        let shifted = |low: i64| {
            b.pad(
                flat,
                one,
                &[
                    PadDim::default(),
                    PadDim {
                        low,
                        high: -low,
                        interior: 0,
                    },
                ],
            )
        };
        let mul =
            create_scalar_computation("multiply", x.element_type(), |c, p, q| c.mul(p, q, &[]))?;
        let scan = |v: XlaOp, reverse: bool| -> Result<XlaOp> {
            let (low, high) = if reverse { (0, r - 1) } else { (r - 1, 0) };
            let window = Window {
                dims: vec![
                    WindowDim::default(),
                    WindowDim {
                        size: r,
                        padding_low: low,
                        padding_high: high,
                        ..WindowDim::default()
                    },
                ],
            };
            b.reduce_window_with_general_padding(&[v], &[one], &mul, &window)
        };
        let others = b.mul(scan(shifted(1)?, false)?, scan(shifted(-1)?, true)?, &[])?;
        let flat_g = b.reshape(g, &[k])?;
        let d = b.mul(b.broadcast_in_dim(flat_g, &[k, r], &[0])?, others, &[])?;
        let permuted: Vec<i64> = perm.iter().map(|&p| x.dims()[p as usize]).collect();
        let mut inverse = vec![0; perm.len()];
        for (i, &p) in perm.iter().enumerate() {
            inverse[p as usize] = i as i64;
        }
        b.transpose(b.reshape(d, &permuted)?, &inverse)
    }

    /// `reduce-window` of one operand: a sum spreads the cotangent back
    /// over each window (JAX's transpose: pad, then a window sum); a max
    /// or min sends it to the chosen element (`select-and-scatter`).
    pub(super) fn reduce_window(
        &self,
        instr: &HloInstruction,
        y: XlaOp,
        g: XlaOp,
    ) -> Result<Vec<Option<XlaOp>>> {
        let b = self.b;
        if instr.operands.len() != 2 {
            return Err(no_rule(
                instr,
                "a variadic reduce-window has no gradient rule",
            ));
        }
        let x = self.operand_shape(instr, 0);
        let out = instr.shape.as_array().map_or(&[][..], |a| a.dims());
        let window = instr.attrs.window.clone().unwrap_or_default();
        let ty = x.element_type();
        let combiner = self.module.computation(instr.called[0]);
        let dx =
            match combiner.binary_of_parameters() {
                Some(Opcode::Add) => {
                    let config: Vec<PadDim> = (window.dims.iter().enumerate())
                        .map(|(i, w)| {
                            let (low, high) = lhs_padding(Dilated::new(
                                x.dims()[i],
                                w.size,
                                out[i],
                                w.stride,
                                w.padding_low,
                                w.base_dilation,
                                w.window_dilation,
                            ));
                            PadDim {
                                low,
                                high,
                                interior: w.stride - 1,
                            }
                        })
                        .collect();
                    let padded = b.pad(g, self.scalar(ty, 0.0)?, &config)?;
                    let sum_window = Window {
                        dims: (window.dims.iter())
                            .map(|w| WindowDim {
                                size: w.size,
                                stride: w.base_dilation,
                                window_dilation: w.window_dilation,
                                ..WindowDim::default()
                            })
                            .collect(),
                    };
                    let add = self.adder(ty)?;
                    b.reduce_window_with_general_padding(
                        &[padded],
                        &[self.scalar(ty, 0.0)?],
                        &add,
                        &sum_window,
                    )?
                }
                Some(op @ (Opcode::Maximum | Opcode::Minimum)) => {
                    if window
                        .dims
                        .iter()
                        .any(|w| w.base_dilation != 1 || w.window_dilation != 1)
                    {
                        return Err(no_rule(
                            instr,
                            "a dilated max/min window has no gradient rule",
                        ));
                    }
                    let dir = if op == Opcode::Maximum { "ge" } else { "le" };
                    let select = create_scalar_computation(dir, ty, |c, p, q| match op {
                        Opcode::Maximum => c.ge(p, q, &[]),
                        _ => c.le(p, q, &[]),
                    })?;
                    let add = self.adder(ty)?;
                    let zero = self.scalar(ty, 0.0)?;
                    b.select_and_scatter(self.operand(instr, 0)?, &select, &window, g, zero, &add)?
                }
                Some(Opcode::Multiply) => {
                    // A cumulative product: x̄ⱼ = Σ over the outputs that
                    // include xⱼ of ḡᵢ·yᵢ, divided by xⱼ (a scan the other way).
                    let Some(scan) = window.scan_dim(x.dims()) else {
                        return Err(no_rule(
                            instr,
                            "a window product other than a cumulative one has no gradient rule",
                        ));
                    };
                    let n = x.dims()[scan.dim];
                    let mut back = window.clone();
                    let w = &mut back.dims[scan.dim];
                    (w.padding_low, w.padding_high) =
                        if scan.reverse { (n - 1, 0) } else { (0, n - 1) };
                    let add = self.adder(ty)?;
                    let weighted = b.mul(g, y, &[])?;
                    let summed = b.reduce_window_with_general_padding(
                        &[weighted],
                        &[self.scalar(ty, 0.0)?],
                        &add,
                        &back,
                    )?;
                    b.div(summed, self.operand(instr, 0)?, &[])?
                }
                _ => return Err(no_rule(
                    instr,
                    "only window sums, maxima, minima and cumulative products have a gradient rule",
                )),
            };
        Ok(vec![Some(dx), None])
    }

    /// `select-and-scatter` (a max-pooling gradient being differentiated
    /// again): each source element's cotangent is the result's at the
    /// position its window selected, read by a window reduction over
    /// (operand, cotangent) pairs that keeps the pair the selection keeps
    /// (JAX's `_select_and_gather_add`); the operand's selection is
    /// piecewise constant (no cotangent), and the initial value's is the
    /// sum of the result's.
    pub(super) fn select_and_scatter(
        &self,
        instr: &HloInstruction,
        g: XlaOp,
    ) -> Result<Vec<Option<XlaOp>>> {
        let b = self.b;
        let select = self.module.computation(instr.called[0]);
        let root = select.root_instr();
        let worst = match root.attrs.comparison_direction {
            Some(ComparisonDirection::Ge | ComparisonDirection::Gt) => f64::NEG_INFINITY,
            Some(ComparisonDirection::Le | ComparisonDirection::Lt) => f64::INFINITY,
            _ => {
                return Err(no_rule(
                    instr,
                    "a selection other than a comparison has no gradient rule",
                ))
            }
        };
        let window = instr.attrs.window.clone().unwrap_or_default();
        let x = self.operand_shape(instr, 0);
        let (ty, ct_ty) = (x.element_type(), self.dims_type(g)?.1);
        let keep_selected = {
            let c = XlaBuilder::new("select_pair");
            let scalar = |t| Shape::scalar(t);
            let (a, da) = (
                c.parameter(0, &scalar(ty), "a")?,
                c.parameter(1, &scalar(ct_ty), "da")?,
            );
            let (o, d_o) = (
                c.parameter(2, &scalar(ty), "b")?,
                c.parameter(3, &scalar(ct_ty), "db")?,
            );
            let keep = c.call(&self.computation(instr.called[0])?, &[a, o])?;
            c.build(c.tuple(&[c.select(keep, a, o)?, c.select(keep, da, d_o)?])?)?
        };
        let inits = [self.scalar(ty, worst)?, self.scalar(ct_ty, 0.0)?];
        let pairs = b.reduce_window_with_general_padding(
            &[self.operand(instr, 0)?, g],
            &inits,
            &keep_selected,
            &window,
        )?;
        let all: Vec<i64> = (0..x.rank() as i64).collect();
        Ok(vec![
            None,
            Some(b.get_tuple_element(pairs, 1)?),
            Some(self.sum(g, &all)?),
        ])
    }

    /// `sort`: each operand's cotangent is its result's, put back in the
    /// original order (the permutation comes from sorting an `iota` along).
    fn sort(&self, instr: &HloInstruction, cts: &[Option<XlaOp>]) -> Result<Vec<Option<XlaOp>>> {
        let b = self.b;
        let n = instr.operands.len();
        let x = self.operand_shape(instr, 0);
        let d = instr
            .attrs
            .dimensions
            .as_ref()
            .and_then(|d| d.first().copied())
            .unwrap_or(0);
        let iota = b.iota(&ArrayShape::new(PrimitiveType::S32, x.dims().to_vec()), d)?;
        let comparator = self.with_extra_operands(instr.called[0], &[PrimitiveType::S32])?;
        let mut operands = (0..n)
            .map(|k| self.operand(instr, k))
            .collect::<Result<Vec<XlaOp>>>()?;
        operands.push(iota);
        let sorted = b.sort(&operands, &comparator, d, true)?;
        let perm = b.get_tuple_element(sorted, n as i64)?;
        let wanted: Vec<usize> = (0..n)
            .filter(|&k| cts.get(k).is_some_and(Option::is_some))
            .collect();
        let mut back = vec![perm];
        back.extend(wanted.iter().filter_map(|&k| cts[k]));
        let types: Vec<PrimitiveType> = wanted
            .iter()
            .map(|&k| self.operand_shape(instr, k).element_type())
            .collect();
        let by_position = ascending_s32(&types)?;
        let unsorted = b.sort(&back, &by_position, d, true)?;
        let mut out = vec![None; n];
        for (j, &k) in wanted.iter().enumerate() {
            out[k] = Some(b.get_tuple_element(unsorted, j as i64 + 1)?);
        }
        Ok(out)
    }

    /// Comparator `id` with one more pair of (ignored) parameters per
    /// type in `extra`, for sorting extra operands along.
    fn with_extra_operands(
        &self,
        id: ComputationId,
        extra: &[PrimitiveType],
    ) -> Result<XlaComputation> {
        let comparator = self.module.computation(id);
        let c = XlaBuilder::new(&comparator.name);
        let params = comparator.parameters();
        let mut values = Vec::with_capacity(comparator.instructions.len());
        let mut map = std::collections::HashMap::new();
        for &p in &params {
            let op = c.add_instruction(comparator.instr(p), &[], &[])?;
            map.insert(p, op);
        }
        let first = params.len() as i64;
        for (k, &ty) in extra.iter().enumerate() {
            for side in 0..2 {
                c.parameter(first + 2 * k as i64 + side, &Shape::scalar(ty), "extra")?;
            }
        }
        for id in comparator.ids() {
            let instr = comparator.instr(id);
            let op = match map.get(&id) {
                Some(&op) => op,
                None => {
                    let operands: Vec<XlaOp> =
                        instr.operands.iter().map(|o| values[o.index()]).collect();
                    let called = (instr.called.iter())
                        .map(|&k| self.computation(k))
                        .collect::<Result<Vec<_>>>()?;
                    let refs: Vec<&XlaComputation> = called.iter().collect();
                    c.add_instruction(instr, &operands, &refs)?
                }
            };
            values.push(op);
        }
        c.build(values[comparator.root.index()])
    }

    /// `topk`: the values' cotangent goes back to the positions the
    /// indices name.
    fn top_k(
        &self,
        instr: &HloInstruction,
        y: XlaOp,
        cts: &[Option<XlaOp>],
    ) -> Result<Vec<Option<XlaOp>>> {
        let b = self.b;
        let Some(g) = cts.first().copied().flatten() else {
            return Ok(vec![None]);
        };
        let x = self.operand_shape(instr, 0);
        let rank = x.rank() as i64;
        let k = instr.attrs.k.unwrap_or(1);
        let mut wide = x.dims().to_vec();
        wide.insert(rank as usize - 1, k);
        let indices = self.part(instr, y, 1)?;
        let lead: Vec<i64> = (0..rank).collect();
        let chosen = b.broadcast_in_dim(indices, &wide, &lead)?;
        let position = b.iota(&ArrayShape::new(PrimitiveType::S32, wide.clone()), rank)?;
        let hit = b.eq(chosen, position, &[])?;
        let spread = b.broadcast_in_dim(g, &wide, &lead)?;
        let zeros = self.full(&ArrayShape::new(x.element_type(), wide.clone()), 0.0)?;
        Ok(vec![Some(
            self.sum(b.select(hit, spread, zeros)?, &[rank - 1])?,
        )])
    }
}

/// `(s32[], s32[], T0[], T0[], …) -> pred[]`: `p0 < p1`, for sorting by a
/// permutation with operands of `types` along.
fn ascending_s32(types: &[PrimitiveType]) -> Result<XlaComputation> {
    let c = XlaBuilder::new("by_position");
    let lhs = c.parameter(0, &Shape::scalar(PrimitiveType::S32), "lhs")?;
    let rhs = c.parameter(1, &Shape::scalar(PrimitiveType::S32), "rhs")?;
    for (k, &ty) in types.iter().enumerate() {
        for side in 0..2 {
            c.parameter(2 + 2 * k as i64 + side, &Shape::scalar(ty), "along")?;
        }
    }
    let root = c.lt(lhs, rhs, &[])?;
    c.build(root)
}
