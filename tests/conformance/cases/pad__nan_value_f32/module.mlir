module @jit__lambda attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<3x4xf32>, %arg1: tensor<f32>) -> (tensor<8x11xf32> {jax.result_info = "result"}) {
    %0 = stablehlo.pad %arg0, %arg1, low = [1, 0], high = [2, -2], interior = [1, 3] : (tensor<3x4xf32>, tensor<f32>) -> tensor<8x11xf32>
    return %0 : tensor<8x11xf32>
  }
}
