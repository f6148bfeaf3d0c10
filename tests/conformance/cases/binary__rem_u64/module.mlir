module @jit_rem attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<100xui64>, %arg1: tensor<100xui64>) -> (tensor<100xui64> {jax.result_info = "result"}) {
    %0 = stablehlo.remainder %arg0, %arg1 : tensor<100xui64>
    return %0 : tensor<100xui64>
  }
}
