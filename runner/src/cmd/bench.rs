//! `runner bench`: the course's reference solutions timed on the GPU, each as a share of the
//! device's own ceilings measured in the same run (device-to-device copy bandwidth, and cuBLAS
//! SGEMM for matrix multiply), beside the CPU reference on one thread and on all cores.

use crate::backend::cuda::CudaBackend;
use crate::backend::{Backend, ModuleId};
use crate::checker::target_for;
use crate::compile::{Compiler, Source};
use crate::course::{Course, Exercise};
use crate::execute::{run_case, Prepared};
use crate::session::{compiler, find_course};
use anyhow::{bail, Context};
use checks::{compare, Case, CaseOptions};
use serde::Serialize;
use std::collections::BTreeMap;
use std::path::PathBuf;
use std::process::ExitCode;
use std::time::{Duration, Instant};

/// The bench's timing cases are this many times a check's (2^26 elements, 256 MiB per float
/// array, for the one-dimensional exercises): on an H200 a plain vector add reaches 68% of the
/// copy ceiling at a check's 2^23 elements and 80% at 2^26, where launch overhead and the last
/// partial wave stop mattering (scripts/gpu/results/size_sweep.md).
const BENCH_TIMING_SCALE: usize = 8;

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
}

#[derive(Serialize)]
struct Row {
    id: String,
    title: String,
    case: String,
    reference_ms: f64,
    reference_gb_s: f64,
    share_of_copy: f64,
    reference_gflop_s: Option<f64>,
    sgemm_ms: Option<f64>,
    share_of_sgemm: Option<f64>,
    yours_ms: Option<f64>,
    yours_gb_s: Option<f64>,
    cpu_one_thread_ms: f64,
    cpu_all_cores_ms: f64,
}

#[derive(Serialize)]
struct Bench {
    device: String,
    copy_bandwidth_gb_s: f64,
    cpu_threads: usize,
    rows: Vec<Row>,
}

pub fn run(args: BenchArgs) -> anyhow::Result<ExitCode> {
    let course = find_course()?;
    let compiler = compiler(&course)?;
    let mut gpu = CudaBackend::open(0)
        .context("`runner bench` times kernels on a GPU, and none can be used here")?;
    if args.file.is_some() && args.ids.len() != 1 {
        bail!("--file needs exactly one exercise id: the exercise your file solves");
    }
    let exercises: Vec<&Exercise> = if args.ids.is_empty() {
        course.exercises.iter().collect()
    } else {
        args.ids
            .iter()
            .map(|id| course.exercise(id))
            .collect::<Result<_, _>>()?
    };
    let copy_bandwidth = gpu.copy_bandwidth()?.unwrap_or(f64::NAN);
    let mut bench = Bench {
        device: gpu.describe(),
        copy_bandwidth_gb_s: copy_bandwidth / 1e9,
        cpu_threads: std::thread::available_parallelism().map_or(1, |n| n.get()),
        rows: Vec::new(),
    };
    for exercise in exercises {
        let mut timer = Timer {
            course: &course,
            compiler: &compiler,
            backend: &mut gpu,
            repeats: args.repeats,
        };
        match timer.row(
            exercise,
            args.file.as_ref(),
            copy_bandwidth,
            bench.cpu_threads,
        ) {
            Ok(row) => {
                if !args.json {
                    eprintln!("  timed {} {}", exercise.id, exercise.title);
                }
                bench.rows.push(row);
            }
            Err(e) => eprintln!("  {} could not be timed: {e:#}", exercise.id),
        }
    }
    if args.json {
        println!("{}", serde_json::to_string_pretty(&bench)?);
    } else {
        print!("{}", table(&bench));
    }
    Ok(ExitCode::SUCCESS)
}

struct Timer<'a> {
    course: &'a Course,
    compiler: &'a Compiler,
    backend: &'a mut CudaBackend,
    repeats: usize,
}

impl Timer<'_> {
    fn load(&mut self, path: &std::path::Path) -> anyhow::Result<ModuleId> {
        let text = std::fs::read_to_string(path)
            .with_context(|| format!("cannot read {}", path.display()))?;
        let name = self.course.display_name(path);
        let image = self
            .compiler
            .compile(
                &Source {
                    name: &name,
                    text: &text,
                },
                &target_for(&*self.backend, self.compiler),
            )
            .map_err(|e| anyhow::anyhow!("{e}"))?;
        Ok(self.backend.load(&image)?)
    }

    fn declared(
        &mut self,
        module: ModuleId,
        exercise: &Exercise,
    ) -> anyhow::Result<BTreeMap<String, i64>> {
        exercise
            .declared
            .iter()
            .map(|name| {
                let value = self
                    .backend
                    .read_declared_int(module, name)
                    .with_context(|| format!("`{name}` is not declared"))?;
                Ok((name.clone(), value as i64))
            })
            .collect()
    }

    /// Times one kernel on freshly prepared buffers of the timing case.
    fn time(&mut self, module: ModuleId, case: &Case, limit: Duration) -> anyhow::Result<Duration> {
        let prepared = Prepared::new(self.backend, case)?;
        let time = self
            .backend
            .time(module, &prepared.launch_of(case, limit), self.repeats);
        prepared.free(self.backend);
        time?.context("the GPU gave no time")
    }

    fn row(
        &mut self,
        exercise: &Exercise,
        file: Option<&PathBuf>,
        copy_bandwidth: f64,
        threads: usize,
    ) -> anyhow::Result<Row> {
        let limit = Duration::from_millis(exercise.time_limit_ms.max(10_000));
        let reference = self.load(&self.course.solution_path(exercise))?;
        let declared = self.declared(reference, exercise)?;
        let options = CaseOptions {
            timing: true,
            timing_scale: BENCH_TIMING_SCALE,
            declared,
            ..Default::default()
        };
        let cases =
            checks::cases_for(&exercise.id, &options).context("no check for this exercise")?;
        let case = cases
            .iter()
            .rev()
            .find(|c| c.for_timing)
            .context("the check has no timing case")?;
        let (run, prepared) = run_case(self.backend, reference, case, limit)?;
        prepared.free(self.backend);
        for (name, want) in case.expected() {
            let got = run
                .outputs
                .iter()
                .find(|(n, _)| *n == name)
                .map(|(_, d)| d)
                .context("missing output")?;
            if compare(&name, &want, got, exercise.tolerance, &case.launch).is_err() {
                bail!("the reference solution gives a wrong `{name}` on the timing case");
            }
        }
        let reference_time = self.time(reference, case, limit)?;
        let yours = match file {
            Some(path) => {
                let module = self.load(path)?;
                Some(self.time(module, case, limit)?)
            }
            None => None,
        };
        let sgemm = match case.sgemm_shape {
            Some(shape) => self.backend.sgemm_time(shape, self.repeats)?,
            None => None,
        };
        let (one, all) = cpu_times(case, threads);
        let gb_s = |t: Duration| case.bytes_moved as f64 / t.as_secs_f64() / 1e9;
        let gflop_s =
            (case.flops > 0).then(|| case.flops as f64 / reference_time.as_secs_f64() / 1e9);
        Ok(Row {
            id: exercise.id.clone(),
            title: exercise.title.clone(),
            case: case.name.clone(),
            reference_ms: ms(reference_time),
            reference_gb_s: gb_s(reference_time),
            share_of_copy: gb_s(reference_time) * 1e9 / copy_bandwidth,
            reference_gflop_s: gflop_s,
            sgemm_ms: sgemm.map(ms),
            share_of_sgemm: sgemm.map(|s| s.as_secs_f64() / reference_time.as_secs_f64()),
            yours_ms: yours.map(ms),
            yours_gb_s: yours.map(gb_s),
            cpu_one_thread_ms: ms(one),
            cpu_all_cores_ms: ms(all),
        })
    }
}

/// The CPU reference on one thread, and its throughput on all cores: one copy per core at once,
/// the wall time divided by the number of copies (the references are serial code, so this is
/// what a perfectly parallel CPU version would reach at best).
fn cpu_times(case: &Case, threads: usize) -> (Duration, Duration) {
    let started = Instant::now();
    std::hint::black_box(case.expected());
    let one = started.elapsed();
    let started = Instant::now();
    std::thread::scope(|scope| {
        for _ in 0..threads {
            scope.spawn(|| std::hint::black_box(case.expected()));
        }
    });
    (one, started.elapsed() / threads as u32)
}

fn ms(d: Duration) -> f64 {
    d.as_secs_f64() * 1000.0
}

fn table(bench: &Bench) -> String {
    let mut out = format!(
        "{}; device-to-device copy {:.0} GB/s (read + write), measured in this run; CPU: {} threads\n\n",
        bench.device, bench.copy_bandwidth_gb_s, bench.cpu_threads
    );
    out.push_str("| id | exercise | reference | GB/s | % of copy | GFLOP/s | % of cuBLAS | yours | CPU 1 thread | CPU all cores |\n");
    out.push_str("| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |\n");
    let opt = |v: Option<f64>, f: &dyn Fn(f64) -> String| v.map_or("".to_string(), f);
    for r in &bench.rows {
        out.push_str(&format!(
            "| {} | {} | {:.3} ms | {:.0} | {:.0}% | {} | {} | {} | {:.1} ms | {:.1} ms |\n",
            r.id,
            r.title,
            r.reference_ms,
            r.reference_gb_s,
            100.0 * r.share_of_copy,
            opt(r.reference_gflop_s, &|g| format!("{g:.0}")),
            opt(r.share_of_sgemm, &|s| format!("{:.0}%", 100.0 * s)),
            opt(r.yours_ms, &|m| format!("{m:.3} ms")),
            r.cpu_one_thread_ms,
            r.cpu_all_cores_ms,
        ));
    }
    out
}
