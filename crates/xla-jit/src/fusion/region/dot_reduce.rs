//! The decisions particular to reduces and dots: when a reduce is a row
//! pass, when the region is a dot's epilogue, and which transposes,
//! copies and convolution patches a dot reads its operands through.

use xla_core::hlo::{HloInstruction, InstrId};
use xla_core::{Opcode, Shape};

use super::{Region, ROW_BYTES_LIMIT};
use crate::fusion::classify::{classify, Role};
use crate::fusion::dims::{self, DimRef};
use crate::fusion::window::patches_view;
use crate::fusion::{lhs_view, out_view, rhs_view, DotInput, FusionDecision, OperandView, Reason};

impl Region<'_> {
    /// A row pass walks its reduced elements in the operand's memory order,
    /// so they must be the operand's minor-most dimensions (size-1
    /// dimensions aside). A reduction down columns (`x.sum(0)` of a
    /// row-major `x`) would stride through memory one row per element; as
    /// its own fusion it gets the column kernel, which reads rows
    /// contiguously, and its users run as a small loop over its result.
    fn check_reduces_minor_dims(&self, reduce: &HloInstruction) -> Result<(), String> {
        let operand = self.comp.instr(reduce.operands[0]);
        let Shape::Array(a) = &operand.shape else {
            return Ok(());
        };
        let reduced = reduce.attrs.dimensions.as_deref().unwrap_or_default();
        if dims::are_minor_most(a, |d| reduced.contains(&(d as i64))) {
            Ok(())
        } else {
            Err(format!(
                "it reduces dimensions {reduced:?} of {}, not its minor-most ones: a column reduction",
                operand.shape
            ))
        }
    }

    /// A reduce can be a row pass if it is read only at the row the root is
    /// computing, all reduces agree on the rows, and a row fits in cache.
    pub(super) fn check_row_pass(&mut self, p: InstrId, map: &[DimRef]) -> Result<(), String> {
        if self.dot.is_some() {
            return Err("the region holds a dot".into());
        }
        self.check_root_per_element()?;
        let reduce = self.comp.instr(p);
        let Shape::Array(out) = &reduce.shape else {
            return Err("a variadic reduce's tuple is read through get-tuple-element".into());
        };
        let rows = dims::row_dims(map, out.dims())
            .ok_or("the reduce is read at indices other than the current row")?;
        self.check_reduces_minor_dims(reduce)?;
        let root = self.comp.instr(self.root);
        let Shape::Array(root_shape) = &root.shape else {
            return Err("the root is not an array".into());
        };
        if let Some(existing) = &self.rows {
            if *existing != rows {
                return Err(format!(
                    "it is read along root dimensions {rows:?}, another reduce along {existing:?}"
                ));
            }
        } else {
            let root_dims = root_shape.dims();
            let cols: Vec<usize> = (0..root_dims.len())
                .filter(|&d| root_dims[d] != 1 && !rows.contains(&d))
                .collect();
            if !dims::are_minor_most(root_shape, |d| cols.contains(&d)) {
                return Err(format!(
                    "the reduced dimensions {cols:?} are not the minor-most dimensions of {}",
                    root.shape
                ));
            }
            let row_elements: i64 = cols.iter().map(|&d| root_dims[d]).product();
            let bytes = row_elements * root_shape.element_type().byte_size() as i64;
            if bytes > ROW_BYTES_LIMIT {
                return Err(format!(
                    "a row of {bytes} bytes exceeds the {ROW_BYTES_LIMIT}-byte cache budget"
                ));
            }
        }
        let operand = self.comp.instr(reduce.operands[0]);
        let reduced: i64 = dims::dims_of(operand).iter().product::<i64>()
            / out.dims().iter().product::<i64>().max(1);
        let bytes = reduced * out.element_type().byte_size() as i64;
        if bytes > ROW_BYTES_LIMIT {
            return Err(format!(
                "a reduced row of {bytes} bytes exceeds the {ROW_BYTES_LIMIT}-byte cache budget"
            ));
        }
        self.rows = Some(rows);
        Ok(())
    }

    /// Row kernels compute the root one element at a time; a root with a
    /// kernel of its own (a [`Role::KernelRoot`]: sort, top-k, scatter,
    /// select-and-scatter, rng-bit-generator, a prefix-scan reduce-window;
    /// or a variadic reduce-window) only fuses producers its own kernel
    /// reads element by element.
    fn check_root_per_element(&self) -> Result<(), String> {
        let root = self.comp.instr(self.root);
        let own_kernel = classify(self.module, self.comp, self.backend, self.root)
            == Role::KernelRoot
            || (root.opcode == Opcode::ReduceWindow && root.shape.is_tuple());
        if own_kernel {
            return Err(format!(
                "the root {} runs a {} kernel, not one element at a time",
                root.name,
                root.opcode.name()
            ));
        }
        Ok(())
    }

    /// A dot can take the region as its epilogue if the region only applies
    /// elementwise work to it at the same index and keeps its element type.
    pub(super) fn check_epilogue(&self, p: InstrId, map: &[DimRef]) -> Result<(), String> {
        if !self.reduces.is_empty() {
            return Err("the region holds a reduce".into());
        }
        if let Some(dot) = self.dot {
            return Err(format!(
                "the region already holds {}",
                self.comp.instr(dot).name
            ));
        }
        let dot = self.comp.instr(p);
        let root = self.comp.instr(self.root);
        let identity = map.iter().enumerate().all(|(i, &m)| m == DimRef::Root(i));
        if !identity || map.len() != dims::dims_of(root).len() {
            return Err("the epilogue reads the dot's result at other indices".into());
        }
        if dot.shape.element_type() != root.shape.element_type() {
            return Err(format!(
                "the epilogue changes the element type ({} to {}); it runs in place",
                dot.shape, root.shape
            ));
        }
        let dense = root
            .shape
            .as_array()
            .is_some_and(|a| a.layout_or_default().is_dense());
        if !dense {
            return Err(format!("the output layout of {} is not dense", root.shape));
        }
        let lhs_rank = dims::dims_of(self.comp.instr(dot.operands[0])).len();
        let strided = match (dot.attrs.dot_dims.as_ref(), root.shape.as_array()) {
            (Some(numbers), Some(out)) => out_view(out, numbers, lhs_rank).is_some(),
            _ => false,
        };
        if !strided {
            return Err(format!(
                "the dot cannot write its result through the strides of {}",
                root.shape
            ));
        }
        Ok(())
    }

    /// Makes transposes and copies of the dot's operands members and the
    /// arrays they read inputs, and so the im2col of a convolution's
    /// patches (its reshape, concatenate and slices) for the lhs.
    /// Only when the engine can read the source through strides: otherwise
    /// the transpose or copy materializes the operand in a layout it can.
    pub(super) fn absorb_dot_operands(&mut self, dot: InstrId) {
        let dot_instr = self.comp.instr(dot);
        let window = self.absorb_patches(dot);
        for (k, &op) in dot_instr
            .operands
            .iter()
            .enumerate()
            .skip(usize::from(window))
        {
            let instr = self.comp.instr(op);
            let source = instr.operands.first().map(|&s| self.comp.instr(s));
            let dense_source = source.is_some_and(|s| {
                s.shape
                    .as_array()
                    .is_some_and(|a| a.layout_or_default().is_dense())
            });
            let strided = |view: &OperandView| {
                let (Some(dims), Some(shape)) = (
                    dot_instr.attrs.dot_dims.as_ref(),
                    source.and_then(|s| s.shape.as_array()),
                ) else {
                    return false;
                };
                let input = DotInput { shape, view };
                match k {
                    0 => lhs_view(&input, dims).is_some(),
                    _ => rhs_view(&input, dims).is_some(),
                }
            };
            let absorbed = match instr.opcode {
                _ if !dense_source => None,
                Opcode::Transpose => {
                    let permutation = instr.attrs.dimensions.clone().unwrap_or_default();
                    Some((
                        OperandView::Transpose(permutation),
                        Reason::TransposeAbsorbed,
                    ))
                }
                Opcode::Copy => Some((OperandView::Buffer, Reason::CopyAbsorbed)),
                _ => None,
            };
            match absorbed {
                Some((view, _)) if !strided(&view) => self.forbid(op, dot, Reason::NotStrided),
                Some((view, reason)) => {
                    self.decisions.push(FusionDecision::Fuse {
                        producer: op,
                        consumer: dot,
                        reason,
                    });
                    self.members.insert(op);
                    self.inputs.insert(instr.operands[0]);
                    self.dot_sources[k] = Some((instr.operands[0], view));
                }
                None => {
                    let reason = match classify(self.module, self.comp, self.backend, op) {
                        Role::Parameter | Role::Buffer => Reason::Buffer,
                        _ => Reason::NotFusible(Opcode::Dot),
                    };
                    self.forbid(op, dot, reason);
                }
            }
        }
    }

    /// Absorbs the im2col of the dot's lhs (see [`patches_view`]) when the
    /// engine can read its patches as a window of the sliced buffer and
    /// nothing else reads them; `true` if it did.
    fn absorb_patches(&mut self, dot: InstrId) -> bool {
        let dot_instr = self.comp.instr(dot);
        let Some((x, absorbed, view)) = patches_view(self.comp, dot_instr.operands[0]) else {
            return false;
        };
        // Windows are read by the f32 and f64 kernels' packing, not
        // widened from 16-bit operands.
        let same_type = self.comp.instr(x).shape.element_type() == dot_instr.shape.element_type();
        let readable = same_type
            && dot_instr.attrs.dot_dims.as_ref().is_some_and(|dims| {
                let shape = self.comp.instr(x).shape.as_array();
                shape
                    .is_some_and(|shape| lhs_view(&DotInput { shape, view: &view }, dims).is_some())
            });
        let users = |a: InstrId| &self.users[a.index()];
        let only_the_dot = users(absorbed[0])[..] == [dot]
            && absorbed[1..]
                .iter()
                .all(|&a| users(a).iter().all(|u| absorbed.contains(u)));
        if !readable || !only_the_dot {
            return false;
        }
        for &a in &absorbed {
            self.decisions.push(FusionDecision::Fuse {
                producer: a,
                consumer: dot,
                reason: Reason::WindowAbsorbed,
            });
            self.members.insert(a);
        }
        self.inputs.insert(x);
        self.dot_sources[0] = Some((x, view));
        true
    }
}
