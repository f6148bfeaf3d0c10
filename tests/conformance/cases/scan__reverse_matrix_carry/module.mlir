module @jit__lambda attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<3x3xi32>, %arg1: tensor<5x3xi32>) -> (tensor<3xi32> {jax.result_info = "result[0]"}, tensor<5xi32> {jax.result_info = "result[1]"}) {
    %c = stablehlo.constant dense<0> : tensor<i32>
    %0 = stablehlo.broadcast_in_dim %c, dims = [] : (tensor<i32>) -> tensor<3xi32>
    %c_0 = stablehlo.constant dense<0> : tensor<i32>
    %1 = stablehlo.broadcast_in_dim %c_0, dims = [] : (tensor<i32>) -> tensor<5xi32>
    %c_1 = stablehlo.constant dense<0> : tensor<i32>
    %2:5 = stablehlo.while(%iterArg = %arg1, %iterArg_2 = %arg0, %iterArg_3 = %c_1, %iterArg_4 = %0, %iterArg_5 = %1) : tensor<5x3xi32>, tensor<3x3xi32>, tensor<i32>, tensor<3xi32>, tensor<5xi32>
    cond {
      %c_6 = stablehlo.constant dense<5> : tensor<i32>
      %3 = stablehlo.compare LT, %iterArg_3, %c_6, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
      stablehlo.return %3 : tensor<i1>
    } do {
      %c_6 = stablehlo.constant dense<5> : tensor<i32>
      %3 = stablehlo.subtract %c_6, %iterArg_3 : tensor<i32>
      %c_7 = stablehlo.constant dense<1> : tensor<i32>
      %4 = stablehlo.subtract %3, %c_7 : tensor<i32>
      %5 = func.call @dynamic_index_in_dim(%iterArg, %4) : (tensor<5x3xi32>, tensor<i32>) -> tensor<3xi32>
      %6:2 = func.call @closed_call(%iterArg_2, %iterArg_4, %5) : (tensor<3x3xi32>, tensor<3xi32>, tensor<3xi32>) -> (tensor<3xi32>, tensor<i32>)
      %7 = func.call @dynamic_update_index_in_dim(%iterArg_5, %6#1, %4) : (tensor<5xi32>, tensor<i32>, tensor<i32>) -> tensor<5xi32>
      %c_8 = stablehlo.constant dense<1> : tensor<i32>
      %8 = stablehlo.add %iterArg_3, %c_8 : tensor<i32>
      stablehlo.return %iterArg, %iterArg_2, %8, %6#0, %7 : tensor<5x3xi32>, tensor<3x3xi32>, tensor<i32>, tensor<3xi32>, tensor<5xi32>
    }
    return %2#3, %2#4 : tensor<3xi32>, tensor<5xi32>
  }
  func.func private @dynamic_index_in_dim(%arg0: tensor<5x3xi32>, %arg1: tensor<i32>) -> tensor<3xi32> {
    %c = stablehlo.constant dense<0> : tensor<i32>
    %0 = stablehlo.dynamic_slice %arg0, %arg1, %c, sizes = [1, 3] : (tensor<5x3xi32>, tensor<i32>, tensor<i32>) -> tensor<1x3xi32>
    %1 = stablehlo.reshape %0 : (tensor<1x3xi32>) -> tensor<3xi32>
    return %1 : tensor<3xi32>
  }
  func.func private @closed_call(%arg0: tensor<3x3xi32>, %arg1: tensor<3xi32>, %arg2: tensor<3xi32>) -> (tensor<3xi32>, tensor<i32>) {
    %0 = stablehlo.dot_general %arg0, %arg1, contracting_dims = [1] x [0], precision = [DEFAULT, DEFAULT] : (tensor<3x3xi32>, tensor<3xi32>) -> tensor<3xi32>
    %1 = stablehlo.add %0, %arg2 : tensor<3xi32>
    %c = stablehlo.constant dense<0> : tensor<i32>
    %2 = stablehlo.reduce(%arg1 init: %c) applies stablehlo.add across dimensions = [0] : (tensor<3xi32>, tensor<i32>) -> tensor<i32>
    return %1, %2 : tensor<3xi32>, tensor<i32>
  }
  func.func private @dynamic_update_index_in_dim(%arg0: tensor<5xi32>, %arg1: tensor<i32>, %arg2: tensor<i32>) -> tensor<5xi32> {
    %0 = stablehlo.broadcast_in_dim %arg1, dims = [] : (tensor<i32>) -> tensor<1xi32>
    %1 = stablehlo.dynamic_update_slice %arg0, %0, %arg2 : (tensor<5xi32>, tensor<1xi32>, tensor<i32>) -> tensor<5xi32>
    return %1 : tensor<5xi32>
  }
}
