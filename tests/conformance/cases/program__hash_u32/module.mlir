module @jit__hash attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<64xui32>, %arg1: tensor<ui32>) -> (tensor<64xui32> {jax.result_info = "result[0]"}, tensor<64xui32> {jax.result_info = "result[1]"}, tensor<64xui32> {jax.result_info = "result[2]"}, tensor<64xi32> {jax.result_info = "result[3]"}, tensor<64xui8> {jax.result_info = "result[4]"}) {
    %0 = stablehlo.broadcast_in_dim %arg1, dims = [] : (tensor<ui32>) -> tensor<64xui32>
    %1 = stablehlo.xor %arg0, %0 : tensor<64xui32>
    %c = stablehlo.constant dense<16> : tensor<ui32>
    %2 = stablehlo.broadcast_in_dim %c, dims = [] : (tensor<ui32>) -> tensor<64xui32>
    %3 = stablehlo.shift_right_logical %1, %2 : tensor<64xui32>
    %4 = stablehlo.xor %1, %3 : tensor<64xui32>
    %c_0 = stablehlo.constant dense<2246822507> : tensor<ui32>
    %5 = stablehlo.broadcast_in_dim %c_0, dims = [] : (tensor<ui32>) -> tensor<64xui32>
    %6 = stablehlo.multiply %4, %5 : tensor<64xui32>
    %c_1 = stablehlo.constant dense<13> : tensor<ui32>
    %7 = stablehlo.broadcast_in_dim %c_1, dims = [] : (tensor<ui32>) -> tensor<64xui32>
    %8 = stablehlo.shift_right_logical %6, %7 : tensor<64xui32>
    %9 = stablehlo.xor %6, %8 : tensor<64xui32>
    %c_2 = stablehlo.constant dense<3266489909> : tensor<ui32>
    %10 = stablehlo.broadcast_in_dim %c_2, dims = [] : (tensor<ui32>) -> tensor<64xui32>
    %11 = stablehlo.multiply %9, %10 : tensor<64xui32>
    %c_3 = stablehlo.constant dense<16> : tensor<ui32>
    %12 = stablehlo.broadcast_in_dim %c_3, dims = [] : (tensor<ui32>) -> tensor<64xui32>
    %13 = stablehlo.shift_right_logical %11, %12 : tensor<64xui32>
    %14 = stablehlo.xor %11, %13 : tensor<64xui32>
    %c_4 = stablehlo.constant dense<5> : tensor<ui32>
    %15 = stablehlo.broadcast_in_dim %c_4, dims = [] : (tensor<ui32>) -> tensor<64xui32>
    %16 = stablehlo.shift_left %14, %15 : tensor<64xui32>
    %c_5 = stablehlo.constant dense<27> : tensor<ui32>
    %17 = stablehlo.broadcast_in_dim %c_5, dims = [] : (tensor<ui32>) -> tensor<64xui32>
    %18 = stablehlo.shift_right_logical %14, %17 : tensor<64xui32>
    %19 = stablehlo.or %16, %18 : tensor<64xui32>
    %c_6 = stablehlo.constant dense<97> : tensor<ui32>
    %20 = call @remainder(%14, %c_6) : (tensor<64xui32>, tensor<ui32>) -> tensor<64xui32>
    %c_7 = stablehlo.constant dense<27> : tensor<ui32>
    %21 = stablehlo.broadcast_in_dim %c_7, dims = [] : (tensor<ui32>) -> tensor<64xui32>
    %22 = stablehlo.shift_right_logical %14, %21 : tensor<64xui32>
    %23 = stablehlo.convert %22 : (tensor<64xui32>) -> tensor<64xi32>
    %c_8 = stablehlo.constant dense<255> : tensor<ui32>
    %24 = stablehlo.broadcast_in_dim %c_8, dims = [] : (tensor<ui32>) -> tensor<64xui32>
    %25 = stablehlo.and %14, %24 : tensor<64xui32>
    %26 = stablehlo.convert %25 : (tensor<64xui32>) -> tensor<64xui8>
    return %14, %19, %20, %23, %26 : tensor<64xui32>, tensor<64xui32>, tensor<64xui32>, tensor<64xi32>, tensor<64xui8>
  }
  func.func private @remainder(%arg0: tensor<64xui32>, %arg1: tensor<ui32>) -> tensor<64xui32> {
    %c = stablehlo.constant dense<0> : tensor<ui32>
    %0 = stablehlo.compare EQ, %arg1, %c, UNSIGNED : (tensor<ui32>, tensor<ui32>) -> tensor<i1>
    %c_0 = stablehlo.constant dense<1> : tensor<ui32>
    %1 = call @_where(%0, %c_0, %arg1) : (tensor<i1>, tensor<ui32>, tensor<ui32>) -> tensor<ui32>
    %2 = stablehlo.broadcast_in_dim %1, dims = [] : (tensor<ui32>) -> tensor<64xui32>
    %3 = stablehlo.remainder %arg0, %2 : tensor<64xui32>
    %c_1 = stablehlo.constant dense<0> : tensor<ui32>
    %4 = stablehlo.broadcast_in_dim %c_1, dims = [] : (tensor<ui32>) -> tensor<64xui32>
    %5 = stablehlo.compare NE, %3, %4, UNSIGNED : (tensor<64xui32>, tensor<64xui32>) -> tensor<64xi1>
    %c_2 = stablehlo.constant dense<0> : tensor<ui32>
    %6 = stablehlo.broadcast_in_dim %c_2, dims = [] : (tensor<ui32>) -> tensor<64xui32>
    %7 = stablehlo.compare LT, %3, %6, UNSIGNED : (tensor<64xui32>, tensor<64xui32>) -> tensor<64xi1>
    %c_3 = stablehlo.constant dense<0> : tensor<ui32>
    %8 = stablehlo.compare LT, %1, %c_3, UNSIGNED : (tensor<ui32>, tensor<ui32>) -> tensor<i1>
    %9 = stablehlo.broadcast_in_dim %8, dims = [] : (tensor<i1>) -> tensor<64xi1>
    %10 = stablehlo.compare NE, %7, %9, UNSIGNED : (tensor<64xi1>, tensor<64xi1>) -> tensor<64xi1>
    %11 = stablehlo.and %10, %5 : tensor<64xi1>
    %12 = stablehlo.broadcast_in_dim %1, dims = [] : (tensor<ui32>) -> tensor<64xui32>
    %13 = stablehlo.add %3, %12 : tensor<64xui32>
    %14 = stablehlo.select %11, %13, %3 : tensor<64xi1>, tensor<64xui32>
    return %14 : tensor<64xui32>
  }
  func.func private @_where(%arg0: tensor<i1>, %arg1: tensor<ui32>, %arg2: tensor<ui32>) -> tensor<ui32> {
    %0 = stablehlo.select %arg0, %arg1, %arg2 : tensor<i1>, tensor<ui32>
    return %0 : tensor<ui32>
  }
}
