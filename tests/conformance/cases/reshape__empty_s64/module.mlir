module @jit__lambda attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<5x0x3xi64>) -> (tensor<0x5xi64> {jax.result_info = "result"}) {
    %0 = stablehlo.reshape %arg0 : (tensor<5x0x3xi64>) -> tensor<0x5xi64>
    return %0 : tensor<0x5xi64>
  }
}
