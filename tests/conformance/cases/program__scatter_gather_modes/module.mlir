module @jit__scatter_gather_modes attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<10xf32>, %arg1: tensor<8xi32>, %arg2: tensor<8xf32>) -> (tensor<10xf32> {jax.result_info = "result[0]"}, tensor<10xf32> {jax.result_info = "result[1]"}, tensor<10xf32> {jax.result_info = "result[2]"}, tensor<10xf32> {jax.result_info = "result[3]"}, tensor<8xf32> {jax.result_info = "result[4]"}, tensor<8xf32> {jax.result_info = "result[5]"}, tensor<2xf32> {jax.result_info = "result[6]"}) {
    %c = stablehlo.constant dense<0> : tensor<i32>
    %0 = stablehlo.broadcast_in_dim %c, dims = [] : (tensor<i32>) -> tensor<8xi32>
    %1 = stablehlo.compare LT, %arg1, %0, SIGNED : (tensor<8xi32>, tensor<8xi32>) -> tensor<8xi1>
    %c_0 = stablehlo.constant dense<10> : tensor<i32>
    %2 = stablehlo.broadcast_in_dim %c_0, dims = [] : (tensor<i32>) -> tensor<8xi32>
    %3 = stablehlo.add %arg1, %2 : tensor<8xi32>
    %4 = stablehlo.select %1, %3, %arg1 : tensor<8xi1>, tensor<8xi32>
    %5 = stablehlo.broadcast_in_dim %4, dims = [0] : (tensor<8xi32>) -> tensor<8x1xi32>
    %6 = "stablehlo.scatter"(%arg0, %5, %arg2) <{indices_are_sorted = false, scatter_dimension_numbers = #stablehlo.scatter<inserted_window_dims = [0], scatter_dims_to_operand_dims = [0], index_vector_dim = 1>, unique_indices = false}> ({
    ^bb0(%arg3: tensor<f32>, %arg4: tensor<f32>):
      %43 = stablehlo.add %arg3, %arg4 : tensor<f32>
      stablehlo.return %43 : tensor<f32>
    }) : (tensor<10xf32>, tensor<8x1xi32>, tensor<8xf32>) -> tensor<10xf32>
    %c_1 = stablehlo.constant dense<0> : tensor<i32>
    %7 = stablehlo.broadcast_in_dim %c_1, dims = [] : (tensor<i32>) -> tensor<8xi32>
    %8 = stablehlo.compare LT, %arg1, %7, SIGNED : (tensor<8xi32>, tensor<8xi32>) -> tensor<8xi1>
    %c_2 = stablehlo.constant dense<10> : tensor<i32>
    %9 = stablehlo.broadcast_in_dim %c_2, dims = [] : (tensor<i32>) -> tensor<8xi32>
    %10 = stablehlo.add %arg1, %9 : tensor<8xi32>
    %11 = stablehlo.select %8, %10, %arg1 : tensor<8xi1>, tensor<8xi32>
    %12 = stablehlo.broadcast_in_dim %11, dims = [0] : (tensor<8xi32>) -> tensor<8x1xi32>
    %13 = "stablehlo.scatter"(%arg0, %12, %arg2) <{indices_are_sorted = false, scatter_dimension_numbers = #stablehlo.scatter<inserted_window_dims = [0], scatter_dims_to_operand_dims = [0], index_vector_dim = 1>, unique_indices = false}> ({
    ^bb0(%arg3: tensor<f32>, %arg4: tensor<f32>):
      %43 = stablehlo.maximum %arg3, %arg4 : tensor<f32>
      stablehlo.return %43 : tensor<f32>
    }) : (tensor<10xf32>, tensor<8x1xi32>, tensor<8xf32>) -> tensor<10xf32>
    %c_3 = stablehlo.constant dense<0> : tensor<i32>
    %14 = stablehlo.broadcast_in_dim %c_3, dims = [] : (tensor<i32>) -> tensor<8xi32>
    %15 = stablehlo.compare LT, %arg1, %14, SIGNED : (tensor<8xi32>, tensor<8xi32>) -> tensor<8xi1>
    %c_4 = stablehlo.constant dense<10> : tensor<i32>
    %16 = stablehlo.broadcast_in_dim %c_4, dims = [] : (tensor<i32>) -> tensor<8xi32>
    %17 = stablehlo.add %arg1, %16 : tensor<8xi32>
    %18 = stablehlo.select %15, %17, %arg1 : tensor<8xi1>, tensor<8xi32>
    %19 = stablehlo.broadcast_in_dim %18, dims = [0] : (tensor<8xi32>) -> tensor<8x1xi32>
    %20 = "stablehlo.scatter"(%arg0, %19, %arg2) <{indices_are_sorted = false, scatter_dimension_numbers = #stablehlo.scatter<inserted_window_dims = [0], scatter_dims_to_operand_dims = [0], index_vector_dim = 1>, unique_indices = false}> ({
    ^bb0(%arg3: tensor<f32>, %arg4: tensor<f32>):
      %43 = stablehlo.multiply %arg3, %arg4 : tensor<f32>
      stablehlo.return %43 : tensor<f32>
    }) : (tensor<10xf32>, tensor<8x1xi32>, tensor<8xf32>) -> tensor<10xf32>
    %c_5 = stablehlo.constant dense<0> : tensor<i32>
    %21 = stablehlo.broadcast_in_dim %c_5, dims = [] : (tensor<i32>) -> tensor<8xi32>
    %22 = stablehlo.compare LT, %arg1, %21, SIGNED : (tensor<8xi32>, tensor<8xi32>) -> tensor<8xi1>
    %c_6 = stablehlo.constant dense<10> : tensor<i32>
    %23 = stablehlo.broadcast_in_dim %c_6, dims = [] : (tensor<i32>) -> tensor<8xi32>
    %24 = stablehlo.add %arg1, %23 : tensor<8xi32>
    %25 = stablehlo.select %22, %24, %arg1 : tensor<8xi1>, tensor<8xi32>
    %26 = stablehlo.broadcast_in_dim %25, dims = [0] : (tensor<8xi32>) -> tensor<8x1xi32>
    %c_7 = stablehlo.constant dense<9> : tensor<1xi32>
    %c_8 = stablehlo.constant dense<2147483647> : tensor<i32>
    %27 = stablehlo.broadcast_in_dim %c_8, dims = [] : (tensor<i32>) -> tensor<1xi32>
    %28 = stablehlo.minimum %c_7, %27 : tensor<1xi32>
    %29 = stablehlo.broadcast_in_dim %28, dims = [1] : (tensor<1xi32>) -> tensor<8x1xi32>
    %c_9 = stablehlo.constant dense<0> : tensor<i32>
    %30 = stablehlo.broadcast_in_dim %c_9, dims = [] : (tensor<i32>) -> tensor<8x1xi32>
    %31 = stablehlo.clamp %30, %26, %29 : tensor<8x1xi32>
    %32 = "stablehlo.scatter"(%arg0, %31, %arg2) <{indices_are_sorted = false, scatter_dimension_numbers = #stablehlo.scatter<inserted_window_dims = [0], scatter_dims_to_operand_dims = [0], index_vector_dim = 1>, unique_indices = false}> ({
    ^bb0(%arg3: tensor<f32>, %arg4: tensor<f32>):
      %43 = stablehlo.minimum %arg3, %arg4 : tensor<f32>
      stablehlo.return %43 : tensor<f32>
    }) : (tensor<10xf32>, tensor<8x1xi32>, tensor<8xf32>) -> tensor<10xf32>
    %33 = call @_take(%arg0, %arg1) : (tensor<10xf32>, tensor<8xi32>) -> tensor<8xf32>
    %34 = call @_take_0(%arg0, %arg1) : (tensor<10xf32>, tensor<8xi32>) -> tensor<8xf32>
    %c_10 = stablehlo.constant dense<0> : tensor<i32>
    %35 = stablehlo.broadcast_in_dim %c_10, dims = [] : (tensor<i32>) -> tensor<8xi32>
    %36 = stablehlo.compare LT, %arg1, %35, SIGNED : (tensor<8xi32>, tensor<8xi32>) -> tensor<8xi1>
    %c_11 = stablehlo.constant dense<10> : tensor<i32>
    %37 = stablehlo.broadcast_in_dim %c_11, dims = [] : (tensor<i32>) -> tensor<8xi32>
    %38 = stablehlo.add %arg1, %37 : tensor<8xi32>
    %39 = stablehlo.select %36, %38, %arg1 : tensor<8xi1>, tensor<8xi32>
    %40 = stablehlo.broadcast_in_dim %39, dims = [0] : (tensor<8xi32>) -> tensor<8x1xi32>
    %41 = "stablehlo.scatter"(%arg0, %40, %arg2) <{indices_are_sorted = false, scatter_dimension_numbers = #stablehlo.scatter<inserted_window_dims = [0], scatter_dims_to_operand_dims = [0], index_vector_dim = 1>, unique_indices = false}> ({
    ^bb0(%arg3: tensor<f32>, %arg4: tensor<f32>):
      stablehlo.return %arg4 : tensor<f32>
    }) : (tensor<10xf32>, tensor<8x1xi32>, tensor<8xf32>) -> tensor<10xf32>
    %42 = stablehlo.slice %41 [0:2] : (tensor<10xf32>) -> tensor<2xf32>
    return %6, %13, %20, %32, %33, %34, %42 : tensor<10xf32>, tensor<10xf32>, tensor<10xf32>, tensor<10xf32>, tensor<8xf32>, tensor<8xf32>, tensor<2xf32>
  }
  func.func private @_take(%arg0: tensor<10xf32>, %arg1: tensor<8xi32>) -> tensor<8xf32> {
    %c = stablehlo.constant dense<0> : tensor<i32>
    %0 = stablehlo.broadcast_in_dim %c, dims = [] : (tensor<i32>) -> tensor<8xi32>
    %1 = stablehlo.compare LT, %arg1, %0, SIGNED : (tensor<8xi32>, tensor<8xi32>) -> tensor<8xi1>
    %c_0 = stablehlo.constant dense<10> : tensor<i32>
    %2 = stablehlo.broadcast_in_dim %c_0, dims = [] : (tensor<i32>) -> tensor<8xi32>
    %3 = stablehlo.add %arg1, %2 : tensor<8xi32>
    %4 = call @_where(%1, %3, %arg1) : (tensor<8xi1>, tensor<8xi32>, tensor<8xi32>) -> tensor<8xi32>
    %5 = stablehlo.broadcast_in_dim %4, dims = [0] : (tensor<8xi32>) -> tensor<8x1xi32>
    %c_1 = stablehlo.constant dense<9> : tensor<1xi32>
    %c_2 = stablehlo.constant dense<0> : tensor<i32>
    %6 = stablehlo.broadcast_in_dim %c_2, dims = [] : (tensor<i32>) -> tensor<8x1xi32>
    %7 = stablehlo.compare GE, %5, %6, SIGNED : (tensor<8x1xi32>, tensor<8x1xi32>) -> tensor<8x1xi1>
    %8 = stablehlo.broadcast_in_dim %c_1, dims = [1] : (tensor<1xi32>) -> tensor<1x1xi32>
    %9 = stablehlo.broadcast_in_dim %8, dims = [0, 1] : (tensor<1x1xi32>) -> tensor<8x1xi32>
    %10 = stablehlo.compare LE, %5, %9, SIGNED : (tensor<8x1xi32>, tensor<8x1xi32>) -> tensor<8x1xi1>
    %11 = stablehlo.and %7, %10 : tensor<8x1xi1>
    %c_3 = stablehlo.constant dense<true> : tensor<i1>
    %12 = stablehlo.reduce(%11 init: %c_3) applies stablehlo.and across dimensions = [1] : (tensor<8x1xi1>, tensor<i1>) -> tensor<8xi1>
    %13 = "stablehlo.gather"(%arg0, %5) <{dimension_numbers = #stablehlo.gather<collapsed_slice_dims = [0], start_index_map = [0], index_vector_dim = 1>, indices_are_sorted = false, slice_sizes = array<i64: 1>}> : (tensor<10xf32>, tensor<8x1xi32>) -> tensor<8xf32>
    %cst = stablehlo.constant dense<-7.000000e+00> : tensor<f32>
    %14 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f32>) -> tensor<8xf32>
    %15 = stablehlo.select %12, %13, %14 : tensor<8xi1>, tensor<8xf32>
    return %15 : tensor<8xf32>
  }
  func.func private @_where(%arg0: tensor<8xi1>, %arg1: tensor<8xi32>, %arg2: tensor<8xi32>) -> tensor<8xi32> {
    %0 = stablehlo.select %arg0, %arg1, %arg2 : tensor<8xi1>, tensor<8xi32>
    return %0 : tensor<8xi32>
  }
  func.func private @_take_0(%arg0: tensor<10xf32>, %arg1: tensor<8xi32>) -> tensor<8xf32> {
    %0 = stablehlo.broadcast_in_dim %arg1, dims = [0] : (tensor<8xi32>) -> tensor<8x1xi32>
    %1 = "stablehlo.gather"(%arg0, %0) <{dimension_numbers = #stablehlo.gather<collapsed_slice_dims = [0], start_index_map = [0], index_vector_dim = 1>, indices_are_sorted = false, slice_sizes = array<i64: 1>}> : (tensor<10xf32>, tensor<8x1xi32>) -> tensor<8xf32>
    return %1 : tensor<8xf32>
  }
}
