//! What a launch report carries for the time model: the counts it reads besides the figures
//! (`Traffic`, `KernelShape`) and the time it gives (`ModelledTime`). The model (`crate::model`)
//! sits above the report and computes them; keeping the types here lets the report hold them.

use serde::{Deserialize, Serialize};

/// What the model needs to know of a launch besides its counts.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct KernelShape {
    /// Blocks in the grid.
    pub blocks: u64,
    /// Threads in each block.
    pub threads_per_block: u32,
    /// Static plus dynamic shared memory.
    pub shared_bytes_per_block: u32,
    /// Estimated from the PTX (live values at once), since NVRTC's virtual registers overstate.
    pub registers_per_thread: u32,
    /// Global loads a warp has in flight before it needs the first (from the PTX).
    pub loads_in_flight: f64,
    /// Global stores a warp issues together (from the PTX).
    pub stores_in_flight: f64,
    /// Shared-memory loads a warp has in flight together (from the PTX).
    pub shared_loads_in_flight: f64,
}

/// Per-launch counts beyond the per-line figures, for the time model.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Traffic {
    /// Distinct 32-byte sectors read (loads and atomics) in the launch: DRAM reads when L2 holds
    /// the launch's data (50 MB on an H100).
    pub dram_read_sectors: u64,
    /// Distinct sectors written (stores and atomics): DRAM writes.
    pub dram_write_sectors: u64,
    /// Sum over blocks of the distinct sectors each block loaded: L2 reads when L1 holds a
    /// block's reuse.
    pub l2_load_sectors: u64,
    /// Sum over global requests of the distinct 128-byte lines each touched.
    pub global_lines: u64,
    /// Block-wide barriers completed, summed over blocks.
    pub barriers: u64,
    /// Warp atomic requests to the one global address they hit most.
    pub hottest_atomic_requests: u64,
    /// Warp instructions executed in the launch, summed over warps.
    pub warp_instructions: u64,
    /// SMSP cycles of the instructions executed, summed over warps (`issue`).
    pub issue_cycles: f64,
    /// The most 128-byte lines one block's requests touched (blocks that do unequal work).
    #[serde(default)]
    pub busiest_block_lines: u64,
    /// The most warp instructions one block executed.
    #[serde(default)]
    pub busiest_block_instructions: u64,
    /// Sum over blocks of the block's warp instructions times its busy warps (the block's
    /// instructions over those of its busiest warp): with `warp_instructions`, the share of a
    /// block's warps that do its work.
    #[serde(default)]
    pub busy_warp_instructions: u64,
    /// The most global load requests one warp made, and store and atomic requests.
    #[serde(default)]
    pub busiest_warp_loads: u64,
    /// The most global store and atomic requests one warp made.
    #[serde(default)]
    pub busiest_warp_stores: u64,
    /// Sum over store requests of the distinct 128-byte lines each touched: L2 write requests.
    #[serde(default)]
    pub store_lines: u64,
    /// The most cycles (of the simulator's 1 GHz clock) one warp waited on the clock, in a
    /// busy-wait the simulator skipped through (`exec::clock`).
    #[serde(default)]
    pub longest_clock_wait_cycles: u64,
}

/// What caps the blocks an SM holds at once.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum OccupancyLimit {
    /// The SM's limit on resident blocks.
    #[default]
    Blocks,
    /// The SM's limit on resident threads.
    Threads,
    /// The SM's shared memory.
    SharedMemory,
    /// The SM's register file.
    Registers,
}

/// How many blocks and warps of the launch an SM holds at once, and in how many waves
/// the grid runs.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Occupancy {
    /// Blocks an SM can hold at once.
    pub blocks_per_sm: u32,
    /// Which SM resource caps `blocks_per_sm`.
    pub limited_by: OccupancyLimit,
    /// Warps resident on a busy SM in the first wave.
    pub warps_per_sm: u32,
    /// ceil(blocks / (SMs x blocks per SM)).
    pub waves: u64,
}

/// The resource that bounds a kernel's modelled time.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Resource {
    /// DRAM bandwidth.
    Dram,
    /// L2 bandwidth and line requests.
    L2,
    /// L1: the 128-byte lines the SM's requests touch.
    L1,
    /// Shared-memory wavefronts.
    SharedMemory,
    /// Instruction issue.
    Issue,
    /// Atomics to one hot address, served one after another.
    Atomics,
    /// Memory round trips a warp waits on, one wave after another.
    Latency,
    /// Busy-waits on the clock.
    ClockWait,
    /// Launch overhead alone: the kernel does too little for anything else to show.
    #[default]
    Launch,
}

impl std::fmt::Display for Resource {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            Resource::Dram => "DRAM",
            Resource::L2 => "L2",
            Resource::L1 => "L1",
            Resource::SharedMemory => "shared memory",
            Resource::Issue => "instruction issue",
            Resource::Atomics => "atomics",
            Resource::Latency => "latency",
            Resource::ClockWait => "waits on the clock",
            Resource::Launch => "launch overhead",
        })
    }
}

/// Each resource's time alone, in microseconds.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct ResourceTimes {
    /// DRAM traffic at the reachable DRAM bandwidth.
    pub dram_us: f64,
    /// L2 sectors and line requests at L2's rates.
    pub l2_us: f64,
    /// The busiest SM's 128-byte lines, one per cycle.
    pub l1_us: f64,
    /// The busiest SM's shared-memory wavefronts, one per cycle.
    pub shared_memory_us: f64,
    /// The busiest SM's instruction issue cycles, slowed where too few warps hide dependencies.
    pub issue_us: f64,
    /// Warp atomics to the hottest address at the same-address rate.
    pub atomics_us: f64,
    /// Chains of memory round trips per warp, times the waves.
    pub latency_us: f64,
    /// Busy-waits on the clock: the longest, once per wave of resident blocks.
    #[serde(default)]
    pub clock_wait_us: f64,
    /// A launch that does nothing.
    pub launch_us: f64,
}

impl ResourceTimes {
    /// The time of resource `r`, in microseconds.
    pub fn get(&self, r: Resource) -> f64 {
        match r {
            Resource::Dram => self.dram_us,
            Resource::L2 => self.l2_us,
            Resource::L1 => self.l1_us,
            Resource::SharedMemory => self.shared_memory_us,
            Resource::Issue => self.issue_us,
            Resource::Atomics => self.atomics_us,
            Resource::Latency => self.latency_us,
            Resource::ClockWait => self.clock_wait_us,
            Resource::Launch => self.launch_us,
        }
    }
}

/// A launch's modelled time on a reference GPU.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct ModelledTime {
    /// The GPU modelled.
    pub gpu: String,
    /// Launch overhead plus the slowest resource's time.
    pub microseconds: f64,
    /// The resource whose time is the longest.
    pub bound_by: Resource,
    /// Each resource's time alone.
    pub per_resource: ResourceTimes,
    /// Bytes modelled to move to and from DRAM (each sector once, plus re-reads L2 cannot hold).
    pub dram_bytes: f64,
    /// The reference GPU's reachable DRAM bandwidth, in bytes per second.
    pub dram_bytes_per_s: f64,
    /// Blocks and warps per SM and the waves.
    pub occupancy: Occupancy,
    /// Global loads a warp has in flight before it needs the first (from the PTX).
    pub loads_in_flight: f64,
}

impl ModelledTime {
    /// One line: what bounds the kernel and why, e.g. "bound by DRAM: 2.1 MB unique traffic at
    /// 3.0 TB/s".
    pub fn explain(&self) -> String {
        let o = &self.occupancy;
        let why = match self.bound_by {
            Resource::Dram => format!(
                "{} unique traffic at {:.1} TB/s",
                bytes(self.dram_bytes),
                self.dram_bytes_per_s / 1e12
            ),
            Resource::L2 => "the sectors each block loads, and every store, through L2".into(),
            Resource::L1 => "128-byte lines per request through L1 (uncoalesced accesses)".into(),
            Resource::SharedMemory => "shared-memory wavefronts (bank conflicts count)".into(),
            Resource::Issue => "warp instructions, one per cycle per SM sub-partition".into(),
            Resource::Atomics => "atomics on one address, which L2 serialises".into(),
            Resource::Latency => format!(
                "{} warps per SM with {:.1} loads in flight each cannot hide memory latency ({} wave{})",
                o.warps_per_sm,
                self.loads_in_flight,
                o.waves,
                if o.waves == 1 { "" } else { "s" }
            ),
            Resource::ClockWait => format!(
                "a busy-wait on clock64(), as long as the clock says, once per wave of blocks ({} wave{})",
                o.waves,
                if o.waves == 1 { "" } else { "s" }
            ),
            Resource::Launch => "the kernel does too little to outlast its launch".into(),
        };
        format!(
            "{:.1} µs on {}, bound by {}: {why}",
            self.microseconds, self.gpu, self.bound_by
        )
    }
}

fn bytes(b: f64) -> String {
    if b >= 1e9 {
        format!("{:.2} GB", b / 1e9)
    } else if b >= 1e6 {
        format!("{:.1} MB", b / 1e6)
    } else {
        format!("{:.1} kB", b / 1e3)
    }
}
