module @jit__attention_grad attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<1x2x5x8xf32>, %arg1: tensor<1x2x5x8xf32>, %arg2: tensor<1x2x5x8xf32>, %arg3: tensor<1x2x5x8xf32>) -> (tensor<1x2x5x8xf32> {jax.result_info = "result[0]"}, tensor<1x2x5x8xf32> {jax.result_info = "result[1]"}, tensor<1x2x5x8xf32> {jax.result_info = "result[2]"}) {
    %0 = stablehlo.dot_general %arg0, %arg1, batching_dims = [0, 1] x [0, 1], contracting_dims = [3] x [3], precision = [DEFAULT, DEFAULT] : (tensor<1x2x5x8xf32>, tensor<1x2x5x8xf32>) -> tensor<1x2x5x5xf32>
    %cst = stablehlo.constant dense<2.82842708> : tensor<f32>
    %1 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f32>) -> tensor<1x2x5x5xf32>
    %2 = stablehlo.divide %0, %1 : tensor<1x2x5x5xf32>
    %c = stablehlo.constant dense<true> : tensor<i1>
    %3 = stablehlo.broadcast_in_dim %c, dims = [] : (tensor<i1>) -> tensor<5x5xi1>
    %4 = call @tril(%3) : (tensor<5x5xi1>) -> tensor<5x5xi1>
    %cst_0 = stablehlo.constant dense<0xFF800000> : tensor<f32>
    %5:3 = call @_where(%4, %2, %cst_0) : (tensor<5x5xi1>, tensor<1x2x5x5xf32>, tensor<f32>) -> (tensor<1x2x5x5xf32>, tensor<1x2x5x5xi1>, tensor<1x2x5x5xf32>)
    %cst_1 = stablehlo.constant dense<0xFF800000> : tensor<f32>
    %6 = stablehlo.reduce(%5#0 init: %cst_1) applies stablehlo.maximum across dimensions = [3] : (tensor<1x2x5x5xf32>, tensor<f32>) -> tensor<1x2x5xf32>
    %7 = stablehlo.reshape %6 : (tensor<1x2x5xf32>) -> tensor<1x2x5x1xf32>
    %8 = stablehlo.broadcast_in_dim %7, dims = [0, 1, 2, 3] : (tensor<1x2x5x1xf32>) -> tensor<1x2x5x5xf32>
    %9 = stablehlo.compare EQ, %5#0, %8, FLOAT : (tensor<1x2x5x5xf32>, tensor<1x2x5x5xf32>) -> tensor<1x2x5x5xi1>
    %10 = stablehlo.convert %9 : (tensor<1x2x5x5xi1>) -> tensor<1x2x5x5xf32>
    %cst_2 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %11 = stablehlo.reduce(%10 init: %cst_2) applies stablehlo.add across dimensions = [3] : (tensor<1x2x5x5xf32>, tensor<f32>) -> tensor<1x2x5xf32>
    %cst_3 = stablehlo.constant dense<0xFF800000> : tensor<f32>
    %12 = stablehlo.broadcast_in_dim %cst_3, dims = [] : (tensor<f32>) -> tensor<1x2x5xf32>
    %13 = stablehlo.maximum %12, %6 : tensor<1x2x5xf32>
    %14 = stablehlo.compare EQ, %6, %13, FLOAT : (tensor<1x2x5xf32>, tensor<1x2x5xf32>) -> tensor<1x2x5xi1>
    %cst_4 = stablehlo.constant dense<1.000000e+00> : tensor<f32>
    %15 = stablehlo.broadcast_in_dim %cst_4, dims = [] : (tensor<f32>) -> tensor<1x2x5xf32>
    %cst_5 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %16 = stablehlo.broadcast_in_dim %cst_5, dims = [] : (tensor<f32>) -> tensor<1x2x5xf32>
    %17 = stablehlo.select %14, %15, %16 : tensor<1x2x5xi1>, tensor<1x2x5xf32>
    %cst_6 = stablehlo.constant dense<0xFF800000> : tensor<f32>
    %18 = stablehlo.broadcast_in_dim %cst_6, dims = [] : (tensor<f32>) -> tensor<1x2x5xf32>
    %19 = stablehlo.compare EQ, %18, %13, FLOAT : (tensor<1x2x5xf32>, tensor<1x2x5xf32>) -> tensor<1x2x5xi1>
    %cst_7 = stablehlo.constant dense<2.000000e+00> : tensor<f32>
    %20 = stablehlo.broadcast_in_dim %cst_7, dims = [] : (tensor<f32>) -> tensor<1x2x5xf32>
    %cst_8 = stablehlo.constant dense<1.000000e+00> : tensor<f32>
    %21 = stablehlo.broadcast_in_dim %cst_8, dims = [] : (tensor<f32>) -> tensor<1x2x5xf32>
    %22 = stablehlo.select %19, %20, %21 : tensor<1x2x5xi1>, tensor<1x2x5xf32>
    %23 = stablehlo.divide %17, %22 : tensor<1x2x5xf32>
    %24 = stablehlo.broadcast_in_dim %13, dims = [0, 1, 2] : (tensor<1x2x5xf32>) -> tensor<1x2x5x1xf32>
    %25 = stablehlo.broadcast_in_dim %24, dims = [0, 1, 2, 3] : (tensor<1x2x5x1xf32>) -> tensor<1x2x5x5xf32>
    %26 = stablehlo.subtract %5#0, %25 : tensor<1x2x5x5xf32>
    %27 = stablehlo.exponential %26 : tensor<1x2x5x5xf32>
    %cst_9 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %28 = stablehlo.reduce(%27 init: %cst_9) applies stablehlo.add across dimensions = [3] : (tensor<1x2x5x5xf32>, tensor<f32>) -> tensor<1x2x5xf32>
    %29 = stablehlo.broadcast_in_dim %28, dims = [0, 1, 2] : (tensor<1x2x5xf32>) -> tensor<1x2x5x1xf32>
    %30 = stablehlo.broadcast_in_dim %29, dims = [0, 1, 2, 3] : (tensor<1x2x5x1xf32>) -> tensor<1x2x5x5xf32>
    %31 = stablehlo.divide %27, %30 : tensor<1x2x5x5xf32>
    %32 = stablehlo.multiply %29, %29 : tensor<1x2x5x1xf32>
    %cst_10 = stablehlo.constant dense<1.000000e+00> : tensor<f32>
    %33 = stablehlo.broadcast_in_dim %cst_10, dims = [] : (tensor<f32>) -> tensor<1x2x5x1xf32>
    %34 = stablehlo.divide %33, %32 : tensor<1x2x5x1xf32>
    %35 = stablehlo.dot_general %31, %arg2, batching_dims = [0, 1] x [0, 1], contracting_dims = [3] x [2], precision = [DEFAULT, DEFAULT] : (tensor<1x2x5x5xf32>, tensor<1x2x5x8xf32>) -> tensor<1x2x5x8xf32>
    %36 = stablehlo.multiply %35, %arg3 : tensor<1x2x5x8xf32>
    %cst_11 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %37 = stablehlo.reduce(%36 init: %cst_11) applies stablehlo.add across dimensions = [0, 1, 2, 3] : (tensor<1x2x5x8xf32>, tensor<f32>) -> tensor<f32>
    %cst_12 = stablehlo.constant dense<1.000000e+00> : tensor<f32>
    %38 = stablehlo.broadcast_in_dim %cst_12, dims = [] : (tensor<f32>) -> tensor<1x2x5x8xf32>
    %39 = stablehlo.multiply %38, %arg3 : tensor<1x2x5x8xf32>
    %40 = stablehlo.dot_general %39, %31, batching_dims = [0, 1] x [0, 1], contracting_dims = [2] x [2], precision = [DEFAULT, DEFAULT] : (tensor<1x2x5x8xf32>, tensor<1x2x5x5xf32>) -> tensor<1x2x8x5xf32>
    %41 = stablehlo.transpose %40, dims = [0, 1, 3, 2] : (tensor<1x2x8x5xf32>) -> tensor<1x2x5x8xf32>
    %42 = stablehlo.dot_general %39, %arg2, batching_dims = [0, 1] x [0, 1], contracting_dims = [3] x [3], precision = [DEFAULT, DEFAULT] : (tensor<1x2x5x8xf32>, tensor<1x2x5x8xf32>) -> tensor<1x2x5x5xf32>
    %43 = stablehlo.broadcast_in_dim %34, dims = [0, 1, 2, 3] : (tensor<1x2x5x1xf32>) -> tensor<1x2x5x5xf32>
    %44 = stablehlo.multiply %42, %43 : tensor<1x2x5x5xf32>
    %45 = stablehlo.multiply %44, %27 : tensor<1x2x5x5xf32>
    %cst_13 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %46 = stablehlo.reduce(%45 init: %cst_13) applies stablehlo.add across dimensions = [3] : (tensor<1x2x5x5xf32>, tensor<f32>) -> tensor<1x2x5xf32>
    %47 = stablehlo.reshape %46 : (tensor<1x2x5xf32>) -> tensor<1x2x5x1xf32>
    %48 = stablehlo.negate %47 : tensor<1x2x5x1xf32>
    %49 = stablehlo.broadcast_in_dim %29, dims = [0, 1, 2, 3] : (tensor<1x2x5x1xf32>) -> tensor<1x2x5x5xf32>
    %50 = stablehlo.divide %42, %49 : tensor<1x2x5x5xf32>
    %cst_14 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %51 = stablehlo.reduce(%48 init: %cst_14) applies stablehlo.add across dimensions = [0, 3] : (tensor<1x2x5x1xf32>, tensor<f32>) -> tensor<2x5xf32>
    %52 = stablehlo.broadcast_in_dim %51, dims = [1, 2] : (tensor<2x5xf32>) -> tensor<1x2x5xf32>
    %53 = stablehlo.broadcast_in_dim %52, dims = [0, 1, 2] : (tensor<1x2x5xf32>) -> tensor<1x2x5x5xf32>
    %54 = stablehlo.add %50, %53 : tensor<1x2x5x5xf32>
    %55 = stablehlo.multiply %54, %27 : tensor<1x2x5x5xf32>
    %56 = call @_where_0(%5#1, %5#2, %55) : (tensor<1x2x5x5xi1>, tensor<1x2x5x5xf32>, tensor<1x2x5x5xf32>) -> tensor<1x2x5x5xf32>
    %cst_15 = stablehlo.constant dense<2.82842708> : tensor<f32>
    %57 = stablehlo.broadcast_in_dim %cst_15, dims = [] : (tensor<f32>) -> tensor<1x2x5x5xf32>
    %58 = stablehlo.divide %56, %57 : tensor<1x2x5x5xf32>
    %59 = stablehlo.dot_general %58, %arg0, batching_dims = [0, 1] x [0, 1], contracting_dims = [2] x [2], precision = [DEFAULT, DEFAULT] : (tensor<1x2x5x5xf32>, tensor<1x2x5x8xf32>) -> tensor<1x2x5x8xf32>
    %60 = stablehlo.dot_general %58, %arg1, batching_dims = [0, 1] x [0, 1], contracting_dims = [3] x [2], precision = [DEFAULT, DEFAULT] : (tensor<1x2x5x5xf32>, tensor<1x2x5x8xf32>) -> tensor<1x2x5x8xf32>
    return %60, %59, %41 : tensor<1x2x5x8xf32>, tensor<1x2x5x8xf32>, tensor<1x2x5x8xf32>
  }
  func.func private @tril(%arg0: tensor<5x5xi1>) -> tensor<5x5xi1> {
    %0 = stablehlo.iota dim = 0 : tensor<5x5xi32>
    %c = stablehlo.constant dense<0> : tensor<i32>
    %1 = stablehlo.broadcast_in_dim %c, dims = [] : (tensor<i32>) -> tensor<5x5xi32>
    %2 = stablehlo.add %0, %1 : tensor<5x5xi32>
    %3 = stablehlo.iota dim = 1 : tensor<5x5xi32>
    %4 = stablehlo.compare GE, %2, %3, SIGNED : (tensor<5x5xi32>, tensor<5x5xi32>) -> tensor<5x5xi1>
    %c_0 = stablehlo.constant dense<false> : tensor<i1>
    %5 = stablehlo.broadcast_in_dim %c_0, dims = [] : (tensor<i1>) -> tensor<5x5xi1>
    %6 = stablehlo.select %4, %arg0, %5 : tensor<5x5xi1>, tensor<5x5xi1>
    return %6 : tensor<5x5xi1>
  }
  func.func private @_where(%arg0: tensor<5x5xi1>, %arg1: tensor<1x2x5x5xf32>, %arg2: tensor<f32>) -> (tensor<1x2x5x5xf32>, tensor<1x2x5x5xi1>, tensor<1x2x5x5xf32>) {
    %0 = stablehlo.convert %arg2 : tensor<f32>
    %1 = stablehlo.broadcast_in_dim %arg0, dims = [2, 3] : (tensor<5x5xi1>) -> tensor<1x2x5x5xi1>
    %2 = stablehlo.broadcast_in_dim %0, dims = [] : (tensor<f32>) -> tensor<1x2x5x5xf32>
    %3 = stablehlo.select %1, %arg1, %2 : tensor<1x2x5x5xi1>, tensor<1x2x5x5xf32>
    %cst = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %4 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f32>) -> tensor<1x2x5x5xf32>
    return %3, %1, %4 : tensor<1x2x5x5xf32>, tensor<1x2x5x5xi1>, tensor<1x2x5x5xf32>
  }
  func.func private @_where_0(%arg0: tensor<1x2x5x5xi1>, %arg1: tensor<1x2x5x5xf32>, %arg2: tensor<1x2x5x5xf32>) -> tensor<1x2x5x5xf32> {
    %cst = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %0 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f32>) -> tensor<1x2x5x5xf32>
    %1 = stablehlo.select %arg0, %arg2, %0 : tensor<1x2x5x5xi1>, tensor<1x2x5x5xf32>
    return %1 : tensor<1x2x5x5xf32>
  }
}
