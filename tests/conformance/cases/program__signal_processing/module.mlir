module @jit__signal attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<9xf32>, %arg1: tensor<4xf32>, %arg2: tensor<17xf32>, %arg3: tensor<7xf32>) -> (tensor<12xf32> {jax.result_info = "result[0]"}, tensor<9xf32> {jax.result_info = "result[1]"}, tensor<18xf32> {jax.result_info = "result[2]"}, tensor<6xi32> {jax.result_info = "result[3]"}, tensor<4xi32> {jax.result_info = "result[4]"}) {
    %c = stablehlo.constant dense<0> : tensor<i32>
    %0 = stablehlo.broadcast_in_dim %c, dims = [] : (tensor<i32>) -> tensor<6xi32>
    %1 = call @searchsorted(%arg3, %arg2) : (tensor<7xf32>, tensor<17xf32>) -> tensor<17xi32>
    %c_0 = stablehlo.constant dense<1> : tensor<i32>
    %2 = stablehlo.broadcast_in_dim %c_0, dims = [] : (tensor<i32>) -> tensor<17xi32>
    %3 = stablehlo.subtract %1, %2 : tensor<17xi32>
    %c_1 = stablehlo.constant dense<0> : tensor<i32>
    %c_2 = stablehlo.constant dense<5> : tensor<i32>
    %4 = call @clip(%3, %c_1, %c_2) : (tensor<17xi32>, tensor<i32>, tensor<i32>) -> tensor<17xi32>
    %c_3 = stablehlo.constant dense<0> : tensor<i32>
    %5 = stablehlo.broadcast_in_dim %c_3, dims = [] : (tensor<i32>) -> tensor<17xi32>
    %6 = stablehlo.compare LT, %4, %5, SIGNED : (tensor<17xi32>, tensor<17xi32>) -> tensor<17xi1>
    %c_4 = stablehlo.constant dense<6> : tensor<i32>
    %7 = stablehlo.broadcast_in_dim %c_4, dims = [] : (tensor<i32>) -> tensor<17xi32>
    %8 = stablehlo.add %4, %7 : tensor<17xi32>
    %9 = stablehlo.select %6, %8, %4 : tensor<17xi1>, tensor<17xi32>
    %10 = stablehlo.broadcast_in_dim %9, dims = [0] : (tensor<17xi32>) -> tensor<17x1xi32>
    %c_5 = stablehlo.constant dense<1> : tensor<i32>
    %11 = stablehlo.broadcast_in_dim %c_5, dims = [] : (tensor<i32>) -> tensor<17xi32>
    %12 = "stablehlo.scatter"(%0, %10, %11) <{indices_are_sorted = false, scatter_dimension_numbers = #stablehlo.scatter<inserted_window_dims = [0], scatter_dims_to_operand_dims = [0], index_vector_dim = 1>, unique_indices = false}> ({
    ^bb0(%arg4: tensor<i32>, %arg5: tensor<i32>):
      %28 = stablehlo.add %arg4, %arg5 : tensor<i32>
      stablehlo.return %28 : tensor<i32>
    }) : (tensor<6xi32>, tensor<17x1xi32>, tensor<17xi32>) -> tensor<6xi32>
    %13 = call @convolve(%arg0, %arg1) : (tensor<9xf32>, tensor<4xf32>) -> tensor<12xf32>
    %14 = call @correlate(%arg0, %arg1) : (tensor<9xf32>, tensor<4xf32>) -> tensor<9xf32>
    %15 = call @_resize(%arg0) : (tensor<9xf32>) -> tensor<18xf32>
    %16 = stablehlo.abs %arg2 : tensor<17xf32>
    %17 = stablehlo.convert %16 : (tensor<17xf32>) -> tensor<17xi32>
    %c_6 = stablehlo.constant dense<0> : tensor<i32>
    %18 = stablehlo.broadcast_in_dim %c_6, dims = [] : (tensor<i32>) -> tensor<4xi32>
    %c_7 = stablehlo.constant dense<0> : tensor<i32>
    %19 = call @clip_3(%17, %c_7) : (tensor<17xi32>, tensor<i32>) -> tensor<17xi32>
    %c_8 = stablehlo.constant dense<0> : tensor<i32>
    %20 = stablehlo.broadcast_in_dim %c_8, dims = [] : (tensor<i32>) -> tensor<17xi32>
    %21 = stablehlo.compare LT, %19, %20, SIGNED : (tensor<17xi32>, tensor<17xi32>) -> tensor<17xi1>
    %c_9 = stablehlo.constant dense<4> : tensor<i32>
    %22 = stablehlo.broadcast_in_dim %c_9, dims = [] : (tensor<i32>) -> tensor<17xi32>
    %23 = stablehlo.add %19, %22 : tensor<17xi32>
    %24 = stablehlo.select %21, %23, %19 : tensor<17xi1>, tensor<17xi32>
    %25 = stablehlo.broadcast_in_dim %24, dims = [0] : (tensor<17xi32>) -> tensor<17x1xi32>
    %c_10 = stablehlo.constant dense<1> : tensor<i32>
    %26 = stablehlo.broadcast_in_dim %c_10, dims = [] : (tensor<i32>) -> tensor<17xi32>
    %27 = "stablehlo.scatter"(%18, %25, %26) <{indices_are_sorted = false, scatter_dimension_numbers = #stablehlo.scatter<inserted_window_dims = [0], scatter_dims_to_operand_dims = [0], index_vector_dim = 1>, unique_indices = false}> ({
    ^bb0(%arg4: tensor<i32>, %arg5: tensor<i32>):
      %28 = stablehlo.add %arg4, %arg5 : tensor<i32>
      stablehlo.return %28 : tensor<i32>
    }) : (tensor<4xi32>, tensor<17x1xi32>, tensor<17xi32>) -> tensor<4xi32>
    return %13, %14, %15, %12, %27 : tensor<12xf32>, tensor<9xf32>, tensor<18xf32>, tensor<6xi32>, tensor<4xi32>
  }
  func.func private @searchsorted(%arg0: tensor<7xf32>, %arg1: tensor<17xf32>) -> tensor<17xi32> {
    %0 = call @_searchsorted_scan_impl(%arg0, %arg1) : (tensor<7xf32>, tensor<17xf32>) -> tensor<17xi32>
    return %0 : tensor<17xi32>
  }
  func.func private @_searchsorted_scan_impl(%arg0: tensor<7xf32>, %arg1: tensor<17xf32>) -> tensor<17xi32> {
    %0 = call @_searchsorted_scan_impl_0(%arg0, %arg1) : (tensor<7xf32>, tensor<17xf32>) -> tensor<17xi32>
    return %0 : tensor<17xi32>
  }
  func.func private @_searchsorted_scan_impl_0(%arg0: tensor<7xf32>, %arg1: tensor<17xf32>) -> tensor<17xi32> {
    %c = stablehlo.constant dense<0> : tensor<ui32>
    %0 = stablehlo.broadcast_in_dim %c, dims = [] : (tensor<ui32>) -> tensor<17xui32>
    %c_0 = stablehlo.constant dense<7> : tensor<ui32>
    %1 = stablehlo.broadcast_in_dim %c_0, dims = [] : (tensor<ui32>) -> tensor<17xui32>
    %c_1 = stablehlo.constant dense<0> : tensor<i32>
    %2:5 = stablehlo.while(%iterArg = %arg0, %iterArg_2 = %arg1, %iterArg_3 = %c_1, %iterArg_4 = %0, %iterArg_5 = %1) : tensor<7xf32>, tensor<17xf32>, tensor<i32>, tensor<17xui32>, tensor<17xui32>
    cond {
      %c_6 = stablehlo.constant dense<3> : tensor<i32>
      %4 = stablehlo.compare LT, %iterArg_3, %c_6, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
      stablehlo.return %4 : tensor<i1>
    } do {
      %4:2 = func.call @closed_call(%iterArg, %iterArg_2, %iterArg_4, %iterArg_5) : (tensor<7xf32>, tensor<17xf32>, tensor<17xui32>, tensor<17xui32>) -> (tensor<17xui32>, tensor<17xui32>)
      %c_6 = stablehlo.constant dense<1> : tensor<i32>
      %5 = stablehlo.add %iterArg_3, %c_6 : tensor<i32>
      stablehlo.return %iterArg, %iterArg_2, %5, %4#0, %4#1 : tensor<7xf32>, tensor<17xf32>, tensor<i32>, tensor<17xui32>, tensor<17xui32>
    }
    %3 = stablehlo.convert %2#4 : (tensor<17xui32>) -> tensor<17xi32>
    return %3 : tensor<17xi32>
  }
  func.func private @closed_call(%arg0: tensor<7xf32>, %arg1: tensor<17xf32>, %arg2: tensor<17xui32>, %arg3: tensor<17xui32>) -> (tensor<17xui32>, tensor<17xui32>) {
    %0 = stablehlo.subtract %arg3, %arg2 : tensor<17xui32>
    %c = stablehlo.constant dense<2> : tensor<i32>
    %1 = call @floor_divide(%0, %c) : (tensor<17xui32>, tensor<i32>) -> tensor<17xui32>
    %2 = stablehlo.add %arg2, %1 : tensor<17xui32>
    %3 = stablehlo.broadcast_in_dim %2, dims = [0] : (tensor<17xui32>) -> tensor<17x1xui32>
    %4 = "stablehlo.gather"(%arg0, %3) <{dimension_numbers = #stablehlo.gather<offset_dims = [1], start_index_map = [0], index_vector_dim = 1>, indices_are_sorted = false, slice_sizes = array<i64: 1>}> : (tensor<7xf32>, tensor<17x1xui32>) -> tensor<17x1xf32>
    %5 = stablehlo.reshape %4 : (tensor<17x1xf32>) -> tensor<17xf32>
    %cst = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %6 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f32>) -> tensor<17xf32>
    %7 = stablehlo.compare EQ, %arg1, %6, FLOAT : (tensor<17xf32>, tensor<17xf32>) -> tensor<17xi1>
    %cst_0 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %8 = stablehlo.broadcast_in_dim %cst_0, dims = [] : (tensor<f32>) -> tensor<17xf32>
    %9 = stablehlo.select %7, %8, %arg1 : tensor<17xi1>, tensor<17xf32>
    %10 = stablehlo.compare NE, %arg1, %arg1, FLOAT : (tensor<17xf32>, tensor<17xf32>) -> tensor<17xi1>
    %cst_1 = stablehlo.constant dense<0x7FC00000> : tensor<f32>
    %11 = stablehlo.broadcast_in_dim %cst_1, dims = [] : (tensor<f32>) -> tensor<17xf32>
    %12 = stablehlo.select %10, %11, %9 : tensor<17xi1>, tensor<17xf32>
    %cst_2 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %13 = stablehlo.broadcast_in_dim %cst_2, dims = [] : (tensor<f32>) -> tensor<17xf32>
    %14 = stablehlo.compare EQ, %5, %13, FLOAT : (tensor<17xf32>, tensor<17xf32>) -> tensor<17xi1>
    %cst_3 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %15 = stablehlo.broadcast_in_dim %cst_3, dims = [] : (tensor<f32>) -> tensor<17xf32>
    %16 = stablehlo.select %14, %15, %5 : tensor<17xi1>, tensor<17xf32>
    %17 = stablehlo.compare NE, %5, %5, FLOAT : (tensor<17xf32>, tensor<17xf32>) -> tensor<17xi1>
    %cst_4 = stablehlo.constant dense<0x7FC00000> : tensor<f32>
    %18 = stablehlo.broadcast_in_dim %cst_4, dims = [] : (tensor<f32>) -> tensor<17xf32>
    %19 = stablehlo.select %17, %18, %16 : tensor<17xi1>, tensor<17xf32>
    %20 = stablehlo.compare LT, %12, %19, TOTALORDER : (tensor<17xf32>, tensor<17xf32>) -> tensor<17xi1>
    %21 = stablehlo.select %20, %arg2, %2 : tensor<17xi1>, tensor<17xui32>
    %22 = stablehlo.select %20, %2, %arg3 : tensor<17xi1>, tensor<17xui32>
    return %21, %22 : tensor<17xui32>, tensor<17xui32>
  }
  func.func private @floor_divide(%arg0: tensor<17xui32>, %arg1: tensor<i32>) -> tensor<17xui32> {
    %0 = stablehlo.convert %arg1 : (tensor<i32>) -> tensor<ui32>
    %1 = stablehlo.broadcast_in_dim %0, dims = [] : (tensor<ui32>) -> tensor<17xui32>
    %2 = stablehlo.divide %arg0, %1 : tensor<17xui32>
    return %2 : tensor<17xui32>
  }
  func.func private @clip(%arg0: tensor<17xi32>, %arg1: tensor<i32>, %arg2: tensor<i32>) -> tensor<17xi32> {
    %0 = stablehlo.convert %arg1 : tensor<i32>
    %1 = stablehlo.broadcast_in_dim %0, dims = [] : (tensor<i32>) -> tensor<17xi32>
    %2 = stablehlo.maximum %1, %arg0 : tensor<17xi32>
    %3 = stablehlo.convert %arg2 : tensor<i32>
    %4 = stablehlo.broadcast_in_dim %3, dims = [] : (tensor<i32>) -> tensor<17xi32>
    %5 = stablehlo.minimum %4, %2 : tensor<17xi32>
    return %5 : tensor<17xi32>
  }
  func.func private @convolve(%arg0: tensor<9xf32>, %arg1: tensor<4xf32>) -> tensor<12xf32> {
    %0 = call @_conv(%arg0, %arg1) : (tensor<9xf32>, tensor<4xf32>) -> tensor<12xf32>
    return %0 : tensor<12xf32>
  }
  func.func private @_conv(%arg0: tensor<9xf32>, %arg1: tensor<4xf32>) -> tensor<12xf32> {
    %0 = call @_flip(%arg1) : (tensor<4xf32>) -> tensor<4xf32>
    %1 = stablehlo.broadcast_in_dim %arg0, dims = [2] : (tensor<9xf32>) -> tensor<1x1x9xf32>
    %2 = stablehlo.broadcast_in_dim %0, dims = [2] : (tensor<4xf32>) -> tensor<1x1x4xf32>
    %3 = stablehlo.convolution(%1, %2) dim_numbers = [b, f, 0]x[o, i, 0]->[b, f, 0], window = {stride = [1], pad = [[3, 3]], lhs_dilate = [1], rhs_dilate = [1], reverse = [false]} {batch_group_count = 1 : i64, feature_group_count = 1 : i64, precision_config = [#stablehlo<precision DEFAULT>, #stablehlo<precision DEFAULT>]} : (tensor<1x1x9xf32>, tensor<1x1x4xf32>) -> tensor<1x1x12xf32>
    %4 = stablehlo.reshape %3 : (tensor<1x1x12xf32>) -> tensor<12xf32>
    return %4 : tensor<12xf32>
  }
  func.func private @_flip(%arg0: tensor<4xf32>) -> tensor<4xf32> {
    %0 = stablehlo.reverse %arg0, dims = [0] : tensor<4xf32>
    return %0 : tensor<4xf32>
  }
  func.func private @correlate(%arg0: tensor<9xf32>, %arg1: tensor<4xf32>) -> tensor<9xf32> {
    %0 = call @_conv_1(%arg0, %arg1) : (tensor<9xf32>, tensor<4xf32>) -> tensor<9xf32>
    return %0 : tensor<9xf32>
  }
  func.func private @_conv_1(%arg0: tensor<9xf32>, %arg1: tensor<4xf32>) -> tensor<9xf32> {
    %0 = stablehlo.broadcast_in_dim %arg0, dims = [2] : (tensor<9xf32>) -> tensor<1x1x9xf32>
    %1 = stablehlo.broadcast_in_dim %arg1, dims = [2] : (tensor<4xf32>) -> tensor<1x1x4xf32>
    %2 = stablehlo.convolution(%0, %1) dim_numbers = [b, f, 0]x[o, i, 0]->[b, f, 0], window = {stride = [1], pad = [[2, 1]], lhs_dilate = [1], rhs_dilate = [1], reverse = [false]} {batch_group_count = 1 : i64, feature_group_count = 1 : i64, precision_config = [#stablehlo<precision DEFAULT>, #stablehlo<precision DEFAULT>]} : (tensor<1x1x9xf32>, tensor<1x1x4xf32>) -> tensor<1x1x9xf32>
    %3 = stablehlo.reshape %2 : (tensor<1x1x9xf32>) -> tensor<9xf32>
    return %3 : tensor<9xf32>
  }
  func.func private @_resize(%arg0: tensor<9xf32>) -> tensor<18xf32> {
    %cst = stablehlo.constant dense<5.000000e-01> : tensor<f32>
    %cst_0 = stablehlo.constant dense<1.000000e+00> : tensor<f32>
    %0 = stablehlo.maximum %cst, %cst_0 : tensor<f32>
    %1 = stablehlo.iota dim = 0 : tensor<18xf32>
    %cst_1 = stablehlo.constant dense<5.000000e-01> : tensor<f32>
    %2 = stablehlo.broadcast_in_dim %cst_1, dims = [] : (tensor<f32>) -> tensor<18xf32>
    %3 = stablehlo.add %1, %2 : tensor<18xf32>
    %cst_2 = stablehlo.constant dense<5.000000e-01> : tensor<f32>
    %4 = stablehlo.broadcast_in_dim %cst_2, dims = [] : (tensor<f32>) -> tensor<18xf32>
    %5 = stablehlo.multiply %3, %4 : tensor<18xf32>
    %cst_3 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %6 = stablehlo.broadcast_in_dim %cst_3, dims = [] : (tensor<f32>) -> tensor<18xf32>
    %7 = stablehlo.subtract %5, %6 : tensor<18xf32>
    %cst_4 = stablehlo.constant dense<5.000000e-01> : tensor<f32>
    %8 = stablehlo.broadcast_in_dim %cst_4, dims = [] : (tensor<f32>) -> tensor<18xf32>
    %9 = stablehlo.subtract %7, %8 : tensor<18xf32>
    %10 = stablehlo.iota dim = 0 : tensor<9xf32>
    %11 = stablehlo.broadcast_in_dim %9, dims = [1] : (tensor<18xf32>) -> tensor<1x18xf32>
    %12 = stablehlo.broadcast_in_dim %10, dims = [0] : (tensor<9xf32>) -> tensor<9x1xf32>
    %13 = stablehlo.broadcast_in_dim %11, dims = [0, 1] : (tensor<1x18xf32>) -> tensor<9x18xf32>
    %14 = stablehlo.broadcast_in_dim %12, dims = [0, 1] : (tensor<9x1xf32>) -> tensor<9x18xf32>
    %15 = stablehlo.subtract %13, %14 : tensor<9x18xf32>
    %16 = stablehlo.abs %15 : tensor<9x18xf32>
    %17 = stablehlo.convert %0 : tensor<f32>
    %18 = stablehlo.broadcast_in_dim %17, dims = [] : (tensor<f32>) -> tensor<9x18xf32>
    %19 = stablehlo.divide %16, %18 : tensor<9x18xf32>
    %20 = stablehlo.abs %19 : tensor<9x18xf32>
    %cst_5 = stablehlo.constant dense<1.000000e+00> : tensor<f32>
    %21 = stablehlo.broadcast_in_dim %cst_5, dims = [] : (tensor<f32>) -> tensor<9x18xf32>
    %22 = stablehlo.subtract %21, %20 : tensor<9x18xf32>
    %cst_6 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %23 = stablehlo.broadcast_in_dim %cst_6, dims = [] : (tensor<f32>) -> tensor<9x18xf32>
    %24 = stablehlo.maximum %23, %22 : tensor<9x18xf32>
    %cst_7 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %25 = stablehlo.reduce(%24 init: %cst_7) applies stablehlo.add across dimensions = [0] : (tensor<9x18xf32>, tensor<f32>) -> tensor<18xf32>
    %26 = stablehlo.broadcast_in_dim %25, dims = [1] : (tensor<18xf32>) -> tensor<1x18xf32>
    %27 = stablehlo.abs %26 : tensor<1x18xf32>
    %cst_8 = stablehlo.constant dense<1.1920929E-4> : tensor<f32>
    %28 = stablehlo.broadcast_in_dim %cst_8, dims = [] : (tensor<f32>) -> tensor<1x18xf32>
    %29 = stablehlo.compare GT, %27, %28, FLOAT : (tensor<1x18xf32>, tensor<1x18xf32>) -> tensor<1x18xi1>
    %cst_9 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %30 = stablehlo.broadcast_in_dim %cst_9, dims = [] : (tensor<f32>) -> tensor<1x18xf32>
    %31 = stablehlo.compare NE, %26, %30, FLOAT : (tensor<1x18xf32>, tensor<1x18xf32>) -> tensor<1x18xi1>
    %c = stablehlo.constant dense<1> : tensor<i32>
    %32 = call @_where(%31, %26, %c) : (tensor<1x18xi1>, tensor<1x18xf32>, tensor<i32>) -> tensor<1x18xf32>
    %33 = stablehlo.broadcast_in_dim %32, dims = [0, 1] : (tensor<1x18xf32>) -> tensor<9x18xf32>
    %34 = stablehlo.divide %24, %33 : tensor<9x18xf32>
    %c_10 = stablehlo.constant dense<0> : tensor<i32>
    %35 = call @_where_2(%29, %34, %c_10) : (tensor<1x18xi1>, tensor<9x18xf32>, tensor<i32>) -> tensor<9x18xf32>
    %cst_11 = stablehlo.constant dense<-5.000000e-01> : tensor<f32>
    %36 = stablehlo.broadcast_in_dim %cst_11, dims = [] : (tensor<f32>) -> tensor<18xf32>
    %37 = stablehlo.compare GE, %9, %36, FLOAT : (tensor<18xf32>, tensor<18xf32>) -> tensor<18xi1>
    %cst_12 = stablehlo.constant dense<8.500000e+00> : tensor<f32>
    %38 = stablehlo.broadcast_in_dim %cst_12, dims = [] : (tensor<f32>) -> tensor<18xf32>
    %39 = stablehlo.compare LE, %9, %38, FLOAT : (tensor<18xf32>, tensor<18xf32>) -> tensor<18xi1>
    %40 = stablehlo.and %37, %39 : tensor<18xi1>
    %41 = stablehlo.broadcast_in_dim %40, dims = [1] : (tensor<18xi1>) -> tensor<1x18xi1>
    %c_13 = stablehlo.constant dense<0> : tensor<i32>
    %42 = call @_where_2(%41, %35, %c_13) : (tensor<1x18xi1>, tensor<9x18xf32>, tensor<i32>) -> tensor<9x18xf32>
    %43 = stablehlo.dot_general %arg0, %42, contracting_dims = [0] x [0], precision = [HIGHEST, HIGHEST] : (tensor<9xf32>, tensor<9x18xf32>) -> tensor<18xf32>
    return %43 : tensor<18xf32>
  }
  func.func private @_where(%arg0: tensor<1x18xi1>, %arg1: tensor<1x18xf32>, %arg2: tensor<i32>) -> tensor<1x18xf32> {
    %0 = stablehlo.convert %arg2 : (tensor<i32>) -> tensor<f32>
    %1 = stablehlo.broadcast_in_dim %0, dims = [] : (tensor<f32>) -> tensor<1x18xf32>
    %2 = stablehlo.select %arg0, %arg1, %1 : tensor<1x18xi1>, tensor<1x18xf32>
    return %2 : tensor<1x18xf32>
  }
  func.func private @_where_2(%arg0: tensor<1x18xi1>, %arg1: tensor<9x18xf32>, %arg2: tensor<i32>) -> tensor<9x18xf32> {
    %0 = stablehlo.convert %arg2 : (tensor<i32>) -> tensor<f32>
    %1 = stablehlo.broadcast_in_dim %arg0, dims = [0, 1] : (tensor<1x18xi1>) -> tensor<9x18xi1>
    %2 = stablehlo.broadcast_in_dim %0, dims = [] : (tensor<f32>) -> tensor<9x18xf32>
    %3 = stablehlo.select %1, %arg1, %2 : tensor<9x18xi1>, tensor<9x18xf32>
    return %3 : tensor<9x18xf32>
  }
  func.func private @clip_3(%arg0: tensor<17xi32>, %arg1: tensor<i32>) -> tensor<17xi32> {
    %0 = stablehlo.convert %arg1 : tensor<i32>
    %1 = stablehlo.broadcast_in_dim %0, dims = [] : (tensor<i32>) -> tensor<17xi32>
    %2 = stablehlo.maximum %1, %arg0 : tensor<17xi32>
    return %2 : tensor<17xi32>
  }
}
