module @jit_select attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<3x7xi1>, %arg1: tensor<3x7xbf16>, %arg2: tensor<3x7xbf16>) -> (tensor<3x7xbf16> {jax.result_info = "result"}) {
    %0 = stablehlo.select %arg0, %arg1, %arg2 : tensor<3x7xi1>, tensor<3x7xbf16>
    return %0 : tensor<3x7xbf16>
  }
}
