module @jit_atan2 attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<256xf64>, %arg1: tensor<256xf64>) -> (tensor<256xf64> {jax.result_info = "result"}) {
    %0 = stablehlo.atan2 %arg0, %arg1 : tensor<256xf64>
    return %0 : tensor<256xf64>
  }
}
