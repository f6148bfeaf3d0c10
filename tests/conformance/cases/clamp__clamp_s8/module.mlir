module @jit_clamp attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<i8>, %arg1: tensor<3x9xi8>, %arg2: tensor<i8>) -> (tensor<3x9xi8> {jax.result_info = "result"}) {
    %0 = stablehlo.broadcast_in_dim %arg0, dims = [] : (tensor<i8>) -> tensor<3x9xi8>
    %1 = stablehlo.broadcast_in_dim %arg2, dims = [] : (tensor<i8>) -> tensor<3x9xi8>
    %2 = stablehlo.clamp %0, %arg1, %1 : tensor<3x9xi8>
    return %2 : tensor<3x9xi8>
  }
}
