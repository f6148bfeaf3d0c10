module @jit__lambda attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<3x8xf32>, %arg1: tensor<3x2xf32>, %arg2: tensor<3xi32>) -> (tensor<3x8xf32> {jax.result_info = "result"}) {
    %c = stablehlo.constant dense<0> : tensor<i32>
    %0 = stablehlo.broadcast_in_dim %c, dims = [] : (tensor<i32>) -> tensor<3xi32>
    %1 = stablehlo.compare LT, %arg2, %0, SIGNED : (tensor<3xi32>, tensor<3xi32>) -> tensor<3xi1>
    %c_0 = stablehlo.constant dense<8> : tensor<i32>
    %2 = stablehlo.broadcast_in_dim %c_0, dims = [] : (tensor<i32>) -> tensor<3xi32>
    %3 = stablehlo.add %arg2, %2 : tensor<3xi32>
    %4 = stablehlo.select %1, %3, %arg2 : tensor<3xi1>, tensor<3xi32>
    %5 = stablehlo.broadcast_in_dim %4, dims = [0] : (tensor<3xi32>) -> tensor<3x1xi32>
    %c_1 = stablehlo.constant dense<6> : tensor<1xi32>
    %c_2 = stablehlo.constant dense<2147483647> : tensor<i32>
    %6 = stablehlo.broadcast_in_dim %c_2, dims = [] : (tensor<i32>) -> tensor<1xi32>
    %7 = stablehlo.minimum %c_1, %6 : tensor<1xi32>
    %8 = stablehlo.broadcast_in_dim %7, dims = [1] : (tensor<1xi32>) -> tensor<3x1xi32>
    %c_3 = stablehlo.constant dense<0> : tensor<i32>
    %9 = stablehlo.broadcast_in_dim %c_3, dims = [] : (tensor<i32>) -> tensor<3x1xi32>
    %10 = stablehlo.clamp %9, %5, %8 : tensor<3x1xi32>
    %11 = "stablehlo.scatter"(%arg0, %10, %arg1) <{indices_are_sorted = true, scatter_dimension_numbers = #stablehlo.scatter<update_window_dims = [1], input_batching_dims = [0], scatter_indices_batching_dims = [0], scatter_dims_to_operand_dims = [1], index_vector_dim = 1>, unique_indices = true}> ({
    ^bb0(%arg3: tensor<f32>, %arg4: tensor<f32>):
      stablehlo.return %arg4 : tensor<f32>
    }) : (tensor<3x8xf32>, tensor<3x1xi32>, tensor<3x2xf32>) -> tensor<3x8xf32>
    return %11 : tensor<3x8xf32>
  }
}
