//! Errors (their message and code) and the plugin itself: its
//! initialization and attributes.

use std::sync::OnceLock;

use xla_core::mlir::bytecode::MAX_VHLO_VERSION as MAX_VHLO;

use super::{destroy, obj};
use crate::error::{args, guard, str_out, Error};
use crate::ffi::*;

/// The newest StableHLO (VHLO) version the module reader takes, which
/// frameworks serialize programs for (`stablehlo_current_version`; the
/// reader takes every patch release of that minor version).
const STABLEHLO_VERSION: [i64; 3] = [MAX_VHLO.0 as i64, MAX_VHLO.1 as i64, 0];

/// Named values that live as long as the process.
struct NamedValues {
    values: Vec<PJRT_NamedValue>,
}

// SAFETY: the values point to `'static` data only.
unsafe impl Send for NamedValues {}
// SAFETY: as above; never mutated.
unsafe impl Sync for NamedValues {}

fn named_int_list(name: &'static str, values: &'static [i64]) -> PJRT_NamedValue {
    PJRT_NamedValue {
        struct_size: PJRT_NamedValue::STRUCT_SIZE,
        extension_start: std::ptr::null_mut(),
        name: name.as_ptr().cast(),
        name_size: name.len(),
        r#type: PJRT_NamedValue_kInt64List,
        value: PJRT_NamedValue_Union {
            int64_array_value: values.as_ptr(),
        },
        value_size: values.len(),
    }
}

fn named_string(name: &'static str, value: &'static str) -> PJRT_NamedValue {
    PJRT_NamedValue {
        struct_size: PJRT_NamedValue::STRUCT_SIZE,
        extension_start: std::ptr::null_mut(),
        name: name.as_ptr().cast(),
        name_size: name.len(),
        r#type: PJRT_NamedValue_kString,
        value: PJRT_NamedValue_Union {
            string_value: value.as_ptr().cast(),
        },
        value_size: value.len(),
    }
}

// ---------------------------------------------------------------- errors

pub(super) unsafe extern "C" fn error_destroy(args: *mut PJRT_Error_Destroy_Args) {
    // SAFETY: the framework passes a valid (or null) args struct.
    if let Some(args) = unsafe { args.as_mut() } {
        // A pointer that is not a live error is left alone.
        let _ = destroy::<Error, _>(args.error, "the error");
    }
}

pub(super) unsafe extern "C" fn error_message(args: *mut PJRT_Error_Message_Args) {
    // SAFETY: as above; the message lives as long as the error.
    let Some(args) = (unsafe { args.as_mut() }) else {
        return;
    };
    let message = match obj::<Error, _>(args.error, "the error") {
        Ok(error) => error.message(),
        Err(_) => "not an error of the xla_rs plugin",
    };
    (args.message, args.message_size) = str_out(message);
}

pub(super) unsafe extern "C" fn error_get_code(a: *mut PJRT_Error_GetCode_Args) -> *mut PJRT_Error {
    guard("PJRT_Error_GetCode", || {
        let a = args(a, "PJRT_Error_GetCode")?;
        a.code = obj::<Error, _>(a.error, "the error")?.code();
        Ok(())
    })
}

// ---------------------------------------------------------------- plugin

pub(super) unsafe extern "C" fn plugin_initialize(
    a: *mut PJRT_Plugin_Initialize_Args,
) -> *mut PJRT_Error {
    guard("PJRT_Plugin_Initialize", || {
        args(a, "PJRT_Plugin_Initialize").map(drop)
    })
}

pub(super) unsafe extern "C" fn plugin_attributes(
    a: *mut PJRT_Plugin_Attributes_Args,
) -> *mut PJRT_Error {
    static ATTRIBUTES: OnceLock<NamedValues> = OnceLock::new();
    guard("PJRT_Plugin_Attributes", || {
        let a = args(a, "PJRT_Plugin_Attributes")?;
        let attributes = ATTRIBUTES.get_or_init(|| NamedValues {
            values: vec![
                named_int_list("stablehlo_current_version", &STABLEHLO_VERSION),
                named_int_list("stablehlo_minimum_version", &[1, 0, 0]),
                named_string("xla_rs_version", env!("CARGO_PKG_VERSION")),
            ],
        });
        a.attributes = attributes.values.as_ptr();
        a.num_attributes = attributes.values.len();
        Ok(())
    })
}
