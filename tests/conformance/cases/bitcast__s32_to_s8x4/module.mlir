module @jit__lambda attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<6xi32>) -> (tensor<6x4xi8> {jax.result_info = "result"}) {
    %0 = stablehlo.bitcast_convert %arg0 : (tensor<6xi32>) -> tensor<6x4xi8>
    return %0 : tensor<6x4xi8>
  }
}
