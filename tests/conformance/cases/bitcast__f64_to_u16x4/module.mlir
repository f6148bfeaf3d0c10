module @jit__lambda attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<31xf64>) -> (tensor<31x4xui16> {jax.result_info = "result"}) {
    %0 = stablehlo.bitcast_convert %arg0 : (tensor<31xf64>) -> tensor<31x4xui16>
    return %0 : tensor<31x4xui16>
  }
}
