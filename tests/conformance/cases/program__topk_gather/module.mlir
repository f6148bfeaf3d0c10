module @jit__topk_gather attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<4x10xf32>, %arg1: tensor<4x10x3xf32>) -> (tensor<4x3xf32> {jax.result_info = "result[0]"}, tensor<4x3xi32> {jax.result_info = "result[1]"}, tensor<4x3xf32> {jax.result_info = "result[2]"}) {
    %values, %indices = chlo.top_k(%arg0, k = 3) : tensor<4x10xf32> -> (tensor<4x3xf32>, tensor<4x3xi32>)
    %0 = stablehlo.broadcast_in_dim %indices, dims = [0, 1] : (tensor<4x3xi32>) -> tensor<4x3x1xi32>
    %1 = call @take_along_axis(%arg1, %0) : (tensor<4x10x3xf32>, tensor<4x3x1xi32>) -> tensor<4x3x3xf32>
    %cst = stablehlo.constant dense<0xFF800000> : tensor<f32>
    %2 = stablehlo.reduce(%values init: %cst) applies stablehlo.maximum across dimensions = [1] : (tensor<4x3xf32>, tensor<f32>) -> tensor<4xf32>
    %cst_0 = stablehlo.constant dense<0xFF800000> : tensor<f32>
    %3 = stablehlo.broadcast_in_dim %cst_0, dims = [] : (tensor<f32>) -> tensor<4xf32>
    %4 = stablehlo.maximum %3, %2 : tensor<4xf32>
    %5 = stablehlo.broadcast_in_dim %4, dims = [0] : (tensor<4xf32>) -> tensor<4x1xf32>
    %6 = stablehlo.broadcast_in_dim %5, dims = [0, 1] : (tensor<4x1xf32>) -> tensor<4x3xf32>
    %7 = stablehlo.subtract %values, %6 : tensor<4x3xf32>
    %8 = stablehlo.exponential %7 : tensor<4x3xf32>
    %cst_1 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %9 = stablehlo.reduce(%8 init: %cst_1) applies stablehlo.add across dimensions = [1] : (tensor<4x3xf32>, tensor<f32>) -> tensor<4xf32>
    %10 = stablehlo.broadcast_in_dim %9, dims = [0] : (tensor<4xf32>) -> tensor<4x1xf32>
    %11 = stablehlo.broadcast_in_dim %10, dims = [0, 1] : (tensor<4x1xf32>) -> tensor<4x3xf32>
    %12 = stablehlo.divide %8, %11 : tensor<4x3xf32>
    %13 = stablehlo.dot_general %12, %1, batching_dims = [0] x [0], contracting_dims = [1] x [1], precision = [DEFAULT, DEFAULT] : (tensor<4x3xf32>, tensor<4x3x3xf32>) -> tensor<4x3xf32>
    return %values, %indices, %13 : tensor<4x3xf32>, tensor<4x3xi32>, tensor<4x3xf32>
  }
  func.func private @take_along_axis(%arg0: tensor<4x10x3xf32>, %arg1: tensor<4x3x1xi32>) -> tensor<4x3x3xf32> {
    %c = stablehlo.constant dense<0> : tensor<i32>
    %0 = stablehlo.broadcast_in_dim %c, dims = [] : (tensor<i32>) -> tensor<4x3x1xi32>
    %1 = stablehlo.compare LT, %arg1, %0, SIGNED : (tensor<4x3x1xi32>, tensor<4x3x1xi32>) -> tensor<4x3x1xi1>
    %c_0 = stablehlo.constant dense<10> : tensor<i32>
    %2 = stablehlo.broadcast_in_dim %c_0, dims = [] : (tensor<i32>) -> tensor<4x3x1xi32>
    %3 = stablehlo.add %arg1, %2 : tensor<4x3x1xi32>
    %4 = stablehlo.select %1, %3, %arg1 : tensor<4x3x1xi1>, tensor<4x3x1xi32>
    %c_1 = stablehlo.constant dense<9> : tensor<1xi32>
    %c_2 = stablehlo.constant dense<0> : tensor<i32>
    %5 = stablehlo.broadcast_in_dim %c_2, dims = [] : (tensor<i32>) -> tensor<4x3x1xi32>
    %6 = stablehlo.compare GE, %4, %5, SIGNED : (tensor<4x3x1xi32>, tensor<4x3x1xi32>) -> tensor<4x3x1xi1>
    %7 = stablehlo.broadcast_in_dim %c_1, dims = [2] : (tensor<1xi32>) -> tensor<1x1x1xi32>
    %8 = stablehlo.broadcast_in_dim %7, dims = [0, 1, 2] : (tensor<1x1x1xi32>) -> tensor<4x3x1xi32>
    %9 = stablehlo.compare LE, %4, %8, SIGNED : (tensor<4x3x1xi32>, tensor<4x3x1xi32>) -> tensor<4x3x1xi1>
    %10 = stablehlo.and %6, %9 : tensor<4x3x1xi1>
    %c_3 = stablehlo.constant dense<true> : tensor<i1>
    %11 = stablehlo.reduce(%10 init: %c_3) applies stablehlo.and across dimensions = [2] : (tensor<4x3x1xi1>, tensor<i1>) -> tensor<4x3xi1>
    %12 = "stablehlo.gather"(%arg0, %4) <{dimension_numbers = #stablehlo.gather<offset_dims = [2], collapsed_slice_dims = [1], operand_batching_dims = [0], start_indices_batching_dims = [0], start_index_map = [1], index_vector_dim = 2>, indices_are_sorted = false, slice_sizes = array<i64: 1, 1, 3>}> : (tensor<4x10x3xf32>, tensor<4x3x1xi32>) -> tensor<4x3x3xf32>
    %13 = stablehlo.broadcast_in_dim %11, dims = [0, 1] : (tensor<4x3xi1>) -> tensor<4x3x3xi1>
    %cst = stablehlo.constant dense<0x7FC00000> : tensor<f32>
    %14 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f32>) -> tensor<4x3x3xf32>
    %15 = stablehlo.select %13, %12, %14 : tensor<4x3x3xi1>, tensor<4x3x3xf32>
    return %15 : tensor<4x3x3xf32>
  }
}
