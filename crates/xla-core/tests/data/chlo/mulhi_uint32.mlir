module @mulhi {
  func.func public @main(%a: tensor<100xui32>, %b: tensor<100xui32>) -> tensor<100xui32> {
    %0 = "chlo.mulhi"(%a, %b) : (tensor<100xui32>, tensor<100xui32>) -> tensor<100xui32>
    return %0 : tensor<100xui32>
  }
}
