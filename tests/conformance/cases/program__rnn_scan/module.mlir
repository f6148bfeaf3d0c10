module @jit__rnn attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<7x2x3xf32>, %arg1: tensor<2x4xf32>, %arg2: tensor<3x4xf32>, %arg3: tensor<4x4xf32>, %arg4: tensor<4xf32>) -> (tensor<2x4xf32> {jax.result_info = "result[0]"}, tensor<7x2x4xf32> {jax.result_info = "result[1]"}) {
    %cst = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %0 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f32>) -> tensor<7x2x4xf32>
    %c = stablehlo.constant dense<0> : tensor<i32>
    %1:7 = stablehlo.while(%iterArg = %arg0, %iterArg_0 = %arg2, %iterArg_1 = %arg3, %iterArg_2 = %arg4, %iterArg_3 = %c, %iterArg_4 = %arg1, %iterArg_5 = %0) : tensor<7x2x3xf32>, tensor<3x4xf32>, tensor<4x4xf32>, tensor<4xf32>, tensor<i32>, tensor<2x4xf32>, tensor<7x2x4xf32>
    cond {
      %c_6 = stablehlo.constant dense<7> : tensor<i32>
      %2 = stablehlo.compare LT, %iterArg_3, %c_6, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
      stablehlo.return %2 : tensor<i1>
    } do {
      %2 = func.call @dynamic_index_in_dim(%iterArg, %iterArg_3) : (tensor<7x2x3xf32>, tensor<i32>) -> tensor<2x3xf32>
      %3:2 = func.call @closed_call(%iterArg_0, %iterArg_1, %iterArg_2, %iterArg_4, %2) : (tensor<3x4xf32>, tensor<4x4xf32>, tensor<4xf32>, tensor<2x4xf32>, tensor<2x3xf32>) -> (tensor<2x4xf32>, tensor<2x4xf32>)
      %4 = func.call @dynamic_update_index_in_dim(%iterArg_5, %3#1, %iterArg_3) : (tensor<7x2x4xf32>, tensor<2x4xf32>, tensor<i32>) -> tensor<7x2x4xf32>
      %c_6 = stablehlo.constant dense<1> : tensor<i32>
      %5 = stablehlo.add %iterArg_3, %c_6 : tensor<i32>
      stablehlo.return %iterArg, %iterArg_0, %iterArg_1, %iterArg_2, %5, %3#0, %4 : tensor<7x2x3xf32>, tensor<3x4xf32>, tensor<4x4xf32>, tensor<4xf32>, tensor<i32>, tensor<2x4xf32>, tensor<7x2x4xf32>
    }
    return %1#5, %1#6 : tensor<2x4xf32>, tensor<7x2x4xf32>
  }
  func.func private @dynamic_index_in_dim(%arg0: tensor<7x2x3xf32>, %arg1: tensor<i32>) -> tensor<2x3xf32> {
    %c = stablehlo.constant dense<0> : tensor<i32>
    %c_0 = stablehlo.constant dense<0> : tensor<i32>
    %0 = stablehlo.dynamic_slice %arg0, %arg1, %c, %c_0, sizes = [1, 2, 3] : (tensor<7x2x3xf32>, tensor<i32>, tensor<i32>, tensor<i32>) -> tensor<1x2x3xf32>
    %1 = stablehlo.reshape %0 : (tensor<1x2x3xf32>) -> tensor<2x3xf32>
    return %1 : tensor<2x3xf32>
  }
  func.func private @closed_call(%arg0: tensor<3x4xf32>, %arg1: tensor<4x4xf32>, %arg2: tensor<4xf32>, %arg3: tensor<2x4xf32>, %arg4: tensor<2x3xf32>) -> (tensor<2x4xf32>, tensor<2x4xf32>) {
    %0 = stablehlo.dot_general %arg4, %arg0, contracting_dims = [1] x [0], precision = [DEFAULT, DEFAULT] : (tensor<2x3xf32>, tensor<3x4xf32>) -> tensor<2x4xf32>
    %1 = stablehlo.dot_general %arg3, %arg1, contracting_dims = [1] x [0], precision = [DEFAULT, DEFAULT] : (tensor<2x4xf32>, tensor<4x4xf32>) -> tensor<2x4xf32>
    %2 = stablehlo.add %0, %1 : tensor<2x4xf32>
    %3 = stablehlo.broadcast_in_dim %arg2, dims = [1] : (tensor<4xf32>) -> tensor<1x4xf32>
    %4 = stablehlo.broadcast_in_dim %3, dims = [0, 1] : (tensor<1x4xf32>) -> tensor<2x4xf32>
    %5 = stablehlo.add %2, %4 : tensor<2x4xf32>
    %6 = stablehlo.tanh %5 : tensor<2x4xf32>
    return %6, %6 : tensor<2x4xf32>, tensor<2x4xf32>
  }
  func.func private @dynamic_update_index_in_dim(%arg0: tensor<7x2x4xf32>, %arg1: tensor<2x4xf32>, %arg2: tensor<i32>) -> tensor<7x2x4xf32> {
    %0 = stablehlo.broadcast_in_dim %arg1, dims = [1, 2] : (tensor<2x4xf32>) -> tensor<1x2x4xf32>
    %c = stablehlo.constant dense<0> : tensor<i32>
    %c_0 = stablehlo.constant dense<0> : tensor<i32>
    %1 = stablehlo.dynamic_update_slice %arg0, %0, %arg2, %c, %c_0 : (tensor<7x2x4xf32>, tensor<1x2x4xf32>, tensor<i32>, tensor<i32>, tensor<i32>) -> tensor<7x2x4xf32>
    return %1 : tensor<7x2x4xf32>
  }
}
