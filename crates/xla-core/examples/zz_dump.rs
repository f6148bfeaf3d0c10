fn walk(ops: &[xla_core::mlir::ir::Operation], depth: usize) {
    for op in ops {
        let attrs: Vec<String> = op
            .attrs
            .iter()
            .map(|(k, v)| format!("{k}={:?}", v).chars().take(200).collect())
            .collect();
        println!("{}{} {:?}", "  ".repeat(depth), op.name, attrs);
        for r in &op.regions {
            for b in &r.blocks {
                walk(&b.ops, depth + 1);
            }
        }
    }
}
fn main() {
    let bytes = std::fs::read(std::env::args().nth(1).unwrap()).unwrap();
    let m = xla_core::mlir::bytecode::read_bytecode(&bytes).unwrap();
    walk(&m.ops, 0);
}
