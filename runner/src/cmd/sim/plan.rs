//! What `runner sim` does, as data: named buffers with their contents, variables to set, launches
//! over the buffers, and the outputs to write. Made from the command line (one launch, its
//! buffers named `arg0`, `arg1`, ... by parameter position) or from a TOML plan file.

use super::spec::{self, BufferSpec, ValueSpec};
use crate::compile::UserOptions;
use anyhow::{bail, Context};
use serde::Deserialize;
use std::collections::BTreeMap;
use std::io::Read;
use std::path::{Path, PathBuf};

pub(super) struct Plan {
    /// The kernel file, when the plan names it.
    pub file: Option<PathBuf>,
    pub compile: UserOptions,
    pub buffers: Vec<Named<BufferSpec>>,
    /// `__device__` and `__constant__` variables, set before the first launch.
    pub variables: Vec<Named<ValueSpec>>,
    pub launches: Vec<LaunchPlan>,
    /// Buffers and variables to write after the launches; `None`: all of them.
    pub outputs: Option<Vec<String>>,
    pub out_dir: Option<PathBuf>,
}

pub(super) struct Named<T> {
    pub name: String,
    /// How messages point the user at it: `--arg "f32[8]"`, `buffer x`.
    pub shown: String,
    pub spec: T,
}

pub(super) struct LaunchPlan {
    pub kernel: String,
    pub grid: [u32; 3],
    pub block: [u32; 3],
    pub shared_bytes: u32,
    pub args: Vec<ArgRef>,
}

#[derive(Debug, PartialEq)]
pub(super) enum ArgRef {
    /// A pointer into a buffer, `offset` elements from its start.
    Buffer { name: String, offset: u64 },
    /// A scalar's bytes.
    Value(Vec<u8>),
}

/// The command line's one launch.
pub(super) struct CliLaunch<'a> {
    pub kernel: &'a str,
    pub grid: &'a str,
    pub block: &'a str,
    pub shared_bytes: u32,
    pub args: &'a [String],
    pub set: &'a [String],
}

pub(super) fn from_cli(cli: CliLaunch, compile: UserOptions) -> anyhow::Result<Plan> {
    let mut buffers = Vec::new();
    let mut args = Vec::new();
    for (i, text) in cli.args.iter().enumerate() {
        let shown = format!("--arg {text:?}");
        match spec::parse(text, Path::new("")).map_err(|e| anyhow::anyhow!("{shown}: {e}"))? {
            ValueSpec::Scalar { bytes, .. } => args.push(ArgRef::Value(bytes)),
            ValueSpec::Buffer(spec) => {
                let name = format!("arg{i}");
                args.push(ArgRef::Buffer {
                    name: name.clone(),
                    offset: 0,
                });
                buffers.push(Named { name, shown, spec });
            }
        }
    }
    let variables = cli
        .set
        .iter()
        .map(|text| variable(text, Path::new(""), format!("--set {text:?}")))
        .collect::<anyhow::Result<_>>()?;
    Ok(Plan {
        file: None,
        compile,
        buffers,
        variables,
        launches: vec![LaunchPlan {
            kernel: cli.kernel.to_string(),
            grid: dims(cli.grid)?,
            block: dims(cli.block)?,
            shared_bytes: cli.shared_bytes,
            args,
        }],
        outputs: None,
        out_dir: None,
    })
}

/// `NAME=SPEC`, as `--set` takes it.
fn variable(text: &str, base: &Path, shown: String) -> anyhow::Result<Named<ValueSpec>> {
    let Some((name, value)) = text.split_once('=') else {
        bail!("{shown}: expected NAME=VALUE, e.g. scale=f32=2.5 or coeffs=f32[16]=@c.npy");
    };
    let spec = spec::parse(value, base).map_err(|e| anyhow::anyhow!("{shown}: {e}"))?;
    Ok(Named {
        name: name.trim().to_string(),
        shown,
        spec,
    })
}

pub(super) fn dims(text: &str) -> anyhow::Result<[u32; 3]> {
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

/// The plan file's own shape (see the book's `runner sim` section for an example).
#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct PlanFile {
    file: Option<PathBuf>,
    #[serde(default)]
    include: Vec<PathBuf>,
    #[serde(default)]
    define: Vec<String>,
    outputs: Option<Vec<String>>,
    out: Option<PathBuf>,
    #[serde(default)]
    buffers: BTreeMap<String, String>,
    #[serde(default)]
    set: BTreeMap<String, String>,
    #[serde(default)]
    launch: Vec<LaunchFile>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct LaunchFile {
    kernel: String,
    grid: Dims,
    block: Dims,
    #[serde(default)]
    shared_bytes: u32,
    #[serde(default)]
    args: Vec<String>,
}

#[derive(Deserialize)]
#[serde(untagged)]
enum Dims {
    One(u32),
    Many(Vec<u32>),
    Text(String),
}

impl Dims {
    fn resolve(&self) -> anyhow::Result<[u32; 3]> {
        match self {
            Dims::One(x) => Ok([*x, 1, 1]),
            Dims::Many(v) => dims(&v.iter().map(u32::to_string).collect::<Vec<_>>().join(",")),
            Dims::Text(t) => dims(t),
        }
    }
}

/// Launches one plan may hold. Each keeps its report (figures per source line, diagnostics, up to
/// 1 MiB of printf) for the output: 200,000 launches took 6.6 GB with `--json`. A plan chains a
/// few kernels; repeated work belongs in a loop inside a kernel.
pub(super) const MAX_LAUNCHES: usize = 1000;

/// Bytes of a plan file: far past a plan of `MAX_LAUNCHES` launches, and short of what a file
/// that never ends (a FIFO, `/dev/zero`) would fill memory with.
const MAX_PLAN_BYTES: u64 = 4 << 20;

/// Reads a plan file; the paths in it are taken relative to its folder.
pub(super) fn from_file(path: &Path) -> anyhow::Result<Plan> {
    let shown = path.display();
    let text = read_plan_text(path)?;
    let file: PlanFile =
        toml::from_str(&text).with_context(|| format!("{shown} is not a plan runner sim reads"))?;
    let base = path.parent().unwrap_or(Path::new(""));
    from_parts(file, base).with_context(|| format!("in the plan {shown}"))
}

/// The plan's text, refused when it is not a regular file or is larger than any plan.
fn read_plan_text(path: &Path) -> anyhow::Result<String> {
    let shown = path.display();
    let file = runner::kernel_file::open_nonblocking(path)
        .with_context(|| format!("cannot read the plan {shown}: check the path"))?;
    let metadata = file.metadata()?;
    if !metadata.is_file() {
        bail!(
            "the plan {shown} is {}, not a file",
            runner::kernel_file::kind_of(&metadata)
        );
    }
    let mut bytes = Vec::new();
    file.take(MAX_PLAN_BYTES + 1)
        .read_to_end(&mut bytes)
        .with_context(|| format!("cannot read the plan {shown}"))?;
    if bytes.len() as u64 > MAX_PLAN_BYTES {
        bail!("the plan {shown} is larger than 4 MiB; a plan names buffers and a few launches");
    }
    String::from_utf8(bytes).with_context(|| format!("the plan {shown} is not UTF-8 text"))
}

fn from_parts(file: PlanFile, base: &Path) -> anyhow::Result<Plan> {
    if file.launch.is_empty() {
        bail!("no [[launch]]: add one with kernel, grid, block and args");
    }
    if file.launch.len() > MAX_LAUNCHES {
        bail!(
            "{} launches: a plan runs at most {MAX_LAUNCHES}; repeat the work in a loop inside the \
             kernel, or split the plan",
            file.launch.len()
        );
    }
    let mut buffers = Vec::new();
    for (name, text) in &file.buffers {
        check_name(name)?;
        let shown = format!("buffer `{name}`");
        let spec = match spec::parse(text, base).map_err(|e| anyhow::anyhow!("{shown}: {e}"))? {
            ValueSpec::Buffer(spec) => spec,
            ValueSpec::Scalar { .. } => {
                bail!("{shown} = {text:?} is a scalar; a buffer is TYPE[N], e.g. f32[1024]=zeros")
            }
        };
        buffers.push(Named {
            name: name.clone(),
            shown,
            spec,
        });
    }
    let mut variables = Vec::new();
    for (name, text) in &file.set {
        check_name(name)?;
        if file.buffers.contains_key(name) {
            bail!("`{name}` is both a buffer and a variable; rename the buffer");
        }
        variables.push(variable(
            &format!("{name}={text}"),
            base,
            format!("set.{name}"),
        )?);
    }
    let names: Vec<&str> = buffers.iter().map(|b| b.name.as_str()).collect();
    let launches = file
        .launch
        .iter()
        .enumerate()
        .map(|(i, l)| {
            launch(l, &names).with_context(|| format!("launch {} (`{}`)", i + 1, l.kernel))
        })
        .collect::<anyhow::Result<_>>()?;
    if let Some(outputs) = &file.outputs {
        for name in outputs {
            if !file.buffers.contains_key(name) && !file.set.contains_key(name) {
                bail!(
                    "outputs names `{name}`, which is neither a buffer nor a variable of the plan"
                );
            }
        }
    }
    Ok(Plan {
        file: file.file.map(|f| base.join(f)),
        compile: UserOptions {
            include_dirs: file.include.iter().map(|d| base.join(d)).collect(),
            defines: file.define,
        },
        buffers,
        variables,
        launches,
        outputs: file.outputs,
        out_dir: file.out.map(|o| base.join(o)),
    })
}

fn launch(l: &LaunchFile, buffers: &[&str]) -> anyhow::Result<LaunchPlan> {
    let args = l
        .args
        .iter()
        .enumerate()
        .map(|(i, text)| arg(text, buffers).with_context(|| format!("argument {} {text:?}", i + 1)))
        .collect::<anyhow::Result<_>>()?;
    Ok(LaunchPlan {
        kernel: l.kernel.clone(),
        grid: l.grid.resolve()?,
        block: l.block.resolve()?,
        shared_bytes: l.shared_bytes,
        args,
    })
}

/// A launch argument: a buffer's name, `NAME+OFFSET` (in elements), or a scalar `TYPE=V`.
fn arg(text: &str, buffers: &[&str]) -> anyhow::Result<ArgRef> {
    if text.contains('=') {
        return match spec::parse(text, Path::new("")).map_err(anyhow::Error::msg)? {
            ValueSpec::Scalar { bytes, .. } => Ok(ArgRef::Value(bytes)),
            ValueSpec::Buffer(_) => bail!("declare the buffer under [buffers] and pass its name"),
        };
    }
    let (name, offset) = match text.split_once('+') {
        Some((name, offset)) => (
            name.trim(),
            offset
                .trim()
                .parse()
                .with_context(|| format!("{offset:?} is not an offset in elements"))?,
        ),
        None => (text.trim(), 0),
    };
    if !buffers.contains(&name) {
        bail!(
            "not a buffer of the plan (it has: {}) nor a scalar like i32=5",
            buffers.join(", ")
        );
    }
    Ok(ArgRef::Buffer {
        name: name.to_string(),
        offset,
    })
}

/// Names become file names under the output folder, so they keep to a safe alphabet.
fn check_name(name: &str) -> anyhow::Result<()> {
    let fine = |c: char| c.is_ascii_alphanumeric() || c == '_';
    if name.is_empty() || !name.chars().all(fine) {
        bail!("`{name}` is not a name: use letters, digits and _");
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn plan(text: &str) -> anyhow::Result<Plan> {
        from_parts(toml::from_str(text)?, Path::new("plans"))
    }

    const CHAIN: &str = r#"
        file = "scan.cu"
        include = ["inc"]
        define = ["N=8"]
        outputs = ["y"]
        [buffers]
        x = "f32[8]=iota"
        y = "f32[8]=zeros"
        [set]
        scale = "f32=2"
        [[launch]]
        kernel = "copy"
        grid = 1
        block = [8]
        args = ["x", "y", "i32=8"]
        [[launch]]
        kernel = "add"
        grid = "1"
        block = 4
        shared_bytes = 64
        args = ["y", "y+4", "i32=4"]
    "#;

    #[test]
    fn a_plan_of_more_launches_than_the_bound_is_refused_before_anything_runs() {
        let launch = "[[launch]]\nkernel = \"k\"\ngrid = 1\nblock = 1\n";
        let at_bound = format!("[buffers]\n{}", launch.repeat(MAX_LAUNCHES));
        assert_eq!(plan(&at_bound).unwrap().launches.len(), MAX_LAUNCHES);
        let past = plan(&launch.repeat(MAX_LAUNCHES + 1))
            .err()
            .unwrap()
            .to_string();
        assert!(
            past.contains("1001 launches: a plan runs at most 1000"),
            "{past}"
        );
    }

    #[test]
    fn a_plan_that_is_not_a_file_or_too_large_is_refused_unread() {
        let dir = tempfile::tempdir().unwrap();
        let err = format!("{:#}", from_file(dir.path()).err().unwrap());
        assert!(err.contains("is a folder, not a file"), "{err}");
        let big = dir.path().join("big.toml");
        std::fs::write(&big, vec![b'#'; MAX_PLAN_BYTES as usize + 1]).unwrap();
        let err = format!("{:#}", from_file(&big).err().unwrap());
        assert!(err.contains("larger than 4 MiB"), "{err}");
    }

    /// Seeded mutations of a valid plan (a line dropped or repeated, a number made huge, a
    /// character changed) are read or refused, never a panic.
    #[test]
    fn mutated_plans_are_read_or_refused_never_a_panic() {
        let numbers = [
            "0",
            "-1",
            "4294967296",
            "18446744073709551615",
            "1e400",
            "\"\"",
        ];
        let mut state = 0x9e37_79b9_7f4a_7c15u64;
        let mut next = move |n: usize| {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            (state % n.max(1) as u64) as usize
        };
        for _ in 0..2000 {
            let mut lines: Vec<String> = CHAIN.lines().map(str::to_string).collect();
            for _ in 0..1 + next(3) {
                let at = next(lines.len());
                match next(4) {
                    0 => drop(lines.remove(at)),
                    1 => lines.insert(at, lines[at].clone()),
                    2 => {
                        lines[at] =
                            lines[at].replace(char::is_numeric, numbers[next(numbers.len())])
                    }
                    _ => lines[at] = lines[at].replacen(['"', '=', '[', ']', '+'], "", 1),
                }
                if lines.is_empty() {
                    break;
                }
            }
            let _ = plan(&lines.join("\n"));
        }
    }

    #[test]
    fn a_plan_chains_launches_over_named_buffers_with_offsets_and_aliases() {
        let p = plan(CHAIN).unwrap();
        assert_eq!(p.file, Some(PathBuf::from("plans/scan.cu")));
        assert_eq!(p.compile.include_dirs, [PathBuf::from("plans/inc")]);
        assert_eq!(p.buffers.len(), 2);
        assert_eq!(p.variables[0].name, "scale");
        let second = &p.launches[1];
        assert_eq!((second.block, second.shared_bytes), ([4, 1, 1], 64));
        let y = |offset| ArgRef::Buffer {
            name: "y".into(),
            offset,
        };
        assert_eq!(second.args[..2], [y(0), y(4)]);
        assert_eq!(second.args[2], ArgRef::Value(4i32.to_le_bytes().to_vec()));
    }

    #[test]
    fn an_unknown_buffer_or_output_is_named_with_what_the_plan_has() {
        let bad_arg = CHAIN.replace("\"y+4\"", "\"z\"");
        let err = format!("{:#}", plan(&bad_arg).err().unwrap());
        assert!(
            err.contains("launch 2 (`add`)") && err.contains("it has: x, y"),
            "{err}"
        );
        let bad_output = CHAIN.replace("outputs = [\"y\"]", "outputs = [\"q\"]");
        let err = format!("{:#}", plan(&bad_output).err().unwrap());
        assert!(err.contains("`q`"), "{err}");
        let err = format!("{:#}", plan("file = \"a.cu\"").err().unwrap());
        assert!(err.contains("no [[launch]]"), "{err}");
    }
}
