module @jit__cross_entropy attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<6x5xf32>, %arg1: tensor<6xi32>, %arg2: tensor<6xf32>) -> (tensor<f32> {jax.result_info = "result[0]"}, tensor<f32> {jax.result_info = "result[1]"}, tensor<6xf32> {jax.result_info = "result[2]"}) {
    %0 = call @log_softmax(%arg0) : (tensor<6x5xf32>) -> tensor<6x5xf32>
    %1 = call @_one_hot(%arg1) : (tensor<6xi32>) -> tensor<6x5xf32>
    %cst = stablehlo.constant dense<0.899999976> : tensor<f32>
    %2 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f32>) -> tensor<6x5xf32>
    %3 = stablehlo.multiply %1, %2 : tensor<6x5xf32>
    %cst_0 = stablehlo.constant dense<2.000000e-02> : tensor<f32>
    %4 = stablehlo.broadcast_in_dim %cst_0, dims = [] : (tensor<f32>) -> tensor<6x5xf32>
    %5 = stablehlo.add %3, %4 : tensor<6x5xf32>
    %6 = stablehlo.multiply %5, %0 : tensor<6x5xf32>
    %cst_1 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %7 = stablehlo.reduce(%6 init: %cst_1) applies stablehlo.add across dimensions = [1] : (tensor<6x5xf32>, tensor<f32>) -> tensor<6xf32>
    %8 = stablehlo.negate %7 : tensor<6xf32>
    %9 = stablehlo.multiply %8, %arg2 : tensor<6xf32>
    %cst_2 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %10 = stablehlo.reduce(%9 init: %cst_2) applies stablehlo.add across dimensions = [0] : (tensor<6xf32>, tensor<f32>) -> tensor<f32>
    %cst_3 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %11 = stablehlo.reduce(%arg2 init: %cst_3) applies stablehlo.add across dimensions = [0] : (tensor<6xf32>, tensor<f32>) -> tensor<f32>
    %cst_4 = stablehlo.constant dense<1.000000e+00> : tensor<f32>
    %12 = stablehlo.maximum %11, %cst_4 : tensor<f32>
    %13 = stablehlo.divide %10, %12 : tensor<f32>
    %14 = call @argmax(%arg0) : (tensor<6x5xf32>) -> tensor<6xi32>
    %15 = stablehlo.compare EQ, %14, %arg1, SIGNED : (tensor<6xi32>, tensor<6xi32>) -> tensor<6xi1>
    %16 = stablehlo.convert %15 : (tensor<6xi1>) -> tensor<6xf32>
    %cst_5 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %17 = stablehlo.reduce(%16 init: %cst_5) applies stablehlo.add across dimensions = [0] : (tensor<6xf32>, tensor<f32>) -> tensor<f32>
    %cst_6 = stablehlo.constant dense<6.000000e+00> : tensor<f32>
    %18 = stablehlo.divide %17, %cst_6 : tensor<f32>
    return %13, %18, %8 : tensor<f32>, tensor<f32>, tensor<6xf32>
  }
  func.func private @log_softmax(%arg0: tensor<6x5xf32>) -> tensor<6x5xf32> {
    %cst = stablehlo.constant dense<0xFF800000> : tensor<f32>
    %0 = stablehlo.reduce(%arg0 init: %cst) applies stablehlo.maximum across dimensions = [1] : (tensor<6x5xf32>, tensor<f32>) -> tensor<6xf32>
    %cst_0 = stablehlo.constant dense<0xFF800000> : tensor<f32>
    %1 = stablehlo.broadcast_in_dim %cst_0, dims = [] : (tensor<f32>) -> tensor<6xf32>
    %2 = stablehlo.maximum %1, %0 : tensor<6xf32>
    %3 = stablehlo.broadcast_in_dim %2, dims = [0] : (tensor<6xf32>) -> tensor<6x1xf32>
    %4 = stablehlo.broadcast_in_dim %3, dims = [0, 1] : (tensor<6x1xf32>) -> tensor<6x5xf32>
    %5 = stablehlo.subtract %arg0, %4 : tensor<6x5xf32>
    %6 = stablehlo.exponential %5 : tensor<6x5xf32>
    %cst_1 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %7 = stablehlo.reduce(%6 init: %cst_1) applies stablehlo.add across dimensions = [1] : (tensor<6x5xf32>, tensor<f32>) -> tensor<6xf32>
    %8 = stablehlo.broadcast_in_dim %7, dims = [0] : (tensor<6xf32>) -> tensor<6x1xf32>
    %9 = stablehlo.log %8 : tensor<6x1xf32>
    %10 = stablehlo.broadcast_in_dim %9, dims = [0, 1] : (tensor<6x1xf32>) -> tensor<6x5xf32>
    %11 = stablehlo.subtract %5, %10 : tensor<6x5xf32>
    return %11 : tensor<6x5xf32>
  }
  func.func private @_one_hot(%arg0: tensor<6xi32>) -> tensor<6x5xf32> {
    %0 = stablehlo.broadcast_in_dim %arg0, dims = [0] : (tensor<6xi32>) -> tensor<6x1xi32>
    %1 = stablehlo.iota dim = 1 : tensor<1x5xi32>
    %2 = stablehlo.broadcast_in_dim %0, dims = [0, 1] : (tensor<6x1xi32>) -> tensor<6x5xi32>
    %3 = stablehlo.broadcast_in_dim %1, dims = [0, 1] : (tensor<1x5xi32>) -> tensor<6x5xi32>
    %4 = stablehlo.compare EQ, %2, %3, SIGNED : (tensor<6x5xi32>, tensor<6x5xi32>) -> tensor<6x5xi1>
    %5 = stablehlo.convert %4 : (tensor<6x5xi1>) -> tensor<6x5xf32>
    return %5 : tensor<6x5xf32>
  }
  func.func private @argmax(%arg0: tensor<6x5xf32>) -> tensor<6xi32> {
    %0 = stablehlo.iota dim = 1 : tensor<6x5xi32>
    %cst = stablehlo.constant dense<0xFF800000> : tensor<f32>
    %c = stablehlo.constant dense<0> : tensor<i32>
    %1:2 = stablehlo.reduce(%arg0 init: %cst), (%0 init: %c) across dimensions = [1] : (tensor<6x5xf32>, tensor<6x5xi32>, tensor<f32>, tensor<i32>) -> (tensor<6xf32>, tensor<6xi32>)
     reducer(%arg1: tensor<f32>, %arg3: tensor<f32>) (%arg2: tensor<i32>, %arg4: tensor<i32>)  {
      %2 = stablehlo.compare GT, %arg1, %arg3, FLOAT : (tensor<f32>, tensor<f32>) -> tensor<i1>
      %3 = stablehlo.compare NE, %arg1, %arg1, FLOAT : (tensor<f32>, tensor<f32>) -> tensor<i1>
      %4 = stablehlo.or %2, %3 : tensor<i1>
      %5 = stablehlo.compare EQ, %arg1, %arg3, FLOAT : (tensor<f32>, tensor<f32>) -> tensor<i1>
      %6 = stablehlo.compare LT, %arg2, %arg4, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
      %7 = stablehlo.and %5, %6 : tensor<i1>
      %8 = stablehlo.or %4, %7 : tensor<i1>
      %9 = stablehlo.select %4, %arg1, %arg3 : tensor<i1>, tensor<f32>
      %10 = stablehlo.select %8, %arg2, %arg4 : tensor<i1>, tensor<i32>
      stablehlo.return %9, %10 : tensor<f32>, tensor<i32>
    }
    return %1#1 : tensor<6xi32>
  }
}
