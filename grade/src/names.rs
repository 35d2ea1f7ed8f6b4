//! Which exercise a submitted file's name points to, when it is not the exercise's own name: a
//! learning platform's copy mark (`vector_add (1).cu`, `vector_add-1.cu`), or a prefix that a
//! download or a flattened folder put before it (`smith_12345_vector_add.cu`,
//! `02_vector_add_vector_add.cu`); and the build folders no grader reads.

use std::path::Path;

/// Folders made by building or by tools, never a student's answer: skipped when a submission is
/// walked or an archive read, before any size or count limit is applied to what is left.
pub(crate) const BUILD_FOLDERS: &[&str] =
    &["target", "__pycache__", ".git", "node_modules", "__MACOSX"];

/// Whether a path inside a submission lies in a build folder.
pub(crate) fn in_build_folder(path: &Path) -> bool {
    path.components().any(|part| {
        let part = part.as_os_str().to_string_lossy();
        BUILD_FOLDERS.contains(&part.as_ref())
    })
}

/// How closely a file's name matches an exercise's file name; better first.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub(crate) enum Likeness {
    /// The same name, letter case aside, with a copy mark: `Vector_Add (2).cu`.
    Renamed,
    /// The name after a prefix: `smith_12345_vector_add-1.cu`.
    Prefixed,
}

/// The name's stem and extension, both in lower case, the copy marks taken off the stem.
fn parts(name: &str) -> Option<(String, String)> {
    let (stem, extension) = name.rsplit_once('.')?;
    Some((
        without_copy_marks(&stem.to_lowercase()).to_string(),
        extension.to_lowercase(),
    ))
}

/// `x (2)`, `x(2)`, `x-2`, `x_2`, `x 2`, `x - copy`, `x copy` all give `x`, repeatedly.
fn without_copy_marks(stem: &str) -> &str {
    let mut stem = stem.trim_end();
    loop {
        let before = stem;
        if let Some(inner) = stem.strip_suffix(')') {
            if let Some((head, number)) = inner.rsplit_once('(') {
                if is_number(number) {
                    stem = head.trim_end();
                }
            }
        } else if let Some(head) = stem
            .strip_suffix(" - copy")
            .or_else(|| stem.strip_suffix(" copy"))
        {
            stem = head.trim_end();
        } else if let Some((head, number)) = stem.rsplit_once(['-', '_', ' ']) {
            if is_number(number) && !head.is_empty() {
                stem = head.trim_end();
            }
        }
        if stem == before || stem.is_empty() {
            return if stem.is_empty() { before } else { stem };
        }
    }
}

fn is_number(text: &str) -> bool {
    !text.is_empty() && text.len() <= 4 && text.bytes().all(|b| b.is_ascii_digit())
}

/// How `candidate` (a file name) looks like `expected` (an exercise's file name), if it does but
/// is not the same name.
pub(crate) fn likeness(candidate: &str, expected: &str) -> Option<Likeness> {
    if candidate == expected {
        return None;
    }
    let (stem, extension) = parts(candidate)?;
    let (wanted, wanted_extension) = parts(expected)?;
    if extension != wanted_extension || wanted.is_empty() {
        return None;
    }
    if stem == wanted {
        return Some(Likeness::Renamed);
    }
    let head = stem.strip_suffix(&wanted)?;
    head.ends_with(['_', '-', ' ', '.'])
        .then_some(Likeness::Prefixed)
}

/// The one of `names` (exercises' file names) that `candidate` looks most like: the better
/// likeness, then the longer name (`x_matmul_tiled.cu` is `matmul_tiled.cu`'s, not
/// `matmul.cu`'s). None where two names tie, or none is alike, or `candidate` is one of them.
pub(crate) fn owner<'a>(candidate: &str, names: &[&'a str]) -> Option<&'a str> {
    if names.contains(&candidate) {
        return None;
    }
    let mut ranked: Vec<(Likeness, std::cmp::Reverse<usize>, &str)> = names
        .iter()
        .filter_map(|name| {
            let likeness = likeness(candidate, name)?;
            Some((likeness, std::cmp::Reverse(name.len()), *name))
        })
        .collect();
    ranked.sort();
    match ranked.as_slice() {
        [best, second, ..] if (best.0, best.1) == (second.0, second.1) => None,
        [best, ..] => Some(best.2),
        [] => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn copy_marks_and_prefixes_of_learning_platforms_are_seen_through() {
        for renamed in [
            "vector_add (1).cu",
            "vector_add(12).cu",
            "vector_add-1.cu",
            "Vector_Add_2.CU",
            "vector_add - Copy.cu",
            "vector_add - Copy (2).cu",
        ] {
            assert_eq!(
                likeness(renamed, "vector_add.cu"),
                Some(Likeness::Renamed),
                "{renamed}"
            );
        }
        for prefixed in [
            "smithjohn_123456_7890_vector_add-1.cu",
            "02_vector_add_vector_add.cu",
        ] {
            assert_eq!(
                likeness(prefixed, "vector_add.cu"),
                Some(Likeness::Prefixed),
                "{prefixed}"
            );
        }
        for other in [
            "vector_add.cu",
            "vector_add.py",
            "myvector_add.cu",
            "vector_add_test.cu",
            "add.cu",
        ] {
            assert_eq!(likeness(other, "vector_add.cu"), None, "{other}");
        }
        assert_eq!(
            likeness("grid_2d (1).py", "grid_2d.py"),
            Some(Likeness::Renamed)
        );
    }

    #[test]
    fn a_file_goes_to_the_exercise_it_looks_most_like() {
        let names = ["matmul.cu", "matmul_tiled.cu", "ufunc.cu", "ufunc.py"];
        assert_eq!(owner("x_matmul_tiled.cu", &names), Some("matmul_tiled.cu"));
        assert_eq!(owner("matmul (1).cu", &names), Some("matmul.cu"));
        assert_eq!(owner("ufunc-2.py", &names), Some("ufunc.py"));
        assert_eq!(
            owner("matmul.cu", &names),
            None,
            "its own name is no rename"
        );
        assert_eq!(owner("tiled.cu", &names), None);
        assert!(in_build_folder(Path::new("crate/target/debug/main.rs")));
        assert!(!in_build_folder(Path::new("02_vector_add/vector_add.cu")));
    }
}
