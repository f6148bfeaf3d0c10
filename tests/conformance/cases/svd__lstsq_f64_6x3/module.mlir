module @jit__lambda attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<6x3xf64>, %arg1: tensor<6x2xf64>) -> (tensor<3x2xf64> {jax.result_info = "result"}) {
    %0:4 = call @_lstsq(%arg0, %arg1) : (tensor<6x3xf64>, tensor<6x2xf64>) -> (tensor<3x2xf64>, tensor<2xf64>, tensor<i64>, tensor<3xf64>)
    return %0#0 : tensor<3x2xf64>
  }
  func.func private @_lstsq(%arg0: tensor<6x3xf64>, %arg1: tensor<6x2xf64>) -> (tensor<3x2xf64>, tensor<2xf64>, tensor<i64>, tensor<3xf64>) {
    %0:3 = call @svd(%arg0) : (tensor<6x3xf64>) -> (tensor<6x3xf64>, tensor<3xf64>, tensor<3x3xf64>)
    %cst = stablehlo.constant dense<0.000000e+00> : tensor<f64>
    %1 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f64>) -> tensor<3xf64>
    %2 = stablehlo.compare GT, %0#1, %1, FLOAT : (tensor<3xf64>, tensor<3xf64>) -> tensor<3xi1>
    %3 = stablehlo.slice %0#1 [0:1] : (tensor<3xf64>) -> tensor<1xf64>
    %4 = stablehlo.reshape %3 : (tensor<1xf64>) -> tensor<f64>
    %cst_0 = stablehlo.constant dense<1.3322676295501878E-15> : tensor<f64>
    %5 = stablehlo.multiply %cst_0, %4 : tensor<f64>
    %6 = stablehlo.broadcast_in_dim %5, dims = [] : (tensor<f64>) -> tensor<3xf64>
    %7 = stablehlo.compare GE, %0#1, %6, FLOAT : (tensor<3xf64>, tensor<3xf64>) -> tensor<3xi1>
    %8 = stablehlo.and %2, %7 : tensor<3xi1>
    %9 = stablehlo.convert %8 : (tensor<3xi1>) -> tensor<3xi32>
    %10 = stablehlo.convert %9 : (tensor<3xi32>) -> tensor<3xi64>
    %c = stablehlo.constant dense<0> : tensor<i64>
    %11 = stablehlo.reduce(%10 init: %c) applies stablehlo.add across dimensions = [0] : (tensor<3xi64>, tensor<i64>) -> tensor<i64>
    %c_1 = stablehlo.constant dense<1> : tensor<i64>
    %12 = call @_where(%8, %0#1, %c_1) : (tensor<3xi1>, tensor<3xf64>, tensor<i64>) -> tensor<3xf64>
    %cst_2 = stablehlo.constant dense<1.000000e+00> : tensor<f64>
    %13 = stablehlo.broadcast_in_dim %cst_2, dims = [] : (tensor<f64>) -> tensor<3xf64>
    %14 = stablehlo.divide %13, %12 : tensor<3xf64>
    %c_3 = stablehlo.constant dense<0> : tensor<i64>
    %15 = call @_where(%8, %14, %c_3) : (tensor<3xi1>, tensor<3xf64>, tensor<i64>) -> tensor<3xf64>
    %16 = stablehlo.broadcast_in_dim %15, dims = [0] : (tensor<3xf64>) -> tensor<3x1xf64>
    %17 = stablehlo.transpose %0#0, dims = [1, 0] : (tensor<6x3xf64>) -> tensor<3x6xf64>
    %18 = stablehlo.dot_general %17, %arg1, contracting_dims = [1] x [0], precision = [HIGHEST, HIGHEST] : (tensor<3x6xf64>, tensor<6x2xf64>) -> tensor<3x2xf64>
    %19 = stablehlo.transpose %0#2, dims = [1, 0] : (tensor<3x3xf64>) -> tensor<3x3xf64>
    %20 = stablehlo.broadcast_in_dim %16, dims = [0, 1] : (tensor<3x1xf64>) -> tensor<3x2xf64>
    %21 = stablehlo.multiply %20, %18 : tensor<3x2xf64>
    %22 = stablehlo.dot_general %19, %21, contracting_dims = [1] x [0], precision = [HIGHEST, HIGHEST] : (tensor<3x3xf64>, tensor<3x2xf64>) -> tensor<3x2xf64>
    %23 = stablehlo.dot_general %arg0, %22, contracting_dims = [1] x [0], precision = [HIGHEST, HIGHEST] : (tensor<6x3xf64>, tensor<3x2xf64>) -> tensor<6x2xf64>
    %24 = stablehlo.subtract %arg1, %23 : tensor<6x2xf64>
    %25 = call @norm(%24) : (tensor<6x2xf64>) -> tensor<2xf64>
    %26 = stablehlo.multiply %25, %25 : tensor<2xf64>
    return %22, %26, %11, %0#1 : tensor<3x2xf64>, tensor<2xf64>, tensor<i64>, tensor<3xf64>
  }
  func.func private @svd(%arg0: tensor<6x3xf64>) -> (tensor<6x3xf64>, tensor<3xf64>, tensor<3x3xf64>) {
    %0:5 = stablehlo.custom_call @lapack_dgesdd_ffi(%arg0) {backend_config = "", mhlo.backend_config = {mode = 83 : ui8}, mhlo.frontend_attributes = {num_batch_dims = "0"}, operand_layouts = [dense<[0, 1]> : tensor<2xindex>], output_operand_aliases = [#stablehlo.output_operand_alias<output_tuple_indices = [0], operand_index = 0, operand_tuple_indices = []>], result_layouts = [dense<[0, 1]> : tensor<2xindex>, dense<0> : tensor<1xindex>, dense<[0, 1]> : tensor<2xindex>, dense<[0, 1]> : tensor<2xindex>, dense<> : tensor<0xindex>], sdy.sharding_rule = #sdy.op_sharding_rule<([i, j])->([k, l], [m], [n, o], [p, q], []) {i=6, j=3, k=6, l=3, m=3, n=6, o=3, p=3, q=3}, custom>} : (tensor<6x3xf64>) -> (tensor<6x3xf64>, tensor<3xf64>, tensor<6x3xf64>, tensor<3x3xf64>, tensor<i32>)
    %c = stablehlo.constant dense<0> : tensor<i32>
    %1 = stablehlo.broadcast_in_dim %c, dims = [] : (tensor<i32>) -> tensor<i32>
    %2 = stablehlo.compare EQ, %0#4, %1, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
    %3 = stablehlo.broadcast_in_dim %2, dims = [] : (tensor<i1>) -> tensor<1xi1>
    %cst = stablehlo.constant dense<0x7FF8000000000000> : tensor<f64>
    %4 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f64>) -> tensor<3xf64>
    %5 = stablehlo.broadcast_in_dim %3, dims = [0] : (tensor<1xi1>) -> tensor<3xi1>
    %6 = stablehlo.select %5, %0#1, %4 : tensor<3xi1>, tensor<3xf64>
    %7 = stablehlo.broadcast_in_dim %2, dims = [] : (tensor<i1>) -> tensor<1x1xi1>
    %cst_0 = stablehlo.constant dense<0x7FF8000000000000> : tensor<f64>
    %8 = stablehlo.broadcast_in_dim %cst_0, dims = [] : (tensor<f64>) -> tensor<6x3xf64>
    %9 = stablehlo.broadcast_in_dim %7, dims = [0, 1] : (tensor<1x1xi1>) -> tensor<6x3xi1>
    %10 = stablehlo.select %9, %0#2, %8 : tensor<6x3xi1>, tensor<6x3xf64>
    %11 = stablehlo.broadcast_in_dim %2, dims = [] : (tensor<i1>) -> tensor<1x1xi1>
    %cst_1 = stablehlo.constant dense<0x7FF8000000000000> : tensor<f64>
    %12 = stablehlo.broadcast_in_dim %cst_1, dims = [] : (tensor<f64>) -> tensor<3x3xf64>
    %13 = stablehlo.broadcast_in_dim %11, dims = [0, 1] : (tensor<1x1xi1>) -> tensor<3x3xi1>
    %14 = stablehlo.select %13, %0#3, %12 : tensor<3x3xi1>, tensor<3x3xf64>
    return %10, %6, %14 : tensor<6x3xf64>, tensor<3xf64>, tensor<3x3xf64>
  }
  func.func private @_where(%arg0: tensor<3xi1>, %arg1: tensor<3xf64>, %arg2: tensor<i64>) -> tensor<3xf64> {
    %0 = stablehlo.convert %arg2 : (tensor<i64>) -> tensor<f64>
    %1 = stablehlo.broadcast_in_dim %0, dims = [] : (tensor<f64>) -> tensor<3xf64>
    %2 = stablehlo.select %arg0, %arg1, %1 : tensor<3xi1>, tensor<3xf64>
    return %2 : tensor<3xf64>
  }
  func.func private @norm(%arg0: tensor<6x2xf64>) -> tensor<2xf64> {
    %0 = stablehlo.multiply %arg0, %arg0 : tensor<6x2xf64>
    %cst = stablehlo.constant dense<0.000000e+00> : tensor<f64>
    %1 = stablehlo.reduce(%0 init: %cst) applies stablehlo.add across dimensions = [0] : (tensor<6x2xf64>, tensor<f64>) -> tensor<2xf64>
    %2 = stablehlo.sqrt %1 : tensor<2xf64>
    return %2 : tensor<2xf64>
  }
}
