module @jit_acosh attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<75xf16>) -> (tensor<75xf16> {jax.result_info = "result"}) {
    %0 = chlo.acosh %arg0 : tensor<75xf16> -> tensor<75xf16>
    return %0 : tensor<75xf16>
  }
}
