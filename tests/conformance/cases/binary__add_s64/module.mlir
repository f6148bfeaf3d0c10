module @jit_add attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<196xi64>, %arg1: tensor<196xi64>) -> (tensor<196xi64> {jax.result_info = "result"}) {
    %0 = stablehlo.add %arg0, %arg1 : tensor<196xi64>
    return %0 : tensor<196xi64>
  }
}
