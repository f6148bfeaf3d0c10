module @jit_pow attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<112xbf16>, %arg1: tensor<112xbf16>) -> (tensor<112xbf16> {jax.result_info = "result"}) {
    %0 = stablehlo.power %arg0, %arg1 : tensor<112xbf16>
    return %0 : tensor<112xbf16>
  }
}
