module @jit__lstm attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<7x2x3xf32>, %arg1: tensor<2x4xf32>, %arg2: tensor<2x4xf32>, %arg3: tensor<3x16xf32>, %arg4: tensor<4x16xf32>, %arg5: tensor<16xf32>) -> (tensor<2x4xf32> {jax.result_info = "result[0][0]"}, tensor<2x4xf32> {jax.result_info = "result[0][1]"}, tensor<7x2x4xf32> {jax.result_info = "result[1]"}) {
    %cst = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %0 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f32>) -> tensor<7x2x4xf32>
    %c = stablehlo.constant dense<0> : tensor<i32>
    %1:8 = stablehlo.while(%iterArg = %arg0, %iterArg_0 = %arg3, %iterArg_1 = %arg4, %iterArg_2 = %arg5, %iterArg_3 = %c, %iterArg_4 = %arg1, %iterArg_5 = %arg2, %iterArg_6 = %0) : tensor<7x2x3xf32>, tensor<3x16xf32>, tensor<4x16xf32>, tensor<16xf32>, tensor<i32>, tensor<2x4xf32>, tensor<2x4xf32>, tensor<7x2x4xf32>
    cond {
      %c_7 = stablehlo.constant dense<7> : tensor<i32>
      %2 = stablehlo.compare LT, %iterArg_3, %c_7, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
      stablehlo.return %2 : tensor<i1>
    } do {
      %2 = func.call @dynamic_index_in_dim(%iterArg, %iterArg_3) : (tensor<7x2x3xf32>, tensor<i32>) -> tensor<2x3xf32>
      %3:3 = func.call @closed_call(%iterArg_0, %iterArg_1, %iterArg_2, %iterArg_4, %iterArg_5, %2) : (tensor<3x16xf32>, tensor<4x16xf32>, tensor<16xf32>, tensor<2x4xf32>, tensor<2x4xf32>, tensor<2x3xf32>) -> (tensor<2x4xf32>, tensor<2x4xf32>, tensor<2x4xf32>)
      %4 = func.call @dynamic_update_index_in_dim(%iterArg_6, %3#2, %iterArg_3) : (tensor<7x2x4xf32>, tensor<2x4xf32>, tensor<i32>) -> tensor<7x2x4xf32>
      %c_7 = stablehlo.constant dense<1> : tensor<i32>
      %5 = stablehlo.add %iterArg_3, %c_7 : tensor<i32>
      stablehlo.return %iterArg, %iterArg_0, %iterArg_1, %iterArg_2, %5, %3#0, %3#1, %4 : tensor<7x2x3xf32>, tensor<3x16xf32>, tensor<4x16xf32>, tensor<16xf32>, tensor<i32>, tensor<2x4xf32>, tensor<2x4xf32>, tensor<7x2x4xf32>
    }
    return %1#5, %1#6, %1#7 : tensor<2x4xf32>, tensor<2x4xf32>, tensor<7x2x4xf32>
  }
  func.func private @dynamic_index_in_dim(%arg0: tensor<7x2x3xf32>, %arg1: tensor<i32>) -> tensor<2x3xf32> {
    %c = stablehlo.constant dense<0> : tensor<i32>
    %c_0 = stablehlo.constant dense<0> : tensor<i32>
    %0 = stablehlo.dynamic_slice %arg0, %arg1, %c, %c_0, sizes = [1, 2, 3] : (tensor<7x2x3xf32>, tensor<i32>, tensor<i32>, tensor<i32>) -> tensor<1x2x3xf32>
    %1 = stablehlo.reshape %0 : (tensor<1x2x3xf32>) -> tensor<2x3xf32>
    return %1 : tensor<2x3xf32>
  }
  func.func private @closed_call(%arg0: tensor<3x16xf32>, %arg1: tensor<4x16xf32>, %arg2: tensor<16xf32>, %arg3: tensor<2x4xf32>, %arg4: tensor<2x4xf32>, %arg5: tensor<2x3xf32>) -> (tensor<2x4xf32>, tensor<2x4xf32>, tensor<2x4xf32>) {
    %0 = stablehlo.dot_general %arg5, %arg0, contracting_dims = [1] x [0], precision = [DEFAULT, DEFAULT] : (tensor<2x3xf32>, tensor<3x16xf32>) -> tensor<2x16xf32>
    %1 = stablehlo.dot_general %arg3, %arg1, contracting_dims = [1] x [0], precision = [DEFAULT, DEFAULT] : (tensor<2x4xf32>, tensor<4x16xf32>) -> tensor<2x16xf32>
    %2 = stablehlo.add %0, %1 : tensor<2x16xf32>
    %3 = stablehlo.broadcast_in_dim %arg2, dims = [1] : (tensor<16xf32>) -> tensor<1x16xf32>
    %4 = stablehlo.broadcast_in_dim %3, dims = [0, 1] : (tensor<1x16xf32>) -> tensor<2x16xf32>
    %5 = stablehlo.add %2, %4 : tensor<2x16xf32>
    %6 = stablehlo.slice %5 [0:2, 0:4] : (tensor<2x16xf32>) -> tensor<2x4xf32>
    %7 = stablehlo.slice %5 [0:2, 4:8] : (tensor<2x16xf32>) -> tensor<2x4xf32>
    %8 = stablehlo.slice %5 [0:2, 8:12] : (tensor<2x16xf32>) -> tensor<2x4xf32>
    %9 = stablehlo.slice %5 [0:2, 12:16] : (tensor<2x16xf32>) -> tensor<2x4xf32>
    %10 = stablehlo.negate %7 : tensor<2x4xf32>
    %11 = stablehlo.exponential %10 : tensor<2x4xf32>
    %cst = stablehlo.constant dense<1.000000e+00> : tensor<f32>
    %12 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f32>) -> tensor<2x4xf32>
    %13 = stablehlo.add %12, %11 : tensor<2x4xf32>
    %cst_0 = stablehlo.constant dense<1.000000e+00> : tensor<f32>
    %14 = stablehlo.broadcast_in_dim %cst_0, dims = [] : (tensor<f32>) -> tensor<2x4xf32>
    %15 = stablehlo.divide %14, %13 : tensor<2x4xf32>
    %16 = stablehlo.multiply %15, %arg4 : tensor<2x4xf32>
    %17 = stablehlo.negate %6 : tensor<2x4xf32>
    %18 = stablehlo.exponential %17 : tensor<2x4xf32>
    %cst_1 = stablehlo.constant dense<1.000000e+00> : tensor<f32>
    %19 = stablehlo.broadcast_in_dim %cst_1, dims = [] : (tensor<f32>) -> tensor<2x4xf32>
    %20 = stablehlo.add %19, %18 : tensor<2x4xf32>
    %cst_2 = stablehlo.constant dense<1.000000e+00> : tensor<f32>
    %21 = stablehlo.broadcast_in_dim %cst_2, dims = [] : (tensor<f32>) -> tensor<2x4xf32>
    %22 = stablehlo.divide %21, %20 : tensor<2x4xf32>
    %23 = stablehlo.tanh %8 : tensor<2x4xf32>
    %24 = stablehlo.multiply %22, %23 : tensor<2x4xf32>
    %25 = stablehlo.add %16, %24 : tensor<2x4xf32>
    %26 = stablehlo.negate %9 : tensor<2x4xf32>
    %27 = stablehlo.exponential %26 : tensor<2x4xf32>
    %cst_3 = stablehlo.constant dense<1.000000e+00> : tensor<f32>
    %28 = stablehlo.broadcast_in_dim %cst_3, dims = [] : (tensor<f32>) -> tensor<2x4xf32>
    %29 = stablehlo.add %28, %27 : tensor<2x4xf32>
    %cst_4 = stablehlo.constant dense<1.000000e+00> : tensor<f32>
    %30 = stablehlo.broadcast_in_dim %cst_4, dims = [] : (tensor<f32>) -> tensor<2x4xf32>
    %31 = stablehlo.divide %30, %29 : tensor<2x4xf32>
    %32 = stablehlo.tanh %25 : tensor<2x4xf32>
    %33 = stablehlo.multiply %31, %32 : tensor<2x4xf32>
    return %33, %25, %33 : tensor<2x4xf32>, tensor<2x4xf32>, tensor<2x4xf32>
  }
  func.func private @dynamic_update_index_in_dim(%arg0: tensor<7x2x4xf32>, %arg1: tensor<2x4xf32>, %arg2: tensor<i32>) -> tensor<7x2x4xf32> {
    %0 = stablehlo.broadcast_in_dim %arg1, dims = [1, 2] : (tensor<2x4xf32>) -> tensor<1x2x4xf32>
    %c = stablehlo.constant dense<0> : tensor<i32>
    %c_0 = stablehlo.constant dense<0> : tensor<i32>
    %1 = stablehlo.dynamic_update_slice %arg0, %0, %arg2, %c, %c_0 : (tensor<7x2x4xf32>, tensor<1x2x4xf32>, tensor<i32>, tensor<i32>, tensor<i32>) -> tensor<7x2x4xf32>
    return %1 : tensor<7x2x4xf32>
  }
}
