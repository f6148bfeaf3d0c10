module @jit__lambda attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<3xi1>) -> (tensor<3xi1> {jax.result_info = "result"}) {
    %0 = stablehlo.reverse %arg0, dims = [] : tensor<3xi1>
    return %0 : tensor<3xi1>
  }
}
