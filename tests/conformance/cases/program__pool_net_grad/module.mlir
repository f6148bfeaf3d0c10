module @jit__pool_net_grad attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<2x8x8x2xf32>, %arg1: tensor<3x3x2x3xf32>, %arg2: tensor<48x2xf32>) -> (tensor<f32> {jax.result_info = "result[0]"}, tensor<3x3x2x3xf32> {jax.result_info = "result[1][0]"}, tensor<48x2xf32> {jax.result_info = "result[1][1]"}) {
    %0 = stablehlo.convolution(%arg0, %arg1) dim_numbers = [b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f], window = {stride = [1, 1], pad = [[1, 1], [1, 1]], lhs_dilate = [1, 1], rhs_dilate = [1, 1], reverse = [false, false]} {batch_group_count = 1 : i64, feature_group_count = 1 : i64, precision_config = [#stablehlo<precision DEFAULT>, #stablehlo<precision DEFAULT>]} : (tensor<2x8x8x2xf32>, tensor<3x3x2x3xf32>) -> tensor<2x8x8x3xf32>
    %1 = call @relu(%0) : (tensor<2x8x8x3xf32>) -> tensor<2x8x8x3xf32>
    %cst = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %2 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f32>) -> tensor<2x8x8x3xf32>
    %3 = stablehlo.compare GT, %0, %2, FLOAT : (tensor<2x8x8x3xf32>, tensor<2x8x8x3xf32>) -> tensor<2x8x8x3xi1>
    %cst_0 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %4 = stablehlo.broadcast_in_dim %cst_0, dims = [] : (tensor<f32>) -> tensor<2x8x8x3xf32>
    %cst_1 = stablehlo.constant dense<0xFF800000> : tensor<f32>
    %5 = stablehlo.broadcast_in_dim %cst_1, dims = [] : (tensor<f32>) -> tensor<f32>
    %6 = "stablehlo.reduce_window"(%1, %5) <{base_dilations = array<i64: 1, 1, 1, 1>, padding = dense<0> : tensor<4x2xi64>, window_dilations = array<i64: 1, 1, 1, 1>, window_dimensions = array<i64: 1, 2, 2, 1>, window_strides = array<i64: 1, 2, 2, 1>}> ({
    ^bb0(%arg3: tensor<f32>, %arg4: tensor<f32>):
      %36 = stablehlo.maximum %arg3, %arg4 : tensor<f32>
      stablehlo.return %36 : tensor<f32>
    }) : (tensor<2x8x8x3xf32>, tensor<f32>) -> tensor<2x4x4x3xf32>
    %cst_2 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %7 = stablehlo.broadcast_in_dim %cst_2, dims = [] : (tensor<f32>) -> tensor<f32>
    %8 = "stablehlo.reduce_window"(%6, %7) <{base_dilations = array<i64: 1, 1, 1, 1>, padding = dense<[[0, 0], [0, 1], [0, 1], [0, 0]]> : tensor<4x2xi64>, window_dilations = array<i64: 1, 1, 1, 1>, window_dimensions = array<i64: 1, 2, 2, 1>, window_strides = array<i64: 1, 1, 1, 1>}> ({
    ^bb0(%arg3: tensor<f32>, %arg4: tensor<f32>):
      %36 = stablehlo.add %arg3, %arg4 : tensor<f32>
      stablehlo.return %36 : tensor<f32>
    }) : (tensor<2x4x4x3xf32>, tensor<f32>) -> tensor<2x4x4x3xf32>
    %cst_3 = stablehlo.constant dense<4.000000e+00> : tensor<f32>
    %9 = stablehlo.broadcast_in_dim %cst_3, dims = [] : (tensor<f32>) -> tensor<2x4x4x3xf32>
    %10 = stablehlo.divide %8, %9 : tensor<2x4x4x3xf32>
    %11 = stablehlo.reshape %10 : (tensor<2x4x4x3xf32>) -> tensor<2x48xf32>
    %12 = stablehlo.dot_general %11, %arg2, contracting_dims = [1] x [0], precision = [DEFAULT, DEFAULT] : (tensor<2x48xf32>, tensor<48x2xf32>) -> tensor<2x2xf32>
    %13 = stablehlo.multiply %12, %12 : tensor<2x2xf32>
    %cst_4 = stablehlo.constant dense<2.000000e+00> : tensor<f32>
    %14 = stablehlo.broadcast_in_dim %cst_4, dims = [] : (tensor<f32>) -> tensor<2x2xf32>
    %15 = stablehlo.multiply %14, %12 : tensor<2x2xf32>
    %cst_5 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %16 = stablehlo.reduce(%13 init: %cst_5) applies stablehlo.add across dimensions = [0, 1] : (tensor<2x2xf32>, tensor<f32>) -> tensor<f32>
    %cst_6 = stablehlo.constant dense<4.000000e+00> : tensor<f32>
    %17 = stablehlo.divide %16, %cst_6 : tensor<f32>
    %cst_7 = stablehlo.constant dense<1.000000e+00> : tensor<f32>
    %cst_8 = stablehlo.constant dense<4.000000e+00> : tensor<f32>
    %18 = stablehlo.divide %cst_7, %cst_8 : tensor<f32>
    %19 = stablehlo.broadcast_in_dim %18, dims = [] : (tensor<f32>) -> tensor<2x2xf32>
    %20 = stablehlo.multiply %19, %15 : tensor<2x2xf32>
    %21 = stablehlo.dot_general %20, %11, contracting_dims = [0] x [0], precision = [DEFAULT, DEFAULT] : (tensor<2x2xf32>, tensor<2x48xf32>) -> tensor<2x48xf32>
    %22 = stablehlo.transpose %21, dims = [1, 0] : (tensor<2x48xf32>) -> tensor<48x2xf32>
    %23 = stablehlo.dot_general %20, %arg2, contracting_dims = [1] x [1], precision = [DEFAULT, DEFAULT] : (tensor<2x2xf32>, tensor<48x2xf32>) -> tensor<2x48xf32>
    %24 = stablehlo.reshape %23 : (tensor<2x48xf32>) -> tensor<2x4x4x3xf32>
    %cst_9 = stablehlo.constant dense<4.000000e+00> : tensor<f32>
    %25 = stablehlo.broadcast_in_dim %cst_9, dims = [] : (tensor<f32>) -> tensor<2x4x4x3xf32>
    %26 = stablehlo.divide %24, %25 : tensor<2x4x4x3xf32>
    %cst_10 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %27 = stablehlo.pad %26, %cst_10, low = [0, 1, 1, 0], high = [0, 0, 0, 0], interior = [0, 0, 0, 0] : (tensor<2x4x4x3xf32>, tensor<f32>) -> tensor<2x5x5x3xf32>
    %cst_11 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %28 = stablehlo.broadcast_in_dim %cst_11, dims = [] : (tensor<f32>) -> tensor<f32>
    %29 = "stablehlo.reduce_window"(%27, %28) <{base_dilations = array<i64: 1, 1, 1, 1>, padding = dense<0> : tensor<4x2xi64>, window_dilations = array<i64: 1, 1, 1, 1>, window_dimensions = array<i64: 1, 2, 2, 1>, window_strides = array<i64: 1, 1, 1, 1>}> ({
    ^bb0(%arg3: tensor<f32>, %arg4: tensor<f32>):
      %36 = stablehlo.add %arg3, %arg4 : tensor<f32>
      stablehlo.return %36 : tensor<f32>
    }) : (tensor<2x5x5x3xf32>, tensor<f32>) -> tensor<2x4x4x3xf32>
    %cst_12 = stablehlo.constant dense<0xFF800000> : tensor<f32>
    %30 = stablehlo.pad %1, %cst_12, low = [0, 0, 0, 0], high = [0, 0, 0, 0], interior = [0, 0, 0, 0] : (tensor<2x8x8x3xf32>, tensor<f32>) -> tensor<2x8x8x3xf32>
    %cst_13 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %31 = "stablehlo.select_and_scatter"(%30, %29, %cst_13) <{padding = dense<0> : tensor<4x2xi64>, window_dimensions = array<i64: 1, 2, 2, 1>, window_strides = array<i64: 1, 2, 2, 1>}> ({
    ^bb0(%arg3: tensor<f32>, %arg4: tensor<f32>):
      %36 = stablehlo.compare GE, %arg3, %arg4, FLOAT : (tensor<f32>, tensor<f32>) -> tensor<i1>
      stablehlo.return %36 : tensor<i1>
    }, {
    ^bb0(%arg3: tensor<f32>, %arg4: tensor<f32>):
      %36 = stablehlo.add %arg3, %arg4 : tensor<f32>
      stablehlo.return %36 : tensor<f32>
    }) : (tensor<2x8x8x3xf32>, tensor<2x4x4x3xf32>, tensor<f32>) -> tensor<2x8x8x3xf32>
    %32 = stablehlo.slice %31 [0:2, 0:8, 0:8, 0:3] : (tensor<2x8x8x3xf32>) -> tensor<2x8x8x3xf32>
    %cst_14 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %33 = stablehlo.broadcast_in_dim %cst_14, dims = [] : (tensor<f32>) -> tensor<2x8x8x3xf32>
    %34 = stablehlo.select %3, %32, %33 : tensor<2x8x8x3xi1>, tensor<2x8x8x3xf32>
    %35 = stablehlo.convolution(%arg0, %34) dim_numbers = [f, 0, 1, b]x[i, 0, 1, o]->[0, 1, b, f], window = {stride = [1, 1], pad = [[1, 1], [1, 1]], lhs_dilate = [1, 1], rhs_dilate = [1, 1], reverse = [false, false]} {batch_group_count = 1 : i64, feature_group_count = 1 : i64, precision_config = [#stablehlo<precision DEFAULT>, #stablehlo<precision DEFAULT>]} : (tensor<2x8x8x2xf32>, tensor<2x8x8x3xf32>) -> tensor<3x3x2x3xf32>
    return %17, %35, %22 : tensor<f32>, tensor<3x3x2x3xf32>, tensor<48x2xf32>
  }
  func.func private @relu(%arg0: tensor<2x8x8x3xf32>) -> tensor<2x8x8x3xf32> {
    %cst = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %0 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f32>) -> tensor<2x8x8x3xf32>
    %1 = stablehlo.maximum %arg0, %0 : tensor<2x8x8x3xf32>
    return %1 : tensor<2x8x8x3xf32>
  }
}
