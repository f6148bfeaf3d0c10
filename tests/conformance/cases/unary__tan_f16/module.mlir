module @jit_tan attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<5x13xf16>) -> (tensor<5x13xf16> {jax.result_info = "result"}) {
    %0 = stablehlo.tan %arg0 : tensor<5x13xf16>
    return %0 : tensor<5x13xf16>
  }
}
