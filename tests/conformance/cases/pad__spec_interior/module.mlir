module @jit__lambda attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<3xi32>, %arg1: tensor<i32>) -> (tensor<7xi32> {jax.result_info = "result"}) {
    %0 = stablehlo.pad %arg0, %arg1, low = [0], high = [0], interior = [2] : (tensor<3xi32>, tensor<i32>) -> tensor<7xi32>
    return %0 : tensor<7xi32>
  }
}
