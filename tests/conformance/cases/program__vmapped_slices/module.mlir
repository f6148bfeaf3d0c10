module @jit__vmapped_slices attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<4x5x6xf32>, %arg1: tensor<4xi32>, %arg2: tensor<4x2x3xf32>) -> (tensor<4x2x3xf32> {jax.result_info = "result[0]"}, tensor<4x5x6xf32> {jax.result_info = "result[1]"}) {
    %c = stablehlo.constant dense<0> : tensor<i32>
    %0 = stablehlo.broadcast_in_dim %c, dims = [] : (tensor<i32>) -> tensor<4xi32>
    %1 = stablehlo.compare LT, %arg1, %0, SIGNED : (tensor<4xi32>, tensor<4xi32>) -> tensor<4xi1>
    %c_0 = stablehlo.constant dense<5> : tensor<i32>
    %2 = stablehlo.broadcast_in_dim %c_0, dims = [] : (tensor<i32>) -> tensor<4xi32>
    %3 = stablehlo.add %arg1, %2 : tensor<4xi32>
    %4 = stablehlo.select %1, %3, %arg1 : tensor<4xi1>, tensor<4xi32>
    %5 = stablehlo.broadcast_in_dim %4, dims = [0] : (tensor<4xi32>) -> tensor<4x1xi32>
    %c_1 = stablehlo.constant dense<0> : tensor<i32>
    %6 = stablehlo.broadcast_in_dim %c_1, dims = [] : (tensor<i32>) -> tensor<4x1xi32>
    %7 = stablehlo.concatenate %5, %6, dim = 1 : (tensor<4x1xi32>, tensor<4x1xi32>) -> tensor<4x2xi32>
    %8 = "stablehlo.gather"(%arg0, %7) <{dimension_numbers = #stablehlo.gather<offset_dims = [1, 2], operand_batching_dims = [0], start_indices_batching_dims = [0], start_index_map = [1, 2], index_vector_dim = 1>, indices_are_sorted = true, slice_sizes = array<i64: 1, 2, 3>}> : (tensor<4x5x6xf32>, tensor<4x2xi32>) -> tensor<4x2x3xf32>
    %c_2 = stablehlo.constant dense<0> : tensor<i32>
    %9 = stablehlo.broadcast_in_dim %c_2, dims = [] : (tensor<i32>) -> tensor<4xi32>
    %10 = stablehlo.compare LT, %arg1, %9, SIGNED : (tensor<4xi32>, tensor<4xi32>) -> tensor<4xi1>
    %c_3 = stablehlo.constant dense<5> : tensor<i32>
    %11 = stablehlo.broadcast_in_dim %c_3, dims = [] : (tensor<i32>) -> tensor<4xi32>
    %12 = stablehlo.add %arg1, %11 : tensor<4xi32>
    %13 = stablehlo.select %10, %12, %arg1 : tensor<4xi1>, tensor<4xi32>
    %c_4 = stablehlo.constant dense<0> : tensor<i32>
    %14 = stablehlo.broadcast_in_dim %c_4, dims = [] : (tensor<i32>) -> tensor<4xi32>
    %15 = stablehlo.compare LT, %arg1, %14, SIGNED : (tensor<4xi32>, tensor<4xi32>) -> tensor<4xi1>
    %c_5 = stablehlo.constant dense<6> : tensor<i32>
    %16 = stablehlo.broadcast_in_dim %c_5, dims = [] : (tensor<i32>) -> tensor<4xi32>
    %17 = stablehlo.add %arg1, %16 : tensor<4xi32>
    %18 = stablehlo.select %15, %17, %arg1 : tensor<4xi1>, tensor<4xi32>
    %19 = stablehlo.broadcast_in_dim %13, dims = [0] : (tensor<4xi32>) -> tensor<4x1xi32>
    %20 = stablehlo.broadcast_in_dim %18, dims = [0] : (tensor<4xi32>) -> tensor<4x1xi32>
    %21 = stablehlo.concatenate %19, %20, dim = 1 : (tensor<4x1xi32>, tensor<4x1xi32>) -> tensor<4x2xi32>
    %c_6 = stablehlo.constant dense<3> : tensor<2xi32>
    %c_7 = stablehlo.constant dense<2147483647> : tensor<i32>
    %22 = stablehlo.broadcast_in_dim %c_7, dims = [] : (tensor<i32>) -> tensor<2xi32>
    %23 = stablehlo.minimum %c_6, %22 : tensor<2xi32>
    %24 = stablehlo.broadcast_in_dim %23, dims = [1] : (tensor<2xi32>) -> tensor<4x2xi32>
    %c_8 = stablehlo.constant dense<0> : tensor<i32>
    %25 = stablehlo.broadcast_in_dim %c_8, dims = [] : (tensor<i32>) -> tensor<4x2xi32>
    %26 = stablehlo.clamp %25, %21, %24 : tensor<4x2xi32>
    %27 = "stablehlo.scatter"(%arg0, %26, %arg2) <{indices_are_sorted = true, scatter_dimension_numbers = #stablehlo.scatter<update_window_dims = [1, 2], input_batching_dims = [0], scatter_indices_batching_dims = [0], scatter_dims_to_operand_dims = [1, 2], index_vector_dim = 1>, unique_indices = true}> ({
    ^bb0(%arg3: tensor<f32>, %arg4: tensor<f32>):
      stablehlo.return %arg4 : tensor<f32>
    }) : (tensor<4x5x6xf32>, tensor<4x2xi32>, tensor<4x2x3xf32>) -> tensor<4x5x6xf32>
    return %8, %27 : tensor<4x2x3xf32>, tensor<4x5x6xf32>
  }
}
