module @jit__lambda attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<3x5xi16>) -> (tensor<3xi16> {jax.result_info = "result"}) {
    %c = stablehlo.constant dense<-1> : tensor<i16>
    %0 = stablehlo.reduce(%arg0 init: %c) applies stablehlo.and across dimensions = [1] : (tensor<3x5xi16>, tensor<i16>) -> tensor<3xi16>
    return %0 : tensor<3xi16>
  }
}
