module @jit_gt attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<100xui8>, %arg1: tensor<100xui8>) -> (tensor<100xi1> {jax.result_info = "result"}) {
    %0 = stablehlo.compare GT, %arg0, %arg1, UNSIGNED : (tensor<100xui8>, tensor<100xui8>) -> tensor<100xi1>
    return %0 : tensor<100xi1>
  }
}
