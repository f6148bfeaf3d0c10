module @jit__lambda attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<4x3xf32>) -> (tensor<2x2xf32> {jax.result_info = "result"}) {
    %0 = stablehlo.slice %arg0 [0:4:2, 0:3:2] : (tensor<4x3xf32>) -> tensor<2x2xf32>
    return %0 : tensor<2x2xf32>
  }
}
