module @jit__lambda attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<5x7x3xbf16>, %arg1: tensor<4x2xi32>) -> (tensor<4x2x3xbf16> {jax.result_info = "result"}) {
    %0 = "stablehlo.gather"(%arg0, %arg1) <{dimension_numbers = #stablehlo.gather<offset_dims = [1, 2], collapsed_slice_dims = [1], start_index_map = [1, 0], index_vector_dim = 1>, indices_are_sorted = false, slice_sizes = array<i64: 2, 1, 3>}> : (tensor<5x7x3xbf16>, tensor<4x2xi32>) -> tensor<4x2x3xbf16>
    return %0 : tensor<4x2x3xbf16>
  }
}
