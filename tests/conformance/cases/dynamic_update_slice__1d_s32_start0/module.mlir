module @jit__lambda attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<5xf32>, %arg1: tensor<2xf32>, %arg2: tensor<i32>) -> (tensor<5xf32> {jax.result_info = "result"}) {
    %0 = stablehlo.dynamic_update_slice %arg0, %arg1, %arg2 : (tensor<5xf32>, tensor<2xf32>, tensor<i32>) -> tensor<5xf32>
    return %0 : tensor<5xf32>
  }
}
