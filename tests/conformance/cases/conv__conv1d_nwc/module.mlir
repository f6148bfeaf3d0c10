module @jit_fn attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<2x13x3xf32>, %arg1: tensor<5x3x2xf32>) -> (tensor<2x3x2xf32> {jax.result_info = "result"}) {
    %0 = stablehlo.convolution(%arg0, %arg1) dim_numbers = [b, 0, f]x[0, i, o]->[b, 0, f], window = {stride = [3], pad = [[4, 0]], lhs_dilate = [1], rhs_dilate = [2], reverse = [false]} {batch_group_count = 1 : i64, feature_group_count = 1 : i64, precision_config = [#stablehlo<precision DEFAULT>, #stablehlo<precision DEFAULT>]} : (tensor<2x13x3xf32>, tensor<5x3x2xf32>) -> tensor<2x3x2xf32>
    return %0 : tensor<2x3x2xf32>
  }
}
