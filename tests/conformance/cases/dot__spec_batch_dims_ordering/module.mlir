module @jit__lambda attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<2x3x4xi32>, %arg1: tensor<4x2x5xi32>) -> (tensor<2x3x5xi32> {jax.result_info = "result"}) {
    %0 = stablehlo.dot_general %arg0, %arg1, batching_dims = [0] x [1], contracting_dims = [2] x [0], precision = [DEFAULT, DEFAULT] : (tensor<2x3x4xi32>, tensor<4x2x5xi32>) -> tensor<2x3x5xi32>
    return %0 : tensor<2x3x5xi32>
  }
}
