module @jit__unique attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<11xf32>) -> (tensor<8xf32> {jax.result_info = "result[0]"}, tensor<8xi32> {jax.result_info = "result[1]"}) {
    %0:3 = call @_unique_sorted_mask(%arg0) : (tensor<11xf32>) -> (tensor<11xf32>, tensor<11xi1>, tensor<11xi32>)
    %1 = call @cumsum(%0#1) : (tensor<11xi1>) -> tensor<11xi32>
    %c = stablehlo.constant dense<0> : tensor<i32>
    %2 = stablehlo.broadcast_in_dim %c, dims = [] : (tensor<i32>) -> tensor<8xi32>
    %c_0 = stablehlo.constant dense<0> : tensor<i32>
    %3 = call @clip(%1, %c_0) : (tensor<11xi32>, tensor<i32>) -> tensor<11xi32>
    %c_1 = stablehlo.constant dense<0> : tensor<i32>
    %4 = stablehlo.broadcast_in_dim %c_1, dims = [] : (tensor<i32>) -> tensor<11xi32>
    %5 = stablehlo.compare LT, %3, %4, SIGNED : (tensor<11xi32>, tensor<11xi32>) -> tensor<11xi1>
    %c_2 = stablehlo.constant dense<8> : tensor<i32>
    %6 = stablehlo.broadcast_in_dim %c_2, dims = [] : (tensor<i32>) -> tensor<11xi32>
    %7 = stablehlo.add %3, %6 : tensor<11xi32>
    %8 = stablehlo.select %5, %7, %3 : tensor<11xi1>, tensor<11xi32>
    %9 = stablehlo.broadcast_in_dim %8, dims = [0] : (tensor<11xi32>) -> tensor<11x1xi32>
    %c_3 = stablehlo.constant dense<1> : tensor<i32>
    %10 = stablehlo.broadcast_in_dim %c_3, dims = [] : (tensor<i32>) -> tensor<11xi32>
    %11 = "stablehlo.scatter"(%2, %9, %10) <{indices_are_sorted = false, scatter_dimension_numbers = #stablehlo.scatter<inserted_window_dims = [0], scatter_dims_to_operand_dims = [0], index_vector_dim = 1>, unique_indices = false}> ({
    ^bb0(%arg1: tensor<i32>, %arg2: tensor<i32>):
      %48 = stablehlo.add %arg1, %arg2 : tensor<i32>
      stablehlo.return %48 : tensor<i32>
    }) : (tensor<8xi32>, tensor<11x1xi32>, tensor<11xi32>) -> tensor<8xi32>
    %12 = call @cumsum_1(%11) : (tensor<8xi32>) -> tensor<8xi32>
    %c_4 = stablehlo.constant dense<1> : tensor<i32>
    %13 = call @floor_divide(%12, %c_4) : (tensor<8xi32>, tensor<i32>) -> tensor<8xi32>
    %c_5 = stablehlo.constant dense<11> : tensor<i32>
    %14 = call @remainder(%13, %c_5) : (tensor<8xi32>, tensor<i32>) -> tensor<8xi32>
    %c_6 = stablehlo.constant dense<0> : tensor<i32>
    %15 = stablehlo.broadcast_in_dim %c_6, dims = [] : (tensor<i32>) -> tensor<8xi32>
    %16 = stablehlo.compare LT, %14, %15, SIGNED : (tensor<8xi32>, tensor<8xi32>) -> tensor<8xi1>
    %c_7 = stablehlo.constant dense<11> : tensor<i32>
    %17 = stablehlo.broadcast_in_dim %c_7, dims = [] : (tensor<i32>) -> tensor<8xi32>
    %18 = stablehlo.add %14, %17 : tensor<8xi32>
    %19 = stablehlo.select %16, %18, %14 : tensor<8xi1>, tensor<8xi32>
    %20 = stablehlo.broadcast_in_dim %19, dims = [0] : (tensor<8xi32>) -> tensor<8x1xi32>
    %21 = "stablehlo.gather"(%0#0, %20) <{dimension_numbers = #stablehlo.gather<collapsed_slice_dims = [0], start_index_map = [0], index_vector_dim = 1>, indices_are_sorted = false, slice_sizes = array<i64: 1>}> : (tensor<11xf32>, tensor<8x1xi32>) -> tensor<8xf32>
    %22 = stablehlo.iota dim = 0 : tensor<8xi32>
    %23 = stablehlo.convert %0#1 : (tensor<11xi1>) -> tensor<11xi32>
    %c_8 = stablehlo.constant dense<0> : tensor<i32>
    %24 = stablehlo.reduce(%23 init: %c_8) applies stablehlo.add across dimensions = [0] : (tensor<11xi32>, tensor<i32>) -> tensor<i32>
    %25 = stablehlo.broadcast_in_dim %24, dims = [] : (tensor<i32>) -> tensor<8xi32>
    %26 = stablehlo.compare LT, %22, %25, SIGNED : (tensor<8xi32>, tensor<8xi32>) -> tensor<8xi1>
    %cst = stablehlo.constant dense<-1.000000e+00> : tensor<f32>
    %27 = call @_where_4(%26, %21, %cst) : (tensor<8xi1>, tensor<8xf32>, tensor<f32>) -> tensor<8xf32>
    %28 = call @cumsum(%0#1) : (tensor<11xi1>) -> tensor<11xi32>
    %c_9 = stablehlo.constant dense<0> : tensor<i32>
    %29 = stablehlo.broadcast_in_dim %c_9, dims = [] : (tensor<i32>) -> tensor<9xi32>
    %c_10 = stablehlo.constant dense<0> : tensor<i32>
    %30 = call @clip(%28, %c_10) : (tensor<11xi32>, tensor<i32>) -> tensor<11xi32>
    %c_11 = stablehlo.constant dense<0> : tensor<i32>
    %31 = stablehlo.broadcast_in_dim %c_11, dims = [] : (tensor<i32>) -> tensor<11xi32>
    %32 = stablehlo.compare LT, %30, %31, SIGNED : (tensor<11xi32>, tensor<11xi32>) -> tensor<11xi1>
    %c_12 = stablehlo.constant dense<9> : tensor<i32>
    %33 = stablehlo.broadcast_in_dim %c_12, dims = [] : (tensor<i32>) -> tensor<11xi32>
    %34 = stablehlo.add %30, %33 : tensor<11xi32>
    %35 = stablehlo.select %32, %34, %30 : tensor<11xi1>, tensor<11xi32>
    %36 = stablehlo.broadcast_in_dim %35, dims = [0] : (tensor<11xi32>) -> tensor<11x1xi32>
    %c_13 = stablehlo.constant dense<1> : tensor<i32>
    %37 = stablehlo.broadcast_in_dim %c_13, dims = [] : (tensor<i32>) -> tensor<11xi32>
    %38 = "stablehlo.scatter"(%29, %36, %37) <{indices_are_sorted = false, scatter_dimension_numbers = #stablehlo.scatter<inserted_window_dims = [0], scatter_dims_to_operand_dims = [0], index_vector_dim = 1>, unique_indices = false}> ({
    ^bb0(%arg1: tensor<i32>, %arg2: tensor<i32>):
      %48 = stablehlo.add %arg1, %arg2 : tensor<i32>
      stablehlo.return %48 : tensor<i32>
    }) : (tensor<9xi32>, tensor<11x1xi32>, tensor<11xi32>) -> tensor<9xi32>
    %39 = call @cumsum_5(%38) : (tensor<9xi32>) -> tensor<9xi32>
    %c_14 = stablehlo.constant dense<1> : tensor<i32>
    %40 = call @floor_divide_7(%39, %c_14) : (tensor<9xi32>, tensor<i32>) -> tensor<9xi32>
    %c_15 = stablehlo.constant dense<11> : tensor<i32>
    %41 = call @remainder_9(%40, %c_15) : (tensor<9xi32>, tensor<i32>) -> tensor<9xi32>
    %42 = stablehlo.slice %41 [1:9] : (tensor<9xi32>) -> tensor<8xi32>
    %43 = stablehlo.slice %41 [1:9] : (tensor<9xi32>) -> tensor<8xi32>
    %c_16 = stablehlo.constant dense<11> : tensor<i32>
    %44 = call @_where_10(%42, %43, %c_16) : (tensor<8xi32>, tensor<8xi32>, tensor<i32>) -> tensor<8xi32>
    %c_17 = stablehlo.constant dense<1> : tensor<i32>
    %45 = stablehlo.broadcast_in_dim %c_17, dims = [] : (tensor<i32>) -> tensor<1xi32>
    %46 = "stablehlo.scatter"(%41, %45, %44) <{indices_are_sorted = true, scatter_dimension_numbers = #stablehlo.scatter<update_window_dims = [0], scatter_dims_to_operand_dims = [0]>, unique_indices = true}> ({
    ^bb0(%arg1: tensor<i32>, %arg2: tensor<i32>):
      stablehlo.return %arg2 : tensor<i32>
    }) : (tensor<9xi32>, tensor<1xi32>, tensor<8xi32>) -> tensor<9xi32>
    %47 = call @diff(%46) : (tensor<9xi32>) -> tensor<8xi32>
    return %27, %47 : tensor<8xf32>, tensor<8xi32>
  }
  func.func private @_unique_sorted_mask(%arg0: tensor<11xf32>) -> (tensor<11xf32>, tensor<11xi1>, tensor<11xi32>) {
    %0 = stablehlo.reshape %arg0 : (tensor<11xf32>) -> tensor<11x1xf32>
    %1 = stablehlo.transpose %0, dims = [1, 0] : (tensor<11x1xf32>) -> tensor<1x11xf32>
    %2 = stablehlo.reverse %1, dims = [0] : tensor<1x11xf32>
    %3 = call @lexsort(%2) : (tensor<1x11xf32>) -> tensor<11xi32>
    %c = stablehlo.constant dense<0> : tensor<i32>
    %4 = stablehlo.broadcast_in_dim %c, dims = [] : (tensor<i32>) -> tensor<11xi32>
    %5 = stablehlo.compare LT, %3, %4, SIGNED : (tensor<11xi32>, tensor<11xi32>) -> tensor<11xi1>
    %c_0 = stablehlo.constant dense<11> : tensor<i32>
    %6 = stablehlo.broadcast_in_dim %c_0, dims = [] : (tensor<i32>) -> tensor<11xi32>
    %7 = stablehlo.add %3, %6 : tensor<11xi32>
    %8 = stablehlo.select %5, %7, %3 : tensor<11xi1>, tensor<11xi32>
    %9 = stablehlo.broadcast_in_dim %8, dims = [0] : (tensor<11xi32>) -> tensor<11x1xi32>
    %10 = "stablehlo.gather"(%arg0, %9) <{dimension_numbers = #stablehlo.gather<collapsed_slice_dims = [0], start_index_map = [0], index_vector_dim = 1>, indices_are_sorted = false, slice_sizes = array<i64: 1>}> : (tensor<11xf32>, tensor<11x1xi32>) -> tensor<11xf32>
    %c_1 = stablehlo.constant dense<true> : tensor<i1>
    %11 = stablehlo.broadcast_in_dim %c_1, dims = [] : (tensor<i1>) -> tensor<11xi1>
    %12 = stablehlo.slice %10 [1:11] : (tensor<11xf32>) -> tensor<10xf32>
    %13 = stablehlo.slice %10 [0:10] : (tensor<11xf32>) -> tensor<10xf32>
    %14 = stablehlo.compare NE, %12, %13, FLOAT : (tensor<10xf32>, tensor<10xf32>) -> tensor<10xi1>
    %15 = stablehlo.compare NE, %12, %12, FLOAT : (tensor<10xf32>, tensor<10xf32>) -> tensor<10xi1>
    %16 = stablehlo.compare NE, %13, %13, FLOAT : (tensor<10xf32>, tensor<10xf32>) -> tensor<10xi1>
    %17 = stablehlo.and %15, %16 : tensor<10xi1>
    %18 = stablehlo.not %17 : tensor<10xi1>
    %19 = stablehlo.and %14, %18 : tensor<10xi1>
    %c_2 = stablehlo.constant dense<false> : tensor<i1>
    %20 = stablehlo.reduce(%19 init: %c_2) applies stablehlo.or across dimensions = [] : (tensor<10xi1>, tensor<i1>) -> tensor<10xi1>
    %c_3 = stablehlo.constant dense<1> : tensor<i32>
    %21 = stablehlo.broadcast_in_dim %c_3, dims = [] : (tensor<i32>) -> tensor<1xi32>
    %22 = "stablehlo.scatter"(%11, %21, %20) <{indices_are_sorted = true, scatter_dimension_numbers = #stablehlo.scatter<update_window_dims = [0], scatter_dims_to_operand_dims = [0]>, unique_indices = true}> ({
    ^bb0(%arg1: tensor<i1>, %arg2: tensor<i1>):
      stablehlo.return %arg2 : tensor<i1>
    }) : (tensor<11xi1>, tensor<1xi32>, tensor<10xi1>) -> tensor<11xi1>
    return %10, %22, %3 : tensor<11xf32>, tensor<11xi1>, tensor<11xi32>
  }
  func.func private @lexsort(%arg0: tensor<1x11xf32>) -> tensor<11xi32> {
    %0 = stablehlo.slice %arg0 [0:1, 0:11] : (tensor<1x11xf32>) -> tensor<1x11xf32>
    %1 = stablehlo.reshape %0 : (tensor<1x11xf32>) -> tensor<11xf32>
    %2 = stablehlo.iota dim = 0 : tensor<11xi32>
    %3:2 = "stablehlo.sort"(%1, %2) <{dimension = 0 : i64, is_stable = true}> ({
    ^bb0(%arg1: tensor<f32>, %arg2: tensor<f32>, %arg3: tensor<i32>, %arg4: tensor<i32>):
      %cst = stablehlo.constant dense<0.000000e+00> : tensor<f32>
      %4 = stablehlo.compare EQ, %arg1, %cst, FLOAT : (tensor<f32>, tensor<f32>) -> tensor<i1>
      %cst_0 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
      %5 = stablehlo.select %4, %cst_0, %arg1 : tensor<i1>, tensor<f32>
      %6 = stablehlo.compare NE, %arg1, %arg1, FLOAT : (tensor<f32>, tensor<f32>) -> tensor<i1>
      %cst_1 = stablehlo.constant dense<0x7FC00000> : tensor<f32>
      %7 = stablehlo.select %6, %cst_1, %5 : tensor<i1>, tensor<f32>
      %cst_2 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
      %8 = stablehlo.compare EQ, %arg2, %cst_2, FLOAT : (tensor<f32>, tensor<f32>) -> tensor<i1>
      %cst_3 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
      %9 = stablehlo.select %8, %cst_3, %arg2 : tensor<i1>, tensor<f32>
      %10 = stablehlo.compare NE, %arg2, %arg2, FLOAT : (tensor<f32>, tensor<f32>) -> tensor<i1>
      %cst_4 = stablehlo.constant dense<0x7FC00000> : tensor<f32>
      %11 = stablehlo.select %10, %cst_4, %9 : tensor<i1>, tensor<f32>
      %12 = stablehlo.compare LT, %7, %11, TOTALORDER : (tensor<f32>, tensor<f32>) -> tensor<i1>
      stablehlo.return %12 : tensor<i1>
    }) : (tensor<11xf32>, tensor<11xi32>) -> (tensor<11xf32>, tensor<11xi32>)
    return %3#1 : tensor<11xi32>
  }
  func.func private @cumsum(%arg0: tensor<11xi1>) -> tensor<11xi32> {
    %0 = stablehlo.convert %arg0 : (tensor<11xi1>) -> tensor<11xi32>
    %1 = call @cumsum_0(%0) : (tensor<11xi32>) -> tensor<11xi32>
    return %1 : tensor<11xi32>
  }
  func.func private @cumsum_0(%arg0: tensor<11xi32>) -> tensor<11xi32> {
    %c = stablehlo.constant dense<0> : tensor<i32>
    %0 = stablehlo.broadcast_in_dim %c, dims = [] : (tensor<i32>) -> tensor<i32>
    %1 = "stablehlo.reduce_window"(%arg0, %0) <{base_dilations = array<i64: 1>, padding = dense<[[10, 0]]> : tensor<1x2xi64>, window_dilations = array<i64: 1>, window_dimensions = array<i64: 11>, window_strides = array<i64: 1>}> ({
    ^bb0(%arg1: tensor<i32>, %arg2: tensor<i32>):
      %2 = stablehlo.add %arg1, %arg2 : tensor<i32>
      stablehlo.return %2 : tensor<i32>
    }) : (tensor<11xi32>, tensor<i32>) -> tensor<11xi32>
    return %1 : tensor<11xi32>
  }
  func.func private @clip(%arg0: tensor<11xi32>, %arg1: tensor<i32>) -> tensor<11xi32> {
    %0 = stablehlo.convert %arg1 : tensor<i32>
    %1 = stablehlo.broadcast_in_dim %0, dims = [] : (tensor<i32>) -> tensor<11xi32>
    %2 = stablehlo.maximum %1, %arg0 : tensor<11xi32>
    return %2 : tensor<11xi32>
  }
  func.func private @cumsum_1(%arg0: tensor<8xi32>) -> tensor<8xi32> {
    %0 = call @cumsum_2(%arg0) : (tensor<8xi32>) -> tensor<8xi32>
    return %0 : tensor<8xi32>
  }
  func.func private @cumsum_2(%arg0: tensor<8xi32>) -> tensor<8xi32> {
    %c = stablehlo.constant dense<0> : tensor<i32>
    %0 = stablehlo.broadcast_in_dim %c, dims = [] : (tensor<i32>) -> tensor<i32>
    %1 = "stablehlo.reduce_window"(%arg0, %0) <{base_dilations = array<i64: 1>, padding = dense<[[7, 0]]> : tensor<1x2xi64>, window_dilations = array<i64: 1>, window_dimensions = array<i64: 8>, window_strides = array<i64: 1>}> ({
    ^bb0(%arg1: tensor<i32>, %arg2: tensor<i32>):
      %2 = stablehlo.add %arg1, %arg2 : tensor<i32>
      stablehlo.return %2 : tensor<i32>
    }) : (tensor<8xi32>, tensor<i32>) -> tensor<8xi32>
    return %1 : tensor<8xi32>
  }
  func.func private @floor_divide(%arg0: tensor<8xi32>, %arg1: tensor<i32>) -> tensor<8xi32> {
    %0 = stablehlo.broadcast_in_dim %arg1, dims = [] : (tensor<i32>) -> tensor<8xi32>
    %1 = stablehlo.divide %arg0, %0 : tensor<8xi32>
    %2 = stablehlo.sign %arg0 : tensor<8xi32>
    %3 = stablehlo.sign %arg1 : tensor<i32>
    %4 = stablehlo.broadcast_in_dim %3, dims = [] : (tensor<i32>) -> tensor<8xi32>
    %5 = stablehlo.compare NE, %2, %4, SIGNED : (tensor<8xi32>, tensor<8xi32>) -> tensor<8xi1>
    %6 = stablehlo.broadcast_in_dim %arg1, dims = [] : (tensor<i32>) -> tensor<8xi32>
    %7 = stablehlo.remainder %arg0, %6 : tensor<8xi32>
    %c = stablehlo.constant dense<0> : tensor<i32>
    %8 = stablehlo.broadcast_in_dim %c, dims = [] : (tensor<i32>) -> tensor<8xi32>
    %9 = stablehlo.compare NE, %7, %8, SIGNED : (tensor<8xi32>, tensor<8xi32>) -> tensor<8xi1>
    %10 = stablehlo.and %5, %9 : tensor<8xi1>
    %c_0 = stablehlo.constant dense<1> : tensor<i32>
    %11 = stablehlo.broadcast_in_dim %c_0, dims = [] : (tensor<i32>) -> tensor<8xi32>
    %12 = stablehlo.subtract %1, %11 : tensor<8xi32>
    %13 = call @_where(%10, %12, %1) : (tensor<8xi1>, tensor<8xi32>, tensor<8xi32>) -> tensor<8xi32>
    return %13 : tensor<8xi32>
  }
  func.func private @_where(%arg0: tensor<8xi1>, %arg1: tensor<8xi32>, %arg2: tensor<8xi32>) -> tensor<8xi32> {
    %0 = stablehlo.select %arg0, %arg1, %arg2 : tensor<8xi1>, tensor<8xi32>
    return %0 : tensor<8xi32>
  }
  func.func private @remainder(%arg0: tensor<8xi32>, %arg1: tensor<i32>) -> tensor<8xi32> {
    %0 = stablehlo.convert %arg1 : tensor<i32>
    %c = stablehlo.constant dense<0> : tensor<i32>
    %1 = stablehlo.compare EQ, %0, %c, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
    %c_0 = stablehlo.constant dense<1> : tensor<i32>
    %2 = call @_where_3(%1, %c_0, %0) : (tensor<i1>, tensor<i32>, tensor<i32>) -> tensor<i32>
    %3 = stablehlo.broadcast_in_dim %2, dims = [] : (tensor<i32>) -> tensor<8xi32>
    %4 = stablehlo.remainder %arg0, %3 : tensor<8xi32>
    %c_1 = stablehlo.constant dense<0> : tensor<i32>
    %5 = stablehlo.broadcast_in_dim %c_1, dims = [] : (tensor<i32>) -> tensor<8xi32>
    %6 = stablehlo.compare NE, %4, %5, SIGNED : (tensor<8xi32>, tensor<8xi32>) -> tensor<8xi1>
    %c_2 = stablehlo.constant dense<0> : tensor<i32>
    %7 = stablehlo.broadcast_in_dim %c_2, dims = [] : (tensor<i32>) -> tensor<8xi32>
    %8 = stablehlo.compare LT, %4, %7, SIGNED : (tensor<8xi32>, tensor<8xi32>) -> tensor<8xi1>
    %c_3 = stablehlo.constant dense<0> : tensor<i32>
    %9 = stablehlo.compare LT, %2, %c_3, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
    %10 = stablehlo.broadcast_in_dim %9, dims = [] : (tensor<i1>) -> tensor<8xi1>
    %11 = stablehlo.compare NE, %8, %10, UNSIGNED : (tensor<8xi1>, tensor<8xi1>) -> tensor<8xi1>
    %12 = stablehlo.and %11, %6 : tensor<8xi1>
    %13 = stablehlo.broadcast_in_dim %2, dims = [] : (tensor<i32>) -> tensor<8xi32>
    %14 = stablehlo.add %4, %13 : tensor<8xi32>
    %15 = stablehlo.select %12, %14, %4 : tensor<8xi1>, tensor<8xi32>
    return %15 : tensor<8xi32>
  }
  func.func private @_where_3(%arg0: tensor<i1>, %arg1: tensor<i32>, %arg2: tensor<i32>) -> tensor<i32> {
    %0 = stablehlo.select %arg0, %arg1, %arg2 : tensor<i1>, tensor<i32>
    return %0 : tensor<i32>
  }
  func.func private @_where_4(%arg0: tensor<8xi1>, %arg1: tensor<8xf32>, %arg2: tensor<f32>) -> tensor<8xf32> {
    %0 = stablehlo.broadcast_in_dim %arg2, dims = [] : (tensor<f32>) -> tensor<8xf32>
    %1 = stablehlo.select %arg0, %arg1, %0 : tensor<8xi1>, tensor<8xf32>
    return %1 : tensor<8xf32>
  }
  func.func private @cumsum_5(%arg0: tensor<9xi32>) -> tensor<9xi32> {
    %0 = call @cumsum_6(%arg0) : (tensor<9xi32>) -> tensor<9xi32>
    return %0 : tensor<9xi32>
  }
  func.func private @cumsum_6(%arg0: tensor<9xi32>) -> tensor<9xi32> {
    %c = stablehlo.constant dense<0> : tensor<i32>
    %0 = stablehlo.broadcast_in_dim %c, dims = [] : (tensor<i32>) -> tensor<i32>
    %1 = "stablehlo.reduce_window"(%arg0, %0) <{base_dilations = array<i64: 1>, padding = dense<[[8, 0]]> : tensor<1x2xi64>, window_dilations = array<i64: 1>, window_dimensions = array<i64: 9>, window_strides = array<i64: 1>}> ({
    ^bb0(%arg1: tensor<i32>, %arg2: tensor<i32>):
      %2 = stablehlo.add %arg1, %arg2 : tensor<i32>
      stablehlo.return %2 : tensor<i32>
    }) : (tensor<9xi32>, tensor<i32>) -> tensor<9xi32>
    return %1 : tensor<9xi32>
  }
  func.func private @floor_divide_7(%arg0: tensor<9xi32>, %arg1: tensor<i32>) -> tensor<9xi32> {
    %0 = stablehlo.broadcast_in_dim %arg1, dims = [] : (tensor<i32>) -> tensor<9xi32>
    %1 = stablehlo.divide %arg0, %0 : tensor<9xi32>
    %2 = stablehlo.sign %arg0 : tensor<9xi32>
    %3 = stablehlo.sign %arg1 : tensor<i32>
    %4 = stablehlo.broadcast_in_dim %3, dims = [] : (tensor<i32>) -> tensor<9xi32>
    %5 = stablehlo.compare NE, %2, %4, SIGNED : (tensor<9xi32>, tensor<9xi32>) -> tensor<9xi1>
    %6 = stablehlo.broadcast_in_dim %arg1, dims = [] : (tensor<i32>) -> tensor<9xi32>
    %7 = stablehlo.remainder %arg0, %6 : tensor<9xi32>
    %c = stablehlo.constant dense<0> : tensor<i32>
    %8 = stablehlo.broadcast_in_dim %c, dims = [] : (tensor<i32>) -> tensor<9xi32>
    %9 = stablehlo.compare NE, %7, %8, SIGNED : (tensor<9xi32>, tensor<9xi32>) -> tensor<9xi1>
    %10 = stablehlo.and %5, %9 : tensor<9xi1>
    %c_0 = stablehlo.constant dense<1> : tensor<i32>
    %11 = stablehlo.broadcast_in_dim %c_0, dims = [] : (tensor<i32>) -> tensor<9xi32>
    %12 = stablehlo.subtract %1, %11 : tensor<9xi32>
    %13 = call @_where_8(%10, %12, %1) : (tensor<9xi1>, tensor<9xi32>, tensor<9xi32>) -> tensor<9xi32>
    return %13 : tensor<9xi32>
  }
  func.func private @_where_8(%arg0: tensor<9xi1>, %arg1: tensor<9xi32>, %arg2: tensor<9xi32>) -> tensor<9xi32> {
    %0 = stablehlo.select %arg0, %arg1, %arg2 : tensor<9xi1>, tensor<9xi32>
    return %0 : tensor<9xi32>
  }
  func.func private @remainder_9(%arg0: tensor<9xi32>, %arg1: tensor<i32>) -> tensor<9xi32> {
    %0 = stablehlo.convert %arg1 : tensor<i32>
    %c = stablehlo.constant dense<0> : tensor<i32>
    %1 = stablehlo.compare EQ, %0, %c, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
    %c_0 = stablehlo.constant dense<1> : tensor<i32>
    %2 = call @_where_3(%1, %c_0, %0) : (tensor<i1>, tensor<i32>, tensor<i32>) -> tensor<i32>
    %3 = stablehlo.broadcast_in_dim %2, dims = [] : (tensor<i32>) -> tensor<9xi32>
    %4 = stablehlo.remainder %arg0, %3 : tensor<9xi32>
    %c_1 = stablehlo.constant dense<0> : tensor<i32>
    %5 = stablehlo.broadcast_in_dim %c_1, dims = [] : (tensor<i32>) -> tensor<9xi32>
    %6 = stablehlo.compare NE, %4, %5, SIGNED : (tensor<9xi32>, tensor<9xi32>) -> tensor<9xi1>
    %c_2 = stablehlo.constant dense<0> : tensor<i32>
    %7 = stablehlo.broadcast_in_dim %c_2, dims = [] : (tensor<i32>) -> tensor<9xi32>
    %8 = stablehlo.compare LT, %4, %7, SIGNED : (tensor<9xi32>, tensor<9xi32>) -> tensor<9xi1>
    %c_3 = stablehlo.constant dense<0> : tensor<i32>
    %9 = stablehlo.compare LT, %2, %c_3, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
    %10 = stablehlo.broadcast_in_dim %9, dims = [] : (tensor<i1>) -> tensor<9xi1>
    %11 = stablehlo.compare NE, %8, %10, UNSIGNED : (tensor<9xi1>, tensor<9xi1>) -> tensor<9xi1>
    %12 = stablehlo.and %11, %6 : tensor<9xi1>
    %13 = stablehlo.broadcast_in_dim %2, dims = [] : (tensor<i32>) -> tensor<9xi32>
    %14 = stablehlo.add %4, %13 : tensor<9xi32>
    %15 = stablehlo.select %12, %14, %4 : tensor<9xi1>, tensor<9xi32>
    return %15 : tensor<9xi32>
  }
  func.func private @_where_10(%arg0: tensor<8xi32>, %arg1: tensor<8xi32>, %arg2: tensor<i32>) -> tensor<8xi32> {
    %c = stablehlo.constant dense<0> : tensor<i32>
    %0 = stablehlo.broadcast_in_dim %c, dims = [] : (tensor<i32>) -> tensor<8xi32>
    %1 = stablehlo.compare NE, %arg0, %0, SIGNED : (tensor<8xi32>, tensor<8xi32>) -> tensor<8xi1>
    %2 = stablehlo.convert %arg2 : tensor<i32>
    %3 = stablehlo.broadcast_in_dim %2, dims = [] : (tensor<i32>) -> tensor<8xi32>
    %4 = stablehlo.select %1, %arg1, %3 : tensor<8xi1>, tensor<8xi32>
    return %4 : tensor<8xi32>
  }
  func.func private @diff(%arg0: tensor<9xi32>) -> tensor<8xi32> {
    %0 = stablehlo.slice %arg0 [1:9] : (tensor<9xi32>) -> tensor<8xi32>
    %1 = stablehlo.slice %arg0 [0:8] : (tensor<9xi32>) -> tensor<8xi32>
    %2 = stablehlo.subtract %0, %1 : tensor<8xi32>
    return %2 : tensor<8xi32>
  }
}
