module @jit__lambda attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<3x5xf32>) -> (tensor<3xf32> {jax.result_info = "result[0]"}, tensor<3x5xf32> {jax.result_info = "result[1]"}, tensor<3x3xf32> {jax.result_info = "result[2]"}, tensor<3x5xf32> {jax.result_info = "result[3]"}) {
    %0:3 = call @svd(%arg0) : (tensor<3x5xf32>) -> (tensor<3x3xf32>, tensor<3xf32>, tensor<5x5xf32>)
    %1 = stablehlo.broadcast_in_dim %0#1, dims = [1] : (tensor<3xf32>) -> tensor<1x3xf32>
    %2 = stablehlo.broadcast_in_dim %1, dims = [0, 1] : (tensor<1x3xf32>) -> tensor<3x3xf32>
    %3 = stablehlo.multiply %0#0, %2 : tensor<3x3xf32>
    %4 = stablehlo.slice %0#2 [0:3, 0:5] : (tensor<5x5xf32>) -> tensor<3x5xf32>
    %5 = stablehlo.dot_general %3, %4, contracting_dims = [1] x [0], precision = [DEFAULT, DEFAULT] : (tensor<3x3xf32>, tensor<3x5xf32>) -> tensor<3x5xf32>
    %6 = stablehlo.abs %0#0 : tensor<3x3xf32>
    %7 = stablehlo.slice %0#2 [0:3, 0:5] : (tensor<5x5xf32>) -> tensor<3x5xf32>
    %8 = stablehlo.abs %7 : tensor<3x5xf32>
    return %0#1, %5, %6, %8 : tensor<3xf32>, tensor<3x5xf32>, tensor<3x3xf32>, tensor<3x5xf32>
  }
  func.func private @svd(%arg0: tensor<3x5xf32>) -> (tensor<3x3xf32>, tensor<3xf32>, tensor<5x5xf32>) {
    %0:5 = stablehlo.custom_call @lapack_sgesdd_ffi(%arg0) {backend_config = "", mhlo.backend_config = {mode = 65 : ui8}, mhlo.frontend_attributes = {num_batch_dims = "0"}, operand_layouts = [dense<[0, 1]> : tensor<2xindex>], output_operand_aliases = [#stablehlo.output_operand_alias<output_tuple_indices = [0], operand_index = 0, operand_tuple_indices = []>], result_layouts = [dense<[0, 1]> : tensor<2xindex>, dense<0> : tensor<1xindex>, dense<[0, 1]> : tensor<2xindex>, dense<[0, 1]> : tensor<2xindex>, dense<> : tensor<0xindex>], sdy.sharding_rule = #sdy.op_sharding_rule<([i, j])->([k, l], [m], [n, o], [p, q], []) {i=3, j=5, k=3, l=5, m=3, n=3, o=3, p=5, q=5}, custom>} : (tensor<3x5xf32>) -> (tensor<3x5xf32>, tensor<3xf32>, tensor<3x3xf32>, tensor<5x5xf32>, tensor<i32>)
    %c = stablehlo.constant dense<0> : tensor<i32>
    %1 = stablehlo.broadcast_in_dim %c, dims = [] : (tensor<i32>) -> tensor<i32>
    %2 = stablehlo.compare EQ, %0#4, %1, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
    %3 = stablehlo.broadcast_in_dim %2, dims = [] : (tensor<i1>) -> tensor<1xi1>
    %cst = stablehlo.constant dense<0x7FC00000> : tensor<f32>
    %4 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f32>) -> tensor<3xf32>
    %5 = stablehlo.broadcast_in_dim %3, dims = [0] : (tensor<1xi1>) -> tensor<3xi1>
    %6 = stablehlo.select %5, %0#1, %4 : tensor<3xi1>, tensor<3xf32>
    %7 = stablehlo.broadcast_in_dim %2, dims = [] : (tensor<i1>) -> tensor<1x1xi1>
    %cst_0 = stablehlo.constant dense<0x7FC00000> : tensor<f32>
    %8 = stablehlo.broadcast_in_dim %cst_0, dims = [] : (tensor<f32>) -> tensor<3x3xf32>
    %9 = stablehlo.broadcast_in_dim %7, dims = [0, 1] : (tensor<1x1xi1>) -> tensor<3x3xi1>
    %10 = stablehlo.select %9, %0#2, %8 : tensor<3x3xi1>, tensor<3x3xf32>
    %11 = stablehlo.broadcast_in_dim %2, dims = [] : (tensor<i1>) -> tensor<1x1xi1>
    %cst_1 = stablehlo.constant dense<0x7FC00000> : tensor<f32>
    %12 = stablehlo.broadcast_in_dim %cst_1, dims = [] : (tensor<f32>) -> tensor<5x5xf32>
    %13 = stablehlo.broadcast_in_dim %11, dims = [0, 1] : (tensor<1x1xi1>) -> tensor<5x5xi1>
    %14 = stablehlo.select %13, %0#3, %12 : tensor<5x5xi1>, tensor<5x5xf32>
    return %10, %6, %14 : tensor<3x3xf32>, tensor<3xf32>, tensor<5x5xf32>
  }
}
