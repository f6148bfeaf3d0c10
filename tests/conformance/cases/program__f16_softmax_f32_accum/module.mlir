module @jit__f16_softmax attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<6x24xf16>, %arg1: tensor<24x10xf16>, %arg2: tensor<10xf32>) -> (tensor<6x10xf32> {jax.result_info = "result[0]"}, tensor<6x10xf16> {jax.result_info = "result[1]"}, tensor<24xf16> {jax.result_info = "result[2]"}) {
    %0 = stablehlo.dot_general %arg0, %arg1, contracting_dims = [1] x [0], precision = [DEFAULT, DEFAULT] : (tensor<6x24xf16>, tensor<24x10xf16>) -> tensor<6x10xf32>
    %1 = stablehlo.broadcast_in_dim %arg2, dims = [1] : (tensor<10xf32>) -> tensor<1x10xf32>
    %2 = stablehlo.broadcast_in_dim %1, dims = [0, 1] : (tensor<1x10xf32>) -> tensor<6x10xf32>
    %3 = stablehlo.add %0, %2 : tensor<6x10xf32>
    %cst = stablehlo.constant dense<0xFF800000> : tensor<f32>
    %4 = stablehlo.reduce(%3 init: %cst) applies stablehlo.maximum across dimensions = [1] : (tensor<6x10xf32>, tensor<f32>) -> tensor<6xf32>
    %cst_0 = stablehlo.constant dense<0xFF800000> : tensor<f32>
    %5 = stablehlo.broadcast_in_dim %cst_0, dims = [] : (tensor<f32>) -> tensor<6xf32>
    %6 = stablehlo.maximum %5, %4 : tensor<6xf32>
    %7 = stablehlo.broadcast_in_dim %6, dims = [0] : (tensor<6xf32>) -> tensor<6x1xf32>
    %8 = stablehlo.broadcast_in_dim %7, dims = [0, 1] : (tensor<6x1xf32>) -> tensor<6x10xf32>
    %9 = stablehlo.subtract %3, %8 : tensor<6x10xf32>
    %10 = stablehlo.exponential %9 : tensor<6x10xf32>
    %cst_1 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %11 = stablehlo.reduce(%10 init: %cst_1) applies stablehlo.add across dimensions = [1] : (tensor<6x10xf32>, tensor<f32>) -> tensor<6xf32>
    %12 = stablehlo.broadcast_in_dim %11, dims = [0] : (tensor<6xf32>) -> tensor<6x1xf32>
    %13 = stablehlo.broadcast_in_dim %12, dims = [0, 1] : (tensor<6x1xf32>) -> tensor<6x10xf32>
    %14 = stablehlo.divide %10, %13 : tensor<6x10xf32>
    %15 = stablehlo.convert %14 : (tensor<6x10xf32>) -> tensor<6x10xf16>
    %16 = stablehlo.convert %arg0 : (tensor<6x24xf16>) -> tensor<6x24xf32>
    %cst_2 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %17 = stablehlo.reduce(%16 init: %cst_2) applies stablehlo.add across dimensions = [0] : (tensor<6x24xf32>, tensor<f32>) -> tensor<24xf32>
    %cst_3 = stablehlo.constant dense<6.000000e+00> : tensor<f32>
    %18 = stablehlo.broadcast_in_dim %cst_3, dims = [] : (tensor<f32>) -> tensor<24xf32>
    %19 = stablehlo.divide %17, %18 : tensor<24xf32>
    %20 = stablehlo.convert %19 : (tensor<24xf32>) -> tensor<24xf16>
    return %3, %15, %20 : tensor<6x10xf32>, tensor<6x10xf16>, tensor<24xf16>
  }
}
