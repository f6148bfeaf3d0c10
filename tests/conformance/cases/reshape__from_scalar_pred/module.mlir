module @jit__lambda attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<i1>) -> (tensor<1x1x1xi1> {jax.result_info = "result"}) {
    %0 = stablehlo.reshape %arg0 : (tensor<i1>) -> tensor<1x1x1xi1>
    return %0 : tensor<1x1x1xi1>
  }
}
