//! `xla grad`, as a user runs it: the gradient module printed, then run by
//! `xla run` against JAX's gradients; `--wrt`, `--vjp`, `--value`; and a
//! module that cannot be differentiated exits with status 1.

use std::path::Path;

use xla::io::{read_npy, NpyOptions};

use crate::cli_support::{scratch, stderr, stdout, write, xla};

fn case(name: &str) -> std::path::PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/gradients/cases")
        .join(name)
}

#[test]
fn grad_then_run_matches_jax() {
    let dir = scratch("cli_grad", "grad_then_run");
    let source = case("matmul_chain");
    let printed = xla(&["grad".as_ref(), source.join("module.hlo").as_os_str()]);
    assert!(printed.status.success(), "{}", stderr(&printed));
    let module = write(&dir, "grad.hlo", &stdout(&printed));
    let out = dir.join("out");
    let mut args = vec!["run".into(), module.into_os_string()];
    args.extend((0..3).map(|i| source.join(format!("arg{i}.npy")).into_os_string()));
    args.extend(["--out".into(), out.clone().into_os_string()]);
    let ran = xla(&args);
    assert!(ran.status.success(), "{}", stderr(&ran));
    for j in 0..3 {
        let got = read_npy(out.join(format!("{j}.npy")), &NpyOptions::default()).unwrap();
        let want = read_npy(source.join(format!("out{j}.npy")), &NpyOptions::default()).unwrap();
        let (got, want) = (got.to_vec::<f32>().unwrap(), want.to_vec::<f32>().unwrap());
        for (g, w) in got.iter().zip(&want) {
            assert!(
                (g - w).abs() <= 1e-4 * (1.0 + w.abs()),
                "out{j}: {got:?} against {want:?}"
            );
        }
    }
}

#[test]
fn wrt_vjp_and_value_choose_the_signature() {
    let module = case("binary_arith").join("module.hlo");
    let signature = |extra: &[&str]| {
        let mut args: Vec<&std::ffi::OsStr> = vec!["grad".as_ref(), module.as_os_str()];
        args.extend(extra.iter().map(std::ffi::OsStr::new));
        let out = xla(&args);
        assert!(out.status.success(), "{}", stderr(&out));
        let text = stdout(&out);
        let header = text.lines().next().unwrap_or_default().to_string();
        header
            .split("entry_computation_layout=")
            .nth(1)
            .unwrap_or_default()
            .to_string()
    };
    assert_eq!(
        signature(&["--wrt", "1"]),
        "{(f32[4,5]{1,0}, f32[4,5]{1,0})->(f32[4,5]{1,0})}"
    );
    assert_eq!(
        signature(&["--value"]),
        "{(f32[4,5]{1,0}, f32[4,5]{1,0})->(f32[], f32[4,5]{1,0}, f32[4,5]{1,0})}"
    );
    assert_eq!(
        signature(&["--vjp", "--wrt", "0"]),
        "{(f32[4,5]{1,0}, f32[4,5]{1,0}, f32[])->(f32[4,5]{1,0})}"
    );
}

#[test]
fn a_module_that_cannot_be_differentiated_exits_with_status_1() {
    let dir = scratch("cli_grad", "refused");
    let module = write(
        &dir,
        "m.hlo",
        "HloModule m\nENTRY e {\n  x = f32[4] parameter(0)\n  ROOT n = f32[4] negate(x)\n}\n",
    );
    let out = xla(&["grad".as_ref(), module.as_os_str()]);
    assert_eq!(out.status.code(), Some(1));
    assert!(stderr(&out).contains("scalar result"), "{}", stderr(&out));
    let bad = xla(&[
        "grad".as_ref(),
        module.as_os_str(),
        "--wrt".as_ref(),
        "x".as_ref(),
    ]);
    assert_eq!(bad.status.code(), Some(2), "{}", stderr(&bad));
}
