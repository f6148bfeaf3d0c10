module @jit_sign attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<3x7xi8>) -> (tensor<3x7xi8> {jax.result_info = "result"}) {
    %0 = stablehlo.sign %arg0 : tensor<3x7xi8>
    return %0 : tensor<3x7xi8>
  }
}
