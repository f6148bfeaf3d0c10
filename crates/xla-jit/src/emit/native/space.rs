//! The space a row or column kernel walks, and how each value of its
//! fusion is read in it (see `rows.rs` for the terms).

use std::collections::HashMap;

use xla_core::hlo::InstrId;
use xla_core::{ArrayShape, Opcode, PrimitiveType};

use crate::emit::ops::{op_of, Op};
use crate::emit::KernelInfo;

/// For each dimension of a value, the dimension of the space it is read at
/// (`None` for dimensions of size 1).
pub(super) type Map = Vec<Option<usize>>;

/// How a value varies over the space.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(super) enum Class {
    Uniform,
    Row,
    Column,
    Element,
}

/// The space a row kernel walks.
pub(super) struct Space {
    /// Its dimensions.
    pub dims: Vec<i64>,
    /// Dimensions of size > 1 in physical order, most major first; the
    /// last is the column.
    pub order: Vec<usize>,
    /// Elements per row.
    pub n: i64,
    /// Rows.
    pub rows: i64,
}

impl Space {
    pub fn new(shape: &ArrayShape) -> Option<Space> {
        let layout = shape.layout_or_default();
        if !layout.is_dense() {
            return None;
        }
        if shape.element_count() == 0 {
            return None;
        }
        let order: Vec<usize> = layout
            .major_to_minor()
            .filter(|&d| shape.dims()[d] != 1)
            .collect();
        let n = shape.dims()[*order.last()?];
        // Row strides in bytes and column counts are 32-bit immediates.
        if 4 * n > i64::from(i32::MAX) {
            return None;
        }
        Some(Space {
            dims: shape.dims().to_vec(),
            n,
            rows: shape.element_count() / n,
            order,
        })
    }

    pub fn column(&self) -> usize {
        *self.order.last().expect("a space has a column")
    }

    /// `true` if a value of `class` holds one number per row (in a space
    /// of one row, a uniform value does).
    pub fn per_row(&self, class: Class) -> bool {
        class == Class::Row || (class == Class::Uniform && self.rows == 1)
    }

    /// The class of an input read at `map`: `None` for one that varies
    /// along only some of the rows, which no row stride walks.
    pub fn class(&self, map: &Map) -> Option<Class> {
        self.class_of(map, false)
    }

    /// The class of a value the kernel computes, read at `map`: as
    /// [`Space::class`], but one that varies along some of the rows is
    /// computed per row, or per element if it varies along the column too
    /// (a causal mask broadcast over the heads).
    pub fn member_class(&self, map: &Map) -> Option<Class> {
        self.class_of(map, true)
    }

    fn class_of(&self, map: &Map, computed: bool) -> Option<Class> {
        let covered: Vec<usize> = map.iter().flatten().copied().collect();
        let mut unique = covered.clone();
        unique.sort_unstable();
        unique.dedup();
        if unique.len() != covered.len() {
            return None;
        }
        let column = self.column();
        Some(if !covered.contains(&column) {
            if covered.is_empty() {
                Class::Uniform
            } else if computed || unique.len() + 1 == self.order.len() {
                Class::Row
            } else {
                // An input along some of the rows (a bias over the middle
                // dimension) is not one element per row.
                return None;
            }
        } else if covered == [column] && self.order.len() > 1 {
            // (With no row dimensions, what varies along the column
            // varies per element.)
            Class::Column
        } else if computed || unique.len() == self.order.len() {
            Class::Element
        } else {
            return None;
        })
    }

    /// `true` if an array of `shape` read at `map` holds its elements in
    /// the space's order of the dimensions it covers (so that its linear
    /// index is the element's, the row's or the column's).
    pub fn walks_in_order(&self, shape: &ArrayShape, map: &Map) -> bool {
        let layout = shape.layout_or_default();
        let mapped: Vec<usize> = layout
            .major_to_minor()
            .filter(|&d| shape.dims()[d] != 1)
            .filter_map(|d| map[d])
            .collect();
        let expected: Vec<usize> = self
            .order
            .iter()
            .copied()
            .filter(|d| mapped.contains(d))
            .collect();
        layout.is_dense() && mapped == expected
    }
}

/// The map of `shape` read at the space's own index.
pub(super) fn identity(shape: &ArrayShape) -> Map {
    (0..shape.rank())
        .map(|d| (shape.dims()[d] != 1).then_some(d))
        .collect()
}

/// The map of every value, from the `seeds`' (the root's, or a root
/// reduce's operands') down, but not below `leaf` (a dot epilogue's dot,
/// whose values the kernel reads from the dot's block): `None` if a value
/// is read at two maps or through an op with no map here.
pub(super) fn maps(
    info: &KernelInfo,
    space: &Space,
    seeds: Vec<(InstrId, Map)>,
    leaf: Option<InstrId>,
) -> Option<HashMap<InstrId, Map>> {
    let comp = info.comp;
    let fusion = info.fusion;
    let mut maps: HashMap<InstrId, Map> = seeds.into_iter().collect();
    for &id in fusion.instructions.iter().rev() {
        let Some(map) = maps.get(&id).cloned().filter(|_| Some(id) != leaf) else {
            continue;
        };
        let instr = comp.instr(id);
        let shape = instr.shape.as_array()?;
        // The size of the reader's dimension read at the space's `d` (the
        // space's, where the reader has none: a reduce's column).
        let extent = |d: usize| match map.iter().position(|&m| m == Some(d)) {
            Some(i) => shape.dims().get(i).copied(),
            None => space.dims.get(d).copied(),
        };
        let window = instr.opcode == Opcode::Slice;
        for (k, &o) in instr.operands.iter().enumerate() {
            // A broadcast of an iota is an index of the space (see
            // `index_dimension`): the iota itself has no map (a mask's
            // row and column indices broadcast one iota two ways).
            if instr.opcode == Opcode::Broadcast && comp.instr(o).opcode == Opcode::Iota {
                continue;
            }
            let operand = comp.instr(o).shape.as_array()?;
            let om = operand_map(instr, k, &map, operand, space)?;
            let om: Map = om
                .into_iter()
                .zip(operand.dims())
                .map(|(m, &size)| m.filter(|_| size != 1))
                .collect();
            // A dimension read at one of the space's has the reader's size
            // there, but for the columns a slice reads a window of (which
            // the values it reads then have, down to the inputs).
            if om.iter().zip(operand.dims()).any(|(m, &size)| {
                m.is_some_and(|d| extent(d) != Some(size) && !(window && d == space.column()))
            }) {
                return None;
            }
            match maps.get(&o) {
                Some(existing) if *existing != om => return None,
                Some(_) => {}
                None => {
                    maps.insert(o, om);
                }
            }
        }
    }
    Some(maps)
}

/// The map of operand `k` of `instr`, read at `map`.
fn operand_map(
    instr: &xla_core::HloInstruction,
    k: usize,
    map: &Map,
    operand: &ArrayShape,
    space: &Space,
) -> Option<Map> {
    let shape = instr.shape.as_array()?;
    match instr.opcode {
        Opcode::Broadcast => Some(
            instr
                .attrs
                .dimensions
                .as_ref()?
                .iter()
                .map(|&d| map.get(d as usize).copied().flatten())
                .collect(),
        ),
        Opcode::Reshape | Opcode::Bitcast => {
            // Only dimensions of size 1 may come or go: the others, in
            // logical order for a reshape and in physical order for a
            // bitcast (which keeps the bytes where they are), pair up.
            let physical = instr.opcode == Opcode::Bitcast;
            let big = |s: &ArrayShape| -> Vec<(usize, i64)> {
                let order: Vec<usize> = if physical {
                    s.layout_or_default().major_to_minor().collect()
                } else {
                    (0..s.rank()).collect()
                };
                order
                    .into_iter()
                    .filter(|&d| s.dims()[d] != 1)
                    .map(|d| (d, s.dims()[d]))
                    .collect()
            };
            if physical && operand.element_type() != shape.element_type() {
                return None;
            }
            let (from, to) = (big(operand), big(shape));
            if from.iter().map(|x| x.1).ne(to.iter().map(|x| x.1)) {
                return None;
            }
            let mut m = vec![None; operand.rank()];
            for (&(od, _), &(d, _)) in from.iter().zip(&to) {
                m[od] = map[d];
            }
            Some(m)
        }
        Opcode::Slice => {
            first_column(instr, operand, map, space)?;
            Some(map.clone())
        }
        Opcode::Reduce => {
            if k == 1 {
                return (operand.element_count() == 1).then(|| vec![None; operand.rank()]);
            }
            let [r] = instr.attrs.dimensions.as_deref()? else {
                return None;
            };
            // A row pass reduces the column (a reduce over a dimension of
            // size 1 is not one).
            if operand.dims().get(*r as usize) != Some(&space.n) {
                return None;
            }
            let mut kept = map.iter().copied();
            Some(
                (0..operand.rank())
                    .map(|d| {
                        if d as i64 == *r {
                            Some(space.column())
                        } else {
                            kept.next().flatten()
                        }
                    })
                    .collect(),
            )
        }
        _ if matches!(
            op_of(instr.opcode),
            Op::Unary(_) | Op::Binary(_) | Op::Compare | Op::Select | Op::Clamp
        ) =>
        {
            if operand.dims() == shape.dims() {
                Some(map.clone())
            } else if operand.element_count() == 1 {
                Some(vec![None; operand.rank()])
            } else {
                None
            }
        }
        _ => None,
    }
}

/// The dimension of the space along which `instr`, read at `map`, counts
/// `0, 1, 2, …` (`None` when it counts along a dimension of size 1, and
/// so is 0): an iota, or a broadcast of one. `Err` for other values.
pub(super) fn index_dimension(
    comp: &xla_core::HloComputation,
    instr: &xla_core::HloInstruction,
    map: &Map,
) -> Result<Option<usize>, ()> {
    let (iota, map) = match instr.opcode {
        Opcode::Iota => (instr, map.clone()),
        Opcode::Broadcast => {
            let operand = comp.instr(*instr.operands.first().ok_or(())?);
            if operand.opcode != Opcode::Iota {
                return Err(());
            }
            let dims = instr.attrs.dimensions.as_ref().ok_or(())?;
            let map: Map = dims
                .iter()
                .map(|&d| map.get(d as usize).copied().flatten())
                .collect();
            (operand, map)
        }
        _ => return Err(()),
    };
    let d = iota.attrs.iota_dimension.ok_or(())?;
    Ok(map.get(d as usize).copied().flatten())
}

/// The first column a slice read at `map` starts at in `operand`, if it
/// keeps every other dimension whole and steps by one: it is read in
/// place, at that column of each of the operand's rows.
pub(super) fn first_column(
    instr: &xla_core::HloInstruction,
    operand: &ArrayShape,
    map: &Map,
    space: &Space,
) -> Option<i64> {
    let slice = instr.attrs.slice.as_ref()?;
    let column = map.iter().position(|&m| m == Some(space.column()))?;
    let mut first = None;
    for (d, (bounds, &size)) in slice.iter().zip(operand.dims()).enumerate() {
        if bounds.stride != 1 {
            return None;
        }
        if d == column {
            first = Some(bounds.start);
        } else if bounds.start != 0 || bounds.limit != size {
            return None;
        }
    }
    first
}

/// The elements of one of its rows of an array read at `map`: its
/// dimension read at the column (the space's `n`, or more for an array a
/// slice reads a window of).
pub(super) fn row_elements(shape: &ArrayShape, map: &Map, space: &Space) -> Option<i64> {
    let column = map.iter().position(|&m| m == Some(space.column()))?;
    Some(shape.dims()[column])
}

/// The bytes from one row to the next of each of `ids` (a fusion's
/// inputs, or its inputs and outputs), all f32 arrays walked in the
/// space's order: a row's length for per-element values, one element for
/// per-row values, none for the others. `None` if one is not such an
/// array.
pub(super) fn row_strides(
    info: &KernelInfo,
    space: &Space,
    maps: &HashMap<InstrId, Map>,
    classes: &HashMap<InstrId, Class>,
    ids: impl IntoIterator<Item = InstrId>,
) -> Option<Vec<i64>> {
    ids.into_iter()
        .map(|id| {
            let a = info.comp.instr(id).shape.as_array()?;
            let map = maps.get(&id)?;
            if a.element_type() != PrimitiveType::F32 || !space.walks_in_order(a, map) {
                return None;
            }
            Some(match classes.get(&id)? {
                Class::Element => 4 * row_elements(a, map, space)?,
                Class::Row => 4,
                Class::Column | Class::Uniform => 0,
            })
        })
        .collect()
}
