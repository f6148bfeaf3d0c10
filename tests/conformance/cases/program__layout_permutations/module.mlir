module @jit__layouts attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<3x4x5xf32>, %arg1: tensor<12x3xf32>) -> (tensor<5x46xf32> {jax.result_info = "result[0]"}, tensor<46xf32> {jax.result_info = "result[1]"}, tensor<46x3xf32> {jax.result_info = "result[2]"}, tensor<3xf32> {jax.result_info = "result[3]"}) {
    %0 = stablehlo.transpose %arg0, dims = [2, 0, 1] : (tensor<3x4x5xf32>) -> tensor<5x3x4xf32>
    %1 = stablehlo.reverse %0, dims = [0] : tensor<5x3x4xf32>
    %2 = stablehlo.reshape %1 : (tensor<5x3x4xf32>) -> tensor<5x12xf32>
    %3 = call @_flip(%2) : (tensor<5x12xf32>) -> tensor<5x12xf32>
    %4 = stablehlo.concatenate %2, %3, dim = 1 : (tensor<5x12xf32>, tensor<5x12xf32>) -> tensor<5x24xf32>
    %cst = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %5 = stablehlo.pad %4, %cst, low = [1, -2], high = [-1, 1], interior = [0, 1] : (tensor<5x24xf32>, tensor<f32>) -> tensor<5x46xf32>
    %cst_0 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %6 = stablehlo.reduce(%5 init: %cst_0) applies stablehlo.add across dimensions = [0] : (tensor<5x46xf32>, tensor<f32>) -> tensor<46xf32>
    %7 = stablehlo.transpose %5, dims = [1, 0] : (tensor<5x46xf32>) -> tensor<46x5xf32>
    %8 = stablehlo.slice %arg1 [0:5, 0:3] : (tensor<12x3xf32>) -> tensor<5x3xf32>
    %9 = stablehlo.dot_general %7, %8, contracting_dims = [1] x [0], precision = [DEFAULT, DEFAULT] : (tensor<46x5xf32>, tensor<5x3xf32>) -> tensor<46x3xf32>
    %cst_1 = stablehlo.constant dense<0xFF800000> : tensor<f32>
    %10 = stablehlo.reduce(%0 init: %cst_1) applies stablehlo.maximum across dimensions = [0, 2] : (tensor<5x3x4xf32>, tensor<f32>) -> tensor<3xf32>
    return %5, %6, %9, %10 : tensor<5x46xf32>, tensor<46xf32>, tensor<46x3xf32>, tensor<3xf32>
  }
  func.func private @_flip(%arg0: tensor<5x12xf32>) -> tensor<5x12xf32> {
    %0 = stablehlo.reverse %arg0, dims = [1] : tensor<5x12xf32>
    return %0 : tensor<5x12xf32>
  }
}
