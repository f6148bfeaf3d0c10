//! Run-time support of the [`xla!`](crate::xla) macro: the [`Backend`]
//! trait that runs computations, dimension binding, and the process-wide
//! cache of compiled executables.
//!
//! A function `f` defined with `xla!` is called as `f::call(&backend, &x,
//! …)`. The call binds the function's named dimensions from the arguments'
//! shapes ([`Signature::bind`]), builds the computation for that binding
//! once, compiles it once per backend (the cache is keyed by backend,
//! function and binding), and executes it.

mod backend;
#[doc(hidden)]
pub mod rt;

use std::collections::HashMap;
use std::fmt;
use std::sync::{Arc, Mutex, OnceLock, PoisonError};

use xla_core::{Literal, PrimitiveType, Shape, XlaComputation};

pub use backend::default_backend;

/// Something that compiles and runs computations: the reference
/// interpreter, or the JIT.
pub trait Backend: Send + Sync {
    /// Identifies what this backend compiles to: two backends with the same
    /// key compile the same computation to interchangeable executables, so
    /// the cache shares them.
    fn cache_key(&self) -> u64;

    /// Compiles a computation.
    fn compile(&self, computation: &XlaComputation) -> Result<Arc<dyn Executable>, DslError>;
}

/// A compiled computation.
pub trait Executable: Send + Sync {
    /// Runs it on arguments of the parameters' shapes; a tuple result is a
    /// tuple literal.
    fn execute(&self, args: &[&Literal]) -> Result<Literal, DslError>;
}

/// The errors of functions defined with `xla!`: arguments that do not fit
/// the parameter types, and errors of building and running.
///
/// `Debug` prints the message, as `Display` does, so that `unwrap()` and a
/// `main` returning the error show `head: slice: the slice [0:4] …` rather
/// than the nested variants.
pub enum DslError {
    /// An argument that does not fit its parameter's type.
    Argument(Box<ArgumentError>),
    /// An error of building the computation (a check the macro could not
    /// decide for symbolic sizes, such as a slice's limit `K` within `N`,
    /// failed for the actual sizes).
    Core(xla_core::Error),
    /// An error of the backend.
    Backend(Box<dyn std::error::Error + Send + Sync>),
    /// A rule of the function's declared types that only the actual sizes
    /// break: a size used as a value out of its type's range, or a result
    /// whose shape is not the declared one (a `valid` window larger than
    /// its input has 0 positions where the declared `N - 2` is negative).
    Sizes(String),
    /// An error in the body of a function (a `Core` error of one of its
    /// ops, or an error of a function it calls), shown as `function:
    /// error`: `head: slice: the slice [0:4] of dimension 0 …`. Errors of
    /// the function's own arguments are `Argument` errors, which name it
    /// already.
    InFunction {
        /// The function.
        function: &'static str,
        /// The error in its body.
        error: Box<DslError>,
    },
}

impl DslError {
    /// `error`, raised in the body of `function`.
    #[doc(hidden)]
    pub fn in_function(function: &'static str, error: DslError) -> Self {
        DslError::InFunction {
            function,
            error: Box::new(error),
        }
    }
}

/// An argument that does not fit its parameter's type, found when binding
/// a function's dimension names.
#[derive(Debug)]
pub enum ArgumentError {
    /// The wrong number of arguments.
    Count {
        /// The function.
        function: &'static str,
        /// Its parameter count.
        expected: usize,
        /// The argument count.
        actual: usize,
    },
    /// An argument that is not an array.
    NotArray {
        /// The function.
        function: &'static str,
        /// The parameter's name.
        argument: &'static str,
        /// The argument's shape.
        shape: Shape,
    },
    /// An argument of the wrong element type or rank.
    Type {
        /// The function.
        function: &'static str,
        /// The parameter's name.
        argument: &'static str,
        /// The argument's shape.
        shape: Shape,
        /// The parameter's type as written, e.g. `f32[B, N]`.
        declared: &'static str,
    },
    /// Two arguments giving a dimension name different sizes.
    DimConflict {
        /// The function.
        function: &'static str,
        /// The dimension name.
        symbol: &'static str,
        /// The argument that bound it first, its shape and dimension.
        first: (&'static str, Shape, usize),
        /// The size bound first.
        first_size: i64,
        /// The argument that disagrees, its shape and dimension.
        second: (&'static str, Shape, usize),
        /// Its size there.
        second_size: i64,
    },
    /// An argument dimension whose declared size `a * S + b` has no
    /// solution `S ≥ 0`.
    Unsolvable {
        /// The function.
        function: &'static str,
        /// The parameter's name.
        argument: &'static str,
        /// The argument's shape.
        shape: Shape,
        /// The dimension.
        dim: usize,
        /// The declared size as written, `2 * H`.
        declared: &'static str,
        /// The name it was to bind.
        symbol: &'static str,
    },
    /// An argument dimension whose declared size is a constant or an
    /// expression (`N + 1`) that it does not have.
    Size {
        /// The function.
        function: &'static str,
        /// The parameter's name.
        argument: &'static str,
        /// The argument's shape.
        shape: Shape,
        /// The dimension.
        dim: usize,
        /// The declared size as written, if it is an expression (`N + 1`).
        declared: Option<&'static str>,
        /// Its value under the binding.
        expected: i64,
    },
}

/// A shape without layouts, as messages print it.
fn bare(shape: &Shape) -> Shape {
    shape.clone().without_layouts()
}

impl fmt::Display for ArgumentError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ArgumentError::Count {
                function,
                expected,
                actual,
            } => write!(f, "{function}: expected {expected} arguments, got {actual}"),
            ArgumentError::NotArray {
                function,
                argument,
                shape,
            } => write!(
                f,
                "{function}: argument `{argument}` must be an array, but is {}",
                bare(shape)
            ),
            ArgumentError::Type {
                function,
                argument,
                shape,
                declared,
            } => write!(
                f,
                "{function}: argument `{argument}` is {}, but its type is {declared}",
                bare(shape)
            ),
            ArgumentError::DimConflict {
                function,
                symbol,
                first,
                first_size,
                second,
                second_size,
            } => write!(
                f,
                "{function}: dimension {symbol} is {first_size} in argument `{}` {} (dimension {}), \
                 but {second_size} in argument `{}` {} (dimension {})",
                first.0,
                bare(&first.1),
                first.2,
                second.0,
                bare(&second.1),
                second.2
            ),
            ArgumentError::Unsolvable {
                function,
                argument,
                shape,
                dim,
                declared,
                symbol,
            } => {
                let bare = bare(shape);
                let size = bare.as_array().map_or(0, |a| a.dims()[*dim]);
                write!(
                    f,
                    "{function}: dimension {dim} of argument `{argument}` {bare} is {size}, \
                     which is not {declared} for any size {symbol}"
                )
            }
            ArgumentError::Size {
                function,
                argument,
                shape,
                dim,
                declared,
                expected,
            } => {
                let shape = bare(shape);
                match declared {
                    Some(text) => write!(
                        f,
                        "{function}: dimension {dim} of argument `{argument}` {shape} must be {text} = {expected}"
                    ),
                    None => write!(
                        f,
                        "{function}: dimension {dim} of argument `{argument}` {shape} must be {expected}"
                    ),
                }
            }
        }
    }
}

impl fmt::Display for DslError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            DslError::Argument(e) => e.fmt(f),
            DslError::Core(e) => e.fmt(f),
            DslError::Backend(e) => e.fmt(f),
            DslError::Sizes(e) => f.write_str(e),
            DslError::InFunction { function, error } => write!(f, "{function}: {error}"),
        }
    }
}

impl fmt::Debug for DslError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Display::fmt(self, f)
    }
}

impl std::error::Error for DslError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            DslError::Argument(_) | DslError::Sizes(_) => None,
            DslError::Core(e) => Some(e),
            DslError::Backend(e) => Some(&**e),
            DslError::InFunction { error, .. } => Some(&**error),
        }
    }
}

impl From<xla_core::Error> for DslError {
    fn from(e: xla_core::Error) -> Self {
        DslError::Core(e)
    }
}

impl From<ArgumentError> for DslError {
    fn from(e: ArgumentError) -> Self {
        DslError::Argument(Box::new(e))
    }
}

/// A parameter's size as declared.
#[derive(Clone, Copy, Debug)]
pub enum Size {
    /// A constant, `4`.
    Const(i64),
    /// The function's dimension name number `n`, `N`.
    Symbol(usize),
    /// `scale * S + offset` for the name number `symbol`, as written; the
    /// place the name is solved from when it never stands alone.
    Linear {
        /// The name's number.
        symbol: usize,
        /// The factor (not 0).
        scale: i64,
        /// The constant term.
        offset: i64,
        /// The size as written, `2 * H`.
        text: &'static str,
    },
    /// An expression over the dimension names (`N + 1`), as written, and
    /// its value given the sizes of the names.
    Expr(&'static str, fn(&[i64]) -> i64),
}

/// A parameter: its name and type.
#[derive(Clone, Copy, Debug)]
pub struct Param {
    /// The name.
    pub name: &'static str,
    /// The element type.
    pub element_type: PrimitiveType,
    /// The type as written, `f32[B, N]`.
    pub text: &'static str,
    /// The sizes.
    pub dims: &'static [Size],
}

/// A function's parameters, for binding its dimension names.
#[derive(Clone, Copy, Debug)]
pub struct Signature {
    /// The function's name.
    pub function: &'static str,
    /// The dimension names; every one is exactly the size of some
    /// parameter dimension (the macro checks it).
    pub symbols: &'static [&'static str],
    /// The parameters.
    pub params: &'static [Param],
}

impl Signature {
    /// The size of each dimension name, from the argument shapes. Every
    /// argument must be an array of its parameter's element type and rank.
    /// Names standing alone bind first (every occurrence must have one
    /// size), then names solved from a linear size (`2 * H` with size 8
    /// gives `H = 4`); then constant and expression sizes must match.
    pub fn bind(&self, shapes: &[&Shape]) -> Result<Vec<i64>, DslError> {
        let function = self.function;
        if shapes.len() != self.params.len() {
            return Err(ArgumentError::Count {
                function,
                expected: self.params.len(),
                actual: shapes.len(),
            }
            .into());
        }
        let mut bound: Vec<Option<(i64, usize, usize)>> = vec![None; self.symbols.len()];
        for (p, (param, shape)) in self.params.iter().zip(shapes).enumerate() {
            let Some(array) = shape.as_array() else {
                return Err(ArgumentError::NotArray {
                    function,
                    argument: param.name,
                    shape: (*shape).clone(),
                }
                .into());
            };
            if array.element_type() != param.element_type || array.rank() != param.dims.len() {
                return Err(ArgumentError::Type {
                    function,
                    argument: param.name,
                    shape: (*shape).clone(),
                    declared: param.text,
                }
                .into());
            }
            for (d, (size, &actual)) in param.dims.iter().zip(array.dims()).enumerate() {
                match *size {
                    Size::Const(c) if c != actual => {
                        return Err(self.size_mismatch(p, shape, d, None, c).into());
                    }
                    Size::Symbol(s) => match bound[s] {
                        None => bound[s] = Some((actual, p, d)),
                        Some((first, fp, fd)) if first != actual => {
                            return Err(ArgumentError::DimConflict {
                                function,
                                symbol: self.symbols[s],
                                first: (self.params[fp].name, shapes[fp].clone(), fd),
                                first_size: first,
                                second: (param.name, (*shape).clone(), d),
                                second_size: actual,
                            }
                            .into());
                        }
                        Some(_) => {}
                    },
                    Size::Const(_) | Size::Linear { .. } | Size::Expr(..) => {}
                }
            }
        }
        for (p, (param, shape)) in self.params.iter().zip(shapes).enumerate() {
            let array = shape.as_array().expect("checked above");
            for (d, (size, &actual)) in param.dims.iter().zip(array.dims()).enumerate() {
                let Size::Linear {
                    symbol,
                    scale,
                    offset,
                    text,
                } = *size
                else {
                    continue;
                };
                if bound[symbol].is_some() {
                    continue;
                }
                let rest = actual - offset;
                if rest % scale != 0 || rest / scale < 0 {
                    return Err(ArgumentError::Unsolvable {
                        function,
                        argument: param.name,
                        shape: (*shape).clone(),
                        dim: d,
                        declared: text,
                        symbol: self.symbols[symbol],
                    }
                    .into());
                }
                bound[symbol] = Some((rest / scale, p, d));
            }
        }
        let values: Vec<i64> = bound
            .iter()
            .map(|b| b.expect("the macro checks that every name can be bound").0)
            .collect();
        for (p, (param, shape)) in self.params.iter().zip(shapes).enumerate() {
            let array = shape.as_array().expect("checked above");
            for (d, (size, &actual)) in param.dims.iter().zip(array.dims()).enumerate() {
                let (text, expected) = match *size {
                    Size::Expr(text, value) => (text, value(&values)),
                    Size::Linear {
                        symbol,
                        scale,
                        offset,
                        text,
                    } => (text, scale * values[symbol] + offset),
                    Size::Const(_) | Size::Symbol(_) => continue,
                };
                if expected != actual {
                    return Err(self.size_mismatch(p, shape, d, Some(text), expected).into());
                }
            }
        }
        Ok(values)
    }

    fn size_mismatch(
        &self,
        p: usize,
        shape: &Shape,
        dim: usize,
        declared: Option<&'static str>,
        expected: i64,
    ) -> ArgumentError {
        ArgumentError::Size {
            function: self.function,
            argument: self.params[p].name,
            shape: shape.clone(),
            dim,
            declared,
            expected,
        }
    }
}

/// One compiled executable, or none yet.
type Slot = Arc<Mutex<Option<Arc<dyn Executable>>>>;

/// A cache key: the backend's key, the function, the binding.
type Key = (u64, &'static str, Vec<i64>);

/// The process-wide cache of executables.
fn cache() -> &'static Mutex<HashMap<Key, Slot>> {
    static CACHE: OnceLock<Mutex<HashMap<Key, Slot>>> = OnceLock::new();
    CACHE.get_or_init(Default::default)
}

/// The executable of `function` for the binding `dims` on `backend`:
/// compiled from `computation()` the first time, from the cache after.
/// Different bindings compile in parallel; one binding compiles once.
#[doc(hidden)]
pub fn cached<B: Backend + ?Sized>(
    backend: &B,
    function: &'static str,
    dims: &[i64],
    computation: impl FnOnce() -> Result<XlaComputation, DslError>,
) -> Result<Arc<dyn Executable>, DslError> {
    let key = (backend.cache_key(), function, dims.to_vec());
    let slot = cache()
        .lock()
        .unwrap_or_else(PoisonError::into_inner)
        .entry(key)
        .or_default()
        .clone();
    let mut slot = slot.lock().unwrap_or_else(PoisonError::into_inner);
    if let Some(executable) = &*slot {
        return Ok(executable.clone());
    }
    let executable = backend.compile(&computation()?)?;
    *slot = Some(executable.clone());
    Ok(executable)
}
