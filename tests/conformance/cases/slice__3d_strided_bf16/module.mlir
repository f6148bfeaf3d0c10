module @jit__lambda attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<7x5x13xbf16>) -> (tensor<2x3x3xbf16> {jax.result_info = "result"}) {
    %0 = stablehlo.slice %arg0 [1:7:3, 0:5:2, 2:13:4] : (tensor<7x5x13xbf16>) -> tensor<2x3x3xbf16>
    return %0 : tensor<2x3x3xbf16>
  }
}
