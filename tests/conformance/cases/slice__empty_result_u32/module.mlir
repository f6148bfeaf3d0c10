module @jit__lambda attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<4x3xui32>) -> (tensor<0x2xui32> {jax.result_info = "result"}) {
    %0 = stablehlo.slice %arg0 [2:2, 1:3] : (tensor<4x3xui32>) -> tensor<0x2xui32>
    return %0 : tensor<0x2xui32>
  }
}
