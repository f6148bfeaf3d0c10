#![allow(clippy::needless_range_loop)] // element-by-element comparisons

//! Dot epilogue kernels, called the way the dot engine calls them: on
//! blocks of a finished output (computed here by a naive product), in any
//! order, with contiguous or strided columns.

use crate::emit_harness;

use emit_harness::*;
use xla_core::Literal;
use xla_jit::emit::{EpilogueBlock, KernelEntry};
use xla_jit::fusion::{FusionKind, OperandView};

/// A dot problem: `batch × [m,k]·[k,n]`, run in `bm × bn` blocks.
struct Problem {
    batch: usize,
    m: usize,
    k: usize,
    n: usize,
    bm: usize,
    bn: usize,
}

/// Runs the single dot fusion of `c`: `C = lhs · rhs` (2-D, row-major
/// operands, optionally batched over a leading dimension) written into the
/// output under its layout, then the epilogue on `bm × bn` blocks.
fn run_dot(c: &Compiled, args: &[&Literal], p: Problem) -> Literal {
    let Problem { batch, m, k, n, .. } = p;
    let comp = c.module.entry_computation();
    let f = &c.plan.fusions[0];
    assert_eq!(f.kind, FusionKind::DotEpilogue);
    let dot = f.dot.as_ref().unwrap();
    let arg_of = |input: usize| {
        let id = f.inputs[input];
        args[comp.instr(id).attrs.parameter_number.unwrap() as usize]
    };
    let a = arg_of(dot.lhs.input).to_vec::<f32>().unwrap();
    let b = arg_of(dot.rhs.input).to_vec::<f32>().unwrap();
    let lhs_t = matches!(dot.lhs.view, OperandView::Transpose(_));
    let root_shape = comp.instr(f.root).shape.as_array().unwrap().clone();
    let mut out = Literal::zeros(&xla_core::Shape::Array(
        root_shape
            .clone()
            .with_layout(root_shape.layout_or_default()),
    ))
    .unwrap();
    let dims: Vec<i64> = root_shape.dims().to_vec();
    for bt in 0..batch {
        for i in 0..m {
            for j in 0..n {
                let mut s = 0.0f32;
                for p in 0..k {
                    let av = if lhs_t {
                        a[bt * m * k + p * m + i]
                    } else {
                        a[bt * m * k + i * k + p]
                    };
                    s += av * b[bt * k * n + p * n + j];
                }
                let idx: Vec<i64> = if batch > 1 || dims.len() == 3 {
                    vec![bt as i64, i as i64, j as i64]
                } else {
                    vec![i as i64, j as i64]
                };
                out.set(&idx, s).unwrap();
            }
        }
    }
    if c.kernels.iter().all(|k| k.fusion != 0) {
        return out;
    }
    let layout = root_shape.layout_or_default();
    let strides = layout.dense_strides(&dims).unwrap();
    let strides = if dims.len() == 3 {
        (strides[1], strides[2], strides[0])
    } else {
        (strides[0], strides[1], 0)
    };
    let base = out.bytes_mut().unwrap().as_mut_ptr();
    // SAFETY: the output holds `batch` matrices at these strides.
    unsafe { apply_blocks(c, args, base, &p, strides) };
    out
}

/// Runs the epilogue kernel of `c`'s fusion 0 on the dot output at `base`
/// (`p.batch` matrices of `p.m × p.n`, element `(b, i, j)` at `b·bs + i·rs +
/// j·cs`, strides `(rs, cs, bs)` in elements) in `p.bm × p.bn` blocks, in
/// reverse order: the engine promises no order.
///
/// # Safety
///
/// `base` holds such an output.
unsafe fn apply_blocks(
    c: &Compiled,
    args: &[&Literal],
    base: *mut u8,
    p: &Problem,
    (rs, cs, bs): (i64, i64, i64),
) {
    let comp = c.module.entry_computation();
    let f = &c.plan.fusions[0];
    let kernel = c.kernels.iter().find(|k| k.fusion == 0).unwrap();
    let KernelEntry::Epilogue(func) = kernel.entry else {
        panic!("expected an epilogue kernel");
    };
    let mut ptrs: Vec<*mut u8> = f
        .inputs
        .iter()
        .map(|&i| {
            args[comp.instr(i).attrs.parameter_number.unwrap() as usize]
                .bytes()
                .unwrap()
                .as_ptr() as *mut u8
        })
        .collect();
    ptrs.push(base);
    let _ftz = xla_jit::ftz::FtzGuard::new();
    let mut blocks = Vec::new();
    for bt in 0..p.batch {
        for r0 in (0..p.m).step_by(p.bm) {
            for c0 in (0..p.n).step_by(p.bn) {
                blocks.push((bt, r0, c0));
            }
        }
    }
    for &(bt, r0, c0) in blocks.iter().rev() {
        let offset = (bt as i64 * bs + r0 as i64 * rs + c0 as i64 * cs) * 4;
        let block = EpilogueBlock {
            // SAFETY: inside the output buffer.
            c: unsafe { base.offset(offset as isize) },
            row_stride: rs,
            col_stride: cs,
            rows: p.bm.min(p.m - r0) as i64,
            cols: p.bn.min(p.n - c0) as i64,
            batch: bt as i64,
            row0: r0 as i64,
            col0: c0 as i64,
        };
        // SAFETY: the buffers are the fusion's inputs then its output; the
        // block lies inside the output.
        unsafe { func(ptrs.as_ptr(), &block) };
    }
}

#[test]
fn bias_and_relu_epilogue() {
    for (layout, bm, bn) in [("{1,0}", 2, 4), ("{1,0}", 8, 16), ("{0,1}", 3, 5)] {
        let text = format!(
            "HloModule m
ENTRY e {{
  x = f32[5,7]{{1,0}} parameter(0)
  w = f32[7,9]{{1,0}} parameter(1)
  d = f32[5,9]{layout} dot(x, w), lhs_contracting_dims={{1}}, rhs_contracting_dims={{0}}
  b = f32[9]{{0}} parameter(2)
  bb = f32[5,9]{layout} broadcast(b), dimensions={{1}}
  s = f32[5,9]{layout} add(d, bb)
  z = f32[] constant(0)
  zb = f32[5,9]{layout} broadcast(z), dimensions={{}}
  ROOT r = f32[5,9]{layout} maximum(s, zb)
}}"
        );
        let c = compile(&text);
        assert_eq!(c.plan.fusions.len(), 1, "{}", plan_text(&c));
        let x: Vec<f32> = (0..35).map(|i| (i % 7) as f32 - 3.0).collect();
        let w: Vec<f32> = (0..63).map(|i| (i % 5) as f32 - 2.0).collect();
        let bias: Vec<f32> = (0..9).map(|i| i as f32 - 4.0).collect();
        let args = [
            &Literal::from_vec(&[5, 7], x.clone()).unwrap(),
            &Literal::from_vec(&[7, 9], w.clone()).unwrap(),
            &Literal::vector(&bias),
        ];
        let out = run_dot(
            &c,
            &args,
            Problem {
                batch: 1,
                m: 5,
                k: 7,
                n: 9,
                bm,
                bn,
            },
        );
        for i in 0..5 {
            for j in 0..9 {
                let d: f32 = (0..7).map(|p| x[i * 7 + p] * w[p * 9 + j]).sum();
                let want = (d + bias[j]).max(0.0);
                assert_eq!(
                    out.get::<f32>(&[i as i64, j as i64]).unwrap(),
                    want,
                    "{layout} ({i},{j})"
                );
            }
        }
    }
}

#[test]
fn transposed_lhs_and_batched_scale() {
    let text = "HloModule m
ENTRY e {
  a = f32[3,6,4]{2,1,0} parameter(0)
  b = f32[3,4,10]{2,1,0} parameter(1)
  d = f32[3,6,10]{2,1,0} dot(a, b), lhs_batch_dims={0}, lhs_contracting_dims={2}, rhs_batch_dims={0}, rhs_contracting_dims={1}
  s = f32[] parameter(2)
  sb = f32[3,6,10]{2,1,0} broadcast(s), dimensions={}
  ROOT r = f32[3,6,10]{2,1,0} multiply(d, sb)
}";
    let c = compile(text);
    let a: Vec<f32> = (0..72).map(|i| (i % 9) as f32 - 4.0).collect();
    let b: Vec<f32> = (0..120).map(|i| (i % 4) as f32).collect();
    let args = [
        &Literal::from_vec(&[3, 6, 4], a.clone()).unwrap(),
        &Literal::from_vec(&[3, 4, 10], b.clone()).unwrap(),
        &Literal::scalar(0.5f32),
    ];
    let out = run_dot(
        &c,
        &args,
        Problem {
            batch: 3,
            m: 6,
            k: 4,
            n: 10,
            bm: 4,
            bn: 8,
        },
    );
    for bt in 0..3 {
        for i in 0..6 {
            for j in 0..10 {
                let d: f32 = (0..4)
                    .map(|p| a[bt * 24 + i * 4 + p] * b[bt * 40 + p * 10 + j])
                    .sum();
                let got = out.get::<f32>(&[bt as i64, i as i64, j as i64]).unwrap();
                assert_eq!(got, d * 0.5, "({bt},{i},{j})");
            }
        }
    }
    // A transpose of the lhs is absorbed; the epilogue still runs.
    let text = "HloModule m
ENTRY e {
  a = f32[4,6]{1,0} parameter(0)
  b = f32[4,10]{1,0} parameter(1)
  at = f32[6,4]{1,0} transpose(a), dimensions={1,0}
  d = f32[6,10]{1,0} dot(at, b), lhs_contracting_dims={1}, rhs_contracting_dims={0}
  ROOT n = f32[6,10]{1,0} negate(d)
}";
    let c = compile(text);
    assert_eq!(c.plan.fusions.len(), 1);
    let a: Vec<f32> = (0..24).map(|i| i as f32).collect();
    let b: Vec<f32> = (0..40).map(|i| (i % 3) as f32).collect();
    let args = [
        &Literal::from_vec(&[4, 6], a.clone()).unwrap(),
        &Literal::from_vec(&[4, 10], b.clone()).unwrap(),
    ];
    let out = run_dot(
        &c,
        &args,
        Problem {
            batch: 1,
            m: 6,
            k: 4,
            n: 10,
            bm: 5,
            bn: 3,
        },
    );
    for i in 0..6 {
        for j in 0..10 {
            let d: f32 = (0..4).map(|p| a[p * 6 + i] * b[p * 10 + j]).sum();
            assert_eq!(out.get::<f32>(&[i as i64, j as i64]).unwrap(), -d);
        }
    }
}

#[test]
fn plain_dots_have_no_epilogue_kernel() {
    let c = compile(&suite_module("dot_256"));
    assert_eq!(c.plan.fusions.len(), 1);
    assert!(c.kernels.is_empty());
}

/// `count` f32 values: the edge values among a spread of ordinary ones.
fn spread(count: usize, salt: u32) -> Vec<f32> {
    let edges = f32_edges();
    (0..count)
        .map(|i| {
            let k = (i as u32).wrapping_mul(2654435761) ^ salt.wrapping_mul(40503);
            match k % 7 {
                0 => edges[(k as usize >> 3) % edges.len()],
                _ => ((k >> 8) % 2001) as f32 / 100.0 - 10.0,
            }
        })
        .collect()
}

/// Native epilogue kernels (a bias along the columns or along all the
/// rows, a residual, a scalar, GELU's tanh, ReLU, a causal mask from
/// iotas) compute what Cranelift's do, bit for bit, on every block shape:
/// single elements, tails of every length, whole matrices, and blocks
/// whose columns are apart (a transposed output's).
#[test]
fn native_epilogues_match_cranelifts() {
    let widths = native_widths();
    if widths.is_empty() {
        return;
    }
    let programs = |batch: usize, m: usize, n: usize| {
        let o = format!("f32[{batch},{m},{n}]{{2,1,0}}");
        let head = format!(
            "HloModule m
ENTRY e {{
  a = f32[{batch},{m},8]{{2,1,0}} parameter(0)
  w = f32[{batch},8,{n}]{{2,1,0}} parameter(1)
  d = {o} dot(a, w), lhs_batch_dims={{0}}, lhs_contracting_dims={{2}}, rhs_batch_dims={{0}}, rhs_contracting_dims={{1}}"
        );
        [
            format!(
                "{head}
  b = f32[{n}]{{0}} parameter(2)
  bb = {o} broadcast(b), dimensions={{2}}
  s = {o} add(d, bb)
  t = {o} tanh(s)
  g = {o} multiply(s, t)
  r = {o} parameter(3)
  ROOT y = {o} add(g, r)
}}"
            ),
            format!(
                "{head}
  rb = f32[{batch},{m}]{{1,0}} parameter(2)
  rbb = {o} broadcast(rb), dimensions={{0,1}}
  k = f32[] parameter(3)
  kb = {o} broadcast(k), dimensions={{}}
  e = {o} multiply(d, kb)
  f = {o} add(e, rbb)
  z = f32[] constant(0)
  zb = {o} broadcast(z), dimensions={{}}
  ROOT y = {o} maximum(f, zb)
}}"
            ),
            format!(
                "{head}
  ir = s32[{batch},{m},{n}]{{2,1,0}} iota(), iota_dimension=1
  ic = s32[{batch},{m},{n}]{{2,1,0}} iota(), iota_dimension=2
  ge = pred[{batch},{m},{n}]{{2,1,0}} compare(ir, ic), direction=GE
  low = f32[] constant(-1e9)
  lb = {o} broadcast(low), dimensions={{}}
  ROOT y = {o} select(ge, d, lb)
}}"
            ),
        ]
    };
    for (batch, m, n) in [(1, 1, 17), (2, 5, 16), (1, 7, 33), (2, 13, 100)] {
        let size = batch * m * n;
        for (k, text) in programs(batch, m, n).iter().enumerate() {
            let lit = |dims: &[i64], salt: u32| {
                let count = dims.iter().product::<i64>() as usize;
                Literal::from_vec(dims, spread(count, salt)).unwrap()
            };
            let (b, m64, n64) = (batch as i64, m as i64, n as i64);
            let third = match k {
                0 => lit(&[n64], 3),
                _ => lit(&[b, m64], 3),
            };
            let args = [
                lit(&[b, m64, 8], 1),
                lit(&[b, 8, n64], 2),
                third,
                match k {
                    0 => lit(&[b, m64, n64], 4),
                    _ => Literal::scalar(0.75f32),
                },
            ];
            let args: Vec<&Literal> = args.iter().take(if k == 2 { 2 } else { 4 }).collect();
            let cranelift = compile_cranelift(text);
            let natives: Vec<Compiled> = widths
                .iter()
                .map(|&w| compile_with(text, Some(w)))
                .collect();
            for (c, width) in natives.iter().zip(&widths) {
                let name = &c.kernels.iter().find(|k| k.fusion == 0).unwrap().name;
                let mark = match width {
                    xla_jit::wide::Width::Zmm => "_avx512_epilogue",
                    xla_jit::wide::Width::Ymm => "_avx2_epilogue",
                };
                assert!(name.contains(mark), "{name}: not native");
            }
            let row_major = (n as i64, 1, (m * n) as i64);
            let transposed = (1, m as i64, (m * n) as i64);
            for strides in [row_major, transposed] {
                for (bm, bn) in [(1, 1), (3, 7), (m, n), (4, 16)] {
                    let p = Problem {
                        batch,
                        m,
                        k: 8,
                        n,
                        bm,
                        bn,
                    };
                    let mut want = spread(size, 9);
                    // SAFETY: `want` holds the output at these strides.
                    unsafe {
                        apply_blocks(&cranelift, &args, want.as_mut_ptr().cast(), &p, strides)
                    };
                    for c in &natives {
                        let mut got = spread(size, 9);
                        // SAFETY: as above.
                        unsafe { apply_blocks(c, &args, got.as_mut_ptr().cast(), &p, strides) };
                        for (i, (g, w)) in got.iter().zip(&want).enumerate() {
                            assert!(
                                same_f32(*g, *w),
                                "element {i}: {g} against Cranelift's {w}, blocks {bm}×{bn}, \
                                 strides {strides:?}\n{text}"
                            );
                        }
                    }
                }
            }
        }
    }
}
