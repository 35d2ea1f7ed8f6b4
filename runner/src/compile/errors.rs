//! NVRTC's log, rewritten against the student's file: each error with its line of source.

use super::Source;

/// Rewrites lines like `exercises/02/vector_add.cu(12): error: identifier "i" is undefined`
/// as `exercises/02/vector_add.cu:12: error: ...`, the form editors jump to. NVRTC follows most
/// errors with the source line and a caret; where it does not, the source line is added.
pub fn render(log: &str, source: &Source) -> String {
    let lines: Vec<&str> = source.text.lines().collect();
    let log_lines: Vec<&str> = log.lines().collect();
    let mut out = String::new();
    for (i, entry) in log_lines.iter().enumerate() {
        let Some((file, line, message)) = parse_location(entry) else {
            if !entry.trim().is_empty() && !entry.contains("compilation terminated") {
                out.push_str(entry);
                out.push('\n');
            }
            continue;
        };
        out.push_str(&format!("{file}:{line}: {message}\n"));
        let is_ours = file.ends_with(source.name) || source.name.ends_with(file);
        let text = line
            .checked_sub(1)
            .and_then(|i| lines.get(i))
            .filter(|_| is_ours);
        let shown_next = |text: &str| {
            log_lines
                .get(i + 1)
                .is_some_and(|next| next.trim() == text.trim())
        };
        if let Some(text) = text.filter(|t| !shown_next(t)) {
            out.push_str(&format!("{line:>5} | {text}\n"));
        }
    }
    if out.trim().is_empty() {
        return format!(
            "{}: NVRTC rejected the file without a message\n",
            source.name
        );
    }
    out
}

fn parse_location(entry: &str) -> Option<(&str, usize, &str)> {
    let open = entry.find('(')?;
    let close = open + entry[open..].find("): ")?;
    let line = entry[open + 1..close].parse().ok()?;
    Some((&entry[..open], line, &entry[close + 3..]))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn source_line_is_not_repeated_when_nvrtc_shows_it() {
        let source = Source {
            name: "k.cu",
            text: "a\n  int x = y;\n",
        };
        let log = "k.cu(2): error: identifier \"y\" is undefined\n    int x = y;\n            ^\n";
        let shown = render(log, &source);
        assert_eq!(shown.matches("int x = y;").count(), 1, "{shown}");
        assert!(shown.starts_with("k.cu:2: error"));
    }

    #[test]
    fn error_lines_name_file_and_line_and_show_the_source() {
        let source = Source {
            name: "exercises/02_vector_add/vector_add.cu",
            text: "a\nint x = y;\nc\n",
        };
        let log = "exercises/02_vector_add/vector_add.cu(2): error: identifier \"y\" is undefined\n\n1 error detected in the compilation of \"exercises/02_vector_add/vector_add.cu\".\n";
        let shown = render(log, &source);
        assert!(shown.starts_with(
            "exercises/02_vector_add/vector_add.cu:2: error: identifier \"y\" is undefined\n"
        ));
        assert!(shown.contains("    2 | int x = y;"));
        assert!(shown.contains("1 error detected"));
    }
}
