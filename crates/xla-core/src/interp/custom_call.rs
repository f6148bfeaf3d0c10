//! Custom calls (`docs/semantics.md`, *Custom calls*): targets registered under a name, as
//! Rust closures over literals or as C functions with XLA's CPU ABI.
//!
//! The default registry holds the LAPACK targets JAX emits on CPU
//! (`lapack_?potrf_ffi`, `lapack_?trsm_ffi`, `lapack_?getrf_ffi`, see
//! [`super::lapack`]; `lapack_?geqrf_ffi` and `?orgqr`/`?ungqr`, see
//! [`super::lapack_qr`]; `lapack_?syevd_ffi`/`?heevd`, see
//! [`super::lapack_eig`]; `lapack_?gesdd_ffi`, see [`super::lapack_svd`]).
//!
//! ```
//! use xla_core::{interp::Interpreter, HloModule, Literal};
//!
//! /// `z[i][j] = x[1] + y[1][0]`: reads `in[0]` as `float[2]`, `in[1]` as
//! /// `float[2][3]` (row-major), writes `out` as `float[3][3]`.
//! unsafe extern "C" fn myfunc(out: *mut u8, ins: *const *const u8) {
//!     let x = unsafe { std::slice::from_raw_parts(*ins as *const f32, 2) };
//!     let y = unsafe { std::slice::from_raw_parts(*ins.add(1) as *const f32, 6) };
//!     let z = unsafe { std::slice::from_raw_parts_mut(out as *mut f32, 9) };
//!     z.fill(x[1] + y[3]);
//! }
//!
//! let module: HloModule = "HloModule m\n\nENTRY e {\n  x = f32[2] parameter(0)\n  \
//!     y = f32[2,3] parameter(1)\n  \
//!     ROOT z = f32[3,3] custom-call(x, y), custom_call_target=\"myfunc\"\n}".parse()?;
//! let mut interp = Interpreter::new();
//! // SAFETY: myfunc reads f32[2] and f32[2,3] and writes f32[3,3].
//! unsafe { interp.custom_calls_mut().register_extern_c("myfunc", myfunc) };
//! let x = Literal::vector(&[1.0f32, 2.0]);
//! let y = Literal::matrix(&[[10.0f32, 20.0, 30.0], [40.0, 50.0, 60.0]]);
//! let z = interp.run(&module, &[&x, &y])?;
//! assert_eq!(z.get::<f32>(&[0, 0])?, 42.0);
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

use std::collections::HashMap;
use std::fmt;
use std::sync::Arc;

use super::eval::{invalid, with_layouts, Ctx};
use super::{lapack, InterpError};
use crate::hlo::HloInstruction;
use crate::{Layout, Literal, Shape};

/// What a custom-call target is given.
#[derive(Clone, Copy, Debug)]
pub struct CustomCallArgs<'a> {
    /// The target name the instruction calls.
    pub target: &'a str,
    /// The operands' values.
    pub operands: &'a [&'a Literal],
    /// The result shape the instruction declares.
    pub shape: &'a Shape,
    /// `backend_config=…`, verbatim (empty when absent), e.g.
    /// `{uplo = 76 : ui8}` for JAX's FFI targets.
    pub backend_config: &'a str,
    /// `operand_layout_constraints={…}`: the layouts the target reads its
    /// operands in, when the instruction gives them.
    pub operand_layouts: Option<&'a [Shape]>,
}

/// A custom-call target: computes the result from the call's arguments
/// (or fails with a message).
pub type CustomCallFn = Arc<dyn Fn(&CustomCallArgs<'_>) -> Result<Literal, String> + Send + Sync>;

/// The integer of a `key = value : type` entry of a typed-FFI
/// `backend_config` (an MLIR dictionary such as `{diag = 85 : ui8, side =
/// 76 : ui8}`, as JAX writes its LAPACK calls'), or `None` when the
/// dictionary has no such integer entry.
///
/// ```
/// use xla_core::interp::backend_config_integer;
///
/// let config = "{mode = 86 : ui8, uplo = 76 : ui8}";
/// assert_eq!(backend_config_integer(config, "uplo"), Some(b'L'));
/// assert_eq!(backend_config_integer(config, "side"), None);
/// ```
pub fn backend_config_integer(config: &str, key: &str) -> Option<u8> {
    config
        .trim()
        .trim_start_matches('{')
        .trim_end_matches('}')
        .split(',')
        .filter_map(|entry| entry.split_once('='))
        .find(|(k, _)| k.trim() == key)
        .and_then(|(_, v)| v.split(':').next()?.trim().parse().ok())
}

/// XLA:CPU's custom-call ABI: `void target(void* out, const void** in)`.
/// `in[i]` points to operand `i`'s buffer and `out` to the result buffer;
/// a tuple (operand or result) is instead a table of pointers to its
/// elements' buffers.
pub type CustomCallAbiFn = unsafe extern "C" fn(out: *mut u8, ins: *const *const u8);

/// The custom-call targets an interpreter can run, by name.
#[derive(Clone)]
pub struct CustomCallRegistry {
    targets: HashMap<String, CustomCallFn>,
}

impl Default for CustomCallRegistry {
    /// The built-in targets: JAX's CPU LAPACK calls and `dce_sink`.
    fn default() -> Self {
        let mut registry = Self::empty();
        lapack::register(&mut registry);
        // JAX's `dce_sink` (checkify's marker keeping a value alive past
        // dead-code elimination): no effect, an empty result.
        registry.register("dce_sink", |_, shape| {
            Literal::zeros(shape).map_err(|e| e.to_string())
        });
        registry
    }
}

impl CustomCallRegistry {
    /// A registry without any target.
    pub fn empty() -> Self {
        CustomCallRegistry {
            targets: HashMap::new(),
        }
    }

    /// Registers `target` under `name`, replacing any earlier one: it gets
    /// the operands and the declared result shape.
    pub fn register(
        &mut self,
        name: impl Into<String>,
        target: impl Fn(&[&Literal], &Shape) -> Result<Literal, String> + Send + Sync + 'static,
    ) -> &mut Self {
        self.register_with_args(name, move |args| target(args.operands, args.shape))
    }

    /// Registers `target` under `name`, replacing any earlier one: it gets
    /// everything the instruction says ([`CustomCallArgs`]).
    pub fn register_with_args(
        &mut self,
        name: impl Into<String>,
        target: impl Fn(&CustomCallArgs<'_>) -> Result<Literal, String> + Send + Sync + 'static,
    ) -> &mut Self {
        self.targets.insert(name.into(), Arc::new(target));
        self
    }

    /// Registers a C function with XLA:CPU's ABI ([`CustomCallAbiFn`]).
    /// Operand buffers have the layouts of `operand_layout_constraints`
    /// when the instruction gives them, else the default (row-major) one;
    /// the result buffer has the declared shape's layout and starts zeroed.
    ///
    /// # Safety
    ///
    /// Whenever the module calls `name`, `target` must read only the
    /// operand buffers of the instruction's operand shapes, write only the
    /// result buffer of its result shape, and be safe to call from any
    /// thread (multi-device runs call it concurrently).
    pub unsafe fn register_extern_c(
        &mut self,
        name: impl Into<String>,
        target: CustomCallAbiFn,
    ) -> &mut Self {
        self.register_with_args(name, move |args| call_extern_c(target, args))
    }

    /// The target registered under `name`.
    pub fn get(&self, name: &str) -> Option<&CustomCallFn> {
        self.targets.get(name)
    }

    /// The registered names, sorted.
    pub fn names(&self) -> Vec<&str> {
        let mut names: Vec<&str> = self.targets.keys().map(String::as_str).collect();
        names.sort_unstable();
        names
    }
}

impl fmt::Debug for CustomCallRegistry {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_list().entries(self.names()).finish()
    }
}

/// `custom-call(operands…), custom_call_target="…"`: the registered target;
/// its result must have the declared shape and gets the declared layouts.
pub(super) fn custom_call(
    ctx: &mut Ctx<'_>,
    instr: &HloInstruction,
    operands: &[&Literal],
) -> Result<Literal, InterpError> {
    if let Some(topk) = instr.xla_topk_as_topk() {
        return super::sort::topk(&topk, operands);
    }
    let target = instr
        .attrs
        .custom_call_target
        .as_deref()
        .ok_or_else(|| invalid(instr, "needs custom_call_target"))?;
    let function =
        ctx.interp
            .custom_calls()
            .get(target)
            .ok_or_else(|| InterpError::UnknownCustomCall {
                instruction: instr.name.clone(),
                target: target.to_string(),
            })?;
    let args = CustomCallArgs {
        target,
        operands,
        shape: &instr.shape,
        backend_config: instr.attrs.backend_config.as_deref().unwrap_or(""),
        operand_layouts: instr.attrs.operand_layout_constraints.as_deref(),
    };
    let failed = |message: String| InterpError::CustomCallFailed {
        instruction: instr.name.clone(),
        target: target.to_string(),
        message,
    };
    let result = function(&args).map_err(failed)?;
    if !result.shape().eq_ignoring_layout(&instr.shape) {
        return Err(failed(format!(
            "returned a value of shape {}, but the instruction's shape is {}",
            result.shape().clone().without_layouts(),
            instr.shape.clone().without_layouts()
        )));
    }
    with_layouts(result, &instr.shape)
}

/// `value` laid out in `shape`'s layouts (the default layout where it has
/// none), for a C target to read.
fn laid_out(value: &Literal, shape: Option<&Shape>) -> Result<Literal, String> {
    match (value.shape(), shape) {
        (Shape::Array(a), _) => {
            let layout = match shape.and_then(Shape::as_array) {
                Some(s) => s.layout_or_default(),
                None => Layout::default_for_rank(a.rank()),
            };
            value.relayout(&layout).map_err(|e| e.to_string())
        }
        (Shape::Tuple(_), _) => {
            let elements = value.tuple_elements().unwrap_or_default();
            let shapes = shape.and_then(Shape::tuple_shapes);
            Ok(Literal::tuple(
                elements
                    .iter()
                    .enumerate()
                    .map(|(i, e)| laid_out(e, shapes.and_then(|s| s.get(i))))
                    .collect::<Result<_, _>>()?,
            ))
        }
        _ => Ok(value.clone()),
    }
}

/// Pointers to the buffers of an array (itself) or a flat tuple (a table
/// of its elements' buffers, kept alive in `tables`).
fn buffer_pointer(value: &Literal, tables: &mut Vec<Vec<*const u8>>) -> Result<*const u8, String> {
    match value.tuple_elements() {
        None => Ok(value.bytes().map_err(|e| e.to_string())?.as_ptr()),
        Some(elements) => {
            let table = elements
                .iter()
                .map(|e| match e.tuple_elements() {
                    Some(_) => Err("nested tuples are not supported by the C ABI".to_string()),
                    None => Ok(e.bytes().map_err(|e| e.to_string())?.as_ptr()),
                })
                .collect::<Result<Vec<_>, _>>()?;
            tables.push(table);
            Ok(tables.last().expect("just pushed").as_ptr().cast())
        }
    }
}

fn call_extern_c(target: CustomCallAbiFn, args: &CustomCallArgs<'_>) -> Result<Literal, String> {
    let inputs = args
        .operands
        .iter()
        .enumerate()
        .map(|(i, &o)| laid_out(o, args.operand_layouts.and_then(|l| l.get(i))))
        .collect::<Result<Vec<_>, _>>()?;
    let mut tables = Vec::new();
    let ins = inputs
        .iter()
        .map(|v| buffer_pointer(v, &mut tables))
        .collect::<Result<Vec<_>, _>>()?;
    let zeros =
        |s: &Shape| Literal::zeros(&s.clone().with_default_layouts()).map_err(|e| e.to_string());
    match args.shape {
        Shape::Tuple(shapes) => {
            let mut elements = shapes.iter().map(zeros).collect::<Result<Vec<_>, _>>()?;
            let mut table = elements
                .iter_mut()
                .map(|e| Ok(e.bytes_mut().map_err(|e| e.to_string())?.as_mut_ptr()))
                .collect::<Result<Vec<*mut u8>, String>>()?;
            // SAFETY: the registrant promised that the target reads the
            // operand buffers and writes the result buffers of these shapes.
            unsafe { target(table.as_mut_ptr().cast(), ins.as_ptr()) };
            Ok(Literal::tuple(elements))
        }
        shape => {
            let mut out = zeros(shape)?;
            let out_ptr = out.bytes_mut().map_err(|e| e.to_string())?.as_mut_ptr();
            // SAFETY: as above.
            unsafe { target(out_ptr, ins.as_ptr()) };
            Ok(out)
        }
    }
}
