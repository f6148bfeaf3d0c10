module @jit__remat_grad attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<4x6xf32>, %arg1: tensor<6x6xf32>, %arg2: tensor<6x3xf32>) -> (tensor<f32> {jax.result_info = "result[0]"}, tensor<6x6xf32> {jax.result_info = "result[1][0]"}, tensor<6x3xf32> {jax.result_info = "result[1][1]"}) {
    %0 = stablehlo.dot_general %arg0, %arg1, contracting_dims = [1] x [0], precision = [DEFAULT, DEFAULT] : (tensor<4x6xf32>, tensor<6x6xf32>) -> tensor<4x6xf32>
    %1 = stablehlo.tanh %0 : tensor<4x6xf32>
    %2 = stablehlo.dot_general %1, %arg2, contracting_dims = [1] x [0], precision = [DEFAULT, DEFAULT] : (tensor<4x6xf32>, tensor<6x3xf32>) -> tensor<4x3xf32>
    %3 = stablehlo.tanh %2 : tensor<4x3xf32>
    %4 = stablehlo.multiply %3, %3 : tensor<4x3xf32>
    %cst = stablehlo.constant dense<2.000000e+00> : tensor<f32>
    %5 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f32>) -> tensor<4x3xf32>
    %6 = stablehlo.multiply %5, %3 : tensor<4x3xf32>
    %cst_0 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %7 = stablehlo.reduce(%4 init: %cst_0) applies stablehlo.add across dimensions = [0, 1] : (tensor<4x3xf32>, tensor<f32>) -> tensor<f32>
    %cst_1 = stablehlo.constant dense<1.000000e+00> : tensor<f32>
    %8 = stablehlo.broadcast_in_dim %cst_1, dims = [] : (tensor<f32>) -> tensor<4x3xf32>
    %9 = stablehlo.multiply %8, %6 : tensor<4x3xf32>
    %10:3 = stablehlo.optimization_barrier %1, %arg2, %9 : tensor<4x6xf32>, tensor<6x3xf32>, tensor<4x3xf32>
    %11 = stablehlo.dot_general %10#0, %10#1, contracting_dims = [1] x [0], precision = [DEFAULT, DEFAULT] : (tensor<4x6xf32>, tensor<6x3xf32>) -> tensor<4x3xf32>
    %12 = stablehlo.tanh %11 : tensor<4x3xf32>
    %cst_2 = stablehlo.constant dense<1.000000e+00> : tensor<f32>
    %13 = stablehlo.broadcast_in_dim %cst_2, dims = [] : (tensor<f32>) -> tensor<4x3xf32>
    %14 = stablehlo.subtract %13, %12 : tensor<4x3xf32>
    %15 = stablehlo.multiply %10#2, %14 : tensor<4x3xf32>
    %16 = stablehlo.multiply %15, %12 : tensor<4x3xf32>
    %17 = stablehlo.add %15, %16 : tensor<4x3xf32>
    %18 = stablehlo.dot_general %17, %10#0, contracting_dims = [0] x [0], precision = [DEFAULT, DEFAULT] : (tensor<4x3xf32>, tensor<4x6xf32>) -> tensor<3x6xf32>
    %19 = stablehlo.transpose %18, dims = [1, 0] : (tensor<3x6xf32>) -> tensor<6x3xf32>
    %20 = stablehlo.dot_general %17, %10#1, contracting_dims = [1] x [1], precision = [DEFAULT, DEFAULT] : (tensor<4x3xf32>, tensor<6x3xf32>) -> tensor<4x6xf32>
    %21:3 = stablehlo.optimization_barrier %arg0, %arg1, %20 : tensor<4x6xf32>, tensor<6x6xf32>, tensor<4x6xf32>
    %22 = stablehlo.dot_general %21#0, %21#1, contracting_dims = [1] x [0], precision = [DEFAULT, DEFAULT] : (tensor<4x6xf32>, tensor<6x6xf32>) -> tensor<4x6xf32>
    %23 = stablehlo.tanh %22 : tensor<4x6xf32>
    %cst_3 = stablehlo.constant dense<1.000000e+00> : tensor<f32>
    %24 = stablehlo.broadcast_in_dim %cst_3, dims = [] : (tensor<f32>) -> tensor<4x6xf32>
    %25 = stablehlo.subtract %24, %23 : tensor<4x6xf32>
    %26 = stablehlo.multiply %21#2, %25 : tensor<4x6xf32>
    %27 = stablehlo.multiply %26, %23 : tensor<4x6xf32>
    %28 = stablehlo.add %26, %27 : tensor<4x6xf32>
    %29 = stablehlo.dot_general %28, %21#0, contracting_dims = [0] x [0], precision = [DEFAULT, DEFAULT] : (tensor<4x6xf32>, tensor<4x6xf32>) -> tensor<6x6xf32>
    %30 = stablehlo.transpose %29, dims = [1, 0] : (tensor<6x6xf32>) -> tensor<6x6xf32>
    return %7, %30, %19 : tensor<f32>, tensor<6x6xf32>, tensor<6x3xf32>
  }
}
