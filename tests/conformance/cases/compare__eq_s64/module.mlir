module @jit_eq attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<196xi64>, %arg1: tensor<196xi64>) -> (tensor<196xi1> {jax.result_info = "result"}) {
    %0 = stablehlo.compare EQ, %arg0, %arg1, SIGNED : (tensor<196xi64>, tensor<196xi64>) -> tensor<196xi1>
    return %0 : tensor<196xi1>
  }
}
