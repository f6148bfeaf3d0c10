module @jit__lambda attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<5x5xf32>, %arg1: tensor<3x5xf32>) -> (tensor<3x5xf32> {jax.result_info = "result"}) {
    %0 = "stablehlo.triangular_solve"(%arg0, %arg1) <{left_side = false, lower = true, transpose_a = #stablehlo<transpose NO_TRANSPOSE>, unit_diagonal = false}> : (tensor<5x5xf32>, tensor<3x5xf32>) -> tensor<3x5xf32>
    return %0 : tensor<3x5xf32>
  }
}
