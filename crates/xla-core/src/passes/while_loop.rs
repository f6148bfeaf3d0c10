//! Dead loop carries: elements of a `while` loop's tuple that nothing
//! reads.

use std::collections::HashSet;

use super::edit::{retain, Editor, Names};
use super::effects::SideEffects;
use super::{Changed, Pass};
use crate::hlo::{ComputationId, HloInstruction, HloModule, InstrId, Opcode};
use crate::{Result, Shape};

/// Removes the elements of a `while` loop's carried tuple that no result
/// of the loop, no condition and no other element needs (XLA's
/// `WhileLoopSimplifier` does the same).
///
/// JAX's `fori_loop` carries its counter twice (once for the loop's own
/// test, once as the body function's argument), and a `scan` often
/// carries values only its own body reads: each dead element still costs
/// its share of every iteration (a kernel call per step, for a compiled
/// loop). An element `i` is live when a `get-tuple-element` of the loop's
/// result or of the condition's parameter reads it, or when the body's
/// value of a live element (or a side-effecting instruction of the body)
/// depends on the body parameter's element `i`. The loop then carries the
/// live elements only, in their order.
///
/// Loops are left alone when their carry is not a tuple, their result or
/// a parameter is used other than through `get-tuple-element`, the body's
/// root is not a `tuple`, their computations are called from elsewhere
/// too, or they have side effects.
#[derive(Copy, Clone, Debug, Default)]
pub struct DeadLoopCarries;

impl Pass for DeadLoopCarries {
    const NAME: &'static str = "dead-loop-carries";

    fn run(&mut self, module: &mut HloModule) -> Result<Changed> {
        let mut changed = Changed::No;
        let mut names = Names::of(module);
        for c in 0..module.computations.len() {
            let id = ComputationId(c as u32);
            let loops: Vec<InstrId> = module
                .computation(id)
                .instructions
                .iter()
                .enumerate()
                .filter(|(_, i)| i.opcode == Opcode::While)
                .map(|(k, _)| InstrId(k as u32))
                .collect();
            // One loop per round: the computation's ids change on rewrite.
            for w in loops {
                if let Some(live) = live_elements(module, id, w) {
                    rewrite(module, id, w, &live, &mut names);
                    changed = Changed::Yes;
                    break;
                }
            }
        }
        Ok(changed)
    }
}

/// How many instructions of the module call computation `id`.
fn callers(module: &HloModule, id: ComputationId) -> usize {
    module
        .computations
        .iter()
        .flat_map(|c| &c.instructions)
        .filter(|i| i.called.contains(&id))
        .count()
}

/// The indices at which `get-tuple-element`s read `of` in `instrs`, or
/// `None` if something else reads it.
fn read_indices(instrs: &[HloInstruction], of: InstrId) -> Option<HashSet<usize>> {
    let mut read = HashSet::new();
    for instr in instrs {
        if !instr.operands.contains(&of) {
            continue;
        }
        if instr.opcode != Opcode::GetTupleElement {
            return None;
        }
        read.insert(usize::try_from(instr.attrs.tuple_index?).ok()?);
    }
    Some(read)
}

/// The only parameter of a loop computation.
fn parameter(instrs: &[HloInstruction]) -> Option<InstrId> {
    let mut params = instrs
        .iter()
        .enumerate()
        .filter(|(_, i)| i.opcode == Opcode::Parameter);
    let (k, _) = params.next()?;
    params.next().is_none().then_some(InstrId(k as u32))
}

/// The live elements of loop `w` of computation `comp`, in order, if some
/// elements are dead and the loop can be rewritten.
fn live_elements(module: &HloModule, comp: ComputationId, w: InstrId) -> Option<Vec<usize>> {
    let instrs = &module.computation(comp).instructions;
    let instr = &instrs[w.index()];
    let Shape::Tuple(elements) = &instr.shape else {
        return None;
    };
    let (cond, body) = match instr.called.as_slice() {
        &[cond, body] => (cond, body),
        _ => return None,
    };
    let effects = SideEffects::of(module);
    if cond == body
        || callers(module, cond) != 1
        || callers(module, body) != 1
        || effects.instruction(instr)
        || module.computation(comp).root == w
    {
        return None;
    }
    let mut live = read_indices(instrs, w)?;
    let cond_instrs = &module.computation(cond).instructions;
    live.extend(read_indices(cond_instrs, parameter(cond_instrs)?)?);
    let body_comp = module.computation(body);
    let body_instrs = &body_comp.instructions;
    let param = parameter(body_instrs)?;
    read_indices(body_instrs, param)?;
    let root = &body_instrs[body_comp.root.index()];
    if root.opcode != Opcode::Tuple || root.operands.len() != elements.len() {
        return None;
    }
    // The parameter elements each root operand depends on.
    let depends = |from: InstrId| -> HashSet<usize> {
        let mut seen = HashSet::new();
        let mut stack = vec![from];
        let mut reads = HashSet::new();
        while let Some(id) = stack.pop() {
            if !seen.insert(id) {
                continue;
            }
            let i = &body_instrs[id.index()];
            if i.opcode == Opcode::GetTupleElement && i.operands == [param] {
                if let Some(k) = i.attrs.tuple_index {
                    reads.insert(k as usize);
                }
            }
            stack.extend(i.operands.iter().copied());
        }
        reads
    };
    let mut work: Vec<usize> = live.iter().copied().collect();
    while let Some(k) = work.pop() {
        for j in depends(root.operands[k]) {
            if live.insert(j) {
                work.push(j);
            }
        }
    }
    if live.is_empty() || live.len() == elements.len() {
        return None;
    }
    let mut live: Vec<usize> = live.into_iter().collect();
    live.sort_unstable();
    Some(live)
}

/// Gives a loop computation's parameter the `shape` of the live elements
/// and its `get-tuple-element`s (which read live elements only) their new
/// indices.
fn retarget(
    instrs: &mut [HloInstruction],
    shape: &Shape,
    new_index: impl Fn(usize) -> Option<usize>,
) {
    let param = parameter(instrs).expect("checked by live_elements");
    instrs[param.index()].shape = shape.clone();
    for instr in instrs.iter_mut().filter(|i| i.operands == [param]) {
        let k = instr.attrs.tuple_index.expect("checked by live_elements") as usize;
        let new = new_index(k).expect("only live elements are read");
        instr.attrs.tuple_index = Some(new as i64);
    }
}

/// Makes loop `w` of computation `comp` carry only the `live` elements.
fn rewrite(
    module: &mut HloModule,
    comp: ComputationId,
    w: InstrId,
    live: &[usize],
    names: &mut Names,
) {
    let old = module.computation(comp).instr(w).clone();
    let Shape::Tuple(elements) = &old.shape else {
        unreachable!("checked by live_elements")
    };
    let shape = Shape::Tuple(live.iter().map(|&k| elements[k].clone()).collect());
    let new_index = |k: usize| live.iter().position(|&l| l == k);
    let (cond, body) = (old.called[0], old.called[1]);

    // The condition reads the same elements at their new indices.
    retarget(
        &mut module.computation_mut(cond).instructions,
        &shape,
        new_index,
    );

    // The body returns the live elements, and what computed only the dead
    // ones goes.
    let body_comp = module.computation_mut(body);
    let param = parameter(&body_comp.instructions).expect("checked by live_elements");
    let root = body_comp.instr(body_comp.root).clone();
    let tuple = HloInstruction::new(
        names.fresh(&root.name),
        Opcode::Tuple,
        shape.clone(),
        live.iter().map(|&k| root.operands[k]).collect(),
    );
    body_comp.instructions.push(tuple);
    body_comp.root = InstrId(body_comp.instructions.len() as u32 - 1);
    let n = body_comp.instructions.len();
    let mut keep = vec![false; n];
    keep[body_comp.root.index()] = true;
    keep[param.index()] = true;
    for i in (0..n).rev() {
        if keep[i] {
            for op in body_comp.instructions[i].operands.clone() {
                keep[op.index()] = true;
            }
        }
    }
    let _ = retain(body_comp, &keep);
    retarget(&mut body_comp.instructions, &shape, new_index);

    // The loop takes and gives the live elements.
    let effects = SideEffects::of(module);
    let mut editor = Editor::open(module, comp);
    let init = editor.operand(w, 0);
    let init_instr = editor.instr(init).clone();
    let operands: Vec<InstrId> = if init_instr.opcode == Opcode::Tuple {
        live.iter().map(|&k| init_instr.operands[k]).collect()
    } else {
        live.iter()
            .map(|&k| {
                let mut gte = HloInstruction::new(
                    names.fresh("get-tuple-element"),
                    Opcode::GetTupleElement,
                    elements[k].clone(),
                    vec![init],
                );
                gte.attrs.tuple_index = Some(k as i64);
                editor.add(w, gte)
            })
            .collect()
    };
    let tuple = HloInstruction::new(
        names.fresh(&init_instr.name),
        Opcode::Tuple,
        shape.clone(),
        operands,
    );
    let tuple = editor.add(w, tuple);
    let mut looped = old.clone();
    looped.name = names.fresh(&old.name);
    looped.shape = shape;
    looped.operands = vec![tuple];
    let looped = editor.add(w, looped);
    let users: Vec<InstrId> = (0..editor.len() as u32)
        .map(InstrId)
        .filter(|&u| !editor.is_replaced(u) && editor.instr(u).operands == [w])
        .collect();
    for user in users {
        let mut gte = editor.instr(user).clone();
        let k = gte.attrs.tuple_index.expect("checked by live_elements") as usize;
        gte.attrs.tuple_index = Some(new_index(k).expect("read elements are live") as i64);
        gte.operands = vec![looped];
        gte.name = names.fresh(&gte.name);
        let gte = editor.add(user, gte);
        editor.replace(user, gte);
    }
    let _ = editor.close(module, &effects);
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::interp::Interpreter;
    use crate::verify::verify_module;
    use crate::Literal;

    /// JAX's `fori_loop` of `x * 0.5 + 1` with its counter carried twice
    /// and an element only the body reads and writes.
    const FORI: &str = "HloModule m

body {
  p = (s32[], s32[], f32[4], f32[4]) parameter(0)
  i = s32[] get-tuple-element(p), index=0
  one = s32[] constant(1)
  i1 = s32[] add(i, one)
  j = s32[] get-tuple-element(p), index=1
  j1 = s32[] add(j, one)
  x = f32[4] get-tuple-element(p), index=2
  h = f32[4] constant({0.5, 0.5, 0.5, 0.5})
  xh = f32[4] multiply(x, h)
  ones = f32[4] constant({1, 1, 1, 1})
  x1 = f32[4] add(xh, ones)
  d = f32[4] get-tuple-element(p), index=3
  d1 = f32[4] add(d, x)
  ROOT t = (s32[], s32[], f32[4], f32[4]) tuple(i1, j1, x1, d1)
}

cond {
  p = (s32[], s32[], f32[4], f32[4]) parameter(0)
  i = s32[] get-tuple-element(p), index=0
  n = s32[] constant(10)
  ROOT lt = pred[] compare(i, n), direction=LT
}

ENTRY e {
  z = s32[] constant(0)
  x = f32[4] parameter(0)
  init = (s32[], s32[], f32[4], f32[4]) tuple(z, z, x, x)
  w = (s32[], s32[], f32[4], f32[4]) while(init), condition=cond, body=body
  ROOT r = f32[4] get-tuple-element(w), index=2
}
";

    fn run(module: &HloModule, x: &Literal) -> Literal {
        Interpreter::new().run(module, &[x]).unwrap()
    }

    #[test]
    fn dead_carries_are_removed_and_results_kept() {
        let mut module: HloModule = FORI.parse().unwrap();
        let x = Literal::from_vec(&[4], vec![1.0f32, -2.0, 3.5, 0.0]).unwrap();
        let want = run(&module, &x);
        assert!(DeadLoopCarries.run(&mut module).unwrap().is_yes());
        verify_module(&module).unwrap();
        let entry = module.entry_computation();
        let w = entry
            .instructions
            .iter()
            .find(|i| i.opcode == Opcode::While)
            .unwrap();
        assert_eq!(w.shape.to_string(), "(s32[], f32[4])");
        let body = module.computation(w.called[1]);
        let names: Vec<&str> = body.instructions.iter().map(|i| i.name.as_str()).collect();
        assert_eq!(
            names,
            ["p", "i", "one", "i1", "x", "h", "xh", "ones", "x1", "t.1"]
        );
        assert_eq!(run(&module, &x), want);
        assert!(!DeadLoopCarries.run(&mut module).unwrap().is_yes());
    }

    /// An element the result reads, or the condition, or a live element's
    /// update, stays; a loop whose result is used whole is left alone.
    #[test]
    fn read_elements_stay() {
        let keep_d = FORI.replace(
            "ROOT r = f32[4] get-tuple-element(w), index=2",
            "ROOT r = f32[4] get-tuple-element(w), index=3",
        );
        let mut module: HloModule = keep_d.parse().unwrap();
        let x = Literal::from_vec(&[4], vec![1.0f32, 2.0, 3.0, 4.0]).unwrap();
        let want = run(&module, &x);
        assert!(DeadLoopCarries.run(&mut module).unwrap().is_yes());
        verify_module(&module).unwrap();
        let w = module
            .entry_computation()
            .instructions
            .iter()
            .find(|i| i.opcode == Opcode::While)
            .unwrap();
        // d reads x, so x stays; j is dead.
        assert_eq!(w.shape.to_string(), "(s32[], f32[4], f32[4])");
        assert_eq!(run(&module, &x), want);

        let whole = FORI
            .replace("  ROOT r = f32[4] get-tuple-element(w), index=2\n", "")
            .replace(
                "  w = (s32[], s32[], f32[4], f32[4]) while",
                "  ROOT w = (s32[], s32[], f32[4], f32[4]) while",
            );
        let mut module: HloModule = whole.parse().unwrap();
        assert!(!DeadLoopCarries.run(&mut module).unwrap().is_yes());
    }
}
