module @jit__lambda attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<57xf64>) -> (tensor<57xf64> {jax.result_info = "result"}) {
    %0 = stablehlo.reduce_precision %arg0, format = e4m3 : tensor<57xf64>
    return %0 : tensor<57xf64>
  }
}
