module @jit__batchnorm_train attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<4x5x5x3xf32>, %arg1: tensor<3xf32>, %arg2: tensor<3xf32>, %arg3: tensor<3xf32>, %arg4: tensor<3xf32>) -> (tensor<4x5x5x3xf32> {jax.result_info = "result[0]"}, tensor<3xf32> {jax.result_info = "result[1]"}, tensor<3xf32> {jax.result_info = "result[2]"}) {
    %cst = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %0 = stablehlo.reduce(%arg0 init: %cst) applies stablehlo.add across dimensions = [0, 1, 2] : (tensor<4x5x5x3xf32>, tensor<f32>) -> tensor<3xf32>
    %cst_0 = stablehlo.constant dense<1.000000e+02> : tensor<f32>
    %1 = stablehlo.broadcast_in_dim %cst_0, dims = [] : (tensor<f32>) -> tensor<3xf32>
    %2 = stablehlo.divide %0, %1 : tensor<3xf32>
    %3 = stablehlo.broadcast_in_dim %2, dims = [3] : (tensor<3xf32>) -> tensor<1x1x1x3xf32>
    %4 = stablehlo.broadcast_in_dim %3, dims = [0, 1, 2, 3] : (tensor<1x1x1x3xf32>) -> tensor<4x5x5x3xf32>
    %5 = stablehlo.subtract %arg0, %4 : tensor<4x5x5x3xf32>
    %6 = chlo.square %5 : tensor<4x5x5x3xf32> -> tensor<4x5x5x3xf32>
    %cst_1 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %7 = stablehlo.reduce(%6 init: %cst_1) applies stablehlo.add across dimensions = [0, 1, 2] : (tensor<4x5x5x3xf32>, tensor<f32>) -> tensor<3xf32>
    %cst_2 = stablehlo.constant dense<1.000000e+02> : tensor<f32>
    %8 = stablehlo.broadcast_in_dim %cst_2, dims = [] : (tensor<f32>) -> tensor<3xf32>
    %9 = stablehlo.divide %7, %8 : tensor<3xf32>
    %10 = stablehlo.broadcast_in_dim %2, dims = [3] : (tensor<3xf32>) -> tensor<1x1x1x3xf32>
    %11 = stablehlo.broadcast_in_dim %10, dims = [0, 1, 2, 3] : (tensor<1x1x1x3xf32>) -> tensor<4x5x5x3xf32>
    %12 = stablehlo.subtract %arg0, %11 : tensor<4x5x5x3xf32>
    %cst_3 = stablehlo.constant dense<9.99999974E-6> : tensor<f32>
    %13 = stablehlo.broadcast_in_dim %cst_3, dims = [] : (tensor<f32>) -> tensor<3xf32>
    %14 = stablehlo.add %9, %13 : tensor<3xf32>
    %15 = stablehlo.rsqrt %14 : tensor<3xf32>
    %16 = stablehlo.broadcast_in_dim %15, dims = [3] : (tensor<3xf32>) -> tensor<1x1x1x3xf32>
    %17 = stablehlo.broadcast_in_dim %16, dims = [0, 1, 2, 3] : (tensor<1x1x1x3xf32>) -> tensor<4x5x5x3xf32>
    %18 = stablehlo.multiply %12, %17 : tensor<4x5x5x3xf32>
    %19 = stablehlo.broadcast_in_dim %arg1, dims = [3] : (tensor<3xf32>) -> tensor<1x1x1x3xf32>
    %20 = stablehlo.broadcast_in_dim %19, dims = [0, 1, 2, 3] : (tensor<1x1x1x3xf32>) -> tensor<4x5x5x3xf32>
    %21 = stablehlo.multiply %18, %20 : tensor<4x5x5x3xf32>
    %22 = stablehlo.broadcast_in_dim %arg2, dims = [3] : (tensor<3xf32>) -> tensor<1x1x1x3xf32>
    %23 = stablehlo.broadcast_in_dim %22, dims = [0, 1, 2, 3] : (tensor<1x1x1x3xf32>) -> tensor<4x5x5x3xf32>
    %24 = stablehlo.add %21, %23 : tensor<4x5x5x3xf32>
    %25 = call @relu(%24) : (tensor<4x5x5x3xf32>) -> tensor<4x5x5x3xf32>
    %cst_4 = stablehlo.constant dense<0.899999976> : tensor<f32>
    %26 = stablehlo.broadcast_in_dim %cst_4, dims = [] : (tensor<f32>) -> tensor<3xf32>
    %27 = stablehlo.multiply %26, %arg3 : tensor<3xf32>
    %cst_5 = stablehlo.constant dense<1.000000e-01> : tensor<f32>
    %28 = stablehlo.broadcast_in_dim %cst_5, dims = [] : (tensor<f32>) -> tensor<3xf32>
    %29 = stablehlo.multiply %28, %2 : tensor<3xf32>
    %30 = stablehlo.add %27, %29 : tensor<3xf32>
    %cst_6 = stablehlo.constant dense<0.899999976> : tensor<f32>
    %31 = stablehlo.broadcast_in_dim %cst_6, dims = [] : (tensor<f32>) -> tensor<3xf32>
    %32 = stablehlo.multiply %31, %arg4 : tensor<3xf32>
    %cst_7 = stablehlo.constant dense<1.000000e-01> : tensor<f32>
    %33 = stablehlo.broadcast_in_dim %cst_7, dims = [] : (tensor<f32>) -> tensor<3xf32>
    %34 = stablehlo.multiply %33, %9 : tensor<3xf32>
    %cst_8 = stablehlo.constant dense<1.01010096> : tensor<f32>
    %35 = stablehlo.broadcast_in_dim %cst_8, dims = [] : (tensor<f32>) -> tensor<3xf32>
    %36 = stablehlo.multiply %34, %35 : tensor<3xf32>
    %37 = stablehlo.add %32, %36 : tensor<3xf32>
    return %25, %30, %37 : tensor<4x5x5x3xf32>, tensor<3xf32>, tensor<3xf32>
  }
  func.func private @relu(%arg0: tensor<4x5x5x3xf32>) -> tensor<4x5x5x3xf32> {
    %cst = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %0 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f32>) -> tensor<4x5x5x3xf32>
    %1 = stablehlo.maximum %arg0, %0 : tensor<4x5x5x3xf32>
    return %1 : tensor<4x5x5x3xf32>
  }
}
