module @jit__lambda attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<2x3x1xui64>, %arg1: tensor<2x3x4xui64>) -> (tensor<2x3x5xui64> {jax.result_info = "result"}) {
    %0 = stablehlo.concatenate %arg0, %arg1, dim = 2 : (tensor<2x3x1xui64>, tensor<2x3x4xui64>) -> tensor<2x3x5xui64>
    return %0 : tensor<2x3x5xui64>
  }
}
