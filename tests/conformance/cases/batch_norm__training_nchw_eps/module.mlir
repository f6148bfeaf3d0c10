module @jit__lambda attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<3x4x5x2xf32>, %arg1: tensor<4xf32>, %arg2: tensor<4xf32>) -> (tensor<3x4x5x2xf32> {jax.result_info = "result[0]"}, tensor<4xf32> {jax.result_info = "result[1]"}, tensor<4xf32> {jax.result_info = "result[2]"}) {
    %output, %batch_mean, %batch_var = "stablehlo.batch_norm_training"(%arg0, %arg1, %arg2) <{epsilon = 1.000000e-03 : f32, feature_index = 1 : i64}> : (tensor<3x4x5x2xf32>, tensor<4xf32>, tensor<4xf32>) -> (tensor<3x4x5x2xf32>, tensor<4xf32>, tensor<4xf32>)
    return %output, %batch_mean, %batch_var : tensor<3x4x5x2xf32>, tensor<4xf32>, tensor<4xf32>
  }
}
