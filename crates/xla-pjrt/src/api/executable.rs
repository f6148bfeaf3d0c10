//! Executables (compiled programs: their outputs, fingerprints and
//! serialized forms) and loaded executables (their devices, and running
//! them).

use super::event::ready_event;
use super::{destroy, obj, slice};
use crate::buffer::Buffer;
use crate::client::{Client, Device};
use crate::error::{args, guard, str_out, Error, Result};
use crate::executable::{Compiled, Executable, LoadedExecutable};
use crate::ffi::*;
use crate::handles::into_handle;
use crate::proto::{self, CompileOptions};

pub(super) unsafe extern "C" fn executable_destroy(
    a: *mut PJRT_Executable_Destroy_Args,
) -> *mut PJRT_Error {
    guard("PJRT_Executable_Destroy", || {
        let a = args(a, "PJRT_Executable_Destroy")?;
        destroy::<Executable, _>(a.executable, "the executable")?;
        Ok(())
    })
}

pub(super) fn compiled<'a>(executable: *mut PJRT_Executable) -> Result<&'a Compiled> {
    Ok(&obj::<Executable, _>(executable, "the executable")?.compiled)
}

pub(super) unsafe extern "C" fn executable_name(
    a: *mut PJRT_Executable_Name_Args,
) -> *mut PJRT_Error {
    guard("PJRT_Executable_Name", || {
        let a = args(a, "PJRT_Executable_Name")?;
        (a.executable_name, a.executable_name_size) = str_out(&compiled(a.executable)?.name);
        Ok(())
    })
}

pub(super) unsafe extern "C" fn executable_num_replicas(
    a: *mut PJRT_Executable_NumReplicas_Args,
) -> *mut PJRT_Error {
    guard("PJRT_Executable_NumReplicas", || {
        let a = args(a, "PJRT_Executable_NumReplicas")?;
        a.num_replicas = compiled(a.executable)?.assignment.num_replicas;
        Ok(())
    })
}

pub(super) unsafe extern "C" fn executable_num_partitions(
    a: *mut PJRT_Executable_NumPartitions_Args,
) -> *mut PJRT_Error {
    guard("PJRT_Executable_NumPartitions", || {
        let a = args(a, "PJRT_Executable_NumPartitions")?;
        a.num_partitions = compiled(a.executable)?.assignment.num_partitions;
        Ok(())
    })
}

pub(super) unsafe extern "C" fn executable_num_outputs(
    a: *mut PJRT_Executable_NumOutputs_Args,
) -> *mut PJRT_Error {
    guard("PJRT_Executable_NumOutputs", || {
        let a = args(a, "PJRT_Executable_NumOutputs")?;
        a.num_outputs = compiled(a.executable)?.num_outputs();
        Ok(())
    })
}

pub(super) unsafe extern "C" fn executable_cost_analysis(
    a: *mut PJRT_Executable_GetCostAnalysis_Args,
) -> *mut PJRT_Error {
    guard("PJRT_Executable_GetCostAnalysis", || {
        let a = args(a, "PJRT_Executable_GetCostAnalysis")?;
        compiled(a.executable)?;
        (a.properties, a.num_properties) = (std::ptr::null(), 0);
        Ok(())
    })
}

pub(super) unsafe extern "C" fn executable_output_memory_kinds(
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

pub(super) unsafe extern "C" fn executable_output_element_types(
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

pub(super) unsafe extern "C" fn executable_output_dimensions(
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

pub(super) unsafe extern "C" fn executable_fingerprint(
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

pub(super) unsafe extern "C" fn executable_optimized_program(
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

pub(super) unsafe extern "C" fn executable_serialize(
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

pub(super) unsafe extern "C" fn executable_deserialize_and_load(
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

pub(super) unsafe extern "C" fn loaded_destroy(
    a: *mut PJRT_LoadedExecutable_Destroy_Args,
) -> *mut PJRT_Error {
    guard("PJRT_LoadedExecutable_Destroy", || {
        let a = args(a, "PJRT_LoadedExecutable_Destroy")?;
        destroy::<LoadedExecutable, _>(a.executable, "the loaded executable")?;
        Ok(())
    })
}

pub(super) unsafe extern "C" fn loaded_get_executable(
    a: *mut PJRT_LoadedExecutable_GetExecutable_Args,
) -> *mut PJRT_Error {
    guard("PJRT_LoadedExecutable_GetExecutable", || {
        let a = args(a, "PJRT_LoadedExecutable_GetExecutable")?;
        let compiled = loaded(a.loaded_executable)?.compiled.clone();
        a.executable = into_handle(Executable { compiled });
        Ok(())
    })
}

pub(super) unsafe extern "C" fn loaded_addressable_devices(
    a: *mut PJRT_LoadedExecutable_AddressableDevices_Args,
) -> *mut PJRT_Error {
    guard("PJRT_LoadedExecutable_AddressableDevices", || {
        let a = args(a, "PJRT_LoadedExecutable_AddressableDevices")?;
        let devices = &loaded(a.executable)?.devices;
        (a.addressable_devices, a.num_addressable_devices) = (devices.as_ptr(), devices.len());
        Ok(())
    })
}

pub(super) unsafe extern "C" fn loaded_delete(
    a: *mut PJRT_LoadedExecutable_Delete_Args,
) -> *mut PJRT_Error {
    guard("PJRT_LoadedExecutable_Delete", || {
        loaded(args(a, "PJRT_LoadedExecutable_Delete")?.executable)?.delete();
        Ok(())
    })
}

pub(super) unsafe extern "C" fn loaded_is_deleted(
    a: *mut PJRT_LoadedExecutable_IsDeleted_Args,
) -> *mut PJRT_Error {
    guard("PJRT_LoadedExecutable_IsDeleted", || {
        let a = args(a, "PJRT_LoadedExecutable_IsDeleted")?;
        a.is_deleted = loaded(a.executable)?.is_deleted();
        Ok(())
    })
}

pub(super) unsafe extern "C" fn loaded_fingerprint(
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

pub(super) unsafe extern "C" fn loaded_device_assignment(
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

pub(super) unsafe extern "C" fn loaded_execute(
    a: *mut PJRT_LoadedExecutable_Execute_Args,
) -> *mut PJRT_Error {
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
