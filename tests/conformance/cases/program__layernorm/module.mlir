module @jit__layernorm attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<6x24xf32>, %arg1: tensor<24xf32>, %arg2: tensor<24xf32>) -> (tensor<6x24xf32> {jax.result_info = "result"}) {
    %cst = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %0 = stablehlo.reduce(%arg0 init: %cst) applies stablehlo.add across dimensions = [1] : (tensor<6x24xf32>, tensor<f32>) -> tensor<6xf32>
    %1 = stablehlo.broadcast_in_dim %0, dims = [0] : (tensor<6xf32>) -> tensor<6x1xf32>
    %cst_0 = stablehlo.constant dense<2.400000e+01> : tensor<f32>
    %2 = stablehlo.broadcast_in_dim %cst_0, dims = [] : (tensor<f32>) -> tensor<6x1xf32>
    %3 = stablehlo.divide %1, %2 : tensor<6x1xf32>
    %4 = stablehlo.broadcast_in_dim %3, dims = [0, 1] : (tensor<6x1xf32>) -> tensor<6x24xf32>
    %5 = stablehlo.subtract %arg0, %4 : tensor<6x24xf32>
    %6 = stablehlo.multiply %5, %5 : tensor<6x24xf32>
    %cst_1 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %7 = stablehlo.reduce(%6 init: %cst_1) applies stablehlo.add across dimensions = [1] : (tensor<6x24xf32>, tensor<f32>) -> tensor<6xf32>
    %8 = stablehlo.broadcast_in_dim %7, dims = [0] : (tensor<6xf32>) -> tensor<6x1xf32>
    %cst_2 = stablehlo.constant dense<2.400000e+01> : tensor<f32>
    %9 = stablehlo.broadcast_in_dim %cst_2, dims = [] : (tensor<f32>) -> tensor<6x1xf32>
    %10 = stablehlo.divide %8, %9 : tensor<6x1xf32>
    %cst_3 = stablehlo.constant dense<9.99999974E-6> : tensor<f32>
    %11 = stablehlo.broadcast_in_dim %cst_3, dims = [] : (tensor<f32>) -> tensor<6x1xf32>
    %12 = stablehlo.add %10, %11 : tensor<6x1xf32>
    %13 = stablehlo.rsqrt %12 : tensor<6x1xf32>
    %14 = stablehlo.broadcast_in_dim %13, dims = [0, 1] : (tensor<6x1xf32>) -> tensor<6x24xf32>
    %15 = stablehlo.multiply %5, %14 : tensor<6x24xf32>
    %16 = stablehlo.broadcast_in_dim %arg1, dims = [1] : (tensor<24xf32>) -> tensor<1x24xf32>
    %17 = stablehlo.broadcast_in_dim %16, dims = [0, 1] : (tensor<1x24xf32>) -> tensor<6x24xf32>
    %18 = stablehlo.multiply %15, %17 : tensor<6x24xf32>
    %19 = stablehlo.broadcast_in_dim %arg2, dims = [1] : (tensor<24xf32>) -> tensor<1x24xf32>
    %20 = stablehlo.broadcast_in_dim %19, dims = [0, 1] : (tensor<1x24xf32>) -> tensor<6x24xf32>
    %21 = stablehlo.add %18, %20 : tensor<6x24xf32>
    return %21 : tensor<6x24xf32>
  }
}
