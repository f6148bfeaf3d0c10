//! The plugin driven through its C function table, as a framework does.

use std::ffi::c_char;
use std::ptr::null_mut;

use xla_pjrt::ffi::*;
use xla_pjrt::GetPjrtApi;

fn api() -> &'static PJRT_Api {
    // SAFETY: the plugin's table lives for the process.
    unsafe { &*GetPjrtApi() }
}

/// A zeroed `Args` struct with its `struct_size` set.
fn new_args<T: StructSize>() -> T {
    // SAFETY: every `Args` struct is plain data (integers, pointers,
    // nullable function pointers) for which all-zero is valid.
    let mut args: T = unsafe { std::mem::zeroed() };
    // SAFETY: every `Args` struct starts with `size_t struct_size`.
    unsafe { *std::ptr::from_mut(&mut args).cast::<usize>() = T::STRUCT_SIZE };
    args
}

/// The error's code and message, freeing it; `None` for success.
fn status(error: *mut PJRT_Error) -> Option<(PJRT_Error_Code, String)> {
    if error.is_null() {
        return None;
    }
    let mut message = new_args::<PJRT_Error_Message_Args>();
    message.error = error;
    let mut code = new_args::<PJRT_Error_GetCode_Args>();
    code.error = error;
    // SAFETY: valid args and a live error, destroyed once below.
    unsafe {
        api().PJRT_Error_Message.unwrap()(&mut message);
        assert!(api().PJRT_Error_GetCode.unwrap()(&mut code).is_null());
        let text = std::slice::from_raw_parts(message.message.cast::<u8>(), message.message_size);
        let text = String::from_utf8(text.to_vec()).unwrap();
        let mut destroy = new_args::<PJRT_Error_Destroy_Args>();
        destroy.error = error;
        api().PJRT_Error_Destroy.unwrap()(&mut destroy);
        Some((code.code, text))
    }
}

fn ok(error: *mut PJRT_Error) {
    if let Some((code, message)) = status(error) {
        panic!("PJRT error {code}: {message}");
    }
}

struct Client(*mut PJRT_Client);

impl Client {
    fn new(devices: Option<i64>) -> Client {
        let name = "cpu_device_count";
        let option = PJRT_NamedValue {
            struct_size: PJRT_NamedValue::STRUCT_SIZE,
            extension_start: null_mut(),
            name: name.as_ptr().cast(),
            name_size: name.len(),
            r#type: PJRT_NamedValue_kInt64,
            value: PJRT_NamedValue_Union {
                int64_value: devices.unwrap_or(0),
            },
            value_size: 1,
        };
        let mut args = new_args::<PJRT_Client_Create_Args>();
        if devices.is_some() {
            args.create_options = &option;
            args.num_options = 1;
        }
        // SAFETY: valid args.
        ok(unsafe { api().PJRT_Client_Create.unwrap()(&mut args) });
        Client(args.client)
    }

    fn devices(&self) -> Vec<*mut PJRT_Device> {
        let mut args = new_args::<PJRT_Client_Devices_Args>();
        args.client = self.0;
        // SAFETY: valid args; the list lives as long as the client.
        unsafe {
            ok(api().PJRT_Client_Devices.unwrap()(&mut args));
            std::slice::from_raw_parts(args.devices, args.num_devices).to_vec()
        }
    }

    fn buffer_f32(
        &self,
        dims: &[i64],
        data: &[f32],
        strides: Option<&[i64]>,
    ) -> Result<*mut PJRT_Buffer, (PJRT_Error_Code, String)> {
        self.buffer(PJRT_Buffer_Type_F32, dims, data.as_ptr().cast(), strides)
    }

    fn buffer(
        &self,
        ty: PJRT_Buffer_Type,
        dims: &[i64],
        data: *const u8,
        strides: Option<&[i64]>,
    ) -> Result<*mut PJRT_Buffer, (PJRT_Error_Code, String)> {
        let mut args = new_args::<PJRT_Client_BufferFromHostBuffer_Args>();
        args.client = self.0;
        args.data = data.cast();
        args.r#type = ty;
        args.dims = dims.as_ptr();
        args.num_dims = dims.len();
        if let Some(strides) = strides {
            args.byte_strides = strides.as_ptr();
            args.num_byte_strides = strides.len();
        }
        args.host_buffer_semantics = PJRT_HostBufferSemantics_kImmutableOnlyDuringCall;
        args.device = self.devices()[0];
        // SAFETY: valid args; `data` holds the array.
        match status(unsafe { api().PJRT_Client_BufferFromHostBuffer.unwrap()(&mut args) }) {
            None => {
                destroy_event(args.done_with_host_buffer);
                Ok(args.buffer)
            }
            Some(e) => Err(e),
        }
    }

    fn compile(
        &self,
        program: &str,
    ) -> Result<*mut PJRT_LoadedExecutable, (PJRT_Error_Code, String)> {
        let format = "mlir";
        let mut code = program.as_bytes().to_vec();
        let mut prog = new_args::<PJRT_Program>();
        prog.code = code.as_mut_ptr().cast::<c_char>();
        prog.code_size = code.len();
        prog.format = format.as_ptr().cast();
        prog.format_size = format.len();
        let mut args = new_args::<PJRT_Client_Compile_Args>();
        args.client = self.0;
        args.program = &prog;
        // SAFETY: valid args (no compile options: the defaults).
        match status(unsafe { api().PJRT_Client_Compile.unwrap()(&mut args) }) {
            None => Ok(args.executable),
            Some(e) => Err(e),
        }
    }
}

impl Drop for Client {
    fn drop(&mut self) {
        let mut args = new_args::<PJRT_Client_Destroy_Args>();
        args.client = self.0;
        // SAFETY: the client, destroyed once.
        ok(unsafe { api().PJRT_Client_Destroy.unwrap()(&mut args) });
    }
}

fn destroy_event(event: *mut PJRT_Event) {
    let mut args = new_args::<PJRT_Event_Destroy_Args>();
    args.event = event;
    // SAFETY: an event of the plugin, destroyed once.
    ok(unsafe { api().PJRT_Event_Destroy.unwrap()(&mut args) });
}

fn destroy_buffer(buffer: *mut PJRT_Buffer) {
    let mut args = new_args::<PJRT_Buffer_Destroy_Args>();
    args.buffer = buffer;
    // SAFETY: a buffer of the plugin, destroyed once.
    ok(unsafe { api().PJRT_Buffer_Destroy.unwrap()(&mut args) });
}

fn to_host_f32(
    buffer: *mut PJRT_Buffer,
    len: usize,
) -> Result<Vec<f32>, (PJRT_Error_Code, String)> {
    let mut out = vec![0f32; len];
    let mut args = new_args::<PJRT_Buffer_ToHostBuffer_Args>();
    args.src = buffer;
    args.dst = out.as_mut_ptr().cast();
    args.dst_size = len * 4;
    // SAFETY: valid args; `out` holds `dst_size` bytes.
    match status(unsafe { api().PJRT_Buffer_ToHostBuffer.unwrap()(&mut args) }) {
        None => {
            destroy_event(args.event);
            Ok(out)
        }
        Some(e) => Err(e),
    }
}

fn is_deleted(buffer: *mut PJRT_Buffer) -> bool {
    let mut args = new_args::<PJRT_Buffer_IsDeleted_Args>();
    args.buffer = buffer;
    // SAFETY: valid args.
    ok(unsafe { api().PJRT_Buffer_IsDeleted.unwrap()(&mut args) });
    args.is_deleted
}

/// Runs `executable` on one device; the outputs, or the error.
fn execute(
    executable: *mut PJRT_LoadedExecutable,
    arguments: &[*mut PJRT_Buffer],
    outputs: usize,
) -> Result<Vec<*mut PJRT_Buffer>, (PJRT_Error_Code, String)> {
    execute_on(executable, &[arguments.to_vec()], outputs).map(|mut r| r.swap_remove(0))
}

/// Runs `executable` on as many devices as argument lists.
fn execute_on(
    executable: *mut PJRT_LoadedExecutable,
    arguments: &[Vec<*mut PJRT_Buffer>],
    outputs: usize,
) -> Result<Vec<Vec<*mut PJRT_Buffer>>, (PJRT_Error_Code, String)> {
    let mut results = vec![vec![null_mut::<PJRT_Buffer>(); outputs]; arguments.len()];
    let lists: Vec<_> = arguments.iter().map(|a| a.as_ptr()).collect();
    let output_lists: Vec<_> = results.iter_mut().map(|r| r.as_mut_ptr()).collect();
    let mut options = new_args::<PJRT_ExecuteOptions>();
    let mut args = new_args::<PJRT_LoadedExecutable_Execute_Args>();
    args.executable = executable;
    args.options = &mut options;
    args.argument_lists = lists.as_ptr();
    args.num_devices = arguments.len();
    args.num_args = arguments.first().map_or(0, Vec::len);
    args.output_lists = output_lists.as_ptr();
    // SAFETY: valid args; one list of `outputs` slots per device.
    match status(unsafe { api().PJRT_LoadedExecutable_Execute.unwrap()(&mut args) }) {
        None => Ok(results),
        Some(e) => Err(e),
    }
}

const ADD_AND_SUM: &str = r#"
func.func public @main(%a: tensor<2x3xf32>, %b: tensor<2x3xf32>) -> (tensor<2x3xf32>, tensor<3xf32>) {
  %0 = stablehlo.add %a, %b : tensor<2x3xf32>
  %c = stablehlo.constant dense<0.0> : tensor<f32>
  %1 = stablehlo.reduce(%0 init: %c) applies stablehlo.add across dimensions = [0] : (tensor<2x3xf32>, tensor<f32>) -> tensor<3xf32>
  return %0, %1 : tensor<2x3xf32>, tensor<3xf32>
}
"#;

#[test]
fn version_and_attributes() {
    assert_eq!(api().pjrt_api_version.major_version, PJRT_API_MAJOR);
    assert!(
        api().pjrt_api_version.minor_version >= 29,
        "JAX refuses minor versions below 29"
    );
    let mut args = new_args::<PJRT_Plugin_Attributes_Args>();
    // SAFETY: valid args; attributes live for the process.
    let attributes = unsafe {
        ok(api().PJRT_Plugin_Attributes.unwrap()(&mut args));
        std::slice::from_raw_parts(args.attributes, args.num_attributes)
    };
    let version = attributes
        .iter()
        .find(|a| {
            // SAFETY: attribute names are `name_size` bytes.
            let name = unsafe { std::slice::from_raw_parts(a.name.cast::<u8>(), a.name_size) };
            name == b"stablehlo_current_version"
        })
        .expect("stablehlo_current_version");
    assert_eq!(version.r#type, PJRT_NamedValue_kInt64List);
    // SAFETY: an int64 list of `value_size` entries.
    let v =
        unsafe { std::slice::from_raw_parts(version.value.int64_array_value, version.value_size) };
    let newest = xla_core::mlir::bytecode::MAX_VHLO_VERSION;
    assert_eq!((v[0], v[1]), (i64::from(newest.0), i64::from(newest.1)));
}

#[test]
fn devices_follow_the_requested_count() {
    assert_eq!(Client::new(None).devices().len(), 1);
    let client = Client::new(Some(3));
    let devices = client.devices();
    assert_eq!(devices.len(), 3);
    for (i, &device) in devices.iter().enumerate() {
        let mut description = new_args::<PJRT_Device_GetDescription_Args>();
        description.device = device;
        let mut id = new_args::<PJRT_DeviceDescription_Id_Args>();
        // SAFETY: valid args.
        unsafe {
            ok(api().PJRT_Device_GetDescription.unwrap()(&mut description));
            id.device_description = description.device_description;
            ok(api().PJRT_DeviceDescription_Id.unwrap()(&mut id));
        }
        assert_eq!(id.id, i as i32);
    }
    let mut topology = new_args::<PJRT_Client_TopologyDescription_Args>();
    topology.client = client.0;
    let mut serialize = new_args::<PJRT_TopologyDescription_Serialize_Args>();
    // SAFETY: valid args; the bytes live until the deleter runs.
    unsafe {
        ok(api().PJRT_Client_TopologyDescription.unwrap()(
            &mut topology,
        ));
        serialize.topology = topology.topology;
        ok(api().PJRT_TopologyDescription_Serialize.unwrap()(
            &mut serialize,
        ));
        let bytes = std::slice::from_raw_parts(
            serialize.serialized_bytes.cast::<u8>(),
            serialize.serialized_bytes_size,
        );
        assert!(String::from_utf8_lossy(bytes).ends_with("3 devices"));
        serialize.serialized_topology_deleter.unwrap()(serialize.serialized_topology);
    }
    let mut args = new_args::<PJRT_Client_Create_Args>();
    let name = "cpu_device_count";
    let bad = PJRT_NamedValue {
        struct_size: PJRT_NamedValue::STRUCT_SIZE,
        extension_start: null_mut(),
        name: name.as_ptr().cast(),
        name_size: name.len(),
        r#type: PJRT_NamedValue_kInt64,
        value: PJRT_NamedValue_Union { int64_value: -2 },
        value_size: 1,
    };
    args.create_options = &bad;
    args.num_options = 1;
    // SAFETY: valid args.
    let (code, message) = status(unsafe { api().PJRT_Client_Create.unwrap()(&mut args) }).unwrap();
    assert_eq!(code, PJRT_Error_Code_INVALID_ARGUMENT);
    assert!(message.contains("-2"), "{message}");
}

#[test]
fn strided_host_buffers_round_trip_row_major() {
    let client = Client::new(None);
    // A column-major 2×3 array: element (i, j) at byte 4·(i + 2j).
    let column_major = [1.0f32, 4.0, 2.0, 5.0, 3.0, 6.0];
    let buffer = client
        .buffer_f32(&[2, 3], &column_major, Some(&[4, 8]))
        .unwrap();
    assert_eq!(
        to_host_f32(buffer, 6).unwrap(),
        [1.0, 2.0, 3.0, 4.0, 5.0, 6.0]
    );
    let (code, message) = to_host_f32(buffer, 5).unwrap_err();
    assert_eq!(code, PJRT_Error_Code_INVALID_ARGUMENT);
    assert!(message.contains("20 bytes"), "{message}");
    destroy_buffer(buffer);
}

#[test]
fn events_are_handles_of_their_own() {
    let client = Client::new(None);
    let ready = |buffer: *mut PJRT_Buffer| {
        let mut args = new_args::<PJRT_Buffer_ReadyEvent_Args>();
        args.buffer = buffer;
        // SAFETY: valid args.
        ok(unsafe { api().PJRT_Buffer_ReadyEvent.unwrap()(&mut args) });
        args.event
    };
    let x = client.buffer_f32(&[2], &[1.0, 2.0], None).unwrap();
    let (first, second) = (ready(x), ready(x));
    assert_ne!(first, second);
    destroy_event(first);
    let mut wait = new_args::<PJRT_Event_Await_Args>();
    wait.event = second;
    // SAFETY: valid args; `second` is still live.
    ok(unsafe { api().PJRT_Event_Await.unwrap()(&mut wait) });
    destroy_event(second);
    // SAFETY: valid args; `second` is gone now.
    let (code, _) = status(unsafe { api().PJRT_Event_Await.unwrap()(&mut wait) }).unwrap();
    assert_eq!(code, PJRT_Error_Code_INVALID_ARGUMENT);
    destroy_buffer(x);
}

#[test]
fn compiled_programs_run_and_check_their_arguments() {
    let client = Client::new(None);
    let a = [1.0f32, 2.0, 3.0, 4.0, 5.0, 6.0];
    let b = [0.5f32, -1.0, 2.0, 10.0, 0.25, -6.0];
    let x = client.buffer_f32(&[2, 3], &a, None).unwrap();
    let y = client.buffer_f32(&[2, 3], &b, None).unwrap();
    let executable = client.compile(ADD_AND_SUM).unwrap();
    let outputs = execute(executable, &[x, y], 2).unwrap();
    let sum: Vec<f32> = a.iter().zip(&b).map(|(a, b)| a + b).collect();
    assert_eq!(to_host_f32(outputs[0], 6).unwrap(), sum);
    let columns: Vec<f32> = (0..3).map(|j| sum[j] + sum[3 + j]).collect();
    assert_eq!(to_host_f32(outputs[1], 3).unwrap(), columns);

    let small = client.buffer_f32(&[3], &a[..3], None).unwrap();
    let (code, message) = execute(executable, &[x, small], 2).unwrap_err();
    assert_eq!(code, PJRT_Error_Code_INVALID_ARGUMENT);
    assert!(
        message.contains("argument 1") && message.contains("f32[3]"),
        "{message}"
    );
    let (code, message) = execute(executable, &[x], 2).unwrap_err();
    assert_eq!(code, PJRT_Error_Code_INVALID_ARGUMENT);
    assert!(message.contains("takes 2 arguments, not 1"), "{message}");
    for b in [x, y, small].into_iter().chain(outputs) {
        destroy_buffer(b);
    }
}

/// What JAX 0.10 writes for `pmap(lambda x: psum(x * 2, "i"))` over two
/// devices: a `shard_map` over a 2-device mesh.
const PMAP_PSUM: &str = r#"
module @jit__fun attributes {mhlo.num_partitions = 2 : i32, mhlo.num_replicas = 1 : i32} {
  sdy.mesh @mesh = <["i"=2]> {stablehlo.mesh = {axes = [{name = "i", size = 2 : i64}]}}
  func.func public @main(%arg0: tensor<2x4xf32> {sdy.sharding = #sdy.sharding<@mesh, [{"i"}, {}]>}) -> (tensor<2x4xf32> {jax.result_info = "result", sdy.sharding = #sdy.sharding<@mesh, [{"i"}, {}]>}) {
    %0 = sdy.manual_computation(%arg0) in_shardings=[<@mesh, [{"i"}, {}]>] out_shardings=[<@mesh, [{"i"}, {}]>] manual_axes={"i"} (%arg1: tensor<1x4xf32>) {
      %1 = stablehlo.reshape %arg1 : (tensor<1x4xf32>) -> tensor<4xf32>
      %cst = stablehlo.constant dense<2.000000e+00> : tensor<f32>
      %2 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f32>) -> tensor<4xf32>
      %3 = stablehlo.multiply %1, %2 : tensor<4xf32>
      %4 = "stablehlo.all_reduce"(%3) <{channel_handle = #stablehlo.channel_handle<handle = 1, type = 1>, replica_groups = dense<[[0, 1]]> : tensor<1x2xi64>, use_global_device_ids}> ({
      ^bb0(%arg2: tensor<f32>, %arg3: tensor<f32>):
        %6 = stablehlo.add %arg2, %arg3 : tensor<f32>
        stablehlo.return %6 : tensor<f32>
      }) : (tensor<4xf32>) -> tensor<4xf32>
      %5 = stablehlo.broadcast_in_dim %4, dims = [1] : (tensor<4xf32>) -> tensor<1x4xf32>
      sdy.return %5 : tensor<1x4xf32>
    } : (tensor<2x4xf32>) -> tensor<2x4xf32>
    return %0 : tensor<2x4xf32>
  }
}
"#;

/// `PJRT_Executable_OptimizedProgram`'s text, asked for in two calls (size,
/// then bytes) as frameworks do.
fn optimized_program(
    executable: *mut PJRT_LoadedExecutable,
) -> Result<String, (PJRT_Error_Code, String)> {
    let mut get = new_args::<PJRT_LoadedExecutable_GetExecutable_Args>();
    get.loaded_executable = executable;
    // SAFETY: valid args.
    ok(unsafe { api().PJRT_LoadedExecutable_GetExecutable.unwrap()(&mut get) });
    let mut program = new_args::<PJRT_Program>();
    let mut args = new_args::<PJRT_Executable_OptimizedProgram_Args>();
    args.executable = get.executable;
    args.program = &mut program;
    // SAFETY: valid args; the second call gets a buffer of the size the
    // first reported.
    unsafe {
        if let Some(e) = status(api().PJRT_Executable_OptimizedProgram.unwrap()(&mut args)) {
            return Err(e);
        }
        let mut code = vec![0u8; program.code_size];
        program.code = code.as_mut_ptr().cast();
        ok(api().PJRT_Executable_OptimizedProgram.unwrap()(&mut args));
        let format = std::slice::from_raw_parts(program.format.cast::<u8>(), program.format_size);
        assert_eq!(format, b"mlir");
        code.truncate(program.code_size);
        let mut destroy = new_args::<PJRT_Executable_Destroy_Args>();
        destroy.executable = get.executable;
        ok(api().PJRT_Executable_Destroy.unwrap()(&mut destroy));
        Ok(String::from_utf8(code).unwrap())
    }
}

#[test]
fn shard_map_programs_run_on_every_device() {
    let client = Client::new(Some(2));
    let executable = client.compile(PMAP_PSUM).unwrap();
    let mut get = new_args::<PJRT_LoadedExecutable_AddressableDevices_Args>();
    get.executable = executable;
    // SAFETY: valid args.
    ok(unsafe { api().PJRT_LoadedExecutable_AddressableDevices.unwrap()(&mut get) });
    assert_eq!(get.num_addressable_devices, 2);
    // Each device gets its 1×4 shard; each returns 2·(shard 0 + shard 1).
    let shards = [[1.0f32, 2.0, 3.0, 4.0], [10.0, 20.0, 30.0, 40.0]];
    let args: Vec<Vec<_>> = (shards.iter())
        .map(|s| vec![client.buffer_f32(&[1, 4], s, None).unwrap()])
        .collect();
    let outputs = execute_on(executable, &args, 1).unwrap();
    let want: Vec<f32> = (0..4)
        .map(|j| 2.0 * (shards[0][j] + shards[1][j]))
        .collect();
    for device in &outputs {
        assert_eq!(to_host_f32(device[0], 4).unwrap(), want);
    }
    // The shardings, as the framework reads them from the optimized
    // program; a single-device program has none.
    let text = optimized_program(executable).unwrap();
    assert!(
        text.contains(r#"mhlo.spmd_output_sharding = "{devices=[2,1]<=[2]}""#),
        "{text}"
    );
    assert!(
        text.contains(r#"mhlo.spmd_parameters_shardings = ["{devices=[2,1]<=[2]}"]"#),
        "{text}"
    );
    assert!(
        text.contains("func.func public @main(%arg0: tensor<1x4xf32>) -> (tensor<1x4xf32>)"),
        "{text}"
    );
    let single = client.compile(ADD_AND_SUM).unwrap();
    let (code, message) = optimized_program(single).unwrap_err();
    assert_eq!(code, PJRT_Error_Code_UNIMPLEMENTED);
    assert!(message.contains("multi-device"), "{message}");
    // One device's arguments for a two-device program.
    let (code, message) = execute_on(executable, &args[..1], 1).unwrap_err();
    assert_eq!(code, PJRT_Error_Code_INVALID_ARGUMENT);
    assert!(message.contains("loaded on 2 devices"), "{message}");
    // Automatic SPMD partitioning (sharding annotations, no shard_map).
    let spmd = r#"
module @jit_f attributes {mhlo.num_partitions = 2 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<4xf32>) -> tensor<4xf32> {
    %0 = stablehlo.sine %arg0 : tensor<4xf32>
    return %0 : tensor<4xf32>
  }
}
"#;
    let (code, message) = client.compile(spmd).unwrap_err();
    assert_eq!(code, PJRT_Error_Code_UNIMPLEMENTED);
    assert!(message.contains("automatic SPMD partitioning"), "{message}");
    // The same shard_map over a one-device mesh runs on the JIT.
    let one = PMAP_PSUM
        .replace("num_partitions = 2", "num_partitions = 1")
        .replace(r#""i"=2"#, r#""i"=1"#)
        .replace("size = 2 : i64", "size = 1 : i64")
        .replace("tensor<2x4xf32>", "tensor<1x4xf32>")
        .replace(
            "dense<[[0, 1]]> : tensor<1x2xi64>",
            "dense<[[0]]> : tensor<1x1xi64>",
        );
    let small = Client::new(None);
    let single = small.compile(&one).unwrap();
    let x = small.buffer_f32(&[1, 4], &shards[0], None).unwrap();
    let out = execute(single, &[x], 1).unwrap();
    let twice: Vec<f32> = shards[0].iter().map(|v| 2.0 * v).collect();
    assert_eq!(to_host_f32(out[0], 4).unwrap(), twice);
    // More devices than the client has.
    let (code, message) = small.compile(PMAP_PSUM).unwrap_err();
    assert_eq!(code, PJRT_Error_Code_INVALID_ARGUMENT);
    assert!(message.contains("no device with id 1"), "{message}");
}

#[test]
fn donated_arguments_are_consumed() {
    let client = Client::new(None);
    let program = r#"
func.func public @main(%a: tensor<4xf32> {tf.aliasing_output = 0 : i32}, %b: tensor<4xf32>) -> tensor<4xf32> {
  %0 = stablehlo.multiply %a, %b : tensor<4xf32>
  return %0 : tensor<4xf32>
}
"#;
    let executable = client.compile(program).unwrap();
    let x = client
        .buffer_f32(&[4], &[1.0, 2.0, 3.0, 4.0], None)
        .unwrap();
    let y = client
        .buffer_f32(&[4], &[2.0, 3.0, 4.0, 5.0], None)
        .unwrap();
    let out = execute(executable, &[x, y], 1).unwrap();
    assert_eq!(to_host_f32(out[0], 4).unwrap(), [2.0, 6.0, 12.0, 20.0]);
    assert!(is_deleted(x), "the donated argument is consumed");
    assert!(!is_deleted(y));
    let (code, message) = execute(executable, &[x, y], 1).unwrap_err();
    assert_eq!(code, PJRT_Error_Code_FAILED_PRECONDITION);
    assert!(message.contains("deleted or donated"), "{message}");
}

#[test]
fn foreign_and_destroyed_handles_are_refused() {
    let client = Client::new(None);
    let executable = client.compile(ADD_AND_SUM).unwrap();
    let x = client.buffer_f32(&[2, 3], &[1.0; 6], None).unwrap();
    // Another backend's buffer, as JAX can pass along: any other memory.
    let mut foreign = [0u64; 16];
    let foreign: *mut PJRT_Buffer = foreign.as_mut_ptr().cast();
    let (code, message) = execute(executable, &[x, foreign], 2).unwrap_err();
    assert_eq!(code, PJRT_Error_Code_INVALID_ARGUMENT);
    assert!(
        message.contains("argument 1 is not a live Buffer"),
        "{message}"
    );
    // An executable where a buffer is expected.
    let (code, message) = execute(executable, &[x, executable.cast()], 2).unwrap_err();
    assert_eq!(code, PJRT_Error_Code_INVALID_ARGUMENT);
    assert!(
        message.contains("is a LoadedExecutable, not a Buffer"),
        "{message}"
    );
    destroy_buffer(x);
    let mut args = new_args::<PJRT_Buffer_Destroy_Args>();
    args.buffer = x;
    // SAFETY: valid args; the buffer pointer is stale on purpose.
    let (code, _) = status(unsafe { api().PJRT_Buffer_Destroy.unwrap()(&mut args) }).unwrap();
    assert_eq!(code, PJRT_Error_Code_INVALID_ARGUMENT);
    let (code, _) = execute(executable, &[x, x], 2).unwrap_err();
    assert_eq!(code, PJRT_Error_Code_INVALID_ARGUMENT);
}

#[test]
fn external_references_keep_memory_alive() {
    let client = Client::new(None);
    let x = client.buffer_f32(&[3], &[7.0, 8.0, 9.0], None).unwrap();
    let mut pointer = new_args::<PJRT_Buffer_OpaqueDeviceMemoryDataPointer_Args>();
    pointer.buffer = x;
    let mut add = new_args::<PJRT_Buffer_IncreaseExternalReferenceCount_Args>();
    add.buffer = x;
    let mut remove = new_args::<PJRT_Buffer_DecreaseExternalReferenceCount_Args>();
    remove.buffer = x;
    let mut delete = new_args::<PJRT_Buffer_Delete_Args>();
    delete.buffer = x;
    // SAFETY: valid args; the pointer is read while the reference pins it.
    unsafe {
        ok(api().PJRT_Buffer_IncreaseExternalReferenceCount.unwrap()(
            &mut add,
        ));
        ok(api().PJRT_Buffer_OpaqueDeviceMemoryDataPointer.unwrap()(
            &mut pointer,
        ));
        ok(api().PJRT_Buffer_Delete.unwrap()(&mut delete));
        assert!(is_deleted(x));
        let data = std::slice::from_raw_parts(pointer.device_memory_ptr.cast::<f32>(), 3);
        assert_eq!(data, [7.0, 8.0, 9.0]);
        ok(api().PJRT_Buffer_DecreaseExternalReferenceCount.unwrap()(
            &mut remove,
        ));
        let (code, _) = status(api().PJRT_Buffer_DecreaseExternalReferenceCount.unwrap()(
            &mut remove,
        ))
        .unwrap();
        assert_eq!(code, PJRT_Error_Code_FAILED_PRECONDITION);
    }
    destroy_buffer(x);
}

#[test]
fn serialized_executables_load_again() {
    let client = Client::new(None);
    let executable = client.compile(ADD_AND_SUM).unwrap();
    let mut get = new_args::<PJRT_LoadedExecutable_GetExecutable_Args>();
    get.loaded_executable = executable;
    let mut serialize = new_args::<PJRT_Executable_Serialize_Args>();
    // SAFETY: valid args throughout; the bytes live until the deleter runs.
    let loaded = unsafe {
        ok(api().PJRT_LoadedExecutable_GetExecutable.unwrap()(&mut get));
        serialize.executable = get.executable;
        ok(api().PJRT_Executable_Serialize.unwrap()(&mut serialize));
        let mut load = new_args::<PJRT_Executable_DeserializeAndLoad_Args>();
        load.client = client.0;
        load.serialized_executable = serialize.serialized_bytes;
        load.serialized_executable_size = serialize.serialized_bytes_size;
        ok(api().PJRT_Executable_DeserializeAndLoad.unwrap()(&mut load));
        serialize.serialized_executable_deleter.unwrap()(serialize.serialized_executable);
        load.loaded_executable
    };
    let x = client.buffer_f32(&[2, 3], &[1.0; 6], None).unwrap();
    let out = execute(loaded, &[x, x], 2).unwrap();
    assert_eq!(to_host_f32(out[1], 3).unwrap(), [4.0; 3]);

    let mut load = new_args::<PJRT_Executable_DeserializeAndLoad_Args>();
    load.client = client.0;
    let junk = b"not an executable";
    load.serialized_executable = junk.as_ptr().cast();
    load.serialized_executable_size = junk.len();
    // SAFETY: valid args.
    let (code, _) =
        status(unsafe { api().PJRT_Executable_DeserializeAndLoad.unwrap()(&mut load) }).unwrap();
    assert_eq!(code, PJRT_Error_Code_INVALID_ARGUMENT);
}

#[test]
fn bad_input_is_an_error_status() {
    let client = Client::new(None);
    let byte = [0u8; 4];
    let (code, message) = client
        .buffer(PJRT_Buffer_Type_F8E4M3FN, &[4], byte.as_ptr(), None)
        .unwrap_err();
    assert_eq!(code, PJRT_Error_Code_UNIMPLEMENTED);
    assert!(message.contains("f8e4m3fn"), "{message}");
    let (code, message) = client
        .compile("func.func public @main(%a: tensor<2xf32>) -> tensor<2xf32> {")
        .unwrap_err();
    assert_eq!(code, PJRT_Error_Code_INVALID_ARGUMENT);
    assert!(!message.is_empty());
    let callback = r#"
func.func public @main(%a: tensor<4xf32>) -> tensor<4xf32> {
  %0 = stablehlo.custom_call @xla_ffi_python_cpu_callback(%a) {api_version = 4 : i32, has_side_effect = true} : (tensor<4xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}
"#;
    let (code, message) = client.compile(callback).unwrap_err();
    assert_eq!(code, PJRT_Error_Code_UNIMPLEMENTED);
    assert!(
        message.contains("host callbacks are not supported"),
        "{message}"
    );
    let (code, message) = client.buffer_f32(&[2, -1], &[], None).unwrap_err();
    assert_eq!(code, PJRT_Error_Code_INVALID_ARGUMENT);
    assert!(message.contains("negative"), "{message}");
    // A null arguments pointer, a struct from an older header, and a slot
    // the plugin does not implement.
    // SAFETY: the plugin checks its arguments; nothing here is dereferenced
    // unchecked.
    unsafe {
        let (code, _) = status(api().PJRT_Client_Devices.unwrap()(null_mut())).unwrap();
        assert_eq!(code, PJRT_Error_Code_INVALID_ARGUMENT);
        let mut short = new_args::<PJRT_Client_Devices_Args>();
        short.struct_size = 16;
        short.client = client.0;
        let (code, message) = status(api().PJRT_Client_Devices.unwrap()(&mut short)).unwrap();
        assert_eq!(code, PJRT_Error_Code_INVALID_ARGUMENT);
        assert!(message.contains("struct_size 16"), "{message}");
        let mut dma = new_args::<PJRT_Client_DmaMap_Args>();
        let (code, message) = status(api().PJRT_Client_DmaMap.unwrap()(&mut dma)).unwrap();
        assert_eq!(code, PJRT_Error_Code_UNIMPLEMENTED);
        assert!(message.contains("PJRT_Client_DmaMap"), "{message}");
    }
}
