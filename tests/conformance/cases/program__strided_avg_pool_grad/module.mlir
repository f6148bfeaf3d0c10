module @jit__strided_pool_grad attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<2x7x7x2xf32>, %arg1: tensor<3x3x2x3xf32>) -> (tensor<f32> {jax.result_info = "result[0]"}, tensor<2x7x7x2xf32> {jax.result_info = "result[1][0]"}, tensor<3x3x2x3xf32> {jax.result_info = "result[1][1]"}) {
    %0 = stablehlo.convolution(%arg0, %arg1) dim_numbers = [b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f], window = {stride = [1, 1], pad = [[1, 1], [1, 1]], lhs_dilate = [1, 1], rhs_dilate = [1, 1], reverse = [false, false]} {batch_group_count = 1 : i64, feature_group_count = 1 : i64, precision_config = [#stablehlo<precision DEFAULT>, #stablehlo<precision DEFAULT>]} : (tensor<2x7x7x2xf32>, tensor<3x3x2x3xf32>) -> tensor<2x7x7x3xf32>
    %1 = stablehlo.tanh %0 : tensor<2x7x7x3xf32>
    %cst = stablehlo.constant dense<1.000000e+00> : tensor<f32>
    %2 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f32>) -> tensor<2x7x7x3xf32>
    %3 = stablehlo.subtract %2, %1 : tensor<2x7x7x3xf32>
    %cst_0 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %4 = stablehlo.broadcast_in_dim %cst_0, dims = [] : (tensor<f32>) -> tensor<f32>
    %5 = "stablehlo.reduce_window"(%1, %4) <{base_dilations = array<i64: 1, 1, 1, 1>, padding = dense<0> : tensor<4x2xi64>, window_dilations = array<i64: 1, 1, 1, 1>, window_dimensions = array<i64: 1, 3, 3, 1>, window_strides = array<i64: 1, 2, 2, 1>}> ({
    ^bb0(%arg2: tensor<f32>, %arg3: tensor<f32>):
      %25 = stablehlo.add %arg2, %arg3 : tensor<f32>
      stablehlo.return %25 : tensor<f32>
    }) : (tensor<2x7x7x3xf32>, tensor<f32>) -> tensor<2x3x3x3xf32>
    %cst_1 = stablehlo.constant dense<9.000000e+00> : tensor<f32>
    %6 = stablehlo.broadcast_in_dim %cst_1, dims = [] : (tensor<f32>) -> tensor<2x3x3x3xf32>
    %7 = stablehlo.divide %5, %6 : tensor<2x3x3x3xf32>
    %8 = stablehlo.multiply %7, %7 : tensor<2x3x3x3xf32>
    %cst_2 = stablehlo.constant dense<2.000000e+00> : tensor<f32>
    %9 = stablehlo.broadcast_in_dim %cst_2, dims = [] : (tensor<f32>) -> tensor<2x3x3x3xf32>
    %10 = stablehlo.multiply %9, %7 : tensor<2x3x3x3xf32>
    %cst_3 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %11 = stablehlo.reduce(%8 init: %cst_3) applies stablehlo.add across dimensions = [0, 1, 2, 3] : (tensor<2x3x3x3xf32>, tensor<f32>) -> tensor<f32>
    %cst_4 = stablehlo.constant dense<1.000000e+00> : tensor<f32>
    %12 = stablehlo.broadcast_in_dim %cst_4, dims = [] : (tensor<f32>) -> tensor<2x3x3x3xf32>
    %13 = stablehlo.multiply %12, %10 : tensor<2x3x3x3xf32>
    %cst_5 = stablehlo.constant dense<9.000000e+00> : tensor<f32>
    %14 = stablehlo.broadcast_in_dim %cst_5, dims = [] : (tensor<f32>) -> tensor<2x3x3x3xf32>
    %15 = stablehlo.divide %13, %14 : tensor<2x3x3x3xf32>
    %cst_6 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %16 = stablehlo.pad %15, %cst_6, low = [0, 2, 2, 0], high = [0, 2, 2, 0], interior = [0, 1, 1, 0] : (tensor<2x3x3x3xf32>, tensor<f32>) -> tensor<2x9x9x3xf32>
    %cst_7 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %17 = stablehlo.broadcast_in_dim %cst_7, dims = [] : (tensor<f32>) -> tensor<f32>
    %18 = "stablehlo.reduce_window"(%16, %17) <{base_dilations = array<i64: 1, 1, 1, 1>, padding = dense<0> : tensor<4x2xi64>, window_dilations = array<i64: 1, 1, 1, 1>, window_dimensions = array<i64: 1, 3, 3, 1>, window_strides = array<i64: 1, 1, 1, 1>}> ({
    ^bb0(%arg2: tensor<f32>, %arg3: tensor<f32>):
      %25 = stablehlo.add %arg2, %arg3 : tensor<f32>
      stablehlo.return %25 : tensor<f32>
    }) : (tensor<2x9x9x3xf32>, tensor<f32>) -> tensor<2x7x7x3xf32>
    %19 = stablehlo.multiply %18, %3 : tensor<2x7x7x3xf32>
    %20 = stablehlo.multiply %19, %1 : tensor<2x7x7x3xf32>
    %21 = stablehlo.add %19, %20 : tensor<2x7x7x3xf32>
    %22 = stablehlo.convolution(%arg0, %21) dim_numbers = [f, 0, 1, b]x[i, 0, 1, o]->[0, 1, b, f], window = {stride = [1, 1], pad = [[1, 1], [1, 1]], lhs_dilate = [1, 1], rhs_dilate = [1, 1], reverse = [false, false]} {batch_group_count = 1 : i64, feature_group_count = 1 : i64, precision_config = [#stablehlo<precision DEFAULT>, #stablehlo<precision DEFAULT>]} : (tensor<2x7x7x2xf32>, tensor<2x7x7x3xf32>) -> tensor<3x3x2x3xf32>
    %23 = stablehlo.reverse %arg1, dims = [0, 1] : tensor<3x3x2x3xf32>
    %24 = stablehlo.convolution(%21, %23) dim_numbers = [b, 0, 1, f]x[0, 1, o, i]->[b, 0, 1, f], window = {stride = [1, 1], pad = [[1, 1], [1, 1]], lhs_dilate = [1, 1], rhs_dilate = [1, 1], reverse = [false, false]} {batch_group_count = 1 : i64, feature_group_count = 1 : i64, precision_config = [#stablehlo<precision DEFAULT>, #stablehlo<precision DEFAULT>]} : (tensor<2x7x7x3xf32>, tensor<3x3x2x3xf32>) -> tensor<2x7x7x2xf32>
    return %11, %24, %22 : tensor<f32>, tensor<2x7x7x2xf32>, tensor<3x3x2x3xf32>
  }
}
