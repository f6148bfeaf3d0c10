//! The README stays true: its program is `examples/quickstart.rs` (which
//! the build compiles) and every repository path it names exists.

fn readme() -> String {
    std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/README.md")).unwrap()
}

#[test]
fn the_program_is_the_quickstart_example() {
    let readme = readme();
    let start = readme.find("```rust\n").expect("a rust block") + "```rust\n".len();
    let end = start + readme[start..].find("```").expect("the block ends");
    let example = std::fs::read_to_string(concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/examples/quickstart.rs"
    ))
    .unwrap();
    assert_eq!(&readme[start..end], example);
}

#[test]
fn every_path_it_names_exists() {
    let roots = [
        "crates/",
        "src/",
        "benches/",
        "tests/",
        "docs/",
        "examples/",
        ".ci/",
    ];
    let readme = readme();
    let mut checked = 0;
    for token in readme.split(|c: char| c.is_whitespace() || "`'\"(),;=".contains(c)) {
        let path = token.trim_end_matches(['.', ':']);
        if !roots.iter().any(|r| path.starts_with(r)) || path.contains(['*', '$', '{']) {
            continue;
        }
        let full = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join(path);
        assert!(
            full.exists(),
            "the README names {path}, which does not exist"
        );
        checked += 1;
    }
    assert!(checked >= 10, "{checked} paths");
}
