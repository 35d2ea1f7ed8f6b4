//! `runner sim FILE.cu ...`: runs any kernel in the simulator, outside the exercises, and prints
//! its memory figures per kernel and per source line: for the book's "try it" boxes, and for
//! holding the simulator to a GPU's hardware counters.

use crate::backend::sim::{describe, SIM_ARCHITECTURE, WARP_INSTRUCTIONS_PER_SECOND};
use crate::compile::{Compiler, Source, Target};
use crate::report::SimFigures;
use anyhow::{bail, Context};
use checks::random::Rng;
use serde::Serialize;
use std::path::PathBuf;
use std::process::ExitCode;

#[derive(clap::Args)]
pub struct SimArgs {
    /// The CUDA C file.
    pub file: PathBuf,
    /// The `extern "C" __global__` kernel to launch.
    #[arg(long)]
    pub kernel: String,
    /// Blocks in the grid: X[,Y[,Z]].
    #[arg(long)]
    pub grid: String,
    /// Threads per block: X[,Y[,Z]].
    #[arg(long)]
    pub block: String,
    /// Dynamic shared memory per block, in bytes.
    #[arg(long, default_value_t = 0)]
    pub shared_bytes: u32,
    /// One kernel parameter, in order: a buffer `f32[N]`, `f64[N]`, `i32[N]`, `u32[N]`, `i64[N]`
    /// (random values; `=zeros` or `=iota` to choose), or a scalar `i32=V`, `u32=V`, `i64=V`,
    /// `f32=V`, `f64=V`.
    #[arg(long = "arg")]
    pub args: Vec<String>,
    /// Seed of the random buffer values.
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// Print one JSON object: kernel, figures, lines, diagnostics, modelled time.
    #[arg(long)]
    pub json: bool,
    /// The GPU whose time is modelled: h100 (the default) or h200.
    #[arg(long, default_value = "h100")]
    pub gpu_model: String,
    /// Stop the kernel after about this many seconds of simulation (a loop that never ends is
    /// reported as a hang).
    #[arg(long, default_value_t = 5.0, allow_negative_numbers = true)]
    pub time_limit: f64,
}

/// Largest `--time-limit`: an hour.
const MAX_TIME_LIMIT: f64 = 3600.0;
/// Largest buffer an `--arg` may ask for: the simulator's memory holds 4 GiB in all.
const MAX_BUFFER_BYTES: u64 = 4 << 30;

#[derive(Serialize)]
struct SimOutput {
    kernel: String,
    figures: sim::Figures,
    lines: Vec<sim::LineFigures>,
    diagnostics: Vec<sim::Diagnostic>,
    printf: String,
    modelled: sim::ModelledTime,
    /// The kernel was stopped (a fatal diagnostic, or the time limit).
    aborted: bool,
}

/// The kernel a user means by `wanted`: the name itself, or the one kernel whose C++ (Itanium)
/// mangled name is `_Z<length><wanted>...` (a `__global__` function without `extern "C"`).
fn entry_name(wanted: &str, names: &[String]) -> Option<String> {
    if names.iter().any(|n| n == wanted) {
        return Some(wanted.to_string());
    }
    let prefix = format!("_Z{}{wanted}", wanted.len());
    let mut mangled = names.iter().filter(|n| n.starts_with(&prefix));
    match (mangled.next(), mangled.next()) {
        (Some(only), None) => Some(only.clone()),
        _ => None,
    }
}

fn dims(text: &str) -> anyhow::Result<[u32; 3]> {
    let parts: Vec<u32> = text
        .split(',')
        .map(|p| {
            p.trim()
                .parse()
                .with_context(|| format!("{text:?} is not X[,Y[,Z]] of whole numbers"))
        })
        .collect::<Result<_, _>>()?;
    match parts[..] {
        [x] => Ok([x, 1, 1]),
        [x, y] => Ok([x, y, 1]),
        [x, y, z] => Ok([x, y, z]),
        _ => bail!("{text:?} has more than three dimensions"),
    }
}

/// One parsed `--arg`: the bytes of a scalar, or a buffer's initial content.
enum ArgSpec {
    Scalar(Vec<u8>),
    Buffer(Vec<u8>),
}

fn parse_arg(spec: &str, rng: &mut Rng) -> anyhow::Result<ArgSpec> {
    let bad = || {
        format!("--arg {spec:?}: expected a buffer like f32[1024] (=zeros, =iota) or a scalar like i32=5")
    };
    if let Some((ty, rest)) = spec.split_once('[') {
        let (count, fill) = rest.split_once(']').with_context(bad)?;
        let n: u64 = count.trim().parse().with_context(bad)?;
        let fill = fill.strip_prefix('=').unwrap_or("random");
        let elem_bytes = match ty {
            "f32" | "i32" | "u32" => 4,
            "f64" | "i64" => 8,
            _ => bail!("{}", bad()),
        };
        let total = n.saturating_mul(elem_bytes);
        if total > MAX_BUFFER_BYTES {
            bail!(
                "--arg {spec:?} asks for {total} bytes; the simulator holds at most {MAX_BUFFER_BYTES} bytes (4 GiB) \
                 of device memory, so use a smaller buffer"
            );
        }
        let n = n as usize;
        let value = |i: usize, rng: &mut Rng| -> f64 {
            match fill {
                "zeros" => 0.0,
                "iota" => i as f64,
                _ => rng.range_f32(-1.0, 1.0) as f64,
            }
        };
        if !["zeros", "iota", "random"].contains(&fill) {
            bail!("{}", bad());
        }
        let mut bytes = Vec::new();
        bytes
            .try_reserve_exact(total as usize)
            .map_err(|_| anyhow::anyhow!("--arg {spec:?}: not enough memory for {total} bytes"))?;
        for i in 0..n {
            let v = value(i, rng);
            let int = if fill == "random" {
                (rng.next_u64() % 1000) as i64
            } else {
                v as i64
            };
            match ty {
                "f32" => bytes.extend((v as f32).to_le_bytes()),
                "f64" => bytes.extend(v.to_le_bytes()),
                "i32" => bytes.extend((int as i32).to_le_bytes()),
                "u32" => bytes.extend((int as u32).to_le_bytes()),
                "i64" => bytes.extend(int.to_le_bytes()),
                _ => bail!("{}", bad()),
            }
        }
        return Ok(ArgSpec::Buffer(bytes));
    }
    let (ty, value) = spec.split_once('=').with_context(bad)?;
    let bytes = match ty {
        "i32" => value
            .parse::<i32>()
            .with_context(bad)?
            .to_le_bytes()
            .to_vec(),
        "u32" => value
            .parse::<u32>()
            .with_context(bad)?
            .to_le_bytes()
            .to_vec(),
        "i64" => value
            .parse::<i64>()
            .with_context(bad)?
            .to_le_bytes()
            .to_vec(),
        "f32" => value
            .parse::<f32>()
            .with_context(bad)?
            .to_le_bytes()
            .to_vec(),
        "f64" => value
            .parse::<f64>()
            .with_context(bad)?
            .to_le_bytes()
            .to_vec(),
        _ => bail!("{}", bad()),
    };
    Ok(ArgSpec::Scalar(bytes))
}

pub fn run(args: SimArgs) -> anyhow::Result<ExitCode> {
    if !(args.time_limit > 0.0 && args.time_limit <= MAX_TIME_LIMIT) {
        bail!(
            "--time-limit {}: expected seconds above 0 and at most {MAX_TIME_LIMIT}",
            args.time_limit
        );
    }
    let text = runner::kernel_file::read(&args.file)?;
    let course_root = crate::session::find_course().ok().map(|c| c.root);
    let compiler = Compiler::new(course_root.as_deref())?;
    let name = args.file.display().to_string();
    let image = compiler
        .compile(
            &Source {
                name: &name,
                text: &text,
            },
            &Target::Ptx {
                arch: SIM_ARCHITECTURE,
            },
        )
        .map_err(|e| anyhow::anyhow!("{e}"))?;
    let module = sim::Module::parse(image.ptx_text().unwrap_or_default())
        .map_err(|e| anyhow::anyhow!("{e}"))?;
    let names: Vec<String> = module.kernels().into_iter().map(|k| k.name).collect();
    if let Some(why) = module.lowering_error(&args.kernel) {
        bail!(
            "{name}: kernel `{}` cannot run in the simulator: {why}",
            args.kernel
        );
    }
    let Some(kernel) = entry_name(&args.kernel, &names) else {
        bail!(
            "{} has no kernel `{}`; it has: {}",
            name,
            args.kernel,
            names.join(", ")
        );
    };
    let args = SimArgs { kernel, ..args };
    let mut machine = sim::Machine::new();
    let mut rng = Rng::new(args.seed);
    let mut params = Vec::new();
    for spec in &args.args {
        match parse_arg(spec, &mut rng)? {
            ArgSpec::Scalar(bytes) => params.push(bytes),
            ArgSpec::Buffer(bytes) => {
                let addr = machine
                    .try_alloc(bytes.len() as u64)
                    .map_err(|e| anyhow::anyhow!("--arg {spec:?}: {e}"))?;
                machine
                    .write(addr, &bytes)
                    .map_err(|e| anyhow::anyhow!("{e}"))?;
                params.push(addr.to_le_bytes().to_vec());
            }
        }
    }
    let launch = sim::Launch {
        kernel: args.kernel.clone(),
        grid: dims(&args.grid)?,
        block: dims(&args.block)?,
        dynamic_shared_bytes: args.shared_bytes,
        params,
        limits: sim::Limits {
            max_warp_instructions: (args.time_limit * WARP_INSTRUCTIONS_PER_SECOND as f64) as u64,
            // Kernels the budget undercounts (memory-bound loops on a slow machine) stop on time too.
            max_wall_time: Some(std::time::Duration::from_secs_f64(1.5 * args.time_limit)),
            max_clock: (args.time_limit * 1e9) as u64,
            ..sim::Limits::default()
        },
    };
    let gpu = match args.gpu_model.as_str() {
        "h100" => sim::GpuModel::h100(),
        "h200" => sim::GpuModel::h200(),
        other => bail!("--gpu-model {other}: expected h100 or h200"),
    };
    let mut report = machine
        .launch(&module, &launch)
        .map_err(|e| anyhow::anyhow!("{e}"))?;
    crate::backend::sim::relativise_paths(&mut report);
    let modelled = report.modelled_on(&gpu);
    if args.json {
        let out = SimOutput {
            kernel: args.kernel,
            figures: report.figures,
            lines: report.lines,
            diagnostics: report.diagnostics,
            printf: report.printf,
            modelled,
            aborted: report.aborted,
        };
        println!("{}", serde_json::to_string_pretty(&out)?);
        return Ok(if report.aborted {
            ExitCode::FAILURE
        } else {
            ExitCode::SUCCESS
        });
    }
    let figures = SimFigures {
        case: format!("{} <<<{}, {}>>>", args.kernel, args.grid, args.block),
        kernel: report.figures,
        lines: report.lines,
        warp_instructions: report.warp_instructions,
        modelled: modelled.clone(),
    };
    print!("{}", crate::report::render_sim_text(&figures));
    println!("  modelled time: {}", modelled.explain());
    for d in &report.diagnostics {
        println!("  {}", describe(d));
    }
    if !report.printf.is_empty() {
        print!("{}", report.printf);
    }
    Ok(if report.aborted {
        ExitCode::FAILURE
    } else {
        ExitCode::SUCCESS
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_kernel_without_extern_c_is_found_by_its_own_name() {
        let names = vec!["_Z5scalePffi".to_string(), "fill".to_string()];
        assert_eq!(entry_name("fill", &names).as_deref(), Some("fill"));
        assert_eq!(entry_name("scale", &names).as_deref(), Some("_Z5scalePffi"));
        assert_eq!(entry_name("scal", &names), None);
        let overloads = vec!["_Z5scalePfi".to_string(), "_Z5scalePdi".to_string()];
        assert_eq!(
            entry_name("scale", &overloads),
            None,
            "an overload is ambiguous"
        );
    }
}
