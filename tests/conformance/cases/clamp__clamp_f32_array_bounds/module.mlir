module @jit_clamp attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<4x5xf32>, %arg1: tensor<4x5xf32>, %arg2: tensor<4x5xf32>) -> (tensor<4x5xf32> {jax.result_info = "result"}) {
    %0 = stablehlo.clamp %arg0, %arg1, %arg2 : tensor<4x5xf32>
    return %0 : tensor<4x5xf32>
  }
}
