//! `runner bench`: the course's reference solutions timed on the GPU, each as a share of the
//! device's own ceilings measured in the same run (device-to-device copy bandwidth, and cuBLAS
//! SGEMM for matrix multiply), beside the CPU reference on one thread and on all cores. With
//! `--model`, each kernel also runs in the simulator on the same case, and its modelled time
//! (sim's `GpuModel`) is set beside the measured one: the model's validation.

use crate::backend::cuda::CudaBackend;
use crate::backend::sim::SimBackend;
use crate::backend::{Backend, ModuleId};
use crate::checker::target_for;
use crate::compile::{Compiler, Source};
use crate::course::{Course, Exercise};
use crate::execute::run_case;
use crate::session::{compiler, find_course};
use crate::tuned::Retiling;
use anyhow::{bail, Context};
use checks::{compare, Case, CaseOptions, HostData};
use serde::Serialize;
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::{Duration, Instant};

mod model;
mod table;
use model::{model_table, Modelled};
use table::table;

/// The bench's timing cases are this many times a check's (2^26 elements, 256 MiB per float
/// array, for the one-dimensional exercises): on an H200 a plain vector add reaches 68% of the
/// copy ceiling at a check's 2^23 elements and 80% at 2^26, where launch overhead and the last
/// partial wave stop mattering (scripts/gpu/results/size_sweep.md).
const BENCH_TIMING_SCALE: usize = 8;

/// `runner bench`'s arguments.
#[derive(clap::Args)]
pub struct BenchArgs {
    /// Exercises to time; all of them by default.
    pub ids: Vec<String>,
    /// Your own kernel file, timed beside the reference (with one exercise id).
    #[arg(long)]
    pub file: Option<PathBuf>,
    /// Timed launches per kernel; the median is reported.
    #[arg(long, default_value_t = 30)]
    pub repeats: usize,
    /// Print one JSON object instead of the table.
    #[arg(long)]
    pub json: bool,
    /// Also run each kernel in the simulator on the same case and show its modelled time beside
    /// the measured one. Without a GPU, only the modelled times.
    #[arg(long)]
    pub model: bool,
    /// How many times a check's timing case the bench's is (1: the check's own, 2^23 elements
    /// for one-dimensional exercises, which the simulator runs in seconds).
    #[arg(long, default_value_t = BENCH_TIMING_SCALE)]
    pub scale: usize,
    /// The GPU the model stands for: h100 or h200; by default the one timed (else h100).
    #[arg(long)]
    pub gpu_model: Option<String>,
    /// Also write the JSON object to this file (the table still goes to the terminal).
    #[arg(long)]
    pub save: Option<PathBuf>,
}

/// One kernel's figures on the timing case.
#[derive(Serialize, Clone, Copy)]
struct Figures {
    ms: f64,
    gb_s: f64,
    share_of_copy: f64,
    gflop_s: Option<f64>,
    share_of_sgemm: Option<f64>,
}

impl Figures {
    /// No GPU timed the kernel (NaN serialises as null).
    fn unmeasured() -> Figures {
        Figures {
            ms: f64::NAN,
            gb_s: f64::NAN,
            share_of_copy: f64::NAN,
            gflop_s: None,
            share_of_sgemm: None,
        }
    }
}

#[derive(Serialize)]
struct Row {
    id: String,
    title: String,
    case: String,
    /// The teaching solution, launched as the check launches it.
    reference: Figures,
    /// The tuned reference (exercises.toml's `tuned`), where there is one, under its own launch.
    tuned: Option<Figures>,
    /// Modelled times (with `--model`) of the reference, the tuned reference and yours.
    reference_model: Option<Modelled>,
    tuned_model: Option<Modelled>,
    yours_model: Option<Modelled>,
    launch: String,
    tuned_launch: Option<String>,
    sgemm_ms: Option<f64>,
    yours: Option<Figures>,
    cpu_one_thread_ms: f64,
    cpu_all_cores_ms: f64,
}

#[derive(Serialize)]
struct Bench {
    device: String,
    /// The GPU the modelled times are for, with `--model`.
    model: Option<sim::GpuModel>,
    scale: usize,
    copy_bandwidth_gb_s: f64,
    cpu_threads: usize,
    rows: Vec<Row>,
}

/// Runs `runner bench`: times the reference solutions (or a file) on the GPU against its ceilings.
pub fn run(args: BenchArgs) -> anyhow::Result<ExitCode> {
    if args.file.is_some() && args.ids.len() != 1 {
        bail!("--file needs exactly one exercise id: the exercise your file solves");
    }
    let course = find_course()?;
    let compiler = compiler(&course)?;
    let mut gpu = match CudaBackend::open(0) {
        Ok(gpu) => Some(gpu),
        Err(_) if args.model => None,
        Err(e) => {
            return Err(anyhow::Error::new(e)
                .context("`runner bench` times kernels on a GPU, and none can be used here"))
        }
    };
    let gpu_model = match args.gpu_model.as_deref() {
        Some("h100") => sim::GpuModel::h100(),
        Some("h200") => sim::GpuModel::h200(),
        Some(other) => bail!("--gpu-model {other}: expected h100 or h200"),
        None => sim::GpuModel::for_device(&gpu.as_ref().map(|g| g.describe()).unwrap_or_default()),
    };
    let mut simulator = args.model.then(SimBackend::new);
    // Host exercises are whole programs: their figures are in `runner check`'s timeline.
    let exercises: Vec<&Exercise> = if args.ids.is_empty() {
        course.exercises.iter().filter(|e| !e.is_host()).collect()
    } else {
        args.ids
            .iter()
            .map(|id| course.exercise(id))
            .collect::<Result<_, _>>()?
    };
    if let Some(host) = exercises.iter().find(|e| e.is_host()) {
        bail!(
            "exercise {} is a whole program: `runner check {}` shows its copies, launches and \
             timeline; `runner bench` times kernels",
            host.id,
            host.id
        );
    }
    let copy_bandwidth = match gpu.as_mut() {
        Some(gpu) => gpu.copy_bandwidth()?.unwrap_or(f64::NAN),
        None => f64::NAN,
    };
    let mut bench = Bench {
        device: gpu
            .as_ref()
            .map_or("no GPU (modelled times only)".into(), |g| g.describe()),
        model: args.model.then(|| gpu_model.clone()),
        scale: args.scale,
        copy_bandwidth_gb_s: copy_bandwidth / 1e9,
        cpu_threads: std::thread::available_parallelism().map_or(1, |n| n.get()),
        rows: Vec::new(),
    };
    for exercise in exercises {
        let mut timer = Timer {
            course: &course,
            compiler: &compiler,
            backend: gpu.as_mut().map(|g| g as &mut dyn Backend),
            simulator: simulator.as_mut(),
            gpu_model: &gpu_model,
            scale: args.scale,
            repeats: args.repeats,
            copy_bandwidth,
        };
        match timer.row(exercise, args.file.as_ref(), bench.cpu_threads) {
            Ok(row) => {
                if !args.json {
                    eprintln!("  timed {} {}", exercise.id, exercise.title);
                }
                bench.rows.push(row);
            }
            Err(e) => eprintln!("  {} could not be timed: {e:#}", exercise.id),
        }
    }
    if let Some(path) = &args.save {
        std::fs::write(path, serde_json::to_string_pretty(&bench)?)
            .with_context(|| format!("cannot write {}", path.display()))?;
    }
    if args.json {
        println!("{}", serde_json::to_string_pretty(&bench)?);
    } else {
        if gpu.is_some() {
            print!("{}", table(&bench));
        }
        if args.model {
            print!("{}", model_table(&bench));
        }
    }
    Ok(ExitCode::SUCCESS)
}

struct Timer<'a> {
    course: &'a Course,
    compiler: &'a Compiler,
    /// The GPU; None where there is none and only modelled times are asked for.
    backend: Option<&'a mut dyn Backend>,
    simulator: Option<&'a mut SimBackend>,
    gpu_model: &'a sim::GpuModel,
    scale: usize,
    repeats: usize,
    copy_bandwidth: f64,
}

/// The case every kernel of an exercise is timed on, with what the CPU and cuBLAS made of it.
struct TimingCase {
    case: Case,
    expected: Vec<(String, HostData)>,
    sgemm: Option<Duration>,
}

/// What timing one kernel file gave: its figures and the launch it ran under.
struct Timed {
    figures: Figures,
    launch: String,
}

/// Compiles the kernel file at `path` for `backend` and loads it there.
fn load(
    course: &Course,
    compiler: &Compiler,
    backend: &mut dyn Backend,
    path: &Path,
) -> anyhow::Result<ModuleId> {
    let text = runner::kernel_file::read(path)?;
    let name = course.display_name(path);
    let image = compiler
        .compile(
            &Source {
                name: &name,
                text: &text,
            },
            &target_for(&*backend, compiler),
        )
        .map_err(|e| anyhow::anyhow!("{e}"))?;
    Ok(backend.load(&image)?)
}

fn declared(
    backend: &mut dyn Backend,
    module: ModuleId,
    exercise: &Exercise,
) -> anyhow::Result<BTreeMap<String, i64>> {
    exercise
        .declared
        .iter()
        .map(|name| {
            let value = backend
                .read_declared_int(module, name)
                .with_context(|| format!("`{name}` is not declared"))?;
            Ok((name.clone(), value as i64))
        })
        .collect()
}

impl Timer<'_> {
    /// The GPU, where there is one, else the simulator (which `--model` asks for).
    fn device(&mut self) -> &mut dyn Backend {
        match (&mut self.backend, &mut self.simulator) {
            (Some(gpu), _) => &mut **gpu,
            (None, Some(sim)) => &mut **sim,
            (None, None) => unreachable!("bench runs without a GPU only with --model"),
        }
    }

    fn load(&mut self, path: &Path) -> anyhow::Result<ModuleId> {
        let (course, compiler) = (self.course, self.compiler);
        load(course, compiler, self.device(), path)
    }

    /// The timing case, made with the declared values of `module` where the exercise has some.
    fn timing_case(&mut self, module: ModuleId, exercise: &Exercise) -> anyhow::Result<Case> {
        let options = CaseOptions {
            timing: true,
            timing_scale: self.scale,
            declared: declared(self.device(), module, exercise)?,
            ..Default::default()
        };
        let cases =
            checks::cases_for(&exercise.id, &options).context("no check for this exercise")?;
        cases
            .into_iter()
            .rev()
            .find(|c| c.for_timing)
            .context("the check has no timing case")
    }

    /// Runs the kernel of `module`, from `path`, once on the timing case (under the launch its
    /// tuned_* declarations ask for), compares its outputs with the CPU's, then times it.
    fn measure(
        &mut self,
        module: ModuleId,
        path: &Path,
        timing: &TimingCase,
        exercise: &Exercise,
    ) -> anyhow::Result<Timed> {
        let Some(backend) = self.backend.as_deref_mut() else {
            return Ok(Timed {
                figures: Figures::unmeasured(),
                launch: String::new(),
            });
        };
        let case = match Retiling::read(backend, module) {
            Some(retiling) => retiling.apply(&timing.case),
            None => timing.case.clone(),
        };
        let limit = Duration::from_millis(exercise.time_limit_ms.max(10_000));
        let (run, prepared) = run_case(backend, module, &case, limit)?;
        for (name, want) in &timing.expected {
            let got = run
                .outputs
                .iter()
                .find(|(n, _)| n == name)
                .map(|(_, d)| d)
                .context("missing output")?;
            if compare(name, want, got, exercise.tolerance, &case.launch).is_err() {
                prepared.free(backend);
                bail!(
                    "{} gives a wrong `{name}` on the timing case",
                    self.course.display_name(path)
                );
            }
        }
        let time = backend.time(module, &prepared.launch_of(&case, limit), self.repeats);
        prepared.free(backend);
        let time = time?.context("the GPU gave no time")?;
        Ok(Timed {
            figures: self.figures(&case, time, timing.sgemm),
            launch: case.launch.to_string(),
        })
    }

    /// Loads the kernel in `path`, then measures it.
    fn measure_file(
        &mut self,
        path: &Path,
        timing: &TimingCase,
        exercise: &Exercise,
    ) -> anyhow::Result<Timed> {
        if self.backend.is_none() {
            return self.measure(0, path, timing, exercise);
        }
        let module = self.load(path)?;
        self.measure(module, path, timing, exercise)
    }

    /// Runs the kernel in `path` in the simulator on the timing case (under the launch its
    /// tuned_* declarations ask for) and models its time; None without `--model`.
    fn model(
        &mut self,
        path: &Path,
        timing: &TimingCase,
        measured: &Figures,
    ) -> anyhow::Result<Option<Modelled>> {
        let Some(simulator) = self.simulator.as_deref_mut() else {
            return Ok(None);
        };
        let module = load(self.course, self.compiler, simulator, path)?;
        let case = match Retiling::read(simulator, module) {
            Some(retiling) => retiling.apply(&timing.case),
            None => timing.case.clone(),
        };
        // The simulator takes seconds where the GPU takes microseconds: no time limit to speak of.
        let limit = Duration::from_secs(3600);
        let started = Instant::now();
        let (run, prepared) = run_case(simulator, module, &case, limit)?;
        prepared.free(simulator);
        let report = run
            .details
            .context("the simulator gave no report for the launch")?;
        let modelled = report.modelled_on(self.gpu_model);
        Ok(Some(Modelled::new(
            modelled,
            measured.ms * 1000.0,
            started.elapsed(),
        )))
    }

    fn figures(&self, case: &Case, time: Duration, sgemm: Option<Duration>) -> Figures {
        let gb_s = case.bytes_moved as f64 / time.as_secs_f64() / 1e9;
        Figures {
            ms: ms(time),
            gb_s,
            share_of_copy: gb_s * 1e9 / self.copy_bandwidth,
            gflop_s: (case.flops > 0).then(|| case.flops as f64 / time.as_secs_f64() / 1e9),
            share_of_sgemm: sgemm.map(|s| s.as_secs_f64() / time.as_secs_f64()),
        }
    }

    fn row(
        &mut self,
        exercise: &Exercise,
        file: Option<&PathBuf>,
        threads: usize,
    ) -> anyhow::Result<Row> {
        let reference_path = self.course.solution_path(exercise);
        let reference_module = self.load(&reference_path)?;
        let case = self.timing_case(reference_module, exercise)?;
        let started = Instant::now();
        // The CPU's result checks the GPU's; modelled times alone need none.
        let expected = if self.backend.is_some() {
            case.expected()
        } else {
            Vec::new()
        };
        let cpu_one_thread = started.elapsed();
        let sgemm = match (case.sgemm_shape, self.backend.as_deref_mut()) {
            (Some(shape), Some(gpu)) => gpu.sgemm_time(shape, self.repeats)?,
            _ => None,
        };
        let timing = TimingCase {
            case,
            expected,
            sgemm,
        };
        let reference = self.measure(reference_module, &reference_path, &timing, exercise)?;
        let reference_model = self.model(&reference_path, &timing, &reference.figures)?;
        let tuned_path = self.course.tuned_path(exercise);
        let tuned = match &tuned_path {
            Some(path) => Some(self.measure_file(path, &timing, exercise)?),
            None => None,
        };
        let tuned_model = match (&tuned_path, &tuned) {
            (Some(path), Some(t)) => self.model(path, &timing, &t.figures)?,
            _ => None,
        };
        let yours = match file {
            Some(path) => Some(self.measure_file(path, &timing, exercise)?),
            None => None,
        };
        let yours_model = match (file, &yours) {
            (Some(path), Some(t)) => self.model(path, &timing, &t.figures)?,
            _ => None,
        };
        Ok(Row {
            id: exercise.id.clone(),
            title: exercise.title.clone(),
            case: timing.case.name.clone(),
            reference: reference.figures,
            tuned: tuned.as_ref().map(|t| t.figures),
            reference_model,
            tuned_model,
            yours_model,
            launch: reference.launch,
            tuned_launch: tuned.map(|t| t.launch),
            sgemm_ms: sgemm.map(ms),
            yours: yours.map(|t| t.figures),
            cpu_one_thread_ms: ms(cpu_one_thread),
            cpu_all_cores_ms: if self.backend.is_some() {
                ms(cpu_all_cores(&timing.case, threads))
            } else {
                f64::NAN
            },
        })
    }
}

/// The CPU reference's throughput on all cores: one copy per core at once, the wall time divided
/// by the number of copies (the references are serial code, so this is what a perfectly
/// parallel CPU version would reach at best).
fn cpu_all_cores(case: &Case, threads: usize) -> Duration {
    let started = Instant::now();
    std::thread::scope(|scope| {
        for _ in 0..threads {
            scope.spawn(|| std::hint::black_box(case.expected()));
        }
    });
    started.elapsed() / threads as u32
}

fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1000.0
}
