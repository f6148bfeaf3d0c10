module @jit_fn attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<4x6xi32>, %arg1: tensor<3x3xi32>, %arg2: tensor<i32>) -> (tensor<4x6xi32> {jax.result_info = "result"}) {
    %0 = "stablehlo.select_and_scatter"(%arg0, %arg1, %arg2) <{padding = dense<0> : tensor<2x2xi64>, window_dimensions = array<i64: 2, 2>, window_strides = array<i64: 1, 2>}> ({
    ^bb0(%arg3: tensor<i32>, %arg4: tensor<i32>):
      %1 = stablehlo.compare LE, %arg3, %arg4, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
      stablehlo.return %1 : tensor<i1>
    }, {
    ^bb0(%arg3: tensor<i32>, %arg4: tensor<i32>):
      %1 = stablehlo.maximum %arg3, %arg4 : tensor<i32>
      stablehlo.return %1 : tensor<i32>
    }) : (tensor<4x6xi32>, tensor<3x3xi32>, tensor<i32>) -> tensor<4x6xi32>
    return %0 : tensor<4x6xi32>
  }
}
