module @jit__embedding_grad attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<10x4xf32>, %arg1: tensor<3x5xi32>, %arg2: tensor<4x3xf32>) -> (tensor<f32> {jax.result_info = "result[0]"}, tensor<10x4xf32> {jax.result_info = "result[1]"}) {
    %0:2 = call @_take(%arg0, %arg1) : (tensor<10x4xf32>, tensor<3x5xi32>) -> (tensor<3x5x4xf32>, tensor<3x5x1xi32>)
    %cst = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %1 = stablehlo.reduce(%0#0 init: %cst) applies stablehlo.add across dimensions = [1] : (tensor<3x5x4xf32>, tensor<f32>) -> tensor<3x4xf32>
    %cst_0 = stablehlo.constant dense<5.000000e+00> : tensor<f32>
    %2 = stablehlo.broadcast_in_dim %cst_0, dims = [] : (tensor<f32>) -> tensor<3x4xf32>
    %3 = stablehlo.divide %1, %2 : tensor<3x4xf32>
    %4 = stablehlo.dot_general %3, %arg2, contracting_dims = [1] x [0], precision = [DEFAULT, DEFAULT] : (tensor<3x4xf32>, tensor<4x3xf32>) -> tensor<3x3xf32>
    %5 = stablehlo.tanh %4 : tensor<3x3xf32>
    %cst_1 = stablehlo.constant dense<1.000000e+00> : tensor<f32>
    %6 = stablehlo.broadcast_in_dim %cst_1, dims = [] : (tensor<f32>) -> tensor<3x3xf32>
    %7 = stablehlo.subtract %6, %5 : tensor<3x3xf32>
    %cst_2 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %8 = stablehlo.reduce(%5 init: %cst_2) applies stablehlo.add across dimensions = [0, 1] : (tensor<3x3xf32>, tensor<f32>) -> tensor<f32>
    %cst_3 = stablehlo.constant dense<1.000000e+00> : tensor<f32>
    %9 = stablehlo.broadcast_in_dim %cst_3, dims = [] : (tensor<f32>) -> tensor<3x3xf32>
    %10 = stablehlo.multiply %9, %7 : tensor<3x3xf32>
    %11 = stablehlo.multiply %10, %5 : tensor<3x3xf32>
    %12 = stablehlo.add %10, %11 : tensor<3x3xf32>
    %13 = stablehlo.dot_general %12, %arg2, contracting_dims = [1] x [1], precision = [DEFAULT, DEFAULT] : (tensor<3x3xf32>, tensor<4x3xf32>) -> tensor<3x4xf32>
    %cst_4 = stablehlo.constant dense<5.000000e+00> : tensor<f32>
    %14 = stablehlo.broadcast_in_dim %cst_4, dims = [] : (tensor<f32>) -> tensor<3x4xf32>
    %15 = stablehlo.divide %13, %14 : tensor<3x4xf32>
    %16 = stablehlo.broadcast_in_dim %15, dims = [0, 2] : (tensor<3x4xf32>) -> tensor<3x5x4xf32>
    %17 = call @_take_0(%0#1, %16) : (tensor<3x5x1xi32>, tensor<3x5x4xf32>) -> tensor<10x4xf32>
    return %8, %17 : tensor<f32>, tensor<10x4xf32>
  }
  func.func private @_take(%arg0: tensor<10x4xf32>, %arg1: tensor<3x5xi32>) -> (tensor<3x5x4xf32>, tensor<3x5x1xi32>) {
    %c = stablehlo.constant dense<0> : tensor<i32>
    %0 = stablehlo.broadcast_in_dim %c, dims = [] : (tensor<i32>) -> tensor<3x5xi32>
    %1 = stablehlo.compare LT, %arg1, %0, SIGNED : (tensor<3x5xi32>, tensor<3x5xi32>) -> tensor<3x5xi1>
    %c_0 = stablehlo.constant dense<10> : tensor<i32>
    %2 = stablehlo.broadcast_in_dim %c_0, dims = [] : (tensor<i32>) -> tensor<3x5xi32>
    %3 = stablehlo.add %arg1, %2 : tensor<3x5xi32>
    %4 = call @_where(%1, %3, %arg1) : (tensor<3x5xi1>, tensor<3x5xi32>, tensor<3x5xi32>) -> tensor<3x5xi32>
    %5 = stablehlo.broadcast_in_dim %4, dims = [0, 1] : (tensor<3x5xi32>) -> tensor<3x5x1xi32>
    %c_1 = stablehlo.constant dense<9> : tensor<1xi32>
    %c_2 = stablehlo.constant dense<0> : tensor<i32>
    %6 = stablehlo.broadcast_in_dim %c_2, dims = [] : (tensor<i32>) -> tensor<3x5x1xi32>
    %7 = stablehlo.compare GE, %5, %6, SIGNED : (tensor<3x5x1xi32>, tensor<3x5x1xi32>) -> tensor<3x5x1xi1>
    %8 = stablehlo.broadcast_in_dim %c_1, dims = [2] : (tensor<1xi32>) -> tensor<1x1x1xi32>
    %9 = stablehlo.broadcast_in_dim %8, dims = [0, 1, 2] : (tensor<1x1x1xi32>) -> tensor<3x5x1xi32>
    %10 = stablehlo.compare LE, %5, %9, SIGNED : (tensor<3x5x1xi32>, tensor<3x5x1xi32>) -> tensor<3x5x1xi1>
    %11 = stablehlo.and %7, %10 : tensor<3x5x1xi1>
    %c_3 = stablehlo.constant dense<true> : tensor<i1>
    %12 = stablehlo.reduce(%11 init: %c_3) applies stablehlo.and across dimensions = [2] : (tensor<3x5x1xi1>, tensor<i1>) -> tensor<3x5xi1>
    %13 = "stablehlo.gather"(%arg0, %5) <{dimension_numbers = #stablehlo.gather<offset_dims = [2], collapsed_slice_dims = [0], start_index_map = [0], index_vector_dim = 2>, indices_are_sorted = false, slice_sizes = array<i64: 1, 4>}> : (tensor<10x4xf32>, tensor<3x5x1xi32>) -> tensor<3x5x4xf32>
    %14 = stablehlo.broadcast_in_dim %12, dims = [0, 1] : (tensor<3x5xi1>) -> tensor<3x5x4xi1>
    %cst = stablehlo.constant dense<0x7FC00000> : tensor<f32>
    %15 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f32>) -> tensor<3x5x4xf32>
    %16 = stablehlo.select %14, %13, %15 : tensor<3x5x4xi1>, tensor<3x5x4xf32>
    return %16, %5 : tensor<3x5x4xf32>, tensor<3x5x1xi32>
  }
  func.func private @_where(%arg0: tensor<3x5xi1>, %arg1: tensor<3x5xi32>, %arg2: tensor<3x5xi32>) -> tensor<3x5xi32> {
    %0 = stablehlo.select %arg0, %arg1, %arg2 : tensor<3x5xi1>, tensor<3x5xi32>
    return %0 : tensor<3x5xi32>
  }
  func.func private @_take_0(%arg0: tensor<3x5x1xi32>, %arg1: tensor<3x5x4xf32>) -> tensor<10x4xf32> {
    %cst = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %0 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f32>) -> tensor<10x4xf32>
    %1 = "stablehlo.scatter"(%0, %arg0, %arg1) <{indices_are_sorted = false, scatter_dimension_numbers = #stablehlo.scatter<update_window_dims = [2], inserted_window_dims = [0], scatter_dims_to_operand_dims = [0], index_vector_dim = 2>, unique_indices = false}> ({
    ^bb0(%arg2: tensor<f32>, %arg3: tensor<f32>):
      %2 = stablehlo.add %arg2, %arg3 : tensor<f32>
      stablehlo.return %2 : tensor<f32>
    }) : (tensor<10x4xf32>, tensor<3x5x1xi32>, tensor<3x5x4xf32>) -> tensor<10x4xf32>
    return %1 : tensor<10x4xf32>
  }
}
