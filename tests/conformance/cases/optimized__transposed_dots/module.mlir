module @jit__transposed_dots attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<9x6xf32>, %arg1: tensor<9x6xf32>) -> (tensor<6x6xf32> {jax.result_info = "result[0]"}, tensor<9x9xf32> {jax.result_info = "result[1]"}, tensor<9x9xf32> {jax.result_info = "result[2]"}) {
    %0 = stablehlo.transpose %arg0, dims = [1, 0] : (tensor<9x6xf32>) -> tensor<6x9xf32>
    %1 = stablehlo.dot_general %0, %arg1, contracting_dims = [1] x [0], precision = [DEFAULT, DEFAULT] : (tensor<6x9xf32>, tensor<9x6xf32>) -> tensor<6x6xf32>
    %2 = stablehlo.dot_general %arg0, %arg1, contracting_dims = [1] x [1], precision = [DEFAULT, DEFAULT] : (tensor<9x6xf32>, tensor<9x6xf32>) -> tensor<9x9xf32>
    %3 = stablehlo.transpose %arg1, dims = [1, 0] : (tensor<9x6xf32>) -> tensor<6x9xf32>
    %4 = stablehlo.dot_general %arg0, %3, contracting_dims = [1] x [0], precision = [DEFAULT, DEFAULT] : (tensor<9x6xf32>, tensor<6x9xf32>) -> tensor<9x9xf32>
    %5 = stablehlo.transpose %4, dims = [1, 0] : (tensor<9x9xf32>) -> tensor<9x9xf32>
    %cst = stablehlo.constant dense<2.000000e+00> : tensor<f32>
    %6 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f32>) -> tensor<9x9xf32>
    %7 = stablehlo.multiply %5, %6 : tensor<9x9xf32>
    return %1, %2, %7 : tensor<6x6xf32>, tensor<9x9xf32>, tensor<9x9xf32>
  }
}
