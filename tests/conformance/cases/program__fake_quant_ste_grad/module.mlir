module @jit__fake_quant_grad attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<6x8xf32>, %arg1: tensor<8x5xf32>) -> (tensor<f32> {jax.result_info = "result[0]"}, tensor<8x5xf32> {jax.result_info = "result[1]"}) {
    %0 = stablehlo.abs %arg1 : tensor<8x5xf32>
    %cst = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %1 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f32>) -> tensor<8x5xf32>
    %2 = stablehlo.compare GE, %arg1, %1, FLOAT : (tensor<8x5xf32>, tensor<8x5xf32>) -> tensor<8x5xi1>
    %cst_0 = stablehlo.constant dense<0xFF800000> : tensor<f32>
    %3 = stablehlo.reduce(%0 init: %cst_0) applies stablehlo.maximum across dimensions = [0, 1] : (tensor<8x5xf32>, tensor<f32>) -> tensor<f32>
    %4 = stablehlo.reshape %3 : (tensor<f32>) -> tensor<1x1xf32>
    %5 = stablehlo.broadcast_in_dim %4, dims = [0, 1] : (tensor<1x1xf32>) -> tensor<8x5xf32>
    %6 = stablehlo.compare EQ, %0, %5, FLOAT : (tensor<8x5xf32>, tensor<8x5xf32>) -> tensor<8x5xi1>
    %7 = stablehlo.convert %6 : (tensor<8x5xi1>) -> tensor<8x5xf32>
    %cst_1 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %8 = stablehlo.reduce(%7 init: %cst_1) applies stablehlo.add across dimensions = [0, 1] : (tensor<8x5xf32>, tensor<f32>) -> tensor<f32>
    %cst_2 = stablehlo.constant dense<1.270000e+02> : tensor<f32>
    %9 = stablehlo.divide %3, %cst_2 : tensor<f32>
    %10 = stablehlo.broadcast_in_dim %9, dims = [] : (tensor<f32>) -> tensor<8x5xf32>
    %11 = stablehlo.divide %arg1, %10 : tensor<8x5xf32>
    %12 = stablehlo.multiply %9, %9 : tensor<f32>
    %cst_3 = stablehlo.constant dense<1.000000e+00> : tensor<f32>
    %13 = stablehlo.divide %cst_3, %12 : tensor<f32>
    %14 = call @round(%11) : (tensor<8x5xf32>) -> tensor<8x5xf32>
    %c = stablehlo.constant dense<-127> : tensor<i32>
    %c_4 = stablehlo.constant dense<127> : tensor<i32>
    %15 = call @clip(%14, %c, %c_4) : (tensor<8x5xf32>, tensor<i32>, tensor<i32>) -> tensor<8x5xf32>
    %16 = stablehlo.broadcast_in_dim %9, dims = [] : (tensor<f32>) -> tensor<8x5xf32>
    %17 = stablehlo.multiply %15, %16 : tensor<8x5xf32>
    %18 = stablehlo.subtract %17, %arg1 : tensor<8x5xf32>
    %19 = stablehlo.add %arg1, %18 : tensor<8x5xf32>
    %20 = stablehlo.dot_general %arg0, %19, contracting_dims = [1] x [0], precision = [DEFAULT, DEFAULT] : (tensor<6x8xf32>, tensor<8x5xf32>) -> tensor<6x5xf32>
    %21 = call @relu(%20) : (tensor<6x5xf32>) -> tensor<6x5xf32>
    %cst_5 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %22 = stablehlo.broadcast_in_dim %cst_5, dims = [] : (tensor<f32>) -> tensor<6x5xf32>
    %23 = stablehlo.compare GT, %20, %22, FLOAT : (tensor<6x5xf32>, tensor<6x5xf32>) -> tensor<6x5xi1>
    %cst_6 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %24 = stablehlo.broadcast_in_dim %cst_6, dims = [] : (tensor<f32>) -> tensor<6x5xf32>
    %25 = stablehlo.multiply %21, %21 : tensor<6x5xf32>
    %cst_7 = stablehlo.constant dense<2.000000e+00> : tensor<f32>
    %26 = stablehlo.broadcast_in_dim %cst_7, dims = [] : (tensor<f32>) -> tensor<6x5xf32>
    %27 = stablehlo.multiply %26, %21 : tensor<6x5xf32>
    %cst_8 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %28 = stablehlo.reduce(%25 init: %cst_8) applies stablehlo.add across dimensions = [0, 1] : (tensor<6x5xf32>, tensor<f32>) -> tensor<f32>
    %cst_9 = stablehlo.constant dense<3.000000e+01> : tensor<f32>
    %29 = stablehlo.divide %28, %cst_9 : tensor<f32>
    %cst_10 = stablehlo.constant dense<1.000000e+00> : tensor<f32>
    %cst_11 = stablehlo.constant dense<3.000000e+01> : tensor<f32>
    %30 = stablehlo.divide %cst_10, %cst_11 : tensor<f32>
    %31 = stablehlo.broadcast_in_dim %30, dims = [] : (tensor<f32>) -> tensor<6x5xf32>
    %32 = stablehlo.multiply %31, %27 : tensor<6x5xf32>
    %cst_12 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %33 = stablehlo.broadcast_in_dim %cst_12, dims = [] : (tensor<f32>) -> tensor<6x5xf32>
    %34 = stablehlo.select %23, %32, %33 : tensor<6x5xi1>, tensor<6x5xf32>
    %35 = stablehlo.dot_general %34, %arg0, contracting_dims = [0] x [0], precision = [DEFAULT, DEFAULT] : (tensor<6x5xf32>, tensor<6x8xf32>) -> tensor<5x8xf32>
    %36 = stablehlo.transpose %35, dims = [1, 0] : (tensor<5x8xf32>) -> tensor<8x5xf32>
    return %29, %36 : tensor<f32>, tensor<8x5xf32>
  }
  func.func private @round(%arg0: tensor<8x5xf32>) -> tensor<8x5xf32> {
    %0 = stablehlo.round_nearest_even %arg0 : tensor<8x5xf32>
    return %0 : tensor<8x5xf32>
  }
  func.func private @clip(%arg0: tensor<8x5xf32>, %arg1: tensor<i32>, %arg2: tensor<i32>) -> tensor<8x5xf32> {
    %0 = stablehlo.convert %arg1 : (tensor<i32>) -> tensor<f32>
    %1 = stablehlo.broadcast_in_dim %0, dims = [] : (tensor<f32>) -> tensor<8x5xf32>
    %2 = stablehlo.maximum %1, %arg0 : tensor<8x5xf32>
    %3 = stablehlo.convert %arg2 : (tensor<i32>) -> tensor<f32>
    %4 = stablehlo.broadcast_in_dim %3, dims = [] : (tensor<f32>) -> tensor<8x5xf32>
    %5 = stablehlo.minimum %4, %2 : tensor<8x5xf32>
    return %5 : tensor<8x5xf32>
  }
  func.func private @relu(%arg0: tensor<6x5xf32>) -> tensor<6x5xf32> {
    %cst = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %0 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f32>) -> tensor<6x5xf32>
    %1 = stablehlo.maximum %arg0, %0 : tensor<6x5xf32>
    return %1 : tensor<6x5xf32>
  }
}
