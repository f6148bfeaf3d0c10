//! What `xla!` expands to: computations for concrete sizes, composition
//! with hand-written builder code, dimension binding and its errors, and
//! the compile cache (with a backend that counts compilations).

use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Arc;

use xla::dsl::{Executable, Signature};
use xla::prelude::*;

xla! {
    /// Dense layer with ReLU.
    pub fn dense(x: f32[B, K], w: f32[K, N], b: f32[N]) -> f32[B, N] {
        let y = x.dot(w) + b.broadcast_in_dim([B, N], [1]);
        y.max(0.0)
    }

    pub fn softmax(x: f32[B, N]) -> f32[B, N] {
        let m = x.reduce_max([1]);
        let e = (x - m.broadcast_in_dim([B, N], [0])).exp();
        e / e.reduce_sum([1]).broadcast_in_dim([B, N], [0])
    }

    pub fn mlp(x: f32[B, I], w1: f32[I, H], b1: f32[H], w2: f32[H, O], b2: f32[O]) -> f32[B, O] {
        softmax(dense(dense(x, w1, b1), w2, b2))
    }

    pub fn shapes(x: f32[A, B], y: f32[C, B]) -> (f32[A + C, B], f32[A * B], f32[B, A], f32[A - 1, B]) {
        (concat([x, y], 0), x.reshape([A * B]), x.transpose([1, 0]), x.slice([1, 0], [A, B]))
    }

    pub fn sized(x: f32[N, 4], y: s32[N + 1]) -> s32[N + 1] {
        y
    }

    pub fn window(x: f32[N], k: s32[K]) -> f32[K] {
        x.slice([0], [K])
    }
}

fn program_shape(c: &XlaComputation) -> String {
    c.program_shape().to_string()
}

#[test]
fn computations_for_concrete_sizes() {
    let c = softmax::computation(softmax::Dims { B: 4, N: 8 }).unwrap();
    assert_eq!(program_shape(&c), "(f32[4,8]{1,0}) -> f32[4,8]{1,0}");
    let dims = mlp::Dims {
        B: 2,
        I: 3,
        H: 4,
        O: 5,
    };
    let c = mlp::computation(dims).unwrap();
    assert_eq!(
        program_shape(&c),
        "(f32[2,3]{1,0}, f32[3,4]{1,0}, f32[4]{0}, f32[4,5]{1,0}, f32[5]{0}) -> f32[2,5]{1,0}"
    );
    let c = shapes::computation(shapes::Dims { A: 2, B: 3, C: 4 }).unwrap();
    assert_eq!(
        program_shape(&c),
        "(f32[2,3]{1,0}, f32[4,3]{1,0}) -> (f32[6,3]{1,0}, f32[6]{0}, f32[3,2]{1,0}, f32[1,3]{1,0})"
    );
}

#[test]
fn build_composes_with_builder_code() {
    let b = XlaBuilder::new("model");
    let x = b.parameter(0, &"f32[2,3]".parse().unwrap(), "x").unwrap();
    let w = b.parameter(1, &"f32[3,5]".parse().unwrap(), "w").unwrap();
    let bias = b.parameter(2, &"f32[5]".parse().unwrap(), "bias").unwrap();
    let y = dense::build(&b, x, w, bias).unwrap();
    let z = softmax::build(&b, y).unwrap();
    let doubled = b.add(z, z, &[]).unwrap();
    let c = b.build(doubled).unwrap();
    assert_eq!(
        program_shape(&c),
        "(f32[2,3]{1,0}, f32[3,5]{1,0}, f32[5]{0}) -> f32[2,5]{1,0}"
    );
    let err = dense::build(&b, x, x, bias).unwrap_err();
    assert_eq!(
        err.to_string(),
        "dense: dimension K is 3 in argument `x` f32[2,3] (dimension 1), \
         but 2 in argument `w` f32[2,3] (dimension 0)"
    );
}

fn bind(sig: &Signature, shapes: &[&str]) -> Result<Vec<i64>, String> {
    let shapes: Vec<Shape> = shapes.iter().map(|s| s.parse().unwrap()).collect();
    let refs: Vec<&Shape> = shapes.iter().collect();
    sig.bind(&refs).map_err(|e| e.to_string())
}

#[test]
fn binding_names_the_argument_and_dimension() {
    let sig = &dense::SIGNATURE;
    assert_eq!(
        bind(sig, &["f32[2,3]", "f32[3,5]", "f32[5]"]),
        Ok(vec![2, 3, 5])
    );
    assert_eq!(
        bind(sig, &["f32[2,3]", "f32[3,5]", "f32[4]"]),
        Err(
            "dense: dimension N is 5 in argument `w` f32[3,5] (dimension 1), \
             but 4 in argument `b` f32[4] (dimension 0)"
                .to_string()
        )
    );
    assert_eq!(
        bind(sig, &["f32[2,3,1]", "f32[3,5]", "f32[5]"]),
        Err("dense: argument `x` is f32[2,3,1], but its type is f32[B, K]".to_string())
    );
    assert_eq!(
        bind(sig, &["s32[2,3]", "f32[3,5]", "f32[5]"]),
        Err("dense: argument `x` is s32[2,3], but its type is f32[B, K]".to_string())
    );
    assert_eq!(
        bind(sig, &["(f32[2,3])", "f32[3,5]", "f32[5]"]),
        Err("dense: argument `x` must be an array, but is (f32[2,3])".to_string())
    );
    assert_eq!(
        bind(sig, &["f32[2,3]"]),
        Err("dense: expected 3 arguments, got 1".to_string())
    );
    let sig = &sized::SIGNATURE;
    assert_eq!(bind(sig, &["f32[7,4]", "s32[8]"]), Ok(vec![7]));
    assert_eq!(
        bind(sig, &["f32[7,5]", "s32[8]"]),
        Err("sized: dimension 1 of argument `x` f32[7,5] must be 4".to_string())
    );
    assert_eq!(
        bind(sig, &["f32[7,4]", "s32[7]"]),
        Err("sized: dimension 0 of argument `y` s32[7] must be N + 1 = 8".to_string())
    );
}

#[test]
fn checks_undecidable_at_compile_time_run_when_building() {
    // `K ≤ N` is unknown for symbols; the builder checks it for sizes.
    assert!(window::computation(window::Dims { N: 5, K: 3 }).is_ok());
    let err = window::computation(window::Dims { N: 5, K: 7 }).unwrap_err();
    assert_eq!(
        err.to_string(),
        "window: slice: the slice [0:7] of dimension 0 of operand 0 f32[5] does not lie within [0, 5]"
    );
}

/// A backend that counts compilations; its executables return zeros of
/// the result shape.
struct Counting {
    compiles: AtomicUsize,
}

struct Zeros(Shape);

impl Executable for Zeros {
    fn execute(&self, _args: &[&Literal]) -> Result<Literal, DslError> {
        Ok(Literal::zeros(&self.0).map_err(xla::Error::from)?)
    }
}

impl Backend for Counting {
    fn cache_key(&self) -> u64 {
        // One key per instance, so that tests running in parallel do not
        // share executables.
        self as *const Self as u64
    }

    fn compile(&self, computation: &XlaComputation) -> Result<Arc<dyn Executable>, DslError> {
        self.compiles.fetch_add(1, Ordering::SeqCst);
        Ok(Arc::new(Zeros(computation.program_shape().result)))
    }
}

#[test]
fn call_compiles_once_per_binding() {
    let backend = Counting {
        compiles: AtomicUsize::new(0),
    };
    let x = Literal::from_vec(&[2, 3], vec![0f32; 6]).unwrap();
    let y = softmax::call(&backend, &x).unwrap();
    assert_eq!(y.shape().to_string(), "f32[2,3]{1,0}");
    softmax::call(&backend, &x).unwrap();
    assert_eq!(backend.compiles.load(Ordering::SeqCst), 1);
    let x = Literal::from_vec(&[3, 2], vec![0f32; 6]).unwrap();
    softmax::call(&backend, &x).unwrap();
    assert_eq!(backend.compiles.load(Ordering::SeqCst), 2);
    let a = Literal::from_vec(&[2, 3], vec![0f32; 6]).unwrap();
    let c = Literal::from_vec(&[1, 3], vec![0f32; 3]).unwrap();
    let (cat, flat, t, s) = shapes::call(&backend, &a, &c).unwrap();
    assert_eq!(cat.shape().to_string(), "f32[3,3]{1,0}");
    assert_eq!(flat.shape().to_string(), "f32[6]{0}");
    assert_eq!(t.shape().to_string(), "f32[3,2]{1,0}");
    assert_eq!(s.shape().to_string(), "f32[1,3]{1,0}");
    let err = softmax::call(&backend, &Literal::vector(&[1f32])).unwrap_err();
    assert_eq!(
        err.to_string(),
        "softmax: argument `x` is f32[1], but its type is f32[B, N]"
    );
    assert_eq!(backend.compiles.load(Ordering::SeqCst), 3);
}

#[test]
fn concurrent_calls_compile_once() {
    let backend = Counting {
        compiles: AtomicUsize::new(0),
    };
    let x = Literal::from_vec(&[4, 5], vec![0f32; 20]).unwrap();
    std::thread::scope(|s| {
        for _ in 0..8 {
            s.spawn(|| softmax::call(&backend, &x).unwrap());
        }
    });
    assert_eq!(backend.compiles.load(Ordering::SeqCst), 1);
}
