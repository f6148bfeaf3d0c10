module @mulhi {
  func.func public @main(%a: tensor<100xui64>, %b: tensor<100xui64>) -> tensor<100xui64> {
    %0 = "chlo.mulhi"(%a, %b) : (tensor<100xui64>, tensor<100xui64>) -> tensor<100xui64>
    return %0 : tensor<100xui64>
  }
}
