module @jit__lambda attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<3x3xi32>) -> (tensor<3x3xi32> {jax.result_info = "result"}) {
    %c = stablehlo.constant dense<0> : tensor<i32>
    %0 = stablehlo.broadcast_in_dim %c, dims = [] : (tensor<i32>) -> tensor<3x3xi32>
    %c_0 = stablehlo.constant dense<0> : tensor<i32>
    %1:3 = stablehlo.while(%iterArg = %arg0, %iterArg_1 = %c_0, %iterArg_2 = %0) : tensor<3x3xi32>, tensor<i32>, tensor<3x3xi32>
    cond {
      %c_3 = stablehlo.constant dense<3> : tensor<i32>
      %2 = stablehlo.compare LT, %iterArg_1, %c_3, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
      stablehlo.return %2 : tensor<i1>
    } do {
      %2 = func.call @dynamic_index_in_dim(%iterArg, %iterArg_1) : (tensor<3x3xi32>, tensor<i32>) -> tensor<3xi32>
      %3 = func.call @closed_call(%2) : (tensor<3xi32>) -> tensor<3xi32>
      %4 = func.call @dynamic_update_index_in_dim(%iterArg_2, %3, %iterArg_1) : (tensor<3x3xi32>, tensor<3xi32>, tensor<i32>) -> tensor<3x3xi32>
      %c_3 = stablehlo.constant dense<1> : tensor<i32>
      %5 = stablehlo.add %iterArg_1, %c_3 : tensor<i32>
      stablehlo.return %iterArg, %5, %4 : tensor<3x3xi32>, tensor<i32>, tensor<3x3xi32>
    }
    return %1#2 : tensor<3x3xi32>
  }
  func.func private @dynamic_index_in_dim(%arg0: tensor<3x3xi32>, %arg1: tensor<i32>) -> tensor<3xi32> {
    %c = stablehlo.constant dense<0> : tensor<i32>
    %0 = stablehlo.dynamic_slice %arg0, %arg1, %c, sizes = [1, 3] : (tensor<3x3xi32>, tensor<i32>, tensor<i32>) -> tensor<1x3xi32>
    %1 = stablehlo.reshape %0 : (tensor<1x3xi32>) -> tensor<3xi32>
    return %1 : tensor<3xi32>
  }
  func.func private @closed_call(%arg0: tensor<3xi32>) -> tensor<3xi32> {
    %0 = call @sort(%arg0) : (tensor<3xi32>) -> tensor<3xi32>
    %1 = stablehlo.reverse %0, dims = [0] : tensor<3xi32>
    return %1 : tensor<3xi32>
  }
  func.func private @sort(%arg0: tensor<3xi32>) -> tensor<3xi32> {
    %0 = "stablehlo.sort"(%arg0) <{dimension = 0 : i64, is_stable = true}> ({
    ^bb0(%arg1: tensor<i32>, %arg2: tensor<i32>):
      %1 = stablehlo.compare LT, %arg1, %arg2, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
      stablehlo.return %1 : tensor<i1>
    }) : (tensor<3xi32>) -> tensor<3xi32>
    return %0 : tensor<3xi32>
  }
  func.func private @dynamic_update_index_in_dim(%arg0: tensor<3x3xi32>, %arg1: tensor<3xi32>, %arg2: tensor<i32>) -> tensor<3x3xi32> {
    %0 = stablehlo.broadcast_in_dim %arg1, dims = [1] : (tensor<3xi32>) -> tensor<1x3xi32>
    %c = stablehlo.constant dense<0> : tensor<i32>
    %1 = stablehlo.dynamic_update_slice %arg0, %0, %arg2, %c : (tensor<3x3xi32>, tensor<1x3xi32>, tensor<i32>, tensor<i32>) -> tensor<3x3xi32>
    return %1 : tensor<3x3xi32>
  }
}
