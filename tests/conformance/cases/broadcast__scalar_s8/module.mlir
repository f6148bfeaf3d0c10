module @jit__lambda attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<i8>) -> (tensor<3x1x2xi8> {jax.result_info = "result"}) {
    %0 = stablehlo.broadcast_in_dim %arg0, dims = [] : (tensor<i8>) -> tensor<3x1x2xi8>
    return %0 : tensor<3x1x2xi8>
  }
}
