module @jit__gru_grad attributes {mhlo.num_partitions = 1 : i32, mhlo.num_replicas = 1 : i32} {
  func.func public @main(%arg0: tensor<6x2x3xf32>, %arg1: tensor<2x4xf32>, %arg2: tensor<3x3x4xf32>, %arg3: tensor<3x4x4xf32>, %arg4: tensor<3x4xf32>) -> (tensor<f32> {jax.result_info = "result[0]"}, tensor<3x3x4xf32> {jax.result_info = "result[1][0]"}, tensor<3x4x4xf32> {jax.result_info = "result[1][1]"}, tensor<3x4xf32> {jax.result_info = "result[1][2]"}) {
    %0 = stablehlo.slice %arg2 [0:1, 0:3, 0:4] : (tensor<3x3x4xf32>) -> tensor<1x3x4xf32>
    %1 = stablehlo.reshape %0 : (tensor<1x3x4xf32>) -> tensor<3x4xf32>
    %2 = stablehlo.slice %arg3 [0:1, 0:4, 0:4] : (tensor<3x4x4xf32>) -> tensor<1x4x4xf32>
    %3 = stablehlo.reshape %2 : (tensor<1x4x4xf32>) -> tensor<4x4xf32>
    %4 = stablehlo.slice %arg4 [0:1, 0:4] : (tensor<3x4xf32>) -> tensor<1x4xf32>
    %5 = stablehlo.reshape %4 : (tensor<1x4xf32>) -> tensor<4xf32>
    %6 = stablehlo.broadcast_in_dim %5, dims = [1] : (tensor<4xf32>) -> tensor<1x4xf32>
    %7 = stablehlo.slice %arg2 [1:2, 0:3, 0:4] : (tensor<3x3x4xf32>) -> tensor<1x3x4xf32>
    %8 = stablehlo.reshape %7 : (tensor<1x3x4xf32>) -> tensor<3x4xf32>
    %9 = stablehlo.slice %arg3 [1:2, 0:4, 0:4] : (tensor<3x4x4xf32>) -> tensor<1x4x4xf32>
    %10 = stablehlo.reshape %9 : (tensor<1x4x4xf32>) -> tensor<4x4xf32>
    %11 = stablehlo.slice %arg4 [1:2, 0:4] : (tensor<3x4xf32>) -> tensor<1x4xf32>
    %12 = stablehlo.reshape %11 : (tensor<1x4xf32>) -> tensor<4xf32>
    %13 = stablehlo.broadcast_in_dim %12, dims = [1] : (tensor<4xf32>) -> tensor<1x4xf32>
    %14 = stablehlo.slice %arg2 [2:3, 0:3, 0:4] : (tensor<3x3x4xf32>) -> tensor<1x3x4xf32>
    %15 = stablehlo.reshape %14 : (tensor<1x3x4xf32>) -> tensor<3x4xf32>
    %16 = stablehlo.slice %arg3 [2:3, 0:4, 0:4] : (tensor<3x4x4xf32>) -> tensor<1x4x4xf32>
    %17 = stablehlo.reshape %16 : (tensor<1x4x4xf32>) -> tensor<4x4xf32>
    %18 = stablehlo.slice %arg4 [2:3, 0:4] : (tensor<3x4xf32>) -> tensor<1x4xf32>
    %19 = stablehlo.reshape %18 : (tensor<1x4xf32>) -> tensor<4xf32>
    %20 = stablehlo.broadcast_in_dim %19, dims = [1] : (tensor<4xf32>) -> tensor<1x4xf32>
    %cst = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %21 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f32>) -> tensor<6x2x4xf32>
    %cst_0 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %22 = stablehlo.broadcast_in_dim %cst_0, dims = [] : (tensor<f32>) -> tensor<6x2x4xf32>
    %cst_1 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %23 = stablehlo.broadcast_in_dim %cst_1, dims = [] : (tensor<f32>) -> tensor<6x2x4xf32>
    %cst_2 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %24 = stablehlo.broadcast_in_dim %cst_2, dims = [] : (tensor<f32>) -> tensor<6x2x4xf32>
    %cst_3 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %25 = stablehlo.broadcast_in_dim %cst_3, dims = [] : (tensor<f32>) -> tensor<6x2x4xf32>
    %cst_4 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %26 = stablehlo.broadcast_in_dim %cst_4, dims = [] : (tensor<f32>) -> tensor<6x2x4xf32>
    %cst_5 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %27 = stablehlo.broadcast_in_dim %cst_5, dims = [] : (tensor<f32>) -> tensor<6x2x4xf32>
    %cst_6 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %28 = stablehlo.broadcast_in_dim %cst_6, dims = [] : (tensor<f32>) -> tensor<6x2x4xf32>
    %cst_7 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %29 = stablehlo.broadcast_in_dim %cst_7, dims = [] : (tensor<f32>) -> tensor<6x2x4xf32>
    %cst_8 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %30 = stablehlo.broadcast_in_dim %cst_8, dims = [] : (tensor<f32>) -> tensor<6x2x4xf32>
    %c = stablehlo.constant dense<0> : tensor<i32>
    %31:22 = stablehlo.while(%iterArg = %arg0, %iterArg_20 = %1, %iterArg_21 = %3, %iterArg_22 = %6, %iterArg_23 = %15, %iterArg_24 = %8, %iterArg_25 = %10, %iterArg_26 = %13, %iterArg_27 = %17, %iterArg_28 = %20, %iterArg_29 = %c, %iterArg_30 = %arg1, %iterArg_31 = %21, %iterArg_32 = %22, %iterArg_33 = %23, %iterArg_34 = %24, %iterArg_35 = %25, %iterArg_36 = %26, %iterArg_37 = %27, %iterArg_38 = %28, %iterArg_39 = %29, %iterArg_40 = %30) : tensor<6x2x3xf32>, tensor<3x4xf32>, tensor<4x4xf32>, tensor<1x4xf32>, tensor<3x4xf32>, tensor<3x4xf32>, tensor<4x4xf32>, tensor<1x4xf32>, tensor<4x4xf32>, tensor<1x4xf32>, tensor<i32>, tensor<2x4xf32>, tensor<6x2x4xf32>, tensor<6x2x4xf32>, tensor<6x2x4xf32>, tensor<6x2x4xf32>, tensor<6x2x4xf32>, tensor<6x2x4xf32>, tensor<6x2x4xf32>, tensor<6x2x4xf32>, tensor<6x2x4xf32>, tensor<6x2x4xf32>
    cond {
      %c_41 = stablehlo.constant dense<6> : tensor<i32>
      %46 = stablehlo.compare LT, %iterArg_29, %c_41, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
      stablehlo.return %46 : tensor<i1>
    } do {
      %46 = func.call @dynamic_index_in_dim(%iterArg, %iterArg_29) : (tensor<6x2x3xf32>, tensor<i32>) -> tensor<2x3xf32>
      %47:11 = func.call @closed_call(%iterArg_20, %iterArg_21, %iterArg_22, %iterArg_23, %iterArg_24, %iterArg_25, %iterArg_26, %iterArg_27, %iterArg_28, %iterArg_30, %46) : (tensor<3x4xf32>, tensor<4x4xf32>, tensor<1x4xf32>, tensor<3x4xf32>, tensor<3x4xf32>, tensor<4x4xf32>, tensor<1x4xf32>, tensor<4x4xf32>, tensor<1x4xf32>, tensor<2x4xf32>, tensor<2x3xf32>) -> (tensor<2x4xf32>, tensor<2x4xf32>, tensor<2x4xf32>, tensor<2x4xf32>, tensor<2x4xf32>, tensor<2x4xf32>, tensor<2x4xf32>, tensor<2x4xf32>, tensor<2x4xf32>, tensor<2x4xf32>, tensor<2x4xf32>)
      %48 = func.call @dynamic_update_index_in_dim(%iterArg_31, %47#1, %iterArg_29) : (tensor<6x2x4xf32>, tensor<2x4xf32>, tensor<i32>) -> tensor<6x2x4xf32>
      %49 = func.call @dynamic_update_index_in_dim(%iterArg_32, %47#2, %iterArg_29) : (tensor<6x2x4xf32>, tensor<2x4xf32>, tensor<i32>) -> tensor<6x2x4xf32>
      %50 = func.call @dynamic_update_index_in_dim(%iterArg_33, %47#3, %iterArg_29) : (tensor<6x2x4xf32>, tensor<2x4xf32>, tensor<i32>) -> tensor<6x2x4xf32>
      %51 = func.call @dynamic_update_index_in_dim(%iterArg_34, %47#4, %iterArg_29) : (tensor<6x2x4xf32>, tensor<2x4xf32>, tensor<i32>) -> tensor<6x2x4xf32>
      %52 = func.call @dynamic_update_index_in_dim(%iterArg_35, %47#5, %iterArg_29) : (tensor<6x2x4xf32>, tensor<2x4xf32>, tensor<i32>) -> tensor<6x2x4xf32>
      %53 = func.call @dynamic_update_index_in_dim(%iterArg_36, %47#6, %iterArg_29) : (tensor<6x2x4xf32>, tensor<2x4xf32>, tensor<i32>) -> tensor<6x2x4xf32>
      %54 = func.call @dynamic_update_index_in_dim(%iterArg_37, %47#7, %iterArg_29) : (tensor<6x2x4xf32>, tensor<2x4xf32>, tensor<i32>) -> tensor<6x2x4xf32>
      %55 = func.call @dynamic_update_index_in_dim(%iterArg_38, %47#8, %iterArg_29) : (tensor<6x2x4xf32>, tensor<2x4xf32>, tensor<i32>) -> tensor<6x2x4xf32>
      %56 = func.call @dynamic_update_index_in_dim(%iterArg_39, %47#9, %iterArg_29) : (tensor<6x2x4xf32>, tensor<2x4xf32>, tensor<i32>) -> tensor<6x2x4xf32>
      %57 = func.call @dynamic_update_index_in_dim(%iterArg_40, %47#10, %iterArg_29) : (tensor<6x2x4xf32>, tensor<2x4xf32>, tensor<i32>) -> tensor<6x2x4xf32>
      %c_41 = stablehlo.constant dense<1> : tensor<i32>
      %58 = stablehlo.add %iterArg_29, %c_41 : tensor<i32>
      stablehlo.return %iterArg, %iterArg_20, %iterArg_21, %iterArg_22, %iterArg_23, %iterArg_24, %iterArg_25, %iterArg_26, %iterArg_27, %iterArg_28, %58, %47#0, %48, %49, %50, %51, %52, %53, %54, %55, %56, %57 : tensor<6x2x3xf32>, tensor<3x4xf32>, tensor<4x4xf32>, tensor<1x4xf32>, tensor<3x4xf32>, tensor<3x4xf32>, tensor<4x4xf32>, tensor<1x4xf32>, tensor<4x4xf32>, tensor<1x4xf32>, tensor<i32>, tensor<2x4xf32>, tensor<6x2x4xf32>, tensor<6x2x4xf32>, tensor<6x2x4xf32>, tensor<6x2x4xf32>, tensor<6x2x4xf32>, tensor<6x2x4xf32>, tensor<6x2x4xf32>, tensor<6x2x4xf32>, tensor<6x2x4xf32>, tensor<6x2x4xf32>
    }
    %32 = stablehlo.multiply %31#12, %31#12 : tensor<6x2x4xf32>
    %cst_9 = stablehlo.constant dense<2.000000e+00> : tensor<f32>
    %33 = stablehlo.broadcast_in_dim %cst_9, dims = [] : (tensor<f32>) -> tensor<6x2x4xf32>
    %34 = stablehlo.multiply %33, %31#12 : tensor<6x2x4xf32>
    %cst_10 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %35 = stablehlo.reduce(%32 init: %cst_10) applies stablehlo.add across dimensions = [0, 1, 2] : (tensor<6x2x4xf32>, tensor<f32>) -> tensor<f32>
    %cst_11 = stablehlo.constant dense<4.800000e+01> : tensor<f32>
    %36 = stablehlo.divide %35, %cst_11 : tensor<f32>
    %cst_12 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %37 = stablehlo.broadcast_in_dim %cst_12, dims = [] : (tensor<f32>) -> tensor<2x4xf32>
    %cst_13 = stablehlo.constant dense<1.000000e+00> : tensor<f32>
    %cst_14 = stablehlo.constant dense<4.800000e+01> : tensor<f32>
    %38 = stablehlo.divide %cst_13, %cst_14 : tensor<f32>
    %39 = stablehlo.broadcast_in_dim %38, dims = [] : (tensor<f32>) -> tensor<6x2x4xf32>
    %40 = stablehlo.multiply %39, %34 : tensor<6x2x4xf32>
    %cst_15 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %41 = stablehlo.broadcast_in_dim %cst_15, dims = [] : (tensor<f32>) -> tensor<2x4xf32>
    %cst_16 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %42 = stablehlo.broadcast_in_dim %cst_16, dims = [] : (tensor<f32>) -> tensor<3x3x4xf32>
    %cst_17 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %43 = stablehlo.broadcast_in_dim %cst_17, dims = [] : (tensor<f32>) -> tensor<3x4x4xf32>
    %cst_18 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %44 = stablehlo.broadcast_in_dim %cst_18, dims = [] : (tensor<f32>) -> tensor<3x4xf32>
    %c_19 = stablehlo.constant dense<0> : tensor<i32>
    %45:19 = stablehlo.while(%iterArg = %40, %iterArg_20 = %arg0, %iterArg_21 = %31#13, %iterArg_22 = %31#14, %iterArg_23 = %31#15, %iterArg_24 = %31#16, %iterArg_25 = %31#17, %iterArg_26 = %31#18, %iterArg_27 = %31#19, %iterArg_28 = %31#20, %iterArg_29 = %31#21, %iterArg_30 = %3, %iterArg_31 = %10, %iterArg_32 = %17, %iterArg_33 = %c_19, %iterArg_34 = %42, %iterArg_35 = %43, %iterArg_36 = %44, %iterArg_37 = %41) : tensor<6x2x4xf32>, tensor<6x2x3xf32>, tensor<6x2x4xf32>, tensor<6x2x4xf32>, tensor<6x2x4xf32>, tensor<6x2x4xf32>, tensor<6x2x4xf32>, tensor<6x2x4xf32>, tensor<6x2x4xf32>, tensor<6x2x4xf32>, tensor<6x2x4xf32>, tensor<4x4xf32>, tensor<4x4xf32>, tensor<4x4xf32>, tensor<i32>, tensor<3x3x4xf32>, tensor<3x4x4xf32>, tensor<3x4xf32>, tensor<2x4xf32>
    cond {
      %c_38 = stablehlo.constant dense<6> : tensor<i32>
      %46 = stablehlo.compare LT, %iterArg_33, %c_38, SIGNED : (tensor<i32>, tensor<i32>) -> tensor<i1>
      stablehlo.return %46 : tensor<i1>
    } do {
      %c_38 = stablehlo.constant dense<6> : tensor<i32>
      %46 = stablehlo.subtract %c_38, %iterArg_33 : tensor<i32>
      %c_39 = stablehlo.constant dense<1> : tensor<i32>
      %47 = stablehlo.subtract %46, %c_39 : tensor<i32>
      %48 = func.call @dynamic_index_in_dim_0(%iterArg, %47) : (tensor<6x2x4xf32>, tensor<i32>) -> tensor<2x4xf32>
      %49 = func.call @dynamic_index_in_dim(%iterArg_20, %47) : (tensor<6x2x3xf32>, tensor<i32>) -> tensor<2x3xf32>
      %50 = func.call @dynamic_index_in_dim_0(%iterArg_21, %47) : (tensor<6x2x4xf32>, tensor<i32>) -> tensor<2x4xf32>
      %51 = func.call @dynamic_index_in_dim_0(%iterArg_22, %47) : (tensor<6x2x4xf32>, tensor<i32>) -> tensor<2x4xf32>
      %52 = func.call @dynamic_index_in_dim_0(%iterArg_23, %47) : (tensor<6x2x4xf32>, tensor<i32>) -> tensor<2x4xf32>
      %53 = func.call @dynamic_index_in_dim_0(%iterArg_24, %47) : (tensor<6x2x4xf32>, tensor<i32>) -> tensor<2x4xf32>
      %54 = func.call @dynamic_index_in_dim_0(%iterArg_25, %47) : (tensor<6x2x4xf32>, tensor<i32>) -> tensor<2x4xf32>
      %55 = func.call @dynamic_index_in_dim_0(%iterArg_26, %47) : (tensor<6x2x4xf32>, tensor<i32>) -> tensor<2x4xf32>
      %56 = func.call @dynamic_index_in_dim_0(%iterArg_27, %47) : (tensor<6x2x4xf32>, tensor<i32>) -> tensor<2x4xf32>
      %57 = func.call @dynamic_index_in_dim_0(%iterArg_28, %47) : (tensor<6x2x4xf32>, tensor<i32>) -> tensor<2x4xf32>
      %58 = func.call @dynamic_index_in_dim_0(%iterArg_29, %47) : (tensor<6x2x4xf32>, tensor<i32>) -> tensor<2x4xf32>
      %59:4 = func.call @closed_call_1(%iterArg_30, %iterArg_31, %iterArg_32, %iterArg_34, %iterArg_35, %iterArg_36, %iterArg_37, %48, %49, %50, %51, %52, %53, %54, %55, %56, %57, %58) : (tensor<4x4xf32>, tensor<4x4xf32>, tensor<4x4xf32>, tensor<3x3x4xf32>, tensor<3x4x4xf32>, tensor<3x4xf32>, tensor<2x4xf32>, tensor<2x4xf32>, tensor<2x3xf32>, tensor<2x4xf32>, tensor<2x4xf32>, tensor<2x4xf32>, tensor<2x4xf32>, tensor<2x4xf32>, tensor<2x4xf32>, tensor<2x4xf32>, tensor<2x4xf32>, tensor<2x4xf32>) -> (tensor<3x3x4xf32>, tensor<3x4x4xf32>, tensor<3x4xf32>, tensor<2x4xf32>)
      %c_40 = stablehlo.constant dense<1> : tensor<i32>
      %60 = stablehlo.add %iterArg_33, %c_40 : tensor<i32>
      stablehlo.return %iterArg, %iterArg_20, %iterArg_21, %iterArg_22, %iterArg_23, %iterArg_24, %iterArg_25, %iterArg_26, %iterArg_27, %iterArg_28, %iterArg_29, %iterArg_30, %iterArg_31, %iterArg_32, %60, %59#0, %59#1, %59#2, %59#3 : tensor<6x2x4xf32>, tensor<6x2x3xf32>, tensor<6x2x4xf32>, tensor<6x2x4xf32>, tensor<6x2x4xf32>, tensor<6x2x4xf32>, tensor<6x2x4xf32>, tensor<6x2x4xf32>, tensor<6x2x4xf32>, tensor<6x2x4xf32>, tensor<6x2x4xf32>, tensor<4x4xf32>, tensor<4x4xf32>, tensor<4x4xf32>, tensor<i32>, tensor<3x3x4xf32>, tensor<3x4x4xf32>, tensor<3x4xf32>, tensor<2x4xf32>
    }
    return %36, %45#15, %45#16, %45#17 : tensor<f32>, tensor<3x3x4xf32>, tensor<3x4x4xf32>, tensor<3x4xf32>
  }
  func.func private @dynamic_index_in_dim(%arg0: tensor<6x2x3xf32>, %arg1: tensor<i32>) -> tensor<2x3xf32> {
    %c = stablehlo.constant dense<0> : tensor<i32>
    %c_0 = stablehlo.constant dense<0> : tensor<i32>
    %0 = stablehlo.dynamic_slice %arg0, %arg1, %c, %c_0, sizes = [1, 2, 3] : (tensor<6x2x3xf32>, tensor<i32>, tensor<i32>, tensor<i32>) -> tensor<1x2x3xf32>
    %1 = stablehlo.reshape %0 : (tensor<1x2x3xf32>) -> tensor<2x3xf32>
    return %1 : tensor<2x3xf32>
  }
  func.func private @closed_call(%arg0: tensor<3x4xf32>, %arg1: tensor<4x4xf32>, %arg2: tensor<1x4xf32>, %arg3: tensor<3x4xf32>, %arg4: tensor<3x4xf32>, %arg5: tensor<4x4xf32>, %arg6: tensor<1x4xf32>, %arg7: tensor<4x4xf32>, %arg8: tensor<1x4xf32>, %arg9: tensor<2x4xf32>, %arg10: tensor<2x3xf32>) -> (tensor<2x4xf32>, tensor<2x4xf32>, tensor<2x4xf32>, tensor<2x4xf32>, tensor<2x4xf32>, tensor<2x4xf32>, tensor<2x4xf32>, tensor<2x4xf32>, tensor<2x4xf32>, tensor<2x4xf32>, tensor<2x4xf32>) {
    %0 = stablehlo.dot_general %arg10, %arg0, contracting_dims = [1] x [0], precision = [DEFAULT, DEFAULT] : (tensor<2x3xf32>, tensor<3x4xf32>) -> tensor<2x4xf32>
    %1 = stablehlo.dot_general %arg9, %arg1, contracting_dims = [1] x [0], precision = [DEFAULT, DEFAULT] : (tensor<2x4xf32>, tensor<4x4xf32>) -> tensor<2x4xf32>
    %2 = stablehlo.add %0, %1 : tensor<2x4xf32>
    %3 = stablehlo.broadcast_in_dim %arg2, dims = [0, 1] : (tensor<1x4xf32>) -> tensor<2x4xf32>
    %4 = stablehlo.add %2, %3 : tensor<2x4xf32>
    %5 = stablehlo.negate %4 : tensor<2x4xf32>
    %6 = stablehlo.exponential %5 : tensor<2x4xf32>
    %cst = stablehlo.constant dense<1.000000e+00> : tensor<f32>
    %7 = stablehlo.broadcast_in_dim %cst, dims = [] : (tensor<f32>) -> tensor<2x4xf32>
    %8 = stablehlo.add %7, %6 : tensor<2x4xf32>
    %cst_0 = stablehlo.constant dense<1.000000e+00> : tensor<f32>
    %9 = stablehlo.broadcast_in_dim %cst_0, dims = [] : (tensor<f32>) -> tensor<2x4xf32>
    %10 = stablehlo.divide %9, %8 : tensor<2x4xf32>
    %cst_1 = stablehlo.constant dense<1.000000e+00> : tensor<f32>
    %11 = stablehlo.broadcast_in_dim %cst_1, dims = [] : (tensor<f32>) -> tensor<2x4xf32>
    %12 = stablehlo.subtract %11, %10 : tensor<2x4xf32>
    %13 = stablehlo.multiply %10, %12 : tensor<2x4xf32>
    %14 = stablehlo.dot_general %arg10, %arg4, contracting_dims = [1] x [0], precision = [DEFAULT, DEFAULT] : (tensor<2x3xf32>, tensor<3x4xf32>) -> tensor<2x4xf32>
    %15 = stablehlo.dot_general %arg9, %arg5, contracting_dims = [1] x [0], precision = [DEFAULT, DEFAULT] : (tensor<2x4xf32>, tensor<4x4xf32>) -> tensor<2x4xf32>
    %16 = stablehlo.add %14, %15 : tensor<2x4xf32>
    %17 = stablehlo.broadcast_in_dim %arg6, dims = [0, 1] : (tensor<1x4xf32>) -> tensor<2x4xf32>
    %18 = stablehlo.add %16, %17 : tensor<2x4xf32>
    %19 = stablehlo.negate %18 : tensor<2x4xf32>
    %20 = stablehlo.exponential %19 : tensor<2x4xf32>
    %cst_2 = stablehlo.constant dense<1.000000e+00> : tensor<f32>
    %21 = stablehlo.broadcast_in_dim %cst_2, dims = [] : (tensor<f32>) -> tensor<2x4xf32>
    %22 = stablehlo.add %21, %20 : tensor<2x4xf32>
    %cst_3 = stablehlo.constant dense<1.000000e+00> : tensor<f32>
    %23 = stablehlo.broadcast_in_dim %cst_3, dims = [] : (tensor<f32>) -> tensor<2x4xf32>
    %24 = stablehlo.divide %23, %22 : tensor<2x4xf32>
    %cst_4 = stablehlo.constant dense<1.000000e+00> : tensor<f32>
    %25 = stablehlo.broadcast_in_dim %cst_4, dims = [] : (tensor<f32>) -> tensor<2x4xf32>
    %26 = stablehlo.subtract %25, %24 : tensor<2x4xf32>
    %27 = stablehlo.multiply %24, %26 : tensor<2x4xf32>
    %28 = stablehlo.dot_general %arg10, %arg3, contracting_dims = [1] x [0], precision = [DEFAULT, DEFAULT] : (tensor<2x3xf32>, tensor<3x4xf32>) -> tensor<2x4xf32>
    %29 = stablehlo.multiply %24, %arg9 : tensor<2x4xf32>
    %30 = stablehlo.dot_general %29, %arg7, contracting_dims = [1] x [0], precision = [DEFAULT, DEFAULT] : (tensor<2x4xf32>, tensor<4x4xf32>) -> tensor<2x4xf32>
    %31 = stablehlo.add %28, %30 : tensor<2x4xf32>
    %32 = stablehlo.broadcast_in_dim %arg8, dims = [0, 1] : (tensor<1x4xf32>) -> tensor<2x4xf32>
    %33 = stablehlo.add %31, %32 : tensor<2x4xf32>
    %34 = stablehlo.tanh %33 : tensor<2x4xf32>
    %cst_5 = stablehlo.constant dense<1.000000e+00> : tensor<f32>
    %35 = stablehlo.broadcast_in_dim %cst_5, dims = [] : (tensor<f32>) -> tensor<2x4xf32>
    %36 = stablehlo.subtract %35, %34 : tensor<2x4xf32>
    %cst_6 = stablehlo.constant dense<1.000000e+00> : tensor<f32>
    %37 = stablehlo.broadcast_in_dim %cst_6, dims = [] : (tensor<f32>) -> tensor<2x4xf32>
    %38 = stablehlo.subtract %37, %10 : tensor<2x4xf32>
    %39 = stablehlo.multiply %38, %arg9 : tensor<2x4xf32>
    %40 = stablehlo.multiply %10, %34 : tensor<2x4xf32>
    %41 = stablehlo.add %39, %40 : tensor<2x4xf32>
    return %41, %41, %arg9, %13, %27, %24, %29, %34, %36, %38, %10 : tensor<2x4xf32>, tensor<2x4xf32>, tensor<2x4xf32>, tensor<2x4xf32>, tensor<2x4xf32>, tensor<2x4xf32>, tensor<2x4xf32>, tensor<2x4xf32>, tensor<2x4xf32>, tensor<2x4xf32>, tensor<2x4xf32>
  }
  func.func private @dynamic_update_index_in_dim(%arg0: tensor<6x2x4xf32>, %arg1: tensor<2x4xf32>, %arg2: tensor<i32>) -> tensor<6x2x4xf32> {
    %0 = stablehlo.broadcast_in_dim %arg1, dims = [1, 2] : (tensor<2x4xf32>) -> tensor<1x2x4xf32>
    %c = stablehlo.constant dense<0> : tensor<i32>
    %c_0 = stablehlo.constant dense<0> : tensor<i32>
    %1 = stablehlo.dynamic_update_slice %arg0, %0, %arg2, %c, %c_0 : (tensor<6x2x4xf32>, tensor<1x2x4xf32>, tensor<i32>, tensor<i32>, tensor<i32>) -> tensor<6x2x4xf32>
    return %1 : tensor<6x2x4xf32>
  }
  func.func private @dynamic_index_in_dim_0(%arg0: tensor<6x2x4xf32>, %arg1: tensor<i32>) -> tensor<2x4xf32> {
    %c = stablehlo.constant dense<0> : tensor<i32>
    %c_0 = stablehlo.constant dense<0> : tensor<i32>
    %0 = stablehlo.dynamic_slice %arg0, %arg1, %c, %c_0, sizes = [1, 2, 4] : (tensor<6x2x4xf32>, tensor<i32>, tensor<i32>, tensor<i32>) -> tensor<1x2x4xf32>
    %1 = stablehlo.reshape %0 : (tensor<1x2x4xf32>) -> tensor<2x4xf32>
    return %1 : tensor<2x4xf32>
  }
  func.func private @closed_call_1(%arg0: tensor<4x4xf32>, %arg1: tensor<4x4xf32>, %arg2: tensor<4x4xf32>, %arg3: tensor<3x3x4xf32>, %arg4: tensor<3x4x4xf32>, %arg5: tensor<3x4xf32>, %arg6: tensor<2x4xf32>, %arg7: tensor<2x4xf32>, %arg8: tensor<2x3xf32>, %arg9: tensor<2x4xf32>, %arg10: tensor<2x4xf32>, %arg11: tensor<2x4xf32>, %arg12: tensor<2x4xf32>, %arg13: tensor<2x4xf32>, %arg14: tensor<2x4xf32>, %arg15: tensor<2x4xf32>, %arg16: tensor<2x4xf32>, %arg17: tensor<2x4xf32>) -> (tensor<3x3x4xf32>, tensor<3x4x4xf32>, tensor<3x4xf32>, tensor<2x4xf32>) {
    %0 = stablehlo.add %arg6, %arg7 : tensor<2x4xf32>
    %1 = stablehlo.multiply %arg17, %0 : tensor<2x4xf32>
    %2 = stablehlo.multiply %0, %arg14 : tensor<2x4xf32>
    %3 = stablehlo.multiply %arg16, %0 : tensor<2x4xf32>
    %4 = stablehlo.multiply %0, %arg9 : tensor<2x4xf32>
    %5 = stablehlo.negate %4 : tensor<2x4xf32>
    %6 = stablehlo.add %2, %5 : tensor<2x4xf32>
    %7 = stablehlo.multiply %1, %arg15 : tensor<2x4xf32>
    %8 = stablehlo.multiply %7, %arg14 : tensor<2x4xf32>
    %9 = stablehlo.add %7, %8 : tensor<2x4xf32>
    %cst = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %10 = stablehlo.reduce(%9 init: %cst) applies stablehlo.add across dimensions = [0] : (tensor<2x4xf32>, tensor<f32>) -> tensor<4xf32>
    %11 = stablehlo.reshape %10 : (tensor<4xf32>) -> tensor<1x4xf32>
    %cst_0 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %12 = stablehlo.reduce(%11 init: %cst_0) applies stablehlo.add across dimensions = [0] : (tensor<1x4xf32>, tensor<f32>) -> tensor<4xf32>
    %13 = stablehlo.broadcast_in_dim %12, dims = [1] : (tensor<4xf32>) -> tensor<1x4xf32>
    %cst_1 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %14 = stablehlo.pad %13, %cst_1, low = [2, 0], high = [0, 0], interior = [0, 0] : (tensor<1x4xf32>, tensor<f32>) -> tensor<3x4xf32>
    %15 = stablehlo.add %arg5, %14 : tensor<3x4xf32>
    %16 = stablehlo.dot_general %9, %arg13, contracting_dims = [0] x [0], precision = [DEFAULT, DEFAULT] : (tensor<2x4xf32>, tensor<2x4xf32>) -> tensor<4x4xf32>
    %17 = stablehlo.transpose %16, dims = [1, 0] : (tensor<4x4xf32>) -> tensor<4x4xf32>
    %18 = stablehlo.dot_general %9, %arg2, contracting_dims = [1] x [1], precision = [DEFAULT, DEFAULT] : (tensor<2x4xf32>, tensor<4x4xf32>) -> tensor<2x4xf32>
    %19 = stablehlo.broadcast_in_dim %17, dims = [1, 2] : (tensor<4x4xf32>) -> tensor<1x4x4xf32>
    %cst_2 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %20 = stablehlo.pad %19, %cst_2, low = [2, 0, 0], high = [0, 0, 0], interior = [0, 0, 0] : (tensor<1x4x4xf32>, tensor<f32>) -> tensor<3x4x4xf32>
    %21 = stablehlo.add %arg4, %20 : tensor<3x4x4xf32>
    %22 = stablehlo.multiply %arg12, %18 : tensor<2x4xf32>
    %23 = stablehlo.add %3, %22 : tensor<2x4xf32>
    %24 = stablehlo.multiply %18, %arg9 : tensor<2x4xf32>
    %25 = stablehlo.dot_general %9, %arg8, contracting_dims = [0] x [0], precision = [DEFAULT, DEFAULT] : (tensor<2x4xf32>, tensor<2x3xf32>) -> tensor<4x3xf32>
    %26 = stablehlo.transpose %25, dims = [1, 0] : (tensor<4x3xf32>) -> tensor<3x4xf32>
    %27 = stablehlo.broadcast_in_dim %26, dims = [1, 2] : (tensor<3x4xf32>) -> tensor<1x3x4xf32>
    %cst_3 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %28 = stablehlo.pad %27, %cst_3, low = [2, 0, 0], high = [0, 0, 0], interior = [0, 0, 0] : (tensor<1x3x4xf32>, tensor<f32>) -> tensor<3x3x4xf32>
    %29 = stablehlo.add %arg3, %28 : tensor<3x3x4xf32>
    %30 = stablehlo.multiply %24, %arg11 : tensor<2x4xf32>
    %cst_4 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %31 = stablehlo.reduce(%30 init: %cst_4) applies stablehlo.add across dimensions = [0] : (tensor<2x4xf32>, tensor<f32>) -> tensor<4xf32>
    %32 = stablehlo.reshape %31 : (tensor<4xf32>) -> tensor<1x4xf32>
    %cst_5 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %33 = stablehlo.reduce(%32 init: %cst_5) applies stablehlo.add across dimensions = [0] : (tensor<1x4xf32>, tensor<f32>) -> tensor<4xf32>
    %34 = stablehlo.broadcast_in_dim %33, dims = [1] : (tensor<4xf32>) -> tensor<1x4xf32>
    %cst_6 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %35 = stablehlo.pad %34, %cst_6, low = [1, 0], high = [1, 0], interior = [0, 0] : (tensor<1x4xf32>, tensor<f32>) -> tensor<3x4xf32>
    %36 = stablehlo.add %15, %35 : tensor<3x4xf32>
    %37 = stablehlo.dot_general %30, %arg9, contracting_dims = [0] x [0], precision = [DEFAULT, DEFAULT] : (tensor<2x4xf32>, tensor<2x4xf32>) -> tensor<4x4xf32>
    %38 = stablehlo.transpose %37, dims = [1, 0] : (tensor<4x4xf32>) -> tensor<4x4xf32>
    %39 = stablehlo.dot_general %30, %arg1, contracting_dims = [1] x [1], precision = [DEFAULT, DEFAULT] : (tensor<2x4xf32>, tensor<4x4xf32>) -> tensor<2x4xf32>
    %40 = stablehlo.add %23, %39 : tensor<2x4xf32>
    %41 = stablehlo.broadcast_in_dim %38, dims = [1, 2] : (tensor<4x4xf32>) -> tensor<1x4x4xf32>
    %cst_7 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %42 = stablehlo.pad %41, %cst_7, low = [1, 0, 0], high = [1, 0, 0], interior = [0, 0, 0] : (tensor<1x4x4xf32>, tensor<f32>) -> tensor<3x4x4xf32>
    %43 = stablehlo.add %21, %42 : tensor<3x4x4xf32>
    %44 = stablehlo.dot_general %30, %arg8, contracting_dims = [0] x [0], precision = [DEFAULT, DEFAULT] : (tensor<2x4xf32>, tensor<2x3xf32>) -> tensor<4x3xf32>
    %45 = stablehlo.transpose %44, dims = [1, 0] : (tensor<4x3xf32>) -> tensor<3x4xf32>
    %46 = stablehlo.broadcast_in_dim %45, dims = [1, 2] : (tensor<3x4xf32>) -> tensor<1x3x4xf32>
    %cst_8 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %47 = stablehlo.pad %46, %cst_8, low = [1, 0, 0], high = [1, 0, 0], interior = [0, 0, 0] : (tensor<1x3x4xf32>, tensor<f32>) -> tensor<3x3x4xf32>
    %48 = stablehlo.add %29, %47 : tensor<3x3x4xf32>
    %49 = stablehlo.multiply %6, %arg10 : tensor<2x4xf32>
    %cst_9 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %50 = stablehlo.reduce(%49 init: %cst_9) applies stablehlo.add across dimensions = [0] : (tensor<2x4xf32>, tensor<f32>) -> tensor<4xf32>
    %51 = stablehlo.reshape %50 : (tensor<4xf32>) -> tensor<1x4xf32>
    %cst_10 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %52 = stablehlo.reduce(%51 init: %cst_10) applies stablehlo.add across dimensions = [0] : (tensor<1x4xf32>, tensor<f32>) -> tensor<4xf32>
    %53 = stablehlo.broadcast_in_dim %52, dims = [1] : (tensor<4xf32>) -> tensor<1x4xf32>
    %cst_11 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %54 = stablehlo.pad %53, %cst_11, low = [0, 0], high = [2, 0], interior = [0, 0] : (tensor<1x4xf32>, tensor<f32>) -> tensor<3x4xf32>
    %55 = stablehlo.add %36, %54 : tensor<3x4xf32>
    %56 = stablehlo.dot_general %49, %arg9, contracting_dims = [0] x [0], precision = [DEFAULT, DEFAULT] : (tensor<2x4xf32>, tensor<2x4xf32>) -> tensor<4x4xf32>
    %57 = stablehlo.transpose %56, dims = [1, 0] : (tensor<4x4xf32>) -> tensor<4x4xf32>
    %58 = stablehlo.dot_general %49, %arg0, contracting_dims = [1] x [1], precision = [DEFAULT, DEFAULT] : (tensor<2x4xf32>, tensor<4x4xf32>) -> tensor<2x4xf32>
    %59 = stablehlo.add %40, %58 : tensor<2x4xf32>
    %60 = stablehlo.broadcast_in_dim %57, dims = [1, 2] : (tensor<4x4xf32>) -> tensor<1x4x4xf32>
    %cst_12 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %61 = stablehlo.pad %60, %cst_12, low = [0, 0, 0], high = [2, 0, 0], interior = [0, 0, 0] : (tensor<1x4x4xf32>, tensor<f32>) -> tensor<3x4x4xf32>
    %62 = stablehlo.add %43, %61 : tensor<3x4x4xf32>
    %63 = stablehlo.dot_general %49, %arg8, contracting_dims = [0] x [0], precision = [DEFAULT, DEFAULT] : (tensor<2x4xf32>, tensor<2x3xf32>) -> tensor<4x3xf32>
    %64 = stablehlo.transpose %63, dims = [1, 0] : (tensor<4x3xf32>) -> tensor<3x4xf32>
    %65 = stablehlo.broadcast_in_dim %64, dims = [1, 2] : (tensor<3x4xf32>) -> tensor<1x3x4xf32>
    %cst_13 = stablehlo.constant dense<0.000000e+00> : tensor<f32>
    %66 = stablehlo.pad %65, %cst_13, low = [0, 0, 0], high = [2, 0, 0], interior = [0, 0, 0] : (tensor<1x3x4xf32>, tensor<f32>) -> tensor<3x3x4xf32>
    %67 = stablehlo.add %48, %66 : tensor<3x3x4xf32>
    return %67, %62, %55, %59 : tensor<3x3x4xf32>, tensor<3x4x4xf32>, tensor<3x4xf32>, tensor<2x4xf32>
  }
}
