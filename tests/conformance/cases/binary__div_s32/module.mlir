module @jit_div attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<196xi32>, %arg1: tensor<196xi32>) -> (tensor<196xi32> {jax.result_info = "result"}) {
    %0 = stablehlo.divide %arg0, %arg1 : tensor<196xi32>
    return %0 : tensor<196xi32>
  }
}
