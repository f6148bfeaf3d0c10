//! Cranelift plumbing shared by every emitter: the host ISA, a JIT module
//! that owns compiled code, and structured loops.

mod math_kernels;
mod parallel;

use cranelift_codegen::ir::{self, types, Type};
use cranelift_codegen::isa::OwnedTargetIsa;
use cranelift_codegen::settings::{self, Configurable};
use cranelift_frontend::{FunctionBuilder, FunctionBuilderContext};
use cranelift_jit::{JITBuilder, JITModule};
use cranelift_module::{default_libcall_names, FuncId, Linkage, Module};
use std::cell::RefCell;
use std::collections::HashMap;
use std::sync::Mutex;
use std::time::Duration;

pub use math_kernels::{BinaryKernel, MathFloat, UnaryKernel};

use crate::clif::ConstTable;
use crate::disasm;
use crate::wide::Width;
use crate::JitError;

/// Code-generation options.
#[derive(Clone, Debug)]
pub struct CodegenOptions {
    /// Run Cranelift's IR verifier on every function (on in debug builds and
    /// tests; a failure reports the function's CLIF).
    pub verify: bool,
    /// Keep each function's CLIF text for dumps.
    pub keep_clif: bool,
    /// The vector width of the native kernels ([`crate::wide`]) the
    /// fusions they take compile to, instead of Cranelift's 128-bit
    /// vectors; `None`: every kernel is Cranelift's. The default is the
    /// widest the CPU runs ([`crate::wide::native_width`]); a CPU with
    /// AVX-512 also runs the 256-bit kernels, and a width the CPU lacks is
    /// refused by [`Jit::new`].
    pub native: Option<Width>,
}

impl Default for CodegenOptions {
    fn default() -> Self {
        CodegenOptions {
            verify: cfg!(debug_assertions),
            keep_clif: false,
            native: crate::wide::native_width(),
        }
    }
}

/// Cranelift's mid-end optimization level.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum OptLevel {
    /// No mid-end: instructions are lowered in the order they were emitted.
    /// For hand-scheduled kernels: the optimizer's elaboration places pure
    /// instructions at their last use, after every load of a loop body, so a
    /// register-blocked loop (e.g. the GEMM micro-kernel) would spill.
    None,
    /// The e-graph mid-end (GVN, LICM, constant folding, algebraic rewrites).
    Speed,
}

/// The host ISA with every vector extension the CPU has (FMA, AVX, …) enabled.
pub fn host_isa(options: &CodegenOptions) -> Result<OwnedTargetIsa, JitError> {
    host_isa_at(options, OptLevel::Speed)
}

/// [`host_isa`] at a chosen [`OptLevel`]. Built once per process for each
/// verifier setting and level: the CPU's features do not change, and
/// building the ISA (feature detection, settings) is a fixed cost of every
/// compile otherwise.
pub fn host_isa_at(options: &CodegenOptions, level: OptLevel) -> Result<OwnedTargetIsa, JitError> {
    static BUILT: Mutex<Vec<((bool, OptLevel), OwnedTargetIsa)>> = Mutex::new(Vec::new());
    let key = (options.verify, level);
    let mut built = BUILT.lock().unwrap_or_else(|e| e.into_inner());
    if let Some((_, isa)) = built.iter().find(|(k, _)| *k == key) {
        return Ok(isa.clone());
    }
    let isa = build_host_isa(options, level)?;
    built.push((key, isa.clone()));
    Ok(isa)
}

/// Builds the host ISA ([`host_isa_at`] keeps what this returns).
fn build_host_isa(options: &CodegenOptions, level: OptLevel) -> Result<OwnedTargetIsa, JitError> {
    let mut flags = settings::builder();
    let opt_level = match level {
        OptLevel::None => "none",
        OptLevel::Speed => "speed",
    };
    let settings = [
        ("opt_level", opt_level),
        (
            "enable_verifier",
            if options.verify { "true" } else { "false" },
        ),
        ("use_colocated_libcalls", "false"),
        ("is_pic", "false"),
        ("unwind_info", "false"),
    ];
    for (name, value) in settings {
        flags
            .set(name, value)
            .map_err(|e| JitError::Host(format!("cranelift setting {name}={value}: {e}")))?;
    }
    let isa_builder = cranelift_native::builder().map_err(|e| JitError::Host(e.to_string()))?;
    isa_builder
        .finish(settings::Flags::new(flags))
        .map_err(|e| JitError::Host(e.to_string()))
}

/// A JIT module: compiles functions and owns their machine code until dropped.
pub struct Jit {
    module: Option<JITModule>,
    options: CodegenOptions,
    clif: Vec<(String, String)>,
    tables: Vec<Box<[i64]>>,
    constants: Vec<(Box<usize>, Box<[u128]>)>,
    keep_disasm: bool,
    /// Each function's machine code, by name, while `keep_disasm` is on.
    machine_code: Vec<(String, Vec<u8>)>,
    native: Vec<crate::wide::Code>,
    /// Functions built and declared, compiled together by [`Jit::finalize`].
    pending: Vec<parallel::Pending>,
    /// How long Cranelift took for each function finalized so far.
    codegen_times: HashMap<FuncId, Duration>,
}

impl Jit {
    /// A JIT for the host.
    pub fn new(options: CodegenOptions) -> Result<Self, JitError> {
        Self::with_opt_level(options, OptLevel::Speed)
    }

    /// A JIT for the host whose functions compile at `level`.
    pub fn with_opt_level(options: CodegenOptions, level: OptLevel) -> Result<Self, JitError> {
        if let Some(width) = options.native {
            if !crate::wide::cpu_runs(width) {
                return Err(JitError::InvalidConfig(format!(
                    "native kernels of {} bits: this CPU does not run them",
                    width.bytes() * 8
                )));
            }
        }
        let isa = host_isa_at(&options, level)?;
        let module = JITModule::new(JITBuilder::with_isa(isa, default_libcall_names()));
        Ok(Jit {
            module: Some(module),
            options,
            clif: Vec::new(),
            tables: Vec::new(),
            constants: Vec::new(),
            keep_disasm: false,
            machine_code: Vec::new(),
            native: Vec::new(),
            pending: Vec::new(),
            codegen_times: HashMap::new(),
        })
    }

    fn module(&self) -> &JITModule {
        self.module.as_ref().expect("module lives until drop")
    }

    fn module_mut(&mut self) -> &mut JITModule {
        self.module.as_mut().expect("module lives until drop")
    }

    /// The native pointer type.
    pub fn pointer_type(&self) -> Type {
        self.module().target_config().pointer_type()
    }

    /// The target ISA.
    pub fn isa(&self) -> &dyn cranelift_codegen::isa::TargetIsa {
        self.module().isa()
    }

    /// A signature with the host calling convention taking `params` and
    /// returning `returns`.
    pub fn signature(&self, params: &[Type], returns: &[Type]) -> ir::Signature {
        let mut sig = self.module().make_signature();
        sig.params
            .extend(params.iter().map(|&t| ir::AbiParam::new(t)));
        sig.returns
            .extend(returns.iter().map(|&t| ir::AbiParam::new(t)));
        sig
    }

    /// Compiles one function. `build` receives a builder positioned in the
    /// entry block, whose parameters are the signature's; it must emit a
    /// `return` and leave every block sealed (or call `seal_all_blocks`).
    pub fn compile(
        &mut self,
        name: &str,
        signature: ir::Signature,
        build: impl FnOnce(&mut FunctionBuilder<'_>),
    ) -> Result<FuncId, JitError> {
        self.try_compile(name, signature, |b| {
            build(b);
            Ok(())
        })
    }

    /// [`Jit::compile`] for a `build` that can fail part-way (an emitter
    /// meeting something it does not support). On failure the half-built
    /// function is dropped without being declared or handed to Cranelift,
    /// whose optimizer assumes well-formed IR (an empty block makes its
    /// alias analysis panic when the verifier is off), and `build`'s error
    /// is returned.
    pub fn try_compile(
        &mut self,
        name: &str,
        signature: ir::Signature,
        build: impl FnOnce(&mut FunctionBuilder<'_>) -> Result<(), JitError>,
    ) -> Result<FuncId, JitError> {
        let mut fctx = SPARE_BUILDER
            .try_with(|spare| spare.borrow_mut().take())
            .ok()
            .flatten()
            .unwrap_or_default();
        let compiled = self.compile_in(&mut fctx, name, signature, build);
        if compiled.is_err() {
            // The builder context may still hold an abandoned function's
            // blocks and variables.
            fctx = FunctionBuilderContext::new();
        }
        // Ignored when the thread is exiting.
        let _ = SPARE_BUILDER.try_with(|spare| *spare.borrow_mut() = Some(fctx));
        compiled
    }

    /// [`Jit::try_compile`] with the builder context `fctx`.
    fn compile_in(
        &mut self,
        fctx: &mut FunctionBuilderContext,
        name: &str,
        signature: ir::Signature,
        build: impl FnOnce(&mut FunctionBuilder<'_>) -> Result<(), JitError>,
    ) -> Result<FuncId, JitError> {
        let mut func =
            ir::Function::with_name_signature(ir::UserFuncName::default(), signature.clone());
        let frontend_config = self.module().target_config();
        {
            let mut b = FunctionBuilder::new(&mut func, fctx);
            let entry = b.create_block();
            b.append_block_params_for_function_params(entry);
            b.switch_to_block(entry);
            build(&mut b)?;
            b.seal_all_blocks();
            b.finalize(frontend_config);
        }
        let id = self
            .module_mut()
            .declare_function(name, Linkage::Local, &signature)
            .map_err(|e| JitError::Module(e.to_string()))?;
        func.name = ir::UserFuncName::user(0, id.as_u32());
        if self.options.verify {
            if let Err(errors) = cranelift_codegen::verify_function(&func, self.isa()) {
                return Err(JitError::Verifier {
                    function: name.to_string(),
                    report: cranelift_codegen::print_errors::pretty_verifier_error(
                        &func, None, errors,
                    ),
                });
            }
        }
        if self.options.keep_clif {
            self.clif
                .push((name.to_string(), func.display().to_string()));
        }
        self.pending.push(parallel::Pending {
            id,
            name: name.to_string(),
            func,
        });
        Ok(id)
    }

    /// Places machine code built outside Cranelift (a native kernel) in
    /// executable memory owned by this JIT and returns its address; its
    /// listing is kept for dumps like a compiled function's.
    pub fn add_native(&mut self, name: &str, code: &[u8]) -> Result<*const u8, JitError> {
        if self.keep_disasm {
            self.machine_code.push((name.to_string(), code.to_vec()));
        }
        let code = crate::wide::Code::new(code)
            .map_err(|e| JitError::Host(format!("executable memory for {name}: {e}")))?;
        let ptr = code.ptr();
        self.native.push(code);
        if self.options.keep_clif {
            self.clif.push((
                name.to_string(),
                "; native kernel, built without Cranelift (see its machine code)\n".into(),
            ));
        }
        Ok(ptr)
    }

    /// Compiles the functions built since the last call, on every core
    /// (`parallel.rs`), and makes every function callable.
    pub fn finalize(&mut self) -> Result<(), JitError> {
        let pending = std::mem::take(&mut self.pending);
        for compiled in parallel::compile_all(self.module().isa(), pending) {
            let code = compiled.map_err(JitError::Module)?;
            self.module_mut()
                .define_function_bytes(code.id, code.alignment, &code.bytes, &code.relocs)
                .map_err(|e| JitError::Module(format!("{}: {e:?}", code.name)))?;
            self.codegen_times.insert(code.id, code.time);
            if self.keep_disasm {
                self.machine_code.push((code.name, code.bytes));
            }
        }
        self.module_mut()
            .finalize_definitions()
            .map_err(|e| JitError::Module(e.to_string()))
    }

    /// How long Cranelift took to compile function `id` (zero before
    /// [`Jit::finalize`] compiled it).
    pub fn codegen_time(&self, id: FuncId) -> Duration {
        self.codegen_times.get(&id).copied().unwrap_or_default()
    }

    /// The address of a compiled function (after [`Jit::finalize`]).
    pub fn function_ptr(&self, id: FuncId) -> *const u8 {
        self.module().get_finalized_function(id)
    }

    /// The CLIF of every function compiled with `keep_clif`, by name.
    pub fn clif(&self) -> &[(String, String)] {
        &self.clif
    }

    /// The options this JIT compiles with.
    pub fn options(&self) -> &CodegenOptions {
        &self.options
    }

    /// Keeps `table` alive as long as this JIT (and so its code) and returns
    /// its address, for kernels that read constant tables (the offset
    /// tables of tiled layouts).
    pub fn keep_table(&mut self, table: Vec<i64>) -> usize {
        let table = table.into_boxed_slice();
        let address = table.as_ptr() as usize;
        self.tables.push(table);
        address
    }

    /// Keeps the vector constants of a compiled function alive as long as
    /// this JIT (and so its code), and points the function at them.
    pub fn keep_constants(&mut self, table: ConstTable) {
        self.constants.push(table.into_memory());
    }

    /// Keeps the machine code listing ([`disasm::listing`]) of every
    /// function compiled from now on, for checking what a hot loop compiled
    /// to.
    pub fn keep_disasm(&mut self, on: bool) {
        self.keep_disasm = on;
    }

    /// The machine code listing of every function compiled while
    /// [`Jit::keep_disasm`] was on, by name.
    pub fn disasm(&self) -> Vec<(String, String)> {
        self.machine_code
            .iter()
            .map(|(name, code)| (name.clone(), disasm::listing(code)))
            .collect()
    }

    /// The machine code of every function compiled while
    /// [`Jit::keep_disasm`] was on, by name (Cranelift's before its
    /// relocations are applied: calls and addresses of other functions
    /// read as zeros).
    pub fn machine_code(&self) -> &[(String, Vec<u8>)] {
        &self.machine_code
    }
}

impl Drop for Jit {
    fn drop(&mut self) {
        if let Some(module) = self.module.take() {
            // SAFETY: the code's owner is being dropped; executables keep their
            // `Jit` alive for as long as they hand out function pointers.
            unsafe { module.free_memory() };
        }
    }
}

thread_local! {
    /// The builder context of the thread's last function: it keeps its
    /// allocations from one function to the next, for every [`Jit`] of the
    /// thread (the compiling threads keep theirs, `parallel.rs`).
    static SPARE_BUILDER: RefCell<Option<FunctionBuilderContext>> = const { RefCell::new(None) };
}

/// Integer type of the same width as `ty` (lane-wise for vectors).
pub fn int_of(ty: Type) -> Type {
    ty.as_int()
}

/// `true` if `ty` is a float or a vector of floats.
pub fn is_float(ty: Type) -> bool {
    ty.lane_type() == types::F32 || ty.lane_type() == types::F64
}

#[cfg(test)]
mod tests {
    use super::*;
    use cranelift_codegen::ir::InstBuilder;

    /// A build that fails after leaving an empty block behind (what an
    /// emitter that meets an unsupported op part-way does) returns its
    /// error, even with the verifier off, and the JIT still compiles and
    /// runs the next function.
    #[test]
    fn a_failed_build_is_dropped_and_the_jit_stays_usable() {
        let mut jit = Jit::new(CodegenOptions {
            verify: false,
            keep_clif: false,
            ..CodegenOptions::default()
        })
        .unwrap();
        let sig = jit.signature(&[types::I64], &[types::I64]);
        let failed = jit.try_compile("half_built", sig.clone(), |b| {
            let next = b.create_block();
            b.ins().jump(next, &[]);
            b.switch_to_block(next);
            Err(JitError::Host("the emitter gave up".into()))
        });
        assert!(matches!(failed, Err(JitError::Host(m)) if m == "the emitter gave up"));
        let id = jit
            .compile("double", sig, |b| {
                let x = b.block_params(b.current_block().unwrap())[0];
                let twice = b.ins().iadd(x, x);
                b.ins().return_(&[twice]);
            })
            .unwrap();
        jit.finalize().unwrap();
        // SAFETY: compiled above with the signature (i64) -> i64.
        let double: extern "C" fn(i64) -> i64 =
            unsafe { std::mem::transmute(jit.function_ptr(id)) };
        assert_eq!(double(21), 42);
    }
}
