module @jit__lambda attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<3x5xi64>, %arg1: tensor<3x2xi64>) -> (tensor<3x2xi64> {jax.result_info = "result"}) {
    %0 = call @take_along_axis(%arg0, %arg1) : (tensor<3x5xi64>, tensor<3x2xi64>) -> tensor<3x2xi64>
    return %0 : tensor<3x2xi64>
  }
  func.func private @take_along_axis(%arg0: tensor<3x5xi64>, %arg1: tensor<3x2xi64>) -> tensor<3x2xi64> {
    %0 = stablehlo.convert %arg1 : (tensor<3x2xi64>) -> tensor<3x2xi32>
    %c = stablehlo.constant dense<0> : tensor<i32>
    %1 = stablehlo.broadcast_in_dim %c, dims = [] : (tensor<i32>) -> tensor<3x2xi32>
    %2 = stablehlo.compare LT, %0, %1, SIGNED : (tensor<3x2xi32>, tensor<3x2xi32>) -> tensor<3x2xi1>
    %c_0 = stablehlo.constant dense<5> : tensor<i32>
    %3 = stablehlo.broadcast_in_dim %c_0, dims = [] : (tensor<i32>) -> tensor<3x2xi32>
    %4 = stablehlo.add %0, %3 : tensor<3x2xi32>
    %5 = stablehlo.select %2, %4, %0 : tensor<3x2xi1>, tensor<3x2xi32>
    %6 = stablehlo.reshape %5 : (tensor<3x2xi32>) -> tensor<3x2x1xi32>
    %c_1 = stablehlo.constant dense<4> : tensor<1xi32>
    %c_2 = stablehlo.constant dense<0> : tensor<i32>
    %7 = stablehlo.broadcast_in_dim %c_2, dims = [] : (tensor<i32>) -> tensor<3x2x1xi32>
    %8 = stablehlo.compare GE, %6, %7, SIGNED : (tensor<3x2x1xi32>, tensor<3x2x1xi32>) -> tensor<3x2x1xi1>
    %9 = stablehlo.broadcast_in_dim %c_1, dims = [2] : (tensor<1xi32>) -> tensor<1x1x1xi32>
    %10 = stablehlo.broadcast_in_dim %9, dims = [0, 1, 2] : (tensor<1x1x1xi32>) -> tensor<3x2x1xi32>
    %11 = stablehlo.compare LE, %6, %10, SIGNED : (tensor<3x2x1xi32>, tensor<3x2x1xi32>) -> tensor<3x2x1xi1>
    %12 = stablehlo.and %8, %11 : tensor<3x2x1xi1>
    %c_3 = stablehlo.constant dense<true> : tensor<i1>
    %13 = stablehlo.reduce(%12 init: %c_3) applies stablehlo.and across dimensions = [2] : (tensor<3x2x1xi1>, tensor<i1>) -> tensor<3x2xi1>
    %14 = "stablehlo.gather"(%arg0, %6) <{dimension_numbers = #stablehlo.gather<collapsed_slice_dims = [1], operand_batching_dims = [0], start_indices_batching_dims = [0], start_index_map = [1], index_vector_dim = 2>, indices_are_sorted = false, slice_sizes = array<i64: 1, 1>}> : (tensor<3x5xi64>, tensor<3x2x1xi32>) -> tensor<3x2xi64>
    %c_4 = stablehlo.constant dense<-9223372036854775808> : tensor<i64>
    %15 = stablehlo.broadcast_in_dim %c_4, dims = [] : (tensor<i64>) -> tensor<3x2xi64>
    %16 = stablehlo.select %13, %14, %15 : tensor<3x2xi1>, tensor<3x2xi64>
    return %16 : tensor<3x2xi64>
  }
}
