module @jit__lambda attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<13x7xf32>, %arg1: tensor<13x5xf32>) -> (tensor<7x5xf32> {jax.result_info = "result"}) {
    %0 = stablehlo.dot_general %arg0, %arg1, contracting_dims = [0] x [0], precision = [DEFAULT, DEFAULT] : (tensor<13x7xf32>, tensor<13x5xf32>) -> tensor<7x5xf32>
    return %0 : tensor<7x5xf32>
  }
}
