module @jit_atan2 attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<256xbf16>, %arg1: tensor<256xbf16>) -> (tensor<256xbf16> {jax.result_info = "result"}) {
    %0 = stablehlo.atan2 %arg0, %arg1 : tensor<256xbf16>
    return %0 : tensor<256xbf16>
  }
}
