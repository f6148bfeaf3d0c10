module @jit__lambda attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<6x40xbf16>, %arg1: tensor<40x7xbf16>) -> (tensor<6x7xf32> {jax.result_info = "result"}) {
    %0 = stablehlo.dot_general %arg0, %arg1, contracting_dims = [1] x [0], precision = [DEFAULT, DEFAULT] : (tensor<6x40xbf16>, tensor<40x7xbf16>) -> tensor<6x7xf32>
    return %0 : tensor<6x7xf32>
  }
}
