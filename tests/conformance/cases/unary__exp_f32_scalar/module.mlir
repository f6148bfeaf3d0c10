module @jit_exp attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<f32>) -> (tensor<f32> {jax.result_info = "result"}) {
    %0 = stablehlo.exponential %arg0 : tensor<f32>
    return %0 : tensor<f32>
  }
}
