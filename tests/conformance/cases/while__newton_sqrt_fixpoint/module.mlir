module @jit_newton_sqrt attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<6xf32>) -> (tensor<6xf32> {jax.result_info = "result[0]"}, tensor<6xf32> {jax.result_info = "result[1]"}, tensor<i32> {jax.result_info = "result[2]"}) {
    %cst = stablehlo.constant dense<1.000000e+00> : tensor<f32>
    %0 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f32>) -> tensor<6xf32>
    %1 = stablehlo.maximum %arg0, %0 : tensor<6xf32>
    %cst_0 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %2 = stablehlo.broadcast_in_dim %cst_0, dims = [] : (tensor<f32>) -> tensor<6xf32>
    %c = stablehlo.constant dense<0> : tensor<i32>
    %3:4 = stablehlo.while(%iterArg = %arg0, %iterArg_1 = %1, %iterArg_2 = %2, %iterArg_3 = %c) : tensor<6xf32>, tensor<6xf32>, tensor<6xf32>, tensor<i32>
    cond {
      %4 = stablehlo.compare NE, %iterArg_1, %iterArg_2, FLOAT : (tensor<6xf32>, tensor<6xf32>) -> tensor<6xi1>
      %c_4 = stablehlo.constant dense<false> : tensor<i1>
      %5 = stablehlo.reduce(%4 init: %c_4) applies stablehlo.or across dimensions = [0] : (tensor<6xi1>, tensor<i1>) -> tensor<i1>
      %c_5 = stablehlo.constant dense<100> : tensor<i32>
      %6 = stablehlo.compare LT, %iterArg_3, %c_5, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
      %7 = stablehlo.and %5, %6 : tensor<i1>
      stablehlo.return %7 : tensor<i1>
    } do {
      %4 = stablehlo.divide %iterArg, %iterArg_1 : tensor<6xf32>
      %5 = stablehlo.add %iterArg_1, %4 : tensor<6xf32>
      %cst_4 = stablehlo.constant dense<5.000000e-01> : tensor<f32>
      %6 = stablehlo.broadcast_in_dim %cst_4, dims = [] : (tensor<f32>) -> tensor<6xf32>
      %7 = stablehlo.multiply %6, %5 : tensor<6xf32>
      %c_5 = stablehlo.constant dense<1> : tensor<i32>
      %8 = stablehlo.add %iterArg_3, %c_5 : tensor<i32>
      stablehlo.return %iterArg, %7, %iterArg_1, %8 : tensor<6xf32>, tensor<6xf32>, tensor<6xf32>, tensor<i32>
    }
    return %3#1, %3#2, %3#3 : tensor<6xf32>, tensor<6xf32>, tensor<i32>
  }
}
