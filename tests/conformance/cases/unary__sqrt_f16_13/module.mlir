module @jit_sqrt attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<13xf16>) -> (tensor<13xf16> {jax.result_info = "result"}) {
    %0 = stablehlo.sqrt %arg0 : tensor<13xf16>
    return %0 : tensor<13xf16>
  }
}
