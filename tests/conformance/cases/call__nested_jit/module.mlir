module @jit__lambda attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<2xf32>, %arg1: tensor<2xf32>) -> (tensor<2xf32> {jax.result_info = "result"}) {
    %0 = call @"<lambda>"(%arg0, %arg1) : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
    %1 = call @"<lambda>"(%arg1, %arg0) : (tensor<2xf32>, tensor<2xf32>) -> tensor<2xf32>
    %2 = stablehlo.add %0, %1 : tensor<2xf32>
    return %2 : tensor<2xf32>
  }
  func.func private @"<lambda>"(%arg0: tensor<2xf32>, %arg1: tensor<2xf32>) -> tensor<2xf32> {
    %0 = stablehlo.multiply %arg0, %arg1 : tensor<2xf32>
    %1 = stablehlo.subtract %0, %arg1 : tensor<2xf32>
    return %1 : tensor<2xf32>
  }
}
