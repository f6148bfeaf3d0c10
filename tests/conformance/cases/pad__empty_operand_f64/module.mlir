module @jit__lambda attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<0x2xf64>, %arg1: tensor<f64>) -> (tensor<2x3xf64> {jax.result_info = "result"}) {
    %0 = stablehlo.pad %arg0, %arg1, low = [1, 0], high = [1, 1], interior = [3, 0] : (tensor<0x2xf64>, tensor<f64>) -> tensor<2x3xf64>
    return %0 : tensor<2x3xf64>
  }
}
