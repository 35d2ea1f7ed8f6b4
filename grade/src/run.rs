//! Grading a class: prepare (see `prepare`), then run the cells on a pool of workers, saving
//! each the moment it finishes. Ctrl-C stops the checks in flight and keeps everything finished.
//!
//! Each of the pool's threads checks its cells in a process per cell (`cell`), or on a worker
//! that checks many (`worker`, one per GPU: the default on a GPU; its module says what isolation
//! that keeps). Workers take the cells one exercise after another, so that what an exercise's
//! checks share (its cases, the reference solution and its time) is made once per worker.

use super::cell::{judge, program_time_limit, CheckCommand, Exit, Naming, Raw};
use super::cluster::ShardRecord;
use super::config::GradingFile;
use super::display::Display;
use super::kernels::{naming_the_file_taken, Lookup};
use super::prepare::{
    limits_of, originals, preflight, select_exercises, stage, CourseChecked, CourseCheckers,
};
use super::queue::Queue;
use super::results::{CellResult, Status, Store};
use super::sandbox;
use super::settings::{ExerciseInfo, Settings};
use super::submissions::{Shard, Submission};
use super::worker::{self, Isolation, Slot};
use anyhow::{bail, Context};
use contract::Backend;
use runner::backend::BackendChoice;
use runner::course::{Course, Exercise};
use std::collections::{BTreeMap, VecDeque};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc;
use std::time::Duration;

/// Set by Ctrl-C: workers stop their checks and take no more.
static INTERRUPTED: AtomicBool = AtomicBool::new(false);

pub(crate) struct Options {
    pub submissions: PathBuf,
    pub out: PathBuf,
    pub seed: Option<u64>,
    pub jobs: Option<usize>,
    pub backend: BackendChoice,
    pub exercises: Option<String>,
    pub resume: bool,
    pub grading: Option<PathBuf>,
    pub shard: Option<Shard>,
    /// A process per cell, or workers that check many; by default workers on a GPU.
    pub isolation: Option<Isolation>,
    /// Grade whole programs (host and Python exercises) too; see `prepare::RUN_PROGRAMS_RISK`.
    pub run_programs: bool,
    /// Grade whole programs without a sandbox where none can be made (`sandbox::NO_SANDBOX_FLAG`).
    pub no_sandbox: bool,
    /// Keep each worker's `RUNNER_TRACE` phase lines in this folder (`runner grade bench
    /// --profile`).
    pub trace_workers: Option<PathBuf>,
}

/// What a run leaves for the outputs: its settings and the cells it was asked for.
pub(crate) struct Graded {
    pub settings: Settings,
    pub submissions: Vec<String>,
    pub interrupted: bool,
    pub graded_now: usize,
    /// Checks that ran at once, and how they were kept apart.
    pub workers: usize,
    pub isolation: Isolation,
}

/// Checks at once when `--jobs` is not given. On a GPU one, so that no kernel's timing is
/// judged against another's. In the simulator three per core: a check spends much of its short
/// life starting up and waiting on the kernel (loading NVRTC, page faults, writing its cache),
/// and on 2 cores 6 jobs graded 200 x 24 in 4.2 minutes where 2 jobs needed 10.8.
pub(crate) fn default_jobs(backend: Backend) -> usize {
    match backend {
        Backend::Gpu => 1,
        _ => 3 * std::thread::available_parallelism().map_or(1, |n| n.get()),
    }
}

/// Workers per GPU when `--jobs` is not given: a check spends most of its time on the CPU
/// (compiles, the CPU reference, the simulator's re-check) and the GPU times kernels for one
/// worker at a time (`checker::gpu_lock`), so a few workers keep one GPU busy. On an H100 with
/// 16 cores, 200 x 24 took 10.5 minutes with one worker, 3.5 with four, 2.9 with eight
/// (scripts/gpu/results/grade-throughput.md); four cores a worker, at most four per GPU.
fn workers_per_gpu(cores: usize, gpus: usize) -> usize {
    (cores / (4 * gpus.max(1))).clamp(1, 4)
}

fn immediate(
    submission: &Submission,
    exercise: &ExerciseInfo,
    status: Status,
    message: String,
    key: String,
) -> CellResult {
    CellResult {
        submission: submission.id.clone(),
        name: submission.name.clone(),
        exercise: exercise.id.clone(),
        title: exercise.title.clone(),
        status,
        points: 0.0,
        max_points: exercise.points,
        message,
        details: String::new(),
        found_at: None,
        cases: Vec::new(),
        seconds: 0.0,
        key,
    }
}

struct Job {
    submission: Submission,
    exercise: ExerciseInfo,
    staged: PathBuf,
    found_at: String,
    /// Taken by another name than the exercise's (see `Lookup::Found`).
    renamed: bool,
    /// Files like the exercise's that were not graded (see `Lookup::Found`).
    passed_over: Vec<String>,
    text: String,
    key: String,
}

/// What a run grades: the grading file, the exercises chosen and the submissions of this shard.
struct Class {
    file: GradingFile,
    /// The grading file's path, kept out of the cells' view.
    grading_path: Option<PathBuf>,
    exercises: Vec<Exercise>,
    submissions: Vec<Submission>,
    /// Entries of the submissions folder that are no submission.
    ignored: Vec<String>,
}

/// How the cells are checked: how many at once, kept apart how, on which GPUs.
struct Pool {
    gpus: Vec<String>,
    isolation: Isolation,
    workers: usize,
    cores: usize,
}

pub(crate) fn grade_class(options: &Options, course: &Course) -> anyhow::Result<Graded> {
    // Ctrl-C, SIGTERM (Slurm's time limit, scancel) and SIGHUP (a closed terminal) all stop the
    // run the same way: checks ended, nothing half done saved, the scratch folder removed when
    // `work` drops, and the run resumable.
    let _ = ctrlc::set_handler(|| INTERRUPTED.store(true, Ordering::SeqCst));
    let class = read_class(options, course)?;
    let store = store_for(options)?;
    let work = super::scratch::make()?;
    let mut command = check_command(options, course, &class, work.path())?;
    let pool = pool_for(options);
    command.programs = program_limits(&class.exercises, command.seed, pool.workers);
    let mut slots = worker_slots(options, &command, &pool, work.path());
    let ahead = ahead_backend(&command, &pool);
    // The class is staged while the course is checked: neither needs the other.
    let (checked, staged) = std::thread::scope(|scope| {
        let staging = scope.spawn(|| stage_class(course, &class, work.path()));
        let checked = check_the_course(
            &mut slots,
            &command,
            pool.workers,
            ahead,
            course,
            &class.exercises,
            work.path(),
        );
        (checked, staging.join())
    });
    let CourseChecked {
        backend,
        device,
        last_checked,
    } = checked?;
    let staged = staged.map_err(|_| anyhow::anyhow!("staging the class stopped unexpectedly"))?;
    command.backend = backend.into();
    for slot in &mut slots {
        slot.set_backend(backend);
    }
    let settings = Settings::new(
        &class.file,
        options.seed,
        backend,
        &device,
        &class.exercises,
    );
    record_the_run(options, &settings, &class)?;
    let jobs = queue_cells(options, &class, staged, &settings, &store)?;
    let graded_now = jobs.len();
    let checkers = checkers(&pool, &command, slots);
    let mut display = Display::new(jobs.len());
    if options.resume && graded_now < class.submissions.len() * class.exercises.len() {
        display.note(&format!(
            "Resuming: {graded_now} cells to grade, the others are done."
        ));
    }
    let pool_run = PoolRun {
        command: &command,
        settings: &settings,
        work: work.path(),
    };
    run_pool(
        jobs,
        checkers,
        last_checked,
        &pool_run,
        &store,
        &mut display,
    )?;
    display.done();
    Ok(Graded {
        settings,
        submissions: class.submissions.into_iter().map(|s| s.id).collect(),
        interrupted: INTERRUPTED.load(Ordering::SeqCst),
        graded_now,
        workers: pool.workers,
        isolation: pool.isolation,
    })
}

/// The grading file, the exercises it (or `--exercises`) names, and this shard's submissions.
fn read_class(options: &Options, course: &Course) -> anyhow::Result<Class> {
    let (file, grading_path) = GradingFile::load(options.grading.as_deref(), &course.root)?;
    let exercises = select_exercises(
        course,
        options.exercises.as_deref().or(file.exercises.as_deref()),
        options.run_programs || file.run_programs,
    )?;
    if !file.sizes.is_empty() && exercises.iter().any(|e| e.is_host()) {
        eprintln!(
            "Note: the grading file's sizes are added to the kernel exercises' cases; a whole \
             program (host or Python exercise) is checked on its own cases."
        );
    }
    let found = super::submissions::discover(&options.submissions)?;
    let mut submissions = found.submissions;
    if let Some(shard) = options.shard {
        submissions = shard.select(submissions);
    }
    Ok(Class {
        file,
        grading_path,
        exercises,
        submissions,
        ignored: found.ignored,
    })
}

/// The grade book's store: empty, or holding an earlier run that `--resume` finishes.
fn store_for(options: &Options) -> anyhow::Result<Store> {
    let store = Store::new(&options.out);
    if !options.resume && !store.is_empty() {
        bail!(
            "{} already holds graded cells; pass --resume to finish that run, or give another --out",
            options.out.display()
        );
    }
    Ok(store)
}

/// How each cell's check is run: this program, the grading file's limits, and a sandbox that
/// hides the grader's own folders (submissions, grade book, grading file, scratch `work`).
fn check_command(
    options: &Options,
    course: &Course,
    class: &Class,
    work: &Path,
) -> anyhow::Result<CheckCommand> {
    let exe = std::env::current_exe().context("cannot find the runner's own program")?;
    let hidden = [&options.submissions, &options.out, work]
        .into_iter()
        .map(|p| p.to_path_buf())
        .chain(class.grading_path.clone())
        .map(|p| std::path::absolute(&p).unwrap_or(p))
        .collect();
    let file = &class.file;
    let sandbox = sandbox::for_class(
        course,
        &class.exercises,
        &exe,
        hidden,
        file.disk_limit_mb,
        options.no_sandbox,
    )?;
    Ok(CheckCommand {
        exe,
        course_root: course.root.clone(),
        backend: options.backend,
        seed: options.seed.or(file.seed),
        sizes: file.sizes.clone(),
        time_limit: Duration::from_secs_f64(file.time_limit_s),
        memory_limit_mb: file.memory_limit_mb,
        programs: Default::default(),
        sandbox,
    })
}

/// The pool the options ask for: workers on the GPUs there are (none when the simulator is
/// asked for), else a process per cell; `--jobs` of them, or as many as the machine suits.
fn pool_for(options: &Options) -> Pool {
    let gpus = if options.backend.may_use_gpu() {
        worker::gpus()
    } else {
        Vec::new()
    };
    let isolation = options.isolation.unwrap_or(if gpus.is_empty() {
        Isolation::Cell
    } else {
        Isolation::Worker
    });
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
    let workers = match (isolation, options.jobs) {
        (_, Some(jobs)) => jobs.max(1),
        (Isolation::Worker, None) if !gpus.is_empty() => {
            gpus.len() * workers_per_gpu(cores, gpus.len())
        }
        // Checks in processes of their own on `auto` count as the simulator's: a GPU's cells
        // are graded by workers (above) unless --isolation cell says otherwise.
        (_, None) => default_jobs(options.backend.resolve(|| false)),
    };
    Pool {
        gpus,
        isolation,
        workers,
        cores,
    }
}

/// The wall time a check of each whole-program exercise may take, `workers` at once.
fn program_limits(
    exercises: &[Exercise],
    seed: Option<u64>,
    workers: usize,
) -> BTreeMap<String, Duration> {
    exercises
        .iter()
        .filter(|e| e.is_host())
        .map(|e| {
            let cases = checks::host_cases_for(&e.id, seed).map_or(1, |c| c.len());
            (e.id.clone(), program_time_limit(e, cases, workers))
        })
        .collect()
}

/// One slot per worker, each on a GPU in turn, where the pool has workers.
fn worker_slots(options: &Options, command: &CheckCommand, pool: &Pool, work: &Path) -> Vec<Slot> {
    if pool.isolation == Isolation::Cell {
        return Vec::new();
    }
    let gpus = &pool.gpus;
    (0..pool.workers)
        .map(|n| {
            let device = (!gpus.is_empty()).then(|| gpus[n % gpus.len()].clone());
            // On a GPU the simulator's re-check shares the cores among the workers.
            let threads = if gpus.is_empty() {
                1
            } else {
                pool.cores / pool.workers
            };
            Slot::new(
                command,
                device,
                threads,
                &work.join(format!("worker{n}")),
                // Where `prepare::stage` puts each submission's files.
                &work.join("stage"),
                options
                    .trace_workers
                    .as_ref()
                    .map(|dir| dir.join(format!("worker{n}.log"))),
            )
        })
        .collect()
}

/// The backend to start workers on before the course's check has said which it is: the one asked
/// for, else the GPU where the pool has GPUs. A worker the check finds on another is ended
/// (`Slot::set_backend`).
fn ahead_backend(command: &CheckCommand, pool: &Pool) -> BackendChoice {
    match command.backend {
        BackendChoice::Auto if !pool.gpus.is_empty() => BackendChoice::Only(Backend::Gpu),
        chosen => chosen,
    }
}

/// The course's own files checked before any student's (`preflight`), `workers` at once: the
/// backend and device the run grades on, and the exercise each worker checked last. On the
/// workers where there are workers, which go on grading with their backend open.
///
/// The first worker checks the first exercise alone; the others are started (on `ahead`) after
/// it, then all of them check the rest side by side. Not sooner: started beside the first, they
/// slowed its start (the first cell came at 3.4 s rather than 1.5 s on two H200s); and not one
/// worker for the whole course, which took 24 checks one after another while seven workers
/// waited (issue 24).
fn check_the_course(
    slots: &mut [Slot],
    command: &CheckCommand,
    workers: usize,
    ahead: BackendChoice,
    course: &Course,
    exercises: &[Exercise],
    work: &Path,
) -> anyhow::Result<CourseChecked> {
    if slots.is_empty() {
        let mut commands = vec![command.clone(); workers.max(1)];
        let on = CourseCheckers {
            checkers: &mut commands,
            run: &|command, exercise, file, scratch| {
                command.run(exercise, file, scratch, &INTERRUPTED)
            },
            after_first: &mut |_| {},
            ready: &|_| {},
        };
        return preflight(on, course, exercises, work, &INTERRUPTED);
    }
    let on = CourseCheckers {
        checkers: slots,
        run: &|slot, exercise, file, _| slot.run(exercise, file, &INTERRUPTED),
        after_first: &mut |slots| {
            for slot in slots.iter_mut().skip(1) {
                // One that cannot start is started again at its first cell, which says why.
                let _ = slot.start_ahead(ahead);
            }
        },
        ready: &|slot| {
            slot.wait_until_ready(&INTERRUPTED);
        },
    };
    preflight(on, course, exercises, work, &INTERRUPTED)
}

/// Saves what the run grades with (its settings, the shard's submissions) in the grade book's
/// folder, and says what it leaves aside.
fn record_the_run(options: &Options, settings: &Settings, class: &Class) -> anyhow::Result<()> {
    if options.resume {
        if let Ok(before) = Settings::load(&options.out) {
            if before.same_grading(settings, "the earlier run").is_err() {
                eprintln!(
                    "Note: the settings changed since the earlier run in {}; cells graded otherwise are graded again.",
                    options.out.display()
                );
            }
        }
    }
    std::fs::create_dir_all(&options.out)
        .with_context(|| format!("cannot make {}", options.out.display()))?;
    settings.save(&options.out)?;
    let ids: Vec<String> = class.submissions.iter().map(|s| s.id.clone()).collect();
    ShardRecord {
        shard: options.shard.map(|s| s.to_string()),
        submissions: ids,
    }
    .save(&options.out)?;
    for ignored in &class.ignored {
        eprintln!(
            "Note: {ignored} in {} is neither a folder nor an archive (.zip, .tar, .tar.gz, .tar.xz, .tar.bz2, .7z); it is not graded.",
            options.submissions.display()
        );
    }
    Ok(())
}

/// Each submission's kernels found and staged (`prepare::stage`), in class order; fewer where
/// Ctrl-C stopped it.
fn stage_class(course: &Course, class: &Class, work: &Path) -> Vec<Staged> {
    let limits = limits_of(&class.file);
    let originals = originals(course, &class.exercises);
    let mut staged = Vec::new();
    for submission in &class.submissions {
        if INTERRUPTED.load(Ordering::SeqCst) {
            break;
        }
        staged.push(stage(
            submission,
            &class.exercises,
            &course.exercises,
            work,
            &limits,
            &originals,
        ));
    }
    staged
}

/// One submission's lookups by exercise, or why the whole submission is refused.
type Staged = Result<BTreeMap<String, Lookup>, String>;

/// Queues each staged cell that needs a check; the others (not done, missing, refused) are
/// saved at once. `Queue` hands them out exercise by exercise.
fn queue_cells(
    options: &Options,
    class: &Class,
    staged: Vec<Staged>,
    settings: &Settings,
    store: &Store,
) -> anyhow::Result<VecDeque<Job>> {
    let mut jobs = VecDeque::new();
    for (submission, staged) in class.submissions.iter().zip(staged) {
        for info in &settings.exercises {
            let lookup = match &staged {
                Ok(lookups) => lookups[&info.id].clone(),
                Err(reason) => Lookup::Refused {
                    reason: reason.clone(),
                },
            };
            let cell = CellOf {
                submission,
                info,
                settings,
                store,
                resume: options.resume,
            };
            match cell.found(lookup) {
                Found::Check(job) => jobs.push_back(*job),
                Found::Kept => {}
                Found::Graded(graded) => cell.save(*graded)?,
            }
        }
    }
    Ok(jobs)
}

/// One cell of the grade book, as staging found it.
struct CellOf<'a> {
    submission: &'a Submission,
    info: &'a ExerciseInfo,
    settings: &'a Settings,
    store: &'a Store,
    resume: bool,
}

/// What becomes of a cell found in staging.
enum Found {
    /// Its kernel is to be checked.
    Check(Box<Job>),
    /// `--resume` keeps the grade it has.
    Kept,
    /// Graded without a check: not done, missing or refused.
    Graded(Box<CellResult>),
}

impl CellOf<'_> {
    fn found(&self, lookup: Lookup) -> Found {
        let (info, settings) = (self.info, self.settings);
        let (status, message, key, found_at) = match lookup {
            Lookup::Found {
                found_at,
                staged,
                text,
                renamed,
                passed_over,
            } => {
                let key = settings.cell_key(info, &text);
                let done = self
                    .store
                    .load(&self.submission.id, &info.id)
                    .is_some_and(|c| kept_on_resume(&c, info, &key, settings));
                if self.resume && done {
                    return Found::Kept;
                }
                return Found::Check(Box::new(Job {
                    submission: self.submission.clone(),
                    exercise: info.clone(),
                    staged,
                    found_at,
                    renamed,
                    passed_over,
                    text,
                    key,
                }));
            }
            Lookup::Untouched { found_at, text } => (
                Status::NotDone,
                format!("Not done: {found_at} is the exercise's file as handed out, unchanged."),
                settings.cell_key(info, &text),
                Some(found_at),
            ),
            Lookup::Missing { expected, instead } => (
                Status::Missing,
                match instead {
                    None => {
                        format!("No kernel for this exercise: the submission has no {expected}.")
                    }
                    Some(contents) => format!(
                        "No kernel for this exercise: the submission has no {expected}; it {}. \
                         Hand in the exercises' files, named as in the course.",
                        contents.describe()
                    ),
                },
                settings.cell_key(info, ""),
                None,
            ),
            Lookup::Refused { reason } => (
                Status::Refused,
                format!("Refused: {reason}."),
                settings.cell_key(info, &reason),
                None,
            ),
        };
        let mut cell = immediate(self.submission, info, status, message, key);
        cell.found_at = found_at;
        Found::Graded(Box::new(cell))
    }

    /// Saves a cell graded without a check, unless `--resume` finds it saved as it is.
    fn save(&self, cell: CellResult) -> anyhow::Result<()> {
        let saved = self
            .store
            .load(&self.submission.id, &self.info.id)
            .is_some_and(|c| c == cell);
        if !(self.resume && saved) {
            self.store.save(&cell, None)?;
        }
        Ok(())
    }
}

/// What checks the cells, one per thread of the pool: the workers' slots, or a process each.
fn checkers(pool: &Pool, command: &CheckCommand, slots: Vec<Slot>) -> Vec<Checker> {
    match pool.isolation {
        Isolation::Cell => (0..pool.workers)
            .map(|_| Checker::Process(command.clone()))
            .collect(),
        Isolation::Worker => slots.into_iter().map(Checker::Worker).collect(),
    }
}

/// Whether `--resume` keeps a saved cell rather than grading it again: graded for good, for
/// this kernel under these settings (`key`, which hashes the hidden seed too, so that no one
/// who lacks it can make a key that matches), and worth what its status earns. A cell that
/// fails any of these, whoever wrote it, is graded again.
fn kept_on_resume(cell: &CellResult, info: &ExerciseInfo, key: &str, settings: &Settings) -> bool {
    let points = cell
        .status
        .points(info.points, settings.target_missed_credit);
    cell.key == key
        && cell.status.is_final()
        && cell.exercise == info.id
        && cell.max_points == info.points
        && cell.points == points
}

/// What one thread of the pool checks its cells with.
enum Checker {
    Process(CheckCommand),
    Worker(Slot),
}

impl Checker {
    fn run(&mut self, exercise: &str, kernel: &Path, scratch: &Path) -> std::io::Result<Raw> {
        match self {
            Checker::Process(command) => command.run(exercise, kernel, scratch, &INTERRUPTED),
            Checker::Worker(slot) => slot.run(exercise, kernel, &INTERRUPTED),
        }
    }
}

/// What every thread of the pool checks against.
struct PoolRun<'a> {
    command: &'a CheckCommand,
    settings: &'a Settings,
    /// The run's scratch folder: each cell's check has a folder of its own under it.
    work: &'a Path,
}

/// Checks the queued cells on the pool's threads, saving and showing each as it finishes.
fn run_pool(
    jobs: VecDeque<Job>,
    checkers: Vec<Checker>,
    last_checked: Vec<Option<String>>,
    run: &PoolRun,
    store: &Store,
    display: &mut Display,
) -> anyhow::Result<()> {
    let queue = Queue::new(jobs.into_iter().map(|job| (job.exercise.id.clone(), job)));
    let (sender, receiver) = mpsc::channel::<(CellResult, String)>();
    std::thread::scope(|scope| -> anyhow::Result<()> {
        for (mut checker, last) in checkers
            .into_iter()
            .zip(last_checked.into_iter().chain(std::iter::repeat(None)))
        {
            let sender = sender.clone();
            let queue = &queue;
            // A worker is on the exercise it checked last for the course: it keeps that
            // exercise's cases and reference timing.
            let mut was_on = last.filter(|_| matches!(checker, Checker::Worker(_)));
            if let Some(exercise) = &was_on {
                queue.join(exercise);
            }
            scope.spawn(move || loop {
                if INTERRUPTED.load(Ordering::SeqCst) {
                    return;
                }
                let Some((number, job)) = queue.next(was_on.as_deref()) else {
                    return;
                };
                was_on = Some(job.exercise.id.clone());
                let Some(cell) = check_cell(&mut checker, number, &job, run) else {
                    return;
                };
                if sender.send((cell, job.text)).is_err() {
                    return;
                }
            });
        }
        drop(sender);
        for (cell, text) in receiver {
            store.save(&cell, Some(&text))?;
            display.finished(&cell);
        }
        Ok(())
    })
}

/// Checks job `number` and grades it; None where Ctrl-C stopped the check.
fn check_cell(
    checker: &mut Checker,
    number: usize,
    job: &Job,
    run: &PoolRun,
) -> Option<CellResult> {
    let scratch = run.work.join("scratch").join(number.to_string());
    let cell = match checker.run(&job.exercise.id, &job.staged, &scratch) {
        Ok(raw) if raw.exit == Exit::Cancelled => return None,
        Ok(raw) => graded(job, &raw, run),
        Err(e) => {
            let mut cell = immediate(
                &job.submission,
                &job.exercise,
                Status::Error,
                format!("The grader could not start the check: {e}"),
                job.key.clone(),
            );
            cell.found_at = Some(job.found_at.clone());
            cell
        }
    };
    let _ = std::fs::remove_dir_all(&scratch);
    Some(cell)
}

/// The grade book's cell for a finished check, its messages naming the submission's own file.
fn graded(job: &Job, raw: &Raw, run: &PoolRun) -> CellResult {
    let root = staging_root(&job.staged, &job.exercise.file);
    let naming = Naming {
        staged_file: &job.staged,
        staging_root: &root,
        found_at: &job.found_at,
    };
    let (limit, memory_limit_mb) = run.command.limits(&job.exercise.id);
    let judged = judge(raw, &naming, limit, memory_limit_mb);
    CellResult {
        submission: job.submission.id.clone(),
        name: job.submission.name.clone(),
        exercise: job.exercise.id.clone(),
        title: job.exercise.title.clone(),
        status: judged.status,
        points: judged
            .status
            .points(job.exercise.points, run.settings.target_missed_credit),
        max_points: job.exercise.points,
        message: naming_the_file_taken(
            judged.message,
            job.renamed,
            &job.found_at,
            &job.exercise.file,
            &job.passed_over,
        ),
        details: judged.details,
        found_at: Some(job.found_at.clone()),
        cases: judged.cases,
        seconds: (raw.seconds * 100.0).round() / 100.0,
        key: job.key.clone(),
    }
}

/// The staging folder of a submission: the staged kernel's path less the exercise's file path.
fn staging_root(staged: &Path, exercise_file: &str) -> PathBuf {
    let mut root = staged.to_path_buf();
    for _ in Path::new(exercise_file).components() {
        root.pop();
    }
    root
}

#[cfg(test)]
mod tests {
    use super::workers_per_gpu;
    use super::*;

    #[test]
    fn resume_keeps_only_a_cell_that_its_key_and_status_vouch_for() {
        let info = ExerciseInfo {
            id: "02".into(),
            title: "Vector add".into(),
            points: 10,
            file: "02_vector_add/vector_add.cu".into(),
        };
        let settings = Settings::new(&GradingFile::default(), Some(7), Backend::Sim, "sim", &[]);
        let key = settings.cell_key(&info, "__global__ void add() {}");
        let submission = Submission {
            id: "ann".into(),
            name: "ann".into(),
            path: "ann".into(),
            kind: super::super::submissions::Kind::Folder,
        };
        let mut cell = immediate(
            &submission,
            &info,
            Status::Failed,
            "wrong".into(),
            key.clone(),
        );
        assert!(kept_on_resume(&cell, &info, &key, &settings));
        // Full points for a failed cell: not what the grader wrote.
        cell.points = 10.0;
        assert!(!kept_on_resume(&cell, &info, &key, &settings));
        cell.status = Status::Passed;
        assert!(kept_on_resume(&cell, &info, &key, &settings));
        // A key made without the seed.
        let other = Settings::new(&GradingFile::default(), None, Backend::Sim, "sim", &[]);
        let guessed = other.cell_key(&info, "__global__ void add() {}");
        cell.key = guessed;
        assert!(!kept_on_resume(&cell, &info, &key, &settings));
    }

    /// A stand-in worker: a line `start` in `log` as it starts and `request` for each request,
    /// answered with an error (so the course's check fails once every exercise was tried).
    fn logging_worker(dir: &Path, log: &Path) -> PathBuf {
        let ready = serde_json::to_string(&contract::worker::Message::Ready {
            protocol: contract::worker::PROTOCOL,
        })
        .unwrap();
        let reply = serde_json::to_string(&contract::worker::Message::Reply(
            contract::worker::Reply::error("no check here".into()),
        ))
        .unwrap();
        let log = log.display();
        let script = format!(
            "#!/bin/sh\n\
             echo start >>'{log}'\n\
             fd=$(printf '%s' \"$7\" | sed -n 's/.*\"report_fd\":\\([0-9]*\\).*/\\1/p')\n\
             answer() {{ printf '%s\\n' \"$1\" >/proc/self/fd/$fd; }}\n\
             answer '{ready}'\n\
             while read -r request; do echo request >>'{log}'; answer '{reply}'; done\n"
        );
        let path = dir.join("logging-worker");
        std::fs::write(&path, script).unwrap();
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o755)).unwrap();
        path
    }

    #[test]
    fn the_other_workers_start_once_the_first_has_checked_an_exercise_of_the_course() {
        let dir = tempfile::tempdir().unwrap();
        let log = dir.path().join("log");
        let root = Path::new(env!("CARGO_MANIFEST_DIR")).parent().unwrap();
        let course = Course::load(root).unwrap();
        let exercises = select_exercises(&course, Some("01,02"), false).unwrap();
        let command = CheckCommand {
            exe: logging_worker(dir.path(), &log),
            course_root: root.into(),
            backend: BackendChoice::Auto,
            seed: None,
            sizes: Vec::new(),
            time_limit: Duration::from_secs(600),
            memory_limit_mb: 1,
            programs: BTreeMap::new(),
            sandbox: None,
        };
        let mut slots: Vec<Slot> = (0..3)
            .map(|n| {
                let scratch = dir.path().join(format!("worker{n}"));
                Slot::new(&command, None, 1, &scratch, &dir.path().join("stage"), None)
            })
            .collect();
        let ahead = BackendChoice::Only(Backend::Sim);
        let checked = check_the_course(
            &mut slots,
            &command,
            3,
            ahead,
            &course,
            &exercises,
            dir.path(),
        );
        assert!(checked.is_err(), "every exercise got an error");
        let lines = || -> Vec<String> {
            let text = std::fs::read_to_string(&log).unwrap_or_default();
            text.lines().map(str::to_string).collect()
        };
        // The others write their start when they get to it: no bound on how soon.
        while lines().iter().filter(|l| *l == "start").count() < 3 {
            std::thread::sleep(Duration::from_millis(10));
        }
        let lines = lines();
        assert_eq!(lines[..2], ["start", "request"], "{lines:?}");
    }

    #[test]
    fn a_gpu_gets_a_worker_for_four_cores_from_one_to_four() {
        assert_eq!(workers_per_gpu(16, 1), 4);
        assert_eq!(workers_per_gpu(32, 1), 4, "at most four on one GPU");
        assert_eq!(workers_per_gpu(32, 2), 4);
        assert_eq!(workers_per_gpu(16, 2), 2);
        assert_eq!(workers_per_gpu(2, 1), 1, "at least one");
    }
}
