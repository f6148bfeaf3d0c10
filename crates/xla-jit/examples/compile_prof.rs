use xla_jit::{Client, CompileOptions};
fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let text = std::fs::read_to_string(&args[0]).unwrap();
    let n: usize = args[1].parse().unwrap();
    let module = xla_core::text::parse_hlo_module(&text).unwrap();
    let client = Client::cpu().unwrap();
    let options = CompileOptions {
        bypass_cache: true,
        ..CompileOptions::default()
    };
    let mut times = Vec::new();
    let mut phases: Vec<(&str, f64)> = Vec::new();
    for _ in 0..n {
        let t = std::time::Instant::now();
        let e = client.compile_with(&module, &options).unwrap();
        times.push(t.elapsed().as_secs_f64() * 1e3);
        let st = e.compile_stats();
        if phases.is_empty() {
            phases = st.phases.iter().map(|(n, _)| (*n, 0.0)).collect();
        }
        for (i, (_, d)) in st.phases.iter().enumerate() {
            phases[i].1 += d.as_secs_f64() * 1e3 / n as f64;
        }
        drop(e);
    }
    println!("{}", cranelift_codegen::timing::take_current());
    for (p, t) in &phases {
        println!("{p}: {t:.3}");
    }
    times.sort_by(|a, b| a.partial_cmp(b).unwrap());
    println!("median {:.3} ms min {:.3}", times[n / 2], times[0]);
}
