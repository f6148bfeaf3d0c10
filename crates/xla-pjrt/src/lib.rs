//! A PJRT plugin: the PJRT C API (`xla/pjrt/c/pjrt_c_api.h` of OpenXLA)
//! over this project's loader and JIT, so that JAX — or any framework that
//! loads PJRT plugins — runs its programs here.
//!
//! The framework `dlopen`s the shared library, calls [`GetPjrtApi`] and
//! talks to the returned function table only. Programs arrive as StableHLO
//! (VHLO bytecode, `format` `mlir`) and go through
//! [`xla_core::load_module`] and the JIT; buffers are arrays in host memory
//! in the row-major layout. Every operation completes before it returns,
//! so events are ready when made. Every entry point catches panics and
//! checks its pointers and struct sizes: bad input is an error status,
//! never an abort of the framework's process. Functions this plugin does
//! not provide answer `UNIMPLEMENTED` with their name.
//!
//! The platform name is `cpu` (JAX lowers for the CPU); JAX registers the
//! plugin under the name `xla_rs` (see `python/`).

pub mod api;
pub mod buffer;
pub mod client;
pub mod error;
pub mod executable;
pub mod ffi;
pub mod handles;
pub mod proto;

/// The plugin's entry point: the PJRT function table.
#[no_mangle]
pub extern "C" fn GetPjrtApi() -> *const ffi::PJRT_Api {
    api::api()
}
