module @jit__pooling attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<2x7x5x3xf32>) -> (tensor<2x4x3x3xf32> {jax.result_info = "result[0]"}, tensor<2x4x3x3xf32> {jax.result_info = "result[1]"}, tensor<2x5x3x3xf32> {jax.result_info = "result[2]"}, tensor<2x7x5x3xf32> {jax.result_info = "result[3]"}, tensor<7x5xf32> {jax.result_info = "result[4]"}) {
    %cst = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %0 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f32>) -> tensor<f32>
    %1 = "stablehlo.reduce_window"(%arg0, %0) <{base_dilations = array<i64: 1, 1, 1, 1>, padding = dense<[[0, 0], [1, 1], [1, 1], [0, 0]]> : tensor<4x2xi64>, window_dilations = array<i64: 1, 1, 1, 1>, window_dimensions = array<i64: 1, 3, 3, 1>, window_strides = array<i64: 1, 2, 2, 1>}> ({
    ^bb0(%arg1: tensor<f32>, %arg2: tensor<f32>):
      %18 = stablehlo.add %arg1, %arg2 : tensor<f32>
      stablehlo.return %18 : tensor<f32>
    }) : (tensor<2x7x5x3xf32>, tensor<f32>) -> tensor<2x4x3x3xf32>
    %cst_0 = stablehlo.constant dense<1.000000e+00> : tensor<f32>
    %2 = stablehlo.broadcast_in_dim %cst_0, dims = [] : (tensor<f32>) -> tensor<2x7x5x3xf32>
    %cst_1 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %3 = stablehlo.broadcast_in_dim %cst_1, dims = [] : (tensor<f32>) -> tensor<f32>
    %4 = "stablehlo.reduce_window"(%2, %3) <{base_dilations = array<i64: 1, 1, 1, 1>, padding = dense<[[0, 0], [1, 1], [1, 1], [0, 0]]> : tensor<4x2xi64>, window_dilations = array<i64: 1, 1, 1, 1>, window_dimensions = array<i64: 1, 3, 3, 1>, window_strides = array<i64: 1, 2, 2, 1>}> ({
    ^bb0(%arg1: tensor<f32>, %arg2: tensor<f32>):
      %18 = stablehlo.add %arg1, %arg2 : tensor<f32>
      stablehlo.return %18 : tensor<f32>
    }) : (tensor<2x7x5x3xf32>, tensor<f32>) -> tensor<2x4x3x3xf32>
    %cst_2 = stablehlo.constant dense<0xFF800000> : tensor<f32>
    %5 = stablehlo.broadcast_in_dim %cst_2, dims = [] : (tensor<f32>) -> tensor<f32>
    %6 = "stablehlo.reduce_window"(%arg0, %5) <{base_dilations = array<i64: 1, 1, 1, 1>, padding = dense<[[0, 0], [1, 1], [1, 1], [0, 0]]> : tensor<4x2xi64>, window_dilations = array<i64: 1, 1, 1, 1>, window_dimensions = array<i64: 1, 3, 3, 1>, window_strides = array<i64: 1, 2, 2, 1>}> ({
    ^bb0(%arg1: tensor<f32>, %arg2: tensor<f32>):
      %18 = stablehlo.maximum %arg1, %arg2 : tensor<f32>
      stablehlo.return %18 : tensor<f32>
    }) : (tensor<2x7x5x3xf32>, tensor<f32>) -> tensor<2x4x3x3xf32>
    %cst_3 = stablehlo.constant dense<0xFF800000> : tensor<f32>
    %7 = stablehlo.broadcast_in_dim %cst_3, dims = [] : (tensor<f32>) -> tensor<f32>
    %8 = "stablehlo.reduce_window"(%arg0, %7) <{base_dilations = array<i64: 1, 1, 1, 1>, padding = dense<0> : tensor<4x2xi64>, window_dilations = array<i64: 1, 2, 2, 1>, window_dimensions = array<i64: 1, 2, 2, 1>, window_strides = array<i64: 1, 1, 1, 1>}> ({
    ^bb0(%arg1: tensor<f32>, %arg2: tensor<f32>):
      %18 = stablehlo.maximum %arg1, %arg2 : tensor<f32>
      stablehlo.return %18 : tensor<f32>
    }) : (tensor<2x7x5x3xf32>, tensor<f32>) -> tensor<2x5x3x3xf32>
    %9 = stablehlo.divide %1, %4 : tensor<2x4x3x3xf32>
    %10 = call @cummax(%arg0) : (tensor<2x7x5x3xf32>) -> tensor<2x7x5x3xf32>
    %11 = stablehlo.slice %arg0 [0:1, 0:7, 0:5, 0:1] : (tensor<2x7x5x3xf32>) -> tensor<1x7x5x1xf32>
    %12 = stablehlo.reshape %11 : (tensor<1x7x5x1xf32>) -> tensor<7x5xf32>
    %cst_4 = stablehlo.constant dense<5.000000e-01> : tensor<f32>
    %13 = stablehlo.broadcast_in_dim %cst_4, dims = [] : (tensor<f32>) -> tensor<7x5xf32>
    %14 = stablehlo.multiply %12, %13 : tensor<7x5xf32>
    %cst_5 = stablehlo.constant dense<1.000000e+00> : tensor<f32>
    %15 = stablehlo.broadcast_in_dim %cst_5, dims = [] : (tensor<f32>) -> tensor<7x5xf32>
    %16 = stablehlo.add %14, %15 : tensor<7x5xf32>
    %17 = call @cumprod(%16) : (tensor<7x5xf32>) -> tensor<7x5xf32>
    return %9, %6, %8, %10, %17 : tensor<2x4x3x3xf32>, tensor<2x4x3x3xf32>, tensor<2x5x3x3xf32>, tensor<2x7x5x3xf32>, tensor<7x5xf32>
  }
  func.func private @cummax(%arg0: tensor<2x7x5x3xf32>) -> tensor<2x7x5x3xf32> {
    %cst = stablehlo.constant dense<0xFF800000> : tensor<f32>
    %0 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f32>) -> tensor<f32>
    %1 = "stablehlo.reduce_window"(%arg0, %0) <{base_dilations = array<i64: 1, 1, 1, 1>, padding = dense<[[0, 0], [0, 0], [4, 0], [0, 0]]> : tensor<4x2xi64>, window_dilations = array<i64: 1, 1, 1, 1>, window_dimensions = array<i64: 1, 1, 5, 1>, window_strides = array<i64: 1, 1, 1, 1>}> ({
    ^bb0(%arg1: tensor<f32>, %arg2: tensor<f32>):
      %2 = stablehlo.maximum %arg1, %arg2 : tensor<f32>
      stablehlo.return %2 : tensor<f32>
    }) : (tensor<2x7x5x3xf32>, tensor<f32>) -> tensor<2x7x5x3xf32>
    return %1 : tensor<2x7x5x3xf32>
  }
  func.func private @cumprod(%arg0: tensor<7x5xf32>) -> tensor<7x5xf32> {
    %0 = call @cumprod_0(%arg0) : (tensor<7x5xf32>) -> tensor<7x5xf32>
    return %0 : tensor<7x5xf32>
  }
  func.func private @cumprod_0(%arg0: tensor<7x5xf32>) -> tensor<7x5xf32> {
    %cst = stablehlo.constant dense<1.000000e+00> : tensor<f32>
    %0 = "stablehlo.reduce_window"(%arg0, %cst) <{base_dilations = array<i64: 1, 1>, padding = dense<[[6, 0], [0, 0]]> : tensor<2x2xi64>, window_dilations = array<i64: 1, 1>, window_dimensions = array<i64: 7, 1>, window_strides = array<i64: 1, 1>}> ({
    ^bb0(%arg1: tensor<f32>, %arg2: tensor<f32>):
      %1 = stablehlo.multiply %arg1, %arg2 : tensor<f32>
      stablehlo.return %1 : tensor<f32>
    }) : (tensor<7x5xf32>, tensor<f32>) -> tensor<7x5xf32>
    return %0 : tensor<7x5xf32>
  }
}
