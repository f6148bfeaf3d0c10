//! Cost estimates for the runtime's parallelism decision: nanoseconds per
//! element of a kernel's iteration space, from the bytes it streams and the
//! ops it computes. Rough by design; the runtime compares the product with
//! a threshold measured on the machine.

use std::collections::HashSet;

use xla_core::hlo::{Cost, InstrId};
use xla_core::{Opcode, Shape};

use super::KernelInfo;

/// Streaming bandwidth of one core, bytes per nanosecond (about 20 GB/s
/// once caches miss; see `bench/README.md`).
const BYTES_PER_NS: f64 = 20.0;

/// Estimated nanoseconds per output element of a fusion's kernel at
/// `lanes` lanes.
pub(super) fn per_element(info: &KernelInfo, lanes: u32) -> f64 {
    let buffers: Vec<InstrId> = info
        .fusion
        .inputs
        .iter()
        .chain(&info.fusion.outputs)
        .copied()
        .collect();
    estimate(info, &info.fusion.instructions, &buffers, lanes)
}

/// Estimated nanoseconds per element of `value` (a member or an input of
/// the fusion) computed from the fusion's inputs and stored to its output:
/// the cost of one piece of a concatenate.
pub(super) fn per_element_of(info: &KernelInfo, value: InstrId, lanes: u32) -> f64 {
    let (mut members, mut buffers) = (Vec::new(), info.fusion.outputs.clone());
    let mut seen = HashSet::new();
    let mut stack = vec![value];
    while let Some(id) = stack.pop() {
        if !seen.insert(id) {
            continue;
        }
        if info.fusion.contains(id) {
            members.push(id);
            stack.extend(info.comp.instr(id).operands.iter().copied());
        } else {
            buffers.push(id);
        }
    }
    estimate(info, &members, &buffers, lanes)
}

/// The bytes `buffers` stream and the ops `members` compute per element.
fn estimate(info: &KernelInfo, members: &[InstrId], buffers: &[InstrId], lanes: u32) -> f64 {
    let element_bytes = |shape: &Shape| -> f64 {
        shape
            .array_leaves()
            .iter()
            .filter(|a| a.element_count() > 1)
            .map(|a| a.element_type().byte_size() as f64)
            .sum()
    };
    let bytes: f64 = buffers
        .iter()
        .map(|&id| element_bytes(&info.comp.instr(id).shape))
        .sum();
    let compute: f64 = members
        .iter()
        .map(|&id| {
            let instr = info.comp.instr(id);
            let kernel = instr
                .operands
                .get(1)
                .and_then(|&k| info.comp.instr(k).shape.as_array())
                .map(|a| a.dims());
            let taps = super::reduce_window::taps(instr) * super::convolution::taps(instr, kernel);
            op_cost(instr.opcode) * taps as f64
        })
        .sum();
    bytes / BYTES_PER_NS + compute / lanes as f64
}

/// Ops at least this costly per vector (the transcendentals, `power`,
/// `remainder`) make a loop body of dozens of instructions.
const HEAVY_OP: f64 = 2.0;

/// `true` if the fusion computes vector math (an op at least
/// [`HEAVY_OP`] per vector), which makes its kernel bound by computation
/// rather than by memory.
pub(super) fn computes_heavy_ops(info: &KernelInfo) -> bool {
    info.fusion
        .instructions
        .iter()
        .any(|&id| op_cost(info.comp.instr(id).opcode) >= HEAVY_OP)
}

/// The most vectors an inner loop step computing `value` (a member of the
/// fusion) takes: one when its expression calls vector math other than f32
/// tanh. Unrolling such a body does not make it faster (the core already
/// overlaps consecutive iterations; measured on ew_chain and softmax) but
/// multiplies its compile time, and the unrolled copies of a body with
/// rarely-taken branches spill their accumulators and constants across the
/// blocks. f32 tanh is emitted in stages across the vectors of a step
/// (`Elemental::staged_step`), which makes ew_gelu 13–14% faster.
pub(super) fn max_unroll(info: &KernelInfo, value: InstrId) -> u32 {
    let mut stack = vec![value];
    let mut seen = Vec::new();
    while let Some(id) = stack.pop() {
        if seen.contains(&id) || !info.fusion.contains(id) {
            continue;
        }
        seen.push(id);
        let instr = info.comp.instr(id);
        if op_cost(instr.opcode) >= HEAVY_OP && super::transcendental::staged(instr).is_none() {
            return 1;
        }
        stack.extend(instr.operands.iter().copied());
    }
    super::iterate::MAX_UNROLL
}

/// Nanoseconds per vector operation (scalarized ops count per lane).
fn op_cost(op: Opcode) -> f64 {
    match op.cost() {
        Cost::Free => 0.0,
        Cost::Cheap => 0.1,
        Cost::Moderate => 0.5,
        Cost::Transcendental => 2.0,
        Cost::Heavy => 8.0,
        Cost::Opaque => 1.0,
    }
}
