//! The client: its devices and memories, compiling programs, default
//! device assignments, and buffers made from host data.

use std::ffi::c_int;

use super::event::ready_event;
use super::{destroy, obj, slice};
use crate::buffer::{primitive_type, Buffer};
use crate::client::{self, Client, Memory, PLATFORM_NAME, PLATFORM_VERSION};
use crate::error::{args, guard, str_in, str_out, Error, Result};
use crate::executable::{Compiled, LoadedExecutable};
use crate::ffi::*;
use crate::handles::into_handle;
use crate::proto::CompileOptions;

pub(super) unsafe extern "C" fn client_create(a: *mut PJRT_Client_Create_Args) -> *mut PJRT_Error {
    guard("PJRT_Client_Create", || {
        let a = args(a, "PJRT_Client_Create")?;
        // SAFETY: `num_options` options at `create_options`.
        let options = unsafe { slice(a.create_options, a.num_options, "create_options")? };
        let mut count = None;
        for option in options {
            let name = str_in(option.name, option.name_size, "an option name")?;
            if name == "cpu_device_count" {
                if option.r#type != PJRT_NamedValue_kInt64 {
                    return Err(Error::invalid(
                        "option `cpu_device_count` must be an integer",
                    ));
                }
                // SAFETY: the union holds an int64 per its type.
                count = Some(unsafe { option.value.int64_value });
            }
        }
        let client = Client::new(client::device_count(count)?)?;
        a.client = into_handle(client);
        Ok(())
    })
}

pub(super) unsafe extern "C" fn client_destroy(
    a: *mut PJRT_Client_Destroy_Args,
) -> *mut PJRT_Error {
    guard("PJRT_Client_Destroy", || {
        let a = args(a, "PJRT_Client_Destroy")?;
        destroy::<Client, _>(a.client, "the client")?;
        Ok(())
    })
}

pub(super) unsafe extern "C" fn client_platform_name(
    a: *mut PJRT_Client_PlatformName_Args,
) -> *mut PJRT_Error {
    guard("PJRT_Client_PlatformName", || {
        let a = args(a, "PJRT_Client_PlatformName")?;
        obj::<Client, _>(a.client, "the client")?;
        (a.platform_name, a.platform_name_size) = str_out(PLATFORM_NAME);
        Ok(())
    })
}

pub(super) unsafe extern "C" fn client_process_index(
    a: *mut PJRT_Client_ProcessIndex_Args,
) -> *mut PJRT_Error {
    guard("PJRT_Client_ProcessIndex", || {
        let a = args(a, "PJRT_Client_ProcessIndex")?;
        obj::<Client, _>(a.client, "the client")?;
        a.process_index = 0;
        Ok(())
    })
}

pub(super) unsafe extern "C" fn client_platform_version(
    a: *mut PJRT_Client_PlatformVersion_Args,
) -> *mut PJRT_Error {
    guard("PJRT_Client_PlatformVersion", || {
        let a = args(a, "PJRT_Client_PlatformVersion")?;
        obj::<Client, _>(a.client, "the client")?;
        (a.platform_version, a.platform_version_size) = str_out(PLATFORM_VERSION);
        Ok(())
    })
}

pub(super) unsafe extern "C" fn client_devices(
    a: *mut PJRT_Client_Devices_Args,
) -> *mut PJRT_Error {
    guard("PJRT_Client_Devices", || {
        let a = args(a, "PJRT_Client_Devices")?;
        let devices = obj::<Client, _>(a.client, "the client")?.device_handles();
        (a.devices, a.num_devices) = (devices.as_ptr(), devices.len());
        Ok(())
    })
}

pub(super) unsafe extern "C" fn client_addressable_devices(
    a: *mut PJRT_Client_AddressableDevices_Args,
) -> *mut PJRT_Error {
    guard("PJRT_Client_AddressableDevices", || {
        let a = args(a, "PJRT_Client_AddressableDevices")?;
        let devices = obj::<Client, _>(a.client, "the client")?.device_handles();
        (a.addressable_devices, a.num_addressable_devices) = (devices.as_ptr(), devices.len());
        Ok(())
    })
}

pub(super) unsafe extern "C" fn client_lookup_device(
    a: *mut PJRT_Client_LookupDevice_Args,
) -> *mut PJRT_Error {
    guard("PJRT_Client_LookupDevice", || {
        let a = args(a, "PJRT_Client_LookupDevice")?;
        let client = obj::<Client, _>(a.client, "the client")?;
        a.device = client.device_handles()[client.device(i64::from(a.id))?.id];
        Ok(())
    })
}

pub(super) unsafe extern "C" fn client_lookup_addressable_device(
    a: *mut PJRT_Client_LookupAddressableDevice_Args,
) -> *mut PJRT_Error {
    guard("PJRT_Client_LookupAddressableDevice", || {
        let a = args(a, "PJRT_Client_LookupAddressableDevice")?;
        let client = obj::<Client, _>(a.client, "the client")?;
        let id = client.device(i64::from(a.local_hardware_id))?.id;
        a.addressable_device = client.device_handles()[id];
        Ok(())
    })
}

pub(super) unsafe extern "C" fn client_addressable_memories(
    a: *mut PJRT_Client_AddressableMemories_Args,
) -> *mut PJRT_Error {
    guard("PJRT_Client_AddressableMemories", || {
        let a = args(a, "PJRT_Client_AddressableMemories")?;
        let memories = obj::<Client, _>(a.client, "the client")?.memory_handles();
        (a.addressable_memories, a.num_addressable_memories) = (memories.as_ptr(), memories.len());
        Ok(())
    })
}

pub(super) unsafe extern "C" fn client_compile(
    a: *mut PJRT_Client_Compile_Args,
) -> *mut PJRT_Error {
    guard("PJRT_Client_Compile", || {
        let a = args(a, "PJRT_Client_Compile")?;
        let client = obj::<Client, _>(a.client, "the client")?;
        // SAFETY: the framework's program struct, or null.
        let program =
            unsafe { a.program.as_ref() }.ok_or_else(|| Error::invalid("the program is null"))?;
        let format = str_in(program.format, program.format_size, "the program format")?;
        // SAFETY: `code_size` bytes at `code`, and the options likewise.
        let code = unsafe { slice(program.code.cast::<u8>(), program.code_size, "the program")? };
        let options = unsafe {
            slice(
                a.compile_options.cast::<u8>(),
                a.compile_options_size,
                "the compile options",
            )?
        };
        let options = CompileOptions::decode(options)?;
        let compiled = Compiled::compile(client, code, format, &options)?;
        a.executable = into_handle(LoadedExecutable::new(client, compiled, &options)?);
        Ok(())
    })
}

pub(super) unsafe extern "C" fn client_default_device_assignment(
    a: *mut PJRT_Client_DefaultDeviceAssignment_Args,
) -> *mut PJRT_Error {
    guard("PJRT_Client_DefaultDeviceAssignment", || {
        let a = args(a, "PJRT_Client_DefaultDeviceAssignment")?;
        let client = obj::<Client, _>(a.client, "the client")?;
        let devices = client.device_handles().len();
        let needed = usize::try_from(i64::from(a.num_replicas) * i64::from(a.num_partitions))
            .map_err(|_| Error::invalid("negative replica or partition count"))?;
        if needed > devices {
            return Err(Error::invalid(format!(
                "{} replicas × {} partitions need {needed} devices; the client has {devices} \
                 (set XLA_FLAGS=--xla_force_host_platform_device_count={needed})",
                a.num_replicas, a.num_partitions
            )));
        }
        if a.default_assignment_size < needed || (needed > 0 && a.default_assignment.is_null()) {
            return Err(Error::invalid("the default assignment array is too small"));
        }
        // Replica-major: partition p of replica r runs on device
        // r × partitions + p, as XLA's CPU client assigns.
        for i in 0..needed {
            // SAFETY: `default_assignment_size` ≥ `needed` ints.
            unsafe { *a.default_assignment.add(i) = i as c_int };
        }
        Ok(())
    })
}

pub(super) unsafe extern "C" fn client_buffer_from_host_buffer(
    a: *mut PJRT_Client_BufferFromHostBuffer_Args,
) -> *mut PJRT_Error {
    guard("PJRT_Client_BufferFromHostBuffer", || {
        let a = args(a, "PJRT_Client_BufferFromHostBuffer")?;
        let client = obj::<Client, _>(a.client, "the client")?;
        let device = placement(client, a.device, a.memory)?;
        let element_type = primitive_type(a.r#type)?;
        // SAFETY: `num_dims` dimensions, `num_byte_strides` strides.
        let dims = unsafe { slice(a.dims, a.num_dims, "dims")? };
        let strides = match a.byte_strides.is_null() {
            true => None,
            false => Some(unsafe { slice(a.byte_strides, a.num_byte_strides, "byte_strides")? }),
        };
        if let Some(layout) = unsafe { a.device_layout.as_ref() } {
            check_row_major(layout, dims.len(), "device_layout")?;
        }
        // SAFETY: the framework's host buffer holds the array as described.
        let buffer =
            unsafe { Buffer::from_host(a.data.cast(), element_type, dims, strides, device)? };
        // The data is copied before this returns, whatever the semantics.
        a.done_with_host_buffer = ready_event();
        a.buffer = into_handle(buffer);
        Ok(())
    })
}

/// The device a new buffer goes to: `memory`'s device, else `device`.
fn placement(
    client: &Client,
    device: *mut PJRT_Device,
    memory: *mut PJRT_Memory,
) -> Result<*mut PJRT_Device> {
    if !memory.is_null() {
        return Ok(obj::<Memory, _>(memory, "the memory")?.devices[0]);
    }
    if !client.owns(device) {
        return Err(Error::invalid(
            "the device is not one of this client's devices",
        ));
    }
    Ok(device)
}

/// Accepts only the row-major layout (the one buffers have).
pub(super) fn check_row_major(
    layout: &PJRT_Buffer_MemoryLayout,
    rank: usize,
    what: &str,
) -> Result<()> {
    let row_major: Vec<i64> = (0..rank as i64).rev().collect();
    let ok = layout.r#type == PJRT_Buffer_MemoryLayout_Type_Tiled && {
        // SAFETY: the union holds the tiled form per its type, whose
        // order has `minor_to_major_size` entries.
        let tiled = unsafe { layout.value.tiled };
        let order = unsafe { slice(tiled.minor_to_major, tiled.minor_to_major_size, what)? };
        order == row_major && tiled.num_tiles == 0
    };
    match ok {
        true => Ok(()),
        false => Err(Error::unimplemented(format!(
            "{what}: xla_rs buffers are row-major (minor_to_major {row_major:?}, no tiles)"
        ))),
    }
}

pub(super) unsafe extern "C" fn client_topology_description(
    a: *mut PJRT_Client_TopologyDescription_Args,
) -> *mut PJRT_Error {
    guard("PJRT_Client_TopologyDescription", || {
        let a = args(a, "PJRT_Client_TopologyDescription")?;
        // The client is its own topology: the description of its devices.
        obj::<Client, _>(a.client, "the client")?;
        a.topology = a.client.cast();
        Ok(())
    })
}
