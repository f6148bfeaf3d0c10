module @jit__lambda attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<4x3xi32>, %arg1: tensor<2x2x1xi32>) -> (tensor<2x2x3xi32> {jax.result_info = "result"}) {
    %0 = "stablehlo.gather"(%arg0, %arg1) <{dimension_numbers = #stablehlo.gather<offset_dims = [2], collapsed_slice_dims = [0], start_index_map = [0], index_vector_dim = 2>, indices_are_sorted = false, slice_sizes = array<i64: 1, 3>}> : (tensor<4x3xi32>, tensor<2x2x1xi32>) -> tensor<2x2x3xi32>
    return %0 : tensor<2x2x3xi32>
  }
}
