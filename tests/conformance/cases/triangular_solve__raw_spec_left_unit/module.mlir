module @jit__lambda attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<2x2xf32>, %arg1: tensor<2x1xf32>) -> (tensor<2x1xf32> {jax.result_info = "result"}) {
    %0 = "stablehlo.triangular_solve"(%arg0, %arg1) <{left_side = true, lower = true, transpose_a = #stablehlo<transpose NO_TRANSPOSE>, unit_diagonal = true}> : (tensor<2x2xf32>, tensor<2x1xf32>) -> tensor<2x1xf32>
    return %0 : tensor<2x1xf32>
  }
}
