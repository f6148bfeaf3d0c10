//! The client and what it owns: devices, their descriptions and memories,
//! and the topology.

use crate::error::{Error, Result};
use crate::ffi::*;
use crate::handles::{self, Handle, Kind};

/// The platform name JAX sees. JAX picks lowering rules by platform, and
/// this plugin runs what JAX lowers for the CPU (its LAPACK custom calls,
/// its CPU random-number and callback lowerings), so it is `cpu`; the
/// backend's own name, `xla_rs`, is what users select it by.
pub const PLATFORM_NAME: &str = "cpu";

/// The memory kind of every device's one memory space.
pub const MEMORY_KIND: &str = "device";

/// The platform version string.
pub const PLATFORM_VERSION: &str =
    concat!("xla-rs ", env!("CARGO_PKG_VERSION"), " (Cranelift JIT)");

/// A PJRT client: the JIT and a fixed set of CPU devices. Devices,
/// descriptions and memories live as long as the client; their addresses
/// are the handles the framework holds.
pub struct Client {
    /// The compiler (and its compile cache).
    pub(crate) jit: xla_jit::Client,
    /// Never resized, so the handles (addresses) stay valid.
    devices: Vec<Device>,
    device_handles: Vec<*mut PJRT_Device>,
    memory_handles: Vec<*mut PJRT_Memory>,
    description_handles: Vec<*const PJRT_DeviceDescription>,
}

/// One device: an id, its description and its memory space. `repr(C)`
/// with the id first, so that the device, its description and its memory
/// have three different addresses (three handles).
#[repr(C)]
pub struct Device {
    /// The device id (also its local hardware id).
    pub(crate) id: usize,
    pub(crate) description: DeviceDescription,
    pub(crate) memory: Memory,
    /// `[&memory]`, for `PJRT_Device_AddressableMemories`.
    pub(crate) memory_handles: [*mut PJRT_Memory; 1],
}

/// What a device is, without the device (also reachable from the
/// topology).
pub struct DeviceDescription {
    pub(crate) id: i32,
    pub(crate) debug_string: String,
    pub(crate) to_string: String,
}

/// A device's memory space.
pub struct Memory {
    pub(crate) id: i32,
    pub(crate) debug_string: String,
    pub(crate) to_string: String,
    /// `[the device]`.
    pub(crate) devices: [*mut PJRT_Device; 1],
}

impl Client {
    /// A client with `device_count` devices.
    pub fn new(device_count: usize) -> Result<Client> {
        let jit = xla_jit::Client::cpu()
            .map_err(|e| Error::new(PJRT_Error_Code_UNAVAILABLE, e.to_string()))?;
        let mut devices: Vec<Device> = (0..device_count)
            .map(|id| {
                let n = id as i32;
                Device {
                    id,
                    description: DeviceDescription {
                        id: n,
                        debug_string: format!("xla_rs:{id}"),
                        to_string: format!("XlaRsDevice(id={id})"),
                    },
                    memory: Memory {
                        id: n,
                        debug_string: format!("xla_rs:{id}:{MEMORY_KIND}"),
                        to_string: format!("MEMORY_SPACE_{id}"),
                        devices: [std::ptr::null_mut()],
                    },
                    memory_handles: [std::ptr::null_mut()],
                }
            })
            .collect();
        for device in &mut devices {
            let handle: *mut PJRT_Device = std::ptr::from_mut(device).cast();
            device.memory.devices = [handle];
            device.memory_handles = [std::ptr::from_mut(&mut device.memory).cast()];
        }
        let device_handles = (devices.iter_mut())
            .map(|d| std::ptr::from_mut(d).cast())
            .collect();
        let memory_handles = devices.iter().map(|d| d.memory_handles[0]).collect();
        let description_handles = (devices.iter())
            .map(|d| std::ptr::from_ref(&d.description).cast())
            .collect();
        let client = Client {
            jit,
            devices,
            device_handles,
            memory_handles,
            description_handles,
        };
        for device in &client.devices {
            handles::register(device, Kind::Device);
            handles::register(&device.memory, Kind::Memory);
            handles::register(&device.description, Kind::Description);
        }
        Ok(client)
    }

    /// Every device's handle, by id.
    pub(crate) fn device_handles(&self) -> &[*mut PJRT_Device] {
        &self.device_handles
    }

    /// Every memory's handle, by device id.
    pub(crate) fn memory_handles(&self) -> &[*mut PJRT_Memory] {
        &self.memory_handles
    }

    /// Every device description's handle, by device id.
    pub(crate) fn description_handles(&self) -> &[*const PJRT_DeviceDescription] {
        &self.description_handles
    }

    /// The device with id `id`.
    pub(crate) fn device(&self, id: i64) -> Result<&Device> {
        (usize::try_from(id).ok())
            .and_then(|i| self.devices.get(i))
            .ok_or_else(|| {
                Error::invalid(format!(
                    "no device with id {id} (this client has {} devices)",
                    self.devices.len()
                ))
            })
    }

    /// Whether `device` is one of this client's devices.
    pub(crate) fn owns(&self, device: *mut PJRT_Device) -> bool {
        self.device_handles.contains(&device)
    }
}

impl Drop for Client {
    fn drop(&mut self) {
        for device in &self.devices {
            for (address, kind, what) in [
                (
                    std::ptr::from_ref(device).cast::<u8>(),
                    Kind::Device,
                    "a device",
                ),
                (
                    std::ptr::from_ref(&device.memory).cast(),
                    Kind::Memory,
                    "a memory",
                ),
                (
                    std::ptr::from_ref(&device.description).cast(),
                    Kind::Description,
                    "a description",
                ),
            ] {
                // Registered in `new`, so this cannot fail.
                let _ = handles::unregister(address, kind, what);
            }
        }
    }
}

impl Handle for Client {
    const KIND: Kind = Kind::Client;
}

impl Handle for Device {
    const KIND: Kind = Kind::Device;
}

impl Handle for Memory {
    const KIND: Kind = Kind::Memory;
}

impl Handle for DeviceDescription {
    const KIND: Kind = Kind::Description;
}

/// The number of devices a client gets: the `cpu_device_count` create
/// option, else `--xla_force_host_platform_device_count=N` in `XLA_FLAGS`
/// (as XLA's CPU client), else one.
pub fn device_count(option: Option<i64>) -> Result<usize> {
    let flag = std::env::var("XLA_FLAGS").ok().and_then(|flags| {
        flags.split_whitespace().find_map(|f| {
            f.strip_prefix("--xla_force_host_platform_device_count=")
                .map(str::to_string)
        })
    });
    let count = match (option, flag) {
        (Some(n), _) => n,
        (None, Some(flag)) => flag.parse().map_err(|_| {
            Error::invalid(format!(
                "XLA_FLAGS: --xla_force_host_platform_device_count={flag} is not a number"
            ))
        })?,
        (None, None) => 1,
    };
    match usize::try_from(count) {
        Ok(n) if (1..=4096).contains(&n) => Ok(n),
        _ => Err(Error::invalid(format!(
            "the device count must be between 1 and 4096, not {count}"
        ))),
    }
}
