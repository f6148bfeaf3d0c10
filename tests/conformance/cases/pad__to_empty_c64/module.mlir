module @jit__lambda attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<3xcomplex<f32>>, %arg1: tensor<complex<f32>>) -> (tensor<0xcomplex<f32>> {jax.result_info = "result"}) {
    %0 = stablehlo.pad %arg0, %arg1, low = [-2], high = [-1], interior = [0] : (tensor<3xcomplex<f32>>, tensor<complex<f32>>) -> tensor<0xcomplex<f32>>
    return %0 : tensor<0xcomplex<f32>>
  }
}
