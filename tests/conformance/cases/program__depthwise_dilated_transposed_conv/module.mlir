module @jit__convolutions attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<2x7x6x3xf32>, %arg1: tensor<3x3x1x3xf32>, %arg2: tensor<3x2x3x4xf32>) -> (tensor<2x4x3x3xf32> {jax.result_info = "result[0]"}, tensor<2x14x12x4xf32> {jax.result_info = "result[1]"}, tensor<2x4x6x4xf32> {jax.result_info = "result[2]"}) {
    %0 = stablehlo.convolution(%arg0, %arg1) dim_numbers = [b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f], window = {stride = [2, 2], pad = [[2, 2], [1, 2]], lhs_dilate = [1, 1], rhs_dilate = [2, 2], reverse = [false, false]} {batch_group_count = 1 : i64, feature_group_count = 3 : i64, precision_config = [#stablehlo<precision DEFAULT>, #stablehlo<precision DEFAULT>]} : (tensor<2x7x6x3xf32>, tensor<3x3x1x3xf32>) -> tensor<2x4x3x3xf32>
    %1 = stablehlo.convolution(%arg0, %arg2) dim_numbers = [b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f], window = {stride = [1, 1], pad = [[2, 1], [1, 1]], lhs_dilate = [2, 2], rhs_dilate = [1, 1], reverse = [false, false]} {batch_group_count = 1 : i64, feature_group_count = 1 : i64, precision_config = [#stablehlo<precision DEFAULT>, #stablehlo<precision DEFAULT>]} : (tensor<2x7x6x3xf32>, tensor<3x2x3x4xf32>) -> tensor<2x14x12x4xf32>
    %2 = stablehlo.transpose %arg0, dims = [0, 3, 1, 2] : (tensor<2x7x6x3xf32>) -> tensor<2x3x7x6xf32>
    %3 = stablehlo.transpose %arg2, dims = [3, 2, 0, 1] : (tensor<3x2x3x4xf32>) -> tensor<4x3x3x2xf32>
    %4 = stablehlo.convolution(%2, %3) dim_numbers = [b, f, 0, 1]x[o, i, 0, 1]->[b, f, 0, 1], window = {stride = [1, 2], pad = [[1, 0], [2, 1]], lhs_dilate = [1, 1], rhs_dilate = [1, 1], reverse = [false, false]} {batch_group_count = 1 : i64, feature_group_count = 1 : i64, precision_config = [#stablehlo<precision DEFAULT>, #stablehlo<precision DEFAULT>]} : (tensor<2x3x7x6xf32>, tensor<4x3x3x2xf32>) -> tensor<2x4x6x4xf32>
    return %0, %1, %4 : tensor<2x4x3x3xf32>, tensor<2x14x12x4xf32>, tensor<2x4x6x4xf32>
  }
}
