module @jit__lambda attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<2x0x3xui8>) -> (tensor<3x2x0xui8> {jax.result_info = "result"}) {
    %0 = stablehlo.transpose %arg0, dims = [2, 0, 1] : (tensor<2x0x3xui8>) -> tensor<3x2x0xui8>
    return %0 : tensor<3x2x0xui8>
  }
}
