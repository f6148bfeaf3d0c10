//! Custom-call targets: Rust functions registered under a target name.

use std::collections::HashMap;
use std::fmt;
use std::sync::Arc;

use crate::{Literal, Shape};

/// A custom-call target: gets the operands and the result shape the
/// instruction declares, returns the result (or a message on failure).
pub type CustomCallFn = Arc<dyn Fn(&[&Literal], &Shape) -> Result<Literal, String> + Send + Sync>;

/// The custom-call targets an interpreter can run, by name.
#[derive(Clone, Default)]
pub struct CustomCallRegistry {
    targets: HashMap<String, CustomCallFn>,
}

impl CustomCallRegistry {
    /// Registers `target` under `name`, replacing any earlier one.
    pub fn register(
        &mut self,
        name: impl Into<String>,
        target: impl Fn(&[&Literal], &Shape) -> Result<Literal, String> + Send + Sync + 'static,
    ) -> &mut Self {
        self.targets.insert(name.into(), Arc::new(target));
        self
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
