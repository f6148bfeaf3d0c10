module @mulhi {
  func.func public @main(%a: tensor<100xi32>, %b: tensor<100xi32>) -> tensor<100xi32> {
    %0 = "chlo.mulhi"(%a, %b) : (tensor<100xi32>, tensor<100xi32>) -> tensor<100xi32>
    return %0 : tensor<100xi32>
  }
}
