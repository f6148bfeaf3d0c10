module @jit__vmap_newton attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<10xf32>) -> (tensor<10xf32> {jax.result_info = "result"}) {
    %0 = stablehlo.abs %arg0 : tensor<10xf32>
    %cst = stablehlo.constant dense<1.000000e+00> : tensor<f32>
    %1 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f32>) -> tensor<10xf32>
    %2 = stablehlo.maximum %0, %1 : tensor<10xf32>
    %3 = stablehlo.sign %arg0 : tensor<10xf32>
    %4 = stablehlo.multiply %2, %3 : tensor<10xf32>
    %cst_0 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %5 = stablehlo.broadcast_in_dim %cst_0, dims = [] : (tensor<f32>) -> tensor<10xf32>
    %c = stablehlo.constant dense<0> : tensor<i32>
    %6 = stablehlo.broadcast_in_dim %c, dims = [] : (tensor<i32>) -> tensor<10xi32>
    %7:4 = stablehlo.while(%iterArg = %arg0, %iterArg_1 = %4, %iterArg_2 = %5, %iterArg_3 = %6) : tensor<10xf32>, tensor<10xf32>, tensor<10xf32>, tensor<10xi32>
    cond {
      %8 = stablehlo.subtract %iterArg_1, %iterArg_2 : tensor<10xf32>
      %9 = stablehlo.abs %8 : tensor<10xf32>
      %10 = stablehlo.abs %iterArg_1 : tensor<10xf32>
      %cst_4 = stablehlo.constant dense<9.99999997E-7> : tensor<f32>
      %11 = stablehlo.broadcast_in_dim %cst_4, dims = [] : (tensor<f32>) -> tensor<10xf32>
      %12 = stablehlo.multiply %11, %10 : tensor<10xf32>
      %13 = stablehlo.compare GT, %9, %12, FLOAT : (tensor<10xf32>, tensor<10xf32>) -> tensor<10xi1>
      %c_5 = stablehlo.constant dense<60> : tensor<i32>
      %14 = stablehlo.broadcast_in_dim %c_5, dims = [] : (tensor<i32>) -> tensor<10xi32>
      %15 = stablehlo.compare LT, %iterArg_3, %14, SIGNED : (tensor<10xi32>, tensor<10xi32>) -> tensor<10xi1>
      %c_6 = stablehlo.constant dense<false> : tensor<i1>
      %16 = stablehlo.broadcast_in_dim %c_6, dims = [] : (tensor<i1>) -> tensor<10xi1>
      %17 = stablehlo.compare NE, %15, %16, UNSIGNED : (tensor<10xi1>, tensor<10xi1>) -> tensor<10xi1>
      %18 = stablehlo.convert %17 : tensor<10xi1>
      %19 = stablehlo.and %13, %18 : tensor<10xi1>
      %c_7 = stablehlo.constant dense<false> : tensor<i1>
      %20 = stablehlo.reduce(%19 init: %c_7) applies stablehlo.or across dimensions = [0] : (tensor<10xi1>, tensor<i1>) -> tensor<i1>
      stablehlo.return %20 : tensor<i1>
    } do {
      %8 = stablehlo.multiply %iterArg_1, %iterArg_1 : tensor<10xf32>
      %9 = stablehlo.multiply %8, %iterArg_1 : tensor<10xf32>
      %10 = stablehlo.subtract %9, %iterArg : tensor<10xf32>
      %cst_4 = stablehlo.constant dense<3.000000e+00> : tensor<f32>
      %11 = stablehlo.broadcast_in_dim %cst_4, dims = [] : (tensor<f32>) -> tensor<10xf32>
      %12 = stablehlo.multiply %11, %iterArg_1 : tensor<10xf32>
      %13 = stablehlo.multiply %12, %iterArg_1 : tensor<10xf32>
      %14 = stablehlo.divide %10, %13 : tensor<10xf32>
      %15 = stablehlo.subtract %iterArg_1, %14 : tensor<10xf32>
      %c_5 = stablehlo.constant dense<1> : tensor<i32>
      %16 = stablehlo.broadcast_in_dim %c_5, dims = [] : (tensor<i32>) -> tensor<10xi32>
      %17 = stablehlo.add %iterArg_3, %16 : tensor<10xi32>
      %18 = stablehlo.subtract %iterArg_1, %iterArg_2 : tensor<10xf32>
      %19 = stablehlo.abs %18 : tensor<10xf32>
      %20 = stablehlo.abs %iterArg_1 : tensor<10xf32>
      %cst_6 = stablehlo.constant dense<9.99999997E-7> : tensor<f32>
      %21 = stablehlo.broadcast_in_dim %cst_6, dims = [] : (tensor<f32>) -> tensor<10xf32>
      %22 = stablehlo.multiply %21, %20 : tensor<10xf32>
      %23 = stablehlo.compare GT, %19, %22, FLOAT : (tensor<10xf32>, tensor<10xf32>) -> tensor<10xi1>
      %c_7 = stablehlo.constant dense<60> : tensor<i32>
      %24 = stablehlo.broadcast_in_dim %c_7, dims = [] : (tensor<i32>) -> tensor<10xi32>
      %25 = stablehlo.compare LT, %iterArg_3, %24, SIGNED : (tensor<10xi32>, tensor<10xi32>) -> tensor<10xi1>
      %c_8 = stablehlo.constant dense<false> : tensor<i1>
      %26 = stablehlo.broadcast_in_dim %c_8, dims = [] : (tensor<i1>) -> tensor<10xi1>
      %27 = stablehlo.compare NE, %25, %26, UNSIGNED : (tensor<10xi1>, tensor<10xi1>) -> tensor<10xi1>
      %28 = stablehlo.convert %27 : tensor<10xi1>
      %29 = stablehlo.and %23, %28 : tensor<10xi1>
      %30 = stablehlo.broadcast_in_dim %29, dims = [0] : (tensor<10xi1>) -> tensor<10xi1>
      %31 = stablehlo.select %30, %15, %iterArg_1 : tensor<10xi1>, tensor<10xf32>
      %32 = stablehlo.broadcast_in_dim %29, dims = [0] : (tensor<10xi1>) -> tensor<10xi1>
      %33 = stablehlo.select %32, %iterArg_1, %iterArg_2 : tensor<10xi1>, tensor<10xf32>
      %34 = stablehlo.broadcast_in_dim %29, dims = [0] : (tensor<10xi1>) -> tensor<10xi1>
      %35 = stablehlo.select %34, %17, %iterArg_3 : tensor<10xi1>, tensor<10xi32>
      stablehlo.return %iterArg, %31, %33, %35 : tensor<10xf32>, tensor<10xf32>, tensor<10xf32>, tensor<10xi32>
    }
    return %7#1 : tensor<10xf32>
  }
}
