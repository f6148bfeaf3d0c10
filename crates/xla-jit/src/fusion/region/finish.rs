//! The grown region as a [`Fusion`]: its kind, members, inputs, row
//! passes and loop invariants.

use xla_core::hlo::InstrId;
use xla_core::{Opcode, Shape};

use super::Region;
use crate::fusion::dims::{self, DimRef};
use crate::fusion::{DotOperand, DotOperands, Fusion, FusionKind, InPlace, OperandView, RowPass};

impl Region<'_> {
    /// Members whose value does not change along the inner loop of the
    /// kernel (see [`Fusion::invariants`]): every dimension is read at an
    /// outer root dimension or has size 1, and computing it costs more
    /// than index arithmetic.
    fn invariants(&self, kind: FusionKind) -> Vec<RowPass> {
        let root = self.comp.instr(self.root);
        let Shape::Array(shape) = &root.shape else {
            return Vec::new();
        };
        let outer: Vec<usize> = match kind {
            FusionKind::Row => self.rows.clone().unwrap_or_default(),
            FusionKind::Loop => {
                let minor = dims::minor_most(shape);
                (0..shape.dims().len())
                    .filter(|&d| Some(d) != minor)
                    .collect()
            }
            FusionKind::Reduction | FusionKind::DotEpilogue => return Vec::new(),
        };
        self.members
            .iter()
            .filter(|&&m| m != self.root && !self.reduces.contains(&m))
            .filter(|&&m| {
                let instr = self.comp.instr(m);
                let computes = !matches!(
                    instr.opcode,
                    Opcode::Constant
                        | Opcode::Broadcast
                        | Opcode::Reshape
                        | Opcode::Bitcast
                        | Opcode::Transpose
                        | Opcode::Copy
                        | Opcode::Iota
                );
                computes
                    && self.maps.get(&m).is_some_and(|map| {
                        map.iter()
                            .zip(dims::dims_of(instr))
                            .all(|(r, &size)| match r {
                                DimRef::Root(k) => outer.contains(k),
                                DimRef::Zero => true,
                                _ => size == 1,
                            })
                    })
            })
            .map(|&m| RowPass {
                instr: m,
                dims: self.maps[&m]
                    .iter()
                    .map(|r| match r {
                        DimRef::Root(k) => Some(*k),
                        _ => None,
                    })
                    .collect(),
            })
            .collect()
    }

    /// The positions in `inputs` of the inputs of the root's dimensions
    /// that every member reads only at the root's own index.
    fn read_at_root_index(&self, inputs: &[InstrId]) -> Vec<usize> {
        let root_dims = dims::dims_of(self.comp.instr(self.root));
        let identity: Vec<DimRef> = (0..root_dims.len()).map(DimRef::Root).collect();
        inputs
            .iter()
            .enumerate()
            .filter(|&(_, &input)| {
                dims::dims_of(self.comp.instr(input)) == root_dims && self.map_of(input) == identity
            })
            .map(|(k, _)| k)
            .collect()
    }

    /// The largest stride in bytes at which an input is read along the
    /// root's minor-most dimension, among the inputs whose own minor-most
    /// dimension in memory is indexed by another root dimension (the
    /// kernel reads them across their rows: a transpose, or a copy into
    /// another layout); `None` if there is none.
    fn transposed_read_stride(&self, inputs: &[InstrId]) -> Option<i64> {
        let Shape::Array(root) = &self.comp.instr(self.root).shape else {
            return None;
        };
        let root_minor = dims::minor_most(root)?;
        inputs
            .iter()
            .filter_map(|&input| {
                let Shape::Array(shape) = &self.comp.instr(input).shape else {
                    return None;
                };
                let map = self.map_of(input);
                let minor = dims::minor_most(shape)?;
                if !matches!(map[minor], DimRef::Root(k) if k != root_minor) {
                    return None;
                }
                // The input dimension the root's row runs along, and the
                // elements between its consecutive indices.
                let along = map.iter().position(|&r| r == DimRef::Root(root_minor))?;
                let strides = shape.layout_or_default().dense_strides(shape.dims())?;
                Some(strides[along] * shape.element_type().byte_size() as i64)
            })
            .max()
    }

    pub(super) fn finish(self, in_place_operand: Option<InstrId>) -> Fusion {
        let kind = if self.dot.is_some() {
            FusionKind::DotEpilogue
        } else if self.reduces.len() == 1 && self.reduces[0] == self.root {
            FusionKind::Reduction
        } else if !self.reduces.is_empty() {
            FusionKind::Row
        } else {
            FusionKind::Loop
        };
        let inputs: Vec<InstrId> = self.inputs.iter().copied().collect();
        let in_place = in_place_operand.and_then(|operand| {
            // Only if nothing but the root reads the operand, and the root
            // only as its operand 0: a kernel writing into the operand's
            // buffer must not read it.
            let root_operands = &self.comp.instr(self.root).operands;
            let read_elsewhere = root_operands[1..].contains(&operand)
                || self
                    .members
                    .iter()
                    .any(|&m| m != self.root && self.comp.instr(m).operands.contains(&operand));
            (!read_elsewhere).then(|| InPlace {
                input: inputs
                    .iter()
                    .position(|&i| i == operand)
                    .expect("operand is an input"),
                output: 0,
            })
        });
        let aliasable = if kind == FusionKind::Loop && in_place.is_none() {
            self.read_at_root_index(&inputs)
        } else {
            Vec::new()
        };
        let transposed_read_stride = if kind == FusionKind::Loop {
            self.transposed_read_stride(&inputs)
        } else {
            None
        };
        let dot = self.dot.map(|d| {
            let operand = |k: usize| {
                let op = self.comp.instr(d).operands[k];
                let (source, view) = self.dot_sources[k]
                    .clone()
                    .unwrap_or((op, OperandView::Buffer));
                DotOperand {
                    input: inputs
                        .iter()
                        .position(|&i| i == source)
                        .expect("dot operand is an input"),
                    view,
                }
            };
            DotOperands {
                dot: d,
                lhs: operand(0),
                rhs: operand(1),
            }
        });
        let mut reduces = self.reduces.clone();
        reduces.sort();
        let read_at = |id: InstrId| -> Vec<Option<usize>> {
            self.maps[&id]
                .iter()
                .map(|m| match m {
                    DimRef::Root(k) => Some(*k),
                    _ => None,
                })
                .collect()
        };
        let passes = reduces
            .iter()
            .map(|&r| RowPass {
                instr: r,
                dims: read_at(r),
            })
            .collect();
        let invariants = self.invariants(kind);
        Fusion {
            kind,
            root: self.root,
            instructions: self.members.into_iter().collect(),
            outputs: vec![self.root],
            inputs,
            decisions: self.decisions,
            in_place,
            aliasable,
            transposed_read_stride,
            dot,
            passes,
            invariants,
        }
    }
}
