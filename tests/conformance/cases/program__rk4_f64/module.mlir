module @jit__rk4 attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<2xf64>, %arg1: tensor<4xf64>, %arg2: tensor<f64>) -> (tensor<2xf64> {jax.result_info = "result"}) {
    %0 = stablehlo.slice %arg1 [0:1] : (tensor<4xf64>) -> tensor<1xf64>
    %1 = stablehlo.reshape %0 : (tensor<1xf64>) -> tensor<f64>
    %2 = stablehlo.slice %arg1 [1:2] : (tensor<4xf64>) -> tensor<1xf64>
    %3 = stablehlo.reshape %2 : (tensor<1xf64>) -> tensor<f64>
    %4 = stablehlo.slice %arg1 [2:3] : (tensor<4xf64>) -> tensor<1xf64>
    %5 = stablehlo.reshape %4 : (tensor<1xf64>) -> tensor<f64>
    %6 = stablehlo.slice %arg1 [3:4] : (tensor<4xf64>) -> tensor<1xf64>
    %7 = stablehlo.reshape %6 : (tensor<1xf64>) -> tensor<f64>
    %c = stablehlo.constant dense<0> : tensor<i64>
    %c_0 = stablehlo.constant dense<0> : tensor<i64>
    %8:8 = stablehlo.while(%iterArg = %1, %iterArg_1 = %3, %iterArg_2 = %7, %iterArg_3 = %5, %iterArg_4 = %arg2, %iterArg_5 = %c_0, %iterArg_6 = %c, %iterArg_7 = %arg0) : tensor<f64>, tensor<f64>, tensor<f64>, tensor<f64>, tensor<f64>, tensor<i64>, tensor<i64>, tensor<2xf64>
    cond {
      %c_8 = stablehlo.constant dense<40> : tensor<i64>
      %9 = stablehlo.compare LT, %iterArg_5, %c_8, SIGNED : (tensor<i64>, tensor<i64>) -> tensor<i1>
      stablehlo.return %9 : tensor<i1>
    } do {
      %9:2 = func.call @closed_call(%iterArg, %iterArg_1, %iterArg_2, %iterArg_3, %iterArg_4, %iterArg_6, %iterArg_7) : (tensor<f64>, tensor<f64>, tensor<f64>, tensor<f64>, tensor<f64>, tensor<i64>, tensor<2xf64>) -> (tensor<i64>, tensor<2xf64>)
      %c_8 = stablehlo.constant dense<1> : tensor<i64>
      %10 = stablehlo.add %iterArg_5, %c_8 : tensor<i64>
      stablehlo.return %iterArg, %iterArg_1, %iterArg_2, %iterArg_3, %iterArg_4, %10, %9#0, %9#1 : tensor<f64>, tensor<f64>, tensor<f64>, tensor<f64>, tensor<f64>, tensor<i64>, tensor<i64>, tensor<2xf64>
    }
    return %8#7 : tensor<2xf64>
  }
  func.func private @closed_call(%arg0: tensor<f64>, %arg1: tensor<f64>, %arg2: tensor<f64>, %arg3: tensor<f64>, %arg4: tensor<f64>, %arg5: tensor<i64>, %arg6: tensor<2xf64>) -> (tensor<i64>, tensor<2xf64>) {
    %c = stablehlo.constant dense<1> : tensor<i64>
    %0 = stablehlo.add %arg5, %c : tensor<i64>
    %1 = stablehlo.slice %arg6 [0:1] : (tensor<2xf64>) -> tensor<1xf64>
    %2 = stablehlo.reshape %1 : (tensor<1xf64>) -> tensor<f64>
    %3 = stablehlo.multiply %arg0, %2 : tensor<f64>
    %4 = stablehlo.slice %arg6 [0:1] : (tensor<2xf64>) -> tensor<1xf64>
    %5 = stablehlo.reshape %4 : (tensor<1xf64>) -> tensor<f64>
    %6 = stablehlo.multiply %arg1, %5 : tensor<f64>
    %7 = stablehlo.slice %arg6 [1:2] : (tensor<2xf64>) -> tensor<1xf64>
    %8 = stablehlo.reshape %7 : (tensor<1xf64>) -> tensor<f64>
    %9 = stablehlo.multiply %6, %8 : tensor<f64>
    %10 = stablehlo.subtract %3, %9 : tensor<f64>
    %11 = stablehlo.slice %arg6 [0:1] : (tensor<2xf64>) -> tensor<1xf64>
    %12 = stablehlo.reshape %11 : (tensor<1xf64>) -> tensor<f64>
    %13 = stablehlo.multiply %arg2, %12 : tensor<f64>
    %14 = stablehlo.slice %arg6 [1:2] : (tensor<2xf64>) -> tensor<1xf64>
    %15 = stablehlo.reshape %14 : (tensor<1xf64>) -> tensor<f64>
    %16 = stablehlo.multiply %13, %15 : tensor<f64>
    %17 = stablehlo.slice %arg6 [1:2] : (tensor<2xf64>) -> tensor<1xf64>
    %18 = stablehlo.reshape %17 : (tensor<1xf64>) -> tensor<f64>
    %19 = stablehlo.multiply %arg3, %18 : tensor<f64>
    %20 = stablehlo.subtract %16, %19 : tensor<f64>
    %21 = stablehlo.broadcast_in_dim %10, dims = [] : (tensor<f64>) -> tensor<1xf64>
    %22 = stablehlo.broadcast_in_dim %20, dims = [] : (tensor<f64>) -> tensor<1xf64>
    %23 = stablehlo.concatenate %21, %22, dim = 0 : (tensor<1xf64>, tensor<1xf64>) -> tensor<2xf64>
    %cst = stablehlo.constant dense<2.000000e+00> : tensor<f64>
    %24 = stablehlo.divide %arg4, %cst : tensor<f64>
    %25 = stablehlo.broadcast_in_dim %24, dims = [] : (tensor<f64>) -> tensor<2xf64>
    %26 = stablehlo.multiply %25, %23 : tensor<2xf64>
    %27 = stablehlo.add %arg6, %26 : tensor<2xf64>
    %28 = stablehlo.slice %27 [0:1] : (tensor<2xf64>) -> tensor<1xf64>
    %29 = stablehlo.reshape %28 : (tensor<1xf64>) -> tensor<f64>
    %30 = stablehlo.multiply %arg0, %29 : tensor<f64>
    %31 = stablehlo.slice %27 [0:1] : (tensor<2xf64>) -> tensor<1xf64>
    %32 = stablehlo.reshape %31 : (tensor<1xf64>) -> tensor<f64>
    %33 = stablehlo.multiply %arg1, %32 : tensor<f64>
    %34 = stablehlo.slice %27 [1:2] : (tensor<2xf64>) -> tensor<1xf64>
    %35 = stablehlo.reshape %34 : (tensor<1xf64>) -> tensor<f64>
    %36 = stablehlo.multiply %33, %35 : tensor<f64>
    %37 = stablehlo.subtract %30, %36 : tensor<f64>
    %38 = stablehlo.slice %27 [0:1] : (tensor<2xf64>) -> tensor<1xf64>
    %39 = stablehlo.reshape %38 : (tensor<1xf64>) -> tensor<f64>
    %40 = stablehlo.multiply %arg2, %39 : tensor<f64>
    %41 = stablehlo.slice %27 [1:2] : (tensor<2xf64>) -> tensor<1xf64>
    %42 = stablehlo.reshape %41 : (tensor<1xf64>) -> tensor<f64>
    %43 = stablehlo.multiply %40, %42 : tensor<f64>
    %44 = stablehlo.slice %27 [1:2] : (tensor<2xf64>) -> tensor<1xf64>
    %45 = stablehlo.reshape %44 : (tensor<1xf64>) -> tensor<f64>
    %46 = stablehlo.multiply %arg3, %45 : tensor<f64>
    %47 = stablehlo.subtract %43, %46 : tensor<f64>
    %48 = stablehlo.broadcast_in_dim %37, dims = [] : (tensor<f64>) -> tensor<1xf64>
    %49 = stablehlo.broadcast_in_dim %47, dims = [] : (tensor<f64>) -> tensor<1xf64>
    %50 = stablehlo.concatenate %48, %49, dim = 0 : (tensor<1xf64>, tensor<1xf64>) -> tensor<2xf64>
    %cst_0 = stablehlo.constant dense<2.000000e+00> : tensor<f64>
    %51 = stablehlo.divide %arg4, %cst_0 : tensor<f64>
    %52 = stablehlo.broadcast_in_dim %51, dims = [] : (tensor<f64>) -> tensor<2xf64>
    %53 = stablehlo.multiply %52, %50 : tensor<2xf64>
    %54 = stablehlo.add %arg6, %53 : tensor<2xf64>
    %55 = stablehlo.slice %54 [0:1] : (tensor<2xf64>) -> tensor<1xf64>
    %56 = stablehlo.reshape %55 : (tensor<1xf64>) -> tensor<f64>
    %57 = stablehlo.multiply %arg0, %56 : tensor<f64>
    %58 = stablehlo.slice %54 [0:1] : (tensor<2xf64>) -> tensor<1xf64>
    %59 = stablehlo.reshape %58 : (tensor<1xf64>) -> tensor<f64>
    %60 = stablehlo.multiply %arg1, %59 : tensor<f64>
    %61 = stablehlo.slice %54 [1:2] : (tensor<2xf64>) -> tensor<1xf64>
    %62 = stablehlo.reshape %61 : (tensor<1xf64>) -> tensor<f64>
    %63 = stablehlo.multiply %60, %62 : tensor<f64>
    %64 = stablehlo.subtract %57, %63 : tensor<f64>
    %65 = stablehlo.slice %54 [0:1] : (tensor<2xf64>) -> tensor<1xf64>
    %66 = stablehlo.reshape %65 : (tensor<1xf64>) -> tensor<f64>
    %67 = stablehlo.multiply %arg2, %66 : tensor<f64>
    %68 = stablehlo.slice %54 [1:2] : (tensor<2xf64>) -> tensor<1xf64>
    %69 = stablehlo.reshape %68 : (tensor<1xf64>) -> tensor<f64>
    %70 = stablehlo.multiply %67, %69 : tensor<f64>
    %71 = stablehlo.slice %54 [1:2] : (tensor<2xf64>) -> tensor<1xf64>
    %72 = stablehlo.reshape %71 : (tensor<1xf64>) -> tensor<f64>
    %73 = stablehlo.multiply %arg3, %72 : tensor<f64>
    %74 = stablehlo.subtract %70, %73 : tensor<f64>
    %75 = stablehlo.broadcast_in_dim %64, dims = [] : (tensor<f64>) -> tensor<1xf64>
    %76 = stablehlo.broadcast_in_dim %74, dims = [] : (tensor<f64>) -> tensor<1xf64>
    %77 = stablehlo.concatenate %75, %76, dim = 0 : (tensor<1xf64>, tensor<1xf64>) -> tensor<2xf64>
    %78 = stablehlo.broadcast_in_dim %arg4, dims = [] : (tensor<f64>) -> tensor<2xf64>
    %79 = stablehlo.multiply %78, %77 : tensor<2xf64>
    %80 = stablehlo.add %arg6, %79 : tensor<2xf64>
    %81 = stablehlo.slice %80 [0:1] : (tensor<2xf64>) -> tensor<1xf64>
    %82 = stablehlo.reshape %81 : (tensor<1xf64>) -> tensor<f64>
    %83 = stablehlo.multiply %arg0, %82 : tensor<f64>
    %84 = stablehlo.slice %80 [0:1] : (tensor<2xf64>) -> tensor<1xf64>
    %85 = stablehlo.reshape %84 : (tensor<1xf64>) -> tensor<f64>
    %86 = stablehlo.multiply %arg1, %85 : tensor<f64>
    %87 = stablehlo.slice %80 [1:2] : (tensor<2xf64>) -> tensor<1xf64>
    %88 = stablehlo.reshape %87 : (tensor<1xf64>) -> tensor<f64>
    %89 = stablehlo.multiply %86, %88 : tensor<f64>
    %90 = stablehlo.subtract %83, %89 : tensor<f64>
    %91 = stablehlo.slice %80 [0:1] : (tensor<2xf64>) -> tensor<1xf64>
    %92 = stablehlo.reshape %91 : (tensor<1xf64>) -> tensor<f64>
    %93 = stablehlo.multiply %arg2, %92 : tensor<f64>
    %94 = stablehlo.slice %80 [1:2] : (tensor<2xf64>) -> tensor<1xf64>
    %95 = stablehlo.reshape %94 : (tensor<1xf64>) -> tensor<f64>
    %96 = stablehlo.multiply %93, %95 : tensor<f64>
    %97 = stablehlo.slice %80 [1:2] : (tensor<2xf64>) -> tensor<1xf64>
    %98 = stablehlo.reshape %97 : (tensor<1xf64>) -> tensor<f64>
    %99 = stablehlo.multiply %arg3, %98 : tensor<f64>
    %100 = stablehlo.subtract %96, %99 : tensor<f64>
    %101 = stablehlo.broadcast_in_dim %90, dims = [] : (tensor<f64>) -> tensor<1xf64>
    %102 = stablehlo.broadcast_in_dim %100, dims = [] : (tensor<f64>) -> tensor<1xf64>
    %103 = stablehlo.concatenate %101, %102, dim = 0 : (tensor<1xf64>, tensor<1xf64>) -> tensor<2xf64>
    %cst_1 = stablehlo.constant dense<6.000000e+00> : tensor<f64>
    %104 = stablehlo.divide %arg4, %cst_1 : tensor<f64>
    %cst_2 = stablehlo.constant dense<2.000000e+00> : tensor<f64>
    %105 = stablehlo.broadcast_in_dim %cst_2, dims = [] : (tensor<f64>) -> tensor<2xf64>
    %106 = stablehlo.multiply %105, %50 : tensor<2xf64>
    %107 = stablehlo.add %23, %106 : tensor<2xf64>
    %cst_3 = stablehlo.constant dense<2.000000e+00> : tensor<f64>
    %108 = stablehlo.broadcast_in_dim %cst_3, dims = [] : (tensor<f64>) -> tensor<2xf64>
    %109 = stablehlo.multiply %108, %77 : tensor<2xf64>
    %110 = stablehlo.add %107, %109 : tensor<2xf64>
    %111 = stablehlo.add %110, %103 : tensor<2xf64>
    %112 = stablehlo.broadcast_in_dim %104, dims = [] : (tensor<f64>) -> tensor<2xf64>
    %113 = stablehlo.multiply %112, %111 : tensor<2xf64>
    %114 = stablehlo.add %arg6, %113 : tensor<2xf64>
    return %0, %114 : tensor<i64>, tensor<2xf64>
  }
}
