//! Errors crossing the C boundary, and the guard every entry point runs in.

use std::ffi::c_char;
use std::panic::{catch_unwind, AssertUnwindSafe};

use crate::ffi::*;
use crate::handles::{self, Handle, Kind};

/// An error returned to the framework: a status code and a message.
/// `PJRT_Error*` points at one of these.
#[derive(Clone, Debug)]
pub struct Error {
    code: PJRT_Error_Code,
    message: String,
}

impl Handle for Error {
    const KIND: Kind = Kind::Error;
}

/// What every fallible step of the plugin returns.
pub type Result<T> = std::result::Result<T, Error>;

impl Error {
    /// An error with `code` and `message`.
    pub fn new(code: PJRT_Error_Code, message: impl Into<String>) -> Error {
        Error {
            code,
            message: message.into(),
        }
    }

    /// The caller passed something invalid.
    pub fn invalid(message: impl Into<String>) -> Error {
        Error::new(PJRT_Error_Code_INVALID_ARGUMENT, message)
    }

    /// The call is valid but this plugin does not do it.
    pub fn unimplemented(message: impl Into<String>) -> Error {
        Error::new(PJRT_Error_Code_UNIMPLEMENTED, message)
    }

    /// The status code.
    pub fn code(&self) -> PJRT_Error_Code {
        self.code
    }

    /// The message.
    pub fn message(&self) -> &str {
        &self.message
    }

    /// Hands the error to the framework, which frees it with
    /// `PJRT_Error_Destroy`.
    pub(crate) fn into_raw(self) -> *mut PJRT_Error {
        handles::into_handle(self)
    }
}

/// Runs the body of the entry point `name`: a returned error or a panic
/// becomes a `PJRT_Error*` (never an unwind across the C boundary, which
/// would abort the framework's process), success becomes null.
pub(crate) fn guard(name: &str, body: impl FnOnce() -> Result<()>) -> *mut PJRT_Error {
    match catch_unwind(AssertUnwindSafe(body)) {
        Ok(Ok(())) => std::ptr::null_mut(),
        Ok(Err(e)) => e.into_raw(),
        Err(panic) => {
            let what = (panic.downcast_ref::<&str>().copied())
                .or_else(|| panic.downcast_ref::<String>().map(String::as_str))
                .unwrap_or("a panic");
            Error::new(
                PJRT_Error_Code_INTERNAL,
                format!("{name}: internal error in the xla_rs plugin: {what}"),
            )
            .into_raw()
        }
    }
}

/// The `Args` struct behind `args`, checked for null and for a
/// `struct_size` that covers every field of this plugin's header version
/// (a caller built against an older header than the plugin's is refused
/// rather than read past its struct's end).
pub(crate) fn args<'a, T: StructSize>(args: *mut T, name: &str) -> Result<&'a mut T> {
    // SAFETY: the framework passes a valid, exclusive `Args*` for the call;
    // null is checked, and the size check below rejects a struct shorter
    // than the fields read.
    let args = unsafe { args.as_mut() }
        .ok_or_else(|| Error::invalid(format!("{name}: the arguments pointer is null")))?;
    // SAFETY: every `Args` struct starts with `size_t struct_size`.
    let size = unsafe { *std::ptr::from_mut(args).cast::<usize>() };
    if size < T::STRUCT_SIZE {
        return Err(Error::invalid(format!(
            "{name}: struct_size {size} is smaller than {} (the caller's PJRT C API \
             is older than the plugin's {PJRT_API_MAJOR}.{PJRT_API_MINOR})",
            T::STRUCT_SIZE
        )));
    }
    Ok(args)
}

/// `bytes` as a `(pointer, length)` pair for the framework.
pub(crate) fn str_out(bytes: &str) -> (*const c_char, usize) {
    (bytes.as_ptr().cast(), bytes.len())
}

/// The UTF-8 string at `(ptr, len)`.
pub(crate) fn str_in<'a>(ptr: *const c_char, len: usize, what: &str) -> Result<&'a str> {
    if ptr.is_null() {
        return match len {
            0 => Ok(""),
            _ => Err(Error::invalid(format!("{what} is null"))),
        };
    }
    // SAFETY: the framework passes `len` readable bytes at `ptr`.
    let bytes = unsafe { std::slice::from_raw_parts(ptr.cast::<u8>(), len) };
    std::str::from_utf8(bytes).map_err(|_| Error::invalid(format!("{what} is not UTF-8")))
}
