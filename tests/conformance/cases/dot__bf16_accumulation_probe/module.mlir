module @jit_dot attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<9xbf16>, %arg1: tensor<9xbf16>) -> (tensor<bf16> {jax.result_info = "result"}) {
    %0 = stablehlo.dot_general %arg0, %arg1, contracting_dims = [0] x [0], precision = [DEFAULT, DEFAULT] : (tensor<9xbf16>, tensor<9xbf16>) -> tensor<bf16>
    return %0 : tensor<bf16>
  }
}
