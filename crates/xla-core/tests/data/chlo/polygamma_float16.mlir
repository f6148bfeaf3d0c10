module @jit_polygamma attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<104xf16>, %arg1: tensor<104xf16>) -> (tensor<104xf16> {jax.result_info = "result"}) {
    %0 = chlo.polygamma %arg0, %arg1 : tensor<104xf16>, tensor<104xf16> -> tensor<104xf16>
    return %0 : tensor<104xf16>
  }
}
