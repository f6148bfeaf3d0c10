module @jit__selects attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<7xi32>, %arg1: tensor<7xf32>, %arg2: tensor<7xf32>, %arg3: tensor<7xf32>) -> (tensor<7xf32> {jax.result_info = "result[0]"}, tensor<7xf32> {jax.result_info = "result[1]"}, tensor<7xf32> {jax.result_info = "result[2]"}, tensor<7xf32> {jax.result_info = "result[3]"}) {
    %c = stablehlo.constant dense<1> : tensor<i32>
    %0 = stablehlo.broadcast_in_dim %c, dims = [] : (tensor<i32>) -> tensor<7xi32>
    %1 = stablehlo.compare LT, %arg0, %0, SIGNED : (tensor<7xi32>, tensor<7xi32>) -> tensor<7xi1>
    %c_0 = stablehlo.constant dense<2> : tensor<i32>
    %2 = stablehlo.broadcast_in_dim %c_0, dims = [] : (tensor<i32>) -> tensor<7xi32>
    %3 = stablehlo.compare LT, %arg0, %2, SIGNED : (tensor<7xi32>, tensor<7xi32>) -> tensor<7xi1>
    %4 = stablehlo.select %3, %arg2, %arg3 : tensor<7xi1>, tensor<7xf32>
    %5 = stablehlo.select %1, %arg1, %4 : tensor<7xi1>, tensor<7xf32>
    %cst = stablehlo.constant dense<1.000000e+00> : tensor<f32>
    %6 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f32>) -> tensor<7xf32>
    %7 = stablehlo.compare GT, %arg1, %6, FLOAT : (tensor<7xf32>, tensor<7xf32>) -> tensor<7xi1>
    %cst_1 = stablehlo.constant dense<-1.000000e+00> : tensor<f32>
    %8 = stablehlo.broadcast_in_dim %cst_1, dims = [] : (tensor<f32>) -> tensor<7xf32>
    %9 = stablehlo.compare LT, %arg1, %8, FLOAT : (tensor<7xf32>, tensor<7xf32>) -> tensor<7xi1>
    %cst_2 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %10 = stablehlo.broadcast_in_dim %cst_2, dims = [] : (tensor<f32>) -> tensor<7xf32>
    %11 = stablehlo.compare GT, %arg2, %10, FLOAT : (tensor<7xf32>, tensor<7xf32>) -> tensor<7xi1>
    %12 = stablehlo.negate %arg1 : tensor<7xf32>
    %cst_3 = stablehlo.constant dense<2.000000e+00> : tensor<f32>
    %13 = stablehlo.broadcast_in_dim %cst_3, dims = [] : (tensor<f32>) -> tensor<7xf32>
    %14 = stablehlo.multiply %arg2, %13 : tensor<7xf32>
    %c_4 = stablehlo.constant dense<false> : tensor<i1>
    %15 = stablehlo.broadcast_in_dim %c_4, dims = [] : (tensor<i1>) -> tensor<7xi1>
    %16 = stablehlo.broadcast_in_dim %15, dims = [1] : (tensor<7xi1>) -> tensor<1x7xi1>
    %17 = stablehlo.broadcast_in_dim %7, dims = [1] : (tensor<7xi1>) -> tensor<1x7xi1>
    %18 = stablehlo.broadcast_in_dim %9, dims = [1] : (tensor<7xi1>) -> tensor<1x7xi1>
    %19 = stablehlo.broadcast_in_dim %11, dims = [1] : (tensor<7xi1>) -> tensor<1x7xi1>
    %20 = stablehlo.concatenate %16, %17, %18, %19, dim = 0 : (tensor<1x7xi1>, tensor<1x7xi1>, tensor<1x7xi1>, tensor<1x7xi1>) -> tensor<4x7xi1>
    %21 = call @argmax(%20) : (tensor<4x7xi1>) -> tensor<7xi32>
    %c_5 = stablehlo.constant dense<2> : tensor<i32>
    %22 = stablehlo.broadcast_in_dim %c_5, dims = [] : (tensor<i32>) -> tensor<7xi32>
    %23 = stablehlo.compare LT, %21, %22, SIGNED : (tensor<7xi32>, tensor<7xi32>) -> tensor<7xi1>
    %c_6 = stablehlo.constant dense<1> : tensor<i32>
    %24 = stablehlo.broadcast_in_dim %c_6, dims = [] : (tensor<i32>) -> tensor<7xi32>
    %25 = stablehlo.compare LT, %21, %24, SIGNED : (tensor<7xi32>, tensor<7xi32>) -> tensor<7xi1>
    %26 = stablehlo.select %25, %arg3, %arg1 : tensor<7xi1>, tensor<7xf32>
    %c_7 = stablehlo.constant dense<3> : tensor<i32>
    %27 = stablehlo.broadcast_in_dim %c_7, dims = [] : (tensor<i32>) -> tensor<7xi32>
    %28 = stablehlo.compare LT, %21, %27, SIGNED : (tensor<7xi32>, tensor<7xi32>) -> tensor<7xi1>
    %29 = stablehlo.select %28, %12, %14 : tensor<7xi1>, tensor<7xf32>
    %30 = stablehlo.select %23, %26, %29 : tensor<7xi1>, tensor<7xf32>
    %31 = stablehlo.compare GT, %arg1, %arg2, FLOAT : (tensor<7xf32>, tensor<7xf32>) -> tensor<7xi1>
    %cst_8 = stablehlo.constant dense<1.000000e-01> : tensor<f32>
    %32 = stablehlo.broadcast_in_dim %cst_8, dims = [] : (tensor<f32>) -> tensor<7xf32>
    %33 = stablehlo.multiply %32, %arg2 : tensor<7xf32>
    %34 = call @_where(%31, %arg1, %33) : (tensor<7xi1>, tensor<7xf32>, tensor<7xf32>) -> tensor<7xf32>
    %35 = stablehlo.maximum %arg2, %arg3 : tensor<7xf32>
    %36 = call @clip(%arg1, %arg2, %35) : (tensor<7xf32>, tensor<7xf32>, tensor<7xf32>) -> tensor<7xf32>
    return %5, %30, %34, %36 : tensor<7xf32>, tensor<7xf32>, tensor<7xf32>, tensor<7xf32>
  }
  func.func private @argmax(%arg0: tensor<4x7xi1>) -> tensor<7xi32> {
    %0 = stablehlo.iota dim = 0 : tensor<4x7xi32>
    %c = stablehlo.constant dense<false> : tensor<i1>
    %c_0 = stablehlo.constant dense<0> : tensor<i32>
    %1:2 = stablehlo.reduce(%arg0 init: %c), (%0 init: %c_0) across dimensions = [0] : (tensor<4x7xi1>, tensor<4x7xi32>, tensor<i1>, tensor<i32>) -> (tensor<7xi1>, tensor<7xi32>)
     reducer(%arg1: tensor<i1>, %arg3: tensor<i1>) (%arg2: tensor<i32>, %arg4: tensor<i32>)  {
      %2 = stablehlo.compare GT, %arg1, %arg3, UNSIGNED : (tensor<i1>, tensor<i1>) -> tensor<i1>
      %3 = stablehlo.compare NE, %arg1, %arg1, UNSIGNED : (tensor<i1>, tensor<i1>) -> tensor<i1>
      %4 = stablehlo.or %2, %3 : tensor<i1>
      %5 = stablehlo.compare EQ, %arg1, %arg3, UNSIGNED : (tensor<i1>, tensor<i1>) -> tensor<i1>
      %6 = stablehlo.compare LT, %arg2, %arg4, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
      %7 = stablehlo.and %5, %6 : tensor<i1>
      %8 = stablehlo.or %4, %7 : tensor<i1>
      %9 = stablehlo.select %4, %arg1, %arg3 : tensor<i1>, tensor<i1>
      %10 = stablehlo.select %8, %arg2, %arg4 : tensor<i1>, tensor<i32>
      stablehlo.return %9, %10 : tensor<i1>, tensor<i32>
    }
    return %1#1 : tensor<7xi32>
  }
  func.func private @_where(%arg0: tensor<7xi1>, %arg1: tensor<7xf32>, %arg2: tensor<7xf32>) -> tensor<7xf32> {
    %0 = stablehlo.select %arg0, %arg1, %arg2 : tensor<7xi1>, tensor<7xf32>
    return %0 : tensor<7xf32>
  }
  func.func private @clip(%arg0: tensor<7xf32>, %arg1: tensor<7xf32>, %arg2: tensor<7xf32>) -> tensor<7xf32> {
    %0 = stablehlo.maximum %arg1, %arg0 : tensor<7xf32>
    %1 = stablehlo.minimum %arg2, %0 : tensor<7xf32>
    return %1 : tensor<7xf32>
  }
}
