module @jit_digamma attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<75xf64>) -> (tensor<75xf64> {jax.result_info = "result"}) {
    %0 = chlo.digamma %arg0 : tensor<75xf64> -> tensor<75xf64>
    return %0 : tensor<75xf64>
  }
}
