module @jit_fn attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<4x4xcomplex<f32>>) -> (tensor<4xf32> {jax.result_info = "result[0]"}, tensor<4x4xcomplex<f32>> {jax.result_info = "result[1]"}, tensor<4x4xf32> {jax.result_info = "result[2]"}) {
    %0:2 = call @_eigh(%arg0) : (tensor<4x4xcomplex<f32>>) -> (tensor<4xf32>, tensor<4x4xcomplex<f32>>)
    %1 = stablehlo.broadcast_in_dim %0#0, dims = [1] : (tensor<4xf32>) -> tensor<1x4xf32>
    %2 = stablehlo.convert %1 : (tensor<1x4xf32>) -> tensor<1x4xcomplex<f32>>
    %3 = stablehlo.broadcast_in_dim %2, dims = [0, 1] : (tensor<1x4xcomplex<f32>>) -> tensor<4x4xcomplex<f32>>
    %4 = stablehlo.multiply %0#1, %3 : tensor<4x4xcomplex<f32>>
    %5 = stablehlo.transpose %0#1, dims = [1, 0] : (tensor<4x4xcomplex<f32>>) -> tensor<4x4xcomplex<f32>>
    %6 = stablehlo.real %5 : (tensor<4x4xcomplex<f32>>) -> tensor<4x4xf32>
    %7 = stablehlo.imag %5 : (tensor<4x4xcomplex<f32>>) -> tensor<4x4xf32>
    %8 = stablehlo.negate %7 : tensor<4x4xf32>
    %9 = stablehlo.complex %6, %8 : tensor<4x4xcomplex<f32>>
    %10 = stablehlo.dot_general %4, %9, contracting_dims = [1] x [0], precision = [DEFAULT, DEFAULT] : (tensor<4x4xcomplex<f32>>, tensor<4x4xcomplex<f32>>) -> tensor<4x4xcomplex<f32>>
    %11 = stablehlo.abs %0#1 : (tensor<4x4xcomplex<f32>>) -> tensor<4x4xf32>
    return %0#0, %10, %11 : tensor<4xf32>, tensor<4x4xcomplex<f32>>, tensor<4x4xf32>
  }
  func.func private @_eigh(%arg0: tensor<4x4xcomplex<f32>>) -> (tensor<4xf32>, tensor<4x4xcomplex<f32>>) {
    %0 = stablehlo.transpose %arg0, dims = [1, 0] : (tensor<4x4xcomplex<f32>>) -> tensor<4x4xcomplex<f32>>
    %1 = stablehlo.real %0 : (tensor<4x4xcomplex<f32>>) -> tensor<4x4xf32>
    %2 = stablehlo.imag %0 : (tensor<4x4xcomplex<f32>>) -> tensor<4x4xf32>
    %3 = stablehlo.negate %2 : tensor<4x4xf32>
    %4 = stablehlo.complex %1, %3 : tensor<4x4xcomplex<f32>>
    %5 = stablehlo.add %arg0, %4 : tensor<4x4xcomplex<f32>>
    %cst = stablehlo.constant dense<(2.000000e+00,0.000000e+00)> : tensor<complex<f32>>
    %6 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<complex<f32>>) -> tensor<4x4xcomplex<f32>>
    %7 = stablehlo.divide %5, %6 : tensor<4x4xcomplex<f32>>
    %8:3 = stablehlo.custom_call @lapack_cheevd_ffi(%7) {backend_config = "", mhlo.backend_config = {mode = 86 : ui8, uplo = 76 : ui8}, mhlo.frontend_attributes = {num_batch_dims = "0"}, operand_layouts = [dense<[0, 1]> : tensor<2xindex>], output_operand_aliases = [#stablehlo.output_operand_alias<output_tuple_indices = [0], operand_index = 0, operand_tuple_indices = []>], result_layouts = [dense<[0, 1]> : tensor<2xindex>, dense<0> : tensor<1xindex>, dense<> : tensor<0xindex>], sdy.sharding_rule = #sdy.op_sharding_rule<([i, j])->([k, l], [m], []) {i=4, j=4, k=4, l=4, m=4}, custom>} : (tensor<4x4xcomplex<f32>>) -> (tensor<4x4xcomplex<f32>>, tensor<4xf32>, tensor<i32>)
    %c = stablehlo.constant dense<0> : tensor<i32>
    %9 = stablehlo.broadcast_in_dim %c, dims = [] : (tensor<i32>) -> tensor<i32>
    %10 = stablehlo.compare EQ, %8#2, %9, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
    %11 = stablehlo.broadcast_in_dim %10, dims = [] : (tensor<i1>) -> tensor<1x1xi1>
    %cst_0 = stablehlo.constant dense<(0x7FC00000,0x7FC00000)> : tensor<complex<f32>>
    %12 = stablehlo.broadcast_in_dim %cst_0, dims = [] : (tensor<complex<f32>>) -> tensor<4x4xcomplex<f32>>
    %13 = stablehlo.broadcast_in_dim %11, dims = [0, 1] : (tensor<1x1xi1>) -> tensor<4x4xi1>
    %14 = stablehlo.select %13, %8#0, %12 : tensor<4x4xi1>, tensor<4x4xcomplex<f32>>
    %15 = stablehlo.broadcast_in_dim %10, dims = [] : (tensor<i1>) -> tensor<1xi1>
    %cst_1 = stablehlo.constant dense<0x7FC00000> : tensor<f32>
    %16 = stablehlo.broadcast_in_dim %cst_1, dims = [] : (tensor<f32>) -> tensor<4xf32>
    %17 = stablehlo.broadcast_in_dim %15, dims = [0] : (tensor<1xi1>) -> tensor<4xi1>
    %18 = stablehlo.select %17, %8#1, %16 : tensor<4xi1>, tensor<4xf32>
    return %18, %14 : tensor<4xf32>, tensor<4x4xcomplex<f32>>
  }
}
