//! `lapack_?syevd_ffi`/`?heevd`: the symmetric (Hermitian) eigenvalue
//! decomposition on faer's (tridiagonalization, then divide and conquer,
//! as LAPACK's `?syevd`).
//!
//! faer reads the lower triangle of a column-major copy: for `uplo = 'L'`
//! that of the matrix; for `'U'` that of its transpose `aᵀ`, which is the
//! lower triangle of `conj(H)` (`H` the Hermitian matrix of the upper
//! triangle): same eigenvalues, conjugate eigenvectors. The imaginary
//! parts of the diagonal are dropped (faer's reduction would read them).
//!
//! Eigenvalues ascend. Each eigenvector is normalized as the interpreter
//! does (its first component of largest modulus real and positive), since
//! LAPACK's choice among the vectors that differ by a factor of modulus 1
//! depends on its whole reduction. A NaN in the read triangle makes every
//! output NaN and `info = N − 1` (the interpreter's rule); an infinity
//! makes them NaN with `info` 0 (as for the SVD; the interpreter's Jacobi
//! sweeps stop at once then and return the diagonal); should faer not
//! converge, the outputs are NaN and `info` is `N`. Mode `'N'` computes
//! the eigenvalues only; the vectors output (which LAPACK leaves
//! undefined then) holds zeros.

use faer::diag::Diag;
use faer::dyn_stack::{MemBuffer, MemStack};
use faer::linalg::evd::{
    self_adjoint_evd, self_adjoint_evd_scratch, ComputeEigenvectors, SelfAdjointEvdParams,
};
use faer::{Mat, MatRef, Par};

use super::element::Element;
use super::helpers::{column, for_each_batch, normalize_phase, offset, parallel, span, transpose};
use super::{Batch, Matrices};
use crate::pool::ThreadPool;

/// The work (`n³`) from which faer's decomposition runs on several
/// threads (`n = 256`: 3.3 ms against 3.5, 3.45 against 3.65 in a
/// program).
const PARALLEL: usize = 256 * 256 * 256;

/// faer's recursion threshold for the divide and conquer of the
/// tridiagonal problem (smaller problems go to the QR algorithm): 64
/// rather than its 128 (`n = 256`: 2.83 ms
/// against 3.40; `n = 64`: 0.187 ms against 0.204 with 32, `n = 1024`
/// alike; Emerald Rapids, `xla bench`).
const DIVIDE_BELOW: usize = 64;

/// faer's parameters, with [`DIVIDE_BELOW`].
fn params<T: Element>() -> SelfAdjointEvdParams {
    let mut params: SelfAdjointEvdParams = faer::Auto::<T>::auto();
    params.recursion_threshold = DIVIDE_BELOW;
    params
}

/// A batch of eigendecompositions of `n × n` Hermitian matrices.
pub(super) struct Eigh {
    /// The matrices' count and sizes.
    pub a: Batch,
    /// Read the lower triangle (`uplo = 'L'`), else the upper one.
    lower: bool,
    /// Mode `'V'`: the eigenvectors too.
    vectors: bool,
}

impl Eigh {
    /// The decomposition of the square matrices `a`, reading their
    /// `lower` (or upper) triangle, with the eigenvectors or without.
    pub fn new(a: &Matrices, lower: bool, vectors: bool) -> Self {
        Eigh {
            a: a.batch(),
            lower,
            vectors,
        }
    }

    /// # Safety
    ///
    /// `inputs[0]` holds the matrices; `outputs` are the eigenvectors, the
    /// eigenvalues (of the real type) and the `s32` infos; the matrices
    /// column-major if `column_major`, else row-major.
    pub unsafe fn run<T: Element>(
        &self,
        inputs: &[*const u8],
        outputs: &[*mut u8],
        column_major: bool,
        pool: &ThreadPool,
    ) {
        let n = self.a.n;
        let size = n * n;
        let a = span::<T>(inputs[0], self.a.count * size);
        let vectors = span::<T>(outputs[0], self.a.count * size);
        let w = span::<T::Real>(outputs[1], self.a.count * n);
        let info = span::<i32>(outputs[2], self.a.count);
        if n == 0 {
            // SAFETY: the infos, this routine's alone.
            unsafe { info.slice(0, self.a.count).fill(0) };
            return;
        }
        let compute = if self.vectors {
            ComputeEigenvectors::Yes
        } else {
            ComputeEigenvectors::No
        };
        for_each_batch(pool, self.a.count, size * n, |matrices, par| {
            let par = parallel(par, size * n, PARALLEL);
            let mut workspace = Workspace {
                copy: vec![T::zero(); size],
                vectors: Mat::<T>::zeros(n, if self.vectors { n } else { 0 }),
                memory: MemBuffer::new(self_adjoint_evd_scratch::<T>(
                    n,
                    compute,
                    par,
                    params::<T>().into(),
                )),
            };
            for b in matrices {
                // SAFETY: matrix `b` of the operand (read) and of the
                // results (this task's alone).
                let (a, vectors, w, info) = unsafe {
                    (
                        a.slice(b * size, size),
                        vectors.slice(b * size, size),
                        w.slice(b * n, n),
                        info.slice(b, 1),
                    )
                };
                info[0] = self.decompose(a, (vectors, w), column_major, &mut workspace, par);
            }
        });
    }

    /// One matrix: writes its vectors and values, returns `info`.
    fn decompose<T: Element>(
        &self,
        a: &[T],
        (vectors, w): (&mut [T], &mut [T::Real]),
        column_major: bool,
        workspace: &mut Workspace<T>,
        par: Par,
    ) -> i32 {
        let n = self.a.n;
        if n == 0 {
            return 0;
        }
        let at = |i: usize, j: usize| offset(column_major, n, n, i, j);
        // The triangle read, line by line in memory order (columns when
        // column-major): from the diagonal on, or up to it.
        let from_diagonal = column_major == self.lower;
        let (mut nan, mut infinite) = (false, false);
        for line in 0..n {
            let start = line * n;
            let read = if from_diagonal {
                start + line..start + n
            } else {
                start..start + line + 1
            };
            for x in &a[read] {
                nan |= x.has_nan();
                infinite |= !x.finite();
            }
        }
        let Workspace {
            copy,
            vectors: u,
            memory,
        } = workspace;
        if column_major == self.lower {
            copy.copy_from_slice(a);
        } else {
            transpose(a, n, n, copy);
        }
        for i in 0..n {
            copy[i * n + i] = T::real(copy[i * n + i].re());
        }
        let mut s = Diag::<T>::zeros(n);
        let converged = !infinite
            && self_adjoint_evd(
                MatRef::from_column_major_slice(copy, n, n),
                s.as_mut(),
                self.vectors.then(|| u.as_mut()),
                par,
                MemStack::new(memory),
                params::<T>().into(),
            )
            .is_ok();
        if !converged {
            vectors.fill(T::nan());
            w.fill(T::nan().re());
            return match (nan, infinite) {
                (true, _) => n as i32 - 1,
                (false, true) => 0,
                (false, false) => n as i32,
            };
        }
        for (w, s) in w.iter_mut().zip(s.column_vector().iter()) {
            *w = s.re();
        }
        if !self.vectors {
            vectors.fill(T::zero());
            return 0;
        }
        for j in 0..n {
            let x = column(u.as_mut(), j);
            if !self.lower {
                x.iter_mut().for_each(|v| *v = v.conj());
            }
            normalize_phase(x);
            for (i, &v) in x.iter().enumerate() {
                vectors[at(i, j)] = v;
            }
        }
        0
    }
}

/// A task's buffers: the column-major copy of a matrix, its eigenvectors
/// and faer's scratch memory.
struct Workspace<T: Element> {
    copy: Vec<T>,
    vectors: Mat<T>,
    memory: MemBuffer,
}
