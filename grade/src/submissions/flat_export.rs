//! A learning platform's flat export: every student's uploads side by side in one folder, each
//! named by Canvas as `<student>_<user id>_<submission id>_<file as uploaded>`
//! (`lastname_firstname_12345_67890_vector_add.cu`; `_LATE_` or `_late_` may follow the student's
//! name). The files of one student (one name and user id) are one submission.

use std::path::{Path, PathBuf};

/// What a flat export's file name says.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Upload<'a> {
    /// The student as the platform writes them (`lastname_firstname`, `smithjohn`).
    pub student: &'a str,
    pub user_id: &'a str,
    /// The file's name as the student uploaded it, after any renaming by the platform
    /// (`vector_add-1.cu`).
    pub original: &'a str,
}

impl Upload<'_> {
    /// The submission's name in every output: the student and their user id, which tells two
    /// students of one name apart.
    pub(crate) fn submission_name(&self) -> String {
        format!("{}_{}", self.student, self.user_id)
    }
}

/// Reads `name` as a flat export's file name: the first two all-digit fields with a student's
/// name before them and a file name after.
pub(crate) fn parse(name: &str) -> Option<Upload<'_>> {
    let fields: Vec<(usize, &str)> = name
        .match_indices('_')
        .map(|(at, _)| at)
        .scan(0, |start, at| {
            let field = (*start, &name[*start..at]);
            *start = at + 1;
            Some(field)
        })
        .collect();
    let digits = |field: &str| !field.is_empty() && field.bytes().all(|b| b.is_ascii_digit());
    let at = (1..fields.len().checked_sub(1)?)
        .find(|&k| digits(fields[k].1) && digits(fields[k + 1].1))?;
    let (after_ids, _) = fields[at + 1];
    let original = &name[after_ids + fields[at + 1].1.len() + 1..];
    let mut student_end = fields[at].0 - 1;
    if fields[at - 1].1.eq_ignore_ascii_case("late") && at >= 2 {
        student_end = fields[at - 1].0 - 1;
    }
    let student = &name[..student_end];
    (!student.is_empty() && !original.is_empty()).then_some(Upload {
        student,
        user_id: fields[at].1,
        original,
    })
}

/// The files of the flat export in `first`'s folder that are the same student's as `first`,
/// sorted by name; `is_upload` says which names are uploads the grader reads (kernels and
/// programs, not the student's archives or notes).
pub(crate) fn members(first: &Path, is_upload: impl Fn(&str) -> bool) -> Vec<PathBuf> {
    let Some(wanted) = first
        .file_name()
        .and_then(|n| n.to_str())
        .and_then(parse)
        .map(|u| (u.student.to_string(), u.user_id.to_string()))
    else {
        return vec![first.to_path_buf()];
    };
    let folder = first.parent().unwrap_or(Path::new("."));
    let mut found: Vec<PathBuf> = std::fs::read_dir(folder)
        .into_iter()
        .flatten()
        .flatten()
        .filter(|entry| entry.file_type().is_ok_and(|t| t.is_file()))
        .filter_map(|entry| {
            let name = entry.file_name().into_string().ok()?;
            let upload = parse(&name)?;
            let same = (upload.student, upload.user_id) == (wanted.0.as_str(), wanted.1.as_str());
            (same && is_upload(&name)).then(|| entry.path())
        })
        .collect();
    found.sort();
    found
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn canvas_names_give_the_student_the_user_id_and_the_file_as_uploaded() {
        let upload = parse("lastname_firstname_12345_67890_vector_add.cu").unwrap();
        assert_eq!(
            upload,
            Upload {
                student: "lastname_firstname",
                user_id: "12345",
                original: "vector_add.cu"
            }
        );
        assert_eq!(upload.submission_name(), "lastname_firstname_12345");
        let late = parse("smithjohn_LATE_4411_90210_vector_add (1).cu").unwrap();
        assert_eq!(
            (late.student, late.user_id, late.original),
            ("smithjohn", "4411", "vector_add (1).cu")
        );
        let renamed = parse("o_brien_ann_7_8_matmul_tiled-1.cu").unwrap();
        assert_eq!(
            (renamed.student, renamed.original),
            ("o_brien_ann", "matmul_tiled-1.cu")
        );
        for not_canvas in [
            "vector_add.cu",
            "ann_vector_add.cu",
            "12345_67890_vector_add.cu",
            "ann_12345_67890_",
            "ann_12345_vector_add.cu",
            "02_vector_add_vector_add.cu",
        ] {
            assert_eq!(parse(not_canvas), None, "{not_canvas}");
        }
    }

    #[test]
    fn one_students_uploads_are_found_beside_each_other_and_no_one_elses() {
        let dir = tempfile::tempdir().unwrap();
        for name in [
            "doe_jane_11_90_vector_add.cu",
            "doe_jane_11_90_histogram (1).cu",
            "doe_jane_11_90_notes.txt",
            "doe_jane_12_91_vector_add.cu",
            "roe_rick_13_92_vector_add.cu",
        ] {
            std::fs::write(dir.path().join(name), b"").unwrap();
        }
        let first = dir.path().join("doe_jane_11_90_histogram (1).cu");
        let found = members(&first, |name| name.ends_with(".cu"));
        let names: Vec<_> = found
            .iter()
            .map(|p| p.file_name().unwrap().to_string_lossy().into_owned())
            .collect();
        assert_eq!(
            names,
            [
                "doe_jane_11_90_histogram (1).cu",
                "doe_jane_11_90_vector_add.cu"
            ]
        );
    }
}
