module @jit__fori_fill attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<5xf32>, %arg1: tensor<6x5xf32>, %arg2: tensor<i32>) -> (tensor<5xf32> {jax.result_info = "result[0]"}, tensor<6x5xf32> {jax.result_info = "result[1]"}) {
    %c = stablehlo.constant dense<0> : tensor<i32>
    %0:4 = stablehlo.while(%iterArg = %c, %iterArg_0 = %arg2, %iterArg_1 = %arg0, %iterArg_2 = %arg1) : tensor<i32>, tensor<i32>, tensor<5xf32>, tensor<6x5xf32>
    cond {
      %1 = stablehlo.compare LT, %iterArg, %iterArg_0, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
      stablehlo.return %1 : tensor<i1>
    } do {
      %c_3 = stablehlo.constant dense<1> : tensor<i32>
      %1 = stablehlo.add %iterArg, %c_3 : tensor<i32>
      %2 = stablehlo.cosine %iterArg_1 : tensor<5xf32>
      %3 = stablehlo.convert %iterArg : (tensor<i32>) -> tensor<f32>
      %cst = stablehlo.constant dense<1.000000e-01> : tensor<f32>
      %4 = stablehlo.multiply %cst, %3 : tensor<f32>
      %5 = stablehlo.broadcast_in_dim %4, dims = [] : (tensor<f32>) -> tensor<5xf32>
      %6 = stablehlo.add %2, %5 : tensor<5xf32>
      %7 = stablehlo.broadcast_in_dim %6, dims = [1] : (tensor<5xf32>) -> tensor<1x5xf32>
      %c_4 = stablehlo.constant dense<0> : tensor<i32>
      %8 = stablehlo.compare LT, %iterArg, %c_4, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
      %9 = stablehlo.convert %iterArg : tensor<i32>
      %c_5 = stablehlo.constant dense<6> : tensor<i32>
      %10 = stablehlo.add %9, %c_5 : tensor<i32>
      %11 = stablehlo.select %8, %10, %iterArg : tensor<i1>, tensor<i32>
      %c_6 = stablehlo.constant dense<0> : tensor<i32>
      %12 = stablehlo.dynamic_update_slice %iterArg_2, %7, %11, %c_6 : (tensor<6x5xf32>, tensor<1x5xf32>, tensor<i32>, tensor<i32>) -> tensor<6x5xf32>
      stablehlo.return %1, %iterArg_0, %6, %12 : tensor<i32>, tensor<i32>, tensor<5xf32>, tensor<6x5xf32>
    }
    return %0#2, %0#3 : tensor<5xf32>, tensor<6x5xf32>
  }
}
