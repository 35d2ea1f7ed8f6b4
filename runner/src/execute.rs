//! Running one test case on a backend: buffers with guard zones, poisoned outputs, the launch,
//! the read-back and the guard check.

use crate::backend::{Backend, BackendError, DevicePtr, KernelLaunch, LaunchDetails, ModuleId};
use checks::{Arg, Case, HostData, Role};
use std::time::{Duration, Instant};

/// Bytes of known pattern before and after every buffer on a GPU, so a write a little out of
/// bounds, which a GPU does not fault on, is still caught. 256 keeps the buffer 256-aligned.
const GUARD_BYTES: usize = 1024;
const GUARD_PATTERN: u8 = 0xCD;

/// The buffers of one case on the device.
pub struct Prepared {
    buffers: Vec<Allocation>,
    params: Vec<Vec<u8>>,
    guarded: bool,
    /// The time the inputs took to copy to the device (guard zones and poison included).
    pub copy_in: Duration,
}

struct Allocation {
    name: String,
    base: DevicePtr,
    len: usize,
    role: Role,
    like: HostData,
}

impl Allocation {
    fn data_ptr(&self, guarded: bool) -> DevicePtr {
        self.base + if guarded { GUARD_BYTES as u64 } else { 0 }
    }
}

/// What one run of a case gave back.
pub struct CaseRun {
    /// Each output buffer as read back, by its name.
    pub outputs: Vec<(String, HostData)>,
    /// The time the inputs took to copy in.
    pub copy_in: Duration,
    /// The time the outputs (and their guard zones) took to read back.
    pub copy_out: Duration,
    /// The simulator's report of the launch; none on a GPU.
    pub details: LaunchDetails,
}

impl Prepared {
    /// Allocates and fills the case's buffers: inputs with their data, outputs with poison.
    pub fn new(backend: &mut dyn Backend, case: &Case) -> Result<Prepared, BackendError> {
        let guarded = backend.needs_guard_zones();
        let mut prepared = Prepared {
            buffers: Vec::new(),
            params: Vec::new(),
            guarded,
            copy_in: Duration::ZERO,
        };
        for arg in &case.args {
            match arg {
                Arg::Scalar { value, .. } => prepared.params.push(value.to_bytes()),
                Arg::Buffer(buffer) => {
                    let len = buffer.data.byte_len();
                    let guard = if guarded { GUARD_BYTES } else { 0 };
                    let base = match backend.alloc(len + 2 * guard) {
                        Ok(base) => base,
                        Err(err) => {
                            prepared.free(backend);
                            return Err(err);
                        }
                    };
                    let started = Instant::now();
                    let written = write_guarded(backend, base, buffer.data.as_bytes(), guard);
                    prepared.copy_in += started.elapsed();
                    let allocation = Allocation {
                        name: buffer.name.clone(),
                        base,
                        len,
                        role: buffer.role,
                        // Only the type is needed later, to read the output back.
                        like: buffer.data.zeros_like(0),
                    };
                    prepared
                        .params
                        .push(allocation.data_ptr(guarded).to_le_bytes().to_vec());
                    prepared.buffers.push(allocation);
                    if let Err(err) = written {
                        prepared.free(backend);
                        return Err(err);
                    }
                }
            }
        }
        Ok(prepared)
    }

    /// The launch of `case` on these buffers, stopped as a hang after `time_limit`.
    pub fn launch_of<'a>(&'a self, case: &'a Case, time_limit: Duration) -> KernelLaunch<'a> {
        KernelLaunch {
            kernel: &case.kernel,
            launch: case.launch,
            params: &self.params,
            time_limit,
        }
    }

    /// Reads the outputs back and checks every guard zone.
    pub fn read_outputs(
        &self,
        backend: &mut dyn Backend,
    ) -> Result<(Vec<(String, HostData)>, Duration), BackendError> {
        let started = Instant::now();
        let mut outputs = Vec::new();
        for buffer in &self.buffers {
            if self.guarded && buffer.role == Role::Input {
                // Only the guard zones: an input's content is not needed back.
                let before = backend.read(buffer.base, GUARD_BYTES)?;
                let after =
                    backend.read(buffer.base + (GUARD_BYTES + buffer.len) as u64, GUARD_BYTES)?;
                check_guards(buffer, &before, &after)?;
            } else if buffer.role != Role::Input {
                // Straight into the typed array: one copy, for outputs of tens of megabytes.
                let mut data = buffer
                    .like
                    .zeros_like(buffer.len / buffer.like.element_bytes());
                backend.read_into(buffer.data_ptr(self.guarded), data.as_bytes_mut())?;
                if self.guarded {
                    let before = backend.read(buffer.base, GUARD_BYTES)?;
                    let after = backend
                        .read(buffer.base + (GUARD_BYTES + buffer.len) as u64, GUARD_BYTES)?;
                    check_guards(buffer, &before, &after)?;
                }
                outputs.push((buffer.name.clone(), data));
            }
        }
        Ok((outputs, started.elapsed()))
    }

    /// What a watched launch records for elements `indices` of output `buffer`, with every
    /// buffer named so that where a value was loaded reads `a[5]`; None for an unknown buffer.
    pub fn watch(&self, buffer: &str, indices: &[usize]) -> Option<sim::Watch> {
        let output = self.buffers.iter().find(|b| b.name == buffer)?;
        let size = output.like.element_bytes();
        let at = |i: usize| sim::WatchedElement {
            address: output.data_ptr(self.guarded) + (i * size) as u64,
            bytes: size as u32,
        };
        let named = |b: &Allocation| sim::NamedBuffer {
            name: b.name.clone(),
            address: b.data_ptr(self.guarded),
            bytes: b.len as u64,
            element_bytes: b.like.element_bytes() as u32,
        };
        Some(sim::Watch {
            elements: indices.iter().map(|&i| at(i)).collect(),
            buffers: self.buffers.iter().map(named).collect(),
            threads: Vec::new(),
        })
    }

    /// Gives the buffers back to the device.
    pub fn free(self, backend: &mut dyn Backend) {
        for buffer in &self.buffers {
            backend.free(buffer.base);
        }
    }
}

/// Writes `data` at `base + guard`, with `guard` bytes of the guard pattern on either side.
fn write_guarded(
    backend: &mut dyn Backend,
    base: DevicePtr,
    data: &[u8],
    guard: usize,
) -> Result<(), BackendError> {
    if guard > 0 {
        let pattern = vec![GUARD_PATTERN; guard];
        backend.write(base, &pattern)?;
        backend.write(base + (guard + data.len()) as u64, &pattern)?;
    }
    backend.write(base + guard as u64, data)
}

/// Checks the guard zones read back from before and after a buffer.
fn check_guards(buffer: &Allocation, before: &[u8], after: &[u8]) -> Result<(), BackendError> {
    let before = before.iter().rposition(|&b| b != GUARD_PATTERN);
    let after = after.iter().position(|&b| b != GUARD_PATTERN);
    let element = buffer.like.element_bytes();
    let message = match (before, after) {
        (Some(at), _) => format!(
            "the kernel wrote before the start of `{}`, {} bytes ahead of element 0 (around index -{}): an index went below zero",
            buffer.name,
            GUARD_BYTES - at,
            (GUARD_BYTES - at).div_ceil(element)
        ),
        (None, Some(at)) => format!(
            "the kernel wrote past the end of `{}`, which has {} elements: around index {} (is the bounds check missing or off by one?)",
            buffer.name,
            buffer.len / element,
            buffer.len / element + at / element
        ),
        (None, None) => return Ok(()),
    };
    Err(BackendError::OutOfBounds(message))
}

/// Runs `case` once: prepare, launch, read back. The buffers stay on the device, so a large case
/// can be timed next without copying its data again; `Prepared::free` releases them.
pub fn run_case(
    backend: &mut dyn Backend,
    module: ModuleId,
    case: &Case,
    time_limit: Duration,
) -> Result<(CaseRun, Prepared), BackendError> {
    let prepared = Prepared::new(backend, case)?;
    crate::trace::mark("buffers allocated and copied in");
    let details = match backend.launch(module, &prepared.launch_of(case, time_limit)) {
        Ok(details) => details,
        Err(err) => {
            prepared.free(backend);
            return Err(err);
        }
    };
    crate::trace::mark("kernel run");
    let (outputs, copy_out) = match prepared.read_outputs(backend) {
        Ok(read) => read,
        Err(err) => {
            prepared.free(backend);
            return Err(err);
        }
    };
    crate::trace::mark("outputs read back");
    Ok((
        CaseRun {
            outputs,
            copy_in: prepared.copy_in,
            copy_out,
            details,
        },
        prepared,
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn allocation(len: usize) -> Allocation {
        Allocation {
            name: "c".into(),
            base: 0,
            len,
            role: Role::Output,
            like: HostData::F32(vec![0.0; len / 4]),
        }
    }

    #[test]
    fn untouched_guards_pass_and_a_write_past_the_end_names_the_index() {
        let buffer = allocation(40);
        let before = vec![GUARD_PATTERN; GUARD_BYTES];
        let mut after = vec![GUARD_PATTERN; GUARD_BYTES];
        assert!(check_guards(&buffer, &before, &after).is_ok());
        after[0] = 0;
        let message = check_guards(&buffer, &before, &after)
            .unwrap_err()
            .to_string();
        assert!(
            message.contains("past the end of `c`") && message.contains("index 10"),
            "{message}"
        );
    }

    #[test]
    fn a_write_before_the_start_is_caught() {
        let buffer = allocation(40);
        let mut before = vec![GUARD_PATTERN; GUARD_BYTES];
        before[GUARD_BYTES - 4] = 1;
        let after = vec![GUARD_PATTERN; GUARD_BYTES];
        let message = check_guards(&buffer, &before, &after)
            .unwrap_err()
            .to_string();
        assert!(
            message.contains("before the start") && message.contains("index -1"),
            "{message}"
        );
    }
}
