module @jit__lambda attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<1x3x1xcomplex<f32>>) -> (tensor<4x3x2xcomplex<f32>> {jax.result_info = "result"}) {
    %0 = stablehlo.broadcast_in_dim %arg0, dims = [0, 1, 2] : (tensor<1x3x1xcomplex<f32>>) -> tensor<4x3x2xcomplex<f32>>
    return %0 : tensor<4x3x2xcomplex<f32>>
  }
}
