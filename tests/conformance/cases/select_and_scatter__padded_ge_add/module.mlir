module @jit_fn attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<5x7xf32>, %arg1: tensor<3x4xf32>, %arg2: tensor<f32>) -> (tensor<5x7xf32> {jax.result_info = "result"}) {
    %0 = "stablehlo.select_and_scatter"(%arg0, %arg1, %arg2) <{padding = dense<[[1, 0], [1, 1]]> : tensor<2x2xi64>, window_dimensions = array<i64: 2, 3>, window_strides = array<i64: 2, 2>}> ({
    ^bb0(%arg3: tensor<f32>, %arg4: tensor<f32>):
      %1 = stablehlo.compare GE, %arg3, %arg4, FLOAT : (tensor<f32>, tensor<f32>) -> tensor<i1>
      stablehlo.return %1 : tensor<i1>
    }, {
    ^bb0(%arg3: tensor<f32>, %arg4: tensor<f32>):
      %1 = stablehlo.add %arg3, %arg4 : tensor<f32>
      stablehlo.return %1 : tensor<f32>
    }) : (tensor<5x7xf32>, tensor<3x4xf32>, tensor<f32>) -> tensor<5x7xf32>
    return %0 : tensor<5x7xf32>
  }
}
