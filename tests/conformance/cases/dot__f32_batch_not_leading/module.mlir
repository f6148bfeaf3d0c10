module @jit__lambda attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<4x3x6xf32>, %arg1: tensor<6x5x3xf32>) -> (tensor<3x4x5xf32> {jax.result_info = "result"}) {
    %0 = stablehlo.dot_general %arg0, %arg1, batching_dims = [1] x [2], contracting_dims = [2] x [0], precision = [DEFAULT, DEFAULT] : (tensor<4x3x6xf32>, tensor<6x5x3xf32>) -> tensor<3x4x5xf32>
    return %0 : tensor<3x4x5xf32>
  }
}
