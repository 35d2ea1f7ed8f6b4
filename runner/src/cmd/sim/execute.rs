//! A plan carried out on one simulated machine: buffers allocated and filled, variables set,
//! the launches run in order over the same memory, and the outputs read back and written.

use super::files;
use super::plan::{ArgRef, Plan};
use super::spec::ValueSpec;
use super::types::ElemType;
use anyhow::{bail, Context};
use checks::random::Rng;
use std::path::PathBuf;

pub(super) struct Settings {
    pub seed: u64,
    /// Each launch's own limits.
    pub limits: sim::Limits,
    pub gpu: sim::GpuModel,
}

/// One launch as it ran.
pub(super) struct Ran {
    /// The kernel's name in the module (mangled where it was declared without `extern "C"`).
    pub kernel: String,
    pub grid: [u32; 3],
    pub block: [u32; 3],
    pub shared_bytes: u32,
    pub report: sim::LaunchReport,
    pub modelled: sim::ModelledTime,
}

pub(super) struct Finished {
    pub launches: Vec<Ran>,
    /// Launches planned; fewer ran when one was stopped (out of bounds, a hang, ...).
    pub planned: usize,
    pub written: Vec<Written>,
}

pub(super) struct Written {
    pub name: String,
    pub path: PathBuf,
    pub ty: ElemType,
    pub len: u64,
}

impl Finished {
    pub(super) fn aborted(&self) -> bool {
        self.launches.iter().any(|l| l.report.aborted)
    }
}

/// Something in device memory that has a name: a buffer or a variable.
struct Placed {
    name: String,
    ty: ElemType,
    addr: u64,
    bytes: u64,
}

pub(super) fn execute(
    plan: &Plan,
    module: &sim::Module,
    file: &str,
    settings: &Settings,
) -> anyhow::Result<Finished> {
    let entries = plan
        .launches
        .iter()
        .map(|l| entry(module, file, &l.kernel))
        .collect::<anyhow::Result<Vec<_>>>()?;
    let mut machine = sim::Machine::new();
    let mut rng = Rng::new(settings.seed);
    let mut buffers = Vec::new();
    for b in &plan.buffers {
        let bytes = b
            .spec
            .contents(None, &mut rng)
            .with_context(|| b.shown.clone())?;
        let addr = machine
            .try_alloc(bytes.len() as u64)
            .map_err(|e| anyhow::anyhow!("{}: {e}", b.shown))?;
        machine.write(addr, &bytes)?;
        buffers.push(Placed {
            name: b.name.clone(),
            ty: b.spec.ty,
            addr,
            bytes: bytes.len() as u64,
        });
    }
    let mut variables = Vec::new();
    for v in &plan.variables {
        variables.push(set_variable(&mut machine, module, file, v, &mut rng)?);
    }
    let mut launches = Vec::new();
    for (i, (l, kernel)) in plan.launches.iter().zip(entries).enumerate() {
        let params = l
            .args
            .iter()
            .map(|a| param(a, &buffers))
            .collect::<anyhow::Result<_>>()?;
        let launch = sim::Launch {
            kernel: kernel.clone(),
            grid: l.grid,
            block: l.block,
            dynamic_shared_bytes: l.shared_bytes,
            params,
            limits: settings.limits.clone(),
        };
        let mut report =
            machine
                .launch(module, &launch)
                .map_err(|e| match plan.launches.len() {
                    1 => anyhow::anyhow!("{e}"),
                    _ => anyhow::anyhow!("launch {} (`{}`): {e}", i + 1, l.kernel),
                })?;
        crate::backend::sim::relativise_paths(&mut report);
        let aborted = report.aborted;
        launches.push(Ran {
            kernel,
            grid: l.grid,
            block: l.block,
            shared_bytes: l.shared_bytes,
            modelled: report.modelled_on(&settings.gpu),
            report,
        });
        if aborted {
            break;
        }
    }
    let written = write_outputs(plan, &machine, &buffers, &variables)?;
    Ok(Finished {
        launches,
        planned: plan.launches.len(),
        written,
    })
}

/// The module's name for the kernel a user calls `wanted`, or why it cannot run.
fn entry(module: &sim::Module, file: &str, wanted: &str) -> anyhow::Result<String> {
    if let Some(why) = module.lowering_error(wanted) {
        bail!("{file}: kernel `{wanted}` cannot run in the simulator: {why}");
    }
    let names: Vec<String> = module.kernels().into_iter().map(|k| k.name).collect();
    match entry_name(wanted, &names) {
        Some(name) => Ok(name),
        None => bail!(
            "{file} has no kernel `{wanted}`; it has: {}",
            names.join(", ")
        ),
    }
}

/// The kernel a user means by `wanted`: the name itself, or the one kernel whose C++ (Itanium)
/// mangled name is `_Z<length><wanted>...` (a `__global__` function without `extern "C"`).
pub(super) fn entry_name(wanted: &str, names: &[String]) -> Option<String> {
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

/// The module's variables a user can set: printf's format strings (`$str`) are NVRTC's own.
fn settable(module: &sim::Module) -> String {
    let names: Vec<String> = module
        .variables()
        .into_iter()
        .filter(|n| !n.starts_with('$'))
        .collect();
    if names.is_empty() {
        "none".into()
    } else {
        names.join(", ")
    }
}

fn set_variable(
    machine: &mut sim::Machine,
    module: &sim::Module,
    file: &str,
    v: &super::plan::Named<ValueSpec>,
    rng: &mut Rng,
) -> anyhow::Result<Placed> {
    let shown = &v.shown;
    let Some((addr, size)) = machine.symbol(module, &v.name)? else {
        bail!(
            "{shown}: {file} has no __device__ or __constant__ variable `{}`; it has: {}",
            v.name,
            settable(module)
        );
    };
    let (ty, bytes) = match &v.spec {
        ValueSpec::Scalar { ty, bytes } => (*ty, bytes.clone()),
        ValueSpec::Buffer(b) => {
            let elem = b.ty.bytes() as u64;
            if size % elem != 0 {
                bail!("{shown}: `{}` holds {size} bytes, not a whole number of {} ({elem} bytes each)", v.name, b.ty);
            }
            let bytes = b
                .contents(Some(size / elem), rng)
                .with_context(|| format!("{shown}: `{}` ({size} bytes)", v.name))?;
            (b.ty, bytes)
        }
    };
    if bytes.len() as u64 != size {
        bail!(
            "{shown}: `{}` holds {size} bytes; the value has {} ({ty}{})",
            v.name,
            bytes.len(),
            if size % ty.bytes() as u64 == 0 {
                format!("; the variable fits {ty}[{}]", size / ty.bytes() as u64)
            } else {
                String::new()
            }
        );
    }
    machine.write(addr, &bytes)?;
    Ok(Placed {
        name: v.name.clone(),
        ty,
        addr,
        bytes: size,
    })
}

fn param(arg: &ArgRef, buffers: &[Placed]) -> anyhow::Result<Vec<u8>> {
    match arg {
        ArgRef::Value(bytes) => Ok(bytes.clone()),
        ArgRef::Buffer { name, offset } => {
            let b = buffers
                .iter()
                .find(|b| &b.name == name)
                .expect("the plan checked its buffer names");
            let at = offset * b.ty.bytes() as u64;
            if at > b.bytes {
                bail!(
                    "{name}+{offset} is past the end of `{name}`, which holds {} elements",
                    b.bytes / b.ty.bytes() as u64
                );
            }
            Ok((b.addr + at).to_le_bytes().to_vec())
        }
    }
}

fn write_outputs(
    plan: &Plan,
    machine: &sim::Machine,
    buffers: &[Placed],
    variables: &[Placed],
) -> anyhow::Result<Vec<Written>> {
    let Some(dir) = &plan.out_dir else {
        return Ok(Vec::new());
    };
    std::fs::create_dir_all(dir)
        .with_context(|| format!("cannot make the folder {}", dir.display()))?;
    let chosen = |p: &&Placed| plan.outputs.as_ref().is_none_or(|o| o.contains(&p.name));
    let mut written = Vec::new();
    for p in buffers.iter().chain(variables).filter(chosen) {
        let bytes = machine.read(p.addr, p.bytes)?;
        let path = dir.join(format!("{}.npy", p.name));
        files::write_npy(&path, p.ty, &bytes)?;
        written.push(Written {
            name: p.name.clone(),
            path,
            ty: p.ty,
            len: p.bytes / p.ty.bytes() as u64,
        });
    }
    Ok(written)
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
