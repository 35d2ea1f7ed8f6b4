//! `runner grade`: grades a class of submissions, one process per (submission, exercise) cell
//! in the simulator or a worker per GPU that checks many (`--isolation`), and writes the grade
//! book in the formats graders use. Also `grade merge` (join shards), `--slurm` (a job array that
//! runs the shards), `--gradescope-autograder`, and `grade bench`.
//!
//! The parts are this crate's other modules, one concern each:
//!
//! | module | owns |
//! | --- | --- |
//! | `config` | the instructor's `grading.toml` |
//! | `settings` | what a run graded with (`run.json`), and each cell's key |
//! | `submissions` | finding the class's folders and archives; shards |
//! | `archive` | reading a `.zip` / `.tar.gz` without trusting it |
//! | `kernels` | finding, checking and staging a submission's kernel files |
//! | `policy` | what a cell's sandbox lets it see and change |
//! | `sandbox` | each cell in a sandbox of its own (bubblewrap), and its limits |
//! | `cell` | running one check, and what its exit and report mean |
//! | `judged` | what a cell's check said, as a grade |
//! | `program` | a whole program's report (host, Python: `--run-programs`) as a grade |
//! | `worker` | cells checked by a long-lived worker per GPU; the isolation it keeps |
//! | `results` | a graded cell, saved atomically as it finishes |
//! | `prepare` | before grading: exercises chosen, the course checked once, kernels staged |
//! | `queue` | the cells waiting for a check, handed out exercise by exercise |
//! | `run` | the class: the pool of workers, resume, Ctrl-C |
//! | `display` | progress bar or plain lines |
//! | `similarity` | groups of nearly identical kernels, and what each pair shares |
//! | `output` | the grade book and its formats (csv, json, junit, gradescope, html) |
//! | `cluster` | `--shard`, `grade merge`, `--slurm` |
//! | `autograder` | the zip Gradescope runs |
//! | `bench` | a synthetic class, timed |

use crate::worker::Isolation;
use crate::{
    autograder, bench, cluster, output, results, run, sandbox, settings, similarity, submissions,
};
use anyhow::Context;
use clap::Subcommand;
use output::{Book, Format};
use results::{Status, Store};
use runner::cli::BackendArgs;
use runner::course::Course;
use runner::session::find_course;
use settings::Settings;
use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::Instant;

const ALL_FORMATS: &str = "csv,json,junit,gradescope,html";

/// `runner grade`'s command line (clap reads its fields' doc comments as their --help).
#[derive(clap::Args)]
#[command(args_conflicts_with_subcommands = true)]
pub struct GradeArgs {
    /// A verb other than grading a class (merge, bench, and the grader's own check and
    /// sandbox); none grades the class in `submissions`.
    #[command(subcommand)]
    pub action: Option<GradeAction>,
    /// The submissions: a folder holding one folder or archive (.zip, .tar, .tar.gz, .tar.xz,
    /// .tar.bz2, .7z) per student, laid out like exercises/ or flat (only the exercises' files
    /// are taken from it).
    pub submissions: Option<PathBuf>,
    /// Where the results go: cells/ as each finishes, then the grade book in every format.
    #[arg(long, default_value = "grades")]
    pub out: PathBuf,
    /// Formats to write, comma-separated.
    #[arg(long, value_enum, value_delimiter = ',', default_value = ALL_FORMATS)]
    pub format: Vec<Format>,
    /// Seed of the random test inputs (overrides `seed` in grading.toml).
    #[arg(long)]
    pub seed: Option<u64>,
    /// Checks run at once; by default three per CPU core in the simulator, one worker per GPU.
    #[arg(long)]
    pub jobs: Option<usize>,
    /// Where the checks run (--backend): the simulator, the GPU, or auto.
    #[command(flatten)]
    pub backend: BackendArgs,
    /// How cells are kept apart: `cell`, a process each under its own limits (the default in
    /// the simulator), or `worker`, one process per GPU that checks many cells with the GPU
    /// context opened once (the default on a GPU; a cell that hangs or crashes costs that cell
    /// and a new worker, and the memory limit holds for the worker, not for each cell).
    #[arg(long, value_enum)]
    pub isolation: Option<Isolation>,
    /// Only these exercises, e.g. `01,02` or `01-04`.
    #[arg(long, value_name = "IDS")]
    pub exercises: Option<String>,
    /// Grade the whole-program exercises (host exercises, the Python track) too. Each cell runs
    /// the student's own program in a sandbox of its own (bubblewrap), which the grade refuses
    /// to go without. Also `run_programs = true` in grading.toml (which shards of --slurm read).
    #[arg(long, conflicts_with = "slurm")]
    pub run_programs: bool,
    /// Run students' programs with your own rights where no sandbox can be made (bubblewrap
    /// missing or refused): any student can then read and change what you can.
    #[arg(long = "no-sandbox-i-trust-these-programs")]
    pub no_sandbox: bool,
    /// Finish an interrupted run in --out: cells already graded (same kernel, same settings) are kept.
    #[arg(long)]
    pub resume: bool,
    /// The grading file (hidden seed, extra sizes, limits); by default grading.toml at the course root.
    #[arg(long, value_name = "FILE")]
    pub grading: Option<PathBuf>,
    /// Grade only slice I of N (counted from 1) of the class; `runner grade merge` joins the slices.
    #[arg(long, value_name = "I/N")]
    pub shard: Option<submissions::Shard>,
    /// Write a Slurm job array of this many shards, and a merge job, into --out; grade nothing now.
    #[arg(long, value_name = "SHARDS", conflicts_with_all = ["shard", "gradescope_autograder", "resume"])]
    pub slurm: Option<usize>,
    /// An `#SBATCH` option for the shard jobs, e.g. `--partition=gpu` (repeat for more).
    #[arg(long = "slurm-option", value_name = "OPTION", requires = "slurm")]
    pub slurm_options: Vec<String>,
    /// Write autograder.zip into --out, for Gradescope: it grades each submission in the simulator.
    #[arg(long, conflicts_with_all = ["shard", "resume"])]
    pub gradescope_autograder: bool,
}

/// The verbs of `runner grade` beside grading a class (clap reads their doc comments as --help).
#[derive(Subcommand)]
pub enum GradeAction {
    /// Join the results of shards (`runner grade --shard I/N` runs) into one grade book.
    Merge {
        /// The --out folders of the shards.
        #[arg(required = true)]
        dirs: Vec<PathBuf>,
        /// Where the joined grade book goes.
        #[arg(long)]
        out: PathBuf,
        /// Formats to write, comma-separated.
        #[arg(long, value_enum, value_delimiter = ',', default_value = ALL_FORMATS)]
        format: Vec<Format>,
    },
    /// Grade a synthetic class made from the course's solutions and exercise files, and print
    /// how long it took.
    Bench {
        /// Synthetic submissions to grade.
        #[arg(long, default_value_t = 20)]
        submissions: usize,
        /// Checks run at once; by default as for `runner grade`.
        #[arg(long)]
        jobs: Option<usize>,
        /// Only these exercises, e.g. `01-04`.
        #[arg(long, value_name = "IDS")]
        exercises: Option<String>,
        /// Keep the synthetic class and its results in this folder (by default a temporary one).
        #[arg(long)]
        keep: Option<PathBuf>,
        /// Where the checks run: sim (the default) or gpu.
        #[arg(long, value_parser = runner::backend::backend_parser(), default_value = "sim")]
        backend: contract::Backend,
        /// A process per cell, or workers that check many (default: as for `runner grade`).
        #[arg(long, value_enum)]
        isolation: Option<Isolation>,
        /// Also print where the workers' time went, phase by phase (from their RUNNER_TRACE
        /// lines).
        #[arg(long)]
        profile: bool,
    },
    /// `runner check ARGS`, in this process: what the Gradescope autograder's setup runs, where
    /// this program is the only one.
    #[command(hide = true, disable_help_flag = true)]
    Check {
        /// The arguments of `runner check`, as given.
        #[arg(trailing_var_arg = true, allow_hyphen_values = true)]
        args: Vec<OsString>,
    },
    /// Run a runner command under the limits of one grading cell (used by `runner grade`).
    #[command(hide = true)]
    Sandbox {
        /// The cell's memory limit, in MiB.
        #[arg(long)]
        memory_mb: u64,
        /// The cell's CPU-time limit, in seconds.
        #[arg(long)]
        cpu_seconds: u64,
        /// What to prepare inside the sandbox first (JSON, written by the grader).
        #[arg(long)]
        setup: Option<String>,
        /// The runner command the cell runs, after `--`.
        #[arg(last = true, required = true)]
        command: Vec<OsString>,
    },
}

/// Runs `runner grade` as its command line asks. The exit code says whether every cell was
/// graded (a failing student's cell is a grade, not a failure): 130 when stopped (resumable),
/// failure where cells could not be checked or a merge lacks shards.
pub fn run(args: GradeArgs) -> anyhow::Result<ExitCode> {
    if let Some(action) = args.action {
        return run_action(action);
    }
    let course = find_course()?;
    if args.gradescope_autograder {
        return write_autograder(&course, &args);
    }
    let submissions = args.submissions.clone().context(
        "give the folder of submissions: `runner grade SUBMISSIONS` (one folder or archive per student)",
    )?;
    if let Some(shards) = args.slurm {
        return write_slurm(&course, &args, &submissions, shards);
    }
    grade(&course, &args, submissions)
}

/// `grade merge`, `grade bench`, and the commands the grader runs in its cells.
fn run_action(action: GradeAction) -> anyhow::Result<ExitCode> {
    match action {
        GradeAction::Merge { dirs, out, format } => merge(&dirs, &out, &format),
        GradeAction::Bench {
            submissions,
            jobs,
            exercises,
            keep,
            backend,
            isolation,
            profile,
        } => bench::run(
            submissions,
            jobs,
            exercises.as_deref(),
            keep.as_deref(),
            backend,
            isolation,
            profile,
        ),
        GradeAction::Sandbox {
            memory_mb,
            cpu_seconds,
            setup,
            command,
        } => sandbox::run(
            &sandbox::Limits {
                memory_mb,
                cpu_seconds,
            },
            setup.as_deref(),
            &command,
        ),
        GradeAction::Check { args } => {
            let check = ["runner", "check"].map(OsString::from).into_iter();
            let cli = <runner::cli::Cli as clap::Parser>::try_parse_from(check.chain(args))?;
            runner::cmd::run(cli.command)
        }
    }
}

/// `--gradescope-autograder`: writes the zip and says what the instructor must know of it.
fn write_autograder(course: &Course, args: &GradeArgs) -> anyhow::Result<ExitCode> {
    let written = autograder::write(
        course,
        &args.out,
        args.grading.as_deref(),
        args.exercises.as_deref(),
    )?;
    println!(
        "Wrote {}: upload it as the assignment's autograder on Gradescope. It grades exercises {}.",
        written.zip.display(),
        written.exercises.join(", ")
    );
    if let Some(floor) = written.glibc {
        let image = autograder::glibc::first_ubuntu(floor)
            .map_or("an image".to_string(), |u| format!("Ubuntu {u} or later"));
        eprintln!(
            "Note: the grader in the zip needs glibc {floor} or later: pick {image} as the autograder's base image \
             (setup.sh stops the image's build on an older one). scripts/build-portable-runner builds one \
             for older images."
        );
    }
    if written.runs_programs {
        eprintln!(
            "Note: some of those are whole programs, which the zip grades with --run-programs \
             (Gradescope runs each student in a container of its own). It carries what they need \
             (the simulated driver, hostkit/, Cargo.lock, the exercises' crates), and setup.sh \
             installs the rest when Gradescope builds the image, from the internet: cargo with \
             rustup (then cudarc is built once) for Rust exercises, the CUDA Python environment \
             from PyPI for Python ones."
        );
    }
    if !written.named {
        eprintln!(
            "Note: that is every exercise of the course. For an assignment of a few, name them in {} \
             (exercises = \"01-04\") or with --exercises, and write the zip again.",
            crate::config::GRADING_FILE
        );
    }
    Ok(ExitCode::SUCCESS)
}

/// `--slurm SHARDS`: writes the job array and its merge job; grades nothing now.
fn write_slurm(
    course: &Course,
    args: &GradeArgs,
    submissions: &Path,
    shards: usize,
) -> anyhow::Result<ExitCode> {
    let script = cluster::write_slurm(&cluster::SlurmPlan {
        course,
        submissions,
        out: &args.out,
        shards,
        options: &args.slurm_options,
        formats: &args.format,
        seed: args.seed,
        jobs: args.jobs,
        backend: args.backend.backend,
        exercises: args.exercises.clone(),
        grading: args.grading.clone(),
    })?;
    println!(
        "Wrote {}. Submit the class with: bash {}",
        script.display(),
        script.display()
    );
    Ok(ExitCode::SUCCESS)
}

/// Grades the class in `submissions`, writes the grade book and says how it went.
fn grade(course: &Course, args: &GradeArgs, submissions: PathBuf) -> anyhow::Result<ExitCode> {
    let options = run::Options {
        submissions,
        out: args.out.clone(),
        seed: args.seed,
        jobs: args.jobs,
        backend: args.backend.backend,
        exercises: args.exercises.clone(),
        resume: args.resume,
        grading: args.grading.clone(),
        shard: args.shard,
        isolation: args.isolation,
        run_programs: args.run_programs,
        no_sandbox: args.no_sandbox,
        trace_workers: None,
    };
    let started = Instant::now();
    let graded = run::grade_class(&options, course)?;
    let book = finish(
        course,
        &args.out,
        graded.settings,
        Some(&graded.submissions),
        &args.format,
    )?;
    println!(
        "Graded {} submissions x {} exercises ({} checks run now) in {:.1} s, {}.",
        book.rows.len(),
        book.settings.exercises.len(),
        graded.graded_now,
        started.elapsed().as_secs_f64(),
        book.settings.backend.where_it_ran(&book.settings.device)
    );
    summarise(&book, &args.out);
    Ok(grading_exit(&book, graded.interrupted))
}

/// How a grading run ends: 130 when stopped (resumable), failure where cells could not be
/// checked (`--resume` tries them again), else success; each says what to do next.
fn grading_exit(book: &Book, interrupted: bool) -> ExitCode {
    let cells = book.rows.len() * book.settings.exercises.len();
    if interrupted {
        println!(
            "Stopped: {} of {cells} cells are graded and saved; run the same command with --resume to grade the rest.",
            cells - book.missing_cells()
        );
        return ExitCode::from(130);
    }
    let errors = book
        .rows
        .iter()
        .flat_map(|r| r.cells.iter().flatten())
        .filter(|c| c.status == Status::Error)
        .count();
    if errors > 0 {
        println!("{errors} cells could not be checked (status `error`, see statuses.csv); --resume tries them again.");
        return ExitCode::FAILURE;
    }
    ExitCode::SUCCESS
}

/// The similarity report and every output, from the cells on disk.
fn finish(
    course: &Course,
    out: &Path,
    settings: Settings,
    submissions: Option<&[String]>,
    formats: &[Format],
) -> anyhow::Result<Book> {
    let store = Store::new(out);
    let handouts = similarity::handouts(course);
    let groups = similarity::report(&settings, &store, &handouts, submissions);
    let path = out.join("similarity.json");
    runner::compile::cache::write_atomically(
        &path,
        serde_json::to_string_pretty(&groups)?.as_bytes(),
    )
    .with_context(|| format!("cannot write {}", path.display()))?;
    let book = Book::from_store(settings, &store, submissions, groups);
    output::write(out, &book, formats)?;
    Ok(book)
}

fn summarise(book: &Book, out: &Path) {
    let mut counts: std::collections::BTreeMap<Status, usize> = Default::default();
    for cell in book.rows.iter().flat_map(|r| r.cells.iter().flatten()) {
        *counts.entry(cell.status).or_default() += 1;
    }
    let counts: Vec<String> = counts
        .iter()
        .map(|(s, n)| format!("{n} {}", s.name()))
        .collect();
    if !counts.is_empty() {
        println!("Cells: {}.", counts.join(", "));
    }
    summarise_similarity(&book.similarity);
    println!(
        "Results in {}/ (gradebook.csv, report.html, ...).",
        out.display()
    );
}

/// One line per group of alike kernels (the first few), then where to compare them.
fn summarise_similarity(groups: &[similarity::Group]) {
    const SHOWN: usize = 10;
    if groups.is_empty() {
        return;
    }
    let students: std::collections::BTreeSet<&str> = groups
        .iter()
        .flat_map(|g| g.members.iter().map(String::as_str))
        .collect();
    let plural = if groups.len() == 1 { "" } else { "s" };
    println!(
        "{} group{plural} of alike kernels ({} submissions):",
        groups.len(),
        students.len()
    );
    for group in groups.iter().take(SHOWN) {
        println!(
            "  {}: {} (up to {:.0}%)",
            group.exercise,
            group.members.join(", "),
            group.similarity * 100.0
        );
    }
    if groups.len() > SHOWN {
        println!("  and {} more", groups.len() - SHOWN);
    }
    println!("  Compare them side by side in report.html (or read similarity.json).");
}

fn merge(dirs: &[PathBuf], out: &Path, formats: &[Format]) -> anyhow::Result<ExitCode> {
    let course = find_course()?;
    let (settings, missing_shards) = cluster::merge(dirs, out)?;
    let book = finish(&course, out, settings, None, formats)?;
    println!(
        "Merged {} shards: {} submissions x {} exercises.",
        dirs.len(),
        book.rows.len(),
        book.settings.exercises.len()
    );
    summarise(&book, out);
    let missing = book.missing_cells();
    if missing > 0 {
        println!("{missing} cells are not graded in any shard: run those shards again with --resume, then merge again.");
    }
    if !missing_shards.is_empty() {
        eprintln!(
            "No results for shard {} among the folders given: its students are not in this grade book. Run it, then merge again.",
            missing_shards.join(", ")
        );
    }
    Ok(if missing > 0 || !missing_shards.is_empty() {
        ExitCode::FAILURE
    } else {
        ExitCode::SUCCESS
    })
}
