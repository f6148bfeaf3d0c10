module @jit__lambda attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<2x1x4xi32>, %arg1: tensor<3x1xi32>) -> (tensor<2x3x4xi32> {jax.result_info = "result"}) {
    %0 = stablehlo.broadcast_in_dim %arg1, dims = [1, 2] : (tensor<3x1xi32>) -> tensor<1x3x1xi32>
    %1 = stablehlo.broadcast_in_dim %arg0, dims = [0, 1, 2] : (tensor<2x1x4xi32>) -> tensor<2x3x4xi32>
    %2 = stablehlo.broadcast_in_dim %0, dims = [0, 1, 2] : (tensor<1x3x1xi32>) -> tensor<2x3x4xi32>
    %3 = stablehlo.multiply %1, %2 : tensor<2x3x4xi32>
    return %3 : tensor<2x3x4xi32>
  }
}
