//! The entry point: a CPU client that compiles modules into executables
//! and caches them.
//!
//! ```
//! use xla_jit::Client;
//! use xla_core::{HloModule, Literal};
//!
//! let module: HloModule = "HloModule m\n\nENTRY e {\n  x = f32[3] parameter(0)\n  \
//!                          ROOT y = f32[3] add(x, x)\n}".parse()?;
//! let client = Client::cpu()?;
//! let executable = client.compile(&module)?;
//! let y = executable.execute(&[&Literal::vector(&[1.0f32, 2.0, 3.0])])?;
//! assert_eq!(y.to_vec::<f32>()?, [2.0, 4.0, 6.0]);
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use xla_core::builder::XlaComputation;
use xla_core::HloModule;

use crate::codegen::{host_isa, CodegenOptions};
use crate::runtime::{compile, CompileOptions, Executable};
use crate::JitError;

/// Executables kept by a client's compile cache; beyond this the least
/// recently used one is dropped.
const CACHE_CAPACITY: usize = 64;

/// What a client can compile: an HLO module, or a builder's computation.
pub trait Computation {
    /// The module to compile.
    fn hlo_module(&self) -> &HloModule;
}

impl Computation for HloModule {
    fn hlo_module(&self) -> &HloModule {
        self
    }
}

impl Computation for XlaComputation {
    fn hlo_module(&self) -> &HloModule {
        self.module()
    }
}

/// The compile cache's key: the module's canonical text (its fingerprint:
/// two modules print the same exactly when they compute the same thing
/// with the same layouts), the CPU features code was generated for, and
/// the options.
#[derive(Clone, PartialEq, Eq, Hash)]
struct CacheKey {
    module_text: String,
    options: CompileOptions,
}

#[derive(Default)]
struct Cache {
    entries: HashMap<CacheKey, (Executable, u64)>,
    clock: u64,
}

struct ClientInner {
    /// The host ISA's name and enabled features (`x86_64 has_avx2 …`).
    cpu_features: String,
    cache: Mutex<Cache>,
}

/// Compiles modules for this CPU with the Cranelift JIT. Clones share one
/// compile cache.
#[derive(Clone)]
pub struct Client {
    inner: Arc<ClientInner>,
}

impl std::fmt::Debug for Client {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Client")
            .field("cpu_features", &self.inner.cpu_features)
            .finish()
    }
}

impl Client {
    /// A client for the host CPU; fails if Cranelift does not support it.
    pub fn cpu() -> Result<Client, JitError> {
        let isa = host_isa(&CodegenOptions::default())?;
        let mut cpu_features = isa.name().to_string();
        for flag in isa.isa_flags() {
            if flag.as_bool() == Some(true) {
                cpu_features.push(' ');
                cpu_features.push_str(flag.name);
            }
        }
        Ok(Client {
            inner: Arc::new(ClientInner {
                cpu_features,
                cache: Mutex::new(Cache::default()),
            }),
        })
    }

    /// The host ISA and the CPU features code is generated for.
    pub fn cpu_features(&self) -> &str {
        &self.inner.cpu_features
    }

    /// Compiles `computation` (an [`HloModule`] or an [`XlaComputation`]),
    /// or returns the cached executable of an identical module.
    pub fn compile<C: Computation + ?Sized>(
        &self,
        computation: &C,
    ) -> Result<Executable, JitError> {
        self.compile_with(computation, &CompileOptions::default())
    }

    /// [`Client::compile`] with options.
    pub fn compile_with<C: Computation + ?Sized>(
        &self,
        computation: &C,
        options: &CompileOptions,
    ) -> Result<Executable, JitError> {
        let module = computation.hlo_module();
        if options.bypass_cache {
            return compile(module, options);
        }
        let key = CacheKey {
            module_text: module.to_string(),
            options: options.clone(),
        };
        if let Some(hit) = self.lookup(&key) {
            return Ok(hit);
        }
        let executable = compile(module, options)?;
        let mut cache = self.inner.cache.lock().unwrap_or_else(|e| e.into_inner());
        cache.clock += 1;
        let now = cache.clock;
        if cache.entries.len() >= CACHE_CAPACITY {
            let oldest = cache
                .entries
                .iter()
                .min_by_key(|(_, (_, used))| *used)
                .map(|(k, _)| k.clone());
            if let Some(oldest) = oldest {
                cache.entries.remove(&oldest);
            }
        }
        cache.entries.insert(key, (executable.clone(), now));
        Ok(executable)
    }

    fn lookup(&self, key: &CacheKey) -> Option<Executable> {
        let mut cache = self.inner.cache.lock().unwrap_or_else(|e| e.into_inner());
        cache.clock += 1;
        let now = cache.clock;
        let (executable, used) = cache.entries.get_mut(key)?;
        *used = now;
        Some(executable.clone())
    }

    /// Number of executables in the compile cache.
    pub fn cached_executables(&self) -> usize {
        let cache = self.inner.cache.lock().unwrap_or_else(|e| e.into_inner());
        cache.entries.len()
    }
}
