//! The C entry points: one function per `PJRT_Api` slot this plugin
//! implements, and the table (`GetPjrtApi`) with every other slot
//! answering `UNIMPLEMENTED`.

mod buffer;
mod client;
mod device;
mod event;
mod executable;
mod plugin;

use std::sync::OnceLock;

use crate::error::{Error, Result};
use crate::ffi::*;
use crate::handles::{self, Handle, Kind};
use buffer::{
    buffer_copy_to_device, buffer_copy_to_memory, buffer_decrease_external_references,
    buffer_delete, buffer_destroy, buffer_device, buffer_dimensions,
    buffer_dynamic_dimension_indices, buffer_element_type, buffer_get_memory_layout,
    buffer_increase_external_references, buffer_is_deleted, buffer_is_on_cpu, buffer_memory,
    buffer_on_device_size, buffer_opaque_pointer, buffer_ready_event, buffer_to_host,
    buffer_unpadded_dimensions, buffer_unsafe_pointer,
};
use client::{
    client_addressable_devices, client_addressable_memories, client_buffer_from_host_buffer,
    client_compile, client_create, client_default_device_assignment, client_destroy,
    client_devices, client_lookup_addressable_device, client_lookup_device, client_platform_name,
    client_platform_version, client_process_index, client_topology_description,
};
use device::{
    description_attributes, description_debug_string, description_id, description_kind,
    description_process_index, description_to_string, device_addressable_memories,
    device_default_memory, device_get_description, device_is_addressable, device_local_hardware_id,
    memory_addressable_by_devices, memory_debug_string, memory_id, memory_kind, memory_kind_id,
    memory_to_string, topology_attributes, topology_destroy, topology_device_descriptions,
    topology_platform_name, topology_platform_version, topology_serialize,
};
use event::{event_await, event_destroy, event_error_fn, event_is_ready, event_on_ready};
use executable::{
    executable_cost_analysis, executable_deserialize_and_load, executable_destroy,
    executable_fingerprint, executable_name, executable_num_outputs, executable_num_partitions,
    executable_num_replicas, executable_optimized_program, executable_output_dimensions,
    executable_output_element_types, executable_output_memory_kinds, executable_serialize,
    loaded_addressable_devices, loaded_delete, loaded_destroy, loaded_device_assignment,
    loaded_execute, loaded_fingerprint, loaded_get_executable, loaded_is_deleted,
};
use plugin::{error_destroy, error_get_code, error_message, plugin_attributes, plugin_initialize};
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

/// Frees a handle made by [`into_handle`](handles::into_handle) (null is fine).
fn destroy<T: Handle, H>(handle: *mut H, what: &str) -> Result<()> {
    if !handle.is_null() {
        handles::unregister(handle, T::KIND, what)?;
        // SAFETY: it was live, so it is a `Box<T>` the plugin leaked, and
        // it is no longer registered, so it is freed once.
        drop(unsafe { Box::from_raw(handle.cast::<T>()) });
    }
    Ok(())
}

impl Handle for Vec<u8> {
    const KIND: Kind = Kind::Bytes;
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
