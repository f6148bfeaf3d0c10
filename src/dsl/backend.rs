//! The backends `call` runs on: the reference interpreter now; the JIT's
//! `Client` joins when it lands.

use std::sync::Arc;

use xla_core::interp::Interpreter;
use xla_core::{HloModule, Literal, XlaComputation};

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

/// The backend `call` uses when the program does not choose one: the
/// reference interpreter.
pub fn default_backend() -> &'static dyn Backend {
    static DEFAULT: std::sync::OnceLock<Interpreter> = std::sync::OnceLock::new();
    DEFAULT.get_or_init(Interpreter::new)
}
