module @jit__float64_chain attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<9xf64>, %arg1: tensor<4x4xf64>) -> (tensor<9xf64> {jax.result_info = "result[0]"}, tensor<9xf64> {jax.result_info = "result[1]"}, tensor<4x4xf64> {jax.result_info = "result[2]"}, tensor<9xf64> {jax.result_info = "result[3]"}, tensor<9xf64> {jax.result_info = "result[4]"}) {
    %0 = stablehlo.negate %arg0 : tensor<9xf64>
    %1 = stablehlo.multiply %0, %arg0 : tensor<9xf64>
    %2 = stablehlo.exponential %1 : tensor<9xf64>
    %3 = stablehlo.abs %arg0 : tensor<9xf64>
    %4 = stablehlo.log_plus_one %3 : tensor<9xf64>
    %5 = stablehlo.add %2, %4 : tensor<9xf64>
    %6 = stablehlo.tanh %5 : tensor<9xf64>
    %cst = stablehlo.constant dense<3.000000e+00> : tensor<f64>
    %7 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f64>) -> tensor<9xf64>
    %8 = stablehlo.multiply %7, %arg0 : tensor<9xf64>
    %9 = stablehlo.sine %8 : tensor<9xf64>
    %10 = stablehlo.multiply %6, %9 : tensor<9xf64>
    %11 = call @cumsum(%10) : (tensor<9xf64>) -> tensor<9xf64>
    %12 = stablehlo.transpose %arg1, dims = [1, 0] : (tensor<4x4xf64>) -> tensor<4x4xf64>
    %13 = stablehlo.dot_general %arg1, %12, contracting_dims = [1] x [0], precision = [DEFAULT, DEFAULT] : (tensor<4x4xf64>, tensor<4x4xf64>) -> tensor<4x4xf64>
    %cst_0 = stablehlo.constant dense<1.000000e-03> : tensor<f64>
    %14 = stablehlo.broadcast_in_dim %cst_0, dims = [] : (tensor<f64>) -> tensor<4x4xf64>
    %15 = stablehlo.multiply %arg1, %14 : tensor<4x4xf64>
    %16 = stablehlo.exponential_minus_one %15 : tensor<4x4xf64>
    %17 = stablehlo.add %13, %16 : tensor<4x4xf64>
    %18 = stablehlo.atan2 %10, %arg0 : tensor<9xf64>
    %19 = stablehlo.cbrt %arg0 : tensor<9xf64>
    %20 = stablehlo.multiply %19, %19 : tensor<9xf64>
    return %10, %11, %17, %18, %20 : tensor<9xf64>, tensor<9xf64>, tensor<4x4xf64>, tensor<9xf64>, tensor<9xf64>
  }
  func.func private @cumsum(%arg0: tensor<9xf64>) -> tensor<9xf64> {
    %0 = call @cumsum_0(%arg0) : (tensor<9xf64>) -> tensor<9xf64>
    return %0 : tensor<9xf64>
  }
  func.func private @cumsum_0(%arg0: tensor<9xf64>) -> tensor<9xf64> {
    %cst = stablehlo.constant dense<0.000000e+00> : tensor<f64>
    %0 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f64>) -> tensor<f64>
    %1 = "stablehlo.reduce_window"(%arg0, %0) <{base_dilations = array<i64: 1>, padding = dense<[[8, 0]]> : tensor<1x2xi64>, window_dilations = array<i64: 1>, window_dimensions = array<i64: 9>, window_strides = array<i64: 1>}> ({
    ^bb0(%arg1: tensor<f64>, %arg2: tensor<f64>):
      %2 = stablehlo.add %arg1, %arg2 : tensor<f64>
      stablehlo.return %2 : tensor<f64>
    }) : (tensor<9xf64>, tensor<f64>) -> tensor<9xf64>
    return %1 : tensor<9xf64>
  }
}
