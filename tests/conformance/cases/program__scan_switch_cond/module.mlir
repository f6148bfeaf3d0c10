module @jit__scan_switch attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<6xf32>, %arg1: tensor<10xi32>, %arg2: tensor<10xf32>) -> (tensor<6xf32> {jax.result_info = "result[0]"}, tensor<10xf32> {jax.result_info = "result[1]"}) {
    %cst = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %0 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f32>) -> tensor<10xf32>
    %c = stablehlo.constant dense<0> : tensor<i32>
    %1:5 = stablehlo.while(%iterArg = %arg1, %iterArg_0 = %arg2, %iterArg_1 = %c, %iterArg_2 = %arg0, %iterArg_3 = %0) : tensor<10xi32>, tensor<10xf32>, tensor<i32>, tensor<6xf32>, tensor<10xf32>
    cond {
      %c_4 = stablehlo.constant dense<10> : tensor<i32>
      %2 = stablehlo.compare LT, %iterArg_1, %c_4, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
      stablehlo.return %2 : tensor<i1>
    } do {
      %2 = func.call @dynamic_index_in_dim(%iterArg, %iterArg_1) : (tensor<10xi32>, tensor<i32>) -> tensor<i32>
      %3 = func.call @dynamic_index_in_dim_0(%iterArg_0, %iterArg_1) : (tensor<10xf32>, tensor<i32>) -> tensor<f32>
      %4:2 = func.call @closed_call(%iterArg_2, %2, %3) : (tensor<6xf32>, tensor<i32>, tensor<f32>) -> (tensor<6xf32>, tensor<f32>)
      %5 = func.call @dynamic_update_index_in_dim(%iterArg_3, %4#1, %iterArg_1) : (tensor<10xf32>, tensor<f32>, tensor<i32>) -> tensor<10xf32>
      %c_4 = stablehlo.constant dense<1> : tensor<i32>
      %6 = stablehlo.add %iterArg_1, %c_4 : tensor<i32>
      stablehlo.return %iterArg, %iterArg_0, %6, %4#0, %5 : tensor<10xi32>, tensor<10xf32>, tensor<i32>, tensor<6xf32>, tensor<10xf32>
    }
    return %1#3, %1#4 : tensor<6xf32>, tensor<10xf32>
  }
  func.func private @dynamic_index_in_dim(%arg0: tensor<10xi32>, %arg1: tensor<i32>) -> tensor<i32> {
    %0 = stablehlo.dynamic_slice %arg0, %arg1, sizes = [1] : (tensor<10xi32>, tensor<i32>) -> tensor<1xi32>
    %1 = stablehlo.reshape %0 : (tensor<1xi32>) -> tensor<i32>
    return %1 : tensor<i32>
  }
  func.func private @dynamic_index_in_dim_0(%arg0: tensor<10xf32>, %arg1: tensor<i32>) -> tensor<f32> {
    %0 = stablehlo.dynamic_slice %arg0, %arg1, sizes = [1] : (tensor<10xf32>, tensor<i32>) -> tensor<1xf32>
    %1 = stablehlo.reshape %0 : (tensor<1xf32>) -> tensor<f32>
    return %1 : tensor<f32>
  }
  func.func private @closed_call(%arg0: tensor<6xf32>, %arg1: tensor<i32>, %arg2: tensor<f32>) -> (tensor<6xf32>, tensor<f32>) {
    %c = stablehlo.constant dense<0> : tensor<i32>
    %c_0 = stablehlo.constant dense<2> : tensor<i32>
    %0 = stablehlo.clamp %c, %arg1, %c_0 : tensor<i32>
    %1 = "stablehlo.case"(%0) ({
      %cst_3 = stablehlo.constant dense<0.899999976> : tensor<f32>
      %8 = stablehlo.broadcast_in_dim %cst_3, dims = [] : (tensor<f32>) -> tensor<6xf32>
      %9 = stablehlo.multiply %8, %arg0 : tensor<6xf32>
      %10 = stablehlo.broadcast_in_dim %arg2, dims = [] : (tensor<f32>) -> tensor<6xf32>
      %11 = stablehlo.add %9, %10 : tensor<6xf32>
      stablehlo.return %11 : tensor<6xf32>
    }, {
      %8 = stablehlo.sine %arg0 : tensor<6xf32>
      %9 = stablehlo.broadcast_in_dim %arg2, dims = [] : (tensor<f32>) -> tensor<6xf32>
      %10 = stablehlo.multiply %8, %9 : tensor<6xf32>
      stablehlo.return %10 : tensor<6xf32>
    }, {
      %cst_3 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
      %8 = stablehlo.reduce(%arg0 init: %cst_3) applies stablehlo.add across dimensions = [0] : (tensor<6xf32>, tensor<f32>) -> tensor<f32>
      %cst_4 = stablehlo.constant dense<6.000000e+00> : tensor<f32>
      %9 = stablehlo.divide %8, %cst_4 : tensor<f32>
      %10 = stablehlo.broadcast_in_dim %9, dims = [] : (tensor<f32>) -> tensor<6xf32>
      %11 = stablehlo.subtract %arg0, %10 : tensor<6xf32>
      %cst_5 = stablehlo.constant dense<2.500000e-01> : tensor<f32>
      %12 = stablehlo.broadcast_in_dim %cst_5, dims = [] : (tensor<f32>) -> tensor<6xf32>
      %13 = stablehlo.add %11, %12 : tensor<6xf32>
      stablehlo.return %13 : tensor<6xf32>
    }) : (tensor<i32>) -> tensor<6xf32>
    %cst = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %2 = stablehlo.reduce(%1 init: %cst) applies stablehlo.add across dimensions = [0] : (tensor<6xf32>, tensor<f32>) -> tensor<f32>
    %cst_1 = stablehlo.constant dense<1.000000e+00> : tensor<f32>
    %3 = stablehlo.compare GT, %2, %cst_1, FLOAT : (tensor<f32>, tensor<f32>) -> tensor<i1>
    %4 = stablehlo.convert %3 : (tensor<i1>) -> tensor<i32>
    %5 = "stablehlo.case"(%4) ({
      %8 = stablehlo.negate %1 : tensor<6xf32>
      stablehlo.return %8 : tensor<6xf32>
    }, {
      %cst_3 = stablehlo.constant dense<5.000000e-01> : tensor<f32>
      %8 = stablehlo.broadcast_in_dim %cst_3, dims = [] : (tensor<f32>) -> tensor<6xf32>
      %9 = stablehlo.multiply %1, %8 : tensor<6xf32>
      stablehlo.return %9 : tensor<6xf32>
    }) : (tensor<i32>) -> tensor<6xf32>
    %6 = stablehlo.multiply %5, %5 : tensor<6xf32>
    %cst_2 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %7 = stablehlo.reduce(%6 init: %cst_2) applies stablehlo.add across dimensions = [0] : (tensor<6xf32>, tensor<f32>) -> tensor<f32>
    return %5, %7 : tensor<6xf32>, tensor<f32>
  }
  func.func private @dynamic_update_index_in_dim(%arg0: tensor<10xf32>, %arg1: tensor<f32>, %arg2: tensor<i32>) -> tensor<10xf32> {
    %0 = stablehlo.broadcast_in_dim %arg1, dims = [] : (tensor<f32>) -> tensor<1xf32>
    %1 = stablehlo.dynamic_update_slice %arg0, %0, %arg2 : (tensor<10xf32>, tensor<1xf32>, tensor<i32>) -> tensor<10xf32>
    return %1 : tensor<10xf32>
  }
}
