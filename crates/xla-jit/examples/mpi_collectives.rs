//! The MPI path against OpenMPI's own `MPI_Allreduce`, in one run: an
//! all-reduce (sum of `f32`, 1 KiB to 256 MiB per process) by
//! `MPI_Allreduce` directly, by the `MpiCommunicator` (the step a compiled
//! all-reduce runs), and by a compiled all-reduce module
//! (`Executable::execute_local`, with its per-run fingerprint check and
//! fresh result); then the data-parallel MLP training step of
//! `tests/collectives/` (784-512-10, batch 256 split over the processes).
//! Every process runs the same number of calls; process 0 prints the
//! table (mean time per call).
//!
//! ```sh
//! cargo build --release --features mpi -p xla-jit --example mpi_collectives
//! mpirun -np 2 target/release/examples/mpi_collectives
//! ```

use std::ffi::c_void;
use std::time::{Duration, Instant};

use mpi::ffi;
use xla_core::interp::DeviceAssignment;
use xla_core::{HloModule, Literal, Opcode, PrimitiveType};
use xla_jit::collectives::mpi::MpiProcess;
use xla_jit::collectives::{CollectiveCall, Communicator, Reduction};
use xla_jit::ftz::FtzGuard;
use xla_jit::{Client, ExecuteOptions};
use xla_testkit::random::random_literal;

const SIZES: [usize; 6] = [1 << 10, 16 << 10, 256 << 10, 4 << 20, 64 << 20, 256 << 20];

/// Calls per measurement: about 1 GiB of buffers, 5 to 2000 calls.
fn calls(bytes: usize) -> usize {
    ((1usize << 30) / bytes).clamp(5, 2000)
}

/// The mean time of `calls` calls of `f`, after one, started together on
/// every process.
fn time(calls: usize, mut f: impl FnMut(usize)) -> Duration {
    f(0);
    // SAFETY: MPI is initialized.
    unsafe { ffi::MPI_Barrier(ffi::RSMPI_COMM_WORLD) };
    let started = Instant::now();
    for i in 1..=calls {
        f(i);
    }
    started.elapsed() / calls as u32
}

fn human(bytes: usize) -> String {
    match bytes {
        b if b >= 1 << 20 => format!("{} MiB", b >> 20),
        b => format!("{} KiB", b >> 10),
    }
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let processes: usize = std::env::var("OMPI_COMM_WORLD_SIZE")
        .or_else(|_| std::env::var("PMI_SIZE"))
        .map_err(|_| "run under mpirun")?
        .parse()?;
    let assignment = DeviceAssignment::new(1, processes);
    let mpi = MpiProcess::initialize(assignment, 1, Duration::from_secs(120))?;
    let rank = mpi.process_index();
    let comm = mpi.communicator();
    let group: Vec<usize> = (0..processes).collect();
    let client = Client::cpu()?;
    let reduction = Reduction::new(Opcode::Add, PrimitiveType::F32).ok_or("no f32 add")?;
    let options = ExecuteOptions::default();
    if rank == 0 {
        println!("{processes} processes, mean time per call");
        println!("| per process | MPI_Allreduce ms | GB/s | communicator ms | GB/s | vs MPI | executable ms |");
        println!("|---:|---:|---:|---:|---:|---:|---:|");
    }
    let mut occurrence = 0u64;
    for bytes in SIZES {
        let n = bytes / 4;
        let send = vec![(rank + 1) as f32; n];
        let mut recv = vec![0f32; n];
        let reps = calls(bytes);
        let theirs = time(reps, |_| {
            // SAFETY: two live buffers of `n` floats.
            unsafe {
                ffi::MPI_Allreduce(
                    send.as_ptr().cast::<c_void>(),
                    recv.as_mut_ptr().cast::<c_void>(),
                    n as i32,
                    ffi::RSMPI_FLOAT,
                    ffi::RSMPI_SUM,
                    ffi::RSMPI_COMM_WORLD,
                )
            };
        });
        let want = (processes * (processes + 1) / 2) as f32;
        assert!(recv.iter().all(|&x| x == want), "MPI_Allreduce's sum");
        let x = Literal::vector(&send);
        let input: &[u8] = x.bytes()?;
        let mut output = vec![0u8; bytes];
        let ours = {
            let _ftz = FtzGuard::new();
            time(reps, |_| {
                let call = CollectiveCall {
                    name: "all-reduce",
                    opcode: Opcode::AllReduce,
                    device: rank,
                    group: &group,
                    position: rank,
                    occurrence,
                };
                occurrence += 1;
                comm.all_reduce(&call, &reduction, input, &mut output)
                    .expect("the communicator's all-reduce");
            })
        };
        let sums = Literal::from_storage(
            xla_core::ArrayShape::new(PrimitiveType::F32, vec![n as i64]),
            xla_core::literal::Storage::Owned(xla_core::literal::AlignedBytes::copy_from(&output)),
        )?;
        assert!(sums.to_vec::<f32>()?.iter().all(|&x| x == want), "our sum");
        let module: HloModule = format!(
            "HloModule m, num_partitions={processes}\n\n\
             add {{\n  a = f32[] parameter(0)\n  b = f32[] parameter(1)\n  ROOT r = f32[] add(a, b)\n}}\n\n\
             ENTRY e {{\n  x = f32[{n}] parameter(0)\n  ROOT y = f32[{n}] all-reduce(x), channel_id=1, to_apply=add\n}}\n"
        )
        .parse()?;
        let executable = client.compile(&module)?;
        let compiled = time(reps.min(200), |_| {
            executable
                .execute_local(&[vec![&x]], &[rank], comm, &options)
                .expect("the compiled all-reduce");
        });
        if rank == 0 {
            let gbs = |d: Duration| bytes as f64 / d.as_secs_f64() / 1e9;
            let ms = |d: Duration| d.as_secs_f64() * 1e3;
            println!(
                "| {} | {:.3} | {:.2} | {:.3} | {:.2} | {:.2} | {:.3} |",
                human(bytes),
                ms(theirs),
                gbs(theirs),
                ms(ours),
                gbs(ours),
                theirs.as_secs_f64() / ours.as_secs_f64(),
                ms(compiled)
            );
        }
    }
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../tests/collectives");
    let path = dir.join(format!("dp_mlp_{processes}.hlo"));
    if let Ok(text) = std::fs::read_to_string(&path) {
        let module = xla_core::spmd::per_device(text.parse()?)?.module;
        let executable = client.compile(&module)?;
        let mut seed = 0x5eed + rank as u64;
        let args: Vec<Literal> = (module.entry_program_shape().parameters.iter())
            .map(|shape| random_literal(shape, &mut seed))
            .collect();
        let refs: Vec<&Literal> = args.iter().collect();
        let step = time(50, |_| {
            executable
                .execute_local(std::slice::from_ref(&refs), &[rank], comm, &options)
                .expect("the training step");
        });
        if rank == 0 {
            println!(
                "\ndata-parallel MLP step (784-512-10, batch 256) on {processes} processes: {:.3} ms",
                step.as_secs_f64() * 1e3
            );
        }
    }
    Ok(())
}
