//! Dense linear algebra on `faer`: the HLO `cholesky` and
//! `triangular-solve`, and the LAPACK custom calls JAX emits on CPU
//! (`lapack_?potrf_ffi`, `?trsm`, `?getrf`, `?geqrf`, `?orgqr`/`?ungqr`,
//! `?syevd`/`?heevd`, `?gesdd`, `?gesvd`), with the reference interpreter's
//! semantics (`xla_core::interp`'s `linalg`, `lapack`, `lapack_qr`,
//! `lapack_eig` and `lapack_svd`).
//!
//! Every routine works on batches of matrices in the two minor dimensions,
//! in the element type (`f32` stays `f32`). The matrices of one routine
//! are all column-major (each matrix contiguous, the batch row-major
//! around them: `{1,2,0}` for rank 3), as JAX lays out its LAPACK calls'
//! operands and results, or all row-major, whichever the instruction's
//! result is declared in; other operands and results arrive through
//! relayout copies ([`LinalgRoutine::layouts`]). faer works on
//! column-major matrices: a routine factors a column-major matrix in place
//! in its result, or a transposed copy of a row-major one, or hands faer a
//! strided view. The matrices of a batch are split over the pool's
//! threads; the steps of a single matrix large enough to gain from it run
//! on faer's own parallelism (the global rayon pool, with as many threads
//! as the pool; thresholds measured per routine).

mod cholesky;
mod eigh;
mod element;
mod helpers;
mod lu;
mod qr;
mod svd;
mod triangular;

use num_complex::Complex;
use xla_core::hlo::{HloInstruction, Opcode, TransposeKind};
use xla_core::interp::backend_config_integer;
use xla_core::{ArrayShape, PrimitiveType, Shape};

use crate::pool::ThreadPool;
use cholesky::Cholesky;
use eigh::Eigh;
use element::Element;
use helpers::matrix_layout;
use lu::Lu;
use qr::{HouseholderProduct, Qr};
use svd::{Svd, SvdMode};
use triangular::TriangularSolve;

/// A linear algebra instruction, planned: what it computes and in which
/// element type.
pub(crate) struct LinalgRoutine {
    op: Op,
    ty: Dtype,
    /// The matrices are column-major (else row-major).
    column_major: bool,
}

/// What is computed.
enum Op {
    /// `cholesky` or `potrf`.
    Cholesky(Cholesky),
    /// `triangular-solve` or `trsm`.
    TriangularSolve(TriangularSolve),
    /// `getrf`.
    Lu(Lu),
    /// `geqrf`.
    Qr(Qr),
    /// `orgqr`/`ungqr`.
    HouseholderProduct(HouseholderProduct),
    /// `syevd`/`heevd`.
    Eigh(Eigh),
    /// `gesdd`, `gesvd`.
    Svd(Svd),
}

impl Op {
    /// Which operands and which result leaves are matrices (the others
    /// are vectors and scalars: pivots, `tau`s, eigenvalues, infos).
    fn matrices(&self) -> (&'static [bool], &'static [bool]) {
        match self {
            Op::Cholesky(op) if op.lapack => (&[true], &[true, false]),
            Op::Cholesky(_) => (&[true], &[true]),
            Op::TriangularSolve(_) => (&[true, true, false], &[true]),
            Op::Lu(_) => (&[true], &[true, false, false]),
            Op::Qr(_) => (&[true], &[true, false]),
            Op::HouseholderProduct(_) => (&[true, false], &[true]),
            Op::Eigh(_) => (&[true], &[true, false, false]),
            Op::Svd(_) => (&[true], &[true, false, true, true, false]),
        }
    }
}

/// The element type of the matrices.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Dtype {
    /// `f32`.
    F32,
    /// `f64`.
    F64,
    /// `c64`.
    C64,
    /// `c128`.
    C128,
}

impl Dtype {
    /// The type of elements of `ty`, if this module computes in it.
    fn of(ty: PrimitiveType) -> Option<Self> {
        match ty {
            PrimitiveType::F32 => Some(Dtype::F32),
            PrimitiveType::F64 => Some(Dtype::F64),
            PrimitiveType::C64 => Some(Dtype::C64),
            PrimitiveType::C128 => Some(Dtype::C128),
            _ => None,
        }
    }

    /// The element type.
    fn primitive(self) -> PrimitiveType {
        match self {
            Dtype::F32 => PrimitiveType::F32,
            Dtype::F64 => PrimitiveType::F64,
            Dtype::C64 => PrimitiveType::C64,
            Dtype::C128 => PrimitiveType::C128,
        }
    }

    /// The type of the real numbers (eigenvalues, singular values).
    fn real(self) -> PrimitiveType {
        match self {
            Dtype::F32 | Dtype::C64 => PrimitiveType::F32,
            Dtype::F64 | Dtype::C128 => PrimitiveType::F64,
        }
    }

    /// `c64` or `c128`.
    fn is_complex(self) -> bool {
        matches!(self, Dtype::C64 | Dtype::C128)
    }

    /// LAPACK's prefix for the type: `s`, `d`, `c` or `z`.
    fn letter(self) -> char {
        match self {
            Dtype::F32 => 's',
            Dtype::F64 => 'd',
            Dtype::C64 => 'c',
            Dtype::C128 => 'z',
        }
    }
}

/// A batch of `[…, rows, cols]` matrices: the leading dimensions, the
/// matrix count and the two minor dimensions.
struct Matrices {
    batch_dims: Vec<i64>,
    count: usize,
    rows: usize,
    cols: usize,
    ty: Dtype,
}

/// What a routine keeps of [`Matrices`]: their count and sizes.
#[derive(Clone, Copy)]
pub(super) struct Batch {
    /// The number of matrices.
    pub count: usize,
    /// Their rows.
    pub m: usize,
    /// Their columns.
    pub n: usize,
}

impl Matrices {
    /// The count and sizes.
    fn batch(&self) -> Batch {
        Batch {
            count: self.count,
            m: self.rows,
            n: self.cols,
        }
    }

    /// The matrices of an operand of rank 2 or more, static dimensions and
    /// a type this module computes in.
    fn of(shape: &Shape) -> Option<Self> {
        let array = shape.as_array()?;
        if array.is_dynamic() {
            return None;
        }
        let ty = Dtype::of(array.element_type())?;
        let [batch_dims @ .., rows, cols] = array.dims() else {
            return None;
        };
        let size = |d: i64| usize::try_from(d).ok();
        let count = batch_dims
            .iter()
            .try_fold(1usize, |acc, &d| acc.checked_mul(size(d)?))?;
        Some(Matrices {
            batch_dims: batch_dims.to_vec(),
            count,
            rows: size(*rows)?,
            cols: size(*cols)?,
            ty,
        })
    }

    /// The shape `[batch…, dims…]` of type `ty`.
    fn shape(&self, ty: PrimitiveType, dims: &[usize]) -> Shape {
        let dims: Vec<i64> = (self.batch_dims.iter().copied())
            .chain(dims.iter().map(|&d| d as i64))
            .collect();
        Shape::Array(ArrayShape::new(ty, dims))
    }

    /// The shape of the `info` results: `s32[batch…]`.
    fn info(&self) -> Shape {
        self.shape(PrimitiveType::S32, &[])
    }
}

/// `Some(())` when the instruction declares `expected` (layouts aside).
fn declares(instr: &HloInstruction, expected: &Shape) -> Option<()> {
    instr.shape.eq_ignoring_layout(expected).then_some(())
}

impl LinalgRoutine {
    /// The routine for `instr` on operands of `operands`' shapes, or
    /// `None` when it is not linear algebra this module computes (another
    /// custom call, another element type, shapes the interpreter rejects).
    pub fn new(instr: &HloInstruction, operands: &[&Shape]) -> Option<Self> {
        let column_major = instr
            .shape
            .array_leaves()
            .first()
            .is_some_and(|a| a.layout_or_default() == matrix_layout(a.rank(), true));
        let mut routine = Self::plan(instr, operands)?;
        routine.column_major = column_major;
        Some(routine)
    }

    /// The routine for `instr`, its matrices row-major.
    fn plan(instr: &HloInstruction, operands: &[&Shape]) -> Option<Self> {
        match instr.opcode {
            Opcode::Cholesky => {
                let [a] = operands else { return None };
                let a = Matrices::of(a)?;
                declares(instr, &a.shape(a.ty.primitive(), &[a.rows, a.cols]))?;
                let lower = instr.attrs.cholesky_lower.unwrap_or(false);
                let op = Cholesky::new(&a, lower, false)?;
                Some(LinalgRoutine {
                    op: Op::Cholesky(op),
                    ty: a.ty,
                    column_major: false,
                })
            }
            Opcode::TriangularSolve => {
                let [a, b] = operands else { return None };
                let options = instr.attrs.triangular_solve?;
                let (a, b) = (Matrices::of(a)?, Matrices::of(b)?);
                declares(instr, &b.shape(b.ty.primitive(), &[b.rows, b.cols]))?;
                let op = TriangularSolve::new(
                    &a,
                    &b,
                    options.left_side,
                    options.lower,
                    options.unit_diagonal,
                    options.transpose_a,
                    false,
                )?;
                Some(LinalgRoutine {
                    op: Op::TriangularSolve(op),
                    ty: a.ty,
                    column_major: false,
                })
            }
            Opcode::CustomCall => Self::lapack(instr, operands),
            _ => None,
        }
    }

    /// A LAPACK custom call: `lapack_{s,d,c,z}{name}_ffi`, the targets the
    /// interpreter registers.
    fn lapack(instr: &HloInstruction, operands: &[&Shape]) -> Option<Self> {
        let target = instr.attrs.custom_call_target.as_deref()?;
        let name = target.strip_prefix("lapack_")?.strip_suffix("_ffi")?;
        let config = instr.attrs.backend_config.as_deref().unwrap_or("");
        let first = Matrices::of(operands.first()?)?;
        let ty = first.ty;
        let mut letters = name.chars();
        if letters.next()? != ty.letter() {
            return None;
        }
        let name = letters.as_str();
        let elem = ty.primitive();
        let op = match (name, operands) {
            ("potrf", [_]) => {
                let lower = lower_triangle(config)?;
                declares(
                    instr,
                    &Shape::tuple(vec![
                        first.shape(elem, &[first.rows, first.cols]),
                        first.info(),
                    ]),
                )?;
                Op::Cholesky(Cholesky::new(&first, lower, true)?)
            }
            ("trsm", [_, b, alpha @ ..]) if alpha.len() <= 1 => {
                let b = Matrices::of(b)?;
                if let [alpha] = alpha {
                    let alpha = alpha.as_array()?;
                    if alpha.element_type() != elem || alpha.element_count() < 1 {
                        return None;
                    }
                }
                declares(instr, &b.shape(b.ty.primitive(), &[b.rows, b.cols]))?;
                let letter = |key| backend_config_integer(config, key);
                let transpose = match letter("trans_x")? {
                    b'N' => TransposeKind::NoTranspose,
                    b'T' => TransposeKind::Transpose,
                    b'C' => TransposeKind::Adjoint,
                    _ => return None,
                };
                Op::TriangularSolve(TriangularSolve::new(
                    &first,
                    &b,
                    letter("side")? == b'L',
                    letter("uplo")? == b'L',
                    letter("diag")? == b'U',
                    transpose,
                    alpha.len() == 1,
                )?)
            }
            ("getrf", [_]) => {
                let k = first.rows.min(first.cols);
                declares(
                    instr,
                    &Shape::tuple(vec![
                        first.shape(elem, &[first.rows, first.cols]),
                        first.shape(PrimitiveType::S32, &[k]),
                        first.info(),
                    ]),
                )?;
                Op::Lu(Lu::new(&first))
            }
            ("geqrf", [_]) => {
                let k = first.rows.min(first.cols);
                declares(
                    instr,
                    &Shape::tuple(vec![
                        first.shape(elem, &[first.rows, first.cols]),
                        first.shape(elem, &[k]),
                    ]),
                )?;
                Op::Qr(Qr::new(&first))
            }
            ("orgqr" | "ungqr", [_, tau]) if (name == "ungqr") == ty.is_complex() => {
                let tau = tau.as_array()?;
                let [tau_batch @ .., k] = tau.dims() else {
                    return None;
                };
                let k = usize::try_from(*k).ok()?;
                if tau.element_type() != elem
                    || tau_batch != first.batch_dims.as_slice()
                    || k > first.cols
                    || first.cols > first.rows
                {
                    return None;
                }
                declares(instr, &first.shape(elem, &[first.rows, first.cols]))?;
                Op::HouseholderProduct(HouseholderProduct::new(&first, k))
            }
            ("syevd" | "heevd", [_]) if (name == "heevd") == ty.is_complex() => {
                let lower = lower_triangle(config)?;
                let vectors = match backend_config_integer(config, "mode")? {
                    b'V' => true,
                    b'N' => false,
                    _ => return None,
                };
                let n = first.rows;
                if first.cols != n {
                    return None;
                }
                declares(
                    instr,
                    &Shape::tuple(vec![
                        first.shape(elem, &[n, n]),
                        first.shape(ty.real(), &[n]),
                        first.info(),
                    ]),
                )?;
                Op::Eigh(Eigh::new(&first, lower, vectors))
            }
            ("gesdd" | "gesvd", [_]) => {
                let mode = match backend_config_integer(config, "mode")? {
                    b'A' => SvdMode::All,
                    b'S' => SvdMode::Reduced,
                    b'N' => SvdMode::None,
                    _ => return None,
                };
                let (m, n) = (first.rows, first.cols);
                let k = m.min(n);
                let leaves = instr.shape.tuple_shapes()?;
                let (u, vt) = match mode {
                    SvdMode::All => (first.shape(elem, &[m, m]), first.shape(elem, &[n, n])),
                    SvdMode::Reduced => (first.shape(elem, &[m, k]), first.shape(elem, &[k, n])),
                    // Shapes JAX declares but never reads: any arrays of
                    // the type.
                    SvdMode::None => {
                        let array = |i: usize| -> Option<Shape> {
                            let a = leaves.get(i)?.as_array()?;
                            (a.element_type() == elem && !a.is_dynamic())
                                .then(|| Shape::Array(a.clone()))
                        };
                        (array(2)?, array(3)?)
                    }
                };
                let u_len = element_count(&u)?;
                let vt_len = element_count(&vt)?;
                declares(
                    instr,
                    &Shape::tuple(vec![
                        first.shape(elem, &[m, n]),
                        first.shape(ty.real(), &[k]),
                        u,
                        vt,
                        first.info(),
                    ]),
                )?;
                let nan_info = if name == "gesdd" { -4 } else { 0 };
                Op::Svd(Svd::new(&first, mode, nan_info, u_len, vt_len))
            }
            _ => return None,
        };
        Some(LinalgRoutine {
            op,
            ty,
            column_major: false,
        })
    }

    /// The operands' and the result's shapes with the layouts the routine
    /// takes: its matrices column-major or row-major, everything else
    /// row-major.
    pub fn layouts(&self, operands: &[&Shape], result: &Shape) -> (Vec<Shape>, Shape) {
        let (operand_matrices, result_matrices) = self.op.matrices();
        let laid_out = |shape: &Shape, matrix: bool| match shape.as_array() {
            Some(array) if matrix => Shape::Array(
                array
                    .clone()
                    .with_layout(matrix_layout(array.rank(), self.column_major)),
            ),
            _ => shape.clone().with_row_major_layouts(),
        };
        let operands = operands
            .iter()
            .zip(operand_matrices)
            .map(|(shape, &matrix)| laid_out(shape, matrix))
            .collect();
        let result = match result {
            Shape::Tuple(leaves) => Shape::Tuple(
                leaves
                    .iter()
                    .zip(result_matrices)
                    .map(|(shape, &matrix)| laid_out(shape, matrix))
                    .collect(),
            ),
            leaf => laid_out(leaf, result_matrices[0]),
        };
        (operands, result)
    }

    /// Computes the results from the operands.
    ///
    /// # Safety
    ///
    /// As [`super::Routine::run`].
    pub unsafe fn run(&self, inputs: &[*const u8], outputs: &[*mut u8], pool: &ThreadPool) {
        // SAFETY: the operand and result leaves of the instruction the
        // routine was planned for, as the caller promises.
        unsafe {
            match self.ty {
                Dtype::F32 => self.run_typed::<f32>(inputs, outputs, pool),
                Dtype::F64 => self.run_typed::<f64>(inputs, outputs, pool),
                Dtype::C64 => self.run_typed::<Complex<f32>>(inputs, outputs, pool),
                Dtype::C128 => self.run_typed::<Complex<f64>>(inputs, outputs, pool),
            }
        }
    }

    /// # Safety
    ///
    /// As [`Self::run`], `T` the element type.
    unsafe fn run_typed<T: Element>(
        &self,
        inputs: &[*const u8],
        outputs: &[*mut u8],
        pool: &ThreadPool,
    ) {
        let column_major = self.column_major;
        // SAFETY: as the caller promises.
        unsafe {
            match &self.op {
                Op::Cholesky(op) => op.run::<T>(inputs, outputs, column_major, pool),
                Op::TriangularSolve(op) => op.run::<T>(inputs, outputs, column_major, pool),
                Op::Lu(op) => op.run::<T>(inputs, outputs, column_major, pool),
                Op::Qr(op) => op.run::<T>(inputs, outputs, column_major, pool),
                Op::HouseholderProduct(op) => op.run::<T>(inputs, outputs, column_major, pool),
                Op::Eigh(op) => op.run::<T>(inputs, outputs, column_major, pool),
                Op::Svd(op) => op.run::<T>(inputs, outputs, column_major, pool),
            }
        }
    }

    /// `getrf f32 [4 × 256×256, column-major]`, for dumps and profiles.
    pub fn describe(&self) -> String {
        let (name, count, rows, cols) = match &self.op {
            Op::Cholesky(op) => (op.name(), op.a.count, op.a.m, op.a.n),
            Op::TriangularSolve(op) => ("triangular-solve", op.count, op.m, op.k),
            Op::Lu(op) => ("getrf", op.a.count, op.a.m, op.a.n),
            Op::Qr(op) => ("geqrf", op.a.count, op.a.m, op.a.n),
            Op::HouseholderProduct(op) => ("orgqr", op.a.count, op.a.m, op.a.n),
            Op::Eigh(op) => ("syevd", op.a.count, op.a.m, op.a.n),
            Op::Svd(op) => ("gesdd", op.a.count, op.a.m, op.a.n),
        };
        let ty = self.ty.primitive().to_string().to_lowercase();
        let order = if self.column_major {
            "column-major"
        } else {
            "row-major"
        };
        format!("{name} {ty} [{count} × {rows}×{cols}, {order}]")
    }
}

/// The number of elements of an array shape.
fn element_count(shape: &Shape) -> Option<usize> {
    usize::try_from(shape.as_array()?.element_count()).ok()
}

/// The `uplo` attribute: `true` for `'L'`, `false` for `'U'`.
fn lower_triangle(config: &str) -> Option<bool> {
    match backend_config_integer(config, "uplo")? {
        b'L' => Some(true),
        b'U' => Some(false),
        _ => None,
    }
}
