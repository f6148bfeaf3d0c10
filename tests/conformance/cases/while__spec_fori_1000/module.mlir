module @jit_spec_loop attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<10xf32>) -> (tensor<i32> {jax.result_info = "result[0]"}, tensor<10xf32> {jax.result_info = "result[1]"}) {
    %cst = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %0 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f32>) -> tensor<10xf32>
    %c = stablehlo.constant dense<0> : tensor<i32>
    %c_0 = stablehlo.constant dense<0> : tensor<i32>
    %c_1 = stablehlo.constant dense<0> : tensor<i32>
    %1:5 = stablehlo.while(%iterArg = %arg0, %iterArg_2 = %c_1, %iterArg_3 = %c, %iterArg_4 = %c_0, %iterArg_5 = %0) : tensor<10xf32>, tensor<i32>, tensor<i32>, tensor<i32>, tensor<10xf32>
    cond {
      %c_6 = stablehlo.constant dense<1000> : tensor<i32>
      %2 = stablehlo.compare LT, %iterArg_2, %c_6, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
      stablehlo.return %2 : tensor<i1>
    } do {
      %2:3 = func.call @closed_call(%iterArg, %iterArg_3, %iterArg_4, %iterArg_5) : (tensor<10xf32>, tensor<i32>, tensor<i32>, tensor<10xf32>) -> (tensor<i32>, tensor<i32>, tensor<10xf32>)
      %c_6 = stablehlo.constant dense<1> : tensor<i32>
      %3 = stablehlo.add %iterArg_2, %c_6 : tensor<i32>
      stablehlo.return %iterArg, %3, %2#0, %2#1, %2#2 : tensor<10xf32>, tensor<i32>, tensor<i32>, tensor<i32>, tensor<10xf32>
    }
    return %1#3, %1#4 : tensor<i32>, tensor<10xf32>
  }
  func.func private @closed_call(%arg0: tensor<10xf32>, %arg1: tensor<i32>, %arg2: tensor<i32>, %arg3: tensor<10xf32>) -> (tensor<i32>, tensor<i32>, tensor<10xf32>) {
    %c = stablehlo.constant dense<1> : tensor<i32>
    %0 = stablehlo.add %arg1, %c : tensor<i32>
    %c_0 = stablehlo.constant dense<1> : tensor<i32>
    %1 = stablehlo.add %arg2, %c_0 : tensor<i32>
    %2 = stablehlo.add %arg3, %arg0 : tensor<10xf32>
    return %0, %1, %2 : tensor<i32>, tensor<i32>, tensor<10xf32>
  }
}
