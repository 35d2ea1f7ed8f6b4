//! What a launch reports: memory figures (named after Nsight Compute's metrics) per kernel and per
//! source line, diagnostics, printf output.

mod access;
mod modelled;

use crate::instructions::InstructionCounts;
use crate::source::SourceLocation;
pub(crate) use access::lane_list;
pub use access::{AccessFault, AccessOp, BadAccess, GlobalMiss, MemorySpace, NearAllocation};
pub use modelled::{
    KernelShape, ModelledTime, Occupancy, OccupancyLimit, Resource, ResourceTimes, Traffic,
};
use serde::{Deserialize, Serialize};
use std::ops::AddAssign;

/// Memory traffic counts. Names follow Nsight Compute: a *request* is one warp-wide memory
/// instruction with at least one lane taking part; a *sector* an aligned 32-byte block of global
/// memory touched by it; a *wavefront* one pass of the shared-memory banks.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Figures {
    /// `l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum`
    pub global_load_requests: u64,
    /// `l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum`
    pub global_load_sectors: u64,
    /// `l1tex__t_requests_pipe_lsu_mem_global_op_st.sum`
    pub global_store_requests: u64,
    /// `l1tex__t_sectors_pipe_lsu_mem_global_op_st.sum`
    pub global_store_sectors: u64,
    /// Atomics and reductions (`_op_atom` plus `_op_red`).
    pub global_atomic_requests: u64,
    /// 32-byte sectors the atomics and reductions touched.
    pub global_atomic_sectors: u64,
    /// `smsp__sass_inst_executed_op_shared_ld.sum`
    pub shared_load_requests: u64,
    /// `l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum`
    pub shared_load_wavefronts: u64,
    /// Wavefronts beyond the ideal (1, 2 or 4 per request for 4-, 8- and 16-byte accesses).
    pub shared_load_bank_conflicts: u64,
    /// `smsp__sass_inst_executed_op_shared_st.sum`
    pub shared_store_requests: u64,
    /// `l1tex__data_pipe_lsu_wavefronts_mem_shared_op_st.sum`
    pub shared_store_wavefronts: u64,
    /// Store wavefronts beyond the ideal, as for loads.
    pub shared_store_bank_conflicts: u64,
    /// Warp atomics on shared memory.
    pub shared_atomic_requests: u64,
}

fn ratio(a: u64, b: u64) -> f64 {
    if b == 0 {
        0.0
    } else {
        a as f64 / b as f64
    }
}

impl Figures {
    /// `l1tex__average_t_sectors_per_request_pipe_lsu_mem_global_op_ld.ratio` (0 when no loads).
    pub fn load_sectors_per_request(&self) -> f64 {
        ratio(self.global_load_sectors, self.global_load_requests)
    }
    /// `l1tex__average_t_sectors_per_request_pipe_lsu_mem_global_op_st.ratio` (0 when no stores).
    pub fn store_sectors_per_request(&self) -> f64 {
        ratio(self.global_store_sectors, self.global_store_requests)
    }
    /// Shared-memory wavefronts per load request (0 when no loads).
    pub fn shared_load_wavefronts_per_request(&self) -> f64 {
        ratio(self.shared_load_wavefronts, self.shared_load_requests)
    }
    /// Shared-memory wavefronts per store request (0 when no stores).
    pub fn shared_store_wavefronts_per_request(&self) -> f64 {
        ratio(self.shared_store_wavefronts, self.shared_store_requests)
    }
    /// Bank conflicts of shared loads and stores together.
    pub fn shared_bank_conflicts(&self) -> u64 {
        self.shared_load_bank_conflicts + self.shared_store_bank_conflicts
    }
    /// Whether nothing was counted.
    pub fn is_empty(&self) -> bool {
        *self == Figures::default()
    }
}

impl AddAssign<&Figures> for Figures {
    fn add_assign(&mut self, o: &Figures) {
        self.global_load_requests += o.global_load_requests;
        self.global_load_sectors += o.global_load_sectors;
        self.global_store_requests += o.global_store_requests;
        self.global_store_sectors += o.global_store_sectors;
        self.global_atomic_requests += o.global_atomic_requests;
        self.global_atomic_sectors += o.global_atomic_sectors;
        self.shared_load_requests += o.shared_load_requests;
        self.shared_load_wavefronts += o.shared_load_wavefronts;
        self.shared_load_bank_conflicts += o.shared_load_bank_conflicts;
        self.shared_store_requests += o.shared_store_requests;
        self.shared_store_wavefronts += o.shared_store_wavefronts;
        self.shared_store_bank_conflicts += o.shared_store_bank_conflicts;
        self.shared_atomic_requests += o.shared_atomic_requests;
    }
}

impl AddAssign for Figures {
    fn add_assign(&mut self, o: Figures) {
        *self += &o;
    }
}

/// The figures of one CUDA source line.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct LineFigures {
    /// The source file, as NVRTC was given it.
    pub file: String,
    /// Line in that file, from 1.
    pub line: u32,
    /// The memory figures of the line's instructions.
    pub figures: Figures,
    /// Warp instructions the line's code executed, by kind.
    #[serde(default)]
    pub instructions: InstructionCounts,
}

/// What a diagnostic found.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum DiagnosticKind {
    /// A byte outside every live allocation, the block's shared memory or the thread's local frame.
    OutOfBounds,
    /// An address that is not a multiple of the access size.
    Misaligned,
    /// Two threads touched the same shared bytes between barriers, at least one writing.
    SharedRace,
    /// Two threads touched the same global bytes in one launch, at least one writing, not both
    /// atomically, with nothing ordering them (a barrier, within a block).
    GlobalRace,
    /// A barrier that not every thread of the block reached.
    DivergentBarrier,
    /// Every thread waits and none can go on.
    Deadlock,
    /// Every thread waits, some of them in a warp-synchronous operation (a shuffle, a vote,
    /// `__syncwarp`) for lanes of its mask that wait at a barrier or have exited: the mask is
    /// what is wrong, not a loop that never ends.
    WarpSyncDeadlock,
    /// The launch ran past `Limits::max_warp_instructions`.
    Timeout,
    /// A `.sync` warp operation whose mask names lanes that did not take part.
    InconsistentMask,
    /// `trap` or `brkpt` (a GPU answers `CUDA_ERROR_LAUNCH_FAILED`), or local memory the
    /// simulator could not find host memory for.
    Trap,
    /// A failed `assert()` (`__assertfail`: a GPU answers `CUDA_ERROR_ASSERT`).
    Assert,
    /// A read of shared memory that no thread of the block had written: found only in the
    /// watched re-run that explains a wrong output, never a verdict of its own.
    UnwrittenShared,
}

impl DiagnosticKind {
    /// Whether the GPU would stop the kernel here (the simulator then aborts the launch).
    pub fn is_fatal(self) -> bool {
        !matches!(
            self,
            DiagnosticKind::SharedRace
                | DiagnosticKind::GlobalRace
                | DiagnosticKind::DivergentBarrier
                | DiagnosticKind::InconsistentMask
                | DiagnosticKind::UnwrittenShared
        )
    }
}

/// A diagnostic's identity for deduplication: kind and the source sites involved.
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
pub(crate) struct DiagKey(pub DiagnosticKind, pub u32, pub u32);

/// A fault or hazard the simulator found in a launch, at the thread and line that met it first.
#[derive(Clone, Debug, Serialize, Deserialize)]
pub struct Diagnostic {
    /// What was found.
    pub kind: DiagnosticKind,
    /// Index of the thread's block.
    pub block: [u32; 3],
    /// Index of the thread in its block.
    pub thread: [u32; 3],
    /// The CUDA source line (None without line info).
    pub location: Option<SourceLocation>,
    /// One sentence with the details: address, allocation, size, lanes.
    pub message: String,
    /// For a race: both accesses and the memory they touched.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub race: Option<Box<Race>>,
    /// For an access out of bounds or misaligned: the memory, address, lanes and the allocation
    /// it was nearest; `message` is [`BadAccess::message`].
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub access: Option<Box<BadAccess>>,
}

/// A race's facts, for readers that name things in their own words (a buffer's name for an
/// argument, Numba's for a barrier).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Race {
    /// The access reported (the diagnostic's own block, thread and line), then the other one.
    pub accesses: [RaceAccess; 2],
    /// The memory both touched.
    pub place: RacePlace,
    /// Where the diagnostic's message names `place` (a byte range of it, `[start, end)`), so a
    /// reader that knows the memory by another name (a buffer's parameter name, Numba's words)
    /// renders the sentence with that name in place, without searching the message.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub place_words: Option<[usize; 2]>,
}

impl Race {
    /// Where `words` stand in `message`, as [`Race::place_words`] keeps it.
    pub fn words_in(message: &str, words: &str) -> Option<[usize; 2]> {
        message.find(words).map(|at| [at, at + words.len()])
    }
}

/// The memory two racing accesses share.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "memory", rename_all = "snake_case")]
pub enum RacePlace {
    /// Global memory.
    Global {
        /// The kernel parameter (0-based, as the PTX declares them) whose pointer reaches the
        /// element: the closest below it in the same allocation.
        argument: Option<u32>,
        /// The `__device__` variable holding the element, where no argument points into it.
        variable: Option<String>,
        /// The element's index from that pointer or variable, in elements of the access's size.
        element: Option<u64>,
        /// The device address the reported access touched.
        address: u64,
    },
    /// The block's shared memory.
    Shared {
        /// The `__shared__` variable, as the source names it (`None`: dynamic shared memory).
        variable: Option<String>,
        /// The byte offset within the variable, or else within the block's shared memory.
        byte: u64,
    },
}

/// One access of a racing pair.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct RaceAccess {
    /// Index of the thread's block.
    pub block: [u32; 3],
    /// Index of the thread in its block.
    pub thread: [u32; 3],
    /// The CUDA source line of the access (None without line info).
    pub location: Option<SourceLocation>,
    /// Whether it read, wrote or was atomic.
    pub access: AccessKind,
}

/// What an access does to memory, as race detection sees it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum AccessKind {
    /// A plain load.
    Read,
    /// A plain load whose value is the expected value of a compare-and-swap on the same word
    /// (the first read of a CAS loop): it races with plain stores only.
    CasRead,
    /// A plain store.
    Write,
    /// An atomic read-modify-write (`atom`, `red`).
    Atomic,
}

impl AccessKind {
    /// Whether two kinds of access to the same bytes by unordered threads race: atomics among
    /// themselves never do, nor do reads; a compare-and-swap's expected value may be read next
    /// to atomics; a plain store races with everything.
    pub fn races_with(self, other: AccessKind) -> bool {
        use AccessKind::*;
        matches!(
            (self, other),
            (Write, _) | (_, Write) | (Read, Atomic) | (Atomic, Read)
        )
    }

    /// Whether the access changes memory.
    pub fn writes(self) -> bool {
        matches!(self, AccessKind::Write | AccessKind::Atomic)
    }

    /// Whether the access is a plain load or store (not atomic, not a CAS loop's first read).
    pub fn is_plain(self) -> bool {
        matches!(self, AccessKind::Read | AccessKind::Write)
    }
}

/// What one launch did: its figures overall and per line, what went wrong, what it printed and
/// its modelled time.
#[derive(Clone, Debug, Default, Serialize)]
pub struct LaunchReport {
    /// The memory figures of the whole launch.
    pub figures: Figures,
    /// Per source line that executed any instruction, sorted by (file, line).
    pub lines: Vec<LineFigures>,
    /// Faults and hazards found, at most `Limits::max_diagnostics`.
    pub diagnostics: Vec<Diagnostic>,
    /// Everything the kernel printed, ordered by block, then warp, then printf call, then lane.
    pub printf: String,
    /// A fatal error (out of bounds, misaligned, trap, deadlock, timeout) stopped the kernel.
    pub aborted: bool,
    /// Warp instructions executed, summed over warps.
    pub warp_instructions: u64,
    /// The same warp instructions by kind.
    pub instructions: InstructionCounts,
    /// Per-launch counts for the time model: unique sectors, lines, barriers, atomics.
    pub traffic: Traffic,
    /// The launch's shape as the time model sees it (occupancy inputs).
    pub shape: KernelShape,
    /// Modelled time on an H100 SXM; [`LaunchReport::modelled_on`] gives another GPU's.
    pub modelled: ModelledTime,
}

/// How far a launch may go.
#[derive(Clone, Debug)]
pub struct Limits {
    /// Warp instructions for the whole launch before it stops with a `Timeout` diagnostic.
    pub max_warp_instructions: u64,
    /// Diagnostics kept in the report (the first ones, in block order).
    pub max_diagnostics: usize,
    /// CPU threads running blocks; 0 means one per core.
    pub threads: usize,
    /// A backstop for kernels the budget undercounts: the launch also stops with a `Timeout`
    /// diagnostic after this much wall time (which, unlike the budget, depends on the machine).
    pub max_wall_time: Option<std::time::Duration>,
    /// The clock (`%clock64`, which ticks at 1 GHz in the simulator) a warp may read before the
    /// launch stops with a `Timeout` diagnostic: a time limit of `s` seconds is `s * 1e9`. Waits
    /// on the clock are skipped through (see `exec::clock`), so the budget alone cannot stop them.
    pub max_clock: u64,
    /// What an access past an allocation's end, inside its 256-byte granule, does.
    pub past_the_end: PastTheEnd,
}

/// What a global access past the end of a `cudaMalloc` allocation, but inside its 256-byte
/// granule, does. A GPU maps the granule, so it does not fault there: the bug goes unseen.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum PastTheEnd {
    /// It stops the kernel with an `OutOfBounds` diagnostic, as any access outside an
    /// allocation does: the course's checks, where the bug is the point.
    #[default]
    Fault,
    /// It is reported (an `OutOfBounds` diagnostic, once per line, in a launch that goes on)
    /// and reads or writes the granule's padding, as on a GPU: a whole program (`runner run`)
    /// runs on as it would there. Accesses past the granule still stop the kernel.
    Report,
}

impl Default for Limits {
    fn default() -> Self {
        Limits {
            max_warp_instructions: 2_000_000_000,
            max_diagnostics: 20,
            threads: 0,
            max_wall_time: None,
            // 200 s, as the budget of warp instructions at 10 million a second.
            max_clock: 200_000_000_000,
            past_the_end: PastTheEnd::Fault,
        }
    }
}

/// One kernel launch.
#[derive(Clone, Debug)]
pub struct Launch {
    /// The kernel's entry name.
    pub kernel: String,
    /// Blocks per grid in x, y, z.
    pub grid: [u32; 3],
    /// Threads per block in x, y, z.
    pub block: [u32; 3],
    /// Dynamic shared memory per block, in bytes.
    pub dynamic_shared_bytes: u32,
    /// Raw little-endian bytes of each kernel parameter, in order; pointers are 8-byte device addresses.
    pub params: Vec<Vec<u8>>,
    /// How far the launch may go.
    pub limits: Limits,
}

impl Launch {
    /// A launch with default limits and no dynamic shared memory.
    pub fn new(
        kernel: impl Into<String>,
        grid: [u32; 3],
        block: [u32; 3],
        params: Vec<Vec<u8>>,
    ) -> Launch {
        Launch {
            kernel: kernel.into(),
            grid,
            block,
            dynamic_shared_bytes: 0,
            params,
            limits: Limits::default(),
        }
    }
}
