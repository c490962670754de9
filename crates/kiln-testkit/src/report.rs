//! The per-file tables of the conformance tests: printed, written into docs/conformance.md
//! between `<!-- NAME:begin -->` and `<!-- NAME:end -->`, and failing the test on any row that
//! differs without a written reason.

use std::fmt::Write as _;

/// One file's line of a table.
pub struct Outcome {
    /// The file, as the table names it (relative to the corpus, or `(generated) NAME`).
    pub file: String,
    /// The numeric columns, in the order of the `columns` given to [`publish`].
    pub cells: Vec<String>,
    /// `match`, or what differs and why.
    pub result: String,
    /// Matches, or differs with a written reason, or both sides reject the file.
    pub ok: bool,
}

/// Replaces the text between the section's markers in the workspace's docs/conformance.md
/// (appending the section when the markers are missing).
pub fn update_doc_section(name: &str, body: &str) {
    let path = crate::paths::workspace_root().join("docs/conformance.md");
    let old =
        std::fs::read_to_string(&path).unwrap_or_else(|_| "# Conformance with Assimp 5.2\n".into());
    let (begin, end) = (
        format!("<!-- {name}:begin -->"),
        format!("<!-- {name}:end -->"),
    );
    let section = format!("{begin}\n{body}{end}");
    let new = match (old.find(&begin), old.find(&end)) {
        (Some(b), Some(e)) if e > b => format!("{}{}{}", &old[..b], section, &old[e + end.len()..]),
        _ => format!("{}\n{}\n", old.trim_end(), section),
    };
    if new != old {
        let _ = std::fs::write(&path, new);
    }
}

/// Prints the table of `rows`, writes it into the `section` of docs/conformance.md and fails
/// when a row differs unexplained. `kind` names the files in the failure message (`OBJ`).
pub fn publish(section: &str, kind: &str, columns: &[&str], rows: &[Outcome]) {
    let mut table = String::new();
    let _ = writeln!(
        table,
        "| file | {} | result |\n|---|{}---|",
        columns.join(" | "),
        "---:|".repeat(columns.len())
    );
    for r in rows {
        let _ = writeln!(
            table,
            "| `{}` | {} | {} |",
            r.file,
            r.cells.join(" | "),
            r.result.replace('|', "\\|")
        );
    }
    let matched = rows.iter().filter(|r| r.result == "match").count();
    let _ = writeln!(
        table,
        "\n{} files: {matched} match, {} differ with a written reason or are rejected by both, {} differ unexplained.\n",
        rows.len(),
        rows.iter().filter(|r| r.ok && r.result != "match").count(),
        rows.iter().filter(|r| !r.ok).count()
    );
    println!("{table}");
    update_doc_section(section, &table);
    let bad: Vec<String> = rows
        .iter()
        .filter(|r| !r.ok)
        .map(|r| format!("{}: {}", r.file, r.result))
        .collect();
    assert!(
        bad.is_empty(),
        "{} {kind} files differ from Assimp:\n{}",
        bad.len(),
        bad.join("\n")
    );
}
