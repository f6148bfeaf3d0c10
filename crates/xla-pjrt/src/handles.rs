//! Every handle the plugin has handed out and not yet taken back, by
//! address and kind. Entry points look a handle up before using it, so a
//! pointer from elsewhere (another backend's buffer, which JAX can pass
//! along; a handle already destroyed; a buffer where an executable is
//! expected) is an `INVALID_ARGUMENT`, not a crash.

use std::collections::HashMap;
use std::sync::{Mutex, MutexGuard, OnceLock};

use crate::error::{Error, Result};

/// What a handle points to.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub enum Kind {
    /// A `Client` (also its topology).
    Client,
    /// A `Device` of a live client.
    Device,
    /// A `Memory` of a live client.
    Memory,
    /// A `DeviceDescription` of a live client.
    Description,
    /// An event.
    Event,
    /// A buffer.
    Buffer,
    /// An unloaded executable.
    Executable,
    /// A loaded executable.
    LoadedExecutable,
    /// Serialized bytes handed out with a deleter.
    Bytes,
    /// An error.
    Error,
}

/// A type the plugin hands out handles to.
pub trait Handle {
    /// The handles' kind.
    const KIND: Kind;
}

fn live() -> MutexGuard<'static, HashMap<usize, Kind>> {
    static LIVE: OnceLock<Mutex<HashMap<usize, Kind>>> = OnceLock::new();
    (LIVE.get_or_init(Default::default).lock()).unwrap_or_else(|e| e.into_inner())
}

/// Hands `value` to the framework as a handle (a leaked box, registered
/// live) it frees with the matching `_Destroy`.
pub fn into_handle<T: Handle, H>(value: T) -> *mut H {
    // A zero-sized box has no address of its own: every such handle would
    // be the same pointer.
    const {
        assert!(
            std::mem::size_of::<T>() > 0,
            "a handle type must not be zero-sized"
        )
    };
    let handle = Box::into_raw(Box::new(value));
    register(handle, T::KIND);
    handle.cast()
}

/// Records that `address` is a live handle of `kind`.
pub fn register<T>(address: *const T, kind: Kind) {
    live().insert(address as usize, kind);
}

/// Forgets `address`; an error if it is not a live handle of `kind`.
pub fn unregister<T>(address: *const T, kind: Kind, what: &str) -> Result<()> {
    let mut live = live();
    match live.get(&(address as usize)) {
        Some(k) if *k == kind => {
            live.remove(&(address as usize));
            Ok(())
        }
        found => Err(mismatch(found.copied(), kind, what)),
    }
}

/// Checks that `address` is a live handle of `kind`.
pub fn check<T>(address: *const T, kind: Kind, what: &str) -> Result<()> {
    match live().get(&(address as usize)) {
        Some(k) if *k == kind => Ok(()),
        found => Err(mismatch(found.copied(), kind, what)),
    }
}

fn mismatch(found: Option<Kind>, kind: Kind, what: &str) -> Error {
    match found {
        None => Error::invalid(format!(
            "{what} is not a live {kind:?} of the xla_rs plugin (from another backend, \
             or already destroyed)"
        )),
        Some(other) => Error::invalid(format!("{what} is a {other:?}, not a {kind:?}")),
    }
}
