module @jit__lambda attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<4x2xf32>, %arg1: tensor<2xf32>, %arg2: tensor<2xf32>, %arg3: tensor<2xf32>, %arg4: tensor<4x2xf32>) -> (tensor<4x2xf32> {jax.result_info = "result[0]"}, tensor<2xf32> {jax.result_info = "result[1]"}, tensor<2xf32> {jax.result_info = "result[2]"}) {
    %grad_operand, %grad_scale, %grad_offset = "stablehlo.batch_norm_grad"(%arg0, %arg1, %arg2, %arg3, %arg4) <{epsilon = 0.000000e+00 : f32, feature_index = 1 : i64}> : (tensor<4x2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<2xf32>, tensor<4x2xf32>) -> (tensor<4x2xf32>, tensor<2xf32>, tensor<2xf32>)
    return %grad_operand, %grad_scale, %grad_offset : tensor<4x2xf32>, tensor<2xf32>, tensor<2xf32>
  }
}
