module @jit__lambda attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<5x6xi1>) -> (tensor<6xi1> {jax.result_info = "result"}) {
    %c = stablehlo.constant dense<false> : tensor<i1>
    %0 = stablehlo.reduce(%arg0 init: %c) applies stablehlo.or across dimensions = [0] : (tensor<5x6xi1>, tensor<i1>) -> tensor<6xi1>
    return %0 : tensor<6xi1>
  }
}
