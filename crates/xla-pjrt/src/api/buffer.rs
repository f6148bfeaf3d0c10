//! Buffers: their shape, layout, device and memory, copies to other
//! devices and to the host, and their data pointers.

use std::ffi::c_void;

use super::client::check_row_major;
use super::event::ready_event;
use super::{destroy, obj};
use crate::buffer::{buffer_type, Buffer};
use crate::client::{Device, Memory};
use crate::error::{args, guard, Error, Result};
use crate::ffi::*;
use crate::handles::into_handle;

pub(super) fn buffer<'a>(buffer: *mut PJRT_Buffer) -> Result<&'a Buffer> {
    obj::<Buffer, _>(buffer, "the buffer")
}

pub(super) unsafe extern "C" fn buffer_destroy(
    a: *mut PJRT_Buffer_Destroy_Args,
) -> *mut PJRT_Error {
    guard("PJRT_Buffer_Destroy", || {
        let a = args(a, "PJRT_Buffer_Destroy")?;
        destroy::<Buffer, _>(a.buffer, "the buffer")?;
        Ok(())
    })
}

pub(super) unsafe extern "C" fn buffer_element_type(
    a: *mut PJRT_Buffer_ElementType_Args,
) -> *mut PJRT_Error {
    guard("PJRT_Buffer_ElementType", || {
        let a = args(a, "PJRT_Buffer_ElementType")?;
        a.r#type = buffer_type(buffer(a.buffer)?.element_type);
        Ok(())
    })
}

pub(super) unsafe extern "C" fn buffer_dimensions(
    a: *mut PJRT_Buffer_Dimensions_Args,
) -> *mut PJRT_Error {
    guard("PJRT_Buffer_Dimensions", || {
        let a = args(a, "PJRT_Buffer_Dimensions")?;
        let b = buffer(a.buffer)?;
        (a.dims, a.num_dims) = (b.dims.as_ptr(), b.dims.len());
        Ok(())
    })
}

pub(super) unsafe extern "C" fn buffer_unpadded_dimensions(
    a: *mut PJRT_Buffer_UnpaddedDimensions_Args,
) -> *mut PJRT_Error {
    guard("PJRT_Buffer_UnpaddedDimensions", || {
        let a = args(a, "PJRT_Buffer_UnpaddedDimensions")?;
        let b = buffer(a.buffer)?;
        (a.unpadded_dims, a.num_dims) = (b.dims.as_ptr(), b.dims.len());
        Ok(())
    })
}

pub(super) unsafe extern "C" fn buffer_dynamic_dimension_indices(
    a: *mut PJRT_Buffer_DynamicDimensionIndices_Args,
) -> *mut PJRT_Error {
    guard("PJRT_Buffer_DynamicDimensionIndices", || {
        let a = args(a, "PJRT_Buffer_DynamicDimensionIndices")?;
        buffer(a.buffer)?;
        (a.dynamic_dim_indices, a.num_dynamic_dims) = (std::ptr::null(), 0);
        Ok(())
    })
}

pub(super) unsafe extern "C" fn buffer_get_memory_layout(
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

pub(super) unsafe extern "C" fn buffer_on_device_size(
    a: *mut PJRT_Buffer_OnDeviceSizeInBytes_Args,
) -> *mut PJRT_Error {
    guard("PJRT_Buffer_OnDeviceSizeInBytes", || {
        let a = args(a, "PJRT_Buffer_OnDeviceSizeInBytes")?;
        a.on_device_size_in_bytes = buffer(a.buffer)?.byte_size();
        Ok(())
    })
}

pub(super) unsafe extern "C" fn buffer_device(a: *mut PJRT_Buffer_Device_Args) -> *mut PJRT_Error {
    guard("PJRT_Buffer_Device", || {
        let a = args(a, "PJRT_Buffer_Device")?;
        a.device = buffer(a.buffer)?.device;
        Ok(())
    })
}

pub(super) unsafe extern "C" fn buffer_memory(a: *mut PJRT_Buffer_Memory_Args) -> *mut PJRT_Error {
    guard("PJRT_Buffer_Memory", || {
        let a = args(a, "PJRT_Buffer_Memory")?;
        let device = buffer(a.buffer)?.device;
        a.memory = obj::<Device, _>(device, "the buffer's device")?.memory_handles[0];
        Ok(())
    })
}

pub(super) unsafe extern "C" fn buffer_delete(a: *mut PJRT_Buffer_Delete_Args) -> *mut PJRT_Error {
    guard("PJRT_Buffer_Delete", || {
        buffer(args(a, "PJRT_Buffer_Delete")?.buffer)?.delete();
        Ok(())
    })
}

pub(super) unsafe extern "C" fn buffer_is_deleted(
    a: *mut PJRT_Buffer_IsDeleted_Args,
) -> *mut PJRT_Error {
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

pub(super) unsafe extern "C" fn buffer_copy_to_device(
    a: *mut PJRT_Buffer_CopyToDevice_Args,
) -> *mut PJRT_Error {
    guard("PJRT_Buffer_CopyToDevice", || {
        let a = args(a, "PJRT_Buffer_CopyToDevice")?;
        obj::<Device, _>(a.dst_device, "the destination device")?;
        a.dst_buffer = copy_buffer(buffer(a.buffer)?, a.dst_device)?;
        Ok(())
    })
}

pub(super) unsafe extern "C" fn buffer_copy_to_memory(
    a: *mut PJRT_Buffer_CopyToMemory_Args,
) -> *mut PJRT_Error {
    guard("PJRT_Buffer_CopyToMemory", || {
        let a = args(a, "PJRT_Buffer_CopyToMemory")?;
        let memory = obj::<Memory, _>(a.dst_memory, "the destination memory")?;
        a.dst_buffer = copy_buffer(buffer(a.buffer)?, memory.devices[0])?;
        Ok(())
    })
}

pub(super) unsafe extern "C" fn buffer_to_host(
    a: *mut PJRT_Buffer_ToHostBuffer_Args,
) -> *mut PJRT_Error {
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

pub(super) unsafe extern "C" fn buffer_is_on_cpu(
    a: *mut PJRT_Buffer_IsOnCpu_Args,
) -> *mut PJRT_Error {
    guard("PJRT_Buffer_IsOnCpu", || {
        let a = args(a, "PJRT_Buffer_IsOnCpu")?;
        buffer(a.buffer)?;
        // Host memory, but not aliasable by the framework: contents move
        // when donated, so the framework copies out instead.
        a.is_on_cpu = false;
        Ok(())
    })
}

pub(super) unsafe extern "C" fn buffer_ready_event(
    a: *mut PJRT_Buffer_ReadyEvent_Args,
) -> *mut PJRT_Error {
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

pub(super) unsafe extern "C" fn buffer_unsafe_pointer(
    a: *mut PJRT_Buffer_UnsafePointer_Args,
) -> *mut PJRT_Error {
    guard("PJRT_Buffer_UnsafePointer", || {
        let a = args(a, "PJRT_Buffer_UnsafePointer")?;
        a.buffer_pointer = data_pointer(buffer(a.buffer)?)? as usize;
        Ok(())
    })
}

pub(super) unsafe extern "C" fn buffer_opaque_pointer(
    a: *mut PJRT_Buffer_OpaqueDeviceMemoryDataPointer_Args,
) -> *mut PJRT_Error {
    guard("PJRT_Buffer_OpaqueDeviceMemoryDataPointer", || {
        let a = args(a, "PJRT_Buffer_OpaqueDeviceMemoryDataPointer")?;
        a.device_memory_ptr = data_pointer(buffer(a.buffer)?)?;
        Ok(())
    })
}

pub(super) unsafe extern "C" fn buffer_increase_external_references(
    a: *mut PJRT_Buffer_IncreaseExternalReferenceCount_Args,
) -> *mut PJRT_Error {
    guard("PJRT_Buffer_IncreaseExternalReferenceCount", || {
        let a = args(a, "PJRT_Buffer_IncreaseExternalReferenceCount")?;
        buffer(a.buffer)?.add_external_reference()
    })
}

pub(super) unsafe extern "C" fn buffer_decrease_external_references(
    a: *mut PJRT_Buffer_DecreaseExternalReferenceCount_Args,
) -> *mut PJRT_Error {
    guard("PJRT_Buffer_DecreaseExternalReferenceCount", || {
        let a = args(a, "PJRT_Buffer_DecreaseExternalReferenceCount")?;
        buffer(a.buffer)?.drop_external_reference()
    })
}
