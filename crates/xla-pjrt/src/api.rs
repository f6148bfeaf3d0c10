//! The C entry points: one function per `PJRT_Api` slot this plugin
//! implements, and the table (`GetPjrtApi`) with every other slot
//! answering `UNIMPLEMENTED`.

use std::ffi::{c_int, c_void};
use std::sync::OnceLock;

use xla_core::mlir::bytecode::MAX_VHLO_VERSION as MAX_VHLO;

use crate::buffer::{buffer_type, primitive_type, Buffer};
use crate::client::{
    self, Client, Device, DeviceDescription, Memory, MEMORY_KIND, PLATFORM_NAME, PLATFORM_VERSION,
};
use crate::error::{args, guard, str_in, str_out, Error, Result};
use crate::executable::{Compiled, Executable, LoadedExecutable};
use crate::ffi::*;
use crate::handles::{self, into_handle, Handle, Kind};
use crate::proto::{self, CompileOptions};

/// The newest StableHLO (VHLO) version the module reader takes, which
/// frameworks serialize programs for (`stablehlo_current_version`; the
/// reader takes every patch release of that minor version).
const STABLEHLO_VERSION: [i64; 3] = [MAX_VHLO.0 as i64, MAX_VHLO.1 as i64, 0];

/// The object behind a handle: an error naming `what` if it is null or
/// not a live handle of `T`'s kind.
fn obj<'a, T: Handle, H>(handle: *const H, what: &str) -> Result<&'a T> {
    if handle.is_null() {
        return Err(Error::invalid(format!("{what} is null")));
    }
    handles::check(handle, T::KIND, what)?;
    // SAFETY: a live handle of this kind points to a live `T`.
    Ok(unsafe { &*handle.cast::<T>() })
}

/// Frees a handle made by [`into_handle`] (null is fine).
fn destroy<T: Handle, H>(handle: *mut H, what: &str) -> Result<()> {
    if !handle.is_null() {
        handles::unregister(handle, T::KIND, what)?;
        // SAFETY: it was live, so it is a `Box<T>` the plugin leaked, and
        // it is no longer registered, so it is freed once.
        drop(unsafe { Box::from_raw(handle.cast::<T>()) });
    }
    Ok(())
}

/// A completed event: every operation of this plugin finishes before it
/// returns (an operation that fails returns its error instead of an
/// event), so events are ready and successful when made. The byte gives
/// each event its own address, which a handle needs.
struct Event {
    _address: u8,
}

impl Handle for Event {
    const KIND: Kind = Kind::Event;
}

impl Handle for Vec<u8> {
    const KIND: Kind = Kind::Bytes;
}

fn ready_event() -> *mut PJRT_Event {
    into_handle(Event { _address: 0 })
}

/// Reads a slice of `len` items at `ptr` (empty when `len` is 0).
///
/// # Safety
/// `ptr` points to `len` valid items when `len > 0`.
unsafe fn slice<'a, T>(ptr: *const T, len: usize, what: &str) -> Result<&'a [T]> {
    match len {
        0 => Ok(&[]),
        _ if ptr.is_null() => Err(Error::invalid(format!("{what} is null"))),
        // SAFETY: per the contract.
        _ => Ok(unsafe { std::slice::from_raw_parts(ptr, len) }),
    }
}

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

unsafe extern "C" fn error_destroy(args: *mut PJRT_Error_Destroy_Args) {
    // SAFETY: the framework passes a valid (or null) args struct.
    if let Some(args) = unsafe { args.as_mut() } {
        // A pointer that is not a live error is left alone.
        let _ = destroy::<Error, _>(args.error, "the error");
    }
}

unsafe extern "C" fn error_message(args: *mut PJRT_Error_Message_Args) {
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

unsafe extern "C" fn error_get_code(a: *mut PJRT_Error_GetCode_Args) -> *mut PJRT_Error {
    guard("PJRT_Error_GetCode", || {
        let a = args(a, "PJRT_Error_GetCode")?;
        a.code = obj::<Error, _>(a.error, "the error")?.code();
        Ok(())
    })
}

// ---------------------------------------------------------------- plugin

unsafe extern "C" fn plugin_initialize(a: *mut PJRT_Plugin_Initialize_Args) -> *mut PJRT_Error {
    guard("PJRT_Plugin_Initialize", || {
        args(a, "PJRT_Plugin_Initialize").map(drop)
    })
}

unsafe extern "C" fn plugin_attributes(a: *mut PJRT_Plugin_Attributes_Args) -> *mut PJRT_Error {
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

// ---------------------------------------------------------------- events

unsafe extern "C" fn event_destroy(a: *mut PJRT_Event_Destroy_Args) -> *mut PJRT_Error {
    guard("PJRT_Event_Destroy", || {
        let a = args(a, "PJRT_Event_Destroy")?;
        destroy::<Event, _>(a.event, "the event")?;
        Ok(())
    })
}

unsafe extern "C" fn event_is_ready(a: *mut PJRT_Event_IsReady_Args) -> *mut PJRT_Error {
    guard("PJRT_Event_IsReady", || {
        let a = args(a, "PJRT_Event_IsReady")?;
        obj::<Event, _>(a.event, "the event")?;
        a.is_ready = true;
        Ok(())
    })
}

/// Checks that `event` is a live event; its status is success.
fn check_event(event: *mut PJRT_Event) -> Result<()> {
    obj::<Event, _>(event, "the event").map(drop)
}

unsafe extern "C" fn event_error_fn(a: *mut PJRT_Event_Error_Args) -> *mut PJRT_Error {
    guard("PJRT_Event_Error", || {
        check_event(args(a, "PJRT_Event_Error")?.event)
    })
}

unsafe extern "C" fn event_await(a: *mut PJRT_Event_Await_Args) -> *mut PJRT_Error {
    guard("PJRT_Event_Await", || {
        check_event(args(a, "PJRT_Event_Await")?.event)
    })
}

unsafe extern "C" fn event_on_ready(a: *mut PJRT_Event_OnReady_Args) -> *mut PJRT_Error {
    guard("PJRT_Event_OnReady", || {
        let a = args(a, "PJRT_Event_OnReady")?;
        let callback = a
            .callback
            .ok_or_else(|| Error::invalid("the callback is null"))?;
        check_event(a.event)?;
        // SAFETY: the framework's callback, called once with its argument
        // and no error.
        unsafe { callback(std::ptr::null_mut(), a.user_arg) };
        Ok(())
    })
}

// ---------------------------------------------------------------- client

unsafe extern "C" fn client_create(a: *mut PJRT_Client_Create_Args) -> *mut PJRT_Error {
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

unsafe extern "C" fn client_destroy(a: *mut PJRT_Client_Destroy_Args) -> *mut PJRT_Error {
    guard("PJRT_Client_Destroy", || {
        let a = args(a, "PJRT_Client_Destroy")?;
        destroy::<Client, _>(a.client, "the client")?;
        Ok(())
    })
}

unsafe extern "C" fn client_platform_name(
    a: *mut PJRT_Client_PlatformName_Args,
) -> *mut PJRT_Error {
    guard("PJRT_Client_PlatformName", || {
        let a = args(a, "PJRT_Client_PlatformName")?;
        obj::<Client, _>(a.client, "the client")?;
        (a.platform_name, a.platform_name_size) = str_out(PLATFORM_NAME);
        Ok(())
    })
}

unsafe extern "C" fn client_process_index(
    a: *mut PJRT_Client_ProcessIndex_Args,
) -> *mut PJRT_Error {
    guard("PJRT_Client_ProcessIndex", || {
        let a = args(a, "PJRT_Client_ProcessIndex")?;
        obj::<Client, _>(a.client, "the client")?;
        a.process_index = 0;
        Ok(())
    })
}

unsafe extern "C" fn client_platform_version(
    a: *mut PJRT_Client_PlatformVersion_Args,
) -> *mut PJRT_Error {
    guard("PJRT_Client_PlatformVersion", || {
        let a = args(a, "PJRT_Client_PlatformVersion")?;
        obj::<Client, _>(a.client, "the client")?;
        (a.platform_version, a.platform_version_size) = str_out(PLATFORM_VERSION);
        Ok(())
    })
}

unsafe extern "C" fn client_devices(a: *mut PJRT_Client_Devices_Args) -> *mut PJRT_Error {
    guard("PJRT_Client_Devices", || {
        let a = args(a, "PJRT_Client_Devices")?;
        let devices = obj::<Client, _>(a.client, "the client")?.device_handles();
        (a.devices, a.num_devices) = (devices.as_ptr(), devices.len());
        Ok(())
    })
}

unsafe extern "C" fn client_addressable_devices(
    a: *mut PJRT_Client_AddressableDevices_Args,
) -> *mut PJRT_Error {
    guard("PJRT_Client_AddressableDevices", || {
        let a = args(a, "PJRT_Client_AddressableDevices")?;
        let devices = obj::<Client, _>(a.client, "the client")?.device_handles();
        (a.addressable_devices, a.num_addressable_devices) = (devices.as_ptr(), devices.len());
        Ok(())
    })
}

unsafe extern "C" fn client_lookup_device(
    a: *mut PJRT_Client_LookupDevice_Args,
) -> *mut PJRT_Error {
    guard("PJRT_Client_LookupDevice", || {
        let a = args(a, "PJRT_Client_LookupDevice")?;
        let client = obj::<Client, _>(a.client, "the client")?;
        a.device = client.device_handles()[client.device(i64::from(a.id))?.id];
        Ok(())
    })
}

unsafe extern "C" fn client_lookup_addressable_device(
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

unsafe extern "C" fn client_addressable_memories(
    a: *mut PJRT_Client_AddressableMemories_Args,
) -> *mut PJRT_Error {
    guard("PJRT_Client_AddressableMemories", || {
        let a = args(a, "PJRT_Client_AddressableMemories")?;
        let memories = obj::<Client, _>(a.client, "the client")?.memory_handles();
        (a.addressable_memories, a.num_addressable_memories) = (memories.as_ptr(), memories.len());
        Ok(())
    })
}

unsafe extern "C" fn client_compile(a: *mut PJRT_Client_Compile_Args) -> *mut PJRT_Error {
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

unsafe extern "C" fn client_default_device_assignment(
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

unsafe extern "C" fn client_buffer_from_host_buffer(
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
fn check_row_major(layout: &PJRT_Buffer_MemoryLayout, rank: usize, what: &str) -> Result<()> {
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

unsafe extern "C" fn client_topology_description(
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

// ---------------------------------------------------------------- topology

unsafe extern "C" fn topology_destroy(
    a: *mut PJRT_TopologyDescription_Destroy_Args,
) -> *mut PJRT_Error {
    // The only topologies are clients', owned by their client.
    guard("PJRT_TopologyDescription_Destroy", || {
        args(a, "PJRT_TopologyDescription_Destroy").map(drop)
    })
}

unsafe extern "C" fn topology_platform_name(
    a: *mut PJRT_TopologyDescription_PlatformName_Args,
) -> *mut PJRT_Error {
    guard("PJRT_TopologyDescription_PlatformName", || {
        let a = args(a, "PJRT_TopologyDescription_PlatformName")?;
        obj::<Client, _>(a.topology, "the topology")?;
        (a.platform_name, a.platform_name_size) = str_out(PLATFORM_NAME);
        Ok(())
    })
}

unsafe extern "C" fn topology_platform_version(
    a: *mut PJRT_TopologyDescription_PlatformVersion_Args,
) -> *mut PJRT_Error {
    guard("PJRT_TopologyDescription_PlatformVersion", || {
        let a = args(a, "PJRT_TopologyDescription_PlatformVersion")?;
        obj::<Client, _>(a.topology, "the topology")?;
        (a.platform_version, a.platform_version_size) = str_out(PLATFORM_VERSION);
        Ok(())
    })
}

unsafe extern "C" fn topology_device_descriptions(
    a: *mut PJRT_TopologyDescription_GetDeviceDescriptions_Args,
) -> *mut PJRT_Error {
    guard("PJRT_TopologyDescription_GetDeviceDescriptions", || {
        let a = args(a, "PJRT_TopologyDescription_GetDeviceDescriptions")?;
        let descriptions = obj::<Client, _>(a.topology, "the topology")?.description_handles();
        a.descriptions = descriptions.as_ptr().cast();
        a.num_descriptions = descriptions.len();
        Ok(())
    })
}

unsafe extern "C" fn topology_attributes(
    a: *mut PJRT_TopologyDescription_Attributes_Args,
) -> *mut PJRT_Error {
    guard("PJRT_TopologyDescription_Attributes", || {
        let a = args(a, "PJRT_TopologyDescription_Attributes")?;
        obj::<Client, _>(a.topology, "the topology")?;
        (a.attributes, a.num_attributes) = (std::ptr::null(), 0);
        Ok(())
    })
}

unsafe extern "C" fn serialized_topology_deleter(serialized: *mut PJRT_SerializedTopology) {
    let _ = destroy::<Vec<u8>, _>(serialized, "the serialized topology");
}

unsafe extern "C" fn topology_serialize(
    a: *mut PJRT_TopologyDescription_Serialize_Args,
) -> *mut PJRT_Error {
    guard("PJRT_TopologyDescription_Serialize", || {
        let a = args(a, "PJRT_TopologyDescription_Serialize")?;
        let devices = obj::<Client, _>(a.topology, "the topology")?
            .device_handles()
            .len();
        // What identifies the topology (JAX hashes it into compilation
        // cache keys): the platform, its version and the device count.
        let bytes = format!("{PLATFORM_NAME}\n{PLATFORM_VERSION}\n{devices} devices").into_bytes();
        (a.serialized_bytes, a.serialized_bytes_size) = (bytes.as_ptr().cast(), bytes.len());
        a.serialized_topology = into_handle(bytes);
        a.serialized_topology_deleter = Some(serialized_topology_deleter);
        Ok(())
    })
}

// ---------------------------------------------------------------- devices

unsafe extern "C" fn description_id(a: *mut PJRT_DeviceDescription_Id_Args) -> *mut PJRT_Error {
    guard("PJRT_DeviceDescription_Id", || {
        let a = args(a, "PJRT_DeviceDescription_Id")?;
        a.id = obj::<DeviceDescription, _>(a.device_description, "the description")?.id;
        Ok(())
    })
}

unsafe extern "C" fn description_process_index(
    a: *mut PJRT_DeviceDescription_ProcessIndex_Args,
) -> *mut PJRT_Error {
    guard("PJRT_DeviceDescription_ProcessIndex", || {
        let a = args(a, "PJRT_DeviceDescription_ProcessIndex")?;
        obj::<DeviceDescription, _>(a.device_description, "the description")?;
        a.process_index = 0;
        Ok(())
    })
}

unsafe extern "C" fn description_attributes(
    a: *mut PJRT_DeviceDescription_Attributes_Args,
) -> *mut PJRT_Error {
    guard("PJRT_DeviceDescription_Attributes", || {
        let a = args(a, "PJRT_DeviceDescription_Attributes")?;
        obj::<DeviceDescription, _>(a.device_description, "the description")?;
        (a.attributes, a.num_attributes) = (std::ptr::null(), 0);
        Ok(())
    })
}

unsafe extern "C" fn description_kind(a: *mut PJRT_DeviceDescription_Kind_Args) -> *mut PJRT_Error {
    guard("PJRT_DeviceDescription_Kind", || {
        let a = args(a, "PJRT_DeviceDescription_Kind")?;
        obj::<DeviceDescription, _>(a.device_description, "the description")?;
        (a.device_kind, a.device_kind_size) = str_out(PLATFORM_NAME);
        Ok(())
    })
}

unsafe extern "C" fn description_debug_string(
    a: *mut PJRT_DeviceDescription_DebugString_Args,
) -> *mut PJRT_Error {
    guard("PJRT_DeviceDescription_DebugString", || {
        let a = args(a, "PJRT_DeviceDescription_DebugString")?;
        let d = obj::<DeviceDescription, _>(a.device_description, "the description")?;
        (a.debug_string, a.debug_string_size) = str_out(&d.debug_string);
        Ok(())
    })
}

unsafe extern "C" fn description_to_string(
    a: *mut PJRT_DeviceDescription_ToString_Args,
) -> *mut PJRT_Error {
    guard("PJRT_DeviceDescription_ToString", || {
        let a = args(a, "PJRT_DeviceDescription_ToString")?;
        let d = obj::<DeviceDescription, _>(a.device_description, "the description")?;
        (a.to_string, a.to_string_size) = str_out(&d.to_string);
        Ok(())
    })
}

unsafe extern "C" fn device_get_description(
    a: *mut PJRT_Device_GetDescription_Args,
) -> *mut PJRT_Error {
    guard("PJRT_Device_GetDescription", || {
        let a = args(a, "PJRT_Device_GetDescription")?;
        let device = obj::<Device, _>(a.device, "the device")?;
        a.device_description = std::ptr::from_ref(&device.description).cast_mut().cast();
        Ok(())
    })
}

unsafe extern "C" fn device_is_addressable(
    a: *mut PJRT_Device_IsAddressable_Args,
) -> *mut PJRT_Error {
    guard("PJRT_Device_IsAddressable", || {
        let a = args(a, "PJRT_Device_IsAddressable")?;
        obj::<Device, _>(a.device, "the device")?;
        a.is_addressable = true;
        Ok(())
    })
}

unsafe extern "C" fn device_local_hardware_id(
    a: *mut PJRT_Device_LocalHardwareId_Args,
) -> *mut PJRT_Error {
    guard("PJRT_Device_LocalHardwareId", || {
        let a = args(a, "PJRT_Device_LocalHardwareId")?;
        a.local_hardware_id = obj::<Device, _>(a.device, "the device")?.id as c_int;
        Ok(())
    })
}

unsafe extern "C" fn device_addressable_memories(
    a: *mut PJRT_Device_AddressableMemories_Args,
) -> *mut PJRT_Error {
    guard("PJRT_Device_AddressableMemories", || {
        let a = args(a, "PJRT_Device_AddressableMemories")?;
        let device = obj::<Device, _>(a.device, "the device")?;
        (a.memories, a.num_memories) = (device.memory_handles.as_ptr(), 1);
        Ok(())
    })
}

unsafe extern "C" fn device_default_memory(
    a: *mut PJRT_Device_DefaultMemory_Args,
) -> *mut PJRT_Error {
    guard("PJRT_Device_DefaultMemory", || {
        let a = args(a, "PJRT_Device_DefaultMemory")?;
        a.memory = obj::<Device, _>(a.device, "the device")?.memory_handles[0];
        Ok(())
    })
}

// ---------------------------------------------------------------- memories

unsafe extern "C" fn memory_id(a: *mut PJRT_Memory_Id_Args) -> *mut PJRT_Error {
    guard("PJRT_Memory_Id", || {
        let a = args(a, "PJRT_Memory_Id")?;
        a.id = obj::<Memory, _>(a.memory, "the memory")?.id;
        Ok(())
    })
}

unsafe extern "C" fn memory_kind(a: *mut PJRT_Memory_Kind_Args) -> *mut PJRT_Error {
    guard("PJRT_Memory_Kind", || {
        let a = args(a, "PJRT_Memory_Kind")?;
        obj::<Memory, _>(a.memory, "the memory")?;
        (a.kind, a.kind_size) = str_out(MEMORY_KIND);
        Ok(())
    })
}

unsafe extern "C" fn memory_kind_id(a: *mut PJRT_Memory_Kind_Id_Args) -> *mut PJRT_Error {
    guard("PJRT_Memory_Kind_Id", || {
        let a = args(a, "PJRT_Memory_Kind_Id")?;
        obj::<Memory, _>(a.memory, "the memory")?;
        a.kind_id = 0;
        Ok(())
    })
}

unsafe extern "C" fn memory_debug_string(a: *mut PJRT_Memory_DebugString_Args) -> *mut PJRT_Error {
    guard("PJRT_Memory_DebugString", || {
        let a = args(a, "PJRT_Memory_DebugString")?;
        let memory = obj::<Memory, _>(a.memory, "the memory")?;
        (a.debug_string, a.debug_string_size) = str_out(&memory.debug_string);
        Ok(())
    })
}

unsafe extern "C" fn memory_to_string(a: *mut PJRT_Memory_ToString_Args) -> *mut PJRT_Error {
    guard("PJRT_Memory_ToString", || {
        let a = args(a, "PJRT_Memory_ToString")?;
        let memory = obj::<Memory, _>(a.memory, "the memory")?;
        (a.to_string, a.to_string_size) = str_out(&memory.to_string);
        Ok(())
    })
}

unsafe extern "C" fn memory_addressable_by_devices(
    a: *mut PJRT_Memory_AddressableByDevices_Args,
) -> *mut PJRT_Error {
    guard("PJRT_Memory_AddressableByDevices", || {
        let a = args(a, "PJRT_Memory_AddressableByDevices")?;
        let memory = obj::<Memory, _>(a.memory, "the memory")?;
        (a.devices, a.num_devices) = (memory.devices.as_ptr(), 1);
        Ok(())
    })
}

// ---------------------------------------------------------------- executables

unsafe extern "C" fn executable_destroy(a: *mut PJRT_Executable_Destroy_Args) -> *mut PJRT_Error {
    guard("PJRT_Executable_Destroy", || {
        let a = args(a, "PJRT_Executable_Destroy")?;
        destroy::<Executable, _>(a.executable, "the executable")?;
        Ok(())
    })
}

fn compiled<'a>(executable: *mut PJRT_Executable) -> Result<&'a Compiled> {
    Ok(&obj::<Executable, _>(executable, "the executable")?.compiled)
}

unsafe extern "C" fn executable_name(a: *mut PJRT_Executable_Name_Args) -> *mut PJRT_Error {
    guard("PJRT_Executable_Name", || {
        let a = args(a, "PJRT_Executable_Name")?;
        (a.executable_name, a.executable_name_size) = str_out(&compiled(a.executable)?.name);
        Ok(())
    })
}

unsafe extern "C" fn executable_num_replicas(
    a: *mut PJRT_Executable_NumReplicas_Args,
) -> *mut PJRT_Error {
    guard("PJRT_Executable_NumReplicas", || {
        let a = args(a, "PJRT_Executable_NumReplicas")?;
        a.num_replicas = compiled(a.executable)?.assignment.num_replicas;
        Ok(())
    })
}

unsafe extern "C" fn executable_num_partitions(
    a: *mut PJRT_Executable_NumPartitions_Args,
) -> *mut PJRT_Error {
    guard("PJRT_Executable_NumPartitions", || {
        let a = args(a, "PJRT_Executable_NumPartitions")?;
        a.num_partitions = compiled(a.executable)?.assignment.num_partitions;
        Ok(())
    })
}

unsafe extern "C" fn executable_num_outputs(
    a: *mut PJRT_Executable_NumOutputs_Args,
) -> *mut PJRT_Error {
    guard("PJRT_Executable_NumOutputs", || {
        let a = args(a, "PJRT_Executable_NumOutputs")?;
        a.num_outputs = compiled(a.executable)?.num_outputs();
        Ok(())
    })
}

unsafe extern "C" fn executable_cost_analysis(
    a: *mut PJRT_Executable_GetCostAnalysis_Args,
) -> *mut PJRT_Error {
    guard("PJRT_Executable_GetCostAnalysis", || {
        let a = args(a, "PJRT_Executable_GetCostAnalysis")?;
        compiled(a.executable)?;
        (a.properties, a.num_properties) = (std::ptr::null(), 0);
        Ok(())
    })
}

unsafe extern "C" fn executable_output_memory_kinds(
    a: *mut PJRT_Executable_OutputMemoryKinds_Args,
) -> *mut PJRT_Error {
    guard("PJRT_Executable_OutputMemoryKinds", || {
        let a = args(a, "PJRT_Executable_OutputMemoryKinds")?;
        let c = compiled(a.executable)?;
        a.num_outputs = c.num_outputs();
        a.memory_kinds = c.output_kinds.as_ptr();
        a.memory_kind_sizes = c.output_kind_sizes.as_ptr();
        Ok(())
    })
}

unsafe extern "C" fn executable_output_element_types(
    a: *mut PJRT_Executable_OutputElementTypes_Args,
) -> *mut PJRT_Error {
    guard("PJRT_Executable_OutputElementTypes", || {
        let a = args(a, "PJRT_Executable_OutputElementTypes")?;
        let c = compiled(a.executable)?;
        a.output_types = c.output_types.as_ptr().cast_mut();
        a.num_output_types = c.num_outputs();
        Ok(())
    })
}

unsafe extern "C" fn executable_output_dimensions(
    a: *mut PJRT_Executable_OutputDimensions_Args,
) -> *mut PJRT_Error {
    guard("PJRT_Executable_OutputDimensions", || {
        let a = args(a, "PJRT_Executable_OutputDimensions")?;
        let c = compiled(a.executable)?;
        a.num_outputs = c.num_outputs();
        a.dims = c.output_dims.as_ptr();
        a.dim_sizes = c.output_ranks.as_ptr();
        Ok(())
    })
}

unsafe extern "C" fn executable_fingerprint(
    a: *mut PJRT_Executable_Fingerprint_Args,
) -> *mut PJRT_Error {
    guard("PJRT_Executable_Fingerprint", || {
        let a = args(a, "PJRT_Executable_Fingerprint")?;
        let c = compiled(a.executable)?;
        (a.executable_fingerprint, a.executable_fingerprint_size) = str_out(&c.fingerprint);
        Ok(())
    })
}

unsafe extern "C" fn serialized_deleter(serialized: *mut PJRT_SerializedExecutable) {
    let _ = destroy::<Vec<u8>, _>(serialized, "the serialized executable");
}

unsafe extern "C" fn executable_optimized_program(
    a: *mut PJRT_Executable_OptimizedProgram_Args,
) -> *mut PJRT_Error {
    guard("PJRT_Executable_OptimizedProgram", || {
        let a = args(a, "PJRT_Executable_OptimizedProgram")?;
        let compiled = compiled(a.executable)?;
        let text = compiled.optimized.as_deref().ok_or_else(|| {
            Error::unimplemented(format!(
                "`{}`: xla_rs reports an optimized program only for multi-device \
                 programs that give their shardings",
                compiled.name
            ))
        })?;
        // SAFETY: the framework's program struct, or null.
        let program =
            unsafe { a.program.as_mut() }.ok_or_else(|| Error::invalid("the program is null"))?;
        (program.format, program.format_size) = str_out("mlir");
        if program.code.is_null() {
            program.code_size = text.len();
            return Ok(());
        }
        if program.code_size < text.len() {
            return Err(Error::invalid(format!(
                "the program buffer holds {} bytes; the program needs {}",
                program.code_size,
                text.len()
            )));
        }
        // SAFETY: `code` holds `code_size` ≥ `text.len()` writable bytes.
        unsafe {
            std::ptr::copy_nonoverlapping(text.as_ptr(), program.code.cast::<u8>(), text.len())
        };
        program.code_size = text.len();
        Ok(())
    })
}

unsafe extern "C" fn executable_serialize(
    a: *mut PJRT_Executable_Serialize_Args,
) -> *mut PJRT_Error {
    guard("PJRT_Executable_Serialize", || {
        let a = args(a, "PJRT_Executable_Serialize")?;
        let bytes = compiled(a.executable.cast_mut())?.serialized.clone();
        (a.serialized_bytes, a.serialized_bytes_size) = (bytes.as_ptr().cast(), bytes.len());
        a.serialized_executable = into_handle(bytes);
        a.serialized_executable_deleter = Some(serialized_deleter);
        Ok(())
    })
}

unsafe extern "C" fn executable_deserialize_and_load(
    a: *mut PJRT_Executable_DeserializeAndLoad_Args,
) -> *mut PJRT_Error {
    guard("PJRT_Executable_DeserializeAndLoad", || {
        let a = args(a, "PJRT_Executable_DeserializeAndLoad")?;
        let client = obj::<Client, _>(a.client, "the client")?;
        // SAFETY: `serialized_executable_size` bytes.
        let bytes = unsafe {
            slice(
                a.serialized_executable.cast::<u8>(),
                a.serialized_executable_size,
                "the serialized executable",
            )?
        };
        // The framework may pass the compile options (device assignment)
        // the executable is to be loaded with.
        let overridden = unsafe {
            slice(
                a.overridden_serialized_compile_options.cast::<u8>(),
                a.overridden_serialized_compile_options_size,
                "the overridden compile options",
            )?
        };
        let options = CompileOptions::decode(overridden)?;
        let compiled = Compiled::deserialize(client, bytes, &options)?;
        a.loaded_executable = into_handle(LoadedExecutable::new(client, compiled, &options)?);
        Ok(())
    })
}

fn loaded<'a>(executable: *mut PJRT_LoadedExecutable) -> Result<&'a LoadedExecutable> {
    obj::<LoadedExecutable, _>(executable, "the loaded executable")
}

unsafe extern "C" fn loaded_destroy(a: *mut PJRT_LoadedExecutable_Destroy_Args) -> *mut PJRT_Error {
    guard("PJRT_LoadedExecutable_Destroy", || {
        let a = args(a, "PJRT_LoadedExecutable_Destroy")?;
        destroy::<LoadedExecutable, _>(a.executable, "the loaded executable")?;
        Ok(())
    })
}

unsafe extern "C" fn loaded_get_executable(
    a: *mut PJRT_LoadedExecutable_GetExecutable_Args,
) -> *mut PJRT_Error {
    guard("PJRT_LoadedExecutable_GetExecutable", || {
        let a = args(a, "PJRT_LoadedExecutable_GetExecutable")?;
        let compiled = loaded(a.loaded_executable)?.compiled.clone();
        a.executable = into_handle(Executable { compiled });
        Ok(())
    })
}

unsafe extern "C" fn loaded_addressable_devices(
    a: *mut PJRT_LoadedExecutable_AddressableDevices_Args,
) -> *mut PJRT_Error {
    guard("PJRT_LoadedExecutable_AddressableDevices", || {
        let a = args(a, "PJRT_LoadedExecutable_AddressableDevices")?;
        let devices = &loaded(a.executable)?.devices;
        (a.addressable_devices, a.num_addressable_devices) = (devices.as_ptr(), devices.len());
        Ok(())
    })
}

unsafe extern "C" fn loaded_delete(a: *mut PJRT_LoadedExecutable_Delete_Args) -> *mut PJRT_Error {
    guard("PJRT_LoadedExecutable_Delete", || {
        loaded(args(a, "PJRT_LoadedExecutable_Delete")?.executable)?.delete();
        Ok(())
    })
}

unsafe extern "C" fn loaded_is_deleted(
    a: *mut PJRT_LoadedExecutable_IsDeleted_Args,
) -> *mut PJRT_Error {
    guard("PJRT_LoadedExecutable_IsDeleted", || {
        let a = args(a, "PJRT_LoadedExecutable_IsDeleted")?;
        a.is_deleted = loaded(a.executable)?.is_deleted();
        Ok(())
    })
}

unsafe extern "C" fn loaded_fingerprint(
    a: *mut PJRT_LoadedExecutable_Fingerprint_Args,
) -> *mut PJRT_Error {
    guard("PJRT_LoadedExecutable_Fingerprint", || {
        let a = args(a, "PJRT_LoadedExecutable_Fingerprint")?;
        let c = &loaded(a.executable)?.compiled;
        (a.executable_fingerprint, a.executable_fingerprint_size) = str_out(&c.fingerprint);
        Ok(())
    })
}

unsafe extern "C" fn assignment_deleter(serialized: *mut PJRT_DeviceAssignmentSerialized) {
    let _ = destroy::<Vec<u8>, _>(serialized, "the serialized device assignment");
}

unsafe extern "C" fn loaded_device_assignment(
    a: *mut PJRT_LoadedExecutable_GetDeviceAssignment_Args,
) -> *mut PJRT_Error {
    guard("PJRT_LoadedExecutable_GetDeviceAssignment", || {
        let a = args(a, "PJRT_LoadedExecutable_GetDeviceAssignment")?;
        let executable = loaded(a.executable)?;
        let ids = (executable.devices.iter())
            .map(|&d| obj::<Device, _>(d, "a device").map(|d| d.id as i64))
            .collect::<Result<Vec<_>>>()?;
        let bytes = proto::device_assignment(&ids);
        (a.serialized_bytes, a.serialized_bytes_size) = (bytes.as_ptr().cast(), bytes.len());
        a.serialized_device_assignment = into_handle(bytes);
        a.serialized_device_assignment_deleter = Some(assignment_deleter);
        Ok(())
    })
}

unsafe extern "C" fn loaded_execute(a: *mut PJRT_LoadedExecutable_Execute_Args) -> *mut PJRT_Error {
    guard("PJRT_LoadedExecutable_Execute", || {
        let a = args(a, "PJRT_LoadedExecutable_Execute")?;
        let executable = loaded(a.executable)?;
        if executable.is_deleted() {
            return Err(Error::new(
                PJRT_Error_Code_FAILED_PRECONDITION,
                "the executable has been deleted",
            ));
        }
        let keep = match unsafe { a.options.as_ref() } {
            // SAFETY: `num_non_donatable_input_indices` indices.
            Some(o) => unsafe {
                slice(
                    o.non_donatable_input_indices,
                    o.num_non_donatable_input_indices,
                    "non_donatable_input_indices",
                )?
            },
            None => &[],
        };
        // One program per device; `execute_device` runs the portable
        // executable on that device instead of the assigned one.
        let targets: Vec<*mut PJRT_Device> = match a.execute_device.is_null() {
            true => executable.devices.clone(),
            false => {
                obj::<Device, _>(a.execute_device, "execute_device")?;
                vec![a.execute_device]
            }
        };
        if a.num_devices != targets.len() {
            return Err(Error::invalid(format!(
                "`{}` is loaded on {} devices; Execute was given argument lists for {}",
                executable.compiled.name,
                targets.len(),
                a.num_devices
            )));
        }
        // SAFETY: `num_devices` argument lists of `num_args` buffers each,
        // and as many output lists of `num_outputs` slots.
        let lists = unsafe { slice(a.argument_lists, a.num_devices, "argument_lists")? };
        let outputs = unsafe { slice(a.output_lists, a.num_devices, "output_lists")? };
        let mut args = Vec::with_capacity(lists.len());
        for &list in lists {
            let handles = unsafe { slice(list, a.num_args, "an argument list")? };
            args.push(
                (handles.iter())
                    .enumerate()
                    .map(|(i, &b)| obj::<Buffer, _>(b, &format!("argument {i}")))
                    .collect::<Result<Vec<_>>>()?,
            );
        }
        if outputs.iter().any(|o| o.is_null()) && executable.compiled.num_outputs() > 0 {
            return Err(Error::invalid("an output list is null"));
        }
        let results = executable.compiled.run(&args, keep)?;
        for (d, (results, &device)) in results.into_iter().zip(&targets).enumerate() {
            // SAFETY: each output list has `num_outputs` slots.
            let slots = unsafe { std::slice::from_raw_parts_mut(outputs[d], results.len()) };
            for (slot, literal) in slots.iter_mut().zip(results) {
                *slot = into_handle(Buffer::new(literal, device)?);
            }
            if !a.device_complete_events.is_null() {
                // SAFETY: one event slot per device.
                unsafe { *a.device_complete_events.add(d) = ready_event() };
            }
        }
        Ok(())
    })
}

// ---------------------------------------------------------------- buffers

fn buffer<'a>(buffer: *mut PJRT_Buffer) -> Result<&'a Buffer> {
    obj::<Buffer, _>(buffer, "the buffer")
}

unsafe extern "C" fn buffer_destroy(a: *mut PJRT_Buffer_Destroy_Args) -> *mut PJRT_Error {
    guard("PJRT_Buffer_Destroy", || {
        let a = args(a, "PJRT_Buffer_Destroy")?;
        destroy::<Buffer, _>(a.buffer, "the buffer")?;
        Ok(())
    })
}

unsafe extern "C" fn buffer_element_type(a: *mut PJRT_Buffer_ElementType_Args) -> *mut PJRT_Error {
    guard("PJRT_Buffer_ElementType", || {
        let a = args(a, "PJRT_Buffer_ElementType")?;
        a.r#type = buffer_type(buffer(a.buffer)?.element_type);
        Ok(())
    })
}

unsafe extern "C" fn buffer_dimensions(a: *mut PJRT_Buffer_Dimensions_Args) -> *mut PJRT_Error {
    guard("PJRT_Buffer_Dimensions", || {
        let a = args(a, "PJRT_Buffer_Dimensions")?;
        let b = buffer(a.buffer)?;
        (a.dims, a.num_dims) = (b.dims.as_ptr(), b.dims.len());
        Ok(())
    })
}

unsafe extern "C" fn buffer_unpadded_dimensions(
    a: *mut PJRT_Buffer_UnpaddedDimensions_Args,
) -> *mut PJRT_Error {
    guard("PJRT_Buffer_UnpaddedDimensions", || {
        let a = args(a, "PJRT_Buffer_UnpaddedDimensions")?;
        let b = buffer(a.buffer)?;
        (a.unpadded_dims, a.num_dims) = (b.dims.as_ptr(), b.dims.len());
        Ok(())
    })
}

unsafe extern "C" fn buffer_dynamic_dimension_indices(
    a: *mut PJRT_Buffer_DynamicDimensionIndices_Args,
) -> *mut PJRT_Error {
    guard("PJRT_Buffer_DynamicDimensionIndices", || {
        let a = args(a, "PJRT_Buffer_DynamicDimensionIndices")?;
        buffer(a.buffer)?;
        (a.dynamic_dim_indices, a.num_dynamic_dims) = (std::ptr::null(), 0);
        Ok(())
    })
}

unsafe extern "C" fn buffer_get_memory_layout(
    a: *mut PJRT_Buffer_GetMemoryLayout_Args,
) -> *mut PJRT_Error {
    guard("PJRT_Buffer_GetMemoryLayout", || {
        let a = args(a, "PJRT_Buffer_GetMemoryLayout")?;
        let b = buffer(a.buffer)?;
        a.layout.struct_size = PJRT_Buffer_MemoryLayout::STRUCT_SIZE;
        a.layout.extension_start = std::ptr::null_mut();
        a.layout.r#type = PJRT_Buffer_MemoryLayout_Type_Tiled;
        a.layout.value = PJRT_Buffer_MemoryLayout_Union {
            tiled: PJRT_Buffer_MemoryLayout_Tiled {
                struct_size: PJRT_Buffer_MemoryLayout_Tiled::STRUCT_SIZE,
                extension_start: std::ptr::null_mut(),
                minor_to_major: b.minor_to_major.as_ptr(),
                minor_to_major_size: b.minor_to_major.len(),
                tile_dims: std::ptr::null(),
                tile_dim_sizes: std::ptr::null(),
                num_tiles: 0,
            },
        };
        Ok(())
    })
}

unsafe extern "C" fn buffer_on_device_size(
    a: *mut PJRT_Buffer_OnDeviceSizeInBytes_Args,
) -> *mut PJRT_Error {
    guard("PJRT_Buffer_OnDeviceSizeInBytes", || {
        let a = args(a, "PJRT_Buffer_OnDeviceSizeInBytes")?;
        a.on_device_size_in_bytes = buffer(a.buffer)?.byte_size();
        Ok(())
    })
}

unsafe extern "C" fn buffer_device(a: *mut PJRT_Buffer_Device_Args) -> *mut PJRT_Error {
    guard("PJRT_Buffer_Device", || {
        let a = args(a, "PJRT_Buffer_Device")?;
        a.device = buffer(a.buffer)?.device;
        Ok(())
    })
}

unsafe extern "C" fn buffer_memory(a: *mut PJRT_Buffer_Memory_Args) -> *mut PJRT_Error {
    guard("PJRT_Buffer_Memory", || {
        let a = args(a, "PJRT_Buffer_Memory")?;
        let device = buffer(a.buffer)?.device;
        a.memory = obj::<Device, _>(device, "the buffer's device")?.memory_handles[0];
        Ok(())
    })
}

unsafe extern "C" fn buffer_delete(a: *mut PJRT_Buffer_Delete_Args) -> *mut PJRT_Error {
    guard("PJRT_Buffer_Delete", || {
        buffer(args(a, "PJRT_Buffer_Delete")?.buffer)?.delete();
        Ok(())
    })
}

unsafe extern "C" fn buffer_is_deleted(a: *mut PJRT_Buffer_IsDeleted_Args) -> *mut PJRT_Error {
    guard("PJRT_Buffer_IsDeleted", || {
        let a = args(a, "PJRT_Buffer_IsDeleted")?;
        a.is_deleted = buffer(a.buffer)?.is_deleted();
        Ok(())
    })
}

/// A copy of `source` on the device owning `memory`.
fn copy_buffer(source: &Buffer, device: *mut PJRT_Device) -> Result<*mut PJRT_Buffer> {
    let literal = (*source.contents()?).clone();
    Ok(into_handle(Buffer::new(literal, device)?))
}

unsafe extern "C" fn buffer_copy_to_device(
    a: *mut PJRT_Buffer_CopyToDevice_Args,
) -> *mut PJRT_Error {
    guard("PJRT_Buffer_CopyToDevice", || {
        let a = args(a, "PJRT_Buffer_CopyToDevice")?;
        obj::<Device, _>(a.dst_device, "the destination device")?;
        a.dst_buffer = copy_buffer(buffer(a.buffer)?, a.dst_device)?;
        Ok(())
    })
}

unsafe extern "C" fn buffer_copy_to_memory(
    a: *mut PJRT_Buffer_CopyToMemory_Args,
) -> *mut PJRT_Error {
    guard("PJRT_Buffer_CopyToMemory", || {
        let a = args(a, "PJRT_Buffer_CopyToMemory")?;
        let memory = obj::<Memory, _>(a.dst_memory, "the destination memory")?;
        a.dst_buffer = copy_buffer(buffer(a.buffer)?, memory.devices[0])?;
        Ok(())
    })
}

unsafe extern "C" fn buffer_to_host(a: *mut PJRT_Buffer_ToHostBuffer_Args) -> *mut PJRT_Error {
    guard("PJRT_Buffer_ToHostBuffer", || {
        let a = args(a, "PJRT_Buffer_ToHostBuffer")?;
        let b = buffer(a.src)?;
        if let Some(layout) = unsafe { a.host_layout.as_ref() } {
            check_row_major(layout, b.dims.len(), "host_layout")?;
        }
        let size = b.byte_size();
        if a.dst.is_null() {
            a.dst_size = size;
            return Ok(());
        }
        if a.dst_size < size {
            return Err(Error::invalid(format!(
                "the host buffer holds {} bytes; the array needs {size}",
                a.dst_size
            )));
        }
        let contents = b.contents()?;
        let bytes = contents
            .bytes()
            .map_err(|e| Error::invalid(e.to_string()))?;
        // SAFETY: `dst` holds `dst_size` ≥ `size` writable bytes.
        unsafe { std::ptr::copy_nonoverlapping(bytes.as_ptr(), a.dst.cast::<u8>(), size) };
        a.event = ready_event();
        Ok(())
    })
}

unsafe extern "C" fn buffer_is_on_cpu(a: *mut PJRT_Buffer_IsOnCpu_Args) -> *mut PJRT_Error {
    guard("PJRT_Buffer_IsOnCpu", || {
        let a = args(a, "PJRT_Buffer_IsOnCpu")?;
        buffer(a.buffer)?;
        // Host memory, but not aliasable by the framework: contents move
        // when donated, so the framework copies out instead.
        a.is_on_cpu = false;
        Ok(())
    })
}

unsafe extern "C" fn buffer_ready_event(a: *mut PJRT_Buffer_ReadyEvent_Args) -> *mut PJRT_Error {
    guard("PJRT_Buffer_ReadyEvent", || {
        let a = args(a, "PJRT_Buffer_ReadyEvent")?;
        buffer(a.buffer)?;
        a.event = ready_event();
        Ok(())
    })
}

/// The address of a buffer's first byte.
fn data_pointer(b: &Buffer) -> Result<*mut c_void> {
    let contents = b.contents()?;
    let bytes = contents
        .bytes()
        .map_err(|e| Error::invalid(e.to_string()))?;
    Ok(bytes.as_ptr().cast_mut().cast())
}

unsafe extern "C" fn buffer_unsafe_pointer(
    a: *mut PJRT_Buffer_UnsafePointer_Args,
) -> *mut PJRT_Error {
    guard("PJRT_Buffer_UnsafePointer", || {
        let a = args(a, "PJRT_Buffer_UnsafePointer")?;
        a.buffer_pointer = data_pointer(buffer(a.buffer)?)? as usize;
        Ok(())
    })
}

unsafe extern "C" fn buffer_opaque_pointer(
    a: *mut PJRT_Buffer_OpaqueDeviceMemoryDataPointer_Args,
) -> *mut PJRT_Error {
    guard("PJRT_Buffer_OpaqueDeviceMemoryDataPointer", || {
        let a = args(a, "PJRT_Buffer_OpaqueDeviceMemoryDataPointer")?;
        a.device_memory_ptr = data_pointer(buffer(a.buffer)?)?;
        Ok(())
    })
}

unsafe extern "C" fn buffer_increase_external_references(
    a: *mut PJRT_Buffer_IncreaseExternalReferenceCount_Args,
) -> *mut PJRT_Error {
    guard("PJRT_Buffer_IncreaseExternalReferenceCount", || {
        let a = args(a, "PJRT_Buffer_IncreaseExternalReferenceCount")?;
        buffer(a.buffer)?.add_external_reference()
    })
}

unsafe extern "C" fn buffer_decrease_external_references(
    a: *mut PJRT_Buffer_DecreaseExternalReferenceCount_Args,
) -> *mut PJRT_Error {
    guard("PJRT_Buffer_DecreaseExternalReferenceCount", || {
        let a = args(a, "PJRT_Buffer_DecreaseExternalReferenceCount")?;
        buffer(a.buffer)?.drop_external_reference()
    })
}

// ---------------------------------------------------------------- the table

/// What an unimplemented entry point returns.
trait Unimplemented {
    fn unimplemented(name: &str) -> Self;
}

impl Unimplemented for *mut PJRT_Error {
    fn unimplemented(name: &str) -> Self {
        Error::unimplemented(format!("{name} is not implemented by the xla_rs plugin")).into_raw()
    }
}

impl Unimplemented for () {
    fn unimplemented(_: &str) {}
}

/// The table with every slot answering `UNIMPLEMENTED`.
macro_rules! unimplemented_table {
    ($($name:ident($args:ty) -> $ret:ty,)*) => {
        PJRT_Api {
            struct_size: std::mem::size_of::<PJRT_Api>(),
            extension_start: std::ptr::null_mut(),
            pjrt_api_version: PJRT_Api_Version {
                struct_size: PJRT_Api_Version::STRUCT_SIZE,
                extension_start: std::ptr::null_mut(),
                major_version: PJRT_API_MAJOR,
                minor_version: PJRT_API_MINOR,
            },
            $($name: {
                unsafe extern "C" fn stub(_: *mut $args) -> $ret {
                    <$ret as Unimplemented>::unimplemented(stringify!($name))
                }
                Some(stub)
            },)*
        }
    };
}

struct Api(PJRT_Api);

// SAFETY: the table holds function pointers and a null extension list.
unsafe impl Send for Api {}
// SAFETY: as above; never mutated after construction.
unsafe impl Sync for Api {}

/// The plugin's `PJRT_Api`.
pub fn api() -> &'static PJRT_Api {
    static API: OnceLock<Api> = OnceLock::new();
    &API.get_or_init(|| {
        let mut api = for_each_api_function!(unimplemented_table);
        api.PJRT_Error_Destroy = Some(error_destroy);
        api.PJRT_Error_Message = Some(error_message);
        api.PJRT_Error_GetCode = Some(error_get_code);
        api.PJRT_Plugin_Initialize = Some(plugin_initialize);
        api.PJRT_Plugin_Attributes = Some(plugin_attributes);
        api.PJRT_Event_Destroy = Some(event_destroy);
        api.PJRT_Event_IsReady = Some(event_is_ready);
        api.PJRT_Event_Error = Some(event_error_fn);
        api.PJRT_Event_Await = Some(event_await);
        api.PJRT_Event_OnReady = Some(event_on_ready);
        api.PJRT_Client_Create = Some(client_create);
        api.PJRT_Client_Destroy = Some(client_destroy);
        api.PJRT_Client_PlatformName = Some(client_platform_name);
        api.PJRT_Client_ProcessIndex = Some(client_process_index);
        api.PJRT_Client_PlatformVersion = Some(client_platform_version);
        api.PJRT_Client_Devices = Some(client_devices);
        api.PJRT_Client_AddressableDevices = Some(client_addressable_devices);
        api.PJRT_Client_LookupDevice = Some(client_lookup_device);
        api.PJRT_Client_LookupAddressableDevice = Some(client_lookup_addressable_device);
        api.PJRT_Client_AddressableMemories = Some(client_addressable_memories);
        api.PJRT_Client_Compile = Some(client_compile);
        api.PJRT_Client_DefaultDeviceAssignment = Some(client_default_device_assignment);
        api.PJRT_Client_BufferFromHostBuffer = Some(client_buffer_from_host_buffer);
        api.PJRT_Client_TopologyDescription = Some(client_topology_description);
        api.PJRT_DeviceDescription_Id = Some(description_id);
        api.PJRT_DeviceDescription_ProcessIndex = Some(description_process_index);
        api.PJRT_DeviceDescription_Attributes = Some(description_attributes);
        api.PJRT_DeviceDescription_Kind = Some(description_kind);
        api.PJRT_DeviceDescription_DebugString = Some(description_debug_string);
        api.PJRT_DeviceDescription_ToString = Some(description_to_string);
        api.PJRT_Device_GetDescription = Some(device_get_description);
        api.PJRT_Device_IsAddressable = Some(device_is_addressable);
        api.PJRT_Device_LocalHardwareId = Some(device_local_hardware_id);
        api.PJRT_Device_AddressableMemories = Some(device_addressable_memories);
        api.PJRT_Device_DefaultMemory = Some(device_default_memory);
        api.PJRT_Memory_Id = Some(memory_id);
        api.PJRT_Memory_Kind = Some(memory_kind);
        api.PJRT_Memory_Kind_Id = Some(memory_kind_id);
        api.PJRT_Memory_DebugString = Some(memory_debug_string);
        api.PJRT_Memory_ToString = Some(memory_to_string);
        api.PJRT_Memory_AddressableByDevices = Some(memory_addressable_by_devices);
        api.PJRT_Executable_Destroy = Some(executable_destroy);
        api.PJRT_Executable_Name = Some(executable_name);
        api.PJRT_Executable_NumReplicas = Some(executable_num_replicas);
        api.PJRT_Executable_NumPartitions = Some(executable_num_partitions);
        api.PJRT_Executable_NumOutputs = Some(executable_num_outputs);
        api.PJRT_Executable_GetCostAnalysis = Some(executable_cost_analysis);
        api.PJRT_Executable_OutputMemoryKinds = Some(executable_output_memory_kinds);
        api.PJRT_Executable_OutputElementTypes = Some(executable_output_element_types);
        api.PJRT_Executable_OutputDimensions = Some(executable_output_dimensions);
        api.PJRT_Executable_Fingerprint = Some(executable_fingerprint);
        api.PJRT_Executable_Serialize = Some(executable_serialize);
        api.PJRT_Executable_OptimizedProgram = Some(executable_optimized_program);
        api.PJRT_Executable_DeserializeAndLoad = Some(executable_deserialize_and_load);
        api.PJRT_LoadedExecutable_Destroy = Some(loaded_destroy);
        api.PJRT_LoadedExecutable_GetExecutable = Some(loaded_get_executable);
        api.PJRT_LoadedExecutable_AddressableDevices = Some(loaded_addressable_devices);
        api.PJRT_LoadedExecutable_Delete = Some(loaded_delete);
        api.PJRT_LoadedExecutable_IsDeleted = Some(loaded_is_deleted);
        api.PJRT_LoadedExecutable_Fingerprint = Some(loaded_fingerprint);
        api.PJRT_LoadedExecutable_Execute = Some(loaded_execute);
        api.PJRT_LoadedExecutable_GetDeviceAssignment = Some(loaded_device_assignment);
        api.PJRT_Buffer_Destroy = Some(buffer_destroy);
        api.PJRT_Buffer_ElementType = Some(buffer_element_type);
        api.PJRT_Buffer_Dimensions = Some(buffer_dimensions);
        api.PJRT_Buffer_UnpaddedDimensions = Some(buffer_unpadded_dimensions);
        api.PJRT_Buffer_DynamicDimensionIndices = Some(buffer_dynamic_dimension_indices);
        api.PJRT_Buffer_GetMemoryLayout = Some(buffer_get_memory_layout);
        api.PJRT_Buffer_OnDeviceSizeInBytes = Some(buffer_on_device_size);
        api.PJRT_Buffer_Device = Some(buffer_device);
        api.PJRT_Buffer_Memory = Some(buffer_memory);
        api.PJRT_Buffer_Delete = Some(buffer_delete);
        api.PJRT_Buffer_IsDeleted = Some(buffer_is_deleted);
        api.PJRT_Buffer_CopyToDevice = Some(buffer_copy_to_device);
        api.PJRT_Buffer_CopyToMemory = Some(buffer_copy_to_memory);
        api.PJRT_Buffer_ToHostBuffer = Some(buffer_to_host);
        api.PJRT_Buffer_IsOnCpu = Some(buffer_is_on_cpu);
        api.PJRT_Buffer_ReadyEvent = Some(buffer_ready_event);
        api.PJRT_Buffer_UnsafePointer = Some(buffer_unsafe_pointer);
        api.PJRT_Buffer_OpaqueDeviceMemoryDataPointer = Some(buffer_opaque_pointer);
        api.PJRT_Buffer_IncreaseExternalReferenceCount = Some(buffer_increase_external_references);
        api.PJRT_Buffer_DecreaseExternalReferenceCount = Some(buffer_decrease_external_references);
        api.PJRT_TopologyDescription_Destroy = Some(topology_destroy);
        api.PJRT_TopologyDescription_PlatformName = Some(topology_platform_name);
        api.PJRT_TopologyDescription_PlatformVersion = Some(topology_platform_version);
        api.PJRT_TopologyDescription_GetDeviceDescriptions = Some(topology_device_descriptions);
        api.PJRT_TopologyDescription_Attributes = Some(topology_attributes);
        api.PJRT_TopologyDescription_Serialize = Some(topology_serialize);
        Api(api)
    })
    .0
}
