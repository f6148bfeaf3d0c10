module @jit_shift_right_arithmetic attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<90xui64>, %arg1: tensor<90xui64>) -> (tensor<90xui64> {jax.result_info = "result"}) {
    %0 = stablehlo.shift_right_arithmetic %arg0, %arg1 : tensor<90xui64>
    return %0 : tensor<90xui64>
  }
}
