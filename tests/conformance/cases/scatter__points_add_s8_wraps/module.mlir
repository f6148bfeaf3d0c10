module @jit__lambda attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<10xi8>, %arg1: tensor<5x1xi32>, %arg2: tensor<5xi8>) -> (tensor<10xi8> {jax.result_info = "result"}) {
    %0 = "stablehlo.scatter"(%arg0, %arg1, %arg2) <{indices_are_sorted = false, scatter_dimension_numbers = #stablehlo.scatter<inserted_window_dims = [0], scatter_dims_to_operand_dims = [0], index_vector_dim = 1>, unique_indices = false}> ({
    ^bb0(%arg3: tensor<i8>, %arg4: tensor<i8>):
      %1 = stablehlo.add %arg3, %arg4 : tensor<i8>
      stablehlo.return %1 : tensor<i8>
    }) : (tensor<10xi8>, tensor<5x1xi32>, tensor<5xi8>) -> tensor<10xi8>
    return %0 : tensor<10xi8>
  }
}
