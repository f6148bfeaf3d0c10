module @jit__lambda attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<4x3xf32>, %arg1: tensor<i32>, %arg2: tensor<i32>) -> (tensor<2x2xf32> {jax.result_info = "result"}) {
    %0 = stablehlo.dynamic_slice %arg0, %arg1, %arg2, sizes = [2, 2] : (tensor<4x3xf32>, tensor<i32>, tensor<i32>) -> tensor<2x2xf32>
    return %0 : tensor<2x2xf32>
  }
}
