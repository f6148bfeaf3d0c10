//! `sort` whose comparator orders by one operand's elements alone, as JAX
//! writes it (`jnp.sort`, `argsort`, `lax.sort` with `num_keys=1`): no
//! kernel to compile, every row sorted by the interpreter's stable merge
//! sort ([`merge_sort`]) on keys computed once per element, then each
//! operand gathered through the permutation. Rows run in parallel.
//!
//! The comparator is `compare(f(a), f(b))` (any direction, the float,
//! total-order, signed or unsigned comparison) of the two parameters of
//! one operand, where `f` is the parameter itself or JAX's float
//! canonicalization, `select(x ≠ x, nan, select(x = 0, 0, x))` (every NaN
//! one NaN, `−0` as `+0`). Keys are f32, f64 or integers of 8 to 64 bits.

use std::cmp::Ordering;

use xla_core::hlo::{ComparisonDirection, ComparisonType, HloComputation, InstrId};
use xla_core::interp::merge_sort;
use xla_core::{HloInstruction, HloModule, Opcode, PrimitiveType, Shape};

use super::{for_ranges, Span};
use crate::pool::ThreadPool;

/// A planned sort.
pub(crate) struct SortRoutine {
    /// Rows before the sort dimension, its length, and elements after it
    /// (row-major).
    outer: usize,
    len: usize,
    inner: usize,
    /// Each operand's element bytes.
    sizes: Vec<usize>,
    /// The operand whose elements are the keys, and their type.
    key: usize,
    ty: PrimitiveType,
    /// The float canonicalization: the bits of its NaN and of its zero.
    canonical: Option<(u64, u64)>,
    /// How two keys compare.
    compare: Compare,
    direction: ComparisonDirection,
    /// The comparator reads the second element of a pair first
    /// (`compare(f(b), f(a))`).
    swapped: bool,
}

/// The comparison of two keys.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Compare {
    /// IEEE (a NaN compares unordered).
    Float,
    /// Floats in their total order, integers by value.
    Ordered,
}

impl SortRoutine {
    /// The routine of `instr`, a `sort` of operands of `operands`' shapes,
    /// if its comparator orders by one operand alone.
    pub fn new(module: &HloModule, instr: &HloInstruction, operands: &[&Shape]) -> Option<Self> {
        let dim = usize::try_from(*instr.attrs.dimensions.as_ref()?.first()?).ok()?;
        let first = operands.first()?.as_array()?;
        let dims = first.dims();
        if dim >= dims.len()
            || operands
                .iter()
                .any(|s| s.as_array().map(|a| a.dims()) != Some(dims))
        {
            return None;
        }
        let comparator = module.computation(*instr.called.first()?);
        let root = comparator.root_instr();
        if root.opcode != Opcode::Compare || comparator.parameters().len() != 2 * operands.len() {
            return None;
        }
        let (a, b) = (
            key_of(comparator, root.operands[0])?,
            key_of(comparator, root.operands[1])?,
        );
        // The two sides read the two elements of one operand, the same way.
        let (pa, pb) = (a.0, b.0);
        if pa / 2 != pb / 2 || pa == pb || a.1 != b.1 {
            return None;
        }
        let key = pa / 2;
        let ty = operands[key].as_array()?.element_type();
        let compare = match (root.attrs.comparison_type, ty.is_floating()) {
            (None | Some(ComparisonType::Float), true) => Compare::Float,
            (Some(ComparisonType::TotalOrder), true) => Compare::Ordered,
            (None, false) => Compare::Ordered,
            (Some(ComparisonType::Signed), false) if ty.is_signed_integral() => Compare::Ordered,
            (Some(ComparisonType::Unsigned), false) if ty.is_unsigned_integral() => {
                Compare::Ordered
            }
            _ => return None,
        };
        let keyed = matches!(ty, PrimitiveType::F32 | PrimitiveType::F64) || ty.is_integral();
        if !keyed || (a.1.is_some() && !ty.is_floating()) {
            return None;
        }
        let sizes = operands
            .iter()
            .map(|s| s.as_array().map(|a| a.element_type().byte_size()))
            .collect::<Option<Vec<_>>>()?;
        let count = |range: &[i64]| range.iter().product::<i64>() as usize;
        Some(SortRoutine {
            outer: count(&dims[..dim]),
            len: dims[dim] as usize,
            inner: count(&dims[dim + 1..]),
            sizes,
            key,
            ty,
            canonical: a.1,
            compare,
            direction: root.attrs.comparison_direction?,
            swapped: pa % 2 == 1,
        })
    }

    /// What the routine computes.
    pub fn describe(&self) -> String {
        format!(
            "sort {} {} rows of {} by operand {} ({})",
            self.outer * self.inner,
            self.ty,
            self.len,
            self.key,
            if self.canonical.is_some() {
                "canonical floats"
            } else {
                "keys as they are"
            }
        )
    }

    /// Sorts every row of the operands at `inputs` into `outputs`.
    ///
    /// # Safety
    ///
    /// `inputs[k]` and `outputs[k]` hold operand `k` and result leaf `k`
    /// in row-major layouts, live, the outputs not overlapping any other.
    pub unsafe fn run(&self, inputs: &[*const u8], outputs: &[*mut u8], pool: &ThreadPool) {
        let rows = self.outer * self.inner;
        let total = rows * self.len;
        if total == 0 {
            return;
        }
        // SAFETY: the caller's live operands, only read here.
        let from: Vec<&[u8]> = self
            .sizes
            .iter()
            .zip(inputs)
            .map(|(&size, &i)| unsafe { std::slice::from_raw_parts(i, total * size) })
            .collect();
        let to: Vec<Span<u8>> = self
            .sizes
            .iter()
            .zip(outputs)
            .map(|(&size, &o)| Span::new(o, total * size))
            .collect();
        let tasks = if total >= 1 << 14 { pool.threads() } else { 1 };
        for_ranges(pool, rows, tasks, |range| {
            let mut keys = Vec::with_capacity(self.len);
            let key_size = self.sizes[self.key];
            for row in range {
                let (o, i) = (row / self.inner, row % self.inner);
                let at = |k: usize| (o * self.len + k) * self.inner + i;
                keys.clear();
                keys.extend(
                    (0..self.len)
                        .map(|k| self.key_at(&from[self.key][at(k) * key_size..][..key_size])),
                );
                let order = self.permutation(&keys);
                for ((&size, input), output) in self.sizes.iter().zip(&from).zip(&to) {
                    for (k, &p) in order.iter().enumerate() {
                        // SAFETY: element `k` of this task's row, which no
                        // other task writes.
                        let element = unsafe { output.slice(at(k) * size, size) };
                        element.copy_from_slice(&input[at(p) * size..][..size]);
                    }
                }
            }
        });
    }

    /// The key of one element's bytes: a float's value (canonicalized),
    /// or a number whose order is the keys' (a float's total-order key,
    /// an integer's value).
    fn key_at(&self, bytes: &[u8]) -> Key {
        let mut raw = [0u8; 8];
        raw[..bytes.len()].copy_from_slice(bytes);
        let mut bits = u64::from_le_bytes(raw);
        // Compared as the kernels compare, with subnormals read as zeros
        // of their sign (XLA's denormals-are-zero mode).
        let f64_bits = |bits: u64| {
            let (value, smallest) = match self.ty {
                PrimitiveType::F32 => (
                    f64::from(f32::from_bits(bits as u32)),
                    f64::from(f32::MIN_POSITIVE),
                ),
                _ => (f64::from_bits(bits), f64::MIN_POSITIVE),
            };
            match value.abs() < smallest {
                true => 0.0f64.copysign(value),
                false => value,
            }
        };
        if let Some((nan, zero)) = self.canonical {
            let value = f64_bits(bits);
            if value.is_nan() {
                bits = nan;
            } else if value == 0.0 {
                bits = zero;
            }
        }
        match (self.compare, self.ty) {
            (Compare::Float, _) => Key::Float(f64_bits(bits)),
            (Compare::Ordered, PrimitiveType::F32) => {
                let b = bits as u32 as i32;
                Key::Ordered(i64::from(b ^ (((b >> 31) as u32) >> 1) as i32))
            }
            (Compare::Ordered, PrimitiveType::F64) => {
                let b = bits as i64;
                Key::Ordered(b ^ (((b >> 63) as u64) >> 1) as i64)
            }
            (Compare::Ordered, ty) => {
                let width = 8 * ty.byte_size() as u32;
                let value = if ty.is_signed_integral() {
                    ((bits << (64 - width)) as i64) >> (64 - width)
                } else {
                    // Unsigned values keep their order with the top bit
                    // flipped.
                    (bits ^ (1 << 63)) as i64
                };
                Key::Ordered(value)
            }
        }
    }

    /// The row's permutation: the interpreter's merge sort, asking the
    /// comparator's question of the keys.
    fn permutation(&self, keys: &[Key]) -> Vec<usize> {
        let direction = self.direction;
        let holds = |ordering: Option<Ordering>| match (direction, ordering) {
            (_, None) => direction == ComparisonDirection::Ne,
            (ComparisonDirection::Eq, Some(o)) => o == Ordering::Equal,
            (ComparisonDirection::Ne, Some(o)) => o != Ordering::Equal,
            (ComparisonDirection::Lt, Some(o)) => o == Ordering::Less,
            (ComparisonDirection::Le, Some(o)) => o != Ordering::Greater,
            (ComparisonDirection::Gt, Some(o)) => o == Ordering::Greater,
            (ComparisonDirection::Ge, Some(o)) => o != Ordering::Less,
        };
        let less = |a: usize, b: usize| -> Result<bool, std::convert::Infallible> {
            let (x, y) = if self.swapped { (b, a) } else { (a, b) };
            Ok(holds(keys[x].partial_cmp(&keys[y])))
        };
        match merge_sort(keys.len(), less) {
            Ok(order) => order,
            Err(never) => match never {},
        }
    }
}

/// A key: a float compared as IEEE does, or a number compared by value.
#[derive(Clone, Copy, PartialEq, PartialOrd)]
enum Key {
    Float(f64),
    Ordered(i64),
}

/// The parameter `id` reads, and JAX's canonicalization's NaN and zero
/// bits if it is `select(x ≠ x, nan, select(x = 0, 0, x))` of it.
fn key_of(comp: &HloComputation, id: InstrId) -> Option<(usize, Option<(u64, u64)>)> {
    let instr = comp.instr(id);
    if instr.opcode == Opcode::Parameter {
        return Some((instr.attrs.parameter_number? as usize, None));
    }
    let operands = |i: &HloInstruction| -> Option<[InstrId; 3]> {
        (i.opcode == Opcode::Select)
            .then(|| i.operands.clone().try_into().ok())
            .flatten()
    };
    let [is_nan, nan, rest] = operands(instr)?;
    let [is_zero, zero, x] = operands(comp.instr(rest))?;
    let p = comp.instr(x);
    let number = p.attrs.parameter_number? as usize;
    let compares = |c: InstrId, direction, other: InstrId| {
        let c = comp.instr(c);
        c.opcode == Opcode::Compare
            && c.attrs.comparison_direction == Some(direction)
            && c.attrs
                .comparison_type
                .is_none_or(|t| t == ComparisonType::Float)
            && c.operands == [x, other]
    };
    let constant = |c: InstrId| -> Option<f64> {
        let c = comp.instr(c);
        let bits = scalar_bits(c)?;
        Some(match c.shape.as_array()?.element_type() {
            PrimitiveType::F32 => f64::from(f32::from_bits(bits as u32)),
            PrimitiveType::F64 => f64::from_bits(bits),
            _ => return None,
        })
    };
    let canonical = p.opcode == Opcode::Parameter
        && compares(is_nan, ComparisonDirection::Ne, x)
        && compares(is_zero, ComparisonDirection::Eq, zero)
        && constant(nan)?.is_nan()
        && constant(zero)? == 0.0;
    canonical.then_some((
        number,
        Some((
            scalar_bits(comp.instr(nan))?,
            scalar_bits(comp.instr(zero))?,
        )),
    ))
}

/// The bits of a scalar constant of at most 8 bytes.
fn scalar_bits(c: &HloInstruction) -> Option<u64> {
    let bytes = c.attrs.literal.as_ref()?.bytes().ok()?;
    if c.opcode != Opcode::Constant || bytes.len() > 8 {
        return None;
    }
    let mut raw = [0u8; 8];
    raw[..bytes.len()].copy_from_slice(bytes);
    Some(u64::from_le_bytes(raw))
}
