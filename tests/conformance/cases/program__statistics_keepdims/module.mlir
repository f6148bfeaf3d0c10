module @jit__statistics attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<4x5x6xf32>, %arg1: tensor<6xf32>) -> (tensor<1x5x1xf32> {jax.result_info = "result[0]"}, tensor<4x6xf32> {jax.result_info = "result[1]"}, tensor<4xf32> {jax.result_info = "result[2]"}, tensor<4x5xf32> {jax.result_info = "result[3]"}, tensor<4x6xf32> {jax.result_info = "result[4]"}, tensor<f32> {jax.result_info = "result[5]"}, tensor<5xf32> {jax.result_info = "result[6]"}, tensor<f32> {jax.result_info = "result[7]"}) {
    %cst = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %0 = stablehlo.reduce(%arg0 init: %cst) applies stablehlo.add across dimensions = [0, 2] : (tensor<4x5x6xf32>, tensor<f32>) -> tensor<5xf32>
    %1 = stablehlo.broadcast_in_dim %0, dims = [1] : (tensor<5xf32>) -> tensor<1x5x1xf32>
    %cst_0 = stablehlo.constant dense<2.400000e+01> : tensor<f32>
    %2 = stablehlo.broadcast_in_dim %cst_0, dims = [] : (tensor<f32>) -> tensor<1x5x1xf32>
    %3 = stablehlo.divide %1, %2 : tensor<1x5x1xf32>
    %4 = stablehlo.broadcast_in_dim %3, dims = [0, 1, 2] : (tensor<1x5x1xf32>) -> tensor<4x5x6xf32>
    %5 = stablehlo.subtract %arg0, %4 : tensor<4x5x6xf32>
    %cst_1 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %6 = stablehlo.reduce(%arg0 init: %cst_1) applies stablehlo.add across dimensions = [0, 2] : (tensor<4x5x6xf32>, tensor<f32>) -> tensor<5xf32>
    %7 = stablehlo.broadcast_in_dim %6, dims = [1] : (tensor<5xf32>) -> tensor<1x5x1xf32>
    %cst_2 = stablehlo.constant dense<2.400000e+01> : tensor<f32>
    %8 = stablehlo.broadcast_in_dim %cst_2, dims = [] : (tensor<f32>) -> tensor<1x5x1xf32>
    %9 = stablehlo.divide %7, %8 : tensor<1x5x1xf32>
    %c = stablehlo.constant dense<1> : tensor<i32>
    %10 = call @_var(%arg0, %c) : (tensor<4x5x6xf32>, tensor<i32>) -> tensor<4x6xf32>
    %c_3 = stablehlo.constant dense<0> : tensor<i32>
    %11 = call @_std(%arg0, %c_3) : (tensor<4x5x6xf32>, tensor<i32>) -> tensor<4xf32>
    %12 = stablehlo.reshape %arg1 : (tensor<6xf32>) -> tensor<1x1x6xf32>
    %cst_4 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %13 = stablehlo.reduce(%12 init: %cst_4) applies stablehlo.add across dimensions = [2] : (tensor<1x1x6xf32>, tensor<f32>) -> tensor<1x1xf32>
    %14 = stablehlo.broadcast_in_dim %12, dims = [0, 1, 2] : (tensor<1x1x6xf32>) -> tensor<4x5x6xf32>
    %15 = stablehlo.multiply %arg0, %14 : tensor<4x5x6xf32>
    %cst_5 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %16 = stablehlo.reduce(%15 init: %cst_5) applies stablehlo.add across dimensions = [2] : (tensor<4x5x6xf32>, tensor<f32>) -> tensor<4x5xf32>
    %17 = stablehlo.broadcast_in_dim %13, dims = [0, 1] : (tensor<1x1xf32>) -> tensor<4x5xf32>
    %18 = stablehlo.divide %16, %17 : tensor<4x5xf32>
    %19 = stablehlo.slice %arg1 [0:4] : (tensor<6xf32>) -> tensor<4xf32>
    %20 = stablehlo.broadcast_in_dim %19, dims = [0] : (tensor<4xf32>) -> tensor<4x1x1xf32>
    %cst_6 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %21 = stablehlo.broadcast_in_dim %cst_6, dims = [] : (tensor<f32>) -> tensor<4x1x1xf32>
    %22 = stablehlo.compare NE, %20, %21, FLOAT : (tensor<4x1x1xf32>, tensor<4x1x1xf32>) -> tensor<4x1x1xi1>
    %cst_7 = stablehlo.constant dense<0xFF800000> : tensor<f32>
    %23 = call @_where_2(%22, %arg0, %cst_7) : (tensor<4x1x1xi1>, tensor<4x5x6xf32>, tensor<f32>) -> tensor<4x5x6xf32>
    %cst_8 = stablehlo.constant dense<0xFF800000> : tensor<f32>
    %24 = stablehlo.reduce(%23 init: %cst_8) applies stablehlo.maximum across dimensions = [1] : (tensor<4x5x6xf32>, tensor<f32>) -> tensor<4x6xf32>
    %cst_9 = stablehlo.constant dense<0xFF800000> : tensor<f32>
    %25 = stablehlo.broadcast_in_dim %cst_9, dims = [] : (tensor<f32>) -> tensor<4x6xf32>
    %26 = stablehlo.maximum %25, %24 : tensor<4x6xf32>
    %27 = stablehlo.is_finite %26 : (tensor<4x6xf32>) -> tensor<4x6xi1>
    %cst_10 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %28 = stablehlo.broadcast_in_dim %cst_10, dims = [] : (tensor<f32>) -> tensor<4x6xf32>
    %29 = stablehlo.select %27, %26, %28 : tensor<4x6xi1>, tensor<4x6xf32>
    %30 = stablehlo.broadcast_in_dim %29, dims = [0, 2] : (tensor<4x6xf32>) -> tensor<4x1x6xf32>
    %31 = stablehlo.broadcast_in_dim %30, dims = [0, 1, 2] : (tensor<4x1x6xf32>) -> tensor<4x5x6xf32>
    %32 = stablehlo.subtract %23, %31 : tensor<4x5x6xf32>
    %33 = stablehlo.exponential %32 : tensor<4x5x6xf32>
    %34 = stablehlo.broadcast_in_dim %20, dims = [0, 1, 2] : (tensor<4x1x1xf32>) -> tensor<4x5x6xf32>
    %35 = stablehlo.multiply %33, %34 : tensor<4x5x6xf32>
    %cst_11 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %36 = stablehlo.reduce(%35 init: %cst_11) applies stablehlo.add across dimensions = [1] : (tensor<4x5x6xf32>, tensor<f32>) -> tensor<4x6xf32>
    %37 = stablehlo.sign %36 : tensor<4x6xf32>
    %38 = stablehlo.abs %36 : tensor<4x6xf32>
    %39 = stablehlo.log %38 : tensor<4x6xf32>
    %40 = stablehlo.add %39, %29 : tensor<4x6xf32>
    %cst_12 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %41 = stablehlo.broadcast_in_dim %cst_12, dims = [] : (tensor<f32>) -> tensor<4x6xf32>
    %42 = stablehlo.compare LT, %37, %41, FLOAT : (tensor<4x6xf32>, tensor<4x6xf32>) -> tensor<4x6xi1>
    %cst_13 = stablehlo.constant dense<0x7FC00000> : tensor<f32>
    %43 = call @_where_3(%42, %cst_13, %40) : (tensor<4x6xi1>, tensor<f32>, tensor<4x6xf32>) -> tensor<4x6xf32>
    %44 = stablehlo.abs %5 : tensor<4x5x6xf32>
    %cst_14 = stablehlo.constant dense<0xFF800000> : tensor<f32>
    %45 = stablehlo.reduce(%44 init: %cst_14) applies stablehlo.maximum across dimensions = [0, 1, 2] : (tensor<4x5x6xf32>, tensor<f32>) -> tensor<f32>
    %46 = stablehlo.slice %arg0 [0:1, 0:5, 0:6] : (tensor<4x5x6xf32>) -> tensor<1x5x6xf32>
    %47 = stablehlo.reshape %46 : (tensor<1x5x6xf32>) -> tensor<5x6xf32>
    %48 = call @norm(%47) : (tensor<5x6xf32>) -> tensor<5xf32>
    %49 = stablehlo.slice %arg0 [1:2, 0:5, 0:6] : (tensor<4x5x6xf32>) -> tensor<1x5x6xf32>
    %50 = stablehlo.reshape %49 : (tensor<1x5x6xf32>) -> tensor<5x6xf32>
    %51 = call @norm_4(%50) : (tensor<5x6xf32>) -> tensor<f32>
    return %9, %10, %11, %18, %43, %45, %48, %51 : tensor<1x5x1xf32>, tensor<4x6xf32>, tensor<4xf32>, tensor<4x5xf32>, tensor<4x6xf32>, tensor<f32>, tensor<5xf32>, tensor<f32>
  }
  func.func private @_var(%arg0: tensor<4x5x6xf32>, %arg1: tensor<i32>) -> tensor<4x6xf32> {
    %cst = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %0 = stablehlo.reduce(%arg0 init: %cst) applies stablehlo.add across dimensions = [1] : (tensor<4x5x6xf32>, tensor<f32>) -> tensor<4x6xf32>
    %1 = stablehlo.broadcast_in_dim %0, dims = [0, 2] : (tensor<4x6xf32>) -> tensor<4x1x6xf32>
    %cst_0 = stablehlo.constant dense<5.000000e+00> : tensor<f32>
    %2 = stablehlo.broadcast_in_dim %cst_0, dims = [] : (tensor<f32>) -> tensor<4x1x6xf32>
    %3 = stablehlo.divide %1, %2 : tensor<4x1x6xf32>
    %4 = stablehlo.broadcast_in_dim %3, dims = [0, 1, 2] : (tensor<4x1x6xf32>) -> tensor<4x5x6xf32>
    %5 = stablehlo.subtract %arg0, %4 : tensor<4x5x6xf32>
    %6 = chlo.square %5 : tensor<4x5x6xf32> -> tensor<4x5x6xf32>
    %7 = stablehlo.convert %arg1 : (tensor<i32>) -> tensor<f32>
    %cst_1 = stablehlo.constant dense<5.000000e+00> : tensor<f32>
    %8 = stablehlo.subtract %cst_1, %7 : tensor<f32>
    %cst_2 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %9 = stablehlo.reduce(%6 init: %cst_2) applies stablehlo.add across dimensions = [1] : (tensor<4x5x6xf32>, tensor<f32>) -> tensor<4x6xf32>
    %10 = stablehlo.broadcast_in_dim %8, dims = [] : (tensor<f32>) -> tensor<4x6xf32>
    %11 = stablehlo.divide %9, %10 : tensor<4x6xf32>
    %cst_3 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %12 = stablehlo.compare GT, %8, %cst_3, FLOAT : (tensor<f32>, tensor<f32>) -> tensor<i1>
    %cst_4 = stablehlo.constant dense<0x7FC00000> : tensor<f32>
    %13 = call @_where(%12, %11, %cst_4) : (tensor<i1>, tensor<4x6xf32>, tensor<f32>) -> tensor<4x6xf32>
    return %13 : tensor<4x6xf32>
  }
  func.func private @_where(%arg0: tensor<i1>, %arg1: tensor<4x6xf32>, %arg2: tensor<f32>) -> tensor<4x6xf32> {
    %0 = stablehlo.convert %arg2 : tensor<f32>
    %1 = stablehlo.broadcast_in_dim %0, dims = [] : (tensor<f32>) -> tensor<4x6xf32>
    %2 = stablehlo.select %arg0, %arg1, %1 : tensor<i1>, tensor<4x6xf32>
    return %2 : tensor<4x6xf32>
  }
  func.func private @_std(%arg0: tensor<4x5x6xf32>, %arg1: tensor<i32>) -> tensor<4xf32> {
    %0 = call @_var_0(%arg0, %arg1) : (tensor<4x5x6xf32>, tensor<i32>) -> tensor<4xf32>
    %1 = stablehlo.sqrt %0 : tensor<4xf32>
    return %1 : tensor<4xf32>
  }
  func.func private @_var_0(%arg0: tensor<4x5x6xf32>, %arg1: tensor<i32>) -> tensor<4xf32> {
    %cst = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %0 = stablehlo.reduce(%arg0 init: %cst) applies stablehlo.add across dimensions = [1, 2] : (tensor<4x5x6xf32>, tensor<f32>) -> tensor<4xf32>
    %1 = stablehlo.broadcast_in_dim %0, dims = [0] : (tensor<4xf32>) -> tensor<4x1x1xf32>
    %cst_0 = stablehlo.constant dense<3.000000e+01> : tensor<f32>
    %2 = stablehlo.broadcast_in_dim %cst_0, dims = [] : (tensor<f32>) -> tensor<4x1x1xf32>
    %3 = stablehlo.divide %1, %2 : tensor<4x1x1xf32>
    %4 = stablehlo.broadcast_in_dim %3, dims = [0, 1, 2] : (tensor<4x1x1xf32>) -> tensor<4x5x6xf32>
    %5 = stablehlo.subtract %arg0, %4 : tensor<4x5x6xf32>
    %6 = chlo.square %5 : tensor<4x5x6xf32> -> tensor<4x5x6xf32>
    %7 = stablehlo.convert %arg1 : (tensor<i32>) -> tensor<f32>
    %cst_1 = stablehlo.constant dense<3.000000e+01> : tensor<f32>
    %8 = stablehlo.subtract %cst_1, %7 : tensor<f32>
    %cst_2 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %9 = stablehlo.reduce(%6 init: %cst_2) applies stablehlo.add across dimensions = [1, 2] : (tensor<4x5x6xf32>, tensor<f32>) -> tensor<4xf32>
    %10 = stablehlo.broadcast_in_dim %8, dims = [] : (tensor<f32>) -> tensor<4xf32>
    %11 = stablehlo.divide %9, %10 : tensor<4xf32>
    %cst_3 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %12 = stablehlo.compare GT, %8, %cst_3, FLOAT : (tensor<f32>, tensor<f32>) -> tensor<i1>
    %cst_4 = stablehlo.constant dense<0x7FC00000> : tensor<f32>
    %13 = call @_where_1(%12, %11, %cst_4) : (tensor<i1>, tensor<4xf32>, tensor<f32>) -> tensor<4xf32>
    return %13 : tensor<4xf32>
  }
  func.func private @_where_1(%arg0: tensor<i1>, %arg1: tensor<4xf32>, %arg2: tensor<f32>) -> tensor<4xf32> {
    %0 = stablehlo.convert %arg2 : tensor<f32>
    %1 = stablehlo.broadcast_in_dim %0, dims = [] : (tensor<f32>) -> tensor<4xf32>
    %2 = stablehlo.select %arg0, %arg1, %1 : tensor<i1>, tensor<4xf32>
    return %2 : tensor<4xf32>
  }
  func.func private @_where_2(%arg0: tensor<4x1x1xi1>, %arg1: tensor<4x5x6xf32>, %arg2: tensor<f32>) -> tensor<4x5x6xf32> {
    %0 = stablehlo.convert %arg2 : tensor<f32>
    %1 = stablehlo.broadcast_in_dim %arg0, dims = [0, 1, 2] : (tensor<4x1x1xi1>) -> tensor<4x5x6xi1>
    %2 = stablehlo.broadcast_in_dim %0, dims = [] : (tensor<f32>) -> tensor<4x5x6xf32>
    %3 = stablehlo.select %1, %arg1, %2 : tensor<4x5x6xi1>, tensor<4x5x6xf32>
    return %3 : tensor<4x5x6xf32>
  }
  func.func private @_where_3(%arg0: tensor<4x6xi1>, %arg1: tensor<f32>, %arg2: tensor<4x6xf32>) -> tensor<4x6xf32> {
    %0 = stablehlo.broadcast_in_dim %arg1, dims = [] : (tensor<f32>) -> tensor<4x6xf32>
    %1 = stablehlo.select %arg0, %0, %arg2 : tensor<4x6xi1>, tensor<4x6xf32>
    return %1 : tensor<4x6xf32>
  }
  func.func private @norm(%arg0: tensor<5x6xf32>) -> tensor<5xf32> {
    %0 = stablehlo.multiply %arg0, %arg0 : tensor<5x6xf32>
    %cst = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %1 = stablehlo.reduce(%0 init: %cst) applies stablehlo.add across dimensions = [1] : (tensor<5x6xf32>, tensor<f32>) -> tensor<5xf32>
    %2 = stablehlo.sqrt %1 : tensor<5xf32>
    return %2 : tensor<5xf32>
  }
  func.func private @norm_4(%arg0: tensor<5x6xf32>) -> tensor<f32> {
    %0 = stablehlo.multiply %arg0, %arg0 : tensor<5x6xf32>
    %cst = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %1 = stablehlo.reduce(%0 init: %cst) applies stablehlo.add across dimensions = [0, 1] : (tensor<5x6xf32>, tensor<f32>) -> tensor<f32>
    %2 = stablehlo.sqrt %1 : tensor<f32>
    return %2 : tensor<f32>
  }
}
