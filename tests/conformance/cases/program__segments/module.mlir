module @jit__segments attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<12x3xf32>, %arg1: tensor<12xi32>) -> (tensor<5x3xf32> {jax.result_info = "result[0]"}, tensor<5x3xf32> {jax.result_info = "result[1]"}, tensor<5xi32> {jax.result_info = "result[2]"}, tensor<5x3xf32> {jax.result_info = "result[3]"}) {
    %c = stablehlo.constant dense<0> : tensor<i32>
    %0 = stablehlo.broadcast_in_dim %c, dims = [] : (tensor<i32>) -> tensor<5xi32>
    %c_0 = stablehlo.constant dense<0> : tensor<i32>
    %1 = stablehlo.broadcast_in_dim %c_0, dims = [] : (tensor<i32>) -> tensor<12xi32>
    %2 = stablehlo.compare LT, %arg1, %1, SIGNED : (tensor<12xi32>, tensor<12xi32>) -> tensor<12xi1>
    %c_1 = stablehlo.constant dense<5> : tensor<i32>
    %3 = stablehlo.broadcast_in_dim %c_1, dims = [] : (tensor<i32>) -> tensor<12xi32>
    %4 = stablehlo.add %arg1, %3 : tensor<12xi32>
    %5 = stablehlo.select %2, %4, %arg1 : tensor<12xi1>, tensor<12xi32>
    %6 = stablehlo.broadcast_in_dim %5, dims = [0] : (tensor<12xi32>) -> tensor<12x1xi32>
    %c_2 = stablehlo.constant dense<1> : tensor<i32>
    %7 = stablehlo.broadcast_in_dim %c_2, dims = [] : (tensor<i32>) -> tensor<12xi32>
    %8 = "stablehlo.scatter"(%0, %6, %7) <{indices_are_sorted = false, scatter_dimension_numbers = #stablehlo.scatter<inserted_window_dims = [0], scatter_dims_to_operand_dims = [0], index_vector_dim = 1>, unique_indices = false}> ({
    ^bb0(%arg2: tensor<i32>, %arg3: tensor<i32>):
      %25 = stablehlo.add %arg2, %arg3 : tensor<i32>
      stablehlo.return %25 : tensor<i32>
    }) : (tensor<5xi32>, tensor<12x1xi32>, tensor<12xi32>) -> tensor<5xi32>
    %cst = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %9 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f32>) -> tensor<5x3xf32>
    %10 = stablehlo.broadcast_in_dim %arg1, dims = [0] : (tensor<12xi32>) -> tensor<12x1xi32>
    %11 = "stablehlo.scatter"(%9, %10, %arg0) <{indices_are_sorted = false, scatter_dimension_numbers = #stablehlo.scatter<update_window_dims = [1], inserted_window_dims = [0], scatter_dims_to_operand_dims = [0], index_vector_dim = 1>, unique_indices = false}> ({
    ^bb0(%arg2: tensor<f32>, %arg3: tensor<f32>):
      %25 = stablehlo.add %arg2, %arg3 : tensor<f32>
      stablehlo.return %25 : tensor<f32>
    }) : (tensor<5x3xf32>, tensor<12x1xi32>, tensor<12x3xf32>) -> tensor<5x3xf32>
    %cst_3 = stablehlo.constant dense<0xFF800000> : tensor<f32>
    %12 = stablehlo.broadcast_in_dim %cst_3, dims = [] : (tensor<f32>) -> tensor<5x3xf32>
    %13 = stablehlo.broadcast_in_dim %arg1, dims = [0] : (tensor<12xi32>) -> tensor<12x1xi32>
    %14 = "stablehlo.scatter"(%12, %13, %arg0) <{indices_are_sorted = false, scatter_dimension_numbers = #stablehlo.scatter<update_window_dims = [1], inserted_window_dims = [0], scatter_dims_to_operand_dims = [0], index_vector_dim = 1>, unique_indices = false}> ({
    ^bb0(%arg2: tensor<f32>, %arg3: tensor<f32>):
      %25 = stablehlo.maximum %arg2, %arg3 : tensor<f32>
      stablehlo.return %25 : tensor<f32>
    }) : (tensor<5x3xf32>, tensor<12x1xi32>, tensor<12x3xf32>) -> tensor<5x3xf32>
    %cst_4 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %15 = stablehlo.broadcast_in_dim %cst_4, dims = [] : (tensor<f32>) -> tensor<5x3xf32>
    %cst_5 = stablehlo.constant dense<2.000000e+00> : tensor<f32>
    %16 = stablehlo.broadcast_in_dim %cst_5, dims = [] : (tensor<f32>) -> tensor<12x3xf32>
    %17 = stablehlo.multiply %arg0, %16 : tensor<12x3xf32>
    %c_6 = stablehlo.constant dense<0> : tensor<i32>
    %18 = stablehlo.broadcast_in_dim %c_6, dims = [] : (tensor<i32>) -> tensor<12xi32>
    %19 = stablehlo.compare LT, %arg1, %18, SIGNED : (tensor<12xi32>, tensor<12xi32>) -> tensor<12xi1>
    %c_7 = stablehlo.constant dense<5> : tensor<i32>
    %20 = stablehlo.broadcast_in_dim %c_7, dims = [] : (tensor<i32>) -> tensor<12xi32>
    %21 = stablehlo.add %arg1, %20 : tensor<12xi32>
    %22 = stablehlo.select %19, %21, %arg1 : tensor<12xi1>, tensor<12xi32>
    %23 = stablehlo.broadcast_in_dim %22, dims = [0] : (tensor<12xi32>) -> tensor<12x1xi32>
    %24 = "stablehlo.scatter"(%15, %23, %17) <{indices_are_sorted = false, scatter_dimension_numbers = #stablehlo.scatter<update_window_dims = [1], inserted_window_dims = [0], scatter_dims_to_operand_dims = [0], index_vector_dim = 1>, unique_indices = false}> ({
    ^bb0(%arg2: tensor<f32>, %arg3: tensor<f32>):
      %25 = stablehlo.add %arg2, %arg3 : tensor<f32>
      stablehlo.return %25 : tensor<f32>
    }) : (tensor<5x3xf32>, tensor<12x1xi32>, tensor<12x3xf32>) -> tensor<5x3xf32>
    return %11, %14, %8, %24 : tensor<5x3xf32>, tensor<5x3xf32>, tensor<5xi32>, tensor<5x3xf32>
  }
}
