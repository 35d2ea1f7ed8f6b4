//! One check, end to end: compile the student's file, run every case on the backend, compare
//! with the CPU reference, gather figures, and give a verdict.

use crate::backend::{Backend, ModuleId};
use crate::compile::{CompileError, Compiler, Image, Source, Target};
use crate::course::{Course, Exercise};
use crate::execute::Prepared;
use crate::targets;
use crate::trace;
use crate::tuned::Retiling;
use contract::{CheckReport, CompileFigures, SimFigures, Verdict, SCHEMA_VERSION};

mod everywhere;
mod follow;
pub mod gpu_lock;
pub mod provenance;
mod reference;
mod run;
mod timing;
pub mod verdict;
use anyhow::Context;
use checks::{Case, CaseOptions};
pub use everywhere::{check_everywhere, finish_unseen};
use std::collections::BTreeMap;
use std::path::Path;
use std::sync::{Arc, OnceLock};
use std::time::{Duration, Instant};
pub use verdict::{add_simulator_cause, add_simulator_findings};
use verdict::{describe_backend_error, failure_summary, findings, missing_kernel_advice, Stages};

/// Checks exercises on one backend: compile, run the cases against the CPU reference, judge,
/// report. One per process or worker, reused from check to check.
pub struct Checker<'a> {
    /// The course the exercises and their reference solutions come from.
    pub course: &'a Course,
    /// Compiles the student's file and the reference solution.
    pub compiler: &'a Compiler,
    /// Where the cases run: a GPU or the simulator.
    pub backend: &'a mut dyn Backend,
    /// The seed of the random cases (an instructor's hidden cases); None: the exercise's own.
    pub seed: Option<u64>,
    /// Problem sizes to test beyond the exercise's own.
    pub extra_sizes: Vec<usize>,
    /// Time the kernel and the reference solution (on a GPU only).
    pub timing: bool,
    /// Where to write every case's outputs as raw little-endian files, to compare backends.
    pub save_outputs: Option<std::path::PathBuf>,
    /// Launch the cases as the file's `tuned_*` declarations ask (tuned references only: an
    /// exercise's launch is part of what the student is taught).
    pub retile: bool,
    /// Cases made ahead (while the GPU was being opened, or by the last check in `watch`'s
    /// worker), used only when made for this exercise with the options the check needs. The
    /// check leaves here what it made or reused, for the next check to reuse.
    pub premade: Option<Premade>,
    /// The exercise's original file: a failing file that is still the original is "not done".
    pub original: Option<String>,
    /// Compile for this target rather than the backend's own: on a GPU checked again in the
    /// simulator, the simulator's PTX, so one compile serves both and the GPU runs the very code
    /// the simulator checked (see `checker::everywhere`).
    pub compile_as: Option<Target>,
}

/// An exercise's cases made with some options, their CPU reference's outputs as far as they have
/// been computed, and the reference solution as loaded on this backend: what a check of the same
/// exercise with the same options may take from the last one rather than make again. Cases
/// depend on nothing but the exercise and the options, and outputs on nothing but the case.
#[derive(Clone)]
pub struct Premade {
    /// The exercise's id.
    pub exercise: String,
    /// The options the cases were made with.
    pub options: CaseOptions,
    /// The cases, shared with the check that made them.
    pub cases: Arc<Vec<Case>>,
    /// Each case's CPU reference outputs, with the time the reference took to compute them.
    expected: KnownOutputs,
    /// The reference solution's text and its module, loaded on the backend that checks.
    reference: Option<(String, ModuleId)>,
    /// The reference solution's time on the timing case, for the text, seed and extra sizes it
    /// was timed with: timed once per exercise where checks follow one another in one process
    /// (the workers of `watch` and `grade`), not once per check.
    reference_time: Option<(ReferenceKey, Option<Duration>)>,
}

/// What the reference solution's time depends on: its text and the options its timing case is
/// made with (never the student's declared values: it is timed with its own).
type ReferenceKey = (String, Option<u64>, Vec<usize>);

type Expected = (Arc<Vec<(String, checks::HostData)>>, Duration);
type KnownOutputs = Arc<Vec<OnceLock<Expected>>>;

impl Premade {
    /// Cases of `exercise` made with `options`, with nothing computed or loaded for them yet.
    pub fn new(exercise: &str, options: CaseOptions, cases: Vec<Case>) -> Premade {
        Premade {
            exercise: exercise.to_string(),
            options,
            expected: Arc::new(cases.iter().map(|_| OnceLock::new()).collect()),
            cases: Arc::new(cases),
            reference: None,
            reference_time: None,
        }
    }

    /// Forgets the modules loaded on a backend that is being replaced; the cases, their outputs
    /// and the reference's time stay.
    pub fn forget_modules(&mut self) {
        self.reference = None;
    }

    /// Makes the cases of `exercise` with `options`.
    pub fn make(exercise: &str, options: CaseOptions) -> anyhow::Result<Premade> {
        let cases = checks::cases_for(exercise, &options)
            .with_context(|| format!("exercise {exercise} has no check in checks/ yet"))?;
        Ok(Premade::new(exercise, options, cases))
    }
}

/// The kernel file to check, read as the checks read it.
pub fn read_kernel(course: &Course, exercise: &Exercise, file: &Path) -> anyhow::Result<String> {
    runner::kernel_file::read(file).with_context(|| {
        // `reset` helps with the exercise's own file only, not a file given with --file.
        let own = file == course.exercise_path(exercise);
        let remedy = if own {
            format!(
                "; `runner reset {}` restores the exercise's original file",
                exercise.id
            )
        } else {
            String::new()
        };
        format!("cannot read {}{remedy}", course.display_name(file))
    })
}

/// A file compiled and loaded with every entry point, or the report that ends the check.
enum Loaded {
    Ready(ModuleId, Box<CheckReport>),
    /// The check ends here: what stopped it, and the report that says so.
    Stopped(Stages, Box<CheckReport>),
}

/// What running the cases gave: the worst verdict, the case the figures come from, and the
/// timing case kept on the device.
struct Ran<'c> {
    module: ModuleId,
    verdict: Verdict,
    /// The case the simulator's figures come from, and its place among the cases.
    figures_case: Option<(usize, &'c Case)>,
    timing_case: Option<(&'c Case, (Prepared, timing::Measured))>,
    /// The threads per block of the cases' launch (the first case's), for the launch's facts.
    block: Option<[u32; 3]>,
}

/// The options a check makes its cases with.
pub fn case_options(
    seed: Option<u64>,
    extra_sizes: &[usize],
    timing: bool,
    declared: BTreeMap<String, i64>,
) -> CaseOptions {
    let defaults = CaseOptions::default();
    CaseOptions {
        seed: seed.unwrap_or(defaults.seed),
        extra_sizes: extra_sizes.to_vec(),
        timing,
        declared,
        ..defaults
    }
}

/// The largest shared PTX a GPU's driver is given to compile in this process: the course's
/// kernels make at most a few hundred KB.
const MAX_PTX_FOR_THE_DRIVER: usize = 4 << 20;

/// The target to compile for: the backend's wish, or PTX for the newest architecture NVRTC
/// knows when it cannot make machine code for this GPU.
pub fn target_for(backend: &dyn Backend, compiler: &Compiler) -> Target {
    match backend.target() {
        Target::Cubin { arch } => {
            let supported = compiler.nvrtc.supported_architectures();
            if supported.contains(&(arch as i32)) {
                Target::Cubin { arch }
            } else {
                let best = supported
                    .iter()
                    .copied()
                    .filter(|&a| a as u32 <= arch)
                    .max()
                    .unwrap_or(arch as i32);
                Target::Ptx { arch: best as u32 }
            }
        }
        ptx => ptx,
    }
}

/// Names of the `__global__` functions a source defines, to tell a student what their file
/// offers when the expected entry point is missing.
pub fn defined_kernels(source: &str) -> Vec<String> {
    let mut names = Vec::new();
    for (at, _) in source.match_indices("__global__") {
        let rest = &source[at..];
        let Some(paren) = rest.find('(') else {
            continue;
        };
        let name = rest[..paren].split_whitespace().last().unwrap_or("");
        if !name.is_empty() {
            names.push(name.to_string());
        }
    }
    names
}

impl Checker<'_> {
    fn case_options(&self, declared: BTreeMap<String, i64>) -> CaseOptions {
        let timing = self.timing && self.backend.kind() == contract::Backend::Gpu;
        case_options(self.seed, &self.extra_sizes, timing, declared)
    }

    /// Reads the values the exercise asks the student to declare; names the first one missing.
    fn declared_values(
        &mut self,
        module: ModuleId,
        exercise: &Exercise,
    ) -> Result<BTreeMap<String, i64>, String> {
        let mut values = BTreeMap::new();
        for name in &exercise.declared {
            let value = self.backend.read_declared_int(module, name).ok_or_else(|| {
                format!("The exercise reads `{name}` from your file, and it is not there: declare it as `extern \"C\" __constant__ int {name} = ...;`.")
            })?;
            values.insert(name.clone(), value as i64);
        }
        Ok(values)
    }

    fn empty_report(
        &self,
        exercise: &Exercise,
        file: &Path,
        verdict: Verdict,
        summary: String,
    ) -> CheckReport {
        CheckReport {
            schema_version: SCHEMA_VERSION,
            exercise: exercise.id.clone(),
            title: exercise.title.clone(),
            file: self.course.display_name(file),
            backend: self.backend.kind(),
            device: self.backend.describe(),
            verdict,
            summary,
            compile: None,
            cases: Vec::new(),
            gpu: None,
            sim: None,
            reference_sim: None,
            targets: Vec::new(),
            diagnostics: Vec::new(),
            printf: String::new(),
            progress: None,
        }
    }

    fn compile(&self, file: &Path, text: &str) -> Result<Image, CompileError> {
        let name = self.course.display_name(file);
        let source = Source { name: &name, text };
        let own = target_for(&*self.backend, self.compiler);
        let Some(shared) = &self.compile_as else {
            return self.compiler.compile(&source, &own);
        };
        let image = self.compiler.compile(&source, shared)?;
        if image.bytes.len() <= MAX_PTX_FOR_THE_DRIVER {
            return Ok(image);
        }
        // The driver turns PTX into machine code inside this process, with no limit of its own:
        // PTX this large (a loop unrolled without end?) is compiled for the GPU by NVRTC in its
        // child under the compile's limits instead.
        self.compiler.compile(&source, &own)
    }

    /// Checks `file` as exercise `exercise`: load, make the cases, run them, conclude.
    pub fn check(&mut self, exercise: &Exercise, file: &Path) -> anyhow::Result<CheckReport> {
        let text = read_kernel(self.course, exercise, file)?;
        self.check_source(exercise, file, &text)
    }

    /// Checks `text`, read from `file`, as exercise `exercise`.
    pub fn check_source(
        &mut self,
        exercise: &Exercise,
        file: &Path,
        text: &str,
    ) -> anyhow::Result<CheckReport> {
        let (mut stages, mut report) = self.check_text(exercise, file, text)?;
        stages.untouched |= self.is_untouched(text);
        let verdict = verdict::conclude(&stages);
        if verdict != report.verdict {
            report.verdict = verdict;
            report.summary = failure_summary(&report, exercise);
        }
        Ok(report)
    }

    /// Runs the check's stages up to the first that stops it: what each found, and the report
    /// with the verdict they give.
    fn check_text(
        &mut self,
        exercise: &Exercise,
        file: &Path,
        text: &str,
    ) -> anyhow::Result<(Stages, CheckReport)> {
        let (module, mut report) = match self.load(exercise, file, text)? {
            Loaded::Ready(module, report) => (module, *report),
            Loaded::Stopped(stages, report) => return Ok((stages, *report)),
        };
        let declared = match self.declared_values(module, exercise) {
            Ok(values) => values,
            Err(problem) => {
                let stages = Stages {
                    declaration_missing: true,
                    ..Stages::default()
                };
                report.verdict = verdict::conclude(&stages);
                report.summary = problem;
                return Ok((stages, report));
            }
        };
        let (cases, expected) = self.cases(module, exercise, declared)?;
        let ran = self.run_cases(
            module,
            exercise,
            &cases,
            expected.as_ref().map(|e| e.as_slice()),
            &mut report,
        );
        let stages = self.conclude(exercise, text, &mut report, ran)?;
        Ok((stages, report))
    }

    /// Compiles the file and loads it; a compile error or a missing entry point ends the check.
    fn load(&mut self, exercise: &Exercise, file: &Path, text: &str) -> anyhow::Result<Loaded> {
        let started = Instant::now();
        let image = match self.compile(file, text) {
            Ok(image) => image,
            Err(CompileError::Rejected(errors)) => {
                let stages = Stages {
                    compile_failed: true,
                    ..Stages::default()
                };
                let mut report = self.empty_report(
                    exercise,
                    file,
                    verdict::conclude(&stages),
                    "Fix the first error above, then check again.".into(),
                );
                report.compile = Some(CompileFigures {
                    from_cache: false,
                    milliseconds: 0.0,
                    errors: Some(errors),
                });
                return Ok(Loaded::Stopped(stages, Box::new(report)));
            }
            Err(CompileError::Nvrtc(e)) => return Err(e.into()),
        };
        let compile = CompileFigures {
            from_cache: image.from_cache,
            milliseconds: started.elapsed().as_secs_f64() * 1000.0,
            errors: None,
        };
        trace::mark(format!("compiled (from cache: {})", image.from_cache));
        let module = self.backend.load(&image).map_err(|e| anyhow::anyhow!(e))?;
        trace::mark("module loaded");
        let mut report = self.empty_report(exercise, file, Verdict::Passed, String::new());
        report.compile = Some(compile);
        if let Some(missing) = exercise
            .entries
            .iter()
            .find(|e| !self.backend.has_kernel(module, e))
        {
            let stages = Stages {
                kernel_missing: true,
                ..Stages::default()
            };
            report.verdict = verdict::conclude(&stages);
            report.summary = missing_kernel_advice(missing, &report.file, text);
            return Ok(Loaded::Stopped(stages, Box::new(report)));
        }
        Ok(Loaded::Ready(module, Box::new(report)))
    }

    /// The exercise's cases, made here or taken from those made ahead, with their CPU
    /// reference's outputs where known (not for retiled cases).
    fn cases(
        &mut self,
        module: ModuleId,
        exercise: &Exercise,
        declared: BTreeMap<String, i64>,
    ) -> anyhow::Result<(Arc<Vec<Case>>, Option<KnownOutputs>)> {
        let options = self.case_options(declared);
        let premade = match self.premade.take() {
            Some(premade) if premade.exercise == exercise.id && premade.options == options => {
                premade
            }
            // The reference solution stays loaded on this backend whatever the cases.
            other => {
                let mut premade = Premade::make(&exercise.id, options)?;
                if let Some(other) = other.filter(|o| o.exercise == exercise.id) {
                    premade.reference = other.reference;
                    premade.reference_time = other.reference_time;
                }
                premade
            }
        };
        let mut cases = premade.cases.clone();
        let mut expected = Some(premade.expected.clone());
        self.premade = Some(premade);
        if self.retile {
            if let Some(retiling) = Retiling::read(self.backend, module) {
                cases = Arc::new(cases.iter().map(|case| retiling.apply(case)).collect());
                expected = None;
            }
        }
        trace::mark(format!("{} cases made or reused", cases.len()));
        Ok((cases, expected))
    }

    /// Runs the cases until one fails, gathering results, findings and the simulator's figures.
    fn run_cases<'c>(
        &mut self,
        module: ModuleId,
        exercise: &Exercise,
        cases: &'c [Case],
        expected: Option<&[OnceLock<Expected>]>,
        report: &mut CheckReport,
    ) -> Ran<'c> {
        let time_limit = Duration::from_millis(exercise.time_limit_ms);
        let mut ran = Ran {
            module,
            verdict: Verdict::Passed,
            figures_case: None,
            timing_case: None,
            block: cases.first().map(|c| c.launch.block),
        };
        let on_gpu = self.backend.kind() == contract::Backend::Gpu;
        for (index, case) in cases
            .iter()
            .enumerate()
            .filter(|(_, c)| on_gpu || !c.for_timing)
        {
            let known = expected.and_then(|e| e.get(index));
            let outcome = self.run_one(module, case, known, exercise, time_limit);
            trace::mark(format!("case run and compared: {}", case.name));
            let mut case_verdict = outcome.result.verdict;
            if let Some(sim_report) = &outcome.sim {
                for finding in findings(case, &sim_report.diagnostics) {
                    case_verdict = verdict::worse(case_verdict, finding.verdict);
                    if !report.diagnostics.iter().any(|d| d.text == finding.text) {
                        report.diagnostics.push(finding);
                    }
                }
                report.add_printf(&sim_report.printf);
            }
            ran.verdict = verdict::worse(ran.verdict, case_verdict);
            let failed = ran.verdict != Verdict::Passed;
            let mut result = outcome.result;
            if let Some(mismatch) = result.mismatch.as_mut() {
                let found = self.trace_origins(module, exercise, (index, case), mismatch);
                add_findings(report, found);
                drop_unfounded_guess(mismatch, case_verdict);
            }
            result.verdict = case_verdict;
            result.passed = case_verdict == Verdict::Passed;
            report.cases.push(result);
            match outcome.kept {
                Some(kept) if case.for_timing && !failed => ran.timing_case = Some((case, kept)),
                Some((prepared, _)) => prepared.free(self.backend),
                None => {}
            }
            if let Some(sim_report) = outcome.sim {
                report.sim = Some(SimFigures::of(&case.name, sim_report));
                ran.figures_case = Some((index, case));
            }
            // After a failure the rest says nothing new, and after a GPU fault the context is gone;
            // but a wrong output the trace could not explain may show its cause in a later case.
            if failed {
                let unexplained = case_verdict == Verdict::WrongOutput
                    && (report.cases.last())
                        .and_then(|c| c.mismatch.as_ref())
                        .is_some_and(|m| !follow::parted(m));
                if unexplained {
                    self.follow_later_cases(module, exercise, (cases, index), expected, report);
                }
                break;
            }
        }
        report
            .diagnostics
            .sort_by_key(|d| verdict::severity(d.verdict));
        ran
    }

    /// What the cases gave, then the figures and the targets, and the verdict they come to.
    fn conclude(
        &mut self,
        exercise: &Exercise,
        text: &str,
        report: &mut CheckReport,
        ran: Ran,
    ) -> anyhow::Result<Stages> {
        let mut stages = Stages {
            cases: ran.verdict,
            ..Stages::default()
        };
        if ran.verdict != Verdict::Passed {
            // Without the original to compare with, a kernel that leaves its output as it was is
            // taken for the untouched exercise.
            stages.untouched = self.original.is_none()
                && text.contains("TODO")
                && report.cases.iter().any(|c| {
                    c.mismatch
                        .as_ref()
                        .is_some_and(|m| m.unchanged || m.never_written == m.len)
                });
            report.verdict = verdict::conclude(&stages);
            report.summary = failure_summary(report, exercise);
            return Ok(stages);
        }
        let time_limit = Duration::from_millis(exercise.time_limit_ms);
        if let Some((case, (prepared, measured))) = ran.timing_case {
            let figures =
                self.gpu_figures(ran.module, exercise, case, &prepared, measured, time_limit);
            prepared.free(self.backend);
            report.gpu = figures?;
        }
        let reference = match (ran.figures_case, &report.sim) {
            (Some((index, case)), Some(mine)) => {
                self.reference_figures(exercise, (index, case), text, mine)?
            }
            _ => None,
        };
        report.targets = targets::evaluate(
            &exercise.targets,
            report.sim.as_ref(),
            reference.as_ref(),
            report.gpu.as_ref(),
        );
        let facts = ran
            .block
            .and_then(|b| targets::launch_facts(&exercise.targets, b));
        report.targets.extend(facts);
        report.targets.sort_by_key(|t| !t.decides);
        report.reference_sim = reference;
        stages.technique_missed = report.targets.iter().any(|t| t.missed());
        report.verdict = verdict::conclude(&stages);
        report.summary = match report.targets.iter().find(|t| t.missed()) {
            Some(missed) => format!(
                "Every case is right, but {}. That is the lesson of this exercise.",
                missed.explanation
            ),
            None => "Every case matches the CPU reference.".into(),
        };
        Ok(stages)
    }

    /// Whether `text` is the exercise's original file, give or take blank space.
    fn is_untouched(&self, text: &str) -> bool {
        let squeeze = |t: &str| t.split_whitespace().collect::<Vec<_>>().join(" ");
        self.original
            .as_deref()
            .is_some_and(|original| squeeze(original) == squeeze(text))
    }
}

/// "The kernel wrote nothing: is the TODO done?" asks about a kernel with no store; where the
/// simulator found what kept the stores from running (threads that left before a barrier, a
/// fault), that finding is the cause, and the question would send the student to the wrong place.
fn drop_unfounded_guess(mismatch: &mut contract::Mismatch, case_verdict: Verdict) {
    let explained = !matches!(case_verdict, Verdict::WrongOutput | Verdict::Passed);
    if explained && mismatch.never_written == mismatch.len {
        mismatch.likely_cause = None;
    }
}

/// Adds findings the trace of a wrong case made, each once.
fn add_findings(report: &mut CheckReport, found: Vec<contract::Finding>) {
    for finding in found {
        if !report.diagnostics.iter().any(|d| d.text == finding.text) {
            report.diagnostics.push(finding);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::backend::sim::SimBackend;

    #[test]
    fn a_kernel_whose_threads_left_before_the_barrier_is_not_asked_whether_its_todo_is_done() {
        let nothing_written = || contract::Mismatch {
            buffer: "out".into(),
            len: 1,
            wrong: 1,
            never_written: 1,
            first_wrong: Vec::new(),
            likely_cause: Some("the kernel wrote nothing to `out`: is the TODO done?".into()),
            unchanged: false,
        };
        let mut explained = nothing_written();
        drop_unfounded_guess(&mut explained, Verdict::BarrierDivergence);
        assert_eq!(explained.likely_cause, None);
        let mut unexplained = nothing_written();
        drop_unfounded_guess(&mut unexplained, Verdict::WrongOutput);
        assert!(unexplained.likely_cause.is_some());
    }
    use crate::compile::cache::Cache;
    use crate::compile::nvrtc::Nvrtc;

    /// Checks the solution of 02 in the simulator with `premade` cases.
    fn check_with(premade: Option<Premade>) -> CheckReport {
        let root = Path::new(env!("CARGO_MANIFEST_DIR")).parent().unwrap();
        let course = Course::find(root).unwrap();
        let compiler = Compiler {
            nvrtc: Nvrtc::find(Some(root)).expect("NVRTC: run scripts/install-nvrtc"),
            cache: Cache { dir: None },
            headers: None,
        };
        let mut backend = SimBackend::new();
        let exercise = course.exercise("02").unwrap().clone();
        let mut checker = Checker {
            course: &course,
            compiler: &compiler,
            backend: &mut backend,
            seed: None,
            extra_sizes: Vec::new(),
            timing: true,
            save_outputs: None,
            retile: false,
            premade,
            original: None,
            compile_as: None,
        };
        checker
            .check(&exercise, &course.solution_path(&exercise))
            .unwrap()
    }

    #[test]
    fn cases_made_ahead_are_used_only_when_made_with_the_checks_options() {
        let all = check_with(None).cases.len();
        assert!(all > 1);
        // The simulator checks without a timing case: cases made for a GPU are not its cases.
        let for_gpu = case_options(None, &[], true, BTreeMap::new());
        let mut cases = checks::cases_for("02", &for_gpu).unwrap();
        cases.truncate(1);
        let made =
            |options: &CaseOptions, id: &str| Premade::new(id, options.clone(), cases.clone());
        assert_eq!(check_with(Some(made(&for_gpu, "02"))).cases.len(), all);
        let for_sim = case_options(None, &[], false, BTreeMap::new());
        assert_eq!(check_with(Some(made(&for_sim, "02"))).cases.len(), 1);
        // Cases are made for one exercise: another's are not used.
        assert_eq!(check_with(Some(made(&for_sim, "01"))).cases.len(), all);
    }
}
