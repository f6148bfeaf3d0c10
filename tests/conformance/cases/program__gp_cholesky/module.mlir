module @jit__gp attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<8xf32>, %arg1: tensor<8xf32>, %arg2: tensor<5xf32>) -> (tensor<5xf32> {jax.result_info = "result[0]"}, tensor<f32> {jax.result_info = "result[1]"}) {
    %0 = stablehlo.broadcast_in_dim %arg0, dims = [0] : (tensor<8xf32>) -> tensor<8x1xf32>
    %1 = stablehlo.broadcast_in_dim %arg0, dims = [1] : (tensor<8xf32>) -> tensor<1x8xf32>
    %2 = stablehlo.broadcast_in_dim %0, dims = [0, 1] : (tensor<8x1xf32>) -> tensor<8x8xf32>
    %3 = stablehlo.broadcast_in_dim %1, dims = [0, 1] : (tensor<1x8xf32>) -> tensor<8x8xf32>
    %4 = stablehlo.subtract %2, %3 : tensor<8x8xf32>
    %5 = stablehlo.multiply %4, %4 : tensor<8x8xf32>
    %cst = stablehlo.constant dense<-5.000000e-01> : tensor<f32>
    %6 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f32>) -> tensor<8x8xf32>
    %7 = stablehlo.multiply %6, %5 : tensor<8x8xf32>
    %8 = stablehlo.exponential %7 : tensor<8x8xf32>
    %9 = stablehlo.iota dim = 0 : tensor<8x8xi32>
    %10 = stablehlo.iota dim = 1 : tensor<8x8xi32>
    %c = stablehlo.constant dense<0> : tensor<i32>
    %11 = stablehlo.broadcast_in_dim %c, dims = [] : (tensor<i32>) -> tensor<8x8xi32>
    %12 = stablehlo.add %9, %11 : tensor<8x8xi32>
    %13 = stablehlo.compare EQ, %12, %10, SIGNED : (tensor<8x8xi32>, tensor<8x8xi32>) -> tensor<8x8xi1>
    %14 = stablehlo.convert %13 : (tensor<8x8xi1>) -> tensor<8x8xf32>
    %cst_0 = stablehlo.constant dense<1.000000e-01> : tensor<f32>
    %15 = stablehlo.broadcast_in_dim %cst_0, dims = [] : (tensor<f32>) -> tensor<8x8xf32>
    %16 = stablehlo.multiply %15, %14 : tensor<8x8xf32>
    %17 = stablehlo.add %8, %16 : tensor<8x8xf32>
    %18 = call @cholesky(%17) : (tensor<8x8xf32>) -> tensor<8x8xf32>
    %19 = call @_cho_solve(%18, %arg1) : (tensor<8x8xf32>, tensor<8xf32>) -> tensor<8xf32>
    %20 = stablehlo.broadcast_in_dim %arg2, dims = [0] : (tensor<5xf32>) -> tensor<5x1xf32>
    %21 = stablehlo.broadcast_in_dim %arg0, dims = [1] : (tensor<8xf32>) -> tensor<1x8xf32>
    %22 = stablehlo.broadcast_in_dim %20, dims = [0, 1] : (tensor<5x1xf32>) -> tensor<5x8xf32>
    %23 = stablehlo.broadcast_in_dim %21, dims = [0, 1] : (tensor<1x8xf32>) -> tensor<5x8xf32>
    %24 = stablehlo.subtract %22, %23 : tensor<5x8xf32>
    %25 = stablehlo.multiply %24, %24 : tensor<5x8xf32>
    %cst_1 = stablehlo.constant dense<-5.000000e-01> : tensor<f32>
    %26 = stablehlo.broadcast_in_dim %cst_1, dims = [] : (tensor<f32>) -> tensor<5x8xf32>
    %27 = stablehlo.multiply %26, %25 : tensor<5x8xf32>
    %28 = stablehlo.exponential %27 : tensor<5x8xf32>
    %cst_2 = stablehlo.constant dense<-5.000000e-01> : tensor<f32>
    %29 = stablehlo.broadcast_in_dim %cst_2, dims = [] : (tensor<f32>) -> tensor<8xf32>
    %30 = stablehlo.multiply %29, %arg1 : tensor<8xf32>
    %31 = stablehlo.dot_general %30, %19, contracting_dims = [0] x [0], precision = [DEFAULT, DEFAULT] : (tensor<8xf32>, tensor<8xf32>) -> tensor<f32>
    %32 = call @_diag(%18) : (tensor<8x8xf32>) -> tensor<8xf32>
    %33 = stablehlo.log %32 : tensor<8xf32>
    %cst_3 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %34 = stablehlo.reduce(%33 init: %cst_3) applies stablehlo.add across dimensions = [0] : (tensor<8xf32>, tensor<f32>) -> tensor<f32>
    %35 = stablehlo.subtract %31, %34 : tensor<f32>
    %cst_4 = stablehlo.constant dense<7.35150814> : tensor<f32>
    %36 = stablehlo.subtract %35, %cst_4 : tensor<f32>
    %37 = stablehlo.dot_general %28, %19, contracting_dims = [1] x [0], precision = [DEFAULT, DEFAULT] : (tensor<5x8xf32>, tensor<8xf32>) -> tensor<5xf32>
    return %37, %36 : tensor<5xf32>, tensor<f32>
  }
  func.func private @cholesky(%arg0: tensor<8x8xf32>) -> tensor<8x8xf32> {
    %0 = stablehlo.transpose %arg0, dims = [1, 0] : (tensor<8x8xf32>) -> tensor<8x8xf32>
    %1 = stablehlo.add %arg0, %0 : tensor<8x8xf32>
    %cst = stablehlo.constant dense<2.000000e+00> : tensor<f32>
    %2 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f32>) -> tensor<8x8xf32>
    %3 = stablehlo.divide %1, %2 : tensor<8x8xf32>
    %4:2 = stablehlo.custom_call @lapack_spotrf_ffi(%3) {backend_config = "", mhlo.backend_config = {uplo = 76 : ui8}, mhlo.frontend_attributes = {num_batch_dims = "0"}, operand_layouts = [dense<[0, 1]> : tensor<2xindex>], output_operand_aliases = [#stablehlo.output_operand_alias<output_tuple_indices = [0], operand_index = 0, operand_tuple_indices = []>], result_layouts = [dense<[0, 1]> : tensor<2xindex>, dense<> : tensor<0xindex>], sdy.sharding_rule = #sdy.op_sharding_rule<([i, j])->([k, l], []) {i=8, j=8, k=8, l=8}, custom>} : (tensor<8x8xf32>) -> (tensor<8x8xf32>, tensor<i32>)
    %c = stablehlo.constant dense<0> : tensor<i32>
    %5 = stablehlo.broadcast_in_dim %c, dims = [] : (tensor<i32>) -> tensor<i32>
    %6 = stablehlo.compare EQ, %4#1, %5, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
    %7 = stablehlo.broadcast_in_dim %6, dims = [] : (tensor<i1>) -> tensor<1x1xi1>
    %cst_0 = stablehlo.constant dense<0x7FC00000> : tensor<f32>
    %8 = stablehlo.broadcast_in_dim %cst_0, dims = [] : (tensor<f32>) -> tensor<8x8xf32>
    %9 = stablehlo.broadcast_in_dim %7, dims = [0, 1] : (tensor<1x1xi1>) -> tensor<8x8xi1>
    %10 = stablehlo.select %9, %4#0, %8 : tensor<8x8xi1>, tensor<8x8xf32>
    %11 = stablehlo.iota dim = 0 : tensor<8x8xi32>
    %c_1 = stablehlo.constant dense<0> : tensor<i32>
    %12 = stablehlo.broadcast_in_dim %c_1, dims = [] : (tensor<i32>) -> tensor<8x8xi32>
    %13 = stablehlo.add %11, %12 : tensor<8x8xi32>
    %14 = stablehlo.iota dim = 1 : tensor<8x8xi32>
    %15 = stablehlo.compare GE, %13, %14, SIGNED : (tensor<8x8xi32>, tensor<8x8xi32>) -> tensor<8x8xi1>
    %cst_2 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %16 = stablehlo.broadcast_in_dim %cst_2, dims = [] : (tensor<f32>) -> tensor<8x8xf32>
    %17 = stablehlo.select %15, %10, %16 : tensor<8x8xi1>, tensor<8x8xf32>
    return %17 : tensor<8x8xf32>
  }
  func.func private @_cho_solve(%arg0: tensor<8x8xf32>, %arg1: tensor<8xf32>) -> tensor<8xf32> {
    %0 = stablehlo.broadcast_in_dim %arg1, dims = [0] : (tensor<8xf32>) -> tensor<8x1xf32>
    %1 = stablehlo.custom_call @lapack_strsm_ffi(%arg0, %0) {backend_config = "", mhlo.backend_config = {diag = 78 : ui8, side = 76 : ui8, trans_x = 78 : ui8, uplo = 76 : ui8}, mhlo.frontend_attributes = {num_batch_dims = "0"}, operand_layouts = [dense<[0, 1]> : tensor<2xindex>, dense<[0, 1]> : tensor<2xindex>], output_operand_aliases = [#stablehlo.output_operand_alias<output_tuple_indices = [], operand_index = 1, operand_tuple_indices = []>], result_layouts = [dense<[0, 1]> : tensor<2xindex>], sdy.sharding_rule = #sdy.op_sharding_rule<([i, j], [k, l])->([m, n]) {i=8, j=8, k=8, l=1, m=8, n=1}, custom>} : (tensor<8x8xf32>, tensor<8x1xf32>) -> tensor<8x1xf32>
    %2 = stablehlo.reshape %1 : (tensor<8x1xf32>) -> tensor<8xf32>
    %3 = stablehlo.broadcast_in_dim %2, dims = [0] : (tensor<8xf32>) -> tensor<8x1xf32>
    %4 = stablehlo.custom_call @lapack_strsm_ffi(%arg0, %3) {backend_config = "", mhlo.backend_config = {diag = 78 : ui8, side = 76 : ui8, trans_x = 84 : ui8, uplo = 76 : ui8}, mhlo.frontend_attributes = {num_batch_dims = "0"}, operand_layouts = [dense<[0, 1]> : tensor<2xindex>, dense<[0, 1]> : tensor<2xindex>], output_operand_aliases = [#stablehlo.output_operand_alias<output_tuple_indices = [], operand_index = 1, operand_tuple_indices = []>], result_layouts = [dense<[0, 1]> : tensor<2xindex>], sdy.sharding_rule = #sdy.op_sharding_rule<([i, j], [k, l])->([m, n]) {i=8, j=8, k=8, l=1, m=8, n=1}, custom>} : (tensor<8x8xf32>, tensor<8x1xf32>) -> tensor<8x1xf32>
    %5 = stablehlo.reshape %4 : (tensor<8x1xf32>) -> tensor<8xf32>
    return %5 : tensor<8xf32>
  }
  func.func private @_diag(%arg0: tensor<8x8xf32>) -> tensor<8xf32> {
    %0 = call @diagonal(%arg0) : (tensor<8x8xf32>) -> tensor<8xf32>
    return %0 : tensor<8xf32>
  }
  func.func private @diagonal(%arg0: tensor<8x8xf32>) -> tensor<8xf32> {
    %0 = stablehlo.iota dim = 0 : tensor<8x8xi32>
    %1 = stablehlo.iota dim = 1 : tensor<8x8xi32>
    %c = stablehlo.constant dense<0> : tensor<i32>
    %2 = stablehlo.broadcast_in_dim %c, dims = [] : (tensor<i32>) -> tensor<8x8xi32>
    %3 = stablehlo.add %0, %2 : tensor<8x8xi32>
    %4 = stablehlo.compare EQ, %3, %1, SIGNED : (tensor<8x8xi32>, tensor<8x8xi32>) -> tensor<8x8xi1>
    %5 = stablehlo.convert %4 : (tensor<8x8xi1>) -> tensor<8x8xf32>
    %c_0 = stablehlo.constant dense<1> : tensor<i32>
    %6 = "stablehlo.case"(%c_0) ({
      %c_1 = stablehlo.constant dense<0> : tensor<i32>
      stablehlo.return %c_1 : tensor<i32>
    }, {
      %c_1 = stablehlo.constant dense<0> : tensor<i32>
      stablehlo.return %c_1 : tensor<i32>
    }) : (tensor<i32>) -> tensor<i32>
    %7 = "stablehlo.case"(%6) ({
      %8 = stablehlo.iota dim = 0 : tensor<8xi32>
      %9 = stablehlo.iota dim = 0 : tensor<8xi32>
      %c_1 = stablehlo.constant dense<0> : tensor<i32>
      %10 = stablehlo.broadcast_in_dim %c_1, dims = [] : (tensor<i32>) -> tensor<8xi32>
      %11 = stablehlo.compare LT, %8, %10, SIGNED : (tensor<8xi32>, tensor<8xi32>) -> tensor<8xi1>
      %c_2 = stablehlo.constant dense<8> : tensor<i32>
      %12 = stablehlo.broadcast_in_dim %c_2, dims = [] : (tensor<i32>) -> tensor<8xi32>
      %13 = stablehlo.add %8, %12 : tensor<8xi32>
      %14 = stablehlo.select %11, %13, %8 : tensor<8xi1>, tensor<8xi32>
      %c_3 = stablehlo.constant dense<0> : tensor<i32>
      %15 = stablehlo.broadcast_in_dim %c_3, dims = [] : (tensor<i32>) -> tensor<8xi32>
      %16 = stablehlo.compare LT, %9, %15, SIGNED : (tensor<8xi32>, tensor<8xi32>) -> tensor<8xi1>
      %c_4 = stablehlo.constant dense<8> : tensor<i32>
      %17 = stablehlo.broadcast_in_dim %c_4, dims = [] : (tensor<i32>) -> tensor<8xi32>
      %18 = stablehlo.add %9, %17 : tensor<8xi32>
      %19 = stablehlo.select %16, %18, %9 : tensor<8xi1>, tensor<8xi32>
      %20 = stablehlo.broadcast_in_dim %14, dims = [0] : (tensor<8xi32>) -> tensor<8x1xi32>
      %21 = stablehlo.broadcast_in_dim %19, dims = [0] : (tensor<8xi32>) -> tensor<8x1xi32>
      %22 = stablehlo.concatenate %20, %21, dim = 1 : (tensor<8x1xi32>, tensor<8x1xi32>) -> tensor<8x2xi32>
      %23 = "stablehlo.gather"(%arg0, %22) <{dimension_numbers = #stablehlo.gather<collapsed_slice_dims = [0, 1], start_index_map = [0, 1], index_vector_dim = 1>, indices_are_sorted = false, slice_sizes = array<i64: 1, 1>}> : (tensor<8x8xf32>, tensor<8x2xi32>) -> tensor<8xf32>
      stablehlo.return %23 : tensor<8xf32>
    }) : (tensor<i32>) -> tensor<8xf32>
    return %7 : tensor<8xf32>
  }
}
