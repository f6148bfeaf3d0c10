module @jit__scan_variants attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<8x5xf32>, %arg1: tensor<5xf32>, %arg2: tensor<5x5xf32>) -> (tensor<5xf32> {jax.result_info = "result[0]"}, tensor<i32> {jax.result_info = "result[1]"}, tensor<8xf32> {jax.result_info = "result[2]"}, tensor<8xi32> {jax.result_info = "result[3]"}) {
    %c = stablehlo.constant dense<0> : tensor<i32>
    %0 = stablehlo.slice %arg0 [0:2, 0:5] : (tensor<8x5xf32>) -> tensor<2x5xf32>
    %1 = stablehlo.slice %arg0 [2:8, 0:5] : (tensor<8x5xf32>) -> tensor<6x5xf32>
    %2 = stablehlo.reshape %1 : (tensor<6x5xf32>) -> tensor<2x3x5xf32>
    %cst = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %3 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f32>) -> tensor<2x3xf32>
    %c_0 = stablehlo.constant dense<0> : tensor<i32>
    %4 = stablehlo.broadcast_in_dim %c_0, dims = [] : (tensor<i32>) -> tensor<2x3xi32>
    %c_1 = stablehlo.constant dense<0> : tensor<i32>
    %5:7 = stablehlo.while(%iterArg = %2, %iterArg_2 = %arg2, %iterArg_3 = %c_1, %iterArg_4 = %arg1, %iterArg_5 = %c, %iterArg_6 = %3, %iterArg_7 = %4) : tensor<2x3x5xf32>, tensor<5x5xf32>, tensor<i32>, tensor<5xf32>, tensor<i32>, tensor<2x3xf32>, tensor<2x3xi32>
    cond {
      %c_8 = stablehlo.constant dense<2> : tensor<i32>
      %22 = stablehlo.compare LT, %iterArg_3, %c_8, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
      stablehlo.return %22 : tensor<i1>
    } do {
      %c_8 = stablehlo.constant dense<2> : tensor<i32>
      %22 = stablehlo.subtract %c_8, %iterArg_3 : tensor<i32>
      %c_9 = stablehlo.constant dense<1> : tensor<i32>
      %23 = stablehlo.subtract %22, %c_9 : tensor<i32>
      %24 = func.call @dynamic_index_in_dim(%iterArg, %23) : (tensor<2x3x5xf32>, tensor<i32>) -> tensor<3x5xf32>
      %25 = stablehlo.slice %24 [2:3, 0:5] : (tensor<3x5xf32>) -> tensor<1x5xf32>
      %26 = stablehlo.reshape %25 : (tensor<1x5xf32>) -> tensor<5xf32>
      %27:4 = func.call @closed_call(%iterArg_2, %iterArg_4, %iterArg_5, %26) : (tensor<5x5xf32>, tensor<5xf32>, tensor<i32>, tensor<5xf32>) -> (tensor<5xf32>, tensor<i32>, tensor<f32>, tensor<i32>)
      %28 = stablehlo.slice %24 [1:2, 0:5] : (tensor<3x5xf32>) -> tensor<1x5xf32>
      %29 = stablehlo.reshape %28 : (tensor<1x5xf32>) -> tensor<5xf32>
      %30:4 = func.call @closed_call(%iterArg_2, %27#0, %27#1, %29) : (tensor<5x5xf32>, tensor<5xf32>, tensor<i32>, tensor<5xf32>) -> (tensor<5xf32>, tensor<i32>, tensor<f32>, tensor<i32>)
      %31 = stablehlo.slice %24 [0:1, 0:5] : (tensor<3x5xf32>) -> tensor<1x5xf32>
      %32 = stablehlo.reshape %31 : (tensor<1x5xf32>) -> tensor<5xf32>
      %33:4 = func.call @closed_call(%iterArg_2, %30#0, %30#1, %32) : (tensor<5x5xf32>, tensor<5xf32>, tensor<i32>, tensor<5xf32>) -> (tensor<5xf32>, tensor<i32>, tensor<f32>, tensor<i32>)
      %34 = stablehlo.broadcast_in_dim %33#2, dims = [] : (tensor<f32>) -> tensor<1xf32>
      %35 = stablehlo.broadcast_in_dim %30#2, dims = [] : (tensor<f32>) -> tensor<1xf32>
      %36 = stablehlo.broadcast_in_dim %27#2, dims = [] : (tensor<f32>) -> tensor<1xf32>
      %37 = stablehlo.concatenate %34, %35, %36, dim = 0 : (tensor<1xf32>, tensor<1xf32>, tensor<1xf32>) -> tensor<3xf32>
      %38 = stablehlo.broadcast_in_dim %33#3, dims = [] : (tensor<i32>) -> tensor<1xi32>
      %39 = stablehlo.broadcast_in_dim %30#3, dims = [] : (tensor<i32>) -> tensor<1xi32>
      %40 = stablehlo.broadcast_in_dim %27#3, dims = [] : (tensor<i32>) -> tensor<1xi32>
      %41 = stablehlo.concatenate %38, %39, %40, dim = 0 : (tensor<1xi32>, tensor<1xi32>, tensor<1xi32>) -> tensor<3xi32>
      %42 = func.call @dynamic_update_index_in_dim(%iterArg_6, %37, %23) : (tensor<2x3xf32>, tensor<3xf32>, tensor<i32>) -> tensor<2x3xf32>
      %43 = func.call @dynamic_update_index_in_dim_0(%iterArg_7, %41, %23) : (tensor<2x3xi32>, tensor<3xi32>, tensor<i32>) -> tensor<2x3xi32>
      %c_10 = stablehlo.constant dense<1> : tensor<i32>
      %44 = stablehlo.add %iterArg_3, %c_10 : tensor<i32>
      stablehlo.return %iterArg, %iterArg_2, %44, %33#0, %33#1, %42, %43 : tensor<2x3x5xf32>, tensor<5x5xf32>, tensor<i32>, tensor<5xf32>, tensor<i32>, tensor<2x3xf32>, tensor<2x3xi32>
    }
    %6 = stablehlo.reshape %5#5 : (tensor<2x3xf32>) -> tensor<6xf32>
    %7 = stablehlo.reshape %5#6 : (tensor<2x3xi32>) -> tensor<6xi32>
    %8 = stablehlo.slice %0 [1:2, 0:5] : (tensor<2x5xf32>) -> tensor<1x5xf32>
    %9 = stablehlo.reshape %8 : (tensor<1x5xf32>) -> tensor<5xf32>
    %10:4 = call @closed_call(%arg2, %5#3, %5#4, %9) : (tensor<5x5xf32>, tensor<5xf32>, tensor<i32>, tensor<5xf32>) -> (tensor<5xf32>, tensor<i32>, tensor<f32>, tensor<i32>)
    %11 = stablehlo.slice %0 [0:1, 0:5] : (tensor<2x5xf32>) -> tensor<1x5xf32>
    %12 = stablehlo.reshape %11 : (tensor<1x5xf32>) -> tensor<5xf32>
    %13:4 = call @closed_call(%arg2, %10#0, %10#1, %12) : (tensor<5x5xf32>, tensor<5xf32>, tensor<i32>, tensor<5xf32>) -> (tensor<5xf32>, tensor<i32>, tensor<f32>, tensor<i32>)
    %14 = stablehlo.broadcast_in_dim %13#2, dims = [] : (tensor<f32>) -> tensor<1xf32>
    %15 = stablehlo.broadcast_in_dim %10#2, dims = [] : (tensor<f32>) -> tensor<1xf32>
    %16 = stablehlo.concatenate %14, %15, dim = 0 : (tensor<1xf32>, tensor<1xf32>) -> tensor<2xf32>
    %17 = stablehlo.broadcast_in_dim %13#3, dims = [] : (tensor<i32>) -> tensor<1xi32>
    %18 = stablehlo.broadcast_in_dim %10#3, dims = [] : (tensor<i32>) -> tensor<1xi32>
    %19 = stablehlo.concatenate %17, %18, dim = 0 : (tensor<1xi32>, tensor<1xi32>) -> tensor<2xi32>
    %20 = stablehlo.concatenate %16, %6, dim = 0 : (tensor<2xf32>, tensor<6xf32>) -> tensor<8xf32>
    %21 = stablehlo.concatenate %19, %7, dim = 0 : (tensor<2xi32>, tensor<6xi32>) -> tensor<8xi32>
    return %13#0, %13#1, %20, %21 : tensor<5xf32>, tensor<i32>, tensor<8xf32>, tensor<8xi32>
  }
  func.func private @dynamic_index_in_dim(%arg0: tensor<2x3x5xf32>, %arg1: tensor<i32>) -> tensor<3x5xf32> {
    %c = stablehlo.constant dense<0> : tensor<i32>
    %c_0 = stablehlo.constant dense<0> : tensor<i32>
    %0 = stablehlo.dynamic_slice %arg0, %arg1, %c, %c_0, sizes = [1, 3, 5] : (tensor<2x3x5xf32>, tensor<i32>, tensor<i32>, tensor<i32>) -> tensor<1x3x5xf32>
    %1 = stablehlo.reshape %0 : (tensor<1x3x5xf32>) -> tensor<3x5xf32>
    return %1 : tensor<3x5xf32>
  }
  func.func private @closed_call(%arg0: tensor<5x5xf32>, %arg1: tensor<5xf32>, %arg2: tensor<i32>, %arg3: tensor<5xf32>) -> (tensor<5xf32>, tensor<i32>, tensor<f32>, tensor<i32>) {
    %0 = stablehlo.dot_general %arg1, %arg0, contracting_dims = [0] x [0], precision = [DEFAULT, DEFAULT] : (tensor<5xf32>, tensor<5x5xf32>) -> tensor<5xf32>
    %1 = stablehlo.add %0, %arg3 : tensor<5xf32>
    %2 = stablehlo.tanh %1 : tensor<5xf32>
    %cst = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %3 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f32>) -> tensor<5xf32>
    %4 = stablehlo.compare GT, %2, %3, FLOAT : (tensor<5xf32>, tensor<5xf32>) -> tensor<5xi1>
    %5 = stablehlo.convert %4 : (tensor<5xi1>) -> tensor<5xi32>
    %c = stablehlo.constant dense<0> : tensor<i32>
    %6 = stablehlo.reduce(%5 init: %c) applies stablehlo.add across dimensions = [0] : (tensor<5xi32>, tensor<i32>) -> tensor<i32>
    %7 = stablehlo.add %arg2, %6 : tensor<i32>
    %8 = stablehlo.multiply %2, %2 : tensor<5xf32>
    %cst_0 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %9 = stablehlo.reduce(%8 init: %cst_0) applies stablehlo.add across dimensions = [0] : (tensor<5xf32>, tensor<f32>) -> tensor<f32>
    %10 = stablehlo.sqrt %9 : tensor<f32>
    return %2, %7, %10, %6 : tensor<5xf32>, tensor<i32>, tensor<f32>, tensor<i32>
  }
  func.func private @dynamic_update_index_in_dim(%arg0: tensor<2x3xf32>, %arg1: tensor<3xf32>, %arg2: tensor<i32>) -> tensor<2x3xf32> {
    %0 = stablehlo.broadcast_in_dim %arg1, dims = [1] : (tensor<3xf32>) -> tensor<1x3xf32>
    %c = stablehlo.constant dense<0> : tensor<i32>
    %1 = stablehlo.dynamic_update_slice %arg0, %0, %arg2, %c : (tensor<2x3xf32>, tensor<1x3xf32>, tensor<i32>, tensor<i32>) -> tensor<2x3xf32>
    return %1 : tensor<2x3xf32>
  }
  func.func private @dynamic_update_index_in_dim_0(%arg0: tensor<2x3xi32>, %arg1: tensor<3xi32>, %arg2: tensor<i32>) -> tensor<2x3xi32> {
    %0 = stablehlo.broadcast_in_dim %arg1, dims = [1] : (tensor<3xi32>) -> tensor<1x3xi32>
    %c = stablehlo.constant dense<0> : tensor<i32>
    %1 = stablehlo.dynamic_update_slice %arg0, %0, %arg2, %c : (tensor<2x3xi32>, tensor<1x3xi32>, tensor<i32>, tensor<i32>) -> tensor<2x3xi32>
    return %1 : tensor<2x3xi32>
  }
}
