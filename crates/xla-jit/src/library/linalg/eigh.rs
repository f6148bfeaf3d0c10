//! `lapack_?syevd_ffi`/`?heevd`: the symmetric (Hermitian) eigenvalue
//! decomposition on faer's (tridiagonalization, then divide and conquer,
//! as LAPACK's `?syevd`).
//!
//! faer reads the lower triangle of a column-major copy: for `uplo = 'L'`
//! the transpose of the row-major matrix; for `'U'` the row-major buffer
//! as it is, `aᵀ` column-major, whose lower triangle is that of `conj(H)`
//! (`H` the Hermitian matrix of the upper triangle): same eigenvalues,
//! conjugate eigenvectors. The imaginary parts of the diagonal are
//! dropped (faer's reduction would read them).
//!
//! Eigenvalues ascend. Each eigenvector is normalized as the interpreter
//! does (its first component of largest modulus real and positive), since
//! LAPACK's choice among the vectors that differ by a factor of modulus 1
//! depends on its whole reduction. A NaN in the read triangle makes every
//! output NaN and `info = N − 1` (the interpreter's rule); should faer not
//! converge, the outputs are NaN and `info` is `N`. Mode `'N'` computes
//! the eigenvalues only; the vectors output (which LAPACK leaves
//! undefined then) holds zeros.

use faer::diag::Diag;
use faer::dyn_stack::{MemBuffer, MemStack};
use faer::linalg::evd::{self_adjoint_evd, self_adjoint_evd_scratch, ComputeEigenvectors};
use faer::{Mat, MatRef, Par};

use super::{column, for_each_batch, normalize_phase, span, transpose, Element, Matrices};
use crate::runtime::pool::ThreadPool;

/// A batch of eigendecompositions of `n × n` Hermitian matrices.
pub(super) struct Eigh {
    pub count: usize,
    pub n: usize,
    lower: bool,
    /// Mode `'V'`: the eigenvectors too.
    vectors: bool,
}

impl Eigh {
    pub fn new(a: &Matrices, lower: bool, vectors: bool) -> Self {
        Eigh {
            count: a.count,
            n: a.rows,
            lower,
            vectors,
        }
    }

    /// # Safety
    ///
    /// `inputs[0]` holds the matrices; `outputs` are the eigenvectors, the
    /// eigenvalues (of the real type) and the `s32` infos; all row-major.
    pub unsafe fn run<T: Element>(
        &self,
        inputs: &[*const u8],
        outputs: &[*mut u8],
        pool: &ThreadPool,
    ) {
        let n = self.n;
        let size = n * n;
        let a = span::<T>(inputs[0], self.count * size);
        let vectors = span::<T>(outputs[0], self.count * size);
        let w = span::<T::Real>(outputs[1], self.count * n);
        let info = span::<i32>(outputs[2], self.count);
        let compute = if self.vectors {
            ComputeEigenvectors::Yes
        } else {
            ComputeEigenvectors::No
        };
        for_each_batch(pool, self.count, size * n, |matrices, par| {
            let mut workspace = Workspace {
                copy: vec![T::zero(); size],
                vectors: Mat::<T>::zeros(n, if self.vectors { n } else { 0 }),
                memory: MemBuffer::new(self_adjoint_evd_scratch::<T>(
                    n,
                    compute,
                    par,
                    Default::default(),
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
                info[0] = self.decompose(a, vectors, w, &mut workspace, par);
            }
        });
    }

    /// One matrix: writes its vectors and values, returns `info`.
    fn decompose<T: Element>(
        &self,
        a: &[T],
        vectors: &mut [T],
        w: &mut [T::Real],
        workspace: &mut Workspace<T>,
        par: Par,
    ) -> i32 {
        let n = self.n;
        if n == 0 {
            return 0;
        }
        let read = |i: usize, j: usize| (i > j) == self.lower || i == j;
        let nan = (0..n * n).any(|e| read(e / n, e % n) && a[e].has_nan());
        let Workspace {
            copy,
            vectors: u,
            memory,
        } = workspace;
        if self.lower {
            transpose(a, n, n, copy);
        } else {
            copy.copy_from_slice(a);
        }
        for i in 0..n {
            copy[i * n + i] = T::real(copy[i * n + i].re());
        }
        let mut s = Diag::<T>::zeros(n);
        let converged = !nan
            && self_adjoint_evd(
                MatRef::from_column_major_slice(copy, n, n),
                s.as_mut(),
                self.vectors.then(|| u.as_mut()),
                par,
                MemStack::new(memory),
                Default::default(),
            )
            .is_ok();
        if !converged {
            vectors.fill(T::nan());
            w.fill(T::nan().re());
            return if nan { n as i32 - 1 } else { n as i32 };
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
                vectors[i * n + j] = v;
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
