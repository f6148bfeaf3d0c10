module @jit__splitmix64 attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<ui64>, %arg1: tensor<40xui64>) -> (tensor<40xui64> {jax.result_info = "result[0]"}, tensor<40xf64> {jax.result_info = "result[1]"}, tensor<40xi64> {jax.result_info = "result[2]"}) {
    %c = stablehlo.constant dense<11400714819323198485> : tensor<ui64>
    %0 = stablehlo.broadcast_in_dim %c, dims = [] : (tensor<ui64>) -> tensor<40xui64>
    %1 = stablehlo.multiply %arg1, %0 : tensor<40xui64>
    %2 = stablehlo.broadcast_in_dim %arg0, dims = [] : (tensor<ui64>) -> tensor<40xui64>
    %3 = stablehlo.add %2, %1 : tensor<40xui64>
    %c_0 = stablehlo.constant dense<30> : tensor<ui64>
    %4 = stablehlo.broadcast_in_dim %c_0, dims = [] : (tensor<ui64>) -> tensor<40xui64>
    %5 = stablehlo.shift_right_logical %3, %4 : tensor<40xui64>
    %6 = stablehlo.xor %3, %5 : tensor<40xui64>
    %c_1 = stablehlo.constant dense<13787848793156543929> : tensor<ui64>
    %7 = stablehlo.broadcast_in_dim %c_1, dims = [] : (tensor<ui64>) -> tensor<40xui64>
    %8 = stablehlo.multiply %6, %7 : tensor<40xui64>
    %c_2 = stablehlo.constant dense<27> : tensor<ui64>
    %9 = stablehlo.broadcast_in_dim %c_2, dims = [] : (tensor<ui64>) -> tensor<40xui64>
    %10 = stablehlo.shift_right_logical %8, %9 : tensor<40xui64>
    %11 = stablehlo.xor %8, %10 : tensor<40xui64>
    %c_3 = stablehlo.constant dense<10723151780598845931> : tensor<ui64>
    %12 = stablehlo.broadcast_in_dim %c_3, dims = [] : (tensor<ui64>) -> tensor<40xui64>
    %13 = stablehlo.multiply %11, %12 : tensor<40xui64>
    %c_4 = stablehlo.constant dense<31> : tensor<ui64>
    %14 = stablehlo.broadcast_in_dim %c_4, dims = [] : (tensor<ui64>) -> tensor<40xui64>
    %15 = stablehlo.shift_right_logical %13, %14 : tensor<40xui64>
    %16 = stablehlo.xor %13, %15 : tensor<40xui64>
    %c_5 = stablehlo.constant dense<11> : tensor<ui64>
    %17 = stablehlo.broadcast_in_dim %c_5, dims = [] : (tensor<ui64>) -> tensor<40xui64>
    %18 = stablehlo.shift_right_logical %16, %17 : tensor<40xui64>
    %19 = stablehlo.convert %18 : (tensor<40xui64>) -> tensor<40xf64>
    %cst = stablehlo.constant dense<1.1102230246251565E-16> : tensor<f64>
    %20 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f64>) -> tensor<40xf64>
    %21 = stablehlo.multiply %19, %20 : tensor<40xf64>
    %22 = stablehlo.convert %16 : (tensor<40xui64>) -> tensor<40xi64>
    %c_6 = stablehlo.constant dense<40> : tensor<i64>
    %23 = stablehlo.broadcast_in_dim %c_6, dims = [] : (tensor<i64>) -> tensor<40xi64>
    %24 = stablehlo.shift_right_arithmetic %22, %23 : tensor<40xi64>
    %25 = call @cumsum(%24) : (tensor<40xi64>) -> tensor<40xi64>
    return %16, %21, %25 : tensor<40xui64>, tensor<40xf64>, tensor<40xi64>
  }
  func.func private @cumsum(%arg0: tensor<40xi64>) -> tensor<40xi64> {
    %0 = call @cumsum_0(%arg0) : (tensor<40xi64>) -> tensor<40xi64>
    return %0 : tensor<40xi64>
  }
  func.func private @cumsum_0(%arg0: tensor<40xi64>) -> tensor<40xi64> {
    %c = stablehlo.constant dense<0> : tensor<i64>
    %0 = stablehlo.broadcast_in_dim %c, dims = [] : (tensor<i64>) -> tensor<i64>
    %1 = "stablehlo.reduce_window"(%arg0, %0) <{base_dilations = array<i64: 1>, padding = dense<[[39, 0]]> : tensor<1x2xi64>, window_dilations = array<i64: 1>, window_dimensions = array<i64: 40>, window_strides = array<i64: 1>}> ({
    ^bb0(%arg1: tensor<i64>, %arg2: tensor<i64>):
      %2 = stablehlo.add %arg1, %arg2 : tensor<i64>
      stablehlo.return %2 : tensor<i64>
    }) : (tensor<40xi64>, tensor<i64>) -> tensor<40xi64>
    return %1 : tensor<40xi64>
  }
}
