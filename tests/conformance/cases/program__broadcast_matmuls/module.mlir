module @jit__matmuls attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<2x1x3x4xf32>, %arg1: tensor<5x4x6xf32>, %arg2: tensor<4xf32>, %arg3: tensor<3xf32>) -> (tensor<2x5x3x6xf32> {jax.result_info = "result[0]"}, tensor<4x3xf32> {jax.result_info = "result[1]"}, tensor<3x2xf32> {jax.result_info = "result[2]"}, tensor<2x3x3xf32> {jax.result_info = "result[3]"}) {
    %0 = stablehlo.reshape %arg0 : (tensor<2x1x3x4xf32>) -> tensor<2x3x4xf32>
    %1 = stablehlo.dot_general %0, %arg1, contracting_dims = [2] x [1], precision = [DEFAULT, DEFAULT] : (tensor<2x3x4xf32>, tensor<5x4x6xf32>) -> tensor<2x3x5x6xf32>
    %2 = stablehlo.transpose %1, dims = [0, 2, 1, 3] : (tensor<2x3x5x6xf32>) -> tensor<2x5x3x6xf32>
    %3 = stablehlo.broadcast_in_dim %arg2, dims = [0] : (tensor<4xf32>) -> tensor<4x1xf32>
    %4 = stablehlo.broadcast_in_dim %arg3, dims = [1] : (tensor<3xf32>) -> tensor<1x3xf32>
    %5 = stablehlo.broadcast_in_dim %3, dims = [0, 1] : (tensor<4x1xf32>) -> tensor<4x3xf32>
    %6 = stablehlo.broadcast_in_dim %4, dims = [0, 1] : (tensor<1x3xf32>) -> tensor<4x3xf32>
    %7 = stablehlo.multiply %5, %6 : tensor<4x3xf32>
    %8 = stablehlo.slice %arg2 [0:3] : (tensor<4xf32>) -> tensor<3xf32>
    %9 = stablehlo.reshape %8 : (tensor<3xf32>) -> tensor<3x1xf32>
    %10 = stablehlo.slice %arg3 [0:2] : (tensor<3xf32>) -> tensor<2xf32>
    %11 = stablehlo.reshape %10 : (tensor<2xf32>) -> tensor<1x2xf32>
    %12 = call @kron(%9, %11) : (tensor<3x1xf32>, tensor<1x2xf32>) -> tensor<3x2xf32>
    %13 = stablehlo.reshape %arg0 : (tensor<2x1x3x4xf32>) -> tensor<2x3x4xf32>
    %14 = stablehlo.slice %arg1 [0:2, 0:4, 0:3] : (tensor<5x4x6xf32>) -> tensor<2x4x3xf32>
    %15 = stablehlo.dot_general %13, %14, batching_dims = [0] x [0], contracting_dims = [2] x [1], precision = [DEFAULT, DEFAULT] : (tensor<2x3x4xf32>, tensor<2x4x3xf32>) -> tensor<2x3x3xf32>
    return %2, %7, %12, %15 : tensor<2x5x3x6xf32>, tensor<4x3xf32>, tensor<3x2xf32>, tensor<2x3x3xf32>
  }
  func.func private @kron(%arg0: tensor<3x1xf32>, %arg1: tensor<1x2xf32>) -> tensor<3x2xf32> {
    %0 = stablehlo.broadcast_in_dim %arg0, dims = [0, 2] : (tensor<3x1xf32>) -> tensor<3x1x1x1xf32>
    %1 = stablehlo.broadcast_in_dim %arg1, dims = [1, 3] : (tensor<1x2xf32>) -> tensor<1x1x1x2xf32>
    %2 = stablehlo.broadcast_in_dim %0, dims = [0, 1, 2, 3] : (tensor<3x1x1x1xf32>) -> tensor<3x1x1x2xf32>
    %3 = stablehlo.broadcast_in_dim %1, dims = [0, 1, 2, 3] : (tensor<1x1x1x2xf32>) -> tensor<3x1x1x2xf32>
    %4 = stablehlo.multiply %2, %3 : tensor<3x1x1x2xf32>
    %5 = stablehlo.reshape %4 : (tensor<3x1x1x2xf32>) -> tensor<3x2xf32>
    return %5 : tensor<3x2xf32>
  }
}
