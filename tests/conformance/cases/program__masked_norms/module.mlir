module @jit__masked_norms attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<6x8xf32>, %arg1: tensor<6x8xf32>) -> (tensor<6xf32> {jax.result_info = "result[0]"}, tensor<6xi32> {jax.result_info = "result[1]"}, tensor<6xf32> {jax.result_info = "result[2]"}, tensor<f32> {jax.result_info = "result[3]"}, tensor<f32> {jax.result_info = "result[4]"}, tensor<8xf32> {jax.result_info = "result[5]"}, tensor<6xi1> {jax.result_info = "result[6]"}) {
    %cst = stablehlo.constant dense<3.000000e-01> : tensor<f32>
    %0 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f32>) -> tensor<6x8xf32>
    %1 = stablehlo.compare GT, %arg0, %0, FLOAT : (tensor<6x8xf32>, tensor<6x8xf32>) -> tensor<6x8xi1>
    %2 = stablehlo.convert %1 : (tensor<6x8xi1>) -> tensor<6x8xi32>
    %c = stablehlo.constant dense<0> : tensor<i32>
    %3 = stablehlo.reduce(%2 init: %c) applies stablehlo.add across dimensions = [1] : (tensor<6x8xi32>, tensor<i32>) -> tensor<6xi32>
    %cst_0 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %4 = call @_where(%1, %arg0, %cst_0) : (tensor<6x8xi1>, tensor<6x8xf32>, tensor<f32>) -> tensor<6x8xf32>
    %cst_1 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %5 = stablehlo.reduce(%4 init: %cst_1) applies stablehlo.add across dimensions = [1] : (tensor<6x8xf32>, tensor<f32>) -> tensor<6xf32>
    %c_2 = stablehlo.constant dense<1> : tensor<i32>
    %6 = stablehlo.broadcast_in_dim %c_2, dims = [] : (tensor<i32>) -> tensor<6xi32>
    %7 = stablehlo.maximum %3, %6 : tensor<6xi32>
    %8 = stablehlo.convert %7 : (tensor<6xi32>) -> tensor<6xf32>
    %9 = stablehlo.divide %5, %8 : tensor<6xf32>
    %10 = call @norm(%arg0) : (tensor<6x8xf32>) -> tensor<6xf32>
    %11 = call @norm_0(%arg0) : (tensor<6x8xf32>) -> tensor<f32>
    %12 = call @norm_1(%arg0) : (tensor<6x8xf32>) -> tensor<f32>
    %13 = call @_where_2(%1, %arg0, %arg1) : (tensor<6x8xi1>, tensor<6x8xf32>, tensor<6x8xf32>) -> tensor<6x8xf32>
    %cst_3 = stablehlo.constant dense<0xFF800000> : tensor<f32>
    %14 = stablehlo.reduce(%13 init: %cst_3) applies stablehlo.maximum across dimensions = [0] : (tensor<6x8xf32>, tensor<f32>) -> tensor<8xf32>
    %cst_4 = stablehlo.constant dense<1.000000e+00> : tensor<f32>
    %15 = stablehlo.broadcast_in_dim %cst_4, dims = [] : (tensor<f32>) -> tensor<6x8xf32>
    %16 = stablehlo.compare GT, %arg1, %15, FLOAT : (tensor<6x8xf32>, tensor<6x8xf32>) -> tensor<6x8xi1>
    %17 = stablehlo.and %1, %16 : tensor<6x8xi1>
    %c_5 = stablehlo.constant dense<false> : tensor<i1>
    %18 = stablehlo.reduce(%17 init: %c_5) applies stablehlo.or across dimensions = [1] : (tensor<6x8xi1>, tensor<i1>) -> tensor<6xi1>
    return %9, %3, %10, %11, %12, %14, %18 : tensor<6xf32>, tensor<6xi32>, tensor<6xf32>, tensor<f32>, tensor<f32>, tensor<8xf32>, tensor<6xi1>
  }
  func.func private @_where(%arg0: tensor<6x8xi1>, %arg1: tensor<6x8xf32>, %arg2: tensor<f32>) -> tensor<6x8xf32> {
    %0 = stablehlo.convert %arg2 : tensor<f32>
    %1 = stablehlo.broadcast_in_dim %0, dims = [] : (tensor<f32>) -> tensor<6x8xf32>
    %2 = stablehlo.select %arg0, %arg1, %1 : tensor<6x8xi1>, tensor<6x8xf32>
    return %2 : tensor<6x8xf32>
  }
  func.func private @norm(%arg0: tensor<6x8xf32>) -> tensor<6xf32> {
    %0 = stablehlo.multiply %arg0, %arg0 : tensor<6x8xf32>
    %cst = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %1 = stablehlo.reduce(%0 init: %cst) applies stablehlo.add across dimensions = [1] : (tensor<6x8xf32>, tensor<f32>) -> tensor<6xf32>
    %2 = stablehlo.sqrt %1 : tensor<6xf32>
    return %2 : tensor<6xf32>
  }
  func.func private @norm_0(%arg0: tensor<6x8xf32>) -> tensor<f32> {
    %0 = stablehlo.multiply %arg0, %arg0 : tensor<6x8xf32>
    %cst = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %1 = stablehlo.reduce(%0 init: %cst) applies stablehlo.add across dimensions = [0, 1] : (tensor<6x8xf32>, tensor<f32>) -> tensor<f32>
    %2 = stablehlo.sqrt %1 : tensor<f32>
    return %2 : tensor<f32>
  }
  func.func private @norm_1(%arg0: tensor<6x8xf32>) -> tensor<f32> {
    %0 = stablehlo.abs %arg0 : tensor<6x8xf32>
    %cst = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %1 = stablehlo.reduce(%0 init: %cst) applies stablehlo.add across dimensions = [1] : (tensor<6x8xf32>, tensor<f32>) -> tensor<6xf32>
    %cst_0 = stablehlo.constant dense<0xFF800000> : tensor<f32>
    %2 = stablehlo.reduce(%1 init: %cst_0) applies stablehlo.maximum across dimensions = [0] : (tensor<6xf32>, tensor<f32>) -> tensor<f32>
    %cst_1 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %3 = stablehlo.maximum %cst_1, %2 : tensor<f32>
    return %3 : tensor<f32>
  }
  func.func private @_where_2(%arg0: tensor<6x8xi1>, %arg1: tensor<6x8xf32>, %arg2: tensor<6x8xf32>) -> tensor<6x8xf32> {
    %0 = stablehlo.select %arg0, %arg1, %arg2 : tensor<6x8xi1>, tensor<6x8xf32>
    return %0 : tensor<6x8xf32>
  }
}
