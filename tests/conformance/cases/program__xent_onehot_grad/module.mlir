module @jit__xent_onehot attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<8x6xf32>, %arg1: tensor<6x5xf32>, %arg2: tensor<5xf32>, %arg3: tensor<8xi32>) -> (tensor<f32> {jax.result_info = "result[0]"}, tensor<6x5xf32> {jax.result_info = "result[1][0]"}, tensor<5xf32> {jax.result_info = "result[1][1]"}) {
    %0 = stablehlo.dot_general %arg0, %arg1, contracting_dims = [1] x [0], precision = [DEFAULT, DEFAULT] : (tensor<8x6xf32>, tensor<6x5xf32>) -> tensor<8x5xf32>
    %1 = stablehlo.broadcast_in_dim %arg2, dims = [1] : (tensor<5xf32>) -> tensor<1x5xf32>
    %2 = stablehlo.broadcast_in_dim %1, dims = [0, 1] : (tensor<1x5xf32>) -> tensor<8x5xf32>
    %3 = stablehlo.add %0, %2 : tensor<8x5xf32>
    %4 = call @_one_hot(%arg3) : (tensor<8xi32>) -> tensor<8x5xf32>
    %5:3 = call @log_softmax(%3) : (tensor<8x5xf32>) -> (tensor<8x5xf32>, tensor<8x5xf32>, tensor<8x1xf32>)
    %6 = stablehlo.multiply %4, %5#0 : tensor<8x5xf32>
    %cst = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %7 = stablehlo.reduce(%6 init: %cst) applies stablehlo.add across dimensions = [1] : (tensor<8x5xf32>, tensor<f32>) -> tensor<8xf32>
    %cst_0 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %8 = stablehlo.reduce(%7 init: %cst_0) applies stablehlo.add across dimensions = [0] : (tensor<8xf32>, tensor<f32>) -> tensor<f32>
    %cst_1 = stablehlo.constant dense<8.000000e+00> : tensor<f32>
    %9 = stablehlo.divide %8, %cst_1 : tensor<f32>
    %10 = stablehlo.negate %9 : tensor<f32>
    %cst_2 = stablehlo.constant dense<1.000000e+00> : tensor<f32>
    %11 = stablehlo.negate %cst_2 : tensor<f32>
    %cst_3 = stablehlo.constant dense<8.000000e+00> : tensor<f32>
    %12 = stablehlo.divide %11, %cst_3 : tensor<f32>
    %13 = stablehlo.broadcast_in_dim %12, dims = [] : (tensor<f32>) -> tensor<8xf32>
    %14 = stablehlo.broadcast_in_dim %13, dims = [0] : (tensor<8xf32>) -> tensor<8x5xf32>
    %15 = stablehlo.multiply %4, %14 : tensor<8x5xf32>
    %16 = call @log_softmax_0(%5#1, %5#2, %15) : (tensor<8x5xf32>, tensor<8x1xf32>, tensor<8x5xf32>) -> tensor<8x5xf32>
    %cst_4 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %17 = stablehlo.reduce(%16 init: %cst_4) applies stablehlo.add across dimensions = [0] : (tensor<8x5xf32>, tensor<f32>) -> tensor<5xf32>
    %18 = stablehlo.reshape %17 : (tensor<5xf32>) -> tensor<1x5xf32>
    %cst_5 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %19 = stablehlo.reduce(%18 init: %cst_5) applies stablehlo.add across dimensions = [0] : (tensor<1x5xf32>, tensor<f32>) -> tensor<5xf32>
    %20 = stablehlo.dot_general %16, %arg0, contracting_dims = [0] x [0], precision = [DEFAULT, DEFAULT] : (tensor<8x5xf32>, tensor<8x6xf32>) -> tensor<5x6xf32>
    %21 = stablehlo.transpose %20, dims = [1, 0] : (tensor<5x6xf32>) -> tensor<6x5xf32>
    return %10, %21, %19 : tensor<f32>, tensor<6x5xf32>, tensor<5xf32>
  }
  func.func private @_one_hot(%arg0: tensor<8xi32>) -> tensor<8x5xf32> {
    %0 = stablehlo.broadcast_in_dim %arg0, dims = [0] : (tensor<8xi32>) -> tensor<8x1xi32>
    %1 = stablehlo.iota dim = 1 : tensor<1x5xi32>
    %2 = stablehlo.broadcast_in_dim %0, dims = [0, 1] : (tensor<8x1xi32>) -> tensor<8x5xi32>
    %3 = stablehlo.broadcast_in_dim %1, dims = [0, 1] : (tensor<1x5xi32>) -> tensor<8x5xi32>
    %4 = stablehlo.compare EQ, %2, %3, SIGNED : (tensor<8x5xi32>, tensor<8x5xi32>) -> tensor<8x5xi1>
    %5 = stablehlo.convert %4 : (tensor<8x5xi1>) -> tensor<8x5xf32>
    return %5 : tensor<8x5xf32>
  }
  func.func private @log_softmax(%arg0: tensor<8x5xf32>) -> (tensor<8x5xf32>, tensor<8x5xf32>, tensor<8x1xf32>) {
    %cst = stablehlo.constant dense<0xFF800000> : tensor<f32>
    %0 = stablehlo.reduce(%arg0 init: %cst) applies stablehlo.maximum across dimensions = [1] : (tensor<8x5xf32>, tensor<f32>) -> tensor<8xf32>
    %cst_0 = stablehlo.constant dense<0xFF800000> : tensor<f32>
    %1 = stablehlo.broadcast_in_dim %cst_0, dims = [] : (tensor<f32>) -> tensor<8xf32>
    %2 = stablehlo.maximum %1, %0 : tensor<8xf32>
    %3 = stablehlo.broadcast_in_dim %2, dims = [0] : (tensor<8xf32>) -> tensor<8x1xf32>
    %4 = stablehlo.broadcast_in_dim %3, dims = [0, 1] : (tensor<8x1xf32>) -> tensor<8x5xf32>
    %5 = stablehlo.subtract %arg0, %4 : tensor<8x5xf32>
    %6 = stablehlo.exponential %5 : tensor<8x5xf32>
    %cst_1 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %7 = stablehlo.reduce(%6 init: %cst_1) applies stablehlo.add across dimensions = [1] : (tensor<8x5xf32>, tensor<f32>) -> tensor<8xf32>
    %8 = stablehlo.broadcast_in_dim %7, dims = [0] : (tensor<8xf32>) -> tensor<8x1xf32>
    %9 = stablehlo.log %8 : tensor<8x1xf32>
    %10 = stablehlo.broadcast_in_dim %9, dims = [0, 1] : (tensor<8x1xf32>) -> tensor<8x5xf32>
    %11 = stablehlo.subtract %5, %10 : tensor<8x5xf32>
    return %11, %6, %8 : tensor<8x5xf32>, tensor<8x5xf32>, tensor<8x1xf32>
  }
  func.func private @log_softmax_0(%arg0: tensor<8x5xf32>, %arg1: tensor<8x1xf32>, %arg2: tensor<8x5xf32>) -> tensor<8x5xf32> {
    %0 = stablehlo.negate %arg2 : tensor<8x5xf32>
    %cst = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %1 = stablehlo.reduce(%0 init: %cst) applies stablehlo.add across dimensions = [1] : (tensor<8x5xf32>, tensor<f32>) -> tensor<8xf32>
    %2 = stablehlo.reshape %1 : (tensor<8xf32>) -> tensor<8x1xf32>
    %3 = stablehlo.divide %2, %arg1 : tensor<8x1xf32>
    %cst_0 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %4 = stablehlo.reduce(%3 init: %cst_0) applies stablehlo.add across dimensions = [1] : (tensor<8x1xf32>, tensor<f32>) -> tensor<8xf32>
    %5 = stablehlo.broadcast_in_dim %4, dims = [0] : (tensor<8xf32>) -> tensor<8x5xf32>
    %6 = stablehlo.multiply %5, %arg0 : tensor<8x5xf32>
    %7 = stablehlo.add %arg2, %6 : tensor<8x5xf32>
    return %7 : tensor<8x5xf32>
  }
}
