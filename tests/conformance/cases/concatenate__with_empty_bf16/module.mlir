module @jit__lambda attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<3x4xbf16>, %arg1: tensor<0x4xbf16>, %arg2: tensor<1x4xbf16>) -> (tensor<4x4xbf16> {jax.result_info = "result"}) {
    %0 = stablehlo.concatenate %arg0, %arg1, %arg2, dim = 0 : (tensor<3x4xbf16>, tensor<0x4xbf16>, tensor<1x4xbf16>) -> tensor<4x4xbf16>
    return %0 : tensor<4x4xbf16>
  }
}
