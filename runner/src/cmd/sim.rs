//! `runner sim FILE.cu ...`: runs any kernel in the simulator, outside the exercises, and prints
//! its memory figures per kernel and per source line: a profiler a student can point at their own
//! code, for the book's "try it" boxes, and for holding the simulator to a GPU's counters.
//!
//! | module    | owns                                                                 |
//! | --------- | -------------------------------------------------------------------- |
//! | `types`   | element types: names, sizes, NumPy descriptors, values as bytes      |
//! | `spec`    | the value language of `--arg`, `--set` and a plan's buffers          |
//! | `files`   | buffers from `.npy` and raw files, and to `.npy`                     |
//! | `plan`    | what to run, from the command line or a TOML plan                    |
//! | `execute` | a plan run on one simulated machine                                  |
//! | `print`   | the figures as text or JSON                                          |

mod execute;
mod files;
mod plan;
mod print;
mod spec;
mod types;

use crate::backend::sim::{SIM_ARCHITECTURE, WARP_INSTRUCTIONS_PER_SECOND};
use crate::compile::headers::missing_header_advice;
use crate::compile::{Compiler, Source, Target, UserOptions};
use anyhow::bail;
use std::path::PathBuf;
use std::process::ExitCode;

/// `runner sim`'s options; the examples after them are its help's last words.
#[derive(clap::Args)]
#[command(after_help = EXAMPLES)]
pub struct SimArgs {
    /// The CUDA C file (with --plan, overrides the plan's `file`).
    #[arg(required_unless_present = "plan")]
    pub file: Option<PathBuf>,
    /// The kernel to launch (`extern "C"`, or a C++ kernel by its own name).
    #[arg(long, required_unless_present = "plan", conflicts_with = "plan")]
    pub kernel: Option<String>,
    /// Blocks in the grid: X[,Y[,Z]].
    #[arg(long, required_unless_present = "plan", conflicts_with = "plan")]
    pub grid: Option<String>,
    /// Threads per block: X[,Y[,Z]].
    #[arg(long, required_unless_present = "plan", conflicts_with = "plan")]
    pub block: Option<String>,
    /// Dynamic shared memory per block, in bytes.
    #[arg(long, default_value_t = 0, conflicts_with = "plan")]
    pub shared_bytes: u32,
    /// One kernel parameter, in order. A buffer TYPE[N] with its contents: random (the default),
    /// =zeros, =iota (0, 1, 2, ...), =V (every element), =@FILE.npy or =@FILE (raw little-endian
    /// bytes); TYPE[]=@FILE takes N from the file. Or a scalar TYPE=V. TYPE: u8, i8, u16, i16,
    /// f16 (raw halves), i32, u32, i64, u64, f32, f64, or a CUDA vector type (float2, float4,
    /// int4, uchar4, half2, double2, ...; a vector scalar is V,V[,...]).
    #[arg(long = "arg", value_name = "SPEC", conflicts_with = "plan")]
    pub args: Vec<String>,
    /// Set a __device__ or __constant__ variable before the launch: NAME=TYPE=V or
    /// NAME=TYPE[N]=... as for --arg (TYPE[] takes N from the variable's size).
    #[arg(long = "set", value_name = "NAME=SPEC", conflicts_with = "plan")]
    pub set: Vec<String>,
    /// Add a folder to the #include search path (as nvcc -I).
    #[arg(short = 'I', long = "include", value_name = "DIR")]
    pub include_dirs: Vec<PathBuf>,
    /// Define a macro for the compile: NAME or NAME=VALUE (as nvcc -D).
    #[arg(short = 'D', long = "define", value_name = "NAME[=VALUE]")]
    pub defines: Vec<String>,
    /// Write every buffer (named argN by parameter position, or by its name in a plan) and every
    /// variable set, after the launches, as DIR/NAME.npy.
    #[arg(long, value_name = "DIR")]
    pub out: Option<PathBuf>,
    /// Run the launches of a TOML plan: named buffers, variables, a chain of launches, outputs.
    #[arg(long, value_name = "PLAN.toml")]
    pub plan: Option<PathBuf>,
    /// Order of the per-line table.
    #[arg(long, value_enum, default_value_t)]
    pub sort: print::SortKey,
    /// Rows of the per-line table (0 for every line).
    #[arg(long, default_value_t = 10)]
    pub lines: usize,
    /// Seed of the random buffer values.
    #[arg(long, default_value_t = 1)]
    pub seed: u64,
    /// Print one JSON object: figures, lines with their source text, diagnostics, modelled time,
    /// files written (with --plan: each launch, the total and the lines of all).
    #[arg(long)]
    pub json: bool,
    /// The GPU whose time is modelled: h100 (the default) or h200.
    #[arg(long, default_value = "h100")]
    pub gpu_model: String,
    /// Stop a launch after about this many seconds of simulation (a loop that never ends is
    /// reported as a hang).
    #[arg(long, default_value_t = 5.0, allow_negative_numbers = true)]
    pub time_limit: f64,
}

const EXAMPLES: &str = "Examples:
  runner sim k.cu --kernel scale --grid 4 --block 256 --arg 'f32[1024]=@x.npy' \\
      --arg 'f32[1024]=zeros' --arg i32=1024 --set scale=f32=2.5 -I include --out out
  runner sim --plan plan.toml --sort wavefronts

A plan (paths in it are relative to its folder):
  file = \"scan.cu\"
  outputs = [\"y\"]              # by default every buffer and variable, with --out DIR
  [buffers]
  x = \"f32[1024]=@x.npy\"
  y = \"f32[1024]=zeros\"
  [set]
  scale = \"f32=2.5\"
  [[launch]]
  kernel = \"scan\"
  grid = 4
  block = 256
  shared_bytes = 1024
  args = [\"x\", \"y\", \"i32=1024\"]
  [[launch]]
  kernel = \"add\"
  grid = 4
  block = 256
  args = [\"y\", \"y+256\", \"i32=768\"]   # NAME+N: N elements into the buffer";

/// Largest `--time-limit`: an hour.
const MAX_TIME_LIMIT: f64 = 3600.0;

fn settings(args: &SimArgs) -> anyhow::Result<execute::Settings> {
    if !(args.time_limit > 0.0 && args.time_limit <= MAX_TIME_LIMIT) {
        bail!(
            "--time-limit {}: expected seconds above 0 and at most {MAX_TIME_LIMIT}",
            args.time_limit
        );
    }
    let gpu = match args.gpu_model.as_str() {
        "h100" => sim::GpuModel::h100(),
        "h200" => sim::GpuModel::h200(),
        other => bail!("--gpu-model {other}: expected h100 or h200"),
    };
    let limits = sim::Limits {
        max_warp_instructions: (args.time_limit * WARP_INSTRUCTIONS_PER_SECOND as f64) as u64,
        // Kernels the budget undercounts (memory-bound loops on a slow machine) stop on time too.
        max_wall_time: Some(std::time::Duration::from_secs_f64(1.5 * args.time_limit)),
        max_clock: (args.time_limit * 1e9) as u64,
        ..sim::Limits::default()
    };
    Ok(execute::Settings {
        seed: args.seed,
        limits,
        gpu,
    })
}

/// The plan to run: the plan file's, with the command line's file, folders, macros and output
/// folder added; or the command line's one launch.
fn plan_of(args: &SimArgs) -> anyhow::Result<plan::Plan> {
    let user = UserOptions {
        include_dirs: args.include_dirs.clone(),
        defines: args.defines.clone(),
    };
    let mut plan = match &args.plan {
        Some(path) => {
            let mut plan = plan::from_file(path)?;
            plan.compile.include_dirs.extend(user.include_dirs);
            plan.compile.defines.extend(user.defines);
            plan
        }
        None => plan::from_cli(
            plan::CliLaunch {
                kernel: args.kernel.as_deref().unwrap_or_default(),
                grid: args.grid.as_deref().unwrap_or_default(),
                block: args.block.as_deref().unwrap_or_default(),
                shared_bytes: args.shared_bytes,
                args: &args.args,
                set: &args.set,
            },
            user,
        )?,
    };
    if let Some(file) = &args.file {
        plan.file = Some(file.clone());
    }
    if let Some(out) = &args.out {
        plan.out_dir = Some(out.clone());
    }
    Ok(plan)
}

/// Runs `runner sim`: any kernel file in the simulator, with its memory figures.
pub fn run(args: SimArgs) -> anyhow::Result<ExitCode> {
    let settings = settings(&args)?;
    let plan = plan_of(&args)?;
    let Some(file) = plan.file.clone() else {
        bail!("no kernel file: name it on the command line or as `file = \"...\"` in the plan");
    };
    let text = runner::kernel_file::read(&file)?;
    let course_root = crate::session::find_course().ok().map(|c| c.root);
    let compiler = Compiler::new(course_root.as_deref())?;
    let name = file.display().to_string();
    let image = compiler
        .compile_with(
            &Source {
                name: &name,
                text: &text,
            },
            &Target::Ptx {
                arch: SIM_ARCHITECTURE,
            },
            &plan.compile,
        )
        .map_err(|e| {
            let shown = e.to_string();
            let missing = shown.contains("could not open source file")
                || shown.contains("cannot open source file");
            // CUDA's own headers come with their own advice, which the message holds.
            let cuda_header = missing_header_advice(&shown, compiler.headers.as_ref()).is_some();
            let hint = match missing && !cuda_header {
                true => "\nAdd the folder that holds it with -I DIR (`include = [...]` in a plan).",
                false => "",
            };
            anyhow::anyhow!("{e}{hint}")
        })?;
    let module = sim::Module::parse(image.ptx_text().unwrap_or_default())
        .map_err(|e| anyhow::anyhow!("{e}"))?;
    let done = execute::execute(&plan, &module, &name, &settings)?;
    if args.json {
        println!("{}", print::json(&done, args.plan.is_some())?);
    } else {
        let view = print::View {
            sort: args.sort,
            lines: args.lines,
        };
        print!("{}", print::text(&done, &view));
    }
    Ok(if done.aborted() {
        ExitCode::FAILURE
    } else {
        ExitCode::SUCCESS
    })
}
