module @jit__upsample attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<2x3x3x4xf32>, %arg1: tensor<3x3x4x2xf32>) -> (tensor<2x6x6x2xf32> {jax.result_info = "result"}) {
    %0 = stablehlo.convolution(%arg0, %arg1) dim_numbers = [b, 0, 1, f]x[0, 1, i, o]->[b, 0, 1, f], window = {stride = [1, 1], pad = [[2, 1], [2, 1]], lhs_dilate = [2, 2], rhs_dilate = [1, 1], reverse = [false, false]} {batch_group_count = 1 : i64, feature_group_count = 1 : i64, precision_config = [#stablehlo<precision DEFAULT>, #stablehlo<precision DEFAULT>]} : (tensor<2x3x3x4xf32>, tensor<3x3x4x2xf32>) -> tensor<2x6x6x2xf32>
    %1 = stablehlo.negate %0 : tensor<2x6x6x2xf32>
    %2 = stablehlo.exponential %1 : tensor<2x6x6x2xf32>
    %cst = stablehlo.constant dense<1.000000e+00> : tensor<f32>
    %3 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f32>) -> tensor<2x6x6x2xf32>
    %4 = stablehlo.add %3, %2 : tensor<2x6x6x2xf32>
    %cst_0 = stablehlo.constant dense<1.000000e+00> : tensor<f32>
    %5 = stablehlo.broadcast_in_dim %cst_0, dims = [] : (tensor<f32>) -> tensor<2x6x6x2xf32>
    %6 = stablehlo.divide %5, %4 : tensor<2x6x6x2xf32>
    return %6 : tensor<2x6x6x2xf32>
  }
}
