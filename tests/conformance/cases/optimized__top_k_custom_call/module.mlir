module @jit__top_k attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<4x19xf32>, %arg1: tensor<3x20xi32>) -> (tensor<4x5xf32> {jax.result_info = "result[0]"}, tensor<4x5xi32> {jax.result_info = "result[1]"}, tensor<3x3xi32> {jax.result_info = "result[2]"}, tensor<3x3xi32> {jax.result_info = "result[3]"}, tensor<19x2xf32> {jax.result_info = "result[4]"}, tensor<19x2xi32> {jax.result_info = "result[5]"}) {
    %values, %indices = chlo.top_k(%arg0, k = 5) : tensor<4x19xf32> -> (tensor<4x5xf32>, tensor<4x5xi32>)
    %values_0, %indices_1 = chlo.top_k(%arg1, k = 3) : tensor<3x20xi32> -> (tensor<3x3xi32>, tensor<3x3xi32>)
    %0 = stablehlo.transpose %arg0, dims = [1, 0] : (tensor<4x19xf32>) -> tensor<19x4xf32>
    %values_2, %indices_3 = chlo.top_k(%0, k = 2) : tensor<19x4xf32> -> (tensor<19x2xf32>, tensor<19x2xi32>)
    return %values, %indices, %values_0, %indices_1, %values_2, %indices_3 : tensor<4x5xf32>, tensor<4x5xi32>, tensor<3x3xi32>, tensor<3x3xi32>, tensor<19x2xf32>, tensor<19x2xi32>
  }
}
