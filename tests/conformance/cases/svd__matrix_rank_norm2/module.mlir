module @jit__lambda attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<6x4xf32>, %arg1: tensor<5x3xcomplex<f32>>) -> (tensor<i32> {jax.result_info = "result[0]"}, tensor<f32> {jax.result_info = "result[1]"}) {
    %0 = call @matrix_rank(%arg0) : (tensor<6x4xf32>) -> tensor<i32>
    %1 = call @norm(%arg1) : (tensor<5x3xcomplex<f32>>) -> tensor<f32>
    return %0, %1 : tensor<i32>, tensor<f32>
  }
  func.func private @matrix_rank(%arg0: tensor<6x4xf32>) -> tensor<i32> {
    %0 = call @svd(%arg0) : (tensor<6x4xf32>) -> tensor<4xf32>
    %cst = stablehlo.constant dense<0xFF800000> : tensor<f32>
    %1 = stablehlo.reduce(%0 init: %cst) applies stablehlo.maximum across dimensions = [0] : (tensor<4xf32>, tensor<f32>) -> tensor<f32>
    %cst_0 = stablehlo.constant dense<6.000000e+00> : tensor<f32>
    %2 = stablehlo.multiply %1, %cst_0 : tensor<f32>
    %cst_1 = stablehlo.constant dense<1.1920929E-7> : tensor<f32>
    %3 = stablehlo.multiply %2, %cst_1 : tensor<f32>
    %4 = stablehlo.broadcast_in_dim %3, dims = [] : (tensor<f32>) -> tensor<1xf32>
    %5 = stablehlo.broadcast_in_dim %4, dims = [0] : (tensor<1xf32>) -> tensor<4xf32>
    %6 = stablehlo.compare GT, %0, %5, FLOAT : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xi1>
    %7 = stablehlo.convert %6 : (tensor<4xi1>) -> tensor<4xi32>
    %c = stablehlo.constant dense<0> : tensor<i32>
    %8 = stablehlo.reduce(%7 init: %c) applies stablehlo.add across dimensions = [0] : (tensor<4xi32>, tensor<i32>) -> tensor<i32>
    return %8 : tensor<i32>
  }
  func.func private @svd(%arg0: tensor<6x4xf32>) -> tensor<4xf32> {
    %0:5 = stablehlo.custom_call @lapack_sgesdd_ffi(%arg0) {backend_config = "", mhlo.backend_config = {mode = 78 : ui8}, mhlo.frontend_attributes = {num_batch_dims = "0"}, operand_layouts = [dense<[0, 1]> : tensor<2xindex>], output_operand_aliases = [#stablehlo.output_operand_alias<output_tuple_indices = [0], operand_index = 0, operand_tuple_indices = []>], result_layouts = [dense<[0, 1]> : tensor<2xindex>, dense<0> : tensor<1xindex>, dense<[0, 1]> : tensor<2xindex>, dense<[0, 1]> : tensor<2xindex>, dense<> : tensor<0xindex>], sdy.sharding_rule = #sdy.op_sharding_rule<([i, j])->([k, l], [m], [n, o], [p, q], []) {i=6, j=4, k=6, l=4, m=4, n=6, o=4, p=4, q=4}, custom>} : (tensor<6x4xf32>) -> (tensor<6x4xf32>, tensor<4xf32>, tensor<6x4xf32>, tensor<4x4xf32>, tensor<i32>)
    %c = stablehlo.constant dense<0> : tensor<i32>
    %1 = stablehlo.broadcast_in_dim %c, dims = [] : (tensor<i32>) -> tensor<i32>
    %2 = stablehlo.compare EQ, %0#4, %1, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
    %3 = stablehlo.broadcast_in_dim %2, dims = [] : (tensor<i1>) -> tensor<1xi1>
    %cst = stablehlo.constant dense<0x7FC00000> : tensor<f32>
    %4 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f32>) -> tensor<4xf32>
    %5 = stablehlo.broadcast_in_dim %3, dims = [0] : (tensor<1xi1>) -> tensor<4xi1>
    %6 = stablehlo.select %5, %0#1, %4 : tensor<4xi1>, tensor<4xf32>
    return %6 : tensor<4xf32>
  }
  func.func private @norm(%arg0: tensor<5x3xcomplex<f32>>) -> tensor<f32> {
    %0 = call @svd_0(%arg0) : (tensor<5x3xcomplex<f32>>) -> tensor<3xf32>
    %cst = stablehlo.constant dense<0xFF800000> : tensor<f32>
    %1 = stablehlo.reduce(%0 init: %cst) applies stablehlo.maximum across dimensions = [0] : (tensor<3xf32>, tensor<f32>) -> tensor<f32>
    %cst_0 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %2 = stablehlo.maximum %cst_0, %1 : tensor<f32>
    return %2 : tensor<f32>
  }
  func.func private @svd_0(%arg0: tensor<5x3xcomplex<f32>>) -> tensor<3xf32> {
    %0:5 = stablehlo.custom_call @lapack_cgesdd_ffi(%arg0) {backend_config = "", mhlo.backend_config = {mode = 78 : ui8}, mhlo.frontend_attributes = {num_batch_dims = "0"}, operand_layouts = [dense<[0, 1]> : tensor<2xindex>], output_operand_aliases = [#stablehlo.output_operand_alias<output_tuple_indices = [0], operand_index = 0, operand_tuple_indices = []>], result_layouts = [dense<[0, 1]> : tensor<2xindex>, dense<0> : tensor<1xindex>, dense<[0, 1]> : tensor<2xindex>, dense<[0, 1]> : tensor<2xindex>, dense<> : tensor<0xindex>], sdy.sharding_rule = #sdy.op_sharding_rule<([i, j])->([k, l], [m], [n, o], [p, q], []) {i=5, j=3, k=5, l=3, m=3, n=5, o=5, p=3, q=3}, custom>} : (tensor<5x3xcomplex<f32>>) -> (tensor<5x3xcomplex<f32>>, tensor<3xf32>, tensor<5x5xcomplex<f32>>, tensor<3x3xcomplex<f32>>, tensor<i32>)
    %c = stablehlo.constant dense<0> : tensor<i32>
    %1 = stablehlo.broadcast_in_dim %c, dims = [] : (tensor<i32>) -> tensor<i32>
    %2 = stablehlo.compare EQ, %0#4, %1, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
    %3 = stablehlo.broadcast_in_dim %2, dims = [] : (tensor<i1>) -> tensor<1xi1>
    %cst = stablehlo.constant dense<0x7FC00000> : tensor<f32>
    %4 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f32>) -> tensor<3xf32>
    %5 = stablehlo.broadcast_in_dim %3, dims = [0] : (tensor<1xi1>) -> tensor<3xi1>
    %6 = stablehlo.select %5, %0#1, %4 : tensor<3xi1>, tensor<3xf32>
    return %6 : tensor<3xf32>
  }
}
