module @jit__lambda attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<3x3xi32>, %arg1: tensor<2x2xi32>, %arg2: tensor<2x2x2xi32>) -> (tensor<3x3xi32> {jax.result_info = "result"}) {
    %0 = "stablehlo.scatter"(%arg0, %arg1, %arg2) <{indices_are_sorted = false, scatter_dimension_numbers = #stablehlo.scatter<update_window_dims = [1, 2], scatter_dims_to_operand_dims = [0, 1], index_vector_dim = 1>, unique_indices = false}> ({
    ^bb0(%arg3: tensor<i32>, %arg4: tensor<i32>):
      %1 = stablehlo.add %arg3, %arg4 : tensor<i32>
      stablehlo.return %1 : tensor<i32>
    }) : (tensor<3x3xi32>, tensor<2x2xi32>, tensor<2x2x2xi32>) -> tensor<3x3xi32>
    return %0 : tensor<3x3xi32>
  }
}
