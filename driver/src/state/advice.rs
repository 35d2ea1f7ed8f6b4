//! Managed memory's advice and prefetch targets as the state keeps them, and the locations the
//! entry points name them by (`managed` checks and answers them; pass-through records them).

use super::Result;
use cudarc::driver::sys::cudaError_enum as E;
use std::collections::HashMap;
use std::ffi::c_int;

/// `CU_DEVICE_CPU`, as a device ordinal in advice and range attributes.
pub(crate) const CPU: c_int = -1;

/// The advice and prefetches given for one managed block.
#[derive(Clone, Default, Debug, PartialEq)]
pub(crate) struct Advice {
    pub(crate) read_mostly: bool,
    pub(crate) preferred: Option<c_int>,
    pub(crate) accessed_by: Vec<c_int>,
    pub(crate) last_prefetch: Option<c_int>,
}

/// Advice by managed block start.
pub(crate) type AdviceTable = HashMap<u64, Advice>;

/// `CUmemLocation`, read as plain integers (a value outside the enumeration is no UB here).
#[repr(C)]
#[derive(Clone, Copy)]
pub(crate) struct Location {
    pub(crate) kind: c_int,
    pub(crate) id: c_int,
}

impl Location {
    /// The location as a device ordinal: the device, or `CU_DEVICE_CPU` for the host.
    pub(crate) fn ordinal(self) -> Result<c_int> {
        match (self.kind, self.id) {
            (1, 0) => Ok(0),
            // Host, host NUMA node, current NUMA node: the host.
            (2..=4, _) => Ok(CPU),
            (1, _) => Err(E::CUDA_ERROR_INVALID_DEVICE),
            _ => Err(E::CUDA_ERROR_INVALID_VALUE),
        }
    }
}

/// Where a prefetch to device ordinal `to` (the device, or `CU_DEVICE_CPU`) goes, as recorded.
pub(crate) fn destination(to: c_int) -> contract::Destination {
    if to == CPU {
        contract::Destination::Host
    } else {
        contract::Destination::Device
    }
}
