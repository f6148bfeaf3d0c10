//! A small sequential executor for kernel tests: plans and compiles a
//! module's entry computation, then runs its fusions in order on literals
//! (parameters and constants are the only standalone ops it accepts). The
//! runtime helper builds the real `Executable`; this harness calls the
//! kernels directly, splitting each iteration space in two calls so the
//! `[start, end)` handling is exercised.

#![allow(dead_code)]

use std::collections::HashMap;

use xla_core::hlo::InstrId;
use xla_core::{HloModule, Literal, PrimitiveType, Shape};
use xla_jit::codegen::{CodegenOptions, Jit};
use xla_jit::emit::{self, CompiledKernel, KernelEntry};
use xla_jit::ftz::FtzGuard;
use xla_jit::fusion::{self, FusionPlan, StandaloneReason};
use xla_jit::wide::{native_width, Width};
use xla_testkit::Rule;

/// Every real element type (pred, the integers, the floats).
pub const REAL: [PrimitiveType; 13] = {
    use PrimitiveType as P;
    [
        P::Pred,
        P::S8,
        P::S16,
        P::S32,
        P::S64,
        P::U8,
        P::U16,
        P::U32,
        P::U64,
        P::F16,
        P::Bf16,
        P::F32,
        P::F64,
    ]
};

/// The benchmark suite's module `name` (`benches/hlo/<name>.hlo` at the
/// repository's root).
pub fn suite_module(name: &str) -> String {
    let path = format!(
        "{}/../../benches/hlo/{name}.hlo",
        env!("CARGO_MANIFEST_DIR")
    );
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"))
}

/// A compiled module.
pub struct Compiled {
    pub module: HloModule,
    pub plan: FusionPlan,
    pub kernels: Vec<CompiledKernel>,
    pub jit: Jit,
}

/// Parses, plans and compiles `text` (with the CLIF verifier on; the
/// fusions the native emitters take at this CPU's widest width).
pub fn compile(text: &str) -> Compiled {
    compile_with(text, native_width())
}

/// [`compile`] with every kernel compiled by Cranelift.
pub fn compile_cranelift(text: &str) -> Compiled {
    compile_with(text, None)
}

/// [`compile`] with native kernels of `native` (none: Cranelift's only);
/// machine code listings kept.
pub fn compile_with(text: &str, native: Option<Width>) -> Compiled {
    compile_chunked(text, native, emit::TARGET_ELEMENTS)
}

/// Every native width this CPU runs, widest first (a CPU with AVX-512
/// runs the 256-bit kernels too, so both are tested there).
pub fn native_widths() -> Vec<Width> {
    [Width::Zmm, Width::Ymm]
        .into_iter()
        .filter(|&w| xla_jit::wide::cpu_runs(w))
        .collect()
}

/// Cranelift's kernels (`None`), then every native width this CPU runs.
pub fn every_backend() -> Vec<Option<Width>> {
    let mut all = vec![None];
    all.extend(native_widths().into_iter().map(Some));
    all
}

/// [`compile_with`] with iterations of about `iteration_elements`
/// elements (small ones make [`run`]'s second call start mid-array).
pub fn compile_chunked(text: &str, native: Option<Width>, iteration_elements: i64) -> Compiled {
    let module: HloModule = text.parse().unwrap_or_else(|e| panic!("{e}\n{text}"));
    let plan = fusion::plan(&module, module.entry, &emit::Kernels);
    let mut jit = Jit::new(CodegenOptions {
        verify: true,
        keep_clif: true,
        native,
    })
    .unwrap();
    jit.keep_disasm(true);
    let kernels = emit::compile(&mut jit, &module, module.entry, &plan, iteration_elements)
        .unwrap_or_else(|e| panic!("{e}\nplan:\n{}", plan.display(module.entry_computation())));
    Compiled {
        module,
        plan,
        kernels,
        jit,
    }
}

/// The plan as text.
pub fn plan_text(c: &Compiled) -> String {
    c.plan.display(c.module.entry_computation()).to_string()
}

/// Runs the compiled entry computation on `args` (any layouts).
pub fn run(c: &Compiled, args: &[&Literal]) -> Literal {
    let comp = c.module.entry_computation();
    let mut values: HashMap<InstrId, Literal> = HashMap::new();
    for s in &c.plan.standalone {
        let instr = comp.instr(s.instr);
        let layout = instr.shape.as_array().map(|a| a.layout_or_default());
        let lit = match &s.reason {
            StandaloneReason::Parameter => {
                (*args[instr.attrs.parameter_number.unwrap() as usize]).clone()
            }
            StandaloneReason::Constant => instr.attrs.literal.clone().unwrap(),
            StandaloneReason::Unused => continue,
            other => panic!("the harness cannot run {other:?}"),
        };
        let lit = match layout {
            Some(l) => lit.relayout(&l).unwrap(),
            None => lit,
        };
        values.insert(s.instr, lit);
    }
    let _ftz = FtzGuard::new();
    for (f, fusion) in c.plan.fusions.iter().enumerate() {
        let mut outputs: Vec<Literal> = fusion
            .outputs
            .iter()
            .map(|&o| Literal::zeros(&with_layouts(&comp.instr(o).shape)).unwrap())
            .collect();
        if let Some(ip) = fusion.in_place {
            outputs[ip.output] = values[&fusion.inputs[ip.input]].clone();
        }
        let kernels: Vec<&CompiledKernel> = c.kernels.iter().filter(|k| k.fusion == f).collect();
        let scratch_bytes = kernels.iter().map(|k| k.scratch_bytes).max().unwrap_or(0);
        let mut scratch = vec![0u64; scratch_bytes.div_ceil(8)];
        let mut ptrs: Vec<*mut u8> = fusion
            .inputs
            .iter()
            .flat_map(|i| leaves(&values[i]))
            .map(|p| p as *mut u8)
            .collect();
        for out in outputs.iter_mut() {
            ptrs.extend(leaves_mut(out));
        }
        if scratch_bytes > 0 {
            ptrs.push(scratch.as_mut_ptr() as *mut u8);
        }
        for k in kernels {
            match k.entry {
                KernelEntry::Range(func) => {
                    let n = k.iterations;
                    let mid = n / 2;
                    // SAFETY: the buffers match the fusion's inputs and
                    // outputs in order, shapes and layouts.
                    unsafe {
                        func(ptrs.as_ptr(), 0, mid);
                        func(ptrs.as_ptr(), mid, n);
                    }
                }
                KernelEntry::Epilogue(_) => panic!("dot epilogues run through the dot engine"),
            }
        }
        for (&o, lit) in fusion.outputs.iter().zip(outputs) {
            values.insert(o, lit);
        }
    }
    values.remove(&comp.root).expect("the root was computed")
}

fn with_layouts(shape: &Shape) -> Shape {
    match shape {
        Shape::Array(a) => Shape::Array(a.clone().with_layout(a.layout_or_default())),
        Shape::Tuple(t) => Shape::Tuple(t.iter().map(with_layouts).collect()),
        other => other.clone(),
    }
}

fn leaves(l: &Literal) -> Vec<*const u8> {
    match l.tuple_elements() {
        Some(elements) => elements.iter().flat_map(leaves).collect(),
        None => vec![l.bytes().unwrap().as_ptr()],
    }
}

fn leaves_mut(l: &mut Literal) -> Vec<*mut u8> {
    if l.tuple_elements().is_some() {
        let elements = std::mem::replace(l, Literal::token())
            .into_tuple_elements()
            .unwrap();
        let mut elements = elements;
        let ptrs = elements.iter_mut().flat_map(leaves_mut).collect();
        *l = Literal::tuple(elements);
        return ptrs;
    }
    vec![l.bytes_mut().unwrap().as_mut_ptr()]
}

/// `true` if `a` and `b` are the same float (bitwise), or both NaN.
pub fn same_f32(a: f32, b: f32) -> bool {
    a.to_bits() == b.to_bits() || (a.is_nan() && b.is_nan())
}

/// `true` if `a` and `b` are the same float (bitwise), or both NaN.
pub fn same_f64(a: f64, b: f64) -> bool {
    a.to_bits() == b.to_bits() || (a.is_nan() && b.is_nan())
}

/// Edge values of f32: zeros, infinities, NaN, extremes, subnormals, ties.
pub fn f32_edges() -> Vec<f32> {
    vec![
        0.0,
        -0.0,
        1.0,
        -1.0,
        0.5,
        -0.5,
        1.5,
        2.5,
        -2.5,
        0.3,
        -0.3,
        f32::INFINITY,
        f32::NEG_INFINITY,
        f32::NAN,
        -f32::NAN,
        f32::MAX,
        f32::MIN,
        f32::MIN_POSITIVE,
        -f32::MIN_POSITIVE,
        1e-40,
        -1e-40,
        3.0e9,
        -3.0e9,
        123.456,
        -7.5,
        65504.0,
        65520.0,
        1e-5,
        16777217.0,
        0.1,
        -1e10,
    ]
}

/// The reference interpreter's result for the compiled module, or `None`
/// if the interpreter rejects the module (an op not defined on the type).
pub fn interpret(c: &Compiled, args: &[&Literal]) -> Option<Literal> {
    xla_core::interp::Interpreter::new()
        .run(&c.module, args)
        .ok()
}

/// Asserts `got` equals `want` element by element, bit for bit (any NaN
/// equals any NaN), whatever their layouts.
pub fn assert_same(got: &Literal, want: &Literal, what: &str) {
    if let Err(e) = Rule::EXACT.compare_values(got, want) {
        panic!("{what}: {e} (expected: the interpreter's)");
    }
}

/// Asserts `got` equals `want` bit for bit, NaN payloads and signalling
/// bits included, whatever their layouts: for ops that move bits and never
/// compute (`bitcast-convert`, `copy`, `select`).
pub fn assert_same_bits(got: &Literal, want: &Literal, what: &str) {
    if let Err(e) = Rule::BITS.compare_values(got, want) {
        panic!("{what}: {e} (expected: the interpreter's, NaN bits included)");
    }
}

/// Asserts that `got` and `want` (float arrays of the same shape) differ
/// by at most `ulps` units in the last place element by element; NaN
/// matches only NaN, infinities only themselves.
pub fn assert_within_ulps(got: &Literal, want: &Literal, ulps: u64, what: &str) {
    if let Err(e) = Rule::ulps(ulps as f64).compare_values(got, want) {
        panic!("{what}: {e} (expected: the interpreter's, at most {ulps} ulp apart)");
    }
}

/// Like [`check`], for approximated functions: the kernel's results may
/// differ from the interpreter's by `ulps` units in the last place.
pub fn check_within_ulps(text: &str, args: &[&Literal], ulps: u64) -> Checked {
    check_with(text, args, |got, want| {
        assert_within_ulps(got, want, ulps, text)
    })
}

/// What [`check`] did.
#[derive(Copy, Clone, PartialEq, Eq, Debug)]
pub enum Checked {
    /// Kernels and interpreter agree.
    Same,
    /// The interpreter rejects the module (an op not defined on a type).
    Rejected,
    /// The plan leaves some instruction to the interpreter.
    Interpreted,
}

/// Compiles `text`, runs it on `args` with the kernels and the
/// interpreter, and asserts the results are the same.
pub fn check(text: &str, args: &[&Literal]) -> Checked {
    check_with(text, args, |got, want| assert_same(got, want, text))
}

/// Like [`check`], comparing NaNs by their bits too ([`assert_same_bits`]).
pub fn check_bits(text: &str, args: &[&Literal]) -> Checked {
    check_with(text, args, |got, want| assert_same_bits(got, want, text))
}

/// Compiles `text` (all Cranelift, then with AVX-512 kernels where the CPU
/// has them), runs it on `args` with the kernels and the interpreter, and
/// compares the results with `compare(got, want)`.
fn check_with(text: &str, args: &[&Literal], compare: impl Fn(&Literal, &Literal)) -> Checked {
    let module: HloModule = text.parse().unwrap_or_else(|e| panic!("{e}\n{text}"));
    let Ok(want) = xla_core::interp::Interpreter::new().run(&module, args) else {
        return Checked::Rejected;
    };
    let plan = fusion::plan(&module, module.entry, &emit::Kernels);
    if plan.fallback_ops().next().is_some() {
        return Checked::Interpreted;
    }
    for native in every_backend() {
        let c = compile_with(text, native);
        let got = run(&c, args);
        compare(&got, &want);
    }
    Checked::Same
}
