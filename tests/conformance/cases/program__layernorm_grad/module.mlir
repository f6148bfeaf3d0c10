module @jit__layernorm_grad attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<6x16xf32>, %arg1: tensor<16xf32>, %arg2: tensor<16xf32>, %arg3: tensor<6x16xf32>) -> (tensor<6x16xf32> {jax.result_info = "result[0]"}, tensor<16xf32> {jax.result_info = "result[1]"}, tensor<16xf32> {jax.result_info = "result[2]"}) {
    %cst = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %0 = stablehlo.reduce(%arg0 init: %cst) applies stablehlo.add across dimensions = [1] : (tensor<6x16xf32>, tensor<f32>) -> tensor<6xf32>
    %1 = stablehlo.broadcast_in_dim %0, dims = [0] : (tensor<6xf32>) -> tensor<6x1xf32>
    %cst_0 = stablehlo.constant dense<1.600000e+01> : tensor<f32>
    %2 = stablehlo.broadcast_in_dim %cst_0, dims = [] : (tensor<f32>) -> tensor<6x1xf32>
    %3 = stablehlo.divide %1, %2 : tensor<6x1xf32>
    %4 = stablehlo.broadcast_in_dim %3, dims = [0, 1] : (tensor<6x1xf32>) -> tensor<6x16xf32>
    %5 = stablehlo.subtract %arg0, %4 : tensor<6x16xf32>
    %6 = stablehlo.multiply %5, %5 : tensor<6x16xf32>
    %cst_1 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %7 = stablehlo.reduce(%6 init: %cst_1) applies stablehlo.add across dimensions = [1] : (tensor<6x16xf32>, tensor<f32>) -> tensor<6xf32>
    %8 = stablehlo.broadcast_in_dim %7, dims = [0] : (tensor<6xf32>) -> tensor<6x1xf32>
    %cst_2 = stablehlo.constant dense<1.600000e+01> : tensor<f32>
    %9 = stablehlo.broadcast_in_dim %cst_2, dims = [] : (tensor<f32>) -> tensor<6x1xf32>
    %10 = stablehlo.divide %8, %9 : tensor<6x1xf32>
    %cst_3 = stablehlo.constant dense<9.99999974E-6> : tensor<f32>
    %11 = stablehlo.broadcast_in_dim %cst_3, dims = [] : (tensor<f32>) -> tensor<6x1xf32>
    %12 = stablehlo.add %10, %11 : tensor<6x1xf32>
    %13 = stablehlo.rsqrt %12 : tensor<6x1xf32>
    %14 = stablehlo.divide %13, %12 : tensor<6x1xf32>
    %cst_4 = stablehlo.constant dense<-5.000000e-01> : tensor<f32>
    %15 = stablehlo.broadcast_in_dim %cst_4, dims = [] : (tensor<f32>) -> tensor<6x1xf32>
    %16 = stablehlo.multiply %15, %14 : tensor<6x1xf32>
    %17 = stablehlo.broadcast_in_dim %13, dims = [0, 1] : (tensor<6x1xf32>) -> tensor<6x16xf32>
    %18 = stablehlo.multiply %5, %17 : tensor<6x16xf32>
    %19 = stablehlo.broadcast_in_dim %arg1, dims = [1] : (tensor<16xf32>) -> tensor<1x16xf32>
    %20 = stablehlo.broadcast_in_dim %19, dims = [0, 1] : (tensor<1x16xf32>) -> tensor<6x16xf32>
    %21 = stablehlo.multiply %18, %20 : tensor<6x16xf32>
    %22 = stablehlo.broadcast_in_dim %arg2, dims = [1] : (tensor<16xf32>) -> tensor<1x16xf32>
    %23 = stablehlo.broadcast_in_dim %22, dims = [0, 1] : (tensor<1x16xf32>) -> tensor<6x16xf32>
    %24 = stablehlo.add %21, %23 : tensor<6x16xf32>
    %25 = stablehlo.multiply %24, %arg3 : tensor<6x16xf32>
    %cst_5 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %26 = stablehlo.reduce(%25 init: %cst_5) applies stablehlo.add across dimensions = [0, 1] : (tensor<6x16xf32>, tensor<f32>) -> tensor<f32>
    %cst_6 = stablehlo.constant dense<1.000000e+00> : tensor<f32>
    %27 = stablehlo.broadcast_in_dim %cst_6, dims = [] : (tensor<f32>) -> tensor<6x16xf32>
    %28 = stablehlo.multiply %27, %arg3 : tensor<6x16xf32>
    %cst_7 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %29 = stablehlo.reduce(%28 init: %cst_7) applies stablehlo.add across dimensions = [0] : (tensor<6x16xf32>, tensor<f32>) -> tensor<16xf32>
    %30 = stablehlo.reshape %29 : (tensor<16xf32>) -> tensor<1x16xf32>
    %cst_8 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %31 = stablehlo.reduce(%30 init: %cst_8) applies stablehlo.add across dimensions = [0] : (tensor<1x16xf32>, tensor<f32>) -> tensor<16xf32>
    %32 = stablehlo.multiply %18, %28 : tensor<6x16xf32>
    %cst_9 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %33 = stablehlo.reduce(%32 init: %cst_9) applies stablehlo.add across dimensions = [0] : (tensor<6x16xf32>, tensor<f32>) -> tensor<16xf32>
    %34 = stablehlo.reshape %33 : (tensor<16xf32>) -> tensor<1x16xf32>
    %35 = stablehlo.broadcast_in_dim %19, dims = [0, 1] : (tensor<1x16xf32>) -> tensor<6x16xf32>
    %36 = stablehlo.multiply %28, %35 : tensor<6x16xf32>
    %cst_10 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %37 = stablehlo.reduce(%34 init: %cst_10) applies stablehlo.add across dimensions = [0] : (tensor<1x16xf32>, tensor<f32>) -> tensor<16xf32>
    %38 = stablehlo.multiply %5, %36 : tensor<6x16xf32>
    %cst_11 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %39 = stablehlo.reduce(%38 init: %cst_11) applies stablehlo.add across dimensions = [1] : (tensor<6x16xf32>, tensor<f32>) -> tensor<6xf32>
    %40 = stablehlo.reshape %39 : (tensor<6xf32>) -> tensor<6x1xf32>
    %41 = stablehlo.broadcast_in_dim %13, dims = [0, 1] : (tensor<6x1xf32>) -> tensor<6x16xf32>
    %42 = stablehlo.multiply %36, %41 : tensor<6x16xf32>
    %43 = stablehlo.multiply %40, %16 : tensor<6x1xf32>
    %cst_12 = stablehlo.constant dense<1.600000e+01> : tensor<f32>
    %44 = stablehlo.broadcast_in_dim %cst_12, dims = [] : (tensor<f32>) -> tensor<6x1xf32>
    %45 = stablehlo.divide %43, %44 : tensor<6x1xf32>
    %cst_13 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %46 = stablehlo.reduce(%45 init: %cst_13) applies stablehlo.add across dimensions = [1] : (tensor<6x1xf32>, tensor<f32>) -> tensor<6xf32>
    %47 = stablehlo.broadcast_in_dim %46, dims = [0] : (tensor<6xf32>) -> tensor<6x16xf32>
    %48 = stablehlo.multiply %5, %47 : tensor<6x16xf32>
    %49 = stablehlo.add %42, %48 : tensor<6x16xf32>
    %50 = stablehlo.multiply %47, %5 : tensor<6x16xf32>
    %51 = stablehlo.add %49, %50 : tensor<6x16xf32>
    %52 = stablehlo.negate %51 : tensor<6x16xf32>
    %cst_14 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %53 = stablehlo.reduce(%52 init: %cst_14) applies stablehlo.add across dimensions = [1] : (tensor<6x16xf32>, tensor<f32>) -> tensor<6xf32>
    %54 = stablehlo.reshape %53 : (tensor<6xf32>) -> tensor<6x1xf32>
    %cst_15 = stablehlo.constant dense<1.600000e+01> : tensor<f32>
    %55 = stablehlo.broadcast_in_dim %cst_15, dims = [] : (tensor<f32>) -> tensor<6x1xf32>
    %56 = stablehlo.divide %54, %55 : tensor<6x1xf32>
    %cst_16 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %57 = stablehlo.reduce(%56 init: %cst_16) applies stablehlo.add across dimensions = [1] : (tensor<6x1xf32>, tensor<f32>) -> tensor<6xf32>
    %58 = stablehlo.broadcast_in_dim %57, dims = [0] : (tensor<6xf32>) -> tensor<6x16xf32>
    %59 = stablehlo.add %51, %58 : tensor<6x16xf32>
    return %59, %37, %31 : tensor<6x16xf32>, tensor<16xf32>, tensor<16xf32>
  }
}
