module @jit_exp attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<4x8xcomplex<f64>>) -> (tensor<4x8xcomplex<f64>> {jax.result_info = "result"}) {
    %0 = stablehlo.exponential %arg0 : tensor<4x8xcomplex<f64>>
    return %0 : tensor<4x8xcomplex<f64>>
  }
}
