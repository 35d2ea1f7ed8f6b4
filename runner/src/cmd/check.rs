//! `runner check NN`: the main verb.

use crate::backend::cuda::CudaBackend;
use crate::checker::{case_options, check_everywhere, Checker, Premade};
use crate::course::{Course, Exercise};
use crate::pristine;
use crate::progress::Progress;
use crate::report::{CheckReport, Render, Report};
use crate::session::{compiler_and_backend, find_course};
use crate::trace;
use colored::Colorize;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::ExitCode;

/// `runner check`'s arguments.
#[derive(clap::Args)]
pub struct CheckArgs {
    /// The exercise id, e.g. 03.
    pub id: String,
    /// Print one JSON object instead of text.
    #[arg(long)]
    pub json: bool,
    /// Write the report as one JSON object to this file instead of printing it: stdout then
    /// carries only what the program or kernel printed (for scripts and graders).
    #[arg(long, value_name = "PATH", conflicts_with = "json")]
    pub json_to: Option<PathBuf>,
    /// The report's JSON goes to this open file: how a grader's sandbox hands the check a file
    /// the student's code cannot name (see `runner-grade`'s sandbox). Not on the command line.
    #[arg(skip)]
    pub json_file: Option<std::fs::File>,
    /// Seed of the random test inputs.
    #[arg(long)]
    pub seed: Option<u64>,
    /// Extra problem sizes to test, beyond the exercise's own (e.g. an instructor's hidden cases),
    /// from 1 to 1048576.
    #[arg(long, value_delimiter = ',', value_parser = checks::parse_extra_size)]
    pub sizes: Vec<usize>,
    /// Check this kernel file instead of the exercise's own (e.g. a copy you are trying out).
    #[arg(long)]
    pub file: Option<PathBuf>,
    /// Write every case's outputs as raw files under this folder (to compare backends).
    #[arg(long, hide = true)]
    pub save_outputs: Option<PathBuf>,
    /// For a host exercise in Rust: run this program, already built from the file, instead of
    /// building it (on a machine without Rust, such as a GPU server).
    #[arg(long)]
    pub program: Option<PathBuf>,
    /// Where the check runs (--backend).
    #[command(flatten)]
    pub backend: crate::backend::BackendArgs,
}

type CasesAhead = std::thread::JoinHandle<Option<Premade>>;

/// Starts making the cases a GPU check will need, on another thread: a GPU's timing case takes
/// tens of milliseconds to make, and opening the GPU takes a quarter of a second in which this
/// thread only waits. Not where no GPU is likely (no CUDA driver, or the simulator asked for),
/// nor for exercises whose cases depend on values read from the compiled kernel.
fn make_cases_ahead(
    exercise: &Exercise,
    seed: Option<u64>,
    sizes: &[usize],
    gpu_likely: bool,
) -> Option<CasesAhead> {
    if !gpu_likely || !exercise.declared.is_empty() {
        return None;
    }
    let options = case_options(seed, sizes, true, Default::default());
    let id = exercise.id.clone();
    // Where no thread can be had, the check makes its cases itself, as off a GPU.
    std::thread::Builder::new()
        .name("cases ahead".into())
        .spawn(move || {
            let premade = Premade::make(&id, options).ok()?;
            trace::mark("cases made ahead");
            Some(premade)
        })
        .ok()
}

/// Runs `runner check`: checks one exercise and prints (or writes) its report; the exit code says
/// whether it passed.
pub fn run(args: CheckArgs) -> anyhow::Result<ExitCode> {
    let CheckArgs {
        id,
        json,
        json_to,
        json_file,
        seed,
        sizes,
        file,
        save_outputs,
        program,
        backend,
    } = args;
    crate::ending::on_signal_end_everything();
    let mut output = Output::of(json, json_to, json_file)?;
    let json = output.is_json();
    let course = find_course()?;
    pristine::snapshot_or_warn(&course);
    trace::mark("course found, originals snapshotted");
    let exercise = course.exercise(&id)?.clone();
    if exercise.is_host() {
        // With --json (the grader, which says so once for the class) the report is the answer.
        if !sizes.is_empty() && !json {
            eprintln!(
                "Note: --sizes adds problem sizes to a kernel exercise's cases; exercise {}'s \
                 program is checked on its own cases.",
                exercise.id
            );
        }
        let options = crate::host::Options {
            seed,
            backend: crate::session::program_backend(backend.backend),
            program,
        };
        let path = file
            .clone()
            .unwrap_or_else(|| course.exercise_path(&exercise));
        return check_host(&course, &exercise, &path, &options, output, file.is_none());
    }
    if program.is_some() {
        anyhow::bail!(
            "--program is for host exercises (whole programs); exercise {} is a kernel",
            exercise.id
        );
    }
    let gpu_likely = backend.backend.may_use_gpu() && CudaBackend::driver_present();
    let premade = make_cases_ahead(&exercise, seed, &sizes, gpu_likely);
    // The compile children start (and load NVRTC) while the GPU is being opened: on a GPU one
    // for it and one for the simulator's re-check.
    crate::compile::child::keep_warm(if gpu_likely { 2 } else { 1 }, false);
    let (compiler, mut backend) = compiler_and_backend(&course, backend.backend, json)?;
    trace::mark(format!(
        "NVRTC loaded and backend opened: {}",
        backend.describe()
    ));
    let premade = premade.and_then(|making| making.join().ok()).flatten();
    let own_file = file.is_none();
    let path = file.unwrap_or_else(|| course.exercise_path(&exercise));
    let mut checker = Checker {
        course: &course,
        compiler: &compiler,
        backend: backend.as_mut(),
        seed,
        extra_sizes: sizes,
        timing: true,
        save_outputs,
        retile: false,
        premade,
        original: pristine::original_text(&course, &exercise),
        compile_as: None,
    };
    let mut report = match check_everywhere(&mut checker, &exercise, &path) {
        Ok(report) => report,
        // A script reading --json gets an object even when nothing could be checked.
        Err(err) if json => {
            let error = serde_json::json!({
                "schema_version": crate::report::SCHEMA_VERSION,
                "exercise": exercise.id,
                "error": format!("{err:#}"),
            });
            output.write_json(&error)?;
            eprintln!("{} {err:#}", "Error:".red().bold());
            return Ok(ExitCode::from(2));
        }
        Err(err) => return Err(err),
    };
    record(&course, &exercise, &mut report, own_file)?;
    emit(&Report::Kernel(Box::new(report)), output)
}

/// Where a check's report goes.
enum Output {
    /// Text on stdout, for a student.
    Text,
    /// One JSON object on stdout (`--json`).
    Json,
    /// One JSON object in a file (`--json-to`, or one the grader's sandbox opened), apart from
    /// what the program or its kernels print on stdout.
    JsonFile(std::fs::File),
}

impl Output {
    /// The output the flags ask for; a `--json-to` file is made now, so that a path that cannot
    /// be written stops the check before it runs.
    fn of(
        json: bool,
        json_to: Option<PathBuf>,
        json_file: Option<std::fs::File>,
    ) -> anyhow::Result<Output> {
        if let Some(file) = json_file {
            return Ok(Output::JsonFile(file));
        }
        if let Some(path) = json_to {
            let file = std::fs::File::create(&path).map_err(|err| {
                anyhow::anyhow!(
                    "cannot write the report to {} ({err}): give --json-to a file in a folder \
                     that exists and you may write to",
                    path.display()
                )
            })?;
            return Ok(Output::JsonFile(file));
        }
        Ok(if json { Output::Json } else { Output::Text })
    }

    /// Whether the report is read by a program (JSON): notes for a person stay off it.
    fn is_json(&self) -> bool {
        !matches!(self, Output::Text)
    }

    fn write_json(&mut self, value: &impl serde::Serialize) -> anyhow::Result<()> {
        match self {
            Output::JsonFile(file) => {
                serde_json::to_writer_pretty(&mut *file, value)?;
                writeln!(file)?;
                file.flush()?;
            }
            _ => println!("{}", serde_json::to_string_pretty(value)?),
        }
        Ok(())
    }
}

/// Gives the report, as text or JSON as `output` says, and the exit code its verdict means.
fn emit(report: &Report, mut output: Output) -> anyhow::Result<ExitCode> {
    match output {
        Output::Text => print!("{}", report.render()),
        _ => output.write_json(report)?,
    }
    Ok(if report.passed() {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    })
}

/// `runner check` on a host exercise: the program built and run on each case (see `host`).
fn check_host(
    course: &Course,
    exercise: &Exercise,
    path: &Path,
    options: &crate::host::Options,
    output: Output,
    own_file: bool,
) -> anyhow::Result<ExitCode> {
    let report = host_report(course, exercise, path, options, own_file)?;
    emit(&Report::Program(Box::new(report)), output)
}

/// Checks host exercise `exercise`'s program at `path`, and records a pass of its own file, as
/// `runner check` and `runner watch` both do.
pub fn host_report(
    course: &Course,
    exercise: &Exercise,
    path: &Path,
    options: &crate::host::Options,
    own_file: bool,
) -> anyhow::Result<crate::host::report::HostReport> {
    let original = pristine::original_text(course, exercise);
    let mut report = crate::host::check(course, exercise, path, options, original.as_deref())?;
    let passed = report.passed().then(|| report.backend.name());
    report.progress = Some(record_outcome(
        course,
        exercise,
        passed,
        own_file,
        &mut report.summary,
    )?);
    Ok(report)
}

/// What follows a check of `exercise`, in `runner check` and `runner watch` alike: a pass of the
/// exercise's own file (`own_file`) is recorded, the summary names the exercise to do next, and
/// the report carries the progress.
pub fn record(
    course: &Course,
    exercise: &Exercise,
    report: &mut CheckReport,
    own_file: bool,
) -> anyhow::Result<()> {
    let passed = report.passed().then(|| report.backend.name());
    report.progress = Some(record_outcome(
        course,
        exercise,
        passed,
        own_file,
        &mut report.summary,
    )?);
    Ok(())
}

/// Records a pass (on `passed`, the backend's name) of the exercise's own file, adds the next
/// exercise to `summary`, and gives the progress (done, total).
fn record_outcome(
    course: &Course,
    exercise: &Exercise,
    passed: Option<&str>,
    own_file: bool,
    summary: &mut String,
) -> anyhow::Result<(usize, usize)> {
    // The verdict is printed whatever becomes of the progress: a failure to record it is a warning.
    let (mut progress, warning) = Progress::load_or_none(&course.root);
    let mut warnings: Vec<String> = warning.into_iter().collect();
    if let (Some(backend), true) = (passed, own_file) {
        progress.mark_done(&exercise.id, backend);
        warnings.extend(progress.save_or_warn());
        let next = course.next_after(exercise, |id| progress.is_done(id));
        summary.push_str(&match next {
            Some(next) => format!(" Next: `runner check {}` ({}).", next.id, next.title),
            None => " That was the last one: the course is done!".into(),
        });
    }
    for warning in warnings {
        eprintln!("{} {warning}", "Warning:".yellow().bold());
    }
    let done = course
        .exercises
        .iter()
        .filter(|e| progress.is_done(&e.id))
        .count();
    Ok((done, course.exercises.len()))
}

#[cfg(test)]
mod tests {
    use super::record_outcome;
    use crate::course::Course;

    /// The "Next:" a pass of each exercise prints, passed in this order by a student with no
    /// progress yet.
    fn next_after_passing(ids: &[&str]) -> Vec<String> {
        // The course's own exercises, with the progress kept in a folder of the test's own.
        let dir = tempfile::tempdir().unwrap();
        let repo = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
        let course = Course {
            root: dir.path().to_path_buf(),
            exercises: Course::load(&repo).unwrap().exercises,
        };
        ids.iter()
            .map(|id| {
                let mut summary = String::new();
                let exercise = course.exercise(id).unwrap();
                record_outcome(&course, exercise, Some("sim"), true, &mut summary).unwrap();
                summary
            })
            .collect()
    }

    #[test]
    fn next_follows_the_track_of_the_exercise_just_passed() {
        let next = next_after_passing(&["py03", "25", "26", "05", "24"]);
        assert!(next[0].contains("Next: `runner check py04`"), "{}", next[0]);
        assert!(next[1].contains("Next: `runner check 26`"), "{}", next[1]);
        assert!(next[2].contains("Next: `runner check 27`"), "{}", next[2]);
        assert!(next[3].contains("Next: `runner check 06`"), "{}", next[3]);
        // The end of a track comes round to the first one skipped in it.
        assert!(next[4].contains("Next: `runner check 01`"), "{}", next[4]);
    }

    #[test]
    fn a_finished_track_hands_over_to_the_first_exercise_not_done() {
        let next = next_after_passing(&["25", "26", "27", "28"]);
        assert!(next[3].contains("Next: `runner check 01`"), "{}", next[3]);
    }
}
