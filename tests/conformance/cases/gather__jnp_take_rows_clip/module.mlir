module @jit__lambda attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<6x4xf32>, %arg1: tensor<5xi32>) -> (tensor<5x4xf32> {jax.result_info = "result"}) {
    %0 = call @_take(%arg0, %arg1) : (tensor<6x4xf32>, tensor<5xi32>) -> tensor<5x4xf32>
    return %0 : tensor<5x4xf32>
  }
  func.func private @_take(%arg0: tensor<6x4xf32>, %arg1: tensor<5xi32>) -> tensor<5x4xf32> {
    %0 = stablehlo.broadcast_in_dim %arg1, dims = [0] : (tensor<5xi32>) -> tensor<5x1xi32>
    %1 = "stablehlo.gather"(%arg0, %0) <{dimension_numbers = #stablehlo.gather<offset_dims = [1], collapsed_slice_dims = [0], start_index_map = [0], index_vector_dim = 1>, indices_are_sorted = false, slice_sizes = array<i64: 1, 4>}> : (tensor<6x4xf32>, tensor<5x1xi32>) -> tensor<5x4xf32>
    return %1 : tensor<5x4xf32>
  }
}
