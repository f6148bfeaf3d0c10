//! The processes of a run: this one alone, or, under `mpirun` in a build
//! with the `mpi` feature, one of several that each run some of the
//! devices (`docs/devices.md`).

use std::ops::Range;
use std::time::Duration;

use xla_core::interp::DeviceAssignment;
use xla_core::{HloModule, Literal};
use xla_jit::{Executable, ExecuteOptions, JitError};

use super::Failure;

/// How long a device waits at a collective for the others.
const COLLECTIVE_TIMEOUT: Duration = Duration::from_secs(60);

/// Whether `mpirun` (OpenMPI, or a PMI launcher) started this process as
/// one of several.
pub fn launched_by_mpirun() -> bool {
    ["OMPI_COMM_WORLD_SIZE", "PMI_SIZE", "PMIX_SIZE"]
        .iter()
        .filter_map(|v| std::env::var(v).ok())
        .any(|size| size.trim() != "1")
}

/// Which devices run a module: the flags `xla run` and `xla bench` share.
#[derive(clap::Args, Debug, Clone, Copy)]
pub struct DeviceArgs {
    /// Partitions of an SPMD run (default: the module's `num_partitions`).
    #[arg(long)]
    num_partitions: Option<usize>,
    /// Replicas (default: the module's `replica_count`).
    #[arg(long)]
    num_replicas: Option<usize>,
    /// Under `mpirun` (an `xla` built with `--features mpi`): the devices
    /// each process runs (default 1). Process `r` runs devices `r·K` to
    /// `r·K + K − 1`, reads only their arrays and writes only their
    /// results.
    #[arg(long, value_name = "K")]
    devices_per_process: Option<usize>,
}

impl DeviceArgs {
    /// The replicas and partitions that run `module`.
    pub fn assignment(&self, module: &HloModule) -> DeviceAssignment {
        DeviceAssignment::new(
            (self.num_replicas).unwrap_or(module.replica_count.max(1) as usize),
            (self.num_partitions).unwrap_or(module.num_partitions.max(1) as usize),
        )
    }

    /// This process's part of a run of `assignment`.
    pub fn start(&self, assignment: DeviceAssignment) -> Result<Processes, Failure> {
        Processes::start(assignment, self.devices_per_process)
    }

    /// The flags again, for a child process.
    pub fn flags(&self) -> impl Iterator<Item = String> {
        [
            self.num_partitions.map(|n| format!("--num-partitions={n}")),
            self.num_replicas.map(|n| format!("--num-replicas={n}")),
            (self.devices_per_process).map(|k| format!("--devices-per-process={k}")),
        ]
        .into_iter()
        .flatten()
    }
}

/// This process's part of a run.
pub struct Processes {
    #[cfg(feature = "mpi")]
    mpi: Option<xla_jit::collectives::mpi::MpiProcess>,
    devices: usize,
}

impl Processes {
    /// The processes of a run of `assignment`'s devices, `per_process` of
    /// them in each process under `mpirun` (`None`: one each).
    fn start(
        assignment: DeviceAssignment,
        per_process: Option<usize>,
    ) -> Result<Processes, Failure> {
        let devices = assignment.device_count();
        if !launched_by_mpirun() {
            return match per_process {
                Some(k) if k != devices => Err(Failure::Usage(format!(
                    "--devices-per-process {k}: this process is not one of several started by \
                     mpirun, so it runs all {devices} devices"
                ))),
                _ => Ok(Processes {
                    #[cfg(feature = "mpi")]
                    mpi: None,
                    devices,
                }),
            };
        }
        #[cfg(feature = "mpi")]
        {
            let mpi = xla_jit::collectives::mpi::MpiProcess::initialize(
                assignment,
                per_process.unwrap_or(1),
                COLLECTIVE_TIMEOUT,
            )
            .map_err(|e| Failure::Usage(e.to_string()))?;
            Ok(Processes {
                mpi: Some(mpi),
                devices,
            })
        }
        #[cfg(not(feature = "mpi"))]
        {
            let _ = COLLECTIVE_TIMEOUT;
            Err(Failure::Usage(
                "mpirun started this xla, which was built without MPI: build it with \
                 `cargo build --release --features mpi`"
                    .into(),
            ))
        }
    }

    /// The devices this process runs.
    pub fn local_devices(&self) -> Range<usize> {
        #[cfg(feature = "mpi")]
        if let Some(mpi) = &self.mpi {
            return mpi.local_devices();
        }
        0..self.devices
    }

    /// Whether other processes run some of the devices.
    pub fn distributed(&self) -> bool {
        self.local_devices().len() != self.devices
    }

    /// Runs `executable` on this process's devices (`args[i]`: local
    /// device `i`'s arguments).
    pub fn execute(
        &self,
        executable: &Executable,
        args: &[Vec<&Literal>],
        assignment: DeviceAssignment,
        options: &ExecuteOptions,
    ) -> Result<Vec<Literal>, JitError> {
        #[cfg(feature = "mpi")]
        if let Some(mpi) = &self.mpi {
            let local: Vec<usize> = mpi.local_devices().collect();
            return executable.execute_local(args, &local, mpi.communicator(), options);
        }
        match self.devices {
            1 => executable.execute_with(&args[0], options).map(|r| vec![r]),
            _ => executable.execute_devices(args, assignment, options),
        }
    }
}
