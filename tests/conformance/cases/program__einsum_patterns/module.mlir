module @jit__einsums attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<2x3x4xf32>, %arg1: tensor<2x4x5xf32>, %arg2: tensor<3x4xf32>, %arg3: tensor<2x2x3x4xf32>, %arg4: tensor<2x2x5x4xf32>) -> (tensor<2x3x5xf32> {jax.result_info = "result[0]"}, tensor<3xf32> {jax.result_info = "result[1]"}, tensor<3xf32> {jax.result_info = "result[2]"}, tensor<2x2x3x5xf32> {jax.result_info = "result[3]"}, tensor<2xf32> {jax.result_info = "result[4]"}, tensor<2x3x5xf32> {jax.result_info = "result[5]"}) {
    %0 = stablehlo.dot_general %arg0, %arg1, batching_dims = [0] x [0], contracting_dims = [2] x [1], precision = [DEFAULT, DEFAULT] : (tensor<2x3x4xf32>, tensor<2x4x5xf32>) -> tensor<2x3x5xf32>
    %1 = stablehlo.slice %arg0 [0:1, 0:3, 0:4] : (tensor<2x3x4xf32>) -> tensor<1x3x4xf32>
    %2 = stablehlo.reshape %1 : (tensor<1x3x4xf32>) -> tensor<3x4xf32>
    %3 = stablehlo.dot_general %2, %arg2, batching_dims = [0] x [0], contracting_dims = [1] x [1], precision = [DEFAULT, DEFAULT] : (tensor<3x4xf32>, tensor<3x4xf32>) -> tensor<3xf32>
    %4 = stablehlo.slice %arg2 [0:3, 0:3] : (tensor<3x4xf32>) -> tensor<3x3xf32>
    %5 = stablehlo.iota dim = 0 : tensor<3x3xui32>
    %6 = stablehlo.iota dim = 1 : tensor<3x3xui32>
    %7 = stablehlo.compare EQ, %5, %6, UNSIGNED : (tensor<3x3xui32>, tensor<3x3xui32>) -> tensor<3x3xi1>
    %cst = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %8 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f32>) -> tensor<3x3xf32>
    %9 = stablehlo.select %7, %4, %8 : tensor<3x3xi1>, tensor<3x3xf32>
    %cst_0 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %10 = stablehlo.reduce(%9 init: %cst_0) applies stablehlo.add across dimensions = [0] : (tensor<3x3xf32>, tensor<f32>) -> tensor<3xf32>
    %11 = stablehlo.dot_general %arg3, %arg4, batching_dims = [0, 1] x [0, 1], contracting_dims = [3] x [3], precision = [DEFAULT, DEFAULT] : (tensor<2x2x3x4xf32>, tensor<2x2x5x4xf32>) -> tensor<2x2x3x5xf32>
    %12 = stablehlo.transpose %arg2, dims = [1, 0] : (tensor<3x4xf32>) -> tensor<4x3xf32>
    %13 = stablehlo.dot_general %arg0, %12, contracting_dims = [1, 2] x [1, 0], precision = [DEFAULT, DEFAULT] : (tensor<2x3x4xf32>, tensor<4x3xf32>) -> tensor<2xf32>
    %14 = stablehlo.slice %arg1 [0:1, 0:4, 0:5] : (tensor<2x4x5xf32>) -> tensor<1x4x5xf32>
    %15 = stablehlo.reshape %14 : (tensor<1x4x5xf32>) -> tensor<4x5xf32>
    %16 = stablehlo.dot_general %arg0, %15, contracting_dims = [2] x [0], precision = [DEFAULT, DEFAULT] : (tensor<2x3x4xf32>, tensor<4x5xf32>) -> tensor<2x3x5xf32>
    return %0, %3, %10, %11, %13, %16 : tensor<2x3x5xf32>, tensor<3xf32>, tensor<3xf32>, tensor<2x2x3x5xf32>, tensor<2xf32>, tensor<2x3x5xf32>
  }
}
