module @jit_imag attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<3x13xcomplex<f32>>) -> (tensor<3x13xf32> {jax.result_info = "result"}) {
    %0 = stablehlo.imag %arg0 : (tensor<3x13xcomplex<f32>>) -> tensor<3x13xf32>
    return %0 : tensor<3x13xf32>
  }
}
