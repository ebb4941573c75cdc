//! The README's op table says what the specs say: one row per op of `specs/`, in the
//! registry's order, with its versions, and a line on what is exact about it.

use std::path::Path;

/// The rows of the table under `## Ops`: (op id, versions as written, what is exact).
fn op_table(readme: &str) -> Vec<(String, String, String)> {
    let section = readme.split("\n## Ops\n").nth(1).expect("README.md has a `## Ops` section");
    let section = section.split("\n## ").next().unwrap_or(section);
    section
        .lines()
        .filter(|l| l.starts_with("| `"))
        .map(|l| {
            let cells: Vec<&str> = l.trim_matches('|').split(" | ").map(str::trim).collect();
            assert_eq!(cells.len(), 3, "a row of three cells: {l}");
            (cells[0].trim_matches('`').to_string(), cells[1].to_string(), cells[2].to_string())
        })
        .collect()
}

#[test]
fn the_op_table_matches_the_specs() {
    let readme = std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("../README.md")).unwrap();
    let rows = op_table(&readme);
    let ops = kerfx_spec::registry().unwrap().ops();
    let want: Vec<(String, String)> = ops
        .iter()
        .map(|s| (s.id.clone(), s.versions.iter().map(u32::to_string).collect::<Vec<_>>().join(", ")))
        .collect();
    let got: Vec<(String, String)> = rows.iter().map(|(id, v, _)| (id.clone(), v.clone())).collect();
    for (id, versions) in &want {
        assert!(
            got.contains(&(id.clone(), versions.clone())),
            "README.md's op table lacks `| `{id}` | {versions} | ... |` (or gives other versions)"
        );
    }
    for (id, versions) in &got {
        assert!(
            want.contains(&(id.clone(), versions.clone())),
            "README.md's op table has `{id}` {versions}: no such spec"
        );
    }
    assert_eq!(got, want, "the table lists the ops in the registry's order (`kerf ops`)");
    for (id, _, exact) in &rows {
        assert!(exact.len() > 10, "`{id}`: say what is exact about it");
    }
}
