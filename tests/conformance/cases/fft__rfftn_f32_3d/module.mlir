module @jit_rfftn attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<2x3x4xf32>) -> (tensor<2x3x3xcomplex<f32>> {jax.result_info = "result"}) {
    %0 = call @fft(%arg0) : (tensor<2x3x4xf32>) -> tensor<2x3x3xcomplex<f32>>
    return %0 : tensor<2x3x3xcomplex<f32>>
  }
  func.func private @fft(%arg0: tensor<2x3x4xf32>) -> tensor<2x3x3xcomplex<f32>> {
    %0 = stablehlo.fft %arg0, type = RFFT, length = [2, 3, 4] : (tensor<2x3x4xf32>) -> tensor<2x3x3xcomplex<f32>>
    return %0 : tensor<2x3x3xcomplex<f32>>
  }
}
