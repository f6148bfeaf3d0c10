//! The backends `call` runs on: the JIT's [`Client`] (the default) and the
//! reference interpreter.

use std::hash::{Hash, Hasher};
use std::sync::{Arc, OnceLock};

use xla_core::interp::Interpreter;
use xla_core::{HloModule, Literal, XlaComputation};
use xla_jit::{Client, CompileOptions};

use super::{Backend, DslError, Executable};

/// The reference interpreter runs a computation's module as it is.
impl Backend for Interpreter {
    fn cache_key(&self) -> u64 {
        // Every interpreter runs a module the same way (the `xla!` language
        // makes no custom calls, the only thing interpreters differ in).
        u64::from_le_bytes(*b"interp\0\0")
    }

    fn compile(&self, computation: &XlaComputation) -> Result<Arc<dyn Executable>, DslError> {
        Ok(Arc::new(Interpreted {
            interpreter: self.clone(),
            module: computation.module().clone(),
        }))
    }
}

/// A module and the interpreter that runs it.
struct Interpreted {
    interpreter: Interpreter,
    module: HloModule,
}

impl Executable for Interpreted {
    fn execute(&self, args: &[&Literal]) -> Result<Literal, DslError> {
        self.interpreter
            .run(&self.module, args)
            .map_err(|e| DslError::Backend(Box::new(e)))
    }
}

/// The JIT compiles a computation's module for the host CPU. `call`
/// caches executables per binding itself, so the client's own cache (keyed
/// by the module's printed text) is bypassed rather than filled twice.
impl Backend for Client {
    fn cache_key(&self) -> u64 {
        let mut hasher = std::collections::hash_map::DefaultHasher::new();
        "jit".hash(&mut hasher);
        self.cpu_features().hash(&mut hasher);
        hasher.finish()
    }

    fn compile(&self, computation: &XlaComputation) -> Result<Arc<dyn Executable>, DslError> {
        let options = CompileOptions {
            bypass_cache: true,
            ..CompileOptions::default()
        };
        let executable = self
            .compile_with(computation.module(), &options)
            .map_err(|e| DslError::Backend(Box::new(e)))?;
        Ok(Arc::new(executable))
    }
}

impl Executable for xla_jit::Executable {
    fn execute(&self, args: &[&Literal]) -> Result<Literal, DslError> {
        xla_jit::Executable::execute(self, args).map_err(|e| DslError::Backend(Box::new(e)))
    }
}

/// The backend `call` uses when the program does not choose one: the JIT
/// for the host CPU, or the reference interpreter on a CPU the JIT does not
/// support.
pub fn default_backend() -> &'static dyn Backend {
    static JIT: OnceLock<Option<Client>> = OnceLock::new();
    static INTERPRETER: OnceLock<Interpreter> = OnceLock::new();
    match JIT.get_or_init(|| Client::cpu().ok()) {
        Some(client) => client,
        None => INTERPRETER.get_or_init(Interpreter::new),
    }
}
