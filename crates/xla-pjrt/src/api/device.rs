//! Topologies, device descriptions, devices and memories.

use std::ffi::c_int;

use super::{destroy, obj};
use crate::client::{
    Client, Device, DeviceDescription, Memory, MEMORY_KIND, PLATFORM_NAME, PLATFORM_VERSION,
};
use crate::error::{args, guard, str_out};
use crate::ffi::*;
use crate::handles::into_handle;

// ---------------------------------------------------------------- topology

pub(super) unsafe extern "C" fn topology_destroy(
    a: *mut PJRT_TopologyDescription_Destroy_Args,
) -> *mut PJRT_Error {
    // The only topologies are clients', owned by their client.
    guard("PJRT_TopologyDescription_Destroy", || {
        args(a, "PJRT_TopologyDescription_Destroy").map(drop)
    })
}

pub(super) unsafe extern "C" fn topology_platform_name(
    a: *mut PJRT_TopologyDescription_PlatformName_Args,
) -> *mut PJRT_Error {
    guard("PJRT_TopologyDescription_PlatformName", || {
        let a = args(a, "PJRT_TopologyDescription_PlatformName")?;
        obj::<Client, _>(a.topology, "the topology")?;
        (a.platform_name, a.platform_name_size) = str_out(PLATFORM_NAME);
        Ok(())
    })
}

pub(super) unsafe extern "C" fn topology_platform_version(
    a: *mut PJRT_TopologyDescription_PlatformVersion_Args,
) -> *mut PJRT_Error {
    guard("PJRT_TopologyDescription_PlatformVersion", || {
        let a = args(a, "PJRT_TopologyDescription_PlatformVersion")?;
        obj::<Client, _>(a.topology, "the topology")?;
        (a.platform_version, a.platform_version_size) = str_out(PLATFORM_VERSION);
        Ok(())
    })
}

pub(super) unsafe extern "C" fn topology_device_descriptions(
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

pub(super) unsafe extern "C" fn topology_attributes(
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

pub(super) unsafe extern "C" fn topology_serialize(
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

pub(super) unsafe extern "C" fn description_id(
    a: *mut PJRT_DeviceDescription_Id_Args,
) -> *mut PJRT_Error {
    guard("PJRT_DeviceDescription_Id", || {
        let a = args(a, "PJRT_DeviceDescription_Id")?;
        a.id = obj::<DeviceDescription, _>(a.device_description, "the description")?.id;
        Ok(())
    })
}

pub(super) unsafe extern "C" fn description_process_index(
    a: *mut PJRT_DeviceDescription_ProcessIndex_Args,
) -> *mut PJRT_Error {
    guard("PJRT_DeviceDescription_ProcessIndex", || {
        let a = args(a, "PJRT_DeviceDescription_ProcessIndex")?;
        obj::<DeviceDescription, _>(a.device_description, "the description")?;
        a.process_index = 0;
        Ok(())
    })
}

pub(super) unsafe extern "C" fn description_attributes(
    a: *mut PJRT_DeviceDescription_Attributes_Args,
) -> *mut PJRT_Error {
    guard("PJRT_DeviceDescription_Attributes", || {
        let a = args(a, "PJRT_DeviceDescription_Attributes")?;
        obj::<DeviceDescription, _>(a.device_description, "the description")?;
        (a.attributes, a.num_attributes) = (std::ptr::null(), 0);
        Ok(())
    })
}

pub(super) unsafe extern "C" fn description_kind(
    a: *mut PJRT_DeviceDescription_Kind_Args,
) -> *mut PJRT_Error {
    guard("PJRT_DeviceDescription_Kind", || {
        let a = args(a, "PJRT_DeviceDescription_Kind")?;
        obj::<DeviceDescription, _>(a.device_description, "the description")?;
        (a.device_kind, a.device_kind_size) = str_out(PLATFORM_NAME);
        Ok(())
    })
}

pub(super) unsafe extern "C" fn description_debug_string(
    a: *mut PJRT_DeviceDescription_DebugString_Args,
) -> *mut PJRT_Error {
    guard("PJRT_DeviceDescription_DebugString", || {
        let a = args(a, "PJRT_DeviceDescription_DebugString")?;
        let d = obj::<DeviceDescription, _>(a.device_description, "the description")?;
        (a.debug_string, a.debug_string_size) = str_out(&d.debug_string);
        Ok(())
    })
}

pub(super) unsafe extern "C" fn description_to_string(
    a: *mut PJRT_DeviceDescription_ToString_Args,
) -> *mut PJRT_Error {
    guard("PJRT_DeviceDescription_ToString", || {
        let a = args(a, "PJRT_DeviceDescription_ToString")?;
        let d = obj::<DeviceDescription, _>(a.device_description, "the description")?;
        (a.to_string, a.to_string_size) = str_out(&d.to_string);
        Ok(())
    })
}

pub(super) unsafe extern "C" fn device_get_description(
    a: *mut PJRT_Device_GetDescription_Args,
) -> *mut PJRT_Error {
    guard("PJRT_Device_GetDescription", || {
        let a = args(a, "PJRT_Device_GetDescription")?;
        let device = obj::<Device, _>(a.device, "the device")?;
        a.device_description = std::ptr::from_ref(&device.description).cast_mut().cast();
        Ok(())
    })
}

pub(super) unsafe extern "C" fn device_is_addressable(
    a: *mut PJRT_Device_IsAddressable_Args,
) -> *mut PJRT_Error {
    guard("PJRT_Device_IsAddressable", || {
        let a = args(a, "PJRT_Device_IsAddressable")?;
        obj::<Device, _>(a.device, "the device")?;
        a.is_addressable = true;
        Ok(())
    })
}

pub(super) unsafe extern "C" fn device_local_hardware_id(
    a: *mut PJRT_Device_LocalHardwareId_Args,
) -> *mut PJRT_Error {
    guard("PJRT_Device_LocalHardwareId", || {
        let a = args(a, "PJRT_Device_LocalHardwareId")?;
        a.local_hardware_id = obj::<Device, _>(a.device, "the device")?.id as c_int;
        Ok(())
    })
}

pub(super) unsafe extern "C" fn device_addressable_memories(
    a: *mut PJRT_Device_AddressableMemories_Args,
) -> *mut PJRT_Error {
    guard("PJRT_Device_AddressableMemories", || {
        let a = args(a, "PJRT_Device_AddressableMemories")?;
        let device = obj::<Device, _>(a.device, "the device")?;
        (a.memories, a.num_memories) = (device.memory_handles.as_ptr(), 1);
        Ok(())
    })
}

pub(super) unsafe extern "C" fn device_default_memory(
    a: *mut PJRT_Device_DefaultMemory_Args,
) -> *mut PJRT_Error {
    guard("PJRT_Device_DefaultMemory", || {
        let a = args(a, "PJRT_Device_DefaultMemory")?;
        a.memory = obj::<Device, _>(a.device, "the device")?.memory_handles[0];
        Ok(())
    })
}

// ---------------------------------------------------------------- memories

pub(super) unsafe extern "C" fn memory_id(a: *mut PJRT_Memory_Id_Args) -> *mut PJRT_Error {
    guard("PJRT_Memory_Id", || {
        let a = args(a, "PJRT_Memory_Id")?;
        a.id = obj::<Memory, _>(a.memory, "the memory")?.id;
        Ok(())
    })
}

pub(super) unsafe extern "C" fn memory_kind(a: *mut PJRT_Memory_Kind_Args) -> *mut PJRT_Error {
    guard("PJRT_Memory_Kind", || {
        let a = args(a, "PJRT_Memory_Kind")?;
        obj::<Memory, _>(a.memory, "the memory")?;
        (a.kind, a.kind_size) = str_out(MEMORY_KIND);
        Ok(())
    })
}

pub(super) unsafe extern "C" fn memory_kind_id(
    a: *mut PJRT_Memory_Kind_Id_Args,
) -> *mut PJRT_Error {
    guard("PJRT_Memory_Kind_Id", || {
        let a = args(a, "PJRT_Memory_Kind_Id")?;
        obj::<Memory, _>(a.memory, "the memory")?;
        a.kind_id = 0;
        Ok(())
    })
}

pub(super) unsafe extern "C" fn memory_debug_string(
    a: *mut PJRT_Memory_DebugString_Args,
) -> *mut PJRT_Error {
    guard("PJRT_Memory_DebugString", || {
        let a = args(a, "PJRT_Memory_DebugString")?;
        let memory = obj::<Memory, _>(a.memory, "the memory")?;
        (a.debug_string, a.debug_string_size) = str_out(&memory.debug_string);
        Ok(())
    })
}

pub(super) unsafe extern "C" fn memory_to_string(
    a: *mut PJRT_Memory_ToString_Args,
) -> *mut PJRT_Error {
    guard("PJRT_Memory_ToString", || {
        let a = args(a, "PJRT_Memory_ToString")?;
        let memory = obj::<Memory, _>(a.memory, "the memory")?;
        (a.to_string, a.to_string_size) = str_out(&memory.to_string);
        Ok(())
    })
}

pub(super) unsafe extern "C" fn memory_addressable_by_devices(
    a: *mut PJRT_Memory_AddressableByDevices_Args,
) -> *mut PJRT_Error {
    guard("PJRT_Memory_AddressableByDevices", || {
        let a = args(a, "PJRT_Memory_AddressableByDevices")?;
        let memory = obj::<Memory, _>(a.memory, "the memory")?;
        (a.devices, a.num_devices) = (memory.devices.as_ptr(), 1);
        Ok(())
    })
}
