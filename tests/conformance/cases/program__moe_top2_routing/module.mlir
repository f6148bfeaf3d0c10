module @jit__moe_top2 attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<6x8xf32>, %arg1: tensor<8x4xf32>, %arg2: tensor<4x8x5xf32>) -> (tensor<6x5xf32> {jax.result_info = "result[0]"}, tensor<6x2xi32> {jax.result_info = "result[1]"}, tensor<4xi32> {jax.result_info = "result[2]"}) {
    %0 = stablehlo.dot_general %arg0, %arg1, contracting_dims = [1] x [0], precision = [DEFAULT, DEFAULT] : (tensor<6x8xf32>, tensor<8x4xf32>) -> tensor<6x4xf32>
    %cst = stablehlo.constant dense<0xFF800000> : tensor<f32>
    %1 = stablehlo.reduce(%0 init: %cst) applies stablehlo.maximum across dimensions = [1] : (tensor<6x4xf32>, tensor<f32>) -> tensor<6xf32>
    %cst_0 = stablehlo.constant dense<0xFF800000> : tensor<f32>
    %2 = stablehlo.broadcast_in_dim %cst_0, dims = [] : (tensor<f32>) -> tensor<6xf32>
    %3 = stablehlo.maximum %2, %1 : tensor<6xf32>
    %4 = stablehlo.broadcast_in_dim %3, dims = [0] : (tensor<6xf32>) -> tensor<6x1xf32>
    %5 = stablehlo.broadcast_in_dim %4, dims = [0, 1] : (tensor<6x1xf32>) -> tensor<6x4xf32>
    %6 = stablehlo.subtract %0, %5 : tensor<6x4xf32>
    %7 = stablehlo.exponential %6 : tensor<6x4xf32>
    %cst_1 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %8 = stablehlo.reduce(%7 init: %cst_1) applies stablehlo.add across dimensions = [1] : (tensor<6x4xf32>, tensor<f32>) -> tensor<6xf32>
    %9 = stablehlo.broadcast_in_dim %8, dims = [0] : (tensor<6xf32>) -> tensor<6x1xf32>
    %10 = stablehlo.broadcast_in_dim %9, dims = [0, 1] : (tensor<6x1xf32>) -> tensor<6x4xf32>
    %11 = stablehlo.divide %7, %10 : tensor<6x4xf32>
    %values, %indices = chlo.top_k(%11, k = 2) : tensor<6x4xf32> -> (tensor<6x2xf32>, tensor<6x2xi32>)
    %cst_2 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %12 = stablehlo.reduce(%values init: %cst_2) applies stablehlo.add across dimensions = [1] : (tensor<6x2xf32>, tensor<f32>) -> tensor<6xf32>
    %13 = stablehlo.broadcast_in_dim %12, dims = [0] : (tensor<6xf32>) -> tensor<6x1xf32>
    %14 = stablehlo.broadcast_in_dim %13, dims = [0, 1] : (tensor<6x1xf32>) -> tensor<6x2xf32>
    %15 = stablehlo.divide %values, %14 : tensor<6x2xf32>
    %16 = stablehlo.dot_general %arg0, %arg2, contracting_dims = [1] x [1], precision = [DEFAULT, DEFAULT] : (tensor<6x8xf32>, tensor<4x8x5xf32>) -> tensor<6x4x5xf32>
    %17 = stablehlo.broadcast_in_dim %indices, dims = [0, 1] : (tensor<6x2xi32>) -> tensor<6x2x1xi32>
    %18 = call @take_along_axis(%16, %17) : (tensor<6x4x5xf32>, tensor<6x2x1xi32>) -> tensor<6x2x5xf32>
    %c = stablehlo.constant dense<0> : tensor<i32>
    %19 = stablehlo.broadcast_in_dim %c, dims = [] : (tensor<i32>) -> tensor<4xi32>
    %20 = stablehlo.reshape %indices : (tensor<6x2xi32>) -> tensor<12xi32>
    %c_3 = stablehlo.constant dense<0> : tensor<i32>
    %21 = stablehlo.broadcast_in_dim %c_3, dims = [] : (tensor<i32>) -> tensor<12xi32>
    %22 = stablehlo.compare LT, %20, %21, SIGNED : (tensor<12xi32>, tensor<12xi32>) -> tensor<12xi1>
    %c_4 = stablehlo.constant dense<4> : tensor<i32>
    %23 = stablehlo.broadcast_in_dim %c_4, dims = [] : (tensor<i32>) -> tensor<12xi32>
    %24 = stablehlo.add %20, %23 : tensor<12xi32>
    %25 = stablehlo.select %22, %24, %20 : tensor<12xi1>, tensor<12xi32>
    %26 = stablehlo.broadcast_in_dim %25, dims = [0] : (tensor<12xi32>) -> tensor<12x1xi32>
    %c_5 = stablehlo.constant dense<1> : tensor<i32>
    %27 = stablehlo.broadcast_in_dim %c_5, dims = [] : (tensor<i32>) -> tensor<12xi32>
    %28 = "stablehlo.scatter"(%19, %26, %27) <{indices_are_sorted = false, scatter_dimension_numbers = #stablehlo.scatter<inserted_window_dims = [0], scatter_dims_to_operand_dims = [0], index_vector_dim = 1>, unique_indices = false}> ({
    ^bb0(%arg3: tensor<i32>, %arg4: tensor<i32>):
      %33 = stablehlo.add %arg3, %arg4 : tensor<i32>
      stablehlo.return %33 : tensor<i32>
    }) : (tensor<4xi32>, tensor<12x1xi32>, tensor<12xi32>) -> tensor<4xi32>
    %29 = stablehlo.broadcast_in_dim %15, dims = [0, 1] : (tensor<6x2xf32>) -> tensor<6x2x1xf32>
    %30 = stablehlo.broadcast_in_dim %29, dims = [0, 1, 2] : (tensor<6x2x1xf32>) -> tensor<6x2x5xf32>
    %31 = stablehlo.multiply %18, %30 : tensor<6x2x5xf32>
    %cst_6 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %32 = stablehlo.reduce(%31 init: %cst_6) applies stablehlo.add across dimensions = [1] : (tensor<6x2x5xf32>, tensor<f32>) -> tensor<6x5xf32>
    return %32, %indices, %28 : tensor<6x5xf32>, tensor<6x2xi32>, tensor<4xi32>
  }
  func.func private @take_along_axis(%arg0: tensor<6x4x5xf32>, %arg1: tensor<6x2x1xi32>) -> tensor<6x2x5xf32> {
    %c = stablehlo.constant dense<0> : tensor<i32>
    %0 = stablehlo.broadcast_in_dim %c, dims = [] : (tensor<i32>) -> tensor<6x2x1xi32>
    %1 = stablehlo.compare LT, %arg1, %0, SIGNED : (tensor<6x2x1xi32>, tensor<6x2x1xi32>) -> tensor<6x2x1xi1>
    %c_0 = stablehlo.constant dense<4> : tensor<i32>
    %2 = stablehlo.broadcast_in_dim %c_0, dims = [] : (tensor<i32>) -> tensor<6x2x1xi32>
    %3 = stablehlo.add %arg1, %2 : tensor<6x2x1xi32>
    %4 = stablehlo.select %1, %3, %arg1 : tensor<6x2x1xi1>, tensor<6x2x1xi32>
    %c_1 = stablehlo.constant dense<3> : tensor<1xi32>
    %c_2 = stablehlo.constant dense<0> : tensor<i32>
    %5 = stablehlo.broadcast_in_dim %c_2, dims = [] : (tensor<i32>) -> tensor<6x2x1xi32>
    %6 = stablehlo.compare GE, %4, %5, SIGNED : (tensor<6x2x1xi32>, tensor<6x2x1xi32>) -> tensor<6x2x1xi1>
    %7 = stablehlo.broadcast_in_dim %c_1, dims = [2] : (tensor<1xi32>) -> tensor<1x1x1xi32>
    %8 = stablehlo.broadcast_in_dim %7, dims = [0, 1, 2] : (tensor<1x1x1xi32>) -> tensor<6x2x1xi32>
    %9 = stablehlo.compare LE, %4, %8, SIGNED : (tensor<6x2x1xi32>, tensor<6x2x1xi32>) -> tensor<6x2x1xi1>
    %10 = stablehlo.and %6, %9 : tensor<6x2x1xi1>
    %c_3 = stablehlo.constant dense<true> : tensor<i1>
    %11 = stablehlo.reduce(%10 init: %c_3) applies stablehlo.and across dimensions = [2] : (tensor<6x2x1xi1>, tensor<i1>) -> tensor<6x2xi1>
    %12 = "stablehlo.gather"(%arg0, %4) <{dimension_numbers = #stablehlo.gather<offset_dims = [2], collapsed_slice_dims = [1], operand_batching_dims = [0], start_indices_batching_dims = [0], start_index_map = [1], index_vector_dim = 2>, indices_are_sorted = false, slice_sizes = array<i64: 1, 1, 5>}> : (tensor<6x4x5xf32>, tensor<6x2x1xi32>) -> tensor<6x2x5xf32>
    %13 = stablehlo.broadcast_in_dim %11, dims = [0, 1] : (tensor<6x2xi1>) -> tensor<6x2x5xi1>
    %cst = stablehlo.constant dense<0x7FC00000> : tensor<f32>
    %14 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f32>) -> tensor<6x2x5xf32>
    %15 = stablehlo.select %13, %12, %14 : tensor<6x2x5xi1>, tensor<6x2x5xf32>
    return %15 : tensor<6x2x5xf32>
  }
}
