//! Real computations built with `XlaBuilder`: softmax, an MLP, a while loop,
//! a variadic reduce, conditionals. Each module verifies, and its
//! instructions are the ones XLA's builder emits.

use xla_core::builder::{create_scalar_computation, XlaBuilder, XlaComputation, XlaOp};
use xla_core::hlo::{HloComputation, Opcode};
use xla_core::verify::verify_module;
use xla_core::{ArrayShape, PrimitiveType::*, Result, Shape};

fn sh(text: &str) -> Shape {
    text.parse().unwrap()
}

/// `name = shape opcode(operands)` per instruction of the entry.
fn listing(c: &HloComputation) -> Vec<String> {
    c.instructions
        .iter()
        .map(|i| {
            let operands: Vec<&str> = i
                .operands
                .iter()
                .map(|&o| c.instr(o).name.as_str())
                .collect();
            format!(
                "{} = {} {}({})",
                i.name,
                i.shape,
                i.opcode,
                operands.join(", ")
            )
        })
        .collect()
}

fn entry(c: &XlaComputation) -> &HloComputation {
    c.module().entry_computation()
}

#[test]
fn softmax() -> Result<()> {
    let max = create_scalar_computation("max", F32, |b, x, y| b.max(x, y, &[]))?;
    let add = create_scalar_computation("add", F32, |b, x, y| b.add(x, y, &[]))?;
    let b = XlaBuilder::new("softmax");
    let x = b.parameter(0, &sh("f32[4,8]"), "x")?;
    let ninf = b.constant_r0(f32::NEG_INFINITY)?;
    let m = b.reduce(&[x], &[ninf], &max, &[1])?;
    let e = b.exp(b.sub(x, m, &[0])?)?;
    let zero = b.constant_r0(0f32)?;
    let s = b.reduce(&[e], &[zero], &add, &[1])?;
    let y = b.div(e, s, &[0])?;
    let softmax = b.build(y)?;

    verify_module(softmax.module())?;
    assert_eq!(
        softmax.program_shape().to_string(),
        "(f32[4,8]{1,0}) -> f32[4,8]{1,0}"
    );
    let names: Vec<&str> = softmax
        .module()
        .computations
        .iter()
        .map(|c| c.name.as_str())
        .collect();
    assert_eq!(names, ["max", "add", "softmax"]);
    assert_eq!(
        listing(entry(&softmax)),
        [
            "x.1 = f32[4,8]{1,0} parameter()",
            "constant.2 = f32[] constant()",
            "reduce.6 = f32[4]{0} reduce(x.1, constant.2)",
            "broadcast.7 = f32[4,8]{1,0} broadcast(reduce.6)",
            "subtract.8 = f32[4,8]{1,0} subtract(x.1, broadcast.7)",
            "exponential.9 = f32[4,8]{1,0} exponential(subtract.8)",
            "constant.10 = f32[] constant()",
            "reduce.14 = f32[4]{0} reduce(exponential.9, constant.10)",
            "broadcast.15 = f32[4,8]{1,0} broadcast(reduce.14)",
            "divide.16 = f32[4,8]{1,0} divide(exponential.9, broadcast.15)",
        ]
    );
    let bcast = entry(&softmax).instr(xla_core::hlo::InstrId(3));
    assert_eq!(bcast.attrs.dimensions.as_deref(), Some(&[0][..]));
    Ok(())
}

#[test]
fn mlp() -> Result<()> {
    let b = XlaBuilder::new("mlp");
    let x = b.parameter(0, &sh("f32[2,784]"), "x")?;
    let w1 = b.parameter(1, &sh("f32[784,128]"), "w1")?;
    let b1 = b.parameter(2, &sh("f32[128]"), "b1")?;
    let w2 = b.parameter(3, &sh("f32[128,10]"), "w2")?;
    let b2 = b.parameter(4, &sh("f32[10]"), "b2")?;
    let h = b.add(b.dot(x, w1)?, b1, &[1])?;
    let relu = b.max(h, b.constant_r0(0f32)?, &[])?;
    let logits = b.add(b.dot(relu, w2)?, b2, &[1])?;
    let mlp = b.build(logits)?;
    assert_eq!(
        mlp.program_shape().to_string(),
        "(f32[2,784]{1,0}, f32[784,128]{1,0}, f32[128]{0}, f32[128,10]{1,0}, f32[10]{0}) -> f32[2,10]{1,0}"
    );
    let ops: Vec<Opcode> = entry(&mlp).instructions.iter().map(|i| i.opcode).collect();
    use Opcode::*;
    assert_eq!(
        ops,
        [
            Parameter, Parameter, Parameter, Parameter, Parameter, Dot, Broadcast, Add, Constant,
            Broadcast, Maximum, Dot, Broadcast, Add
        ]
    );
    let dot = &entry(&mlp).instructions[5];
    let dims = dot.attrs.dot_dims.as_ref().unwrap();
    assert_eq!(
        (
            dims.lhs_contracting.as_slice(),
            dims.rhs_contracting.as_slice()
        ),
        (&[1][..], &[0][..])
    );
    Ok(())
}

/// `cond(state) = state.0 < limit`.
fn counter_below(limit: i32) -> Result<XlaComputation> {
    let b = XlaBuilder::new("cond");
    let state = b.parameter(0, &sh("(s32[], f32[10])"), "state")?;
    let i = b.get_tuple_element(state, 0)?;
    let below = b.lt(i, b.constant_r0(limit)?, &[])?;
    b.build(below)
}

#[test]
fn while_loop() -> Result<()> {
    // `docs/semantics.md`, *While*: (i, v) → (i + 1, v + c) while i < 1000.
    let cond = counter_below(1000)?;
    let body = {
        let b = XlaBuilder::new("body");
        let state = b.parameter(0, &sh("(s32[], f32[10])"), "state")?;
        let i = b.get_tuple_element(state, 0)?;
        let v = b.get_tuple_element(state, 1)?;
        let c = b.constant_r1(&[1f32; 10])?;
        let next = b.tuple(&[b.add(i, b.constant_r0(1i32)?, &[])?, b.add(v, c, &[])?])?;
        b.build(next)?
    };
    let b = XlaBuilder::new("main");
    let zeros = b.broadcast(b.constant_r0(0f32)?, &[10])?;
    let init = b.tuple(&[b.constant_r0(0i32)?, zeros])?;
    let result = b.while_loop(&cond, &body, init)?;
    let v = b.get_tuple_element(result, 1)?;
    let main = b.build(v)?;
    assert_eq!(main.program_shape().to_string(), "() -> f32[10]{0}");
    let names: Vec<&str> = main
        .module()
        .computations
        .iter()
        .map(|c| c.name.as_str())
        .collect();
    assert_eq!(names, ["cond", "body", "main"]);
    let w = entry(&main)
        .instructions
        .iter()
        .find(|i| i.opcode == Opcode::While)
        .unwrap();
    assert_eq!(w.shape.to_string(), "(s32[], f32[10]{0})");
    assert_eq!(w.called.len(), 2);
    Ok(())
}

#[test]
fn variadic_reduce_argmax() -> Result<()> {
    // `docs/semantics.md`, *Reduce*: (max, argmax) over dimension 1.
    let argmax = {
        let b = XlaBuilder::new("argmax");
        let (m, k) = (
            b.parameter(0, &sh("f32[]"), "m")?,
            b.parameter(1, &sh("s32[]"), "k")?,
        );
        let (v, i) = (
            b.parameter(2, &sh("f32[]"), "v")?,
            b.parameter(3, &sh("s32[]"), "i")?,
        );
        let take = b.ge(v, m, &[])?;
        let result = b.tuple(&[b.select(take, v, m)?, b.select(take, i, k)?])?;
        b.build(result)?
    };
    let b = XlaBuilder::new("main");
    let values = b.parameter(0, &sh("f32[2,3]"), "values")?;
    let iota = b.iota(&"s32[2,3]".parse::<ArrayShape>()?, 1)?;
    let inits = [b.constant_r0(f32::NEG_INFINITY)?, b.constant_r0(-1i32)?];
    let r = b.reduce(&[values, iota], &inits, &argmax, &[1])?;
    let main = b.build(r)?;
    assert_eq!(
        main.program_shape().to_string(),
        "(f32[2,3]{1,0}) -> (f32[2]{0}, s32[2]{0})"
    );
    Ok(())
}

fn branch(
    name: &str,
    param: &str,
    f: impl FnOnce(&XlaBuilder, XlaOp) -> Result<XlaOp>,
) -> Result<XlaComputation> {
    let b = XlaBuilder::new(name);
    let x = b.parameter(0, &sh(param), "x")?;
    let root = f(&b, x)?;
    b.build(root)
}

#[test]
fn conditionals() -> Result<()> {
    let double = branch("double", "f32[3]", |b, x| {
        b.mul(x, b.constant_r0(2f32)?, &[])
    })?;
    let from_int = branch("from_int", "s32[3]", |b, x| b.convert_element_type(x, F32))?;
    let b = XlaBuilder::new("main");
    let p = b.parameter(0, &sh("pred[]"), "p")?;
    let x = b.parameter(1, &sh("f32[3]"), "x")?;
    let n = b.parameter(2, &sh("s32[3]"), "n")?;
    let picked = b.conditional(p, x, &double, n, &from_int)?;
    let index = b.parameter(3, &sh("s32[]"), "index")?;
    let negate = branch("negate", "f32[3]", |b, x| b.neg(x))?;
    let three = b.conditional_indexed(index, &[&double, &negate, &double], &[x, picked, x])?;
    let main = b.build(three)?;
    assert_eq!(
        main.program_shape().to_string(),
        "(pred[], f32[3]{0}, s32[3]{0}, s32[]) -> f32[3]{0}"
    );
    // `double` is embedded once although it is used three times.
    let names: Vec<&str> = main
        .module()
        .computations
        .iter()
        .map(|c| c.name.as_str())
        .collect();
    assert_eq!(names, ["double", "from_int", "negate", "main"]);
    Ok(())
}

#[test]
fn nested_computations_get_unique_names() -> Result<()> {
    // Two different computations both named `add`, one calling the other.
    let add = create_scalar_computation("add", F32, |b, x, y| b.add(x, y, &[]))?;
    let total = {
        let b = XlaBuilder::new("add");
        let v = b.parameter(0, &sh("f32[4]"), "v")?;
        let s = b.reduce(&[v], &[b.constant_r0(0f32)?], &add, &[0])?;
        b.build(s)?
    };
    let b = XlaBuilder::new("main");
    let v = b.parameter(0, &sh("f32[4]"), "v")?;
    let once = b.call(&total, &[v])?;
    let twice = b.reduce(&[v], &[once], &add, &[0])?;
    let main = b.build(twice)?;
    verify_module(main.module())?;
    let names: Vec<&str> = main
        .module()
        .computations
        .iter()
        .map(|c| c.name.as_str())
        .collect();
    // `total` (named `add`) renamed its copy of the scalar `add` to `add.6`;
    // main's own copy of the scalar `add` becomes `add.12`.
    assert_eq!(names, ["add.6", "add", "add.12", "main"]);
    Ok(())
}
