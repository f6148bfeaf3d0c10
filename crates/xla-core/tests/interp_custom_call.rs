//! Custom calls (`docs/semantics.md`, *Custom calls*): Rust targets, C targets with XLA's
//! CPU ABI, the built-in LAPACK targets, and errors.

use xla_core::interp::{CustomCallArgs, Interpreter};
use xla_core::{HloModule, Literal, Shape};

fn module(text: &str) -> HloModule {
    text.parse().unwrap_or_else(|e| panic!("{e}\n{text}"))
}

/// `docs/semantics.md`, *Custom calls*: `myfunc(x: f32[2], y: f32[2,3]) -> f32[3,3]` with
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

fn run_tuple(text: &str, a: &Literal) -> Vec<Literal> {
    let out = Interpreter::new().run(&module(text), &[a]).unwrap();
    out.tuple_elements().unwrap().to_vec()
}

/// LAPACK's Householder QR of `[[3, 1], [4, 2]]` (column-major, as JAX
/// passes it): `dlarfg` on the first column `[3, 4]` gives `beta = −5`,
/// `tau = (−5 − 3)/−5 = 1.6`, `v = [1, 4/(3 + 5)] = [1, 0.5]`; the second
/// column becomes `H·[1, 2] = [−2.2, 0.4]`, whose single entry gives
/// `tau = 0`. `orgqr` then rebuilds `Q = H(0) = [[−0.6, −0.8], [−0.8, 0.6]]`.
#[test]
fn lapack_geqrf_orgqr() {
    let geqrf = "HloModule m\n\nENTRY e {\n  a = f64[2,2] parameter(0)\n  \
        ROOT q = (f64[2,2]{0,1}, f64[2]{0}) custom-call(a), custom_call_target=\"lapack_dgeqrf_ffi\", \
        operand_layout_constraints={f64[2,2]{0,1}}, api_version=API_VERSION_TYPED_FFI, backend_config={}\n}\n";
    let a = Literal::matrix(&[[3.0f64, 1.0], [4.0, 2.0]]);
    let t = run_tuple(geqrf, &a);
    let qr = t[0].to_vec::<f64>().unwrap();
    let close = |x: &[f64], y: &[f64]| x.iter().zip(y).all(|(a, b)| (a - b).abs() < 1e-15);
    assert!(close(&qr, &[-5.0, -2.2, 0.5, 0.4]), "{qr:?}");
    assert_eq!(t[1].to_vec::<f64>().unwrap(), [1.6, 0.0]);
    let orgqr =
        "HloModule m\n\nENTRY e {\n  a = f64[2,2] parameter(0)\n  tau = f64[2] parameter(1)\n  \
        ROOT q = f64[2,2]{0,1} custom-call(a, tau), custom_call_target=\"lapack_dorgqr_ffi\", \
        operand_layout_constraints={f64[2,2]{0,1}, f64[2]{0}}, backend_config={}\n}\n";
    let q = Interpreter::new()
        .run(&module(orgqr), &[&t[0], &t[1]])
        .unwrap();
    assert!(close(&q.to_vec::<f64>().unwrap(), &[-0.6, -0.8, -0.8, 0.6]));
}

/// Complex QR makes `R`'s diagonal real even for the last 1×1 reflector
/// (`zlarfg` with `n = 1`): `[[i]]` gives `beta = −1`, `tau = 1 + i`, and
/// `Q = 1 − tau = −i`, so `Q·R = i`. A batch of 2×3 matrices (`M < N`)
/// keeps 2 reflectors per matrix.
#[test]
fn lapack_geqrf_complex_and_batched() {
    use xla_core::C128;
    let text = "HloModule m\n\nENTRY e {\n  a = c128[1,1] parameter(0)\n  \
        ROOT q = (c128[1,1]{0,1}, c128[1]{0}) custom-call(a), custom_call_target=\"lapack_zgeqrf_ffi\"\n}\n";
    let t = run_tuple(
        text,
        &Literal::from_vec(&[1, 1], vec![C128::new(0.0, 1.0)]).unwrap(),
    );
    assert_eq!(t[0].to_vec::<C128>().unwrap(), [C128::new(-1.0, 0.0)]);
    assert_eq!(t[1].to_vec::<C128>().unwrap(), [C128::new(1.0, 1.0)]);
    let text = "HloModule m\n\nENTRY e {\n  a = f32[2,2,3] parameter(0)\n  \
        ROOT q = (f32[2,2,3]{1,2,0}, f32[2,2]{1,0}) custom-call(a), custom_call_target=\"lapack_sgeqrf_ffi\"\n}\n";
    let a = Literal::from_vec(
        &[2, 2, 3],
        vec![
            0.0f32, 1.0, 2.0, 2.0, 3.0, 4.0, 1.0, 0.0, 0.0, 0.0, 1.0, 0.0,
        ],
    )
    .unwrap();
    let t = run_tuple(text, &a);
    // [[0, 1, 2], [2, 3, 4]]: alpha = 0 (sign +) → beta = −2, tau = 1,
    // v = [1, 2/(0 + 2)] = [1, 1]; H swaps and negates the rows.
    // [[1, 0, 0], [0, 1, 0]] is already upper triangular: tau = [0, 0].
    assert_eq!(
        t[0].to_vec::<f32>().unwrap(),
        [-2.0, -3.0, -4.0, 1.0, -1.0, -2.0, 1.0, 0.0, 0.0, 0.0, 1.0, 0.0]
    );
    assert_eq!(t[1].to_vec::<f32>().unwrap(), [1.0, 0.0, 0.0, 0.0]);
}

/// `[[2, 1], [1, 2]]` (only the lower triangle is read: the 9 is ignored)
/// has eigenvalues 1 and 3 with eigenvectors `(1, −1)/√2` and `(1, 1)/√2`,
/// each normalized so its first largest component is positive; a NaN
/// gives NaN and `info = N − 1`.
#[test]
fn lapack_syevd() {
    let text = "HloModule m\n\nENTRY e {\n  a = f64[2,2,2] parameter(0)\n  \
        ROOT eigh = (f64[2,2,2]{1,2,0}, f64[2,2]{1,0}, s32[2]{0}) custom-call(a), \
        custom_call_target=\"lapack_dsyevd_ffi\", operand_layout_constraints={f64[2,2,2]{1,2,0}}, \
        api_version=API_VERSION_TYPED_FFI, backend_config={mode = 86 : ui8, uplo = 76 : ui8}\n}\n";
    let a = Literal::from_vec(
        &[2, 2, 2],
        vec![2.0f64, 9.0, 1.0, 2.0, 1.0, 0.0, f64::NAN, 1.0],
    )
    .unwrap();
    let t = run_tuple(text, &a);
    let v = t[0].to_vec::<f64>().unwrap();
    let h = std::f64::consts::FRAC_1_SQRT_2;
    for (got, want) in v[..4].iter().zip([h, h, -h, h]) {
        assert!((got - want).abs() < 1e-15, "{v:?}");
    }
    let w = t[1].to_vec::<f64>().unwrap();
    assert!(
        (w[0] - 1.0).abs() < 1e-15 && (w[1] - 3.0).abs() < 1e-15,
        "{w:?}"
    );
    assert!(w[2].is_nan() && w[3].is_nan() && v[4..].iter().all(|x| x.is_nan()));
    assert_eq!(t[2].to_vec::<i32>().unwrap(), [0, 1]);
}

/// A Hermitian matrix: `[[1, −i], [i, 1]]` (upper triangle read) has
/// eigenvalues 0 and 2; the vectors are orthonormal and `V·diag(w)·Vᴴ`
/// rebuilds the matrix.
#[test]
fn lapack_heevd_upper() {
    use xla_core::C64;
    let text = "HloModule m\n\nENTRY e {\n  a = c64[2,2] parameter(0)\n  \
        ROOT eigh = (c64[2,2]{0,1}, f32[2]{0}, s32[]) custom-call(a), \
        custom_call_target=\"lapack_cheevd_ffi\", backend_config={mode = 86 : ui8, uplo = 85 : ui8}\n}\n";
    let a = vec![
        C64::new(1.0, 0.0),
        C64::new(0.0, -1.0),
        C64::new(7.0, 7.0),
        C64::new(1.0, 0.0),
    ];
    let t = run_tuple(text, &Literal::from_vec(&[2, 2], a).unwrap());
    let w = t[1].to_vec::<f32>().unwrap();
    assert!(w[0].abs() < 1e-6 && (w[1] - 2.0).abs() < 1e-6, "{w:?}");
    let v = t[0].to_vec::<C64>().unwrap();
    let rebuilt = |i: usize, j: usize| {
        (0..2)
            .map(|k| v[i * 2 + k] * w[k] * v[j * 2 + k].conj())
            .sum::<C64>()
    };
    let want = [
        [C64::new(1.0, 0.0), C64::new(0.0, -1.0)],
        [C64::new(0.0, 1.0), C64::new(1.0, 0.0)],
    ];
    for (i, row) in want.iter().enumerate() {
        for (j, &x) in row.iter().enumerate() {
            assert!((rebuilt(i, j) - x).norm() < 1e-6, "{v:?}");
        }
    }
    assert_eq!(t[2].to_vec::<i32>().unwrap(), [0]);
}

/// `[[3, 0], [4, 5]]` has singular values `√45` and `√5` (`σ₁σ₂ = |det| =
/// 15`, `σ₁² + σ₂² = 50`); `mode='A'` on a 2×3 matrix gives a 2×2 `u` and
/// a 3×3 orthogonal `vt`; a NaN gives `info = −4` and NaN factors.
#[test]
fn lapack_gesdd() {
    let text = "HloModule m\n\nENTRY e {\n  a = f64[2,2] parameter(0)\n  \
        ROOT svd = (f64[2,2]{0,1}, f64[2]{0}, f64[2,2]{0,1}, f64[2,2]{0,1}, s32[]) custom-call(a), \
        custom_call_target=\"lapack_dgesdd_ffi\", operand_layout_constraints={f64[2,2]{0,1}}, \
        api_version=API_VERSION_TYPED_FFI, backend_config={mode = 83 : ui8}\n}\n";
    let a = Literal::matrix(&[[3.0f64, 0.0], [4.0, 5.0]]);
    let t = run_tuple(text, &a);
    let s = t[1].to_vec::<f64>().unwrap();
    assert!((s[0] - 45f64.sqrt()).abs() < 1e-14 && (s[1] - 5f64.sqrt()).abs() < 1e-14);
    let (u, vt) = (t[2].to_vec::<f64>().unwrap(), t[3].to_vec::<f64>().unwrap());
    for i in 0..2 {
        for j in 0..2 {
            let x: f64 = (0..2).map(|k| u[i * 2 + k] * s[k] * vt[k * 2 + j]).sum();
            assert!((x - [[3.0, 0.0], [4.0, 5.0]][i][j]).abs() < 1e-14);
        }
        // The first largest component of each u column is positive.
        let col = [u[i], u[2 + i]];
        let largest = if col[1].abs() > col[0].abs() {
            col[1]
        } else {
            col[0]
        };
        assert!(largest > 0.0);
    }
    assert_eq!(t[4], Literal::scalar(0i32));

    let text = "HloModule m\n\nENTRY e {\n  a = f32[2,2,3] parameter(0)\n  \
        ROOT svd = (f32[2,2,3]{1,2,0}, f32[2,2]{1,0}, f32[2,2,2]{1,2,0}, f32[2,3,3]{1,2,0}, s32[2]{0}) \
        custom-call(a), custom_call_target=\"lapack_sgesdd_ffi\", backend_config={mode = 65 : ui8}\n}\n";
    let mut values = vec![
        1.0f32, 2.0, 2.0, 0.0, 0.0, 0.0, 1.0, 1.0, 1.0, 1.0, 1.0, 1.0,
    ];
    values[6] = f32::NAN;
    let t = run_tuple(
        text,
        &Literal::from_vec(&[2, 2, 3], values.clone()).unwrap(),
    );
    // [[1, 2, 2], [0, 0, 0]]: σ = [3, 0], v₁ = (1, 2, 2)/3.
    let s = t[1].to_vec::<f32>().unwrap();
    assert_eq!(s[..2], [3.0, 0.0]);
    assert!(s[2].is_nan() && s[3].is_nan());
    let vt = t[3].to_vec::<f32>().unwrap();
    for (got, want) in vt[..3].iter().zip([1.0 / 3.0, 2.0 / 3.0, 2.0 / 3.0]) {
        assert!((got - want).abs() < 1e-7, "{vt:?}");
    }
    for i in 0..3 {
        for j in 0..3 {
            let dot: f32 = (0..3).map(|k| vt[i * 3 + k] * vt[j * 3 + k]).sum();
            assert!((dot - f32::from(i == j)).abs() < 1e-6, "{vt:?}");
        }
    }
    assert_eq!(t[4].to_vec::<i32>().unwrap(), [0, -4]);
    // `?gesvd` computes the same factors but does not check for NaN.
    let gesvd = text.replace("sgesdd", "sgesvd");
    let t = run_tuple(&gesvd, &Literal::from_vec(&[2, 2, 3], values).unwrap());
    assert_eq!(t[1].to_vec::<f32>().unwrap()[..2], [3.0, 0.0]);
    assert_eq!(t[4].to_vec::<i32>().unwrap(), [0, 0]);
}

#[test]
fn dce_sink_keeps_its_operand_and_returns_nothing() {
    // What JAX's checkify writes: an FFI call with a side effect and no
    // results, marking `y` as used.
    let m = module(
        "HloModule m\n\nENTRY e {\n  x = f32[3] parameter(0)\n  \
         y = f32[3] add(x, x)\n  \
         s = () custom-call(y), custom_call_target=\"dce_sink\", custom_call_has_side_effect=true, api_version=API_VERSION_TYPED_FFI\n  \
         ROOT z = f32[3] multiply(y, x)\n}\n",
    );
    let x = Literal::vector(&[1.0f32, -2.0, 3.0]);
    let out = Interpreter::new().run(&m, &[&x]).unwrap();
    assert_eq!(out.to_vec::<f32>().unwrap(), [2.0, 8.0, 18.0]);
}
