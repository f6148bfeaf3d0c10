module @jit__lambda attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<4x7xui32>) -> (tensor<7xui32> {jax.result_info = "result"}) {
    %c = stablehlo.constant dense<0> : tensor<ui32>
    %0 = stablehlo.reduce(%arg0 init: %c) applies stablehlo.xor across dimensions = [0] : (tensor<4x7xui32>, tensor<ui32>) -> tensor<7xui32>
    return %0 : tensor<7xui32>
  }
}
