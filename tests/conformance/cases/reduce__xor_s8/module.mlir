module @jit__lambda attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<4x7xi8>) -> (tensor<7xi8> {jax.result_info = "result"}) {
    %c = stablehlo.constant dense<0> : tensor<i8>
    %0 = stablehlo.reduce(%arg0 init: %c) applies stablehlo.xor across dimensions = [0] : (tensor<4x7xi8>, tensor<i8>) -> tensor<7xi8>
    return %0 : tensor<7xi8>
  }
}
