//! The repository stands on its own: no file in it refers to material outside it (the
//! rules and test data the project was started from). A user's clone has only the
//! repository, so the rules are cited from `docs/rules/` and data is read from the
//! crates' own `tests/data/`.

use std::path::{Path, PathBuf};

/// What a reference to the material outside the repository looks like. Built at run
/// time so that this file does not match itself.
fn forbidden() -> Vec<String> {
    let outside = "shared";
    vec![
        format!("../{outside}"),
        format!("{outside}/rules"),
        format!("{outside}/data"),
    ]
}

/// The repository's root: two levels above this crate.
fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// Every file under `dir`, skipping build output (`target`) and git's own directory.
fn files(dir: &Path, out: &mut Vec<PathBuf>) {
    let entries = std::fs::read_dir(dir).unwrap_or_else(|e| panic!("{}: {e}", dir.display()));
    for entry in entries {
        let entry = entry.unwrap();
        let path = entry.path();
        let kind = entry.file_type().unwrap();
        if kind.is_dir() {
            if !matches!(entry.file_name().to_str(), Some("target" | ".git")) {
                files(&path, out);
            }
        } else if kind.is_file() {
            out.push(path);
        }
    }
}

fn offending_lines(text: &str, patterns: &[String]) -> Vec<String> {
    text.lines()
        .enumerate()
        .filter(|(_, line)| patterns.iter().any(|p| line.contains(p.as_str())))
        .map(|(i, line)| format!("{}: {}", i + 1, line.trim()))
        .collect()
}

#[test]
fn no_file_refers_to_material_outside_the_repository() {
    let root = root();
    let mut all = Vec::new();
    files(&root, &mut all);
    // The walk found the repository, not an empty directory.
    for known in [
        "README.md",
        "docs/rules/TAFL.md",
        "docs/rules/CAMELOT.md",
        ".ci/run",
    ] {
        assert!(
            all.iter().any(|p| p.ends_with(known)),
            "{known} not found under {}",
            root.display()
        );
    }
    let patterns = forbidden();
    let mut found = Vec::new();
    for path in &all {
        let bytes = std::fs::read(path).unwrap();
        let text = String::from_utf8_lossy(&bytes);
        for line in offending_lines(&text, &patterns) {
            let shown = path.strip_prefix(&root).unwrap_or(path);
            found.push(format!("{}:{line}", shown.display()));
        }
    }
    assert!(
        found.is_empty(),
        "files refer to material outside the repository (cite docs/rules/ or copy the data \
         into the repository):\n{}",
        found.join("\n")
    );
}

#[test]
fn the_check_finds_each_kind_of_reference() {
    let patterns = forbidden();
    let outside = "shared";
    for text in [
        format!("see ../{outside}/rules/TAFL.md"),
        format!("read {outside}/data/copenhagen/x.csv"),
        format!("as `{outside}/rules/CAMELOT.md` says"),
    ] {
        assert_eq!(offending_lines(&text, &patterns).len(), 1, "{text}");
    }
    assert!(offending_lines("a table shared by threads", &patterns).is_empty());
}

#[test]
fn the_rules_cited_by_the_tests_are_in_the_repository() {
    // Every rule point a test is named after (`tafl_4f_…`, `camelot_s5_…`) is a
    // numbered point of the rules pages.
    let tafl = std::fs::read_to_string(root().join("docs/rules/TAFL.md")).unwrap();
    let camelot = std::fs::read_to_string(root().join("docs/rules/CAMELOT.md")).unwrap();
    let mut tests = String::new();
    for dir in ["crates/tafl/tests", "crates/camelot/tests"] {
        let mut all = Vec::new();
        files(&root().join(dir), &mut all);
        for path in all.iter().filter(|p| p.extension() == Some("rs".as_ref())) {
            tests.push_str(&std::fs::read_to_string(path).unwrap());
        }
    }
    let mut cited = 0;
    for word in tests.split(|c: char| !(c.is_ascii_alphanumeric() || c == '_')) {
        let (game, rest) = if let Some(rest) = word.strip_prefix("tafl_") {
            ("tafl", rest)
        } else if let Some(rest) = word.strip_prefix("camelot_") {
            ("camelot", rest)
        } else {
            continue;
        };
        let point = rest.split('_').next().unwrap_or_default();
        let numbered = if game == "tafl" {
            point.starts_with(|c: char| c.is_ascii_digit())
        } else {
            point.len() >= 2
                && point.starts_with(['r', 's', 'w', 'd'])
                && point[1..].chars().all(|c| c.is_ascii_digit())
        };
        if !numbered {
            continue;
        }
        cited += 1;
        let found = if game == "tafl" {
            let number: String = point.chars().take_while(char::is_ascii_digit).collect();
            if point.len() > number.len() {
                tafl.contains(&format!("**{point}.**"))
            } else {
                tafl.contains(&format!("## {number}. "))
            }
        } else {
            camelot.contains(&format!("**{}.", point.to_ascii_uppercase()))
        };
        assert!(found, "{word}: rule {point} is not in docs/rules/");
    }
    assert!(cited > 50, "only {cited} rule tests found");
}
