module @jit_select attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<i1>, %arg1: tensor<2x5xf32>, %arg2: tensor<2x5xf32>) -> (tensor<2x5xf32> {jax.result_info = "result"}) {
    %0 = stablehlo.select %arg0, %arg1, %arg2 : tensor<i1>, tensor<2x5xf32>
    return %0 : tensor<2x5xf32>
  }
}
