module @jit_pow attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<265xf64>, %arg1: tensor<265xf64>) -> (tensor<265xf64> {jax.result_info = "result"}) {
    %0 = stablehlo.power %arg0, %arg1 : tensor<265xf64>
    return %0 : tensor<265xf64>
  }
}
