module @jit__lambda attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<2x1x3x5xcomplex<f64>>) -> (tensor<5x1x2x3xcomplex<f64>> {jax.result_info = "result"}) {
    %0 = stablehlo.transpose %arg0, dims = [3, 1, 0, 2] : (tensor<2x1x3x5xcomplex<f64>>) -> tensor<5x1x2x3xcomplex<f64>>
    return %0 : tensor<5x1x2x3xcomplex<f64>>
  }
}
