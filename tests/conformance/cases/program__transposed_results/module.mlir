module @jit__transposed attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<5x5xf32>, %arg1: tensor<5x4xf32>, %arg2: tensor<4xf32>, %arg3: tensor<2x3x3xf32>) -> (tensor<5x5xf32> {jax.result_info = "result[0]"}, tensor<4x5xf32> {jax.result_info = "result[1]"}, tensor<3x3x2xf32> {jax.result_info = "result[2]"}, tensor<5xf32> {jax.result_info = "result[3]"}, tensor<5x5xf32> {jax.result_info = "result[4]"}) {
    %cst = stablehlo.constant dense<0xFF800000> : tensor<f32>
    %0 = stablehlo.reduce(%arg0 init: %cst) applies stablehlo.maximum across dimensions = [0] : (tensor<5x5xf32>, tensor<f32>) -> tensor<5xf32>
    %cst_0 = stablehlo.constant dense<0xFF800000> : tensor<f32>
    %1 = stablehlo.broadcast_in_dim %cst_0, dims = [] : (tensor<f32>) -> tensor<5xf32>
    %2 = stablehlo.maximum %1, %0 : tensor<5xf32>
    %3 = stablehlo.broadcast_in_dim %2, dims = [1] : (tensor<5xf32>) -> tensor<1x5xf32>
    %4 = stablehlo.broadcast_in_dim %3, dims = [0, 1] : (tensor<1x5xf32>) -> tensor<5x5xf32>
    %5 = stablehlo.subtract %arg0, %4 : tensor<5x5xf32>
    %6 = stablehlo.exponential %5 : tensor<5x5xf32>
    %cst_1 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %7 = stablehlo.reduce(%6 init: %cst_1) applies stablehlo.add across dimensions = [0] : (tensor<5x5xf32>, tensor<f32>) -> tensor<5xf32>
    %8 = stablehlo.broadcast_in_dim %7, dims = [1] : (tensor<5xf32>) -> tensor<1x5xf32>
    %9 = stablehlo.broadcast_in_dim %8, dims = [0, 1] : (tensor<1x5xf32>) -> tensor<5x5xf32>
    %10 = stablehlo.divide %6, %9 : tensor<5x5xf32>
    %11 = stablehlo.transpose %10, dims = [1, 0] : (tensor<5x5xf32>) -> tensor<5x5xf32>
    %12 = stablehlo.dot_general %arg0, %arg1, contracting_dims = [1] x [0], precision = [DEFAULT, DEFAULT] : (tensor<5x5xf32>, tensor<5x4xf32>) -> tensor<5x4xf32>
    %13 = stablehlo.transpose %12, dims = [1, 0] : (tensor<5x4xf32>) -> tensor<4x5xf32>
    %14 = stablehlo.broadcast_in_dim %arg2, dims = [0] : (tensor<4xf32>) -> tensor<4x1xf32>
    %15 = stablehlo.broadcast_in_dim %14, dims = [0, 1] : (tensor<4x1xf32>) -> tensor<4x5xf32>
    %16 = stablehlo.add %13, %15 : tensor<4x5xf32>
    %17 = stablehlo.dot_general %arg3, %arg3, batching_dims = [0] x [0], contracting_dims = [2] x [1], precision = [DEFAULT, DEFAULT] : (tensor<2x3x3xf32>, tensor<2x3x3xf32>) -> tensor<2x3x3xf32>
    %18 = stablehlo.transpose %17, dims = [2, 1, 0] : (tensor<2x3x3xf32>) -> tensor<3x3x2xf32>
    %19 = stablehlo.tanh %arg0 : tensor<5x5xf32>
    %20 = stablehlo.transpose %19, dims = [1, 0] : (tensor<5x5xf32>) -> tensor<5x5xf32>
    %cst_2 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %21 = stablehlo.reduce(%20 init: %cst_2) applies stablehlo.add across dimensions = [0] : (tensor<5x5xf32>, tensor<f32>) -> tensor<5xf32>
    %22 = stablehlo.exponential %arg0 : tensor<5x5xf32>
    %23 = stablehlo.transpose %22, dims = [1, 0] : (tensor<5x5xf32>) -> tensor<5x5xf32>
    %cst_3 = stablehlo.constant dense<2.000000e+00> : tensor<f32>
    %24 = stablehlo.broadcast_in_dim %cst_3, dims = [] : (tensor<f32>) -> tensor<5x5xf32>
    %25 = stablehlo.multiply %23, %24 : tensor<5x5xf32>
    return %11, %16, %18, %21, %25 : tensor<5x5xf32>, tensor<4x5xf32>, tensor<3x3x2xf32>, tensor<5xf32>, tensor<5x5xf32>
  }
}
