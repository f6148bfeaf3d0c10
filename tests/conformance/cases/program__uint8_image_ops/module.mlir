module @jit__image_u8 attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<9x10xui8>, %arg1: tensor<256xui8>) -> (tensor<9x10xui8> {jax.result_info = "result[0]"}, tensor<9x10xui8> {jax.result_info = "result[1]"}, tensor<9x10xui8> {jax.result_info = "result[2]"}, tensor<7x8xui8> {jax.result_info = "result[3]"}, tensor<8xi32> {jax.result_info = "result[4]"}) {
    %0 = stablehlo.convert %arg0 : (tensor<9x10xui8>) -> tensor<9x10xf32>
    %cst = stablehlo.constant dense<1.300000e+00> : tensor<f32>
    %1 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f32>) -> tensor<9x10xf32>
    %2 = stablehlo.multiply %0, %1 : tensor<9x10xf32>
    %cst_0 = stablehlo.constant dense<2.000000e+01> : tensor<f32>
    %3 = stablehlo.broadcast_in_dim %cst_0, dims = [] : (tensor<f32>) -> tensor<9x10xf32>
    %4 = stablehlo.subtract %2, %3 : tensor<9x10xf32>
    %5 = call @round(%4) : (tensor<9x10xf32>) -> tensor<9x10xf32>
    %c = stablehlo.constant dense<0> : tensor<i32>
    %c_1 = stablehlo.constant dense<255> : tensor<i32>
    %6 = call @clip(%5, %c, %c_1) : (tensor<9x10xf32>, tensor<i32>, tensor<i32>) -> tensor<9x10xf32>
    %7 = stablehlo.convert %6 : (tensor<9x10xf32>) -> tensor<9x10xui8>
    %c_2 = stablehlo.constant dense<100> : tensor<ui8>
    %8 = stablehlo.broadcast_in_dim %c_2, dims = [] : (tensor<ui8>) -> tensor<9x10xui8>
    %9 = stablehlo.add %arg0, %8 : tensor<9x10xui8>
    %10 = stablehlo.convert %arg0 : (tensor<9x10xui8>) -> tensor<9x10xi32>
    %11 = stablehlo.broadcast_in_dim %10, dims = [0, 1] : (tensor<9x10xi32>) -> tensor<9x10x1xi32>
    %12 = "stablehlo.gather"(%arg1, %11) <{dimension_numbers = #stablehlo.gather<collapsed_slice_dims = [0], start_index_map = [0], index_vector_dim = 2>, indices_are_sorted = false, slice_sizes = array<i64: 1>}> : (tensor<256xui8>, tensor<9x10x1xi32>) -> tensor<9x10xui8>
    %13 = stablehlo.convert %arg0 : (tensor<9x10xui8>) -> tensor<9x10xi32>
    %14 = stablehlo.slice %13 [0:7, 0:8] : (tensor<9x10xi32>) -> tensor<7x8xi32>
    %15 = stablehlo.slice %13 [1:8, 1:9] : (tensor<9x10xi32>) -> tensor<7x8xi32>
    %16 = stablehlo.add %14, %15 : tensor<7x8xi32>
    %17 = stablehlo.slice %13 [2:9, 2:10] : (tensor<9x10xi32>) -> tensor<7x8xi32>
    %18 = stablehlo.add %16, %17 : tensor<7x8xi32>
    %19 = stablehlo.slice %13 [0:7, 2:10] : (tensor<9x10xi32>) -> tensor<7x8xi32>
    %20 = stablehlo.add %18, %19 : tensor<7x8xi32>
    %21 = stablehlo.slice %13 [2:9, 0:8] : (tensor<9x10xi32>) -> tensor<7x8xi32>
    %22 = stablehlo.add %20, %21 : tensor<7x8xi32>
    %c_3 = stablehlo.constant dense<5> : tensor<i32>
    %23 = call @floor_divide(%22, %c_3) : (tensor<7x8xi32>, tensor<i32>) -> tensor<7x8xi32>
    %c_4 = stablehlo.constant dense<0> : tensor<i32>
    %24 = stablehlo.broadcast_in_dim %c_4, dims = [] : (tensor<i32>) -> tensor<8xi32>
    %c_5 = stablehlo.constant dense<5> : tensor<ui8>
    %25 = stablehlo.broadcast_in_dim %c_5, dims = [] : (tensor<ui8>) -> tensor<9x10xui8>
    %26 = stablehlo.shift_right_logical %arg0, %25 : tensor<9x10xui8>
    %27 = stablehlo.convert %26 : (tensor<9x10xui8>) -> tensor<9x10xi32>
    %28 = stablehlo.broadcast_in_dim %27, dims = [0, 1] : (tensor<9x10xi32>) -> tensor<9x10x1xi32>
    %c_6 = stablehlo.constant dense<1> : tensor<i32>
    %29 = stablehlo.broadcast_in_dim %c_6, dims = [] : (tensor<i32>) -> tensor<9x10xi32>
    %30 = "stablehlo.scatter"(%24, %28, %29) <{indices_are_sorted = false, scatter_dimension_numbers = #stablehlo.scatter<inserted_window_dims = [0], scatter_dims_to_operand_dims = [0], index_vector_dim = 2>, unique_indices = false}> ({
    ^bb0(%arg2: tensor<i32>, %arg3: tensor<i32>):
      %32 = stablehlo.add %arg2, %arg3 : tensor<i32>
      stablehlo.return %32 : tensor<i32>
    }) : (tensor<8xi32>, tensor<9x10x1xi32>, tensor<9x10xi32>) -> tensor<8xi32>
    %31 = stablehlo.convert %23 : (tensor<7x8xi32>) -> tensor<7x8xui8>
    return %7, %9, %12, %31, %30 : tensor<9x10xui8>, tensor<9x10xui8>, tensor<9x10xui8>, tensor<7x8xui8>, tensor<8xi32>
  }
  func.func private @round(%arg0: tensor<9x10xf32>) -> tensor<9x10xf32> {
    %0 = stablehlo.round_nearest_even %arg0 : tensor<9x10xf32>
    return %0 : tensor<9x10xf32>
  }
  func.func private @clip(%arg0: tensor<9x10xf32>, %arg1: tensor<i32>, %arg2: tensor<i32>) -> tensor<9x10xf32> {
    %0 = stablehlo.convert %arg1 : (tensor<i32>) -> tensor<f32>
    %1 = stablehlo.broadcast_in_dim %0, dims = [] : (tensor<f32>) -> tensor<9x10xf32>
    %2 = stablehlo.maximum %1, %arg0 : tensor<9x10xf32>
    %3 = stablehlo.convert %arg2 : (tensor<i32>) -> tensor<f32>
    %4 = stablehlo.broadcast_in_dim %3, dims = [] : (tensor<f32>) -> tensor<9x10xf32>
    %5 = stablehlo.minimum %4, %2 : tensor<9x10xf32>
    return %5 : tensor<9x10xf32>
  }
  func.func private @floor_divide(%arg0: tensor<7x8xi32>, %arg1: tensor<i32>) -> tensor<7x8xi32> {
    %0 = stablehlo.convert %arg1 : tensor<i32>
    %1 = stablehlo.broadcast_in_dim %0, dims = [] : (tensor<i32>) -> tensor<7x8xi32>
    %2 = stablehlo.divide %arg0, %1 : tensor<7x8xi32>
    %3 = stablehlo.sign %arg0 : tensor<7x8xi32>
    %4 = stablehlo.sign %0 : tensor<i32>
    %5 = stablehlo.broadcast_in_dim %4, dims = [] : (tensor<i32>) -> tensor<7x8xi32>
    %6 = stablehlo.compare NE, %3, %5, SIGNED : (tensor<7x8xi32>, tensor<7x8xi32>) -> tensor<7x8xi1>
    %7 = stablehlo.broadcast_in_dim %0, dims = [] : (tensor<i32>) -> tensor<7x8xi32>
    %8 = stablehlo.remainder %arg0, %7 : tensor<7x8xi32>
    %c = stablehlo.constant dense<0> : tensor<i32>
    %9 = stablehlo.broadcast_in_dim %c, dims = [] : (tensor<i32>) -> tensor<7x8xi32>
    %10 = stablehlo.compare NE, %8, %9, SIGNED : (tensor<7x8xi32>, tensor<7x8xi32>) -> tensor<7x8xi1>
    %11 = stablehlo.and %6, %10 : tensor<7x8xi1>
    %c_0 = stablehlo.constant dense<1> : tensor<i32>
    %12 = stablehlo.broadcast_in_dim %c_0, dims = [] : (tensor<i32>) -> tensor<7x8xi32>
    %13 = stablehlo.subtract %2, %12 : tensor<7x8xi32>
    %14 = call @_where(%11, %13, %2) : (tensor<7x8xi1>, tensor<7x8xi32>, tensor<7x8xi32>) -> tensor<7x8xi32>
    return %14 : tensor<7x8xi32>
  }
  func.func private @_where(%arg0: tensor<7x8xi1>, %arg1: tensor<7x8xi32>, %arg2: tensor<7x8xi32>) -> tensor<7x8xi32> {
    %0 = stablehlo.select %arg0, %arg1, %arg2 : tensor<7x8xi1>, tensor<7x8xi32>
    return %0 : tensor<7x8xi32>
  }
}
