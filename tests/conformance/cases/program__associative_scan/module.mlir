module @jit__recurrence attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<11x3xf32>, %arg1: tensor<11x3xf32>) -> (tensor<11x3xf32> {jax.result_info = "result"}) {
    %0 = stablehlo.slice %arg0 [0:10:2, 0:3] : (tensor<11x3xf32>) -> tensor<5x3xf32>
    %1 = stablehlo.slice %arg1 [0:10:2, 0:3] : (tensor<11x3xf32>) -> tensor<5x3xf32>
    %2 = stablehlo.slice %arg0 [1:11:2, 0:3] : (tensor<11x3xf32>) -> tensor<5x3xf32>
    %3 = stablehlo.slice %arg1 [1:11:2, 0:3] : (tensor<11x3xf32>) -> tensor<5x3xf32>
    %4 = stablehlo.multiply %2, %0 : tensor<5x3xf32>
    %5 = stablehlo.multiply %2, %1 : tensor<5x3xf32>
    %6 = stablehlo.add %5, %3 : tensor<5x3xf32>
    %7 = stablehlo.slice %4 [0:4:2, 0:3] : (tensor<5x3xf32>) -> tensor<2x3xf32>
    %8 = stablehlo.slice %6 [0:4:2, 0:3] : (tensor<5x3xf32>) -> tensor<2x3xf32>
    %9 = stablehlo.slice %4 [1:5:2, 0:3] : (tensor<5x3xf32>) -> tensor<2x3xf32>
    %10 = stablehlo.slice %6 [1:5:2, 0:3] : (tensor<5x3xf32>) -> tensor<2x3xf32>
    %11 = stablehlo.multiply %9, %7 : tensor<2x3xf32>
    %12 = stablehlo.multiply %9, %8 : tensor<2x3xf32>
    %13 = stablehlo.add %12, %10 : tensor<2x3xf32>
    %14 = stablehlo.slice %11 [0:1:2, 0:3] : (tensor<2x3xf32>) -> tensor<1x3xf32>
    %15 = stablehlo.slice %13 [0:1:2, 0:3] : (tensor<2x3xf32>) -> tensor<1x3xf32>
    %16 = stablehlo.slice %11 [1:2:2, 0:3] : (tensor<2x3xf32>) -> tensor<1x3xf32>
    %17 = stablehlo.slice %13 [1:2:2, 0:3] : (tensor<2x3xf32>) -> tensor<1x3xf32>
    %18 = stablehlo.multiply %16, %14 : tensor<1x3xf32>
    %19 = stablehlo.multiply %16, %15 : tensor<1x3xf32>
    %20 = stablehlo.add %19, %17 : tensor<1x3xf32>
    %21 = stablehlo.slice %18 [0:0, 0:3] : (tensor<1x3xf32>) -> tensor<0x3xf32>
    %22 = stablehlo.slice %20 [0:0, 0:3] : (tensor<1x3xf32>) -> tensor<0x3xf32>
    %23 = stablehlo.slice %11 [2:2:2, 0:3] : (tensor<2x3xf32>) -> tensor<0x3xf32>
    %24 = stablehlo.slice %13 [2:2:2, 0:3] : (tensor<2x3xf32>) -> tensor<0x3xf32>
    %25 = stablehlo.multiply %23, %21 : tensor<0x3xf32>
    %26 = stablehlo.multiply %23, %22 : tensor<0x3xf32>
    %27 = stablehlo.add %26, %24 : tensor<0x3xf32>
    %28 = stablehlo.slice %11 [0:1, 0:3] : (tensor<2x3xf32>) -> tensor<1x3xf32>
    %29 = stablehlo.concatenate %28, %25, dim = 0 : (tensor<1x3xf32>, tensor<0x3xf32>) -> tensor<1x3xf32>
    %30 = stablehlo.slice %13 [0:1, 0:3] : (tensor<2x3xf32>) -> tensor<1x3xf32>
    %31 = stablehlo.concatenate %30, %27, dim = 0 : (tensor<1x3xf32>, tensor<0x3xf32>) -> tensor<1x3xf32>
    %cst = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %32 = stablehlo.pad %29, %cst, low = [0, 0], high = [1, 0], interior = [1, 0] : (tensor<1x3xf32>, tensor<f32>) -> tensor<2x3xf32>
    %cst_0 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %33 = stablehlo.pad %18, %cst_0, low = [1, 0], high = [0, 0], interior = [1, 0] : (tensor<1x3xf32>, tensor<f32>) -> tensor<2x3xf32>
    %34 = stablehlo.add %32, %33 : tensor<2x3xf32>
    %cst_1 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %35 = stablehlo.pad %31, %cst_1, low = [0, 0], high = [1, 0], interior = [1, 0] : (tensor<1x3xf32>, tensor<f32>) -> tensor<2x3xf32>
    %cst_2 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %36 = stablehlo.pad %20, %cst_2, low = [1, 0], high = [0, 0], interior = [1, 0] : (tensor<1x3xf32>, tensor<f32>) -> tensor<2x3xf32>
    %37 = stablehlo.add %35, %36 : tensor<2x3xf32>
    %38 = stablehlo.slice %4 [2:5:2, 0:3] : (tensor<5x3xf32>) -> tensor<2x3xf32>
    %39 = stablehlo.slice %6 [2:5:2, 0:3] : (tensor<5x3xf32>) -> tensor<2x3xf32>
    %40 = stablehlo.multiply %38, %34 : tensor<2x3xf32>
    %41 = stablehlo.multiply %38, %37 : tensor<2x3xf32>
    %42 = stablehlo.add %41, %39 : tensor<2x3xf32>
    %43 = stablehlo.slice %4 [0:1, 0:3] : (tensor<5x3xf32>) -> tensor<1x3xf32>
    %44 = stablehlo.concatenate %43, %40, dim = 0 : (tensor<1x3xf32>, tensor<2x3xf32>) -> tensor<3x3xf32>
    %45 = stablehlo.slice %6 [0:1, 0:3] : (tensor<5x3xf32>) -> tensor<1x3xf32>
    %46 = stablehlo.concatenate %45, %42, dim = 0 : (tensor<1x3xf32>, tensor<2x3xf32>) -> tensor<3x3xf32>
    %cst_3 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %47 = stablehlo.pad %44, %cst_3, low = [0, 0], high = [0, 0], interior = [1, 0] : (tensor<3x3xf32>, tensor<f32>) -> tensor<5x3xf32>
    %cst_4 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %48 = stablehlo.pad %34, %cst_4, low = [1, 0], high = [1, 0], interior = [1, 0] : (tensor<2x3xf32>, tensor<f32>) -> tensor<5x3xf32>
    %49 = stablehlo.add %47, %48 : tensor<5x3xf32>
    %cst_5 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %50 = stablehlo.pad %46, %cst_5, low = [0, 0], high = [0, 0], interior = [1, 0] : (tensor<3x3xf32>, tensor<f32>) -> tensor<5x3xf32>
    %cst_6 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %51 = stablehlo.pad %37, %cst_6, low = [1, 0], high = [1, 0], interior = [1, 0] : (tensor<2x3xf32>, tensor<f32>) -> tensor<5x3xf32>
    %52 = stablehlo.add %50, %51 : tensor<5x3xf32>
    %53 = stablehlo.slice %arg0 [2:11:2, 0:3] : (tensor<11x3xf32>) -> tensor<5x3xf32>
    %54 = stablehlo.slice %arg1 [2:11:2, 0:3] : (tensor<11x3xf32>) -> tensor<5x3xf32>
    %55 = stablehlo.multiply %53, %49 : tensor<5x3xf32>
    %56 = stablehlo.multiply %53, %52 : tensor<5x3xf32>
    %57 = stablehlo.add %56, %54 : tensor<5x3xf32>
    %58 = stablehlo.slice %arg0 [0:1, 0:3] : (tensor<11x3xf32>) -> tensor<1x3xf32>
    %59 = stablehlo.concatenate %58, %55, dim = 0 : (tensor<1x3xf32>, tensor<5x3xf32>) -> tensor<6x3xf32>
    %60 = stablehlo.slice %arg1 [0:1, 0:3] : (tensor<11x3xf32>) -> tensor<1x3xf32>
    %61 = stablehlo.concatenate %60, %57, dim = 0 : (tensor<1x3xf32>, tensor<5x3xf32>) -> tensor<6x3xf32>
    %cst_7 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %62 = stablehlo.pad %59, %cst_7, low = [0, 0], high = [0, 0], interior = [1, 0] : (tensor<6x3xf32>, tensor<f32>) -> tensor<11x3xf32>
    %cst_8 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %63 = stablehlo.pad %49, %cst_8, low = [1, 0], high = [1, 0], interior = [1, 0] : (tensor<5x3xf32>, tensor<f32>) -> tensor<11x3xf32>
    %64 = stablehlo.add %62, %63 : tensor<11x3xf32>
    %cst_9 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %65 = stablehlo.pad %61, %cst_9, low = [0, 0], high = [0, 0], interior = [1, 0] : (tensor<6x3xf32>, tensor<f32>) -> tensor<11x3xf32>
    %cst_10 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %66 = stablehlo.pad %52, %cst_10, low = [1, 0], high = [1, 0], interior = [1, 0] : (tensor<5x3xf32>, tensor<f32>) -> tensor<11x3xf32>
    %67 = stablehlo.add %65, %66 : tensor<11x3xf32>
    return %67 : tensor<11x3xf32>
  }
}
