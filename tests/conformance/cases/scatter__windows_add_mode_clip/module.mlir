module @jit__lambda attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<6x5xf32>, %arg1: tensor<7x2xi32>, %arg2: tensor<7x2x2xf32>) -> (tensor<6x5xf32> {jax.result_info = "result"}) {
    %c = stablehlo.constant dense<[4, 3]> : tensor<2xi32>
    %c_0 = stablehlo.constant dense<2147483647> : tensor<i32>
    %0 = stablehlo.broadcast_in_dim %c_0, dims = [] : (tensor<i32>) -> tensor<2xi32>
    %1 = stablehlo.minimum %c, %0 : tensor<2xi32>
    %2 = stablehlo.broadcast_in_dim %1, dims = [1] : (tensor<2xi32>) -> tensor<7x2xi32>
    %c_1 = stablehlo.constant dense<0> : tensor<i32>
    %3 = stablehlo.broadcast_in_dim %c_1, dims = [] : (tensor<i32>) -> tensor<7x2xi32>
    %4 = stablehlo.clamp %3, %arg1, %2 : tensor<7x2xi32>
    %5 = "stablehlo.scatter"(%arg0, %4, %arg2) <{indices_are_sorted = false, scatter_dimension_numbers = #stablehlo.scatter<update_window_dims = [1, 2], scatter_dims_to_operand_dims = [0, 1], index_vector_dim = 1>, unique_indices = false}> ({
    ^bb0(%arg3: tensor<f32>, %arg4: tensor<f32>):
      %6 = stablehlo.add %arg3, %arg4 : tensor<f32>
      stablehlo.return %6 : tensor<f32>
    }) : (tensor<6x5xf32>, tensor<7x2xi32>, tensor<7x2x2xf32>) -> tensor<6x5xf32>
    return %5 : tensor<6x5xf32>
  }
}
