module @jit__softmax_layernorm attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<6x33xf32>, %arg1: tensor<33xf32>, %arg2: tensor<33xf32>) -> (tensor<6x33xf32> {jax.result_info = "result[0]"}, tensor<6x33xf32> {jax.result_info = "result[1]"}) {
    %cst = stablehlo.constant dense<0xFF800000> : tensor<f32>
    %0 = stablehlo.reduce(%arg0 init: %cst) applies stablehlo.maximum across dimensions = [1] : (tensor<6x33xf32>, tensor<f32>) -> tensor<6xf32>
    %cst_0 = stablehlo.constant dense<0xFF800000> : tensor<f32>
    %1 = stablehlo.broadcast_in_dim %cst_0, dims = [] : (tensor<f32>) -> tensor<6xf32>
    %2 = stablehlo.maximum %1, %0 : tensor<6xf32>
    %3 = stablehlo.broadcast_in_dim %2, dims = [0] : (tensor<6xf32>) -> tensor<6x1xf32>
    %4 = stablehlo.broadcast_in_dim %3, dims = [0, 1] : (tensor<6x1xf32>) -> tensor<6x33xf32>
    %5 = stablehlo.subtract %arg0, %4 : tensor<6x33xf32>
    %6 = stablehlo.exponential %5 : tensor<6x33xf32>
    %cst_1 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %7 = stablehlo.reduce(%6 init: %cst_1) applies stablehlo.add across dimensions = [1] : (tensor<6x33xf32>, tensor<f32>) -> tensor<6xf32>
    %8 = stablehlo.broadcast_in_dim %7, dims = [0] : (tensor<6xf32>) -> tensor<6x1xf32>
    %9 = stablehlo.broadcast_in_dim %8, dims = [0, 1] : (tensor<6x1xf32>) -> tensor<6x33xf32>
    %10 = stablehlo.divide %6, %9 : tensor<6x33xf32>
    %cst_2 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %11 = stablehlo.reduce(%arg0 init: %cst_2) applies stablehlo.add across dimensions = [1] : (tensor<6x33xf32>, tensor<f32>) -> tensor<6xf32>
    %12 = stablehlo.broadcast_in_dim %11, dims = [0] : (tensor<6xf32>) -> tensor<6x1xf32>
    %cst_3 = stablehlo.constant dense<3.300000e+01> : tensor<f32>
    %13 = stablehlo.broadcast_in_dim %cst_3, dims = [] : (tensor<f32>) -> tensor<6x1xf32>
    %14 = stablehlo.divide %12, %13 : tensor<6x1xf32>
    %15 = stablehlo.broadcast_in_dim %14, dims = [0, 1] : (tensor<6x1xf32>) -> tensor<6x33xf32>
    %16 = stablehlo.subtract %arg0, %15 : tensor<6x33xf32>
    %17 = stablehlo.multiply %16, %16 : tensor<6x33xf32>
    %cst_4 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %18 = stablehlo.reduce(%17 init: %cst_4) applies stablehlo.add across dimensions = [1] : (tensor<6x33xf32>, tensor<f32>) -> tensor<6xf32>
    %19 = stablehlo.broadcast_in_dim %18, dims = [0] : (tensor<6xf32>) -> tensor<6x1xf32>
    %cst_5 = stablehlo.constant dense<3.300000e+01> : tensor<f32>
    %20 = stablehlo.broadcast_in_dim %cst_5, dims = [] : (tensor<f32>) -> tensor<6x1xf32>
    %21 = stablehlo.divide %19, %20 : tensor<6x1xf32>
    %22 = stablehlo.broadcast_in_dim %14, dims = [0, 1] : (tensor<6x1xf32>) -> tensor<6x33xf32>
    %23 = stablehlo.subtract %arg0, %22 : tensor<6x33xf32>
    %cst_6 = stablehlo.constant dense<9.99999974E-6> : tensor<f32>
    %24 = stablehlo.broadcast_in_dim %cst_6, dims = [] : (tensor<f32>) -> tensor<6x1xf32>
    %25 = stablehlo.add %21, %24 : tensor<6x1xf32>
    %26 = stablehlo.rsqrt %25 : tensor<6x1xf32>
    %27 = stablehlo.broadcast_in_dim %26, dims = [0, 1] : (tensor<6x1xf32>) -> tensor<6x33xf32>
    %28 = stablehlo.multiply %23, %27 : tensor<6x33xf32>
    %29 = stablehlo.broadcast_in_dim %arg1, dims = [1] : (tensor<33xf32>) -> tensor<1x33xf32>
    %30 = stablehlo.broadcast_in_dim %29, dims = [0, 1] : (tensor<1x33xf32>) -> tensor<6x33xf32>
    %31 = stablehlo.multiply %28, %30 : tensor<6x33xf32>
    %32 = stablehlo.broadcast_in_dim %arg2, dims = [1] : (tensor<33xf32>) -> tensor<1x33xf32>
    %33 = stablehlo.broadcast_in_dim %32, dims = [0, 1] : (tensor<1x33xf32>) -> tensor<6x33xf32>
    %34 = stablehlo.add %31, %33 : tensor<6x33xf32>
    return %10, %34 : tensor<6x33xf32>, tensor<6x33xf32>
  }
}
