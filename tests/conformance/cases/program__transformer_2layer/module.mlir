module @jit__transformer attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<2x6x16xf32>, %arg1: tensor<2x4x16xf32>, %arg2: tensor<2x16x48xf32>, %arg3: tensor<2x16x16xf32>, %arg4: tensor<2x16x64xf32>, %arg5: tensor<2x64x16xf32>) -> (tensor<2x6x16xf32> {jax.result_info = "result"}) {
    %c = stablehlo.constant dense<true> : tensor<i1>
    %0 = stablehlo.broadcast_in_dim %c, dims = [] : (tensor<i1>) -> tensor<6x6xi1>
    %1 = call @tril(%0) : (tensor<6x6xi1>) -> tensor<6x6xi1>
    %2 = stablehlo.slice %arg1 [0:1, 0:4, 0:16] : (tensor<2x4x16xf32>) -> tensor<1x4x16xf32>
    %3 = stablehlo.reshape %2 : (tensor<1x4x16xf32>) -> tensor<4x16xf32>
    %4 = stablehlo.slice %3 [0:1, 0:16] : (tensor<4x16xf32>) -> tensor<1x16xf32>
    %5 = stablehlo.reshape %4 : (tensor<1x16xf32>) -> tensor<16xf32>
    %6 = stablehlo.slice %3 [1:2, 0:16] : (tensor<4x16xf32>) -> tensor<1x16xf32>
    %7 = stablehlo.reshape %6 : (tensor<1x16xf32>) -> tensor<16xf32>
    %8 = stablehlo.slice %3 [2:3, 0:16] : (tensor<4x16xf32>) -> tensor<1x16xf32>
    %9 = stablehlo.reshape %8 : (tensor<1x16xf32>) -> tensor<16xf32>
    %10 = stablehlo.slice %3 [3:4, 0:16] : (tensor<4x16xf32>) -> tensor<1x16xf32>
    %11 = stablehlo.reshape %10 : (tensor<1x16xf32>) -> tensor<16xf32>
    %cst = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %12 = stablehlo.reduce(%arg0 init: %cst) applies stablehlo.add across dimensions = [2] : (tensor<2x6x16xf32>, tensor<f32>) -> tensor<2x6xf32>
    %13 = stablehlo.broadcast_in_dim %12, dims = [0, 1] : (tensor<2x6xf32>) -> tensor<2x6x1xf32>
    %cst_0 = stablehlo.constant dense<1.600000e+01> : tensor<f32>
    %14 = stablehlo.broadcast_in_dim %cst_0, dims = [] : (tensor<f32>) -> tensor<2x6x1xf32>
    %15 = stablehlo.divide %13, %14 : tensor<2x6x1xf32>
    %16 = stablehlo.broadcast_in_dim %15, dims = [0, 1, 2] : (tensor<2x6x1xf32>) -> tensor<2x6x16xf32>
    %17 = stablehlo.subtract %arg0, %16 : tensor<2x6x16xf32>
    %18 = stablehlo.multiply %17, %17 : tensor<2x6x16xf32>
    %cst_1 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %19 = stablehlo.reduce(%18 init: %cst_1) applies stablehlo.add across dimensions = [2] : (tensor<2x6x16xf32>, tensor<f32>) -> tensor<2x6xf32>
    %20 = stablehlo.broadcast_in_dim %19, dims = [0, 1] : (tensor<2x6xf32>) -> tensor<2x6x1xf32>
    %cst_2 = stablehlo.constant dense<1.600000e+01> : tensor<f32>
    %21 = stablehlo.broadcast_in_dim %cst_2, dims = [] : (tensor<f32>) -> tensor<2x6x1xf32>
    %22 = stablehlo.divide %20, %21 : tensor<2x6x1xf32>
    %cst_3 = stablehlo.constant dense<9.99999974E-6> : tensor<f32>
    %23 = stablehlo.broadcast_in_dim %cst_3, dims = [] : (tensor<f32>) -> tensor<2x6x1xf32>
    %24 = stablehlo.add %22, %23 : tensor<2x6x1xf32>
    %25 = stablehlo.rsqrt %24 : tensor<2x6x1xf32>
    %26 = stablehlo.broadcast_in_dim %25, dims = [0, 1, 2] : (tensor<2x6x1xf32>) -> tensor<2x6x16xf32>
    %27 = stablehlo.multiply %17, %26 : tensor<2x6x16xf32>
    %28 = stablehlo.broadcast_in_dim %5, dims = [2] : (tensor<16xf32>) -> tensor<1x1x16xf32>
    %29 = stablehlo.broadcast_in_dim %28, dims = [0, 1, 2] : (tensor<1x1x16xf32>) -> tensor<2x6x16xf32>
    %30 = stablehlo.multiply %27, %29 : tensor<2x6x16xf32>
    %31 = stablehlo.broadcast_in_dim %7, dims = [2] : (tensor<16xf32>) -> tensor<1x1x16xf32>
    %32 = stablehlo.broadcast_in_dim %31, dims = [0, 1, 2] : (tensor<1x1x16xf32>) -> tensor<2x6x16xf32>
    %33 = stablehlo.add %30, %32 : tensor<2x6x16xf32>
    %34 = stablehlo.slice %arg2 [0:1, 0:16, 0:48] : (tensor<2x16x48xf32>) -> tensor<1x16x48xf32>
    %35 = stablehlo.reshape %34 : (tensor<1x16x48xf32>) -> tensor<16x48xf32>
    %36 = stablehlo.dot_general %33, %35, contracting_dims = [2] x [0], precision = [DEFAULT, DEFAULT] : (tensor<2x6x16xf32>, tensor<16x48xf32>) -> tensor<2x6x48xf32>
    %37 = stablehlo.slice %36 [0:2, 0:6, 0:16] : (tensor<2x6x48xf32>) -> tensor<2x6x16xf32>
    %38 = stablehlo.slice %36 [0:2, 0:6, 16:32] : (tensor<2x6x48xf32>) -> tensor<2x6x16xf32>
    %39 = stablehlo.slice %36 [0:2, 0:6, 32:48] : (tensor<2x6x48xf32>) -> tensor<2x6x16xf32>
    %40 = stablehlo.reshape %37 : (tensor<2x6x16xf32>) -> tensor<2x6x2x8xf32>
    %41 = stablehlo.reshape %38 : (tensor<2x6x16xf32>) -> tensor<2x6x2x8xf32>
    %42 = stablehlo.reshape %39 : (tensor<2x6x16xf32>) -> tensor<2x6x2x8xf32>
    %43 = stablehlo.dot_general %40, %41, batching_dims = [0, 2] x [0, 2], contracting_dims = [3] x [3], precision = [DEFAULT, DEFAULT] : (tensor<2x6x2x8xf32>, tensor<2x6x2x8xf32>) -> tensor<2x2x6x6xf32>
    %cst_4 = stablehlo.constant dense<2.82842708> : tensor<f32>
    %44 = stablehlo.broadcast_in_dim %cst_4, dims = [] : (tensor<f32>) -> tensor<2x2x6x6xf32>
    %45 = stablehlo.divide %43, %44 : tensor<2x2x6x6xf32>
    %cst_5 = stablehlo.constant dense<-1.000000e+09> : tensor<f32>
    %46 = call @_where(%1, %45, %cst_5) : (tensor<6x6xi1>, tensor<2x2x6x6xf32>, tensor<f32>) -> tensor<2x2x6x6xf32>
    %cst_6 = stablehlo.constant dense<0xFF800000> : tensor<f32>
    %47 = stablehlo.reduce(%46 init: %cst_6) applies stablehlo.maximum across dimensions = [3] : (tensor<2x2x6x6xf32>, tensor<f32>) -> tensor<2x2x6xf32>
    %cst_7 = stablehlo.constant dense<0xFF800000> : tensor<f32>
    %48 = stablehlo.broadcast_in_dim %cst_7, dims = [] : (tensor<f32>) -> tensor<2x2x6xf32>
    %49 = stablehlo.maximum %48, %47 : tensor<2x2x6xf32>
    %50 = stablehlo.broadcast_in_dim %49, dims = [0, 1, 2] : (tensor<2x2x6xf32>) -> tensor<2x2x6x1xf32>
    %51 = stablehlo.broadcast_in_dim %50, dims = [0, 1, 2, 3] : (tensor<2x2x6x1xf32>) -> tensor<2x2x6x6xf32>
    %52 = stablehlo.subtract %46, %51 : tensor<2x2x6x6xf32>
    %53 = stablehlo.exponential %52 : tensor<2x2x6x6xf32>
    %cst_8 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %54 = stablehlo.reduce(%53 init: %cst_8) applies stablehlo.add across dimensions = [3] : (tensor<2x2x6x6xf32>, tensor<f32>) -> tensor<2x2x6xf32>
    %55 = stablehlo.broadcast_in_dim %54, dims = [0, 1, 2] : (tensor<2x2x6xf32>) -> tensor<2x2x6x1xf32>
    %56 = stablehlo.broadcast_in_dim %55, dims = [0, 1, 2, 3] : (tensor<2x2x6x1xf32>) -> tensor<2x2x6x6xf32>
    %57 = stablehlo.divide %53, %56 : tensor<2x2x6x6xf32>
    %58 = stablehlo.dot_general %42, %57, batching_dims = [0, 2] x [0, 1], contracting_dims = [1] x [3], precision = [DEFAULT, DEFAULT] : (tensor<2x6x2x8xf32>, tensor<2x2x6x6xf32>) -> tensor<2x2x8x6xf32>
    %59 = stablehlo.transpose %58, dims = [0, 3, 1, 2] : (tensor<2x2x8x6xf32>) -> tensor<2x6x2x8xf32>
    %60 = stablehlo.reshape %59 : (tensor<2x6x2x8xf32>) -> tensor<2x6x16xf32>
    %61 = stablehlo.slice %arg3 [0:1, 0:16, 0:16] : (tensor<2x16x16xf32>) -> tensor<1x16x16xf32>
    %62 = stablehlo.reshape %61 : (tensor<1x16x16xf32>) -> tensor<16x16xf32>
    %63 = stablehlo.dot_general %60, %62, contracting_dims = [2] x [0], precision = [DEFAULT, DEFAULT] : (tensor<2x6x16xf32>, tensor<16x16xf32>) -> tensor<2x6x16xf32>
    %64 = stablehlo.add %arg0, %63 : tensor<2x6x16xf32>
    %cst_9 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %65 = stablehlo.reduce(%64 init: %cst_9) applies stablehlo.add across dimensions = [2] : (tensor<2x6x16xf32>, tensor<f32>) -> tensor<2x6xf32>
    %66 = stablehlo.broadcast_in_dim %65, dims = [0, 1] : (tensor<2x6xf32>) -> tensor<2x6x1xf32>
    %cst_10 = stablehlo.constant dense<1.600000e+01> : tensor<f32>
    %67 = stablehlo.broadcast_in_dim %cst_10, dims = [] : (tensor<f32>) -> tensor<2x6x1xf32>
    %68 = stablehlo.divide %66, %67 : tensor<2x6x1xf32>
    %69 = stablehlo.broadcast_in_dim %68, dims = [0, 1, 2] : (tensor<2x6x1xf32>) -> tensor<2x6x16xf32>
    %70 = stablehlo.subtract %64, %69 : tensor<2x6x16xf32>
    %71 = stablehlo.multiply %70, %70 : tensor<2x6x16xf32>
    %cst_11 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %72 = stablehlo.reduce(%71 init: %cst_11) applies stablehlo.add across dimensions = [2] : (tensor<2x6x16xf32>, tensor<f32>) -> tensor<2x6xf32>
    %73 = stablehlo.broadcast_in_dim %72, dims = [0, 1] : (tensor<2x6xf32>) -> tensor<2x6x1xf32>
    %cst_12 = stablehlo.constant dense<1.600000e+01> : tensor<f32>
    %74 = stablehlo.broadcast_in_dim %cst_12, dims = [] : (tensor<f32>) -> tensor<2x6x1xf32>
    %75 = stablehlo.divide %73, %74 : tensor<2x6x1xf32>
    %cst_13 = stablehlo.constant dense<9.99999974E-6> : tensor<f32>
    %76 = stablehlo.broadcast_in_dim %cst_13, dims = [] : (tensor<f32>) -> tensor<2x6x1xf32>
    %77 = stablehlo.add %75, %76 : tensor<2x6x1xf32>
    %78 = stablehlo.rsqrt %77 : tensor<2x6x1xf32>
    %79 = stablehlo.broadcast_in_dim %78, dims = [0, 1, 2] : (tensor<2x6x1xf32>) -> tensor<2x6x16xf32>
    %80 = stablehlo.multiply %70, %79 : tensor<2x6x16xf32>
    %81 = stablehlo.broadcast_in_dim %9, dims = [2] : (tensor<16xf32>) -> tensor<1x1x16xf32>
    %82 = stablehlo.broadcast_in_dim %81, dims = [0, 1, 2] : (tensor<1x1x16xf32>) -> tensor<2x6x16xf32>
    %83 = stablehlo.multiply %80, %82 : tensor<2x6x16xf32>
    %84 = stablehlo.broadcast_in_dim %11, dims = [2] : (tensor<16xf32>) -> tensor<1x1x16xf32>
    %85 = stablehlo.broadcast_in_dim %84, dims = [0, 1, 2] : (tensor<1x1x16xf32>) -> tensor<2x6x16xf32>
    %86 = stablehlo.add %83, %85 : tensor<2x6x16xf32>
    %87 = stablehlo.slice %arg4 [0:1, 0:16, 0:64] : (tensor<2x16x64xf32>) -> tensor<1x16x64xf32>
    %88 = stablehlo.reshape %87 : (tensor<1x16x64xf32>) -> tensor<16x64xf32>
    %89 = stablehlo.dot_general %86, %88, contracting_dims = [2] x [0], precision = [DEFAULT, DEFAULT] : (tensor<2x6x16xf32>, tensor<16x64xf32>) -> tensor<2x6x64xf32>
    %90 = stablehlo.multiply %89, %89 : tensor<2x6x64xf32>
    %91 = stablehlo.multiply %90, %89 : tensor<2x6x64xf32>
    %cst_14 = stablehlo.constant dense<4.471500e-02> : tensor<f32>
    %92 = stablehlo.broadcast_in_dim %cst_14, dims = [] : (tensor<f32>) -> tensor<2x6x64xf32>
    %93 = stablehlo.multiply %92, %91 : tensor<2x6x64xf32>
    %94 = stablehlo.add %89, %93 : tensor<2x6x64xf32>
    %cst_15 = stablehlo.constant dense<0.797884583> : tensor<f32>
    %95 = stablehlo.broadcast_in_dim %cst_15, dims = [] : (tensor<f32>) -> tensor<2x6x64xf32>
    %96 = stablehlo.multiply %95, %94 : tensor<2x6x64xf32>
    %97 = stablehlo.tanh %96 : tensor<2x6x64xf32>
    %cst_16 = stablehlo.constant dense<1.000000e+00> : tensor<f32>
    %98 = stablehlo.broadcast_in_dim %cst_16, dims = [] : (tensor<f32>) -> tensor<2x6x64xf32>
    %99 = stablehlo.add %98, %97 : tensor<2x6x64xf32>
    %cst_17 = stablehlo.constant dense<5.000000e-01> : tensor<f32>
    %100 = stablehlo.broadcast_in_dim %cst_17, dims = [] : (tensor<f32>) -> tensor<2x6x64xf32>
    %101 = stablehlo.multiply %100, %99 : tensor<2x6x64xf32>
    %102 = stablehlo.multiply %89, %101 : tensor<2x6x64xf32>
    %103 = stablehlo.slice %arg5 [0:1, 0:64, 0:16] : (tensor<2x64x16xf32>) -> tensor<1x64x16xf32>
    %104 = stablehlo.reshape %103 : (tensor<1x64x16xf32>) -> tensor<64x16xf32>
    %105 = stablehlo.dot_general %102, %104, contracting_dims = [2] x [0], precision = [DEFAULT, DEFAULT] : (tensor<2x6x64xf32>, tensor<64x16xf32>) -> tensor<2x6x16xf32>
    %106 = stablehlo.add %64, %105 : tensor<2x6x16xf32>
    %107 = stablehlo.slice %arg1 [1:2, 0:4, 0:16] : (tensor<2x4x16xf32>) -> tensor<1x4x16xf32>
    %108 = stablehlo.reshape %107 : (tensor<1x4x16xf32>) -> tensor<4x16xf32>
    %109 = stablehlo.slice %108 [0:1, 0:16] : (tensor<4x16xf32>) -> tensor<1x16xf32>
    %110 = stablehlo.reshape %109 : (tensor<1x16xf32>) -> tensor<16xf32>
    %111 = stablehlo.slice %108 [1:2, 0:16] : (tensor<4x16xf32>) -> tensor<1x16xf32>
    %112 = stablehlo.reshape %111 : (tensor<1x16xf32>) -> tensor<16xf32>
    %113 = stablehlo.slice %108 [2:3, 0:16] : (tensor<4x16xf32>) -> tensor<1x16xf32>
    %114 = stablehlo.reshape %113 : (tensor<1x16xf32>) -> tensor<16xf32>
    %115 = stablehlo.slice %108 [3:4, 0:16] : (tensor<4x16xf32>) -> tensor<1x16xf32>
    %116 = stablehlo.reshape %115 : (tensor<1x16xf32>) -> tensor<16xf32>
    %cst_18 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %117 = stablehlo.reduce(%106 init: %cst_18) applies stablehlo.add across dimensions = [2] : (tensor<2x6x16xf32>, tensor<f32>) -> tensor<2x6xf32>
    %118 = stablehlo.broadcast_in_dim %117, dims = [0, 1] : (tensor<2x6xf32>) -> tensor<2x6x1xf32>
    %cst_19 = stablehlo.constant dense<1.600000e+01> : tensor<f32>
    %119 = stablehlo.broadcast_in_dim %cst_19, dims = [] : (tensor<f32>) -> tensor<2x6x1xf32>
    %120 = stablehlo.divide %118, %119 : tensor<2x6x1xf32>
    %121 = stablehlo.broadcast_in_dim %120, dims = [0, 1, 2] : (tensor<2x6x1xf32>) -> tensor<2x6x16xf32>
    %122 = stablehlo.subtract %106, %121 : tensor<2x6x16xf32>
    %123 = stablehlo.multiply %122, %122 : tensor<2x6x16xf32>
    %cst_20 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %124 = stablehlo.reduce(%123 init: %cst_20) applies stablehlo.add across dimensions = [2] : (tensor<2x6x16xf32>, tensor<f32>) -> tensor<2x6xf32>
    %125 = stablehlo.broadcast_in_dim %124, dims = [0, 1] : (tensor<2x6xf32>) -> tensor<2x6x1xf32>
    %cst_21 = stablehlo.constant dense<1.600000e+01> : tensor<f32>
    %126 = stablehlo.broadcast_in_dim %cst_21, dims = [] : (tensor<f32>) -> tensor<2x6x1xf32>
    %127 = stablehlo.divide %125, %126 : tensor<2x6x1xf32>
    %cst_22 = stablehlo.constant dense<9.99999974E-6> : tensor<f32>
    %128 = stablehlo.broadcast_in_dim %cst_22, dims = [] : (tensor<f32>) -> tensor<2x6x1xf32>
    %129 = stablehlo.add %127, %128 : tensor<2x6x1xf32>
    %130 = stablehlo.rsqrt %129 : tensor<2x6x1xf32>
    %131 = stablehlo.broadcast_in_dim %130, dims = [0, 1, 2] : (tensor<2x6x1xf32>) -> tensor<2x6x16xf32>
    %132 = stablehlo.multiply %122, %131 : tensor<2x6x16xf32>
    %133 = stablehlo.broadcast_in_dim %110, dims = [2] : (tensor<16xf32>) -> tensor<1x1x16xf32>
    %134 = stablehlo.broadcast_in_dim %133, dims = [0, 1, 2] : (tensor<1x1x16xf32>) -> tensor<2x6x16xf32>
    %135 = stablehlo.multiply %132, %134 : tensor<2x6x16xf32>
    %136 = stablehlo.broadcast_in_dim %112, dims = [2] : (tensor<16xf32>) -> tensor<1x1x16xf32>
    %137 = stablehlo.broadcast_in_dim %136, dims = [0, 1, 2] : (tensor<1x1x16xf32>) -> tensor<2x6x16xf32>
    %138 = stablehlo.add %135, %137 : tensor<2x6x16xf32>
    %139 = stablehlo.slice %arg2 [1:2, 0:16, 0:48] : (tensor<2x16x48xf32>) -> tensor<1x16x48xf32>
    %140 = stablehlo.reshape %139 : (tensor<1x16x48xf32>) -> tensor<16x48xf32>
    %141 = stablehlo.dot_general %138, %140, contracting_dims = [2] x [0], precision = [DEFAULT, DEFAULT] : (tensor<2x6x16xf32>, tensor<16x48xf32>) -> tensor<2x6x48xf32>
    %142 = stablehlo.slice %141 [0:2, 0:6, 0:16] : (tensor<2x6x48xf32>) -> tensor<2x6x16xf32>
    %143 = stablehlo.slice %141 [0:2, 0:6, 16:32] : (tensor<2x6x48xf32>) -> tensor<2x6x16xf32>
    %144 = stablehlo.slice %141 [0:2, 0:6, 32:48] : (tensor<2x6x48xf32>) -> tensor<2x6x16xf32>
    %145 = stablehlo.reshape %142 : (tensor<2x6x16xf32>) -> tensor<2x6x2x8xf32>
    %146 = stablehlo.reshape %143 : (tensor<2x6x16xf32>) -> tensor<2x6x2x8xf32>
    %147 = stablehlo.reshape %144 : (tensor<2x6x16xf32>) -> tensor<2x6x2x8xf32>
    %148 = stablehlo.dot_general %145, %146, batching_dims = [0, 2] x [0, 2], contracting_dims = [3] x [3], precision = [DEFAULT, DEFAULT] : (tensor<2x6x2x8xf32>, tensor<2x6x2x8xf32>) -> tensor<2x2x6x6xf32>
    %cst_23 = stablehlo.constant dense<2.82842708> : tensor<f32>
    %149 = stablehlo.broadcast_in_dim %cst_23, dims = [] : (tensor<f32>) -> tensor<2x2x6x6xf32>
    %150 = stablehlo.divide %148, %149 : tensor<2x2x6x6xf32>
    %cst_24 = stablehlo.constant dense<-1.000000e+09> : tensor<f32>
    %151 = call @_where(%1, %150, %cst_24) : (tensor<6x6xi1>, tensor<2x2x6x6xf32>, tensor<f32>) -> tensor<2x2x6x6xf32>
    %cst_25 = stablehlo.constant dense<0xFF800000> : tensor<f32>
    %152 = stablehlo.reduce(%151 init: %cst_25) applies stablehlo.maximum across dimensions = [3] : (tensor<2x2x6x6xf32>, tensor<f32>) -> tensor<2x2x6xf32>
    %cst_26 = stablehlo.constant dense<0xFF800000> : tensor<f32>
    %153 = stablehlo.broadcast_in_dim %cst_26, dims = [] : (tensor<f32>) -> tensor<2x2x6xf32>
    %154 = stablehlo.maximum %153, %152 : tensor<2x2x6xf32>
    %155 = stablehlo.broadcast_in_dim %154, dims = [0, 1, 2] : (tensor<2x2x6xf32>) -> tensor<2x2x6x1xf32>
    %156 = stablehlo.broadcast_in_dim %155, dims = [0, 1, 2, 3] : (tensor<2x2x6x1xf32>) -> tensor<2x2x6x6xf32>
    %157 = stablehlo.subtract %151, %156 : tensor<2x2x6x6xf32>
    %158 = stablehlo.exponential %157 : tensor<2x2x6x6xf32>
    %cst_27 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %159 = stablehlo.reduce(%158 init: %cst_27) applies stablehlo.add across dimensions = [3] : (tensor<2x2x6x6xf32>, tensor<f32>) -> tensor<2x2x6xf32>
    %160 = stablehlo.broadcast_in_dim %159, dims = [0, 1, 2] : (tensor<2x2x6xf32>) -> tensor<2x2x6x1xf32>
    %161 = stablehlo.broadcast_in_dim %160, dims = [0, 1, 2, 3] : (tensor<2x2x6x1xf32>) -> tensor<2x2x6x6xf32>
    %162 = stablehlo.divide %158, %161 : tensor<2x2x6x6xf32>
    %163 = stablehlo.dot_general %147, %162, batching_dims = [0, 2] x [0, 1], contracting_dims = [1] x [3], precision = [DEFAULT, DEFAULT] : (tensor<2x6x2x8xf32>, tensor<2x2x6x6xf32>) -> tensor<2x2x8x6xf32>
    %164 = stablehlo.transpose %163, dims = [0, 3, 1, 2] : (tensor<2x2x8x6xf32>) -> tensor<2x6x2x8xf32>
    %165 = stablehlo.reshape %164 : (tensor<2x6x2x8xf32>) -> tensor<2x6x16xf32>
    %166 = stablehlo.slice %arg3 [1:2, 0:16, 0:16] : (tensor<2x16x16xf32>) -> tensor<1x16x16xf32>
    %167 = stablehlo.reshape %166 : (tensor<1x16x16xf32>) -> tensor<16x16xf32>
    %168 = stablehlo.dot_general %165, %167, contracting_dims = [2] x [0], precision = [DEFAULT, DEFAULT] : (tensor<2x6x16xf32>, tensor<16x16xf32>) -> tensor<2x6x16xf32>
    %169 = stablehlo.add %106, %168 : tensor<2x6x16xf32>
    %cst_28 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %170 = stablehlo.reduce(%169 init: %cst_28) applies stablehlo.add across dimensions = [2] : (tensor<2x6x16xf32>, tensor<f32>) -> tensor<2x6xf32>
    %171 = stablehlo.broadcast_in_dim %170, dims = [0, 1] : (tensor<2x6xf32>) -> tensor<2x6x1xf32>
    %cst_29 = stablehlo.constant dense<1.600000e+01> : tensor<f32>
    %172 = stablehlo.broadcast_in_dim %cst_29, dims = [] : (tensor<f32>) -> tensor<2x6x1xf32>
    %173 = stablehlo.divide %171, %172 : tensor<2x6x1xf32>
    %174 = stablehlo.broadcast_in_dim %173, dims = [0, 1, 2] : (tensor<2x6x1xf32>) -> tensor<2x6x16xf32>
    %175 = stablehlo.subtract %169, %174 : tensor<2x6x16xf32>
    %176 = stablehlo.multiply %175, %175 : tensor<2x6x16xf32>
    %cst_30 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %177 = stablehlo.reduce(%176 init: %cst_30) applies stablehlo.add across dimensions = [2] : (tensor<2x6x16xf32>, tensor<f32>) -> tensor<2x6xf32>
    %178 = stablehlo.broadcast_in_dim %177, dims = [0, 1] : (tensor<2x6xf32>) -> tensor<2x6x1xf32>
    %cst_31 = stablehlo.constant dense<1.600000e+01> : tensor<f32>
    %179 = stablehlo.broadcast_in_dim %cst_31, dims = [] : (tensor<f32>) -> tensor<2x6x1xf32>
    %180 = stablehlo.divide %178, %179 : tensor<2x6x1xf32>
    %cst_32 = stablehlo.constant dense<9.99999974E-6> : tensor<f32>
    %181 = stablehlo.broadcast_in_dim %cst_32, dims = [] : (tensor<f32>) -> tensor<2x6x1xf32>
    %182 = stablehlo.add %180, %181 : tensor<2x6x1xf32>
    %183 = stablehlo.rsqrt %182 : tensor<2x6x1xf32>
    %184 = stablehlo.broadcast_in_dim %183, dims = [0, 1, 2] : (tensor<2x6x1xf32>) -> tensor<2x6x16xf32>
    %185 = stablehlo.multiply %175, %184 : tensor<2x6x16xf32>
    %186 = stablehlo.broadcast_in_dim %114, dims = [2] : (tensor<16xf32>) -> tensor<1x1x16xf32>
    %187 = stablehlo.broadcast_in_dim %186, dims = [0, 1, 2] : (tensor<1x1x16xf32>) -> tensor<2x6x16xf32>
    %188 = stablehlo.multiply %185, %187 : tensor<2x6x16xf32>
    %189 = stablehlo.broadcast_in_dim %116, dims = [2] : (tensor<16xf32>) -> tensor<1x1x16xf32>
    %190 = stablehlo.broadcast_in_dim %189, dims = [0, 1, 2] : (tensor<1x1x16xf32>) -> tensor<2x6x16xf32>
    %191 = stablehlo.add %188, %190 : tensor<2x6x16xf32>
    %192 = stablehlo.slice %arg4 [1:2, 0:16, 0:64] : (tensor<2x16x64xf32>) -> tensor<1x16x64xf32>
    %193 = stablehlo.reshape %192 : (tensor<1x16x64xf32>) -> tensor<16x64xf32>
    %194 = stablehlo.dot_general %191, %193, contracting_dims = [2] x [0], precision = [DEFAULT, DEFAULT] : (tensor<2x6x16xf32>, tensor<16x64xf32>) -> tensor<2x6x64xf32>
    %195 = stablehlo.multiply %194, %194 : tensor<2x6x64xf32>
    %196 = stablehlo.multiply %195, %194 : tensor<2x6x64xf32>
    %cst_33 = stablehlo.constant dense<4.471500e-02> : tensor<f32>
    %197 = stablehlo.broadcast_in_dim %cst_33, dims = [] : (tensor<f32>) -> tensor<2x6x64xf32>
    %198 = stablehlo.multiply %197, %196 : tensor<2x6x64xf32>
    %199 = stablehlo.add %194, %198 : tensor<2x6x64xf32>
    %cst_34 = stablehlo.constant dense<0.797884583> : tensor<f32>
    %200 = stablehlo.broadcast_in_dim %cst_34, dims = [] : (tensor<f32>) -> tensor<2x6x64xf32>
    %201 = stablehlo.multiply %200, %199 : tensor<2x6x64xf32>
    %202 = stablehlo.tanh %201 : tensor<2x6x64xf32>
    %cst_35 = stablehlo.constant dense<1.000000e+00> : tensor<f32>
    %203 = stablehlo.broadcast_in_dim %cst_35, dims = [] : (tensor<f32>) -> tensor<2x6x64xf32>
    %204 = stablehlo.add %203, %202 : tensor<2x6x64xf32>
    %cst_36 = stablehlo.constant dense<5.000000e-01> : tensor<f32>
    %205 = stablehlo.broadcast_in_dim %cst_36, dims = [] : (tensor<f32>) -> tensor<2x6x64xf32>
    %206 = stablehlo.multiply %205, %204 : tensor<2x6x64xf32>
    %207 = stablehlo.multiply %194, %206 : tensor<2x6x64xf32>
    %208 = stablehlo.slice %arg5 [1:2, 0:64, 0:16] : (tensor<2x64x16xf32>) -> tensor<1x64x16xf32>
    %209 = stablehlo.reshape %208 : (tensor<1x64x16xf32>) -> tensor<64x16xf32>
    %210 = stablehlo.dot_general %207, %209, contracting_dims = [2] x [0], precision = [DEFAULT, DEFAULT] : (tensor<2x6x64xf32>, tensor<64x16xf32>) -> tensor<2x6x16xf32>
    %211 = stablehlo.add %169, %210 : tensor<2x6x16xf32>
    %cst_37 = stablehlo.constant dense<1.000000e+00> : tensor<f32>
    %212 = stablehlo.broadcast_in_dim %cst_37, dims = [] : (tensor<f32>) -> tensor<16xf32>
    %cst_38 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %213 = stablehlo.broadcast_in_dim %cst_38, dims = [] : (tensor<f32>) -> tensor<16xf32>
    %cst_39 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %214 = stablehlo.reduce(%211 init: %cst_39) applies stablehlo.add across dimensions = [2] : (tensor<2x6x16xf32>, tensor<f32>) -> tensor<2x6xf32>
    %215 = stablehlo.broadcast_in_dim %214, dims = [0, 1] : (tensor<2x6xf32>) -> tensor<2x6x1xf32>
    %cst_40 = stablehlo.constant dense<1.600000e+01> : tensor<f32>
    %216 = stablehlo.broadcast_in_dim %cst_40, dims = [] : (tensor<f32>) -> tensor<2x6x1xf32>
    %217 = stablehlo.divide %215, %216 : tensor<2x6x1xf32>
    %218 = stablehlo.broadcast_in_dim %217, dims = [0, 1, 2] : (tensor<2x6x1xf32>) -> tensor<2x6x16xf32>
    %219 = stablehlo.subtract %211, %218 : tensor<2x6x16xf32>
    %220 = stablehlo.multiply %219, %219 : tensor<2x6x16xf32>
    %cst_41 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %221 = stablehlo.reduce(%220 init: %cst_41) applies stablehlo.add across dimensions = [2] : (tensor<2x6x16xf32>, tensor<f32>) -> tensor<2x6xf32>
    %222 = stablehlo.broadcast_in_dim %221, dims = [0, 1] : (tensor<2x6xf32>) -> tensor<2x6x1xf32>
    %cst_42 = stablehlo.constant dense<1.600000e+01> : tensor<f32>
    %223 = stablehlo.broadcast_in_dim %cst_42, dims = [] : (tensor<f32>) -> tensor<2x6x1xf32>
    %224 = stablehlo.divide %222, %223 : tensor<2x6x1xf32>
    %cst_43 = stablehlo.constant dense<9.99999974E-6> : tensor<f32>
    %225 = stablehlo.broadcast_in_dim %cst_43, dims = [] : (tensor<f32>) -> tensor<2x6x1xf32>
    %226 = stablehlo.add %224, %225 : tensor<2x6x1xf32>
    %227 = stablehlo.rsqrt %226 : tensor<2x6x1xf32>
    %228 = stablehlo.broadcast_in_dim %227, dims = [0, 1, 2] : (tensor<2x6x1xf32>) -> tensor<2x6x16xf32>
    %229 = stablehlo.multiply %219, %228 : tensor<2x6x16xf32>
    %230 = stablehlo.broadcast_in_dim %212, dims = [2] : (tensor<16xf32>) -> tensor<1x1x16xf32>
    %231 = stablehlo.broadcast_in_dim %230, dims = [0, 1, 2] : (tensor<1x1x16xf32>) -> tensor<2x6x16xf32>
    %232 = stablehlo.multiply %229, %231 : tensor<2x6x16xf32>
    %233 = stablehlo.broadcast_in_dim %213, dims = [2] : (tensor<16xf32>) -> tensor<1x1x16xf32>
    %234 = stablehlo.broadcast_in_dim %233, dims = [0, 1, 2] : (tensor<1x1x16xf32>) -> tensor<2x6x16xf32>
    %235 = stablehlo.add %232, %234 : tensor<2x6x16xf32>
    return %235 : tensor<2x6x16xf32>
  }
  func.func private @tril(%arg0: tensor<6x6xi1>) -> tensor<6x6xi1> {
    %0 = stablehlo.iota dim = 0 : tensor<6x6xi32>
    %c = stablehlo.constant dense<0> : tensor<i32>
    %1 = stablehlo.broadcast_in_dim %c, dims = [] : (tensor<i32>) -> tensor<6x6xi32>
    %2 = stablehlo.add %0, %1 : tensor<6x6xi32>
    %3 = stablehlo.iota dim = 1 : tensor<6x6xi32>
    %4 = stablehlo.compare GE, %2, %3, SIGNED : (tensor<6x6xi32>, tensor<6x6xi32>) -> tensor<6x6xi1>
    %c_0 = stablehlo.constant dense<false> : tensor<i1>
    %5 = stablehlo.broadcast_in_dim %c_0, dims = [] : (tensor<i1>) -> tensor<6x6xi1>
    %6 = stablehlo.select %4, %arg0, %5 : tensor<6x6xi1>, tensor<6x6xi1>
    return %6 : tensor<6x6xi1>
  }
  func.func private @_where(%arg0: tensor<6x6xi1>, %arg1: tensor<2x2x6x6xf32>, %arg2: tensor<f32>) -> tensor<2x2x6x6xf32> {
    %0 = stablehlo.convert %arg2 : tensor<f32>
    %1 = stablehlo.broadcast_in_dim %arg0, dims = [2, 3] : (tensor<6x6xi1>) -> tensor<2x2x6x6xi1>
    %2 = stablehlo.broadcast_in_dim %0, dims = [] : (tensor<f32>) -> tensor<2x2x6x6xf32>
    %3 = stablehlo.select %1, %arg1, %2 : tensor<2x2x6x6xi1>, tensor<2x2x6x6xf32>
    return %3 : tensor<2x2x6x6xf32>
  }
}
