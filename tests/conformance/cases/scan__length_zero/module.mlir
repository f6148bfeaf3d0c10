module @jit__lambda attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<0xf32>) -> (tensor<f32> {jax.result_info = "result[0]"}, tensor<0xf32> {jax.result_info = "result[1]"}) {
    %cst = stablehlo.constant dense<3.000000e+00> : tensor<f32>
    return %cst, %arg0 : tensor<f32>, tensor<0xf32>
  }
}
