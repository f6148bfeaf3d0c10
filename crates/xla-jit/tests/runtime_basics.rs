//! The runtime without kernels: parameters read in place, constants,
//! tuples, results in their layouts, dots on the engine, argument and
//! output errors, execute_into, the compile cache and forced task splits.

use xla_core::literal::{AlignedBytes, Storage, Tolerance};
use xla_core::{HloModule, Layout, Literal, Shape};
use xla_jit::{Client, CompileOptions, JitError};

fn module(text: &str) -> HloModule {
    text.parse().unwrap_or_else(|e| panic!("{e}\n{text}"))
}

fn compile(text: &str) -> xla_jit::Executable {
    Client::cpu().unwrap().compile(&module(text)).unwrap()
}

#[test]
fn tuples_of_parameters_and_constants() {
    let exe = compile(
        "HloModule m
ENTRY e {
  x = f32[4]{0} parameter(0)
  c = s32[2]{0} constant({7, -3})
  i = (s32[2]{0}, f32[4]{0}) tuple(c, x)
  ROOT t = (f32[4]{0}, (s32[2]{0}, f32[4]{0})) tuple(x, i)
}",
    );
    let x = Literal::vector(&[1.0f32, -2.0, 3.5, 0.0]);
    let out = exe.execute(&[&x]).unwrap();
    let elements = out.tuple_elements().unwrap();
    assert_eq!(elements[0].to_vec::<f32>().unwrap(), [1.0, -2.0, 3.5, 0.0]);
    let inner = elements[1].tuple_elements().unwrap();
    assert_eq!(inner[0].to_vec::<i32>().unwrap(), [7, -3]);
    assert_eq!(inner[1].to_vec::<f32>().unwrap(), [1.0, -2.0, 3.5, 0.0]);
    assert!(exe.fallback_ops().is_empty());
}

#[test]
fn arguments_are_checked_and_name_the_parameter() {
    let exe = compile(
        "HloModule m
ENTRY e {
  x = f32[2,3]{1,0} parameter(0)
  ROOT y = f32[2,3]{1,0} copy(x)
}",
    );
    let err = exe.execute(&[]).unwrap_err();
    assert_eq!(
        err.to_string(),
        "the entry computation takes 1 arguments, but 0 were given"
    );
    let wrong = Literal::vector(&[1.0f32, 2.0]);
    let err = exe.execute(&[&wrong]).unwrap_err();
    assert_eq!(
        err.to_string(),
        "argument 0 has shape f32[2]{0}, but parameter 0 (x) is f32[2,3]{1,0}"
    );
    assert!(matches!(err, JitError::ArgumentShape { index: 0, .. }));
}

#[test]
fn arguments_in_other_layouts_are_relaid_and_results_keep_theirs() {
    // The entry takes {0,1} and returns {0,1}: a row-major argument is
    // relaid, and the result's bytes are column-major.
    let exe = compile(
        "HloModule m, entry_computation_layout={(f32[2,3]{0,1})->f32[2,3]{0,1}}
ENTRY e {
  x = f32[2,3]{0,1} parameter(0)
  ROOT y = f32[2,3]{0,1} copy(x)
}",
    );
    let x = Literal::matrix(&[[1.0f32, 2.0, 3.0], [4.0, 5.0, 6.0]]);
    let y = exe.execute(&[&x]).unwrap();
    assert_eq!(y.shape().to_string(), "f32[2,3]{0,1}");
    assert_eq!(y.data::<f32>().unwrap(), [1.0, 4.0, 2.0, 5.0, 3.0, 6.0]);
    assert_eq!(y.to_vec::<f32>().unwrap(), [1.0, 2.0, 3.0, 4.0, 5.0, 6.0]);
}

#[test]
fn a_result_in_another_layout_than_its_root_is_relaid() {
    let exe = compile(
        "HloModule m, entry_computation_layout={(f32[2,3]{1,0})->f32[2,3]{0,1}}
ENTRY e {
  x = f32[2,3]{1,0} parameter(0)
  ROOT y = f32[2,3]{1,0} copy(x)
}",
    );
    let x = Literal::matrix(&[[1.0f32, 2.0, 3.0], [4.0, 5.0, 6.0]]);
    let y = exe.execute(&[&x]).unwrap();
    assert_eq!(y.shape().to_string(), "f32[2,3]{0,1}");
    assert_eq!(y.to_vec::<f32>().unwrap(), [1.0, 2.0, 3.0, 4.0, 5.0, 6.0]);
}

/// `a · b` of row-major `m×k` and `k×n` matrices.
fn matmul(a: &[f64], b: &[f64], m: usize, k: usize, n: usize) -> Vec<f64> {
    let mut c = vec![0.0; m * n];
    for i in 0..m {
        for j in 0..n {
            c[i * n + j] = (0..k).map(|p| a[i * k + p] * b[p * n + j]).sum();
        }
    }
    c
}

fn values(n: usize, seed: u64) -> Vec<f32> {
    (0..n)
        .map(|i| (((i as u64 * 2654435761 + seed) % 17) as f32 - 8.0) / 4.0)
        .collect()
}

#[test]
fn dots_run_on_the_engine_in_any_layout() {
    let (m, k, n) = (19, 23, 17);
    let a = values(m * k, 1);
    let b = values(k * n, 2);
    let want = matmul(
        &a.iter().map(|&x| x as f64).collect::<Vec<_>>(),
        &b.iter().map(|&x| x as f64).collect::<Vec<_>>(),
        m,
        k,
        n,
    );
    let la = Literal::from_slice(&[m as i64, k as i64], &a).unwrap();
    let lb = Literal::from_slice(&[k as i64, n as i64], &b).unwrap();
    // Row-major everything, then column-major operands and result.
    for layouts in ["{1,0}", "{0,1}"] {
        let text = format!(
            "HloModule m, entry_computation_layout={{(f32[19,23]{layouts}, f32[23,17]{layouts})->f32[19,17]{layouts}}}
ENTRY e {{
  a = f32[19,23]{layouts} parameter(0)
  b = f32[23,17]{layouts} parameter(1)
  ROOT c = f32[19,17]{layouts} dot(a, b), lhs_contracting_dims={{1}}, rhs_contracting_dims={{0}}
}}"
        );
        let exe = compile(&text);
        assert!(exe.fallback_ops().is_empty(), "{layouts}");
        let c = exe.execute(&[&la, &lb]).unwrap();
        let got = c.to_vec::<f32>().unwrap();
        // Inputs are multiples of 1/4 and sums stay small: exact in f32.
        assert_eq!(
            got,
            want.iter().map(|&x| x as f32).collect::<Vec<_>>(),
            "{layouts}"
        );
    }
}

#[test]
fn batched_dots_and_matrix_vector_products() {
    let exe = compile(
        "HloModule m
ENTRY e {
  a = s32[2,3,4]{2,1,0} parameter(0)
  b = s32[2,4,5]{2,1,0} parameter(1)
  ROOT c = s32[2,3,5]{2,1,0} dot(a, b), lhs_batch_dims={0}, lhs_contracting_dims={2}, rhs_batch_dims={0}, rhs_contracting_dims={1}
}",
    );
    let a: Vec<i32> = (0..24).map(|x| x - 7).collect();
    let b: Vec<i32> = (0..40).map(|x| 3 - x % 7).collect();
    let la = Literal::from_slice(&[2, 3, 4], &a).unwrap();
    let lb = Literal::from_slice(&[2, 4, 5], &b).unwrap();
    let got = exe.execute(&[&la, &lb]).unwrap().to_vec::<i32>().unwrap();
    let mut want = Vec::new();
    for batch in 0..2 {
        for i in 0..3 {
            for j in 0..5 {
                want.push(
                    (0..4)
                        .map(|p| a[batch * 12 + i * 4 + p] * b[batch * 20 + p * 5 + j])
                        .sum::<i32>(),
                );
            }
        }
    }
    assert_eq!(got, want);

    let exe = compile(
        "HloModule m
ENTRY e {
  a = f64[3,4]{1,0} parameter(0)
  v = f64[4]{0} parameter(1)
  ROOT c = f64[3]{0} dot(a, v), lhs_contracting_dims={1}, rhs_contracting_dims={0}
}",
    );
    let la = Literal::matrix(&[[1.0f64, 2.0, 3.0, 4.0], [0.5, 0.0, -1.0, 2.0], [0.0; 4]]);
    let lv = Literal::vector(&[1.0f64, -1.0, 2.0, 0.25]);
    let got = exe.execute(&[&la, &lv]).unwrap().to_vec::<f64>().unwrap();
    assert_eq!(got, [6.0, -1.0, 0.0]);
}

#[test]
fn execute_into_writes_the_callers_buffers() {
    let exe = compile(
        "HloModule m
ENTRY e {
  a = f32[2,2]{1,0} parameter(0)
  b = f32[2,2]{1,0} parameter(1)
  c = f32[2,2]{1,0} dot(a, b), lhs_contracting_dims={1}, rhs_contracting_dims={0}
  ROOT t = (f32[2,2]{1,0}, f32[2,2]{1,0}) tuple(c, a)
}",
    );
    let a = Literal::matrix(&[[1.0f32, 2.0], [3.0, 4.0]]);
    let b = Literal::matrix(&[[5.0f32, 6.0], [7.0, 8.0]]);
    let shape: Shape = "f32[2,2]{1,0}".parse().unwrap();
    let mut outputs = vec![
        Literal::zeros(&shape).unwrap(),
        Literal::zeros(&shape).unwrap(),
    ];
    let before = outputs[0].bytes().unwrap().as_ptr();
    exe.execute_into(&[&a, &b], &mut outputs).unwrap();
    assert_eq!(outputs[0].bytes().unwrap().as_ptr(), before);
    assert_eq!(
        outputs[0].to_vec::<f32>().unwrap(),
        [19.0, 22.0, 43.0, 50.0]
    );
    assert_eq!(outputs[1].to_vec::<f32>().unwrap(), [1.0, 2.0, 3.0, 4.0]);

    let err = exe.execute_into(&[&a, &b], &mut outputs[..1]).unwrap_err();
    assert_eq!(
        err.to_string(),
        "the result has 2 leaves (one output literal each), but 1 outputs were given"
    );
    let column_major = Shape::from(
        shape
            .as_array()
            .unwrap()
            .clone()
            .with_layout(Layout::new(vec![0, 1])),
    );
    let mut wrong = vec![
        Literal::zeros(&column_major).unwrap(),
        Literal::zeros(&shape).unwrap(),
    ];
    let err = exe.execute_into(&[&a, &b], &mut wrong).unwrap_err();
    assert_eq!(
        err.to_string(),
        "output 0 has shape f32[2,2]{0,1}, but result leaf 0 is f32[2,2]{1,0}"
    );
}

#[test]
fn parameters_are_read_in_place() {
    // A mapped-looking argument: storage we own, read without a copy; the
    // result of a dot never aliases it.
    let exe = compile(
        "HloModule m
ENTRY e {
  a = f32[1,1]{1,0} parameter(0)
  ROOT c = f32[1,1]{1,0} dot(a, a), lhs_contracting_dims={1}, rhs_contracting_dims={0}
}",
    );
    let shape = "f32[1,1]{1,0}"
        .parse::<Shape>()
        .unwrap()
        .as_array()
        .unwrap()
        .clone();
    let storage = Storage::Owned(AlignedBytes::copy_from(&3.0f32.to_le_bytes()));
    let a = Literal::from_storage(shape, storage).unwrap();
    let c = exe.execute(&[&a]).unwrap();
    assert_eq!(c.to_vec::<f32>().unwrap(), [9.0]);
    assert_eq!(a.to_vec::<f32>().unwrap(), [3.0]);
}

#[test]
fn the_compile_cache_returns_the_same_executable_unless_bypassed() {
    let client = Client::cpu().unwrap();
    let text = "HloModule m
ENTRY e {
  x = f32[2]{0} parameter(0)
  ROOT t = (f32[2]{0}) tuple(x)
}";
    let first = client.compile(&module(text)).unwrap();
    let second = client.compile(&module(text)).unwrap();
    assert_eq!(client.cached_executables(), 1);
    // The same compilation (its timings are those of one run).
    assert_eq!(first.compile_stats().total, second.compile_stats().total);
    let bypass = CompileOptions {
        bypass_cache: true,
        ..CompileOptions::default()
    };
    client.compile_with(&module(text), &bypass).unwrap();
    assert_eq!(client.cached_executables(), 1);
    let other = text.replace("f32[2]", "f32[3]");
    client.compile(&module(&other)).unwrap();
    assert_eq!(client.cached_executables(), 2);
}

/// The task counts of the dump's kernel lines (`kernel … tasks N`).
fn kernel_tasks(exe: &xla_jit::Executable) -> Vec<usize> {
    exe.dump()
        .lines()
        .filter(|line| line.trim_start().starts_with("kernel ") && line.contains(" tasks "))
        .map(|line| line.rsplit(' ').next().unwrap().parse().unwrap())
        .collect()
}

#[test]
fn split_kernels_runs_small_kernels_as_several_tasks_with_the_same_result() {
    let text = "HloModule m
ENTRY e {
  x = f32[300,33]{1,0} parameter(0)
  e = f32[300,33]{1,0} exponential(x)
  z = f32[] constant(0)
  s = f32[300]{0} reduce(e, z), dimensions={1}, to_apply=add
  b = f32[300,33]{1,0} broadcast(s), dimensions={0}
  ROOT d = f32[300,33]{1,0} divide(e, b)
}
add {
  p = f32[] parameter(0)
  q = f32[] parameter(1)
  ROOT r = f32[] add(p, q)
}";
    let client = Client::cpu().unwrap();
    let values: Vec<f32> = (0..300 * 33)
        .map(|i| (i % 17) as f32 * 0.25 - 2.0)
        .collect();
    let x = Literal::from_vec(&[300, 33], values).unwrap();
    // Split, both the Cranelift and the native (AVX-512 or AVX2) row
    // kernel walk single rows (300 iterations, 4 tasks per pool thread):
    // a row's work puts the target below 64 rows an iteration.
    for cranelift_only in [true, false] {
        let options = |split_kernels| CompileOptions {
            split_kernels,
            cranelift_only,
            ..CompileOptions::default()
        };
        let whole = client.compile_with(&module(text), &options(false)).unwrap();
        let split = client.compile_with(&module(text), &options(true)).unwrap();
        assert_eq!(kernel_tasks(&whole), [1]);
        let tasks = kernel_tasks(&split);
        let dump = split.dump();
        let native = dump.contains("_avx512_rows_") || dump.contains("_avx2_rows_");
        assert_eq!(
            native,
            !cranelift_only && xla_jit::wide::native_width().is_some()
        );
        assert!(tasks.len() == 1 && tasks[0] > 1, "{}", split.dump());
        assert!(split.dump().contains("iterations 300"), "{}", split.dump());
        let want = whole.execute(&[&x]).unwrap().to_vec::<f32>().unwrap();
        let got = split.execute(&[&x]).unwrap().to_vec::<f32>().unwrap();
        assert_eq!(got, want);
        // Each row of a softmax sums to one.
        for row in want.chunks(33) {
            assert!((row.iter().sum::<f32>() - 1.0).abs() < 1e-5);
        }
    }
}

#[test]
fn ops_without_kernels_fall_back_to_the_interpreter_visibly() {
    let exe = compile(
        "HloModule m
ENTRY e {
  x = f32[5]{0} parameter(0)
  h = f32[1]{0} slice(x), slice={[0:1]}
  c = f32[1,1]{1,0} reshape(h)
  c16 = f16[1,1]{1,0} convert(c)
  s = f16[1,1]{1,0} cholesky(c16), lower=true
  s32 = f32[1,1]{1,0} convert(s)
  n = f32[1,1]{1,0} negate(s32)
  m = f32[5,5]{1,0} broadcast(x), dimensions={1}
  d = f64[5,5]{1,0} dot(m, m), lhs_contracting_dims={1}, rhs_contracting_dims={0}
  ROOT t = (f32[1,1]{1,0}, f64[5,5]{1,0}) tuple(n, d)
}",
    );
    let fallbacks: Vec<(String, &str)> = exe
        .fallback_ops()
        .iter()
        .map(|op| (op.instruction.clone(), op.opcode.name()))
        .collect();
    // The dot's f32 operands are converted to its f64 result type by a
    // kernel first: only the cholesky falls back (in f16, which no library
    // routine takes).
    assert_eq!(fallbacks, [("s".to_string(), "cholesky")]);
    let x = Literal::vector(&[4.0f32, -1.0, 2.0, 0.5, -4.0]);
    let y = exe.execute(&[&x]).unwrap();
    let y = y.tuple_elements().unwrap();
    assert_eq!(y[0].to_vec::<f32>().unwrap(), [-2.0]);
    // Every row of m·m is x · Σ x = x · 1.5.
    let d = y[1].to_vec::<f64>().unwrap();
    assert_eq!(&d[..5], [6.0, -1.5, 3.0, 0.75, -6.0]);
    assert!(exe.dump().contains("s (cholesky) in e"));
}

#[test]
fn executables_run_from_many_threads_at_once() {
    fn shared<T: Send + Sync>(_: &T) {}
    let exe = compile(
        "HloModule m
ENTRY e {
  a = f32[3,3]{1,0} parameter(0)
  ROOT c = f32[3,3]{1,0} dot(a, a), lhs_contracting_dims={1}, rhs_contracting_dims={0}
}",
    );
    shared(&exe);
    shared(&Client::cpu().unwrap());
    let a = Literal::matrix(&[[1.0f32, 0.0, 0.0], [0.0, 2.0, 0.0], [0.0, 0.0, 3.0]]);
    std::thread::scope(|s| {
        for _ in 0..4 {
            s.spawn(|| {
                for _ in 0..50 {
                    let c = exe.execute(&[&a]).unwrap();
                    assert_eq!(
                        c.to_vec::<f32>().unwrap(),
                        [1.0, 0.0, 0.0, 0.0, 4.0, 0.0, 0.0, 0.0, 9.0]
                    );
                }
            });
        }
    });
}

/// A result the system cannot allocate is an error of `execute`, not an
/// abort.
#[cfg(target_os = "linux")]
#[test]
fn a_result_beyond_memory_is_an_error() {
    let exe = compile(
        "HloModule m
ENTRY e {
  c = f32[] constant(1)
  ROOT b = f32[1000000000000000000] broadcast(c), dimensions={}
}",
    );
    let err = exe.execute(&[]).unwrap_err();
    assert!(
        matches!(
            err,
            JitError::OutOfMemory {
                bytes: 4_000_000_000_000_000_000,
                ..
            }
        ),
        "{err}"
    );
}

/// A tiled array too large for memory: compiling does not build offset
/// tables with one entry per index of its dimensions (fuzzing found an
/// abort), and running it is an error.
#[cfg(target_os = "linux")]
#[test]
fn a_tiled_array_beyond_memory_compiles_and_fails_to_run() {
    let exe = compile(
        "HloModule m
ENTRY e {
  c = f32[] constant(1)
  b = f32[281474976710656,8]{1,0:T(2,128)} broadcast(c), dimensions={}
  ROOT n = f32[281474976710656,8]{1,0:T(2,128)} negate(b)
}",
    );
    let err = exe.execute(&[]).unwrap_err();
    assert!(matches!(err, JitError::OutOfMemory { .. }), "{err}");
}

/// An arena the system cannot allocate names its largest buffer.
#[cfg(target_os = "linux")]
#[test]
fn an_arena_beyond_memory_names_its_largest_buffer() {
    let exe = compile(
        "HloModule m
add {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT s = f32[] add(a, b)
}
ENTRY e {
  p = f32[] parameter(0)
  l = f32[4194304,2] broadcast(p), dimensions={}
  r = f32[2,4194304] broadcast(p), dimensions={}
  d = f32[4194304,4194304] dot(l, r), lhs_contracting_dims={1}, rhs_contracting_dims={0}
  ROOT s = f32[] reduce(d, p), dimensions={0,1}, to_apply=add
}",
    );
    let err = exe.execute(&[&Literal::scalar(1f32)]).unwrap_err();
    assert!(matches!(err, JitError::OutOfMemory { .. }), "{err}");
    assert!(
        err.to_string()
            .contains("for the buffer arena (the largest buffer: d, 70368744177664 bytes)"),
        "{err}"
    );
}

/// Sizes near `i64::MAX`: a buffer whose bytes overflow is refused at
/// compile time (fuzzing found the iteration space's ceiling divisions
/// overflowing, and the runtime then sizing the buffer as 0 bytes); one
/// just within the address space compiles and fails to allocate.
#[test]
fn sizes_near_i64_max_are_errors() {
    let module = module(
        "HloModule m
ENTRY e {
  ROOT i = c64[9223372036854775807]{0} iota(), iota_dimension=0
}",
    );
    let err = Client::cpu().unwrap().compile(&module).unwrap_err();
    assert_eq!(
        err.to_string(),
        "instruction i (c64[9223372036854775807]{0}) needs more bytes than a process can \
         address (9223372036854775807 at most)"
    );
    let exe = compile(
        "HloModule m
ENTRY e {
  ROOT i = u8[9223372036854775807]{0} iota(), iota_dimension=0
}",
    );
    let err = exe.execute(&[]).unwrap_err();
    assert!(matches!(err, JitError::OutOfMemory { .. }), "{err}");
}

#[test]
fn machine_code_dump_shows_math_constants_as_memory_operands() {
    let text = "HloModule m
ENTRY e {
  x = f32[1024]{0} parameter(0)
  ROOT e = f32[1024]{0} exponential(x)
}";
    let client = Client::cpu().unwrap();
    // Cranelift's kernel (an AVX-512 one reads its constants as broadcast
    // memory operands by construction).
    let options = CompileOptions {
        keep_asm: true,
        cranelift_only: true,
        ..CompileOptions::default()
    };
    let exe = client.compile_with(&module(text), &options).unwrap();
    let dump = exe.dump();
    let asm = dump
        .split_once("== machine code of ")
        .unwrap_or_else(|| panic!("no machine code in the dump:\n{dump}"))
        .1;
    // exp's polynomial: FMAs whose coefficient is read from the constant
    // table (`vfmadd213ps 0x70(%rdi), …`), not from a register loaded first.
    let folded = asm
        .lines()
        .filter_map(|l| l.split_once(":  ").map(|(_, instruction)| instruction))
        .filter(|i| i.starts_with("vfmadd") && i.contains("(%"))
        .count();
    assert!(folded >= 4, "{folded} FMAs with a memory operand:\n{asm}");
    let plain = client.compile(&module(text)).unwrap();
    assert!(!plain.dump().contains("== machine code"));
    let x = Literal::from_vec(&[1024], (0..1024).map(|i| i as f32 / 64.0 - 8.0).collect()).unwrap();
    let got = exe.execute(&[&x]).unwrap().to_vec::<f32>().unwrap();
    for (i, y) in got.iter().enumerate() {
        let want = (i as f64 / 64.0 - 8.0).exp();
        assert!(
            ((*y as f64) - want).abs() <= want * 1e-6,
            "exp at {i}: {y} vs {want}"
        );
    }
}

#[test]
fn domain_errors_give_the_default_nan_as_xla_does() {
    // log1p of x < -1 is x86's default NaN (sign set), which a top-k by
    // total order ranks last: JAX 0.10.2 gives these values.
    let on_six = |body: &str| {
        compile(&format!(
            "HloModule m\nENTRY e {{\n  v = f32[6]{{0}} parameter(0)\n{body}\n}}"
        ))
    };
    let topk = on_six(
        "  l = f32[6]{0} log-plus-one(v)\n  \
         t = (f32[3]{0}, s32[3]{0}) topk(l), k=3, largest=true\n  \
         ROOT r = f32[3]{0} get-tuple-element(t), index=0",
    );
    let x = Literal::vector(&[-2.0f32, 0.5, 3.0, -1.5, 1.0, 2.0]);
    let got = topk.execute(&[&x]).unwrap().to_vec::<f32>().unwrap();
    let want = [4f32.ln(), 3f32.ln(), std::f32::consts::LN_2];
    for (g, w) in got.iter().zip(want) {
        assert!((g - w).abs() <= 1e-6, "{got:?} vs {want:?}");
    }
    let sine = on_six("  ROOT s = f32[6]{0} sine(v)");
    let x = Literal::vector(&[f32::INFINITY, f32::NEG_INFINITY, 0.5, -2.0, 0.0, 1.0]);
    let got = sine.execute(&[&x]).unwrap().to_vec::<f32>().unwrap();
    assert_eq!(got[0].to_bits(), 0xFFC0_0000);
    assert_eq!(got[1].to_bits(), 0xFFC0_0000);
    assert_eq!(got[2], 0.5f32.sin());
}

/// Kernels that a default compile splits into several tasks compute every
/// row, also when the rows per task are not a multiple of 16: sort,
/// top-k and a column reduction (each split into 8 tasks, a row count
/// once left their last rows at zero).
#[test]
fn split_kernels_compute_every_row() {
    let add = "add {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  ROOT s = f32[] add(a, b)
}";
    // (By magnitude: a sort by the keys themselves runs as a library
    // routine, not a kernel.)
    let cmp = "cmp {
  a = f32[] parameter(0)
  b = f32[] parameter(1)
  aa = f32[] abs(a)
  ba = f32[] abs(b)
  ROOT lt = pred[] compare(aa, ba), direction=LT
}";
    let cases = [
        (
            format!(
                "HloModule m\n{cmp}\nENTRY e {{
  x = f32[136,28]{{1,0}} parameter(0)
  ROOT s = f32[136,28]{{1,0}} sort(x), dimensions={{1}}, to_apply=cmp
}}"
            ),
            vec![136, 28],
        ),
        (
            "HloModule m
ENTRY e {
  x = f32[1031,28]{1,0} parameter(0)
  t = (f32[1031,4]{1,0}, s32[1031,4]{1,0}) topk(x), k=4, largest=true
  ROOT i = s32[1031,4]{1,0} get-tuple-element(t), index=1
}"
            .to_string(),
            vec![1031, 28],
        ),
        (
            format!(
                "HloModule m\n{add}\nENTRY e {{
  x = f32[130,8,17]{{2,1,0}} parameter(0)
  s = f32[130,8,17]{{2,1,0}} sine(x)
  c = f32[130,8,17]{{2,1,0}} cosine(x)
  e = f32[130,8,17]{{2,1,0}} exponential(c)
  m = f32[130,8,17]{{2,1,0}} multiply(s, e)
  t = f32[130,8,17]{{2,1,0}} tanh(m)
  z = f32[] constant(0)
  ROOT r = f32[130,17]{{1,0}} reduce(t, z), dimensions={{1}}, to_apply=add
}}"
            ),
            vec![130, 8, 17],
        ),
    ];
    for (text, dims) in cases {
        let m = module(&text);
        let exe = Client::cpu().unwrap().compile(&m).unwrap();
        if std::thread::available_parallelism().map_or(1, |n| n.get()) > 1 {
            assert!(kernel_tasks(&exe).iter().any(|&t| t > 1), "{}", exe.dump());
        }
        let n: i64 = dims.iter().product();
        let values: Vec<f32> = (0..n)
            .map(|i| ((i * 7919) % 1013) as f32 * 0.01 - 5.0)
            .collect();
        let x = Literal::from_vec(&dims, values).unwrap();
        let want = xla_core::interp::Interpreter::new().run(&m, &[&x]).unwrap();
        let got = exe.execute(&[&x]).unwrap();
        if let Err(mismatch) = want.check_close(&got, Tolerance::new(1e-5, 1e-6)) {
            panic!("{mismatch}\n{text}");
        }
    }
}

/// A chain of 3000 fused element-wise ops compiles (the emitters recurse
/// along it: on the caller's stack, a test thread's 2 MiB, it overflowed)
/// and computes `x + 3000·y`.
#[test]
fn long_chains_compile_on_a_deep_stack() {
    let mut text = String::from(
        "HloModule m\nENTRY e {\n  x0 = f32[4] parameter(0)\n  y = f32[4] parameter(1)\n",
    );
    for i in 1..=3000 {
        text.push_str(&format!("  x{i} = f32[4] add(x{}, y)\n", i - 1));
    }
    text.push_str("  ROOT r = f32[4] negate(x3000)\n}\n");
    let exe = Client::cpu().unwrap().compile(&module(&text)).unwrap();
    let x = Literal::vector(&[1.0f32, 2.0, 3.0, 4.0]);
    let y = Literal::vector(&[0.5f32, 0.25, 1.0, 2.0]);
    let got = exe.execute(&[&x, &y]).unwrap().to_vec::<f32>().unwrap();
    assert_eq!(got, [-1501.0, -752.0, -3003.0, -6004.0]);
}

/// A parameter returned as a result is copied into the output buffer; a
/// copy of at least 512 KiB is split over the pool's threads, in chunks
/// that need not divide it.
#[test]
fn large_copies_split_over_threads_copy_every_byte() {
    let n = 262_147;
    let exe = compile(&format!(
        "HloModule m
ENTRY e {{
  x = f32[{n}]{{0}} parameter(0)
  ROOT t = (f32[{n}]{{0}}, f32[{n}]{{0}}) tuple(x, x)
}}"
    ));
    let x = Literal::vector(&values(n, 5));
    let out = exe.execute(&[&x]).unwrap();
    for element in out.tuple_elements().unwrap() {
        assert_eq!(element, &x);
    }
}
