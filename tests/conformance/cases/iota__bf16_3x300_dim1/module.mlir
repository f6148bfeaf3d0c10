module @jit__lambda attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main() -> (tensor<3x300xbf16> {jax.result_info = "result"}) {
    %0 = stablehlo.iota dim = 1 : tensor<3x300xbf16>
    return %0 : tensor<3x300xbf16>
  }
}
