module @jit_shift_left attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<90xui8>, %arg1: tensor<90xui8>) -> (tensor<90xui8> {jax.result_info = "result"}) {
    %0 = stablehlo.shift_left %arg0, %arg1 : tensor<90xui8>
    return %0 : tensor<90xui8>
  }
}
