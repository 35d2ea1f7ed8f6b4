//! Sizes a PTX file declares (register counts, array lengths, alignments, parameter space), checked
//! as they are read, so that nothing is allocated or laid out from a size past what a GPU takes.

use super::{ParamDecl, Parser};
use crate::error::SimError;

/// Registers one `.reg .TY %r<N>;` may declare. NVRTC declares as many as a kernel uses, a few
/// thousand in the course's kernels and under a million in the largest unrolled ones; the
/// simulator gives a slot only to the registers used, so the bound keeps counts in range, not memory.
pub(crate) const MAX_REGISTERS: u64 = 1 << 24;

/// Bytes of one declared variable: the simulator's largest allocation. Tighter limits (48 KiB of
/// static shared memory, 512 KiB of local memory per thread, 64 KiB of constants) are ptxas's,
/// checked when the kernel is launched, as the driver does when it loads the module.
pub(crate) const MAX_VARIABLE_BYTES: u64 = u32::MAX as u64;

/// Bytes of parameters a kernel may take (CUDA 12.1 and later, on Volta and newer).
pub(crate) const MAX_KERNEL_PARAM_BYTES: u64 = 32764;

/// Largest `.align` accepted: a power of two that fits the layouts' 32-bit offsets.
const MAX_ALIGN: u64 = 1 << 31;

impl Parser<'_> {
    /// A declaration past a bound: valid syntax, so not a parse error, with the line and its text.
    fn refuse(&self, message: String) -> SimError {
        let line = self.line();
        let text = self.src.lines().nth(line as usize - 1).unwrap_or("").trim();
        SimError::Invalid {
            message: format!("`{text}`: {message}"),
            ptx_line: line,
            location: None,
        }
    }

    /// The `N` of `%r<N>`.
    pub(super) fn register_count(&mut self) -> Result<u32, SimError> {
        let n = self.int()?;
        if n > MAX_REGISTERS {
            return Err(self.refuse(format!(
                "declares {n} registers, past the {MAX_REGISTERS} one declaration may hold; \
                 declare only the registers the code uses (NVRTC declares as many as a kernel needs)"
            )));
        }
        Ok(n as u32)
    }

    /// The `N` of `.align N`.
    pub(super) fn alignment(&mut self) -> Result<u32, SimError> {
        let n = self.int()?;
        if !n.is_power_of_two() || n > MAX_ALIGN {
            return Err(self.refuse(format!(
                "alignment {n} is not a power of two up to {MAX_ALIGN}"
            )));
        }
        Ok(n as u32)
    }

    /// `count` elements of `elem_size` bytes, refused past `MAX_VARIABLE_BYTES`.
    pub(super) fn variable_bytes(
        &self,
        name: &str,
        count: u64,
        elem_size: u32,
    ) -> Result<u64, SimError> {
        match count.checked_mul(elem_size as u64) {
            Some(bytes) if bytes <= MAX_VARIABLE_BYTES => Ok(bytes),
            _ => Err(self.refuse(format!(
                "`{name}` declares {count} elements of {elem_size} bytes, past the 4 GiB the simulator \
                 holds in one variable"
            ))),
        }
    }

    /// A kernel's parameters take at most `MAX_KERNEL_PARAM_BYTES`, as ptxas requires: a driver
    /// refuses to load a module past it, before any launch.
    pub(super) fn check_kernel_params(
        &self,
        kernel: &str,
        params: &[ParamDecl],
    ) -> Result<(), SimError> {
        let mut end = 0u64;
        for p in params {
            end = super::align_up(end, p.align as u64) + p.size as u64;
        }
        if end <= MAX_KERNEL_PARAM_BYTES {
            return Ok(());
        }
        Err(SimError::TooManyResources {
            ptxas: format!(
                "Entry function '{kernel}' uses too much parameter space ({end:#x} bytes, \
                 {MAX_KERNEL_PARAM_BYTES:#x} max)"
            ),
            advice:
                "a kernel's parameters hold at most 32764 bytes; pass large data through a pointer \
                     to device memory (cudaMalloc and cudaMemcpy)"
                    .into(),
        })
    }
}
