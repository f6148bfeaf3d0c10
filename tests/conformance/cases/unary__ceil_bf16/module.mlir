module @jit_ceil attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<5x13xbf16>) -> (tensor<5x13xbf16> {jax.result_info = "result"}) {
    %0 = stablehlo.ceil %arg0 : tensor<5x13xbf16>
    return %0 : tensor<5x13xbf16>
  }
}
