//! Complex elements (`c64`, `c128`; `docs/semantics.md`, *Element-wise arithmetic*) in kernels.
//!
//! A complex element lives in one integer lane holding its bytes: `c64` in
//! an `i64` (real part in the low 32 bits, imaginary part in the high 32),
//! `c128` in an `i128` (see `repr.rs`). Loads, stores, data movement and
//! `select` therefore treat it as an opaque unit, and a `c64` kernel runs
//! two elements per vector. Arithmetic splits each lane into its `f32` or
//! `f64` components:
//!
//! | op | how |
//! |---|---|
//! | add, subtract, multiply, negate | on the components, in the interpreter's order of operations (no fused multiply-add), as `f32x4` (two `c64`) or `f64x2` (one `c128`) vectors |
//! | real, imag, complex | component extraction and packing (bits kept) |
//! | compare EQ / NE | both components, `==` on floats |
//! | convert | component conversions (`real → (x, 0)`, `complex → real part`) |
//! | divide, abs, sign, exp, log, sqrt, tanh, power, … | a host call into the interpreter's own formulas (Smith's division, overflow-safe `abs`, …), so results agree bit for bit |
//!
//! Components are flushed by the kernels' MXCSR mode like real values; the
//! host calls run under the default mode, as the interpreter does.

use cranelift_codegen::ir::condcodes::FloatCC;
use cranelift_codegen::ir::{types, InstBuilder, Type, Value};
use xla_core::hlo::{ComparisonDirection, Form, HloInstruction};
use xla_core::{Opcode, PrimitiveType, TypeClass};

use super::convert::convert as convert_real;
use super::host;
use super::kernel::KernelBuilder;
use super::ops::{op_of, Binary, Op, Unary};
use super::repr::per_lane;
use super::Unsupported;

/// How a complex op is computed.
#[derive(Copy, Clone, PartialEq, Eq, Debug)]
enum Kind {
    Add,
    Subtract,
    Multiply,
    Negate,
    Real,
    Imag,
    /// `complex(re, im)`.
    Make,
    Equal,
    NotEqual,
    /// A call into the interpreter's formula for the op.
    Host(Opcode),
}

/// The ops on complex operands compiled inline or through host calls.
fn kind_of(instr: &HloInstruction, operand: PrimitiveType) -> Result<Kind, Unsupported> {
    let op = instr.opcode;
    let host = Ok(Kind::Host(op));
    let undefined = || {
        Err(Unsupported::new(
            op,
            format!("not defined on {} operands", operand.name()),
        ))
    };
    match op_of(op) {
        Op::Unary(u) => match u {
            Unary::Negate => Ok(Kind::Negate),
            Unary::Real => Ok(Kind::Real),
            Unary::Imag => Ok(Kind::Imag),
            Unary::Abs | Unary::Sign | Unary::Sqrt | Unary::Rsqrt => host,
            // The library's functions the op table defines on complex values.
            Unary::Math(_) => match op.form() {
                Form::Unary(TypeClass::FloatingOrComplex, _) => host,
                _ => undefined(),
            },
            Unary::Ceil
            | Unary::Floor
            | Unary::RoundNearestEven
            | Unary::RoundNearestAfz
            | Unary::IsFinite
            | Unary::Not
            | Unary::PopulationCount
            | Unary::Clz => undefined(),
        },
        Op::Binary(b) => match b {
            Binary::Add => Ok(Kind::Add),
            Binary::Subtract => Ok(Kind::Subtract),
            Binary::Multiply => Ok(Kind::Multiply),
            Binary::Divide | Binary::Power | Binary::Atan2 => host,
            Binary::Remainder
            | Binary::Maximum
            | Binary::Minimum
            | Binary::And
            | Binary::Or
            | Binary::Xor
            | Binary::ShiftLeft
            | Binary::ShiftRightLogical
            | Binary::ShiftRightArithmetic => undefined(),
        },
        Op::Complex if !operand.is_complex() => Ok(Kind::Make),
        Op::Compare => match instr.attrs.comparison_direction {
            Some(ComparisonDirection::Eq) => Ok(Kind::Equal),
            Some(ComparisonDirection::Ne) => Ok(Kind::NotEqual),
            _ => Err(Unsupported::new(
                op,
                "complex values have no order (only EQ and NE compare them)",
            )),
        },
        Op::Complex
        | Op::Select
        | Op::Clamp
        | Op::Convert
        | Op::BitcastConvert
        | Op::ReducePrecision
        | Op::Map
        | Op::Other => undefined(),
    }
}

/// `Ok` if `instr`, an elementwise op with complex operands or result
/// (operand 0 of type `operand`), compiles.
pub(super) fn check(instr: &HloInstruction, operand: PrimitiveType) -> Result<(), Unsupported> {
    kind_of(instr, operand).map(|_| ())
}

/// Emits the elementwise op `instr` on complex operands (or building a
/// complex result), lane by lane.
pub(super) fn emit(
    kb: &mut KernelBuilder,
    instr: &HloInstruction,
    tys: &[PrimitiveType],
    args: &[Value],
    lanes: u32,
) -> Result<Value, Unsupported> {
    let out = instr.shape.element_type().expect("an array result");
    let t = tys[0];
    let kind = kind_of(instr, t)?;
    // Kernels computing `c128` run one lane: vectors of several lanes hold
    // `c64` values (or their `f32` components).
    if lanes > 1 && (t == PrimitiveType::C64 || out == PrimitiveType::C64) {
        if let Some(v) = vector_c64(kb, kind, args) {
            return Ok(v);
        }
    }
    if t == PrimitiveType::C128 && out == PrimitiveType::C128 {
        if let Some(v) = vector_c128(kb, kind, args) {
            return Ok(v);
        }
    }
    let typed: Vec<(Value, PrimitiveType)> =
        args.iter().copied().zip(tys.iter().copied()).collect();
    Ok(per_lane(kb, lanes, &typed, out, |kb, s| {
        scalar(kb, kind, t, out, s)
    }))
}

/// `a + b` on complex register values (a recognized sum reducer).
pub(super) fn add(
    kb: &mut KernelBuilder,
    ty: PrimitiveType,
    a: Value,
    b: Value,
    lanes: u32,
) -> Value {
    let vector = if ty == PrimitiveType::C128 {
        vector_c128(kb, Kind::Add, &[a, b])
    } else if lanes > 1 {
        vector_c64(kb, Kind::Add, &[a, b])
    } else {
        None
    };
    vector.unwrap_or_else(|| scalar(kb, Kind::Add, ty, ty, &[a, b]))
}

/// `kind` on one `c128` value as the `f64x2` `[re, im]` (the `i128`
/// reinterpreted), for add, subtract, negate and multiply; `None` for the
/// other ops. The same operations in the same order as [`scalar`].
fn vector_c128(kb: &mut KernelBuilder, kind: Kind, args: &[Value]) -> Option<Value> {
    let v = componentwise(kb, kind, args, types::F64X2)?;
    Some(kb.bitcast(types::I128, v))
}

/// Add, subtract, negate and multiply of complex values laid out as the
/// float vector `f` of `[re, im, …]` pairs (`f64x2`: one `c128`; `f32x4`:
/// two `c64`), as IEEE operations in the order of [`scalar`] (`x − y` as
/// `x + (−y)`, which is exact); `None` for the other ops.
fn componentwise(kb: &mut KernelBuilder, kind: Kind, args: &[Value], f: Type) -> Option<Value> {
    let lanes = f.lane_count() as u8;
    let as_f = |kb: &mut KernelBuilder, v: Value| kb.bitcast(f, v);
    let v = match kind {
        Kind::Add | Kind::Subtract => {
            let (a, b) = (as_f(kb, args[0]), as_f(kb, args[1]));
            if kind == Kind::Add {
                kb.b.ins().fadd(a, b)
            } else {
                kb.b.ins().fsub(a, b)
            }
        }
        Kind::Negate => {
            let a = as_f(kb, args[0]);
            kb.b.ins().fneg(a)
        }
        Kind::Multiply => {
            // p = [ar·br, ar·bi, …], q = [ai·bi, ai·br, …];
            // result = [p0 − q0, p1 + q1, …].
            let pairs = |lane: fn(u8) -> u8| -> Vec<u8> { (0..lanes).map(lane).collect() };
            let (a, b) = (as_f(kb, args[0]), as_f(kb, args[1]));
            let re = kb.shuffle_bytes(a, a, lane_bytes(f, &pairs(|l| l & !1)));
            let im = kb.shuffle_bytes(a, a, lane_bytes(f, &pairs(|l| l | 1)));
            let swapped = kb.shuffle_bytes(b, b, lane_bytes(f, &pairs(|l| l ^ 1)));
            let (re, im, swapped) = (as_f(kb, re), as_f(kb, im), as_f(kb, swapped));
            let p = kb.b.ins().fmul(re, b);
            let q = kb.b.ins().fmul(im, swapped);
            // The sign bit of every real (even) lane.
            let width = f.lane_bits() as usize / 8;
            let mask: Vec<u8> = (0..lanes as usize)
                .flat_map(|l| {
                    let mut lane = vec![0u8; width];
                    if l % 2 == 0 {
                        lane[width - 1] = 0x80;
                    }
                    lane
                })
                .collect();
            let int = f.as_int();
            let mask = kb.vconst(int, mask);
            let q = kb.bitcast(int, q);
            let q = kb.b.ins().bxor(q, mask);
            let q = as_f(kb, q);
            kb.b.ins().fadd(p, q)
        }
        Kind::Real | Kind::Imag | Kind::Make | Kind::Equal | Kind::NotEqual | Kind::Host(_) => {
            return None
        }
    };
    Some(v)
}

/// The byte mask for `shuffle_bytes(a, b)` that picks, for each lane of the
/// vector type `f`, lane `lanes[j]` (lanes of `b` follow those of `a`).
fn lane_bytes(f: Type, lanes: &[u8]) -> [u8; 16] {
    let width = (f.lane_bits() / 8) as u8;
    let mut m = [0u8; 16];
    for (j, byte) in m.iter_mut().enumerate() {
        *byte = lanes[j / width as usize] * width + j as u8 % width;
    }
    m
}

/// `kind` on two `c64` lanes at once, for the ops that are lane-wise on
/// components: an `i64x2` of `c64` values is the `f32x4`
/// `[re0, im0, re1, im1]`. `None` for the ops computed lane by lane.
/// Results agree bit for bit with [`scalar`]: the same IEEE operations in
/// the same order (`x − y` computed as `x + (−y)`, which is exact).
fn vector_c64(kb: &mut KernelBuilder, kind: Kind, args: &[Value]) -> Option<Value> {
    let f = types::F32X4;
    let pick = |lanes: [u8; 4]| lane_bytes(f, &lanes);
    let as_f = |kb: &mut KernelBuilder, v: Value| kb.bitcast(f, v);
    let v = match kind {
        Kind::Add | Kind::Subtract | Kind::Negate | Kind::Multiply => {
            componentwise(kb, kind, args, f)?
        }
        Kind::Real | Kind::Imag => {
            let first = u8::from(kind == Kind::Imag);
            let r = kb.shuffle_bytes(args[0], args[0], pick([first, first + 2, 0, 0]));
            return Some(as_f(kb, r));
        }
        Kind::Make => kb.shuffle_bytes(args[0], args[1], pick([0, 4, 1, 5])),
        Kind::Equal | Kind::NotEqual => {
            let (a, b) = (as_f(kb, args[0]), as_f(kb, args[1]));
            let (cc, both) = if kind == Kind::Equal {
                (FloatCC::Equal, true)
            } else {
                (FloatCC::NotEqual, false)
            };
            let m = kb.b.ins().fcmp(cc, a, b);
            let other = kb.shuffle_bytes(m, m, pick([1, 0, 3, 2]));
            let other = kb.bitcast(types::I32X4, other);
            let m = if both {
                kb.b.ins().band(m, other)
            } else {
                kb.b.ins().bor(m, other)
            };
            return Some(kb.bitcast(types::I64X2, m));
        }
        Kind::Host(_) => return None,
    };
    Some(kb.bitcast(types::I64X2, v))
}

/// One lane of `kind` on operands of type `t` (complex, or the component
/// type for `complex(re, im)`), giving a value of type `out`.
fn scalar(
    kb: &mut KernelBuilder,
    kind: Kind,
    t: PrimitiveType,
    out: PrimitiveType,
    s: &[Value],
) -> Value {
    match kind {
        Kind::Make => join(kb, out, s[0], s[1]),
        Kind::Real => parts(kb, t, s[0]).0,
        Kind::Imag => parts(kb, t, s[0]).1,
        Kind::Negate => {
            let (ar, ai) = parts(kb, t, s[0]);
            let (re, im) = (kb.b.ins().fneg(ar), kb.b.ins().fneg(ai));
            join(kb, t, re, im)
        }
        Kind::Add | Kind::Subtract => {
            let ((ar, ai), (br, bi)) = (parts(kb, t, s[0]), parts(kb, t, s[1]));
            let (re, im) = if kind == Kind::Add {
                (kb.b.ins().fadd(ar, br), kb.b.ins().fadd(ai, bi))
            } else {
                (kb.b.ins().fsub(ar, br), kb.b.ins().fsub(ai, bi))
            };
            join(kb, t, re, im)
        }
        Kind::Multiply => {
            // (a.re·b.re − a.im·b.im, a.re·b.im + a.im·b.re)
            let ((ar, ai), (br, bi)) = (parts(kb, t, s[0]), parts(kb, t, s[1]));
            let rr = kb.b.ins().fmul(ar, br);
            let ii = kb.b.ins().fmul(ai, bi);
            let re = kb.b.ins().fsub(rr, ii);
            let ri = kb.b.ins().fmul(ar, bi);
            let ir = kb.b.ins().fmul(ai, br);
            let im = kb.b.ins().fadd(ri, ir);
            join(kb, t, re, im)
        }
        Kind::Equal | Kind::NotEqual => {
            let ((ar, ai), (br, bi)) = (parts(kb, t, s[0]), parts(kb, t, s[1]));
            if kind == Kind::Equal {
                let re = kb.b.ins().fcmp(FloatCC::Equal, ar, br);
                let im = kb.b.ins().fcmp(FloatCC::Equal, ai, bi);
                kb.b.ins().band(re, im)
            } else {
                let re = kb.b.ins().fcmp(FloatCC::NotEqual, ar, br);
                let im = kb.b.ins().fcmp(FloatCC::NotEqual, ai, bi);
                kb.b.ins().bor(re, im)
            }
        }
        Kind::Host(op) => {
            let (ar, ai) = parts(kb, t, s[0]);
            let (br, bi) = match s.get(1) {
                Some(&v) => parts(kb, t, v),
                None => (ar, ai),
            };
            let (re, im) = host_call(kb, op, t, s, (ar, ai, br, bi), out.is_complex());
            if out.is_complex() {
                join(kb, t, re, im)
            } else {
                re
            }
        }
    }
}

/// The interpreter's `op` through a host call: the result's components
/// (only the real part is meaningful when `both` is false).
fn host_call(
    kb: &mut KernelBuilder,
    op: Opcode,
    t: PrimitiveType,
    packed: &[Value],
    (ar, ai, br, bi): (Value, Value, Value, Value),
    both: bool,
) -> (Value, Value) {
    let index = Opcode::ALL
        .iter()
        .position(|&o| o == op)
        .expect("every opcode is in the table") as i64;
    let op = kb.int(types::I32, index);
    if t == PrimitiveType::C64 {
        let f = host::complex_c64 as extern "C" fn(u32, u64, u64) -> u64 as usize;
        let b = packed.get(1).copied().unwrap_or(packed[0]);
        let r = kb.call_host(
            f,
            &[types::I32, types::I64, types::I64],
            &[types::I64],
            &[op, packed[0], b],
        )[0];
        return parts(kb, t, r);
    }
    let f = host::complex_c128 as extern "C" fn(u32, u32, f64, f64, f64, f64) -> f64 as usize;
    let params = [
        types::I32,
        types::I32,
        types::F64,
        types::F64,
        types::F64,
        types::F64,
    ];
    let part = |kb: &mut KernelBuilder, p: i64| {
        let p = kb.int(types::I32, p);
        kb.call_host(f, &params, &[types::F64], &[op, p, ar, ai, br, bi])[0]
    };
    let re = part(kb, 0);
    let im = if both { part(kb, 1) } else { re };
    (re, im)
}

/// The components of a scalar complex register value of type `ty`.
fn parts(kb: &mut KernelBuilder, ty: PrimitiveType, v: Value) -> (Value, Value) {
    let (half, float) = halves(ty);
    let lo = kb.b.ins().ireduce(half, v);
    let hi = kb.b.ins().ushr_imm_u(v, i64::from(half.bits()));
    let hi = kb.b.ins().ireduce(half, hi);
    (kb.bitcast(float, lo), kb.bitcast(float, hi))
}

/// The scalar complex register value of type `ty` with components `re`,
/// `im`.
fn join(kb: &mut KernelBuilder, ty: PrimitiveType, re: Value, im: Value) -> Value {
    let (half, _) = halves(ty);
    let whole = super::repr::lane_type(ty);
    let (re, im) = (kb.bitcast(half, re), kb.bitcast(half, im));
    let lo = kb.b.ins().uextend(whole, re);
    let hi = kb.b.ins().uextend(whole, im);
    let hi = kb.b.ins().ishl_imm_u(hi, i64::from(half.bits()));
    kb.b.ins().bor(lo, hi)
}

/// The integer and float types of one component of `ty`.
fn halves(ty: PrimitiveType) -> (types::Type, types::Type) {
    if ty == PrimitiveType::C64 {
        (types::I32, types::F32)
    } else {
        (types::I64, types::F64)
    }
}

/// `convert` with a complex source or target (`docs/semantics.md`, *Convert*): real →
/// `(x, 0)` with `x` converted to the component type; complex → complex
/// by components; complex → real takes the real part.
pub(super) fn convert(
    kb: &mut KernelBuilder,
    from: PrimitiveType,
    to: PrimitiveType,
    x: Value,
    lanes: u32,
) -> Result<Value, Unsupported> {
    if from.is_complex() && to == PrimitiveType::Pred {
        return Err(Unsupported::new(
            Opcode::Convert,
            format!("{} to pred is not a conversion", from.name()),
        ));
    }
    let component = |t: PrimitiveType| {
        if t.is_complex() {
            t.component_type()
        } else {
            t
        }
    };
    let mut failure = None;
    let mut fail = |e| failure = Some(e);
    let v = per_lane(kb, lanes, &[(x, from)], to, |kb, s| {
        let (re, im) = if from.is_complex() {
            parts(kb, from, s[0])
        } else {
            let zero = if component(to) == PrimitiveType::F32 {
                kb.b.ins().f32const(0.0)
            } else {
                kb.b.ins().f64const(0.0)
            };
            (s[0], zero)
        };
        let from_c = component(from);
        let to_c = component(to);
        let mut conv = |kb: &mut KernelBuilder, v: Value, to: PrimitiveType| {
            convert_real(kb, from_c, to, v, 1).unwrap_or_else(|e| {
                fail(e);
                v
            })
        };
        if to.is_complex() {
            let re = conv(kb, re, to_c);
            let im = if from.is_complex() {
                conv(kb, im, to_c)
            } else {
                im
            };
            join(kb, to, re, im)
        } else {
            conv(kb, re, to)
        }
    });
    match failure {
        Some(e) => Err(e),
        None => Ok(v),
    }
}
