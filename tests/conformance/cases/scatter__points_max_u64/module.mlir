module @jit__lambda attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<4xui64>, %arg1: tensor<3x1xi32>, %arg2: tensor<3xui64>) -> (tensor<4xui64> {jax.result_info = "result"}) {
    %0 = "stablehlo.scatter"(%arg0, %arg1, %arg2) <{indices_are_sorted = false, scatter_dimension_numbers = #stablehlo.scatter<inserted_window_dims = [0], scatter_dims_to_operand_dims = [0], index_vector_dim = 1>, unique_indices = false}> ({
    ^bb0(%arg3: tensor<ui64>, %arg4: tensor<ui64>):
      %1 = stablehlo.maximum %arg3, %arg4 : tensor<ui64>
      stablehlo.return %1 : tensor<ui64>
    }) : (tensor<4xui64>, tensor<3x1xi32>, tensor<3xui64>) -> tensor<4xui64>
    return %0 : tensor<4xui64>
  }
}
