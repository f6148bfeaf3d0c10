//! Custom calls (`spec/OPS.md` §3.8): Rust targets, C targets with XLA's
//! CPU ABI, the built-in LAPACK targets, and errors.

use xla_core::interp::{CustomCallArgs, Interpreter};
use xla_core::{HloModule, Literal, Shape};

fn module(text: &str) -> HloModule {
    text.parse().unwrap_or_else(|e| panic!("{e}\n{text}"))
}

/// §3.8: `myfunc(x: f32[2], y: f32[2,3]) -> f32[3,3]` with
/// `z[i][j] = x[1] + y[1][0] + i·10 + j` (to see the result's layout).
unsafe extern "C" fn myfunc(out: *mut u8, ins: *const *const u8) {
    // SAFETY: registered for these shapes only.
    let (x, y, z) = unsafe {
        (
            std::slice::from_raw_parts(*ins as *const f32, 2),
            std::slice::from_raw_parts(*ins.add(1) as *const f32, 6),
            std::slice::from_raw_parts_mut(out as *mut f32, 9),
        )
    };
    for (e, v) in z.iter_mut().enumerate() {
        *v = x[1] + y[3] + (e / 3 * 10 + e % 3) as f32;
    }
}

const MYFUNC: &str = "HloModule m\n\nENTRY e {\n  x = f32[2] parameter(0)\n  \
    y = f32[2,3] parameter(1)\n  \
    ROOT z = f32[3,3]{1,0} custom-call(x, y), custom_call_target=\"myfunc\"\n}\n";

fn args() -> (Literal, Literal) {
    (
        Literal::vector(&[1.0f32, 2.0]),
        Literal::matrix(&[[10.0f32, 20.0, 30.0], [40.0, 50.0, 60.0]]),
    )
}

#[test]
fn extern_c_target() {
    let mut interp = Interpreter::new();
    // SAFETY: myfunc reads f32[2] and f32[2,3] and writes f32[3,3].
    unsafe {
        interp
            .custom_calls_mut()
            .register_extern_c("myfunc", myfunc)
    };
    let (x, y) = args();
    let z = interp.run(&module(MYFUNC), &[&x, &y]).unwrap();
    assert_eq!(z.get::<f32>(&[0, 0]).unwrap(), 42.0);
    assert_eq!(z.get::<f32>(&[2, 1]).unwrap(), 42.0 + 21.0);
    // Operands in another layout reach the target row-major; a
    // column-major result is the target's buffer read as column-major.
    let y_t = y.relayout(&xla_core::Layout::new([0, 1])).unwrap();
    let column_major = MYFUNC.replace("f32[3,3]{1,0}", "f32[3,3]{0,1}");
    let z = interp.run(&module(&column_major), &[&x, &y_t]).unwrap();
    assert_eq!(z.get::<f32>(&[1, 2]).unwrap(), 42.0 + 21.0);
}

/// A tuple result is a table of element buffers.
unsafe extern "C" fn split(out: *mut u8, ins: *const *const u8) {
    // SAFETY: registered for (s32[2]) -> (s32[], s32[]).
    unsafe {
        let x = std::slice::from_raw_parts(*ins as *const i32, 2);
        let table = out as *const *mut i32;
        **table = x[1];
        **table.add(1) = x[0];
    }
}

#[test]
fn extern_c_tuple_result() {
    let mut interp = Interpreter::new();
    // SAFETY: split reads s32[2] and writes two s32[].
    unsafe { interp.custom_calls_mut().register_extern_c("split", split) };
    let m = module(
        "HloModule m\n\nENTRY e {\n  x = s32[2] parameter(0)\n  \
         ROOT t = (s32[], s32[]) custom-call(x), custom_call_target=\"split\"\n}\n",
    );
    let out = interp.run(&m, &[&Literal::vector(&[5i32, 6])]).unwrap();
    assert_eq!(
        out,
        Literal::tuple(vec![Literal::scalar(6i32), Literal::scalar(5i32)])
    );
}

#[test]
fn rust_targets_and_errors() {
    let mut interp = Interpreter::new();
    interp
        .custom_calls_mut()
        .register("myfunc", |operands: &[&Literal], shape: &Shape| {
            let x = operands[0].get::<f32>(&[1]).map_err(|e| e.to_string())?;
            let dims = shape.as_array().unwrap().dims();
            Literal::from_vec(dims, vec![x; 9]).map_err(|e| e.to_string())
        })
        .register_with_args("config", |args: &CustomCallArgs<'_>| {
            Ok(Literal::scalar(args.backend_config.len() as i32))
        })
        .register("fixed", |_: &[&Literal], _: &Shape| {
            Ok(Literal::matrix(&[[0.0f32; 3]; 3]))
        });
    let (x, y) = args();
    let z = interp.run(&module(MYFUNC), &[&x, &y]).unwrap();
    assert_eq!(z.to_vec::<f32>().unwrap(), [2.0; 9]);
    let m = module(
        "HloModule m\n\nENTRY e {\n  ROOT c = s32[] custom-call(), custom_call_target=\"config\", \
         backend_config=\"abc\"\n}\n",
    );
    assert_eq!(interp.run(&m, &[]).unwrap(), Literal::scalar(3i32));

    let wrong = MYFUNC
        .replace("f32[3,3]{1,0}", "f32[9]")
        .replace("myfunc", "fixed");
    assert_eq!(
        interp
            .run(&module(&wrong), &[&x, &y])
            .unwrap_err()
            .to_string(),
        "z: custom call `fixed` failed: returned a value of shape f32[3,3], but the instruction's \
         shape is f32[9]"
    );
    let unknown = MYFUNC.replace("\"myfunc\"", "\"nobody\"");
    assert_eq!(
        interp
            .run(&module(&unknown), &[&x, &y])
            .unwrap_err()
            .to_string(),
        "z: no custom-call target named `nobody` is registered"
    );
    assert!(interp.custom_calls().names().contains(&"lapack_spotrf_ffi"));
}

/// JAX's CPU Cholesky: `(factor, info)` in LAPACK's conventions.
#[test]
fn lapack_potrf() {
    let text = "HloModule m\n\nENTRY e {\n  a = f32[2,2,2] parameter(0)\n  \
        ROOT c = (f32[2,2,2]{1,2,0}, s32[2]) custom-call(a), custom_call_target=\"lapack_spotrf_ffi\", \
        operand_layout_constraints={f32[2,2,2]{1,2,0}}, api_version=API_VERSION_TYPED_FFI, \
        backend_config={uplo = 76 : ui8}\n}\n";
    let a = Literal::from_vec(&[2, 2, 2], vec![4.0f32, 7.0, 2.0, 3.0, 4.0, 2.0, 2.0, 1.0]).unwrap();
    let out = Interpreter::new().run(&module(text), &[&a]).unwrap();
    let t = out.tuple_elements().unwrap();
    let factor = t[0].to_vec::<f32>().unwrap();
    // The upper triangle keeps the operand's 7 and 2.
    assert_eq!(factor[..4], [2.0, 7.0, 1.0, std::f32::consts::SQRT_2]);
    assert_eq!(factor[5], 2.0);
    // The second matrix's last pivot is 0: LAPACK reports it.
    assert_eq!(t[1].to_vec::<i32>().unwrap(), [0, 2]);
}

/// JAX's CPU triangular solve: right side, upper, transposed, unit
/// diagonal, as `x·aᵀ = b`.
#[test]
fn lapack_trsm() {
    let text = "HloModule m\n\nENTRY e {\n  a = f32[2,2] parameter(0)\n  b = f32[1,2] parameter(1)\n  \
        ROOT x = f32[1,2]{0,1} custom-call(a, b), custom_call_target=\"lapack_strsm_ffi\", \
        operand_layout_constraints={f32[2,2]{0,1}, f32[1,2]{0,1}}, \
        backend_config={diag = 85 : ui8, side = 82 : ui8, trans_x = 84 : ui8, uplo = 85 : ui8}\n}\n";
    // Upper unit triangle of a = [[1, 3], [0, 1]]; aᵀ = [[1, 0], [3, 1]].
    let a = Literal::matrix(&[[9.0f32, 3.0], [5.0, 9.0]]);
    let b = Literal::matrix(&[[7.0f32, 2.0]]);
    let x = Interpreter::new().run(&module(text), &[&a, &b]).unwrap();
    // x·aᵀ = [x0 + 3·x1, x1] = [7, 2] → x = [1, 2].
    assert_eq!(x.to_vec::<f32>().unwrap(), [1.0, 2.0]);
}

/// JAX's CPU LU (`jnp.linalg.solve`, `det`, …): `(lu, ipiv, info)`. The
/// first matrix swaps its rows for the larger pivot 3; the second has an
/// exactly zero first column: `info` 1, no swap, the factorization goes on.
#[test]
fn lapack_getrf() {
    let text = "HloModule m\n\nENTRY e {\n  a = f32[2,2,2] parameter(0)\n  \
        ROOT lu = (f32[2,2,2]{1,2,0}, s32[2,2]{1,0}, s32[2]{0}) custom-call(a), \
        custom_call_target=\"lapack_sgetrf_ffi\", operand_layout_constraints={f32[2,2,2]{1,2,0}}, \
        output_to_operand_aliasing={{0}: (0, {})}, api_version=API_VERSION_TYPED_FFI, backend_config={}\n}\n";
    let a = Literal::from_vec(&[2, 2, 2], vec![1.0f32, 2.0, 3.0, 4.0, 0.0, 5.0, 0.0, 7.0]).unwrap();
    let out = Interpreter::new().run(&module(text), &[&a]).unwrap();
    let t = out.tuple_elements().unwrap();
    // [[1, 2], [3, 4]] → P·a = [[3, 4], [1, 2]] = [[1, 0], [1/3, 1]]·[[3, 4], [0, 2/3]].
    // [[0, 5], [0, 7]]: zero pivot, then U[1][1] = 7 − 0·5.
    assert_eq!(
        t[0].to_vec::<f32>().unwrap(),
        [3.0, 4.0, 1.0 / 3.0, 2.0 / 3.0, 0.0, 5.0, 0.0, 7.0]
    );
    assert_eq!(t[1].to_vec::<i32>().unwrap(), [2, 2, 1, 2]);
    assert_eq!(t[2].to_vec::<i32>().unwrap(), [0, 1]);
}

/// Complex pivots are ranked by `|re| + |im|` (LAPACK's `icamax`): `3+3i`
/// (6) beats `-5` (5), although `|−5| > |3+3i|`.
#[test]
fn lapack_getrf_complex_pivot() {
    let text = "HloModule m\n\nENTRY e {\n  a = c64[2,1] parameter(0)\n  \
        ROOT lu = (c64[2,1]{0,1}, s32[1]{0}, s32[]) custom-call(a), \
        custom_call_target=\"lapack_cgetrf_ffi\", api_version=API_VERSION_TYPED_FFI\n}\n";
    let a = Literal::from_vec(
        &[2, 1],
        vec![xla_core::C64::new(-5.0, 0.0), xla_core::C64::new(3.0, 3.0)],
    )
    .unwrap();
    let out = Interpreter::new().run(&module(text), &[&a]).unwrap();
    let t = out.tuple_elements().unwrap();
    assert_eq!(t[1].to_vec::<i32>().unwrap(), [2]);
    let lu = t[0].to_vec::<xla_core::C64>().unwrap();
    // -5 / (3+3i) = (-15 + 15i) / 18.
    assert_eq!(lu[0], xla_core::C64::new(3.0, 3.0));
    assert!((lu[1] - xla_core::C64::new(-15.0 / 18.0, 15.0 / 18.0)).norm() < 1e-7);
}
