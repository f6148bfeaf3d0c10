module @jit__heat attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<6x7xf32>, %arg1: tensor<i32>) -> (tensor<6x7xf32> {jax.result_info = "result[0]"}, tensor<9x9xf32> {jax.result_info = "result[1]"}, tensor<8x4xf32> {jax.result_info = "result[2]"}) {
    %c = stablehlo.constant dense<0> : tensor<i32>
    %0:3 = stablehlo.while(%iterArg = %c, %iterArg_1 = %arg1, %iterArg_2 = %arg0) : tensor<i32>, tensor<i32>, tensor<6x7xf32>
    cond {
      %7 = stablehlo.compare LT, %iterArg, %iterArg_1, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
      stablehlo.return %7 : tensor<i1>
    } do {
      %c_3 = stablehlo.constant dense<1> : tensor<i32>
      %7 = stablehlo.add %iterArg, %c_3 : tensor<i32>
      %8 = func.call @_roll_static(%iterArg_2) : (tensor<6x7xf32>) -> tensor<6x7xf32>
      %9 = func.call @_roll_static_0(%iterArg_2) : (tensor<6x7xf32>) -> tensor<6x7xf32>
      %10 = stablehlo.add %8, %9 : tensor<6x7xf32>
      %11 = func.call @_roll_static_1(%iterArg_2) : (tensor<6x7xf32>) -> tensor<6x7xf32>
      %12 = stablehlo.add %10, %11 : tensor<6x7xf32>
      %13 = func.call @_roll_static_2(%iterArg_2) : (tensor<6x7xf32>) -> tensor<6x7xf32>
      %14 = stablehlo.add %12, %13 : tensor<6x7xf32>
      %cst = stablehlo.constant dense<4.000000e+00> : tensor<f32>
      %15 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f32>) -> tensor<6x7xf32>
      %16 = stablehlo.multiply %15, %iterArg_2 : tensor<6x7xf32>
      %17 = stablehlo.subtract %14, %16 : tensor<6x7xf32>
      %cst_4 = stablehlo.constant dense<1.000000e-01> : tensor<f32>
      %18 = stablehlo.broadcast_in_dim %cst_4, dims = [] : (tensor<f32>) -> tensor<6x7xf32>
      %19 = stablehlo.multiply %18, %17 : tensor<6x7xf32>
      %20 = stablehlo.add %iterArg_2, %19 : tensor<6x7xf32>
      stablehlo.return %7, %iterArg_1, %20 : tensor<i32>, tensor<i32>, tensor<6x7xf32>
    }
    %c_0 = stablehlo.constant dense<0> : tensor<i32>
    %1 = call @_pad(%0#2, %c_0) : (tensor<6x7xf32>, tensor<i32>) -> tensor<9x9xf32>
    %2 = stablehlo.slice %0#2 [0:4, 0:4] : (tensor<6x7xf32>) -> tensor<4x4xf32>
    %3 = call @triu(%2) : (tensor<4x4xf32>) -> tensor<4x4xf32>
    %4 = stablehlo.reshape %3 : (tensor<4x4xf32>) -> tensor<1x4x1x4xf32>
    %5 = stablehlo.broadcast_in_dim %4, dims = [0, 1, 2, 3] : (tensor<1x4x1x4xf32>) -> tensor<2x4x1x4xf32>
    %6 = stablehlo.reshape %5 : (tensor<2x4x1x4xf32>) -> tensor<8x4xf32>
    return %0#2, %1, %6 : tensor<6x7xf32>, tensor<9x9xf32>, tensor<8x4xf32>
  }
  func.func private @_roll_static(%arg0: tensor<6x7xf32>) -> tensor<6x7xf32> {
    %0 = stablehlo.slice %arg0 [0:6, 6:7] : (tensor<6x7xf32>) -> tensor<6x1xf32>
    %1 = stablehlo.slice %arg0 [0:6, 0:6] : (tensor<6x7xf32>) -> tensor<6x6xf32>
    %2 = stablehlo.concatenate %0, %1, dim = 1 : (tensor<6x1xf32>, tensor<6x6xf32>) -> tensor<6x7xf32>
    return %2 : tensor<6x7xf32>
  }
  func.func private @_roll_static_0(%arg0: tensor<6x7xf32>) -> tensor<6x7xf32> {
    %0 = stablehlo.slice %arg0 [0:6, 1:7] : (tensor<6x7xf32>) -> tensor<6x6xf32>
    %1 = stablehlo.slice %arg0 [0:6, 0:1] : (tensor<6x7xf32>) -> tensor<6x1xf32>
    %2 = stablehlo.concatenate %0, %1, dim = 1 : (tensor<6x6xf32>, tensor<6x1xf32>) -> tensor<6x7xf32>
    return %2 : tensor<6x7xf32>
  }
  func.func private @_roll_static_1(%arg0: tensor<6x7xf32>) -> tensor<6x7xf32> {
    %0 = stablehlo.slice %arg0 [5:6, 0:7] : (tensor<6x7xf32>) -> tensor<1x7xf32>
    %1 = stablehlo.slice %arg0 [0:5, 0:7] : (tensor<6x7xf32>) -> tensor<5x7xf32>
    %2 = stablehlo.concatenate %0, %1, dim = 0 : (tensor<1x7xf32>, tensor<5x7xf32>) -> tensor<6x7xf32>
    return %2 : tensor<6x7xf32>
  }
  func.func private @_roll_static_2(%arg0: tensor<6x7xf32>) -> tensor<6x7xf32> {
    %0 = stablehlo.slice %arg0 [1:6, 0:7] : (tensor<6x7xf32>) -> tensor<5x7xf32>
    %1 = stablehlo.slice %arg0 [0:1, 0:7] : (tensor<6x7xf32>) -> tensor<1x7xf32>
    %2 = stablehlo.concatenate %0, %1, dim = 0 : (tensor<5x7xf32>, tensor<1x7xf32>) -> tensor<6x7xf32>
    return %2 : tensor<6x7xf32>
  }
  func.func private @_pad(%arg0: tensor<6x7xf32>, %arg1: tensor<i32>) -> tensor<9x9xf32> {
    %0 = stablehlo.slice %arg0 [0:1, 0:7] : (tensor<6x7xf32>) -> tensor<1x7xf32>
    %1 = stablehlo.slice %arg0 [1:2, 0:7] : (tensor<6x7xf32>) -> tensor<1x7xf32>
    %2 = call @_flip(%1) : (tensor<1x7xf32>) -> tensor<1x7xf32>
    %3 = stablehlo.concatenate %2, %arg0, dim = 0 : (tensor<1x7xf32>, tensor<6x7xf32>) -> tensor<7x7xf32>
    %4 = stablehlo.slice %3 [6:7, 0:7] : (tensor<7x7xf32>) -> tensor<1x7xf32>
    %5 = stablehlo.slice %3 [4:6, 0:7] : (tensor<7x7xf32>) -> tensor<2x7xf32>
    %6 = call @_flip_3(%5) : (tensor<2x7xf32>) -> tensor<2x7xf32>
    %7 = stablehlo.concatenate %3, %6, dim = 0 : (tensor<7x7xf32>, tensor<2x7xf32>) -> tensor<9x7xf32>
    %8 = stablehlo.slice %7 [0:9, 0:1] : (tensor<9x7xf32>) -> tensor<9x1xf32>
    %9 = stablehlo.slice %7 [0:9, 1:3] : (tensor<9x7xf32>) -> tensor<9x2xf32>
    %10 = call @_flip_4(%9) : (tensor<9x2xf32>) -> tensor<9x2xf32>
    %11 = stablehlo.concatenate %10, %7, dim = 1 : (tensor<9x2xf32>, tensor<9x7xf32>) -> tensor<9x9xf32>
    %12 = stablehlo.slice %11 [0:9, 8:9] : (tensor<9x9xf32>) -> tensor<9x1xf32>
    return %11 : tensor<9x9xf32>
  }
  func.func private @_flip(%arg0: tensor<1x7xf32>) -> tensor<1x7xf32> {
    %0 = stablehlo.reverse %arg0, dims = [0] : tensor<1x7xf32>
    return %0 : tensor<1x7xf32>
  }
  func.func private @_flip_3(%arg0: tensor<2x7xf32>) -> tensor<2x7xf32> {
    %0 = stablehlo.reverse %arg0, dims = [0] : tensor<2x7xf32>
    return %0 : tensor<2x7xf32>
  }
  func.func private @_flip_4(%arg0: tensor<9x2xf32>) -> tensor<9x2xf32> {
    %0 = stablehlo.reverse %arg0, dims = [1] : tensor<9x2xf32>
    return %0 : tensor<9x2xf32>
  }
  func.func private @triu(%arg0: tensor<4x4xf32>) -> tensor<4x4xf32> {
    %0 = stablehlo.iota dim = 0 : tensor<4x4xi32>
    %c = stablehlo.constant dense<0> : tensor<i32>
    %1 = stablehlo.broadcast_in_dim %c, dims = [] : (tensor<i32>) -> tensor<4x4xi32>
    %2 = stablehlo.add %0, %1 : tensor<4x4xi32>
    %3 = stablehlo.iota dim = 1 : tensor<4x4xi32>
    %4 = stablehlo.compare GE, %2, %3, SIGNED : (tensor<4x4xi32>, tensor<4x4xi32>) -> tensor<4x4xi1>
    %cst = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %5 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f32>) -> tensor<4x4xf32>
    %6 = stablehlo.select %4, %5, %arg0 : tensor<4x4xi1>, tensor<4x4xf32>
    return %6 : tensor<4x4xf32>
  }
}
