module @jit__lambda attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<5x7xf16>, %arg1: tensor<2x3xf16>, %arg2: tensor<i32>, %arg3: tensor<i32>) -> (tensor<5x7xf16> {jax.result_info = "result"}) {
    %0 = stablehlo.dynamic_update_slice %arg0, %arg1, %arg2, %arg3 : (tensor<5x7xf16>, tensor<2x3xf16>, tensor<i32>, tensor<i32>) -> tensor<5x7xf16>
    return %0 : tensor<5x7xf16>
  }
}
