module @jit__lambda attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<3xi1>, %arg1: tensor<3xf32>) -> (tensor<3xf32> {jax.result_info = "result"}) {
    %0 = stablehlo.convert %arg0 : (tensor<3xi1>) -> tensor<3xi32>
    %c = stablehlo.constant dense<0> : tensor<i32>
    %1 = stablehlo.broadcast_in_dim %c, dims = [] : (tensor<i32>) -> tensor<3xi32>
    %2 = stablehlo.compare EQ, %0, %1, SIGNED : (tensor<3xi32>, tensor<3xi32>) -> tensor<3xi1>
    %3 = stablehlo.select %2, %arg1, %arg1 : tensor<3xi1>, tensor<3xf32>
    %cst = stablehlo.constant dense<1.000000e+00> : tensor<f32>
    %4 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f32>) -> tensor<3xf32>
    %5 = stablehlo.subtract %3, %4 : tensor<3xf32>
    %c_0 = stablehlo.constant dense<1> : tensor<i32>
    %6 = stablehlo.broadcast_in_dim %c_0, dims = [] : (tensor<i32>) -> tensor<3xi32>
    %7 = stablehlo.compare EQ, %0, %6, SIGNED : (tensor<3xi32>, tensor<3xi32>) -> tensor<3xi1>
    %8 = stablehlo.select %7, %arg1, %arg1 : tensor<3xi1>, tensor<3xf32>
    %cst_1 = stablehlo.constant dense<2.000000e+00> : tensor<f32>
    %9 = stablehlo.broadcast_in_dim %cst_1, dims = [] : (tensor<f32>) -> tensor<3xf32>
    %10 = stablehlo.multiply %8, %9 : tensor<3xf32>
    %c_2 = stablehlo.constant dense<1> : tensor<i32>
    %11 = stablehlo.broadcast_in_dim %c_2, dims = [] : (tensor<i32>) -> tensor<3xi32>
    %12 = stablehlo.compare LT, %0, %11, SIGNED : (tensor<3xi32>, tensor<3xi32>) -> tensor<3xi1>
    %13 = stablehlo.select %12, %5, %10 : tensor<3xi1>, tensor<3xf32>
    return %13 : tensor<3xf32>
  }
}
