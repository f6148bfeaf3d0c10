module @jit__bits attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<10xi32>, %arg1: tensor<10xf32>, %arg2: tensor<10xi32>) -> (tensor<10xi32> {jax.result_info = "result[0]"}, tensor<10xi32> {jax.result_info = "result[1]"}, tensor<10xi32> {jax.result_info = "result[2]"}, tensor<10xi32> {jax.result_info = "result[3]"}, tensor<10xi32> {jax.result_info = "result[4]"}, tensor<10xui32> {jax.result_info = "result[5]"}, tensor<10xf32> {jax.result_info = "result[6]"}, tensor<10xi32> {jax.result_info = "result[7]"}, tensor<10xi32> {jax.result_info = "result[8]"}) {
    %0 = stablehlo.bitcast_convert %arg1 : (tensor<10xf32>) -> tensor<10xui32>
    %c = stablehlo.constant dense<23> : tensor<ui32>
    %1 = stablehlo.broadcast_in_dim %c, dims = [] : (tensor<ui32>) -> tensor<10xui32>
    %2 = stablehlo.shift_right_logical %0, %1 : tensor<10xui32>
    %c_0 = stablehlo.constant dense<255> : tensor<ui32>
    %3 = stablehlo.broadcast_in_dim %c_0, dims = [] : (tensor<ui32>) -> tensor<10xui32>
    %4 = stablehlo.and %2, %3 : tensor<10xui32>
    %c_1 = stablehlo.constant dense<8388608> : tensor<ui32>
    %5 = stablehlo.broadcast_in_dim %c_1, dims = [] : (tensor<ui32>) -> tensor<10xui32>
    %6 = stablehlo.add %0, %5 : tensor<10xui32>
    %7 = stablehlo.bitcast_convert %6 : (tensor<10xui32>) -> tensor<10xf32>
    %c_2 = stablehlo.constant dense<31> : tensor<i32>
    %8 = stablehlo.broadcast_in_dim %c_2, dims = [] : (tensor<i32>) -> tensor<10xi32>
    %9 = stablehlo.and %arg2, %8 : tensor<10xi32>
    %10 = stablehlo.shift_left %arg0, %9 : tensor<10xi32>
    %c_3 = stablehlo.constant dense<32> : tensor<i32>
    %11 = stablehlo.broadcast_in_dim %c_3, dims = [] : (tensor<i32>) -> tensor<10xi32>
    %12 = stablehlo.subtract %11, %arg2 : tensor<10xi32>
    %c_4 = stablehlo.constant dense<31> : tensor<i32>
    %13 = stablehlo.broadcast_in_dim %c_4, dims = [] : (tensor<i32>) -> tensor<10xi32>
    %14 = stablehlo.and %12, %13 : tensor<10xi32>
    %15 = stablehlo.shift_right_logical %arg0, %14 : tensor<10xi32>
    %16 = stablehlo.or %10, %15 : tensor<10xi32>
    %17 = stablehlo.popcnt %arg0 : tensor<10xi32>
    %18 = stablehlo.count_leading_zeros %arg0 : tensor<10xi32>
    %19 = stablehlo.shift_right_logical %arg0, %arg2 : tensor<10xi32>
    %20 = stablehlo.shift_right_arithmetic %arg0, %arg2 : tensor<10xi32>
    %c_5 = stablehlo.constant dense<-1640531535> : tensor<i32>
    %21 = stablehlo.broadcast_in_dim %c_5, dims = [] : (tensor<i32>) -> tensor<10xi32>
    %22 = stablehlo.multiply %arg0, %21 : tensor<10xi32>
    %23 = stablehlo.not %arg0 : tensor<10xi32>
    %c_6 = stablehlo.constant dense<252645135> : tensor<i32>
    %24 = stablehlo.broadcast_in_dim %c_6, dims = [] : (tensor<i32>) -> tensor<10xi32>
    %25 = stablehlo.and %23, %24 : tensor<10xi32>
    return %17, %18, %19, %20, %16, %4, %7, %22, %25 : tensor<10xi32>, tensor<10xi32>, tensor<10xi32>, tensor<10xi32>, tensor<10xi32>, tensor<10xui32>, tensor<10xf32>, tensor<10xi32>, tensor<10xi32>
  }
}
