module @jit__lambda attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main() -> (tensor<6xf32> {jax.result_info = "result"}) {
    %0 = stablehlo.iota dim = 0 : tensor<6xf32>
    %cst = stablehlo.constant dense<7.500000e-01> : tensor<f32>
    %1 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f32>) -> tensor<6xf32>
    %2 = stablehlo.multiply %1, %0 : tensor<6xf32>
    %cst_0 = stablehlo.constant dense<5.000000e-01> : tensor<f32>
    %3 = stablehlo.broadcast_in_dim %cst_0, dims = [] : (tensor<f32>) -> tensor<6xf32>
    %4 = stablehlo.add %3, %2 : tensor<6xf32>
    return %4 : tensor<6xf32>
  }
}
