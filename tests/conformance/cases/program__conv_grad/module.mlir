module @jit__conv_grad attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<2x6x6x3xf32>, %arg1: tensor<3x3x3x4xf32>, %arg2: tensor<2x2x4x2xf32>) -> (tensor<f32> {jax.result_info = "result[0]"}, tensor<2x6x6x3xf32> {jax.result_info = "result[1][0]"}, tensor<3x3x3x4xf32> {jax.result_info = "result[1][1]"}, tensor<2x2x4x2xf32> {jax.result_info = "result[1][2]"}) {
    %0 = stablehlo.convolution(%arg0, %arg1) dim_numbers = [b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f], window = {stride = [1, 1], pad = [[1, 1], [1, 1]], lhs_dilate = [1, 1], rhs_dilate = [1, 1], reverse = [false, false]} {batch_group_count = 1 : i64, feature_group_count = 1 : i64, precision_config = [#stablehlo<precision DEFAULT>, #stablehlo<precision DEFAULT>]} : (tensor<2x6x6x3xf32>, tensor<3x3x3x4xf32>) -> tensor<2x6x6x4xf32>
    %1 = call @relu(%0) : (tensor<2x6x6x4xf32>) -> tensor<2x6x6x4xf32>
    %cst = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %2 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f32>) -> tensor<2x6x6x4xf32>
    %3 = stablehlo.compare GT, %0, %2, FLOAT : (tensor<2x6x6x4xf32>, tensor<2x6x6x4xf32>) -> tensor<2x6x6x4xi1>
    %cst_0 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %4 = stablehlo.broadcast_in_dim %cst_0, dims = [] : (tensor<f32>) -> tensor<2x6x6x4xf32>
    %5 = stablehlo.convolution(%1, %arg2) dim_numbers = [b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f], window = {stride = [2, 2], pad = [[0, 0], [0, 0]], lhs_dilate = [1, 1], rhs_dilate = [1, 1], reverse = [false, false]} {batch_group_count = 1 : i64, feature_group_count = 1 : i64, precision_config = [#stablehlo<precision DEFAULT>, #stablehlo<precision DEFAULT>]} : (tensor<2x6x6x4xf32>, tensor<2x2x4x2xf32>) -> tensor<2x3x3x2xf32>
    %6 = call @relu_0(%5) : (tensor<2x3x3x2xf32>) -> tensor<2x3x3x2xf32>
    %cst_1 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %7 = stablehlo.broadcast_in_dim %cst_1, dims = [] : (tensor<f32>) -> tensor<2x3x3x2xf32>
    %8 = stablehlo.compare GT, %5, %7, FLOAT : (tensor<2x3x3x2xf32>, tensor<2x3x3x2xf32>) -> tensor<2x3x3x2xi1>
    %cst_2 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %9 = stablehlo.broadcast_in_dim %cst_2, dims = [] : (tensor<f32>) -> tensor<2x3x3x2xf32>
    %10 = stablehlo.multiply %6, %6 : tensor<2x3x3x2xf32>
    %cst_3 = stablehlo.constant dense<2.000000e+00> : tensor<f32>
    %11 = stablehlo.broadcast_in_dim %cst_3, dims = [] : (tensor<f32>) -> tensor<2x3x3x2xf32>
    %12 = stablehlo.multiply %11, %6 : tensor<2x3x3x2xf32>
    %cst_4 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %13 = stablehlo.reduce(%10 init: %cst_4) applies stablehlo.add across dimensions = [0, 1, 2, 3] : (tensor<2x3x3x2xf32>, tensor<f32>) -> tensor<f32>
    %cst_5 = stablehlo.constant dense<3.600000e+01> : tensor<f32>
    %14 = stablehlo.divide %13, %cst_5 : tensor<f32>
    %cst_6 = stablehlo.constant dense<1.000000e+00> : tensor<f32>
    %cst_7 = stablehlo.constant dense<3.600000e+01> : tensor<f32>
    %15 = stablehlo.divide %cst_6, %cst_7 : tensor<f32>
    %16 = stablehlo.broadcast_in_dim %15, dims = [] : (tensor<f32>) -> tensor<2x3x3x2xf32>
    %17 = stablehlo.multiply %16, %12 : tensor<2x3x3x2xf32>
    %cst_8 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %18 = stablehlo.broadcast_in_dim %cst_8, dims = [] : (tensor<f32>) -> tensor<2x3x3x2xf32>
    %19 = stablehlo.select %8, %17, %18 : tensor<2x3x3x2xi1>, tensor<2x3x3x2xf32>
    %20 = stablehlo.convolution(%1, %19) dim_numbers = [f, 0, 1, b]x[i, 0, 1, o]->[0, 1, b, f], window = {stride = [1, 1], pad = [[0, 0], [0, 0]], lhs_dilate = [1, 1], rhs_dilate = [2, 2], reverse = [false, false]} {batch_group_count = 1 : i64, feature_group_count = 1 : i64, precision_config = [#stablehlo<precision DEFAULT>, #stablehlo<precision DEFAULT>]} : (tensor<2x6x6x4xf32>, tensor<2x3x3x2xf32>) -> tensor<2x2x4x2xf32>
    %21 = stablehlo.reverse %arg2, dims = [0, 1] : tensor<2x2x4x2xf32>
    %22 = stablehlo.convolution(%19, %21) dim_numbers = [b, 0, 1, f]x[0, 1, o, i]->[b, 0, 1, f], window = {stride = [1, 1], pad = [[1, 1], [1, 1]], lhs_dilate = [2, 2], rhs_dilate = [1, 1], reverse = [false, false]} {batch_group_count = 1 : i64, feature_group_count = 1 : i64, precision_config = [#stablehlo<precision DEFAULT>, #stablehlo<precision DEFAULT>]} : (tensor<2x3x3x2xf32>, tensor<2x2x4x2xf32>) -> tensor<2x6x6x4xf32>
    %cst_9 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %23 = stablehlo.broadcast_in_dim %cst_9, dims = [] : (tensor<f32>) -> tensor<2x6x6x4xf32>
    %24 = stablehlo.select %3, %22, %23 : tensor<2x6x6x4xi1>, tensor<2x6x6x4xf32>
    %25 = stablehlo.convolution(%arg0, %24) dim_numbers = [f, 0, 1, b]x[i, 0, 1, o]->[0, 1, b, f], window = {stride = [1, 1], pad = [[1, 1], [1, 1]], lhs_dilate = [1, 1], rhs_dilate = [1, 1], reverse = [false, false]} {batch_group_count = 1 : i64, feature_group_count = 1 : i64, precision_config = [#stablehlo<precision DEFAULT>, #stablehlo<precision DEFAULT>]} : (tensor<2x6x6x3xf32>, tensor<2x6x6x4xf32>) -> tensor<3x3x3x4xf32>
    %26 = stablehlo.reverse %arg1, dims = [0, 1] : tensor<3x3x3x4xf32>
    %27 = stablehlo.convolution(%24, %26) dim_numbers = [b, 0, 1, f]x[0, 1, o, i]->[b, 0, 1, f], window = {stride = [1, 1], pad = [[1, 1], [1, 1]], lhs_dilate = [1, 1], rhs_dilate = [1, 1], reverse = [false, false]} {batch_group_count = 1 : i64, feature_group_count = 1 : i64, precision_config = [#stablehlo<precision DEFAULT>, #stablehlo<precision DEFAULT>]} : (tensor<2x6x6x4xf32>, tensor<3x3x3x4xf32>) -> tensor<2x6x6x3xf32>
    return %14, %27, %25, %20 : tensor<f32>, tensor<2x6x6x3xf32>, tensor<3x3x3x4xf32>, tensor<2x2x4x2xf32>
  }
  func.func private @relu(%arg0: tensor<2x6x6x4xf32>) -> tensor<2x6x6x4xf32> {
    %cst = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %0 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f32>) -> tensor<2x6x6x4xf32>
    %1 = stablehlo.maximum %arg0, %0 : tensor<2x6x6x4xf32>
    return %1 : tensor<2x6x6x4xf32>
  }
  func.func private @relu_0(%arg0: tensor<2x3x3x2xf32>) -> tensor<2x3x3x2xf32> {
    %cst = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %0 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f32>) -> tensor<2x3x3x2xf32>
    %1 = stablehlo.maximum %arg0, %0 : tensor<2x3x3x2xf32>
    return %1 : tensor<2x3x3x2xf32>
  }
}
