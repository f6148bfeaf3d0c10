module @jit__nan_safe attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<4x6xf32>, %arg1: tensor<4x6xf32>) -> (tensor<4xf32> {jax.result_info = "result[0]"}, tensor<6xf32> {jax.result_info = "result[1]"}, tensor<4x6xf32> {jax.result_info = "result[2]"}, tensor<4x6xf32> {jax.result_info = "result[3]"}, tensor<4x6xf32> {jax.result_info = "result[4]"}, tensor<4x6xf32> {jax.result_info = "result[5]"}) {
    %0 = call @nanmean(%arg0) : (tensor<4x6xf32>) -> tensor<4xf32>
    %1 = call @nanmax(%arg0) : (tensor<4x6xf32>) -> tensor<6xf32>
    %cst = stablehlo.constant dense<-5.000000e+01> : tensor<f32>
    %cst_0 = stablehlo.constant dense<5.000000e+01> : tensor<f32>
    %2 = call @nan_to_num(%arg0, %cst, %cst_0) : (tensor<4x6xf32>, tensor<f32>, tensor<f32>) -> tensor<4x6xf32>
    %3 = stablehlo.maximum %arg0, %arg1 : tensor<4x6xf32>
    %4 = stablehlo.subtract %arg0, %arg1 : tensor<4x6xf32>
    %5 = stablehlo.compare NE, %4, %4, FLOAT : (tensor<4x6xf32>, tensor<4x6xf32>) -> tensor<4x6xi1>
    %6 = stablehlo.add %arg0, %arg1 : tensor<4x6xf32>
    %7 = stablehlo.abs %4 : tensor<4x6xf32>
    %8 = stablehlo.negate %7 : tensor<4x6xf32>
    %9 = stablehlo.exponential %8 : tensor<4x6xf32>
    %10 = stablehlo.log_plus_one %9 : tensor<4x6xf32>
    %11 = stablehlo.add %3, %10 : tensor<4x6xf32>
    %12 = stablehlo.select %5, %6, %11 : tensor<4x6xi1>, tensor<4x6xf32>
    %13 = call @softplus(%arg1) : (tensor<4x6xf32>) -> tensor<4x6xf32>
    %14 = call @silu(%arg1) : (tensor<4x6xf32>) -> tensor<4x6xf32>
    return %0, %1, %2, %12, %13, %14 : tensor<4xf32>, tensor<6xf32>, tensor<4x6xf32>, tensor<4x6xf32>, tensor<4x6xf32>, tensor<4x6xf32>
  }
  func.func private @nanmean(%arg0: tensor<4x6xf32>) -> tensor<4xf32> {
    %0 = stablehlo.compare NE, %arg0, %arg0, FLOAT : (tensor<4x6xf32>, tensor<4x6xf32>) -> tensor<4x6xi1>
    %1 = stablehlo.not %0 : tensor<4x6xi1>
    %2 = stablehlo.convert %1 : (tensor<4x6xi1>) -> tensor<4x6xi32>
    %3 = stablehlo.convert %2 : (tensor<4x6xi32>) -> tensor<4x6xf32>
    %cst = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %4 = stablehlo.reduce(%3 init: %cst) applies stablehlo.add across dimensions = [1] : (tensor<4x6xf32>, tensor<f32>) -> tensor<4xf32>
    %5 = call @nansum(%arg0) : (tensor<4x6xf32>) -> tensor<4xf32>
    %6 = stablehlo.divide %5, %4 : tensor<4xf32>
    return %6 : tensor<4xf32>
  }
  func.func private @nansum(%arg0: tensor<4x6xf32>) -> tensor<4xf32> {
    %0 = stablehlo.compare NE, %arg0, %arg0, FLOAT : (tensor<4x6xf32>, tensor<4x6xf32>) -> tensor<4x6xi1>
    %cst = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %1 = call @_where(%0, %cst, %arg0) : (tensor<4x6xi1>, tensor<f32>, tensor<4x6xf32>) -> tensor<4x6xf32>
    %cst_0 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %2 = stablehlo.reduce(%1 init: %cst_0) applies stablehlo.add across dimensions = [1] : (tensor<4x6xf32>, tensor<f32>) -> tensor<4xf32>
    return %2 : tensor<4xf32>
  }
  func.func private @_where(%arg0: tensor<4x6xi1>, %arg1: tensor<f32>, %arg2: tensor<4x6xf32>) -> tensor<4x6xf32> {
    %0 = stablehlo.broadcast_in_dim %arg1, dims = [] : (tensor<f32>) -> tensor<4x6xf32>
    %1 = stablehlo.select %arg0, %0, %arg2 : tensor<4x6xi1>, tensor<4x6xf32>
    return %1 : tensor<4x6xf32>
  }
  func.func private @nanmax(%arg0: tensor<4x6xf32>) -> tensor<6xf32> {
    %0 = stablehlo.compare NE, %arg0, %arg0, FLOAT : (tensor<4x6xf32>, tensor<4x6xf32>) -> tensor<4x6xi1>
    %cst = stablehlo.constant dense<0xFF800000> : tensor<f32>
    %1 = call @_where(%0, %cst, %arg0) : (tensor<4x6xi1>, tensor<f32>, tensor<4x6xf32>) -> tensor<4x6xf32>
    %cst_0 = stablehlo.constant dense<0xFF800000> : tensor<f32>
    %2 = stablehlo.reduce(%1 init: %cst_0) applies stablehlo.maximum across dimensions = [0] : (tensor<4x6xf32>, tensor<f32>) -> tensor<6xf32>
    %3 = stablehlo.compare NE, %arg0, %arg0, FLOAT : (tensor<4x6xf32>, tensor<4x6xf32>) -> tensor<4x6xi1>
    %c = stablehlo.constant dense<true> : tensor<i1>
    %4 = stablehlo.reduce(%3 init: %c) applies stablehlo.and across dimensions = [0] : (tensor<4x6xi1>, tensor<i1>) -> tensor<6xi1>
    %cst_1 = stablehlo.constant dense<0x7FC00000> : tensor<f32>
    %5 = call @_where_0(%4, %cst_1, %2) : (tensor<6xi1>, tensor<f32>, tensor<6xf32>) -> tensor<6xf32>
    return %5 : tensor<6xf32>
  }
  func.func private @_where_0(%arg0: tensor<6xi1>, %arg1: tensor<f32>, %arg2: tensor<6xf32>) -> tensor<6xf32> {
    %0 = stablehlo.broadcast_in_dim %arg1, dims = [] : (tensor<f32>) -> tensor<6xf32>
    %1 = stablehlo.select %arg0, %0, %arg2 : tensor<6xi1>, tensor<6xf32>
    return %1 : tensor<6xf32>
  }
  func.func private @nan_to_num(%arg0: tensor<4x6xf32>, %arg1: tensor<f32>, %arg2: tensor<f32>) -> tensor<4x6xf32> {
    %0 = stablehlo.compare NE, %arg0, %arg0, FLOAT : (tensor<4x6xf32>, tensor<4x6xf32>) -> tensor<4x6xi1>
    %cst = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %1 = call @_where(%0, %cst, %arg0) : (tensor<4x6xi1>, tensor<f32>, tensor<4x6xf32>) -> tensor<4x6xf32>
    %cst_0 = stablehlo.constant dense<0x7F800000> : tensor<f32>
    %2 = stablehlo.broadcast_in_dim %cst_0, dims = [] : (tensor<f32>) -> tensor<4x6xf32>
    %3 = stablehlo.compare EQ, %1, %2, FLOAT : (tensor<4x6xf32>, tensor<4x6xf32>) -> tensor<4x6xi1>
    %4 = stablehlo.convert %arg2 : tensor<f32>
    %5 = call @_where(%3, %4, %1) : (tensor<4x6xi1>, tensor<f32>, tensor<4x6xf32>) -> tensor<4x6xf32>
    %cst_1 = stablehlo.constant dense<0xFF800000> : tensor<f32>
    %6 = stablehlo.broadcast_in_dim %cst_1, dims = [] : (tensor<f32>) -> tensor<4x6xf32>
    %7 = stablehlo.compare EQ, %5, %6, FLOAT : (tensor<4x6xf32>, tensor<4x6xf32>) -> tensor<4x6xi1>
    %8 = stablehlo.convert %arg1 : tensor<f32>
    %9 = call @_where(%7, %8, %5) : (tensor<4x6xi1>, tensor<f32>, tensor<4x6xf32>) -> tensor<4x6xf32>
    return %9 : tensor<4x6xf32>
  }
  func.func private @softplus(%arg0: tensor<4x6xf32>) -> tensor<4x6xf32> {
    %cst = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %0 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f32>) -> tensor<4x6xf32>
    %1 = stablehlo.maximum %arg0, %0 : tensor<4x6xf32>
    %2 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f32>) -> tensor<4x6xf32>
    %3 = stablehlo.subtract %arg0, %2 : tensor<4x6xf32>
    %4 = stablehlo.compare NE, %3, %3, FLOAT : (tensor<4x6xf32>, tensor<4x6xf32>) -> tensor<4x6xi1>
    %5 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f32>) -> tensor<4x6xf32>
    %6 = stablehlo.add %arg0, %5 : tensor<4x6xf32>
    %7 = stablehlo.abs %3 : tensor<4x6xf32>
    %8 = stablehlo.negate %7 : tensor<4x6xf32>
    %9 = stablehlo.exponential %8 : tensor<4x6xf32>
    %10 = stablehlo.log_plus_one %9 : tensor<4x6xf32>
    %11 = stablehlo.add %1, %10 : tensor<4x6xf32>
    %12 = stablehlo.select %4, %6, %11 : tensor<4x6xi1>, tensor<4x6xf32>
    return %12 : tensor<4x6xf32>
  }
  func.func private @silu(%arg0: tensor<4x6xf32>) -> tensor<4x6xf32> {
    %0 = stablehlo.negate %arg0 : tensor<4x6xf32>
    %1 = stablehlo.exponential %0 : tensor<4x6xf32>
    %cst = stablehlo.constant dense<1.000000e+00> : tensor<f32>
    %2 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f32>) -> tensor<4x6xf32>
    %3 = stablehlo.add %2, %1 : tensor<4x6xf32>
    %cst_0 = stablehlo.constant dense<1.000000e+00> : tensor<f32>
    %4 = stablehlo.broadcast_in_dim %cst_0, dims = [] : (tensor<f32>) -> tensor<4x6xf32>
    %5 = stablehlo.divide %4, %3 : tensor<4x6xf32>
    %6 = stablehlo.multiply %arg0, %5 : tensor<4x6xf32>
    return %6 : tensor<4x6xf32>
  }
}
