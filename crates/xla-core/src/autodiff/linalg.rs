//! Gradients of dense linear algebra: `triangular-solve`, `cholesky`, and
//! the LAPACK custom calls JAX emits on CPU for them, for LU and for the
//! symmetric eigendecomposition, for the singular value decomposition and
//! for QR
//! (`lapack_?trsm_ffi`, `lapack_?potrf_ffi`, `lapack_?getrf_ffi`,
//! `lapack_?syevd_ffi`, `lapack_?gesdd_ffi`, `lapack_?geqrf_ffi` with
//! `lapack_?orgqr_ffi`: what `jnp.linalg.solve`, `qr`,
//! `inv`, `det`, `slogdet`, `pinv`, `cholesky`, `eigh`, `eigvalsh`, `svd`,
//! `norm(…, 2)` and `jax.scipy.linalg.cho_solve` lower
//! to). Real types; every matrix
//! operand is a batch `[…, M, N]`. The rules are JAX's (the transposes of
//! its `triangular_solve`, `cholesky` and `lu` JVPs).

use super::rules::no_rule;
use super::{Ct, Tape};
use crate::builder::XlaOp;
use crate::hlo::{
    ComparisonDirection, DotDimensionNumbers, HloInstruction, Opcode, TransposeKind,
    TriangularSolveOptions,
};
use crate::interp::{backend_config_integer, trsm_options};
use crate::{ArrayShape, PrimitiveType, Result};

/// Which linear-algebra rule a custom call needs, by its target.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Lapack {
    Trsm,
    Potrf,
    Getrf,
    Syevd,
    Gesdd,
    Geqrf,
    Orgqr,
}

fn lapack(target: &str) -> Option<Lapack> {
    let kind = target.strip_prefix("lapack_")?.strip_suffix("_ffi")?;
    let (prefix, routine) = kind.split_at(1);
    if !matches!(prefix, "s" | "d") {
        return None;
    }
    match routine {
        "trsm" => Some(Lapack::Trsm),
        "potrf" => Some(Lapack::Potrf),
        "getrf" => Some(Lapack::Getrf),
        "syevd" => Some(Lapack::Syevd),
        "gesdd" => Some(Lapack::Gesdd),
        "geqrf" => Some(Lapack::Geqrf),
        "orgqr" => Some(Lapack::Orgqr),
        _ => None,
    }
}

impl Tape<'_> {
    /// `cholesky`, `triangular-solve` and the LAPACK custom calls above
    /// (the result's cotangent `ct` is a tuple for the custom calls).
    pub(super) fn linalg_rule(
        &self,
        instr: &HloInstruction,
        y: XlaOp,
        ct: Ct,
    ) -> Result<Vec<Option<Ct>>> {
        let b = self.b;
        let first =
            |ct: Ct| -> Result<Option<XlaOp>> { Ok(ct.parts(instr)?.into_iter().next().flatten()) };
        let wrap = |ops: Vec<Option<XlaOp>>| ops.into_iter().map(|o| o.map(Ct::Array)).collect();
        match instr.opcode {
            Opcode::TriangularSolve => {
                let options = instr
                    .attrs
                    .triangular_solve
                    .ok_or_else(|| no_rule(instr, "no options"))?;
                let Some(g) = first(ct)? else {
                    return Ok(vec![None, None]);
                };
                let (da, db) =
                    self.solve_vjp(instr, self.operand(instr, 0)?, y, g, options, None)?;
                Ok(wrap(vec![Some(da), Some(db)]))
            }
            Opcode::Cholesky => {
                let lower = instr.attrs.cholesky_lower.unwrap_or(false);
                let Some(g) = first(ct)? else {
                    return Ok(vec![None]);
                };
                Ok(wrap(vec![Some(self.cholesky_vjp(y, g, lower, false)?)]))
            }
            _ => {
                let target = instr
                    .attrs
                    .custom_call_target
                    .as_deref()
                    .unwrap_or_default();
                let config = instr.attrs.backend_config.as_deref().unwrap_or_default();
                let routine = lapack(target).ok_or_else(|| no_rule(instr, "a custom call has no gradient rule (only the real LAPACK trsm, potrf, getrf, syevd, gesdd, geqrf and orgqr calls do)"))?;
                let letter = |key| {
                    backend_config_integer(config, key)
                        .ok_or_else(|| no_rule(instr, "a LAPACK call without its attributes"))
                };
                let n = instr.operands.len();
                let g = first(ct.clone())?;
                let factor = match instr.shape.is_tuple() {
                    true => b.get_tuple_element(y, 0)?,
                    false => y,
                };
                match routine {
                    Lapack::Trsm => {
                        let Some(g) = g else { return Ok(vec![None; n]) };
                        let options = trsm_options(config)
                            .map_err(|_| no_rule(instr, "a LAPACK call without its attributes"))?;
                        let alpha = (instr.operands.len() > 2)
                            .then(|| self.operand(instr, 2))
                            .transpose()?;
                        let (da, db) = self.solve_vjp(
                            instr,
                            self.operand(instr, 0)?,
                            factor,
                            g,
                            options,
                            alpha,
                        )?;
                        let mut out = vec![Some(da), Some(db)];
                        out.resize(n, None);
                        Ok(wrap(out))
                    }
                    Lapack::Potrf => {
                        let Some(g) = g else { return Ok(vec![None; n]) };
                        let lower = letter("uplo")? == b'L';
                        Ok(wrap(vec![Some(self.cholesky_vjp(factor, g, lower, true)?)]))
                    }
                    Lapack::Getrf => {
                        let Some(g) = g else { return Ok(vec![None; n]) };
                        let pivots = b.get_tuple_element(y, 1)?;
                        Ok(wrap(vec![Some(self.lu_vjp(instr, factor, pivots, g)?)]))
                    }
                    Lapack::Syevd => Ok(wrap(vec![Some(self.eigh_vjp(instr, y, ct)?)])),
                    Lapack::Gesdd => Ok(wrap(vec![Some(self.svd_vjp(instr, y, ct)?)])),
                    Lapack::Orgqr => {
                        if let Some(g) = g {
                            self.qr_from_q(instr, y, g)?;
                        }
                        Ok(vec![None; n])
                    }
                    Lapack::Geqrf => {
                        let Some(g) = g else { return Ok(vec![None; n]) };
                        Ok(wrap(vec![Some(self.qr_from_r(instr, y, g)?)]))
                    }
                }
            }
        }
    }

    /// The cotangents `(ā, b̄)` of `x = solve(a, b)` (`op(a)·x = α·b` or
    /// `x·op(a) = α·b`) from `x̄ = g`: `b̄ = α·solve(a, g)` with the
    /// transpose flipped, and `ā` minus the product of `b̄/α` and `x` on
    /// `a`'s triangle (without the diagonal when it is a unit one).
    fn solve_vjp(
        &self,
        instr: &HloInstruction,
        a: XlaOp,
        x: XlaOp,
        g: XlaOp,
        options: TriangularSolveOptions,
        alpha: Option<XlaOp>,
    ) -> Result<(XlaOp, XlaOp)> {
        let b = self.b;
        if options.transpose_a == TransposeKind::Adjoint && self.dims_type(a)?.1.is_complex() {
            return Err(no_rule(instr, "complex values are not differentiated"));
        }
        let flipped = TriangularSolveOptions {
            transpose_a: match options.transpose_a {
                TransposeKind::NoTranspose => TransposeKind::Transpose,
                _ => TransposeKind::NoTranspose,
            },
            ..options
        };
        let gb = b.triangular_solve(a, g, flipped)?;
        let transposed = options.transpose_a != TransposeKind::NoTranspose;
        // The cotangent of op(a): −b̄·xᵀ (left) or −xᵀ·b̄ (right).
        let op_a = match options.left_side {
            true => self.matmul(gb, self.mt(x)?)?,
            false => self.matmul(self.mt(x)?, gb)?,
        };
        let op_a = b.neg(op_a)?;
        let da = if transposed { self.mt(op_a)? } else { op_a };
        let offset = if options.unit_diagonal { 1 } else { 0 };
        let da = self.triangle(da, options.lower, offset)?;
        let db = match alpha {
            Some(alpha) => b.mul(gb, alpha, &[])?,
            None => gb,
        };
        Ok((da, db))
    }

    /// The cotangent of `a` from that of its Cholesky factor (JAX's rule:
    /// `ā = L⁻ᵀ·Φ(Lᵀ·L̄)·L⁻¹`, `Φ` the lower triangle with a halved
    /// diagonal). `passes_other`: the result holds `a`'s other triangle
    /// unchanged (LAPACK's `potrf`), which passes its cotangent through.
    fn cholesky_vjp(
        &self,
        factor: XlaOp,
        g: XlaOp,
        lower: bool,
        passes_other: bool,
    ) -> Result<XlaOp> {
        let b = self.b;
        let (l, gl) = match lower {
            true => (self.triangle(factor, true, 0)?, self.triangle(g, true, 0)?),
            false => (
                self.mt(self.triangle(factor, false, 0)?)?,
                self.mt(self.triangle(g, false, 0)?)?,
            ),
        };
        let phi = self.halved_diagonal(self.triangle(self.matmul(self.mt(l)?, gl)?, true, 0)?)?;
        let solve = |m: XlaOp, left_side: bool| {
            let options = TriangularSolveOptions {
                left_side,
                lower: true,
                unit_diagonal: false,
                transpose_a: if left_side {
                    TransposeKind::Transpose
                } else {
                    TransposeKind::NoTranspose
                },
            };
            b.triangular_solve(l, m, options)
        };
        // L⁻ᵀ·Φ, then ·L⁻¹ (a right solve with L).
        let da = solve(solve(phi, true)?, false)?;
        match passes_other {
            true => b.add(da, self.triangle(g, !lower, 1)?, &[]),
            false => Ok(da),
        }
    }

    /// The cotangent of `a` from that of its LU factorization `lu` (JAX's
    /// rule transposed, square matrices): with `F̄ = tril₋₁(Lᵀ·L̄U) +
    /// triu(L̄U·Uᵀ)`, `ā = Pᵀ·L⁻ᵀ·F̄·U⁻ᵀ`.
    fn lu_vjp(&self, instr: &HloInstruction, lu: XlaOp, pivots: XlaOp, g: XlaOp) -> Result<XlaOp> {
        let b = self.b;
        let (dims, ty) = self.dims_type(lu)?;
        let [.., m, n] = dims[..] else {
            return Err(no_rule(instr, "an LU factorization of a non-matrix"));
        };
        if m != n {
            return Err(no_rule(
                instr,
                "the LU factorization of a non-square matrix has no gradient rule",
            ));
        }
        let eye = self.identity(&dims, ty)?;
        let l = b.add(self.triangle(lu, true, 1)?, eye, &[])?;
        let u = self.triangle(lu, false, 0)?;
        let f = b.add(
            self.triangle(self.matmul(self.mt(l)?, g)?, true, 1)?,
            self.triangle(self.matmul(g, self.mt(u)?)?, false, 0)?,
            &[],
        )?;
        let left = TriangularSolveOptions {
            left_side: true,
            lower: true,
            unit_diagonal: true,
            transpose_a: TransposeKind::Transpose,
        };
        let right = TriangularSolveOptions {
            left_side: false,
            lower: false,
            unit_diagonal: false,
            transpose_a: TransposeKind::Transpose,
        };
        let inner = b.triangular_solve(u, b.triangular_solve(l, f, left)?, right)?;
        let p = self.permutation_matrix(pivots, &dims, ty)?;
        self.matmul(self.mt(p)?, inner)
    }

    /// The cotangent of a symmetric `a` from those of its eigenvectors `V`
    /// and eigenvalues `w` (`lapack_?syevd_ffi`, `(V, w, info)`; JAX's
    /// rule transposed): `ā = V·(diag(w̄) + F∘(Vᵀ·V̄))·Vᵀ`, `Fᵢⱼ = 1/(wⱼ −
    /// wᵢ)` off the diagonal and 0 on it.
    fn eigh_vjp(&self, instr: &HloInstruction, y: XlaOp, ct: Ct) -> Result<XlaOp> {
        let b = self.b;
        let parts = ct.parts(instr)?;
        let part = |k: usize| parts.get(k).copied().flatten();
        let (v, w) = (b.get_tuple_element(y, 0)?, b.get_tuple_element(y, 1)?);
        let (dims, ty) = self.dims_type(v)?;
        let rank = dims.len() as i64;
        let eye = self.identity(&dims, ty)?;
        let batch: Vec<i64> = (0..rank - 2).collect();
        let along = |d: i64| {
            let mut map = batch.clone();
            map.push(d);
            map
        };
        let mut inner = self.full(&ArrayShape::new(ty, dims.clone()), 0.0)?;
        if let Some(dv) = part(0) {
            let wj = b.broadcast_in_dim(w, &dims, &along(rank - 1))?;
            let wi = b.broadcast_in_dim(w, &dims, &along(rank - 2))?;
            let gaps = b.add(eye, b.sub(wj, wi, &[])?, &[])?;
            let f = b.sub(
                b.div(
                    self.full(&ArrayShape::new(ty, dims.clone()), 1.0)?,
                    gaps,
                    &[],
                )?,
                eye,
                &[],
            )?;
            inner = b.mul(f, self.matmul(self.mt(v)?, dv)?, &[])?;
        }
        if let Some(dw) = part(1) {
            let diagonal = b.mul(eye, b.broadcast_in_dim(dw, &dims, &along(rank - 1))?, &[])?;
            inner = b.add(inner, diagonal, &[])?;
        }
        self.matmul(self.matmul(v, inner)?, self.mt(v)?)
    }

    /// The cotangent of `a` from those of its singular value decomposition
    /// (`lapack_?gesdd_ffi`, `(a', s, U, Vᵀ, info)`, the reduced one; JAX's
    /// rule transposed): with `Fᵢⱼ = 1/(sⱼ² − sᵢ²)` off the diagonal,
    /// `Aᵤ = F∘(Uᵀ·Ū)` and `Aᵥ = F∘(Vᵀ·V̄)`,
    /// `ā = U·(diag(s̄) + (Aᵤ + Aᵤᵀ)·diag(s) + diag(s)·(Aᵥ + Aᵥᵀ))·Vᵀ`, plus
    /// `(I − U·Uᵀ)·Ū·diag(1/s)·Vᵀ` for a tall matrix and
    /// `U·diag(1/s)·V̄ᵀ·(I − V·Vᵀ)` for a wide one. The vectors are
    /// recomputed by a reduced decomposition when the call computed values
    /// only (`svd(…, compute_uv=False)`, `norm(…, 2)`).
    fn svd_vjp(&self, instr: &HloInstruction, y: XlaOp, ct: Ct) -> Result<XlaOp> {
        let b = self.b;
        let parts = ct.parts(instr)?;
        let part = |k: usize| parts.get(k).copied().flatten();
        let (ds, du, dvt) = (part(1), part(2), part(3));
        if ds.is_none() && du.is_none() && dvt.is_none() {
            return self.zeros(&self.comp.instr(instr.operands[0]).shape);
        }
        let config = instr.attrs.backend_config.as_deref().unwrap_or_default();
        let parts_shape = instr.shape.tuple_shapes().unwrap_or_default();
        let a = self.operand_shape(instr, 0);
        let [.., m, n] = a.dims()[..] else {
            return Err(no_rule(
                instr,
                "a singular value decomposition of a non-matrix",
            ));
        };
        let k = m.min(n);
        let rank = a.rank();
        let mode = backend_config_integer(config, "mode");
        if mode == Some(b'A') && m != n && (du.is_some() || dvt.is_some()) {
            return Err(no_rule(instr, "the full singular vectors of a non-square matrix have no gradient rule (nor in JAX)"));
        }
        let reduced = |part: usize, rows: i64, cols: i64| -> Result<crate::Shape> {
            let shape = (parts_shape.get(part).and_then(|s| s.as_array()).cloned())
                .ok_or_else(|| no_rule(instr, "an unexpected gesdd result"))?;
            let mut dims = shape.dims().to_vec();
            dims[rank - 2] = rows;
            dims[rank - 1] = cols;
            let layout = shape.layout_or_default();
            Ok(crate::Shape::Array(
                ArrayShape::new(shape.element_type(), dims).with_layout(layout),
            ))
        };
        let vectors = match mode {
            Some(b'S') => y,
            Some(b'A') if m == n => y,
            _ => {
                let mut again = instr.clone();
                again.attrs.backend_config = Some(format!("{{mode = {} : ui8}}", b'S'));
                let mut shapes = parts_shape.to_vec();
                shapes[2] = reduced(2, m, k)?;
                shapes[3] = reduced(3, k, n)?;
                again.shape = crate::Shape::Tuple(shapes);
                b.add_instruction(&again, &[self.operand(instr, 0)?], &[])?
            }
        };
        let s = b.get_tuple_element(y, 1)?;
        let (u, vt) = (
            b.get_tuple_element(vectors, 2)?,
            b.get_tuple_element(vectors, 3)?,
        );
        let (dims, ty) = self.dims_type(u)?;
        let mut square = dims.clone();
        square[rank - 1] = k;
        square[rank - 2] = k;
        let batch: Vec<i64> = (0..rank as i64 - 2).collect();
        let along = |d: i64, to: &[i64]| {
            let mut map = batch.clone();
            map.push(d);
            b.broadcast_in_dim(s, to, &map)
        };
        // s along columns (sⱼ at [i, j]) and along rows (sᵢ).
        let (s_col, s_row) = (
            along(rank as i64 - 1, &square)?,
            along(rank as i64 - 2, &square)?,
        );
        let eye = self.identity(&square, ty)?;
        let mut inner = match ds {
            Some(ds) => {
                let mut map = batch.clone();
                map.push(rank as i64 - 1);
                b.mul(eye, b.broadcast_in_dim(ds, &square, &map)?, &[])?
            }
            None => self.full(&ArrayShape::new(ty, square.clone()), 0.0)?,
        };
        let diffs = b.mul(b.add(s_col, s_row, &[])?, b.sub(s_col, s_row, &[])?, &[])?;
        let one = self.full(&ArrayShape::new(ty, square.clone()), 1.0)?;
        let f = b.sub(b.div(one, b.add(diffs, eye, &[])?, &[])?, eye, &[])?;
        let symmetric = |x: XlaOp| -> Result<XlaOp> { b.add(x, self.mt(x)?, &[]) };
        let v = self.mt(vt)?;
        if let Some(du) = du {
            let au = b.mul(f, self.matmul(self.mt(u)?, du)?, &[])?;
            inner = b.add(inner, b.mul(symmetric(au)?, s_col, &[])?, &[])?;
        }
        let dv = dvt.map(|dvt| self.mt(dvt)).transpose()?;
        if let Some(dv) = dv {
            let av = b.mul(f, self.matmul(self.mt(v)?, dv)?, &[])?;
            inner = b.add(inner, b.mul(s_row, symmetric(av)?, &[])?, &[])?;
        }
        let mut da = self.matmul(self.matmul(u, inner)?, vt)?;
        let per_column = |x: XlaOp, rows: i64| -> Result<XlaOp> {
            let mut to = dims.clone();
            to[rank - 2] = rows;
            b.div(x, along(rank as i64 - 1, &to)?, &[])
        };
        if let (Some(du), true) = (du, m > n) {
            let scaled = per_column(du, m)?;
            let projected = b.sub(
                scaled,
                self.matmul(u, self.matmul(self.mt(u)?, scaled)?)?,
                &[],
            )?;
            da = b.add(da, self.matmul(projected, vt)?, &[])?;
        }
        if let (Some(dv), true) = (dv, n > m) {
            let scaled = self.mt(per_column(dv, n)?)?;
            let projected = b.sub(scaled, self.matmul(self.matmul(scaled, v)?, vt)?, &[])?;
            da = b.add(da, self.matmul(u, projected)?, &[])?;
        }
        Ok(da)
    }

    /// QR's rule for the `Q` of `lapack_?orgqr_ffi(packed, taus)`, whose
    /// `packed` comes from `lapack_?geqrf_ffi(a)`: the share of `ā` that
    /// `Q̄` gives goes straight to `a` (the Householder vectors in between
    /// are only a representation of `Q`).
    fn qr_from_q(&self, instr: &HloInstruction, q: XlaOp, g: XlaOp) -> Result<()> {
        let packed = self.comp.instr(instr.operands[0]);
        let factorization = (packed.opcode == Opcode::GetTupleElement
            && packed.attrs.tuple_index == Some(0))
        .then(|| self.comp.instr(packed.operands[0]))
        .filter(|f| f.attrs.custom_call_target.as_deref().and_then(lapack) == Some(Lapack::Geqrf))
        .ok_or_else(|| {
            no_rule(
                instr,
                "a Householder product of something other than a QR factorization",
            )
        })?;
        let a = factorization.operands[0];
        if !self.active[a.index()] {
            return Ok(());
        }
        let r = self.qr_r(instr, self.operand(instr, 0)?)?;
        let da = self.qr_vjp(q, r, Some(g), None)?;
        self.beyond.borrow_mut().push((a, Ct::Array(da)));
        Ok(())
    }

    /// QR's rule for the `R` in the upper triangle of `lapack_?geqrf_ffi`'s
    /// packed result (cotangent `g`); `Q` is recomputed from the
    /// Householder vectors.
    fn qr_from_r(&self, instr: &HloInstruction, y: XlaOp, g: XlaOp) -> Result<XlaOp> {
        let b = self.b;
        let (packed, taus) = (b.get_tuple_element(y, 0)?, b.get_tuple_element(y, 1)?);
        let target = instr
            .attrs
            .custom_call_target
            .as_deref()
            .unwrap_or_default()
            .replace("geqrf", "orgqr");
        let shape = instr
            .shape
            .tuple_shapes()
            .and_then(|p| p.first())
            .cloned()
            .ok_or_else(|| no_rule(instr, "an unexpected geqrf result"))?;
        let mut product =
            HloInstruction::new("householder_product", Opcode::CustomCall, shape, vec![]);
        product.attrs.custom_call_target = Some(target);
        product.attrs.custom_call_api_version = instr.attrs.custom_call_api_version.clone();
        product.attrs.backend_config = Some("{}".to_string());
        let q = b.add_instruction(&product, &[packed, taus], &[])?;
        let r = self.qr_r(instr, packed)?;
        let dr = self.qr_r(instr, g)?;
        self.qr_vjp(q, r, None, Some(dr))
    }

    /// The upper triangle of the first `N` rows of a `[…, M, N]` packed QR
    /// factorization (`M ≥ N`): its `R`.
    fn qr_r(&self, instr: &HloInstruction, packed: XlaOp) -> Result<XlaOp> {
        let (dims, _) = self.dims_type(packed)?;
        let rank = dims.len();
        let (m, n) = (dims[rank - 2], dims[rank - 1]);
        if m < n {
            return Err(no_rule(
                instr,
                "QR of a matrix with fewer rows than columns has no gradient rule (nor in JAX)",
            ));
        }
        let mut limits = dims.clone();
        limits[rank - 2] = n;
        let top = self
            .b
            .slice(packed, &vec![0; rank], &limits, &vec![1; rank])?;
        self.triangle(top, false, 0)
    }

    /// JAX's QR rule transposed (reduced QR, `M ≥ N`): `ā = (Q̄ + Q·Y)·R⁻ᵀ`
    /// with `Y = tril₋₁(X) − tril₋₁(Xᵀ) − X` and `X = Qᵀ·Q̄ − R̄·Rᵀ`; a
    /// missing cotangent is zero.
    fn qr_vjp(&self, q: XlaOp, r: XlaOp, dq: Option<XlaOp>, dr: Option<XlaOp>) -> Result<XlaOp> {
        let b = self.b;
        let x = match (dq, dr) {
            (Some(dq), Some(dr)) => b.sub(
                self.matmul(self.mt(q)?, dq)?,
                self.matmul(dr, self.mt(r)?)?,
                &[],
            )?,
            (Some(dq), None) => self.matmul(self.mt(q)?, dq)?,
            (None, Some(dr)) => b.neg(self.matmul(dr, self.mt(r)?)?)?,
            (None, None) => {
                return self.full(
                    &ArrayShape::new(self.dims_type(q)?.1, self.dims_type(q)?.0),
                    0.0,
                )
            }
        };
        let lower = self.triangle(x, true, 1)?;
        let upper_t = self.triangle(self.mt(x)?, true, 1)?;
        let y = b.sub(b.sub(lower, upper_t, &[])?, x, &[])?;
        let mut z = self.matmul(q, y)?;
        if let Some(dq) = dq {
            z = b.add(z, dq, &[])?;
        }
        let options = TriangularSolveOptions {
            left_side: false,
            lower: false,
            unit_diagonal: false,
            transpose_a: TransposeKind::Transpose,
        };
        b.triangular_solve(r, z, options)
    }

    /// The permutation matrix `P` (`P·a = L·U`) of LAPACK pivots (`ipiv`,
    /// 1-based: row `j` was swapped with row `ipiv[j] − 1`, in order), for
    /// matrices of dimensions `dims`: a loop applying the swaps to an
    /// `iota`, then one-hot rows.
    fn permutation_matrix(&self, pivots: XlaOp, dims: &[i64], ty: PrimitiveType) -> Result<XlaOp> {
        let b = self.b;
        let rank = dims.len();
        let m = dims[rank - 1];
        let batch = &dims[..rank - 2];
        let mut rows_dims = batch.to_vec();
        rows_dims.push(m);
        let (pivot_dims, _) = self.dims_type(pivots)?;
        let k = *pivot_dims.last().unwrap_or(&0);
        let perm = b.iota(
            &ArrayShape::new(PrimitiveType::S32, rows_dims.clone()),
            rows_dims.len() as i64 - 1,
        )?;
        let body = swaps_body(&rows_dims, &pivot_dims)?;
        let cond = counter_below(&rows_dims, &pivot_dims, k)?;
        let init = b.tuple(&[b.constant_r0(0i32)?, perm, pivots])?;
        let perm = b.get_tuple_element(b.while_loop(&cond, &body, init)?, 1)?;
        let mut wide = rows_dims.clone();
        wide.push(m);
        let lead: Vec<i64> = (0..rows_dims.len() as i64).collect();
        let chosen = b.broadcast_in_dim(perm, &wide, &lead)?;
        let columns = b.iota(
            &ArrayShape::new(PrimitiveType::S32, wide.clone()),
            wide.len() as i64 - 1,
        )?;
        b.convert_element_type(b.eq(chosen, columns, &[])?, ty)
    }

    /// `x` with its last two dimensions swapped.
    fn mt(&self, x: XlaOp) -> Result<XlaOp> {
        let rank = self.dims_type(x)?.0.len() as i64;
        let mut perm: Vec<i64> = (0..rank).collect();
        perm.swap(rank as usize - 2, rank as usize - 1);
        self.b.transpose(x, &perm)
    }

    /// The batched matrix product `x·y`.
    fn matmul(&self, x: XlaOp, y: XlaOp) -> Result<XlaOp> {
        let rank = self.dims_type(x)?.0.len() as i64;
        let batch: Vec<i64> = (0..rank - 2).collect();
        let dims = DotDimensionNumbers {
            lhs_batch: batch.clone(),
            rhs_batch: batch,
            lhs_contracting: vec![rank - 1],
            rhs_contracting: vec![rank - 2],
        };
        self.b.dot_general(x, y, &dims)
    }

    /// The lower (`i ≥ j + offset`) or upper (`j ≥ i + offset`) triangle
    /// of each matrix of `x`, zeros elsewhere.
    fn triangle(&self, x: XlaOp, lower: bool, offset: i64) -> Result<XlaOp> {
        let b = self.b;
        let (dims, ty) = self.dims_type(x)?;
        let rank = dims.len() as i64;
        let index = |d: i64| b.iota(&ArrayShape::new(PrimitiveType::S32, dims.clone()), d);
        let (i, j) = (index(rank - 2)?, index(rank - 1)?);
        let (big, small) = if lower { (i, j) } else { (j, i) };
        let shifted = b.add(small, b.constant_r0(offset as i32)?, &[])?;
        let keep = b.compare(big, shifted, &[], ComparisonDirection::Ge, None)?;
        b.select(keep, x, self.full(&ArrayShape::new(ty, dims), 0.0)?)
    }

    /// `x` with the diagonal of each matrix halved.
    fn halved_diagonal(&self, x: XlaOp) -> Result<XlaOp> {
        let b = self.b;
        let (dims, ty) = self.dims_type(x)?;
        let shape = ArrayShape::new(ty, dims.clone());
        let halves = b.add(self.full(&shape, 1.0)?, self.identity(&dims, ty)?, &[])?;
        b.div(x, halves, &[])
    }

    /// Identity matrices of dimensions `dims`.
    fn identity(&self, dims: &[i64], ty: PrimitiveType) -> Result<XlaOp> {
        let b = self.b;
        let rank = dims.len() as i64;
        let index = |d: i64| b.iota(&ArrayShape::new(PrimitiveType::S32, dims.to_vec()), d);
        b.convert_element_type(b.eq(index(rank - 2)?, index(rank - 1)?, &[])?, ty)
    }
}

/// The pivot loop's carry: `(j, permutation [… , M], pivots [… , K])`.
fn swap_carry(rows: &[i64], pivots: &[i64]) -> crate::Shape {
    crate::Shape::Tuple(vec![
        crate::Shape::scalar(PrimitiveType::S32),
        crate::Shape::array(PrimitiveType::S32, rows.to_vec()),
        crate::Shape::array(PrimitiveType::S32, pivots.to_vec()),
    ])
}

/// `j < k` on the pivot loop's carry.
fn counter_below(rows: &[i64], pivots: &[i64], k: i64) -> Result<crate::XlaComputation> {
    let c = crate::XlaBuilder::new("pivot_condition");
    let p = c.parameter(0, &swap_carry(rows, pivots), "carry")?;
    let j = c.get_tuple_element(p, 0)?;
    let root = c.lt(j, c.constant_r0(k as i32)?, &[])?;
    c.build(root)
}

/// One swap: entries `j` and `ipiv[j] − 1` of each permutation exchange.
fn swaps_body(rows: &[i64], pivots: &[i64]) -> Result<crate::XlaComputation> {
    let c = crate::XlaBuilder::new("pivot_swap");
    let p = c.parameter(0, &swap_carry(rows, pivots), "carry")?;
    let j = c.get_tuple_element(p, 0)?;
    let perm = c.get_tuple_element(p, 1)?;
    let ipiv = c.get_tuple_element(p, 2)?;
    let last = rows.len() as i64 - 1;
    let batch: Vec<i64> = (0..last).collect();
    let zero = c.constant_r0(0i32)?;
    let mut at = vec![zero; batch.len()];
    at.push(j);
    let mut one_row = rows.to_vec();
    *one_row.last_mut().unwrap_or(&mut 0) = 1;
    let target = c.reshape(
        c.dynamic_slice(ipiv, &at, &one_row)?,
        &rows[..rows.len() - 1],
    )?;
    let target = c.sub(target, c.constant_r0(1i32)?, &[])?;
    let position = c.iota(&ArrayShape::new(PrimitiveType::S32, rows.to_vec()), last)?;
    let is_target = c.eq(position, c.broadcast_in_dim(target, rows, &batch)?, &[])?;
    let is_j = c.eq(position, c.broadcast(j, rows)?, &[])?;
    let add = crate::builder::create_scalar_computation("add", PrimitiveType::S32, |b, x, y| {
        b.add(x, y, &[])
    })?;
    let pick = |mask: XlaOp| -> Result<XlaOp> {
        let picked = c.select(mask, perm, c.broadcast(zero, rows)?)?;
        let value = c.reduce(&[picked], &[zero], &add, &[last])?;
        c.broadcast_in_dim(value, rows, &batch)
    };
    let (at_j, at_target) = (pick(is_j)?, pick(is_target)?);
    let swapped = c.select(is_j, at_target, c.select(is_target, at_j, perm)?)?;
    let next = c.add(j, c.constant_r0(1i32)?, &[])?;
    c.build(c.tuple(&[next, swapped, ipiv])?)
}
