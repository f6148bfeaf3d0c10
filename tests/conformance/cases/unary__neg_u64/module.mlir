module @jit_neg attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<3x7xui64>) -> (tensor<3x7xui64> {jax.result_info = "result"}) {
    %0 = stablehlo.negate %arg0 : tensor<3x7xui64>
    return %0 : tensor<3x7xui64>
  }
}
