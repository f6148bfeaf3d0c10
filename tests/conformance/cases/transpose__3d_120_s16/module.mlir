module @jit__lambda attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<4x2x3xi16>) -> (tensor<2x3x4xi16> {jax.result_info = "result"}) {
    %0 = stablehlo.transpose %arg0, dims = [1, 2, 0] : (tensor<4x2x3xi16>) -> tensor<2x3x4xi16>
    return %0 : tensor<2x3x4xi16>
  }
}
