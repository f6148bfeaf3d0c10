module @jit_clamp attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<f16>, %arg1: tensor<3x9xf16>, %arg2: tensor<f16>) -> (tensor<3x9xf16> {jax.result_info = "result"}) {
    %0 = stablehlo.broadcast_in_dim %arg0, dims = [] : (tensor<f16>) -> tensor<3x9xf16>
    %1 = stablehlo.broadcast_in_dim %arg2, dims = [] : (tensor<f16>) -> tensor<3x9xf16>
    %2 = stablehlo.clamp %0, %arg1, %1 : tensor<3x9xf16>
    return %2 : tensor<3x9xf16>
  }
}
