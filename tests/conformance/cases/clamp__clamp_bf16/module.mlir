module @jit_clamp attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<bf16>, %arg1: tensor<3x9xbf16>, %arg2: tensor<bf16>) -> (tensor<3x9xbf16> {jax.result_info = "result"}) {
    %0 = stablehlo.broadcast_in_dim %arg0, dims = [] : (tensor<bf16>) -> tensor<3x9xbf16>
    %1 = stablehlo.broadcast_in_dim %arg2, dims = [] : (tensor<bf16>) -> tensor<3x9xbf16>
    %2 = stablehlo.clamp %0, %arg1, %1 : tensor<3x9xbf16>
    return %2 : tensor<3x9xbf16>
  }
}
