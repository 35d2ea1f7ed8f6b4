//! Modelled time: what a kernel's counted work would take on a reference GPU.
//!
//! Each resource a kernel uses gets a time, the work it was given over the rate it serves it at;
//! the slowest one bounds the kernel, and a fixed launch overhead is added:
//!
//! | resource | work (from the simulator) | rate ([`GpuModel`]) |
//! | --- | --- | --- |
//! | DRAM | unique 32-byte sectors read + written in the launch (L2 holds a launch's reuse) | measured copy bandwidth |
//! | L2 | sectors each block loads once (L1 holds a block's reuse, as far as the lines in use fit it), all stored sectors, atomics twice; and one request per line a store touches, or a load fetches again | L2 bandwidth; line requests per second |
//! | L1 | 128-byte lines per global request, on the busiest SM (at least the busiest block's) | one line per cycle per SM |
//! | shared memory | wavefronts, on the busiest SM | one wavefront per cycle per SM |
//! | issue | warp instructions weighted by pipe (`issue`), on the busiest SMSP (at least the busiest block's) | one per cycle per SMSP, less with fewer busy warps per SMSP than a dependent instruction's latency |
//! | atomics | warp requests to the most-hit global address | one per cycle (they serialise at L2) |
//! | latency | per wave of resident blocks, one warp's chain: batches of global loads, the stores its loads do not hide, batches of shared loads, barriers, a wave's shared wavefronts; at least the busiest warp's loads and stores | DRAM / L2 / L1 latency, shared latency, barrier cost |
//!
//! DRAM and latency are one queue seen two ways (Little's law), so they combine as a 3-norm;
//! the rest as a maximum.
//! "Busiest SM" is the one that runs ceil(blocks / SMs) blocks, which is where the tail of a
//! partial last wave shows; where blocks do unequal work (one thread per row, threads that
//! return at once), it holds at least the busiest block, and only busy warps hide latency. Latency is Little's law seen from one warp: with few warps resident,
//! or few loads in flight per warp, the memory system is not kept busy and a warp's round trips
//! add up; the waves of resident blocks come from occupancy (threads, blocks, shared memory and
//! registers per SM; registers estimated from the parsed PTX, see `statics`).

pub(crate) mod issue;
pub(crate) mod statics;

use crate::report::{
    Figures, KernelShape, LaunchReport, ModelledTime, Occupancy, OccupancyLimit, Resource,
    ResourceTimes, Traffic,
};
use serde::Serialize;

/// A reference GPU: every number the model uses, with where it comes from.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct GpuModel {
    /// The GPU's name, as reports show it (`H100 SXM`).
    pub name: &'static str,
    /// Streaming multiprocessors (SMs) on the chip.
    pub sms: u32,
    /// Sub-partitions (SMSPs) per SM, each issuing one warp instruction per cycle.
    pub smsps_per_sm: u32,
    /// SM clock while running (Hz).
    pub clock_hz: f64,
    /// DRAM bandwidth a kernel can reach: a device-to-device copy's (read + write), not the
    /// datasheet peak, which no kernel reaches.
    pub dram_bytes_per_s: f64,
    /// L2 bandwidth for 32-byte sectors, in bytes per second.
    pub l2_bytes_per_s: f64,
    /// L2 requests (one per 128-byte line a store request touches, whatever its sectors, and one
    /// per line a load fetches again after L1 lost it) served per second, on top of the sectors'
    /// bandwidth.
    pub l2_line_requests_per_s: f64,
    /// L1 data cache and shared memory together, per SM: what shared memory leaves of it holds
    /// the lines a block reuses.
    pub l1_bytes_per_sm: f64,
    /// L2 cache size in bytes.
    pub l2_capacity_bytes: f64,
    /// Latency of a load served by DRAM, by L2 and by L1, under load (seconds).
    pub dram_latency_s: f64,
    /// Latency of a load served by L2, under load (seconds).
    pub l2_latency_s: f64,
    /// Latency of a load served by L1 (seconds).
    pub l1_latency_s: f64,
    /// Cycles before a dependent arithmetic instruction can issue.
    pub dependent_issue_cycles: f64,
    /// Cycles a block-wide barrier costs once every warp has arrived.
    pub barrier_cycles: f64,
    /// Cycles before a shared-memory load's value can be used.
    pub shared_latency_cycles: f64,
    /// Warp requests to one global address that L2 completes per second.
    pub same_address_atomics_per_s: f64,
    /// Kernel time, as events measure it, of a launch that does nothing (seconds).
    pub launch_overhead_s: f64,
    /// DRAM bandwidth and memory latency are two sides of one queue (Little's law), and near
    /// the knee both show: their times combine as a p-norm, (dram^p + latency^p)^(1/p), not as
    /// a hard maximum.
    pub memory_norm: f64,
    /// Threads an SM holds at once.
    pub max_threads_per_sm: u32,
    /// Blocks an SM holds at once.
    pub max_blocks_per_sm: u32,
    /// 32-bit registers in an SM's register file.
    pub registers_per_sm: u32,
    /// Registers are given to a warp in units of this many.
    pub register_allocation_unit: u32,
    /// Shared memory an SM can give its blocks, in bytes.
    pub shared_bytes_per_sm: u32,
    /// Shared memory the CUDA runtime keeps per block.
    pub shared_reserved_per_block: u32,
}

impl GpuModel {
    /// NVIDIA H100 SXM5 80 GB (sm_90).
    pub fn h100() -> GpuModel {
        GpuModel {
            name: "H100 SXM",
            // H100 whitepaper: 132 SMs in the SXM5 part, 4 SMSPs each.
            sms: 132,
            smsps_per_sm: 4,
            // nvidia-smi's clocks.max.sm on the device machine (1980 MHz); event-timed kernels
            // run at boost clock, unlike Nsight Compute, which locks the base clock.
            clock_hz: 1.98e9,
            // 3.35 TB/s peak HBM3; `runner bench` measures a device-to-device copy at about
            // 2.9-3.0 TB/s (read + write) on this part.
            dram_bytes_per_s: 2.95e12,
            // Chips and Cheese's microbenchmarks of the H100 ("Nvidia's H100: Funny L2, and
            // Tons of Bandwidth", 2023): about 5.5 TB/s of L2 read bandwidth.
            l2_bytes_per_s: 5.5e12,
            // Nsight Compute on the device machine's H100: the transpose that stores a column
            // per warp (checks/mistakes/16/uncoalesced_write.cu) makes 8.4 M L2 write requests of
            // one sector each and takes 148 µs; the struct-of-arrays kernel that stores every
            // fourth float (checks/mistakes/14/chunk_per_thread.cu) makes 4.2 M of four sectors
            // and 10 M sector reads in 208 µs. Both fit sectors at 5.5 TB/s plus a write request
            // at 11 ps (88 G/s), the one figure taken from them.
            l2_line_requests_per_s: 88e9,
            // H100 whitepaper: 256 KB of combined L1 data cache and shared memory per SM.
            l1_bytes_per_sm: 256.0 * 1024.0,
            l2_capacity_bytes: 50e6,
            // Pointer-chasing latency is about 480 ns unloaded (same source). 500 ns makes the
            // model meet the vector add of scripts/gpu/results/size_sweep.md (H200, 2^23 to
            // 2^26 elements: 35.8 to 242 µs measured, 35.5 to 258 modelled), where one float
            // per thread leaves the latency term in charge.
            dram_latency_s: 500e-9,
            // About 260 cycles to L2 (far partition averaged in), about 35 to L1 (same source).
            l2_latency_s: 260.0 / 1.98e9,
            l1_latency_s: 35.0 / 1.98e9,
            // FP32 and integer ALU dependent-issue latency on Volta and later (Jia et al.,
            // "Dissecting the NVIDIA Volta GPU Architecture via Microbenchmarking", 2018).
            dependent_issue_cycles: 4.0,
            // bar.sync with every warp arrived: about 20 cycles (same source, for Volta).
            barrier_cycles: 20.0,
            // Shared-memory load latency: about 30 cycles on Volta to Hopper (same source).
            shared_latency_cycles: 30.0,
            // One atomic per L2 cycle on one address: the L2 slice owning it serialises them.
            same_address_atomics_per_s: 1.98e9,
            // An event-timed launch of an empty kernel: about 2-3 µs.
            launch_overhead_s: 2.5e-6,
            // The vector add of exercise 02 at 2^23 elements on the device machine's H100, where
            // DRAM (34 µs) and latency (about 33 µs) alone are alike and the measured time is
            // 45 µs: p = 3 meets it (scripts/gpu/results/model-validation.md). One constant for
            // every kernel.
            memory_norm: 3.0,
            // CUDA C++ Programming Guide, compute capability 9.0 limits.
            max_threads_per_sm: 2048,
            max_blocks_per_sm: 32,
            registers_per_sm: 65536,
            register_allocation_unit: 256,
            shared_bytes_per_sm: 228 * 1024,
            shared_reserved_per_block: 1024,
        }
    }

    /// NVIDIA H200 SXM 141 GB: the H100's chip with HBM3e.
    pub fn h200() -> GpuModel {
        GpuModel {
            name: "H200",
            // 4.8 TB/s peak HBM3e; `runner bench` measured the copy at 4153 GB/s on the device
            // machine's H200 (scripts/gpu/results/bench.md).
            dram_bytes_per_s: 4.15e12,
            ..GpuModel::h100()
        }
    }

    /// The model for a device named like `NVIDIA H200 (sm_90)`; the H100 for any other.
    pub fn for_device(name: &str) -> GpuModel {
        if name.contains("H200") {
            GpuModel::h200()
        } else {
            GpuModel::h100()
        }
    }

    /// How many blocks of this shape an SM holds at once, and what stops it holding more.
    pub fn occupancy(&self, shape: &KernelShape) -> Occupancy {
        let warps_per_block = shape.threads_per_block.div_ceil(32).max(1);
        let by_threads = self.max_threads_per_sm / (warps_per_block * 32);
        let shared = shape.shared_bytes_per_block + self.shared_reserved_per_block;
        let by_shared = self.shared_bytes_per_sm / shared;
        let unit = self.register_allocation_unit;
        let per_warp = (shape.registers_per_thread * 32).div_ceil(unit) * unit;
        let by_registers = self.registers_per_sm / (per_warp * warps_per_block).max(1);
        let limits = [
            (self.max_blocks_per_sm, OccupancyLimit::Blocks),
            (by_threads, OccupancyLimit::Threads),
            (by_shared, OccupancyLimit::SharedMemory),
            (by_registers, OccupancyLimit::Registers),
        ];
        let (blocks_per_sm, limited_by) = limits
            .into_iter()
            .min_by_key(|(n, _)| *n)
            .expect("four limits");
        let blocks_per_sm = blocks_per_sm.max(1);
        let resident = (shape.blocks.div_ceil(self.sms as u64)).min(blocks_per_sm as u64) as u32;
        Occupancy {
            blocks_per_sm,
            limited_by,
            warps_per_sm: resident.max(1) * warps_per_block,
            waves: shape
                .blocks
                .div_ceil(self.sms as u64 * blocks_per_sm as u64)
                .max(1),
        }
    }

    /// The load sectors, and their lines, that L1 fetches from L2 again because the lines its
    /// resident warps have in use do not fit it: a warp whose lanes each walk their own line (32
    /// lines a request) over 64 warps an SM needs twice an H100's L1, and LRU keeps little of a
    /// working set larger than itself. The share kept is the square of the capacity over that
    /// footprint (the lines of a warp's batch of loads, for each resident warp): 1 for coalesced
    /// loads; a quarter for exercise 05's and 06's chunk per thread, which meets their H100
    /// times (10.8x and 13.4x the solution's; modelled 9.5x and 9.8x, 4.4x before).
    fn lost_l1_reuse(
        &self,
        figures: &Figures,
        traffic: &Traffic,
        shape: &KernelShape,
        occupancy: &Occupancy,
    ) -> (f64, f64) {
        let requested = figures.global_load_sectors as f64;
        let reused = (requested - traffic.l2_load_sectors as f64).max(0.0);
        if reused == 0.0 {
            return (0.0, 0.0);
        }
        let load_lines = traffic.global_lines.saturating_sub(traffic.store_lines) as f64;
        let lines_per_request = load_lines / figures.global_load_requests.max(1) as f64;
        let footprint = occupancy.warps_per_sm as f64
            * lines_per_request
            * shape.loads_in_flight.max(1.0)
            * 128.0;
        let blocks = occupancy.warps_per_sm / shape.threads_per_block.div_ceil(32).max(1);
        let l1 = (self.l1_bytes_per_sm - (blocks * shape.shared_bytes_per_block) as f64).max(0.0);
        let kept = (l1 / footprint.max(1.0)).min(1.0).powi(2);
        let lost = reused * (1.0 - kept);
        (lost, lost * load_lines / requested)
    }

    /// The modelled time of a launch from what the simulator counted.
    pub fn time(&self, figures: &Figures, traffic: &Traffic, shape: &KernelShape) -> ModelledTime {
        let occupancy = self.occupancy(shape);
        let blocks = shape.blocks.max(1) as f64;
        // The busiest SM's share of the per-block work.
        let busiest = shape.blocks.div_ceil(self.sms as u64) as f64 / blocks;
        let clock = self.clock_hz;
        let sector = 32.0;

        // DRAM: every sector once; where the footprint overflows L2, the re-reads that L2 can
        // no longer hold go to DRAM too.
        let footprint = sector * (traffic.dram_read_sectors + traffic.dram_write_sectors) as f64;
        let rereads = traffic
            .l2_load_sectors
            .saturating_sub(traffic.dram_read_sectors) as f64;
        let overflow = (1.0 - self.l2_capacity_bytes / footprint.max(1.0)).max(0.0);
        let dram_bytes = footprint + sector * rereads * overflow;
        let dram = dram_bytes / self.dram_bytes_per_s;

        let l2_sectors = traffic.l2_load_sectors
            + figures.global_store_sectors
            + 2 * figures.global_atomic_sectors;
        let (lost_sectors, lost_lines) = self.lost_l1_reuse(figures, traffic, shape, &occupancy);
        let l2 = sector * (l2_sectors as f64 + lost_sectors) / self.l2_bytes_per_s
            + (traffic.store_lines as f64 + lost_lines) / self.l2_line_requests_per_s;
        // Where blocks do unequal work, the busiest SM holds at least the busiest block.
        let share = |most: u64, all: u64| {
            if all == 0 {
                busiest
            } else {
                busiest.max(most as f64 / all as f64)
            }
        };
        let l1 = traffic.global_lines as f64
            * share(traffic.busiest_block_lines, traffic.global_lines)
            / clock;
        let wavefronts = figures.shared_load_wavefronts
            + figures.shared_store_wavefronts
            + 2 * figures.shared_atomic_requests;
        let shared = wavefronts as f64 * busiest / clock;
        // With fewer warps per SMSP than a dependent instruction's latency in cycles, a warp
        // cannot issue every cycle (the PTX's instruction-level parallelism is not known, so one
        // dependent chain per warp is assumed).
        // Only the warps that do a block's work hide each other's latency: a block's busy warps
        // are its instructions over its busiest warp's (weighted by instructions).
        let warps_per_block = shape.threads_per_block.div_ceil(32).max(1) as f64;
        let busy = if traffic.warp_instructions > 0 && traffic.busy_warp_instructions > 0 {
            (traffic.busy_warp_instructions as f64
                / (traffic.warp_instructions as f64 * warps_per_block))
                .min(1.0)
        } else {
            1.0
        };
        let warps_per_smsp = occupancy.warps_per_sm as f64 * busy / self.smsps_per_sm as f64;
        let dependency = (self.dependent_issue_cycles / warps_per_smsp).max(1.0);
        let issue = traffic.issue_cycles
            * share(
                traffic.busiest_block_instructions,
                traffic.warp_instructions,
            )
            / self.smsps_per_sm as f64
            / clock
            * dependency;
        let atomics = traffic.hottest_atomic_requests as f64 / self.same_address_atomics_per_s;

        // One warp's chain, for each wave of resident blocks. A batch of loads waits for its
        // data; a warp keeps its stores' place in the memory system until they are written
        // (measured: a store-only kernel runs at about one store round trip per wave), but
        // goes on to its next loads meanwhile (`exposed_stores`).
        let warps = blocks * shape.threads_per_block.div_ceil(32) as f64;
        let loads = figures.global_load_sectors.max(1) as f64;
        let from_dram = (traffic.dram_read_sectors as f64 / loads).min(1.0);
        let from_l2 = ((traffic.l2_load_sectors as f64 / loads).min(1.0) - from_dram).max(0.0);
        let load_latency = from_dram * self.dram_latency_s
            + from_l2 * self.l2_latency_s
            + (1.0 - from_dram - from_l2).max(0.0) * self.l1_latency_s;
        let stores = figures.global_store_sectors.max(1) as f64;
        let stores_to_dram = (traffic.dram_write_sectors as f64 / stores).min(1.0);
        let store_latency =
            stores_to_dram * self.dram_latency_s + (1.0 - stores_to_dram) * self.l2_latency_s;
        let load_trips =
            figures.global_load_requests as f64 / warps / shape.loads_in_flight.max(1.0);
        let store_trips = (figures.global_store_requests + figures.global_atomic_requests) as f64
            / warps
            / shape.stores_in_flight.max(1.0);
        let barriers = traffic.barriers as f64 / blocks;
        let shared_loads =
            figures.shared_load_requests as f64 / warps / shape.shared_loads_in_flight.max(1.0);
        // Between barriers a block's shared-memory work cannot overlap its own memory waits:
        // the SM's shared pipe serves a wave's wavefronts in turn.
        let shared_per_wave = if traffic.barriers > 0 {
            wavefronts as f64 / blocks
                * (occupancy.warps_per_sm / shape.threads_per_block.div_ceil(32).max(1)) as f64
                / clock
        } else {
            0.0
        };
        let chain = load_trips * load_latency
            + exposed_stores(
                load_trips * load_latency,
                store_trips * store_latency,
                store_latency,
            )
            + shared_loads * self.shared_latency_cycles / clock
            + barriers * self.barrier_cycles / clock
            + shared_per_wave;
        // The busiest warp's own round trips, where warps do unequal work.
        let busiest_loads =
            traffic.busiest_warp_loads as f64 / shape.loads_in_flight.max(1.0) * load_latency;
        let busiest_stores =
            traffic.busiest_warp_stores as f64 / shape.stores_in_flight.max(1.0) * store_latency;
        let busiest_chain =
            busiest_loads + exposed_stores(busiest_loads, busiest_stores, store_latency);
        let latency = (chain * occupancy.waves as f64).max(busiest_chain);

        let per_resource = ResourceTimes {
            dram_us: dram * 1e6,
            l2_us: l2 * 1e6,
            l1_us: l1 * 1e6,
            shared_memory_us: shared * 1e6,
            issue_us: issue * 1e6,
            atomics_us: atomics * 1e6,
            latency_us: latency * 1e6,
            // The simulator's clock ticks once a nanosecond.
            clock_wait_us: traffic.longest_clock_wait_cycles as f64 * occupancy.waves as f64 / 1e3,
            launch_us: self.launch_overhead_s * 1e6,
        };
        let (bound_by, slowest) = per_resource.slowest(self.memory_norm);
        ModelledTime {
            gpu: self.name.to_string(),
            microseconds: per_resource.launch_us + slowest,
            bound_by,
            per_resource,
            dram_bytes,
            dram_bytes_per_s: self.dram_bytes_per_s,
            occupancy,
            loads_in_flight: shape.loads_in_flight,
        }
    }
}

/// The part of a warp's store round trips that its loads do not hide. A warp does not wait for
/// its stores: it issues a store and goes on to its next loads, so in a loop that loads, computes
/// and stores, each store's trip runs under the next trip's loads, and only the last one's is
/// left to wait for. Stores beyond what the loads cover (a kernel that only stores) each keep
/// their place in the memory system until written, as measured (see `GpuModel::time`).
fn exposed_stores(loads_s: f64, stores_s: f64, store_latency_s: f64) -> f64 {
    if stores_s <= 0.0 {
        return 0.0;
    }
    (stores_s - loads_s).max(store_latency_s.min(stores_s))
}

impl ResourceTimes {
    /// The slowest resource besides the launch, and its time (DRAM and latency combined as a
    /// `norm`-norm, named after the larger); the launch where it is longer.
    fn slowest(&self, norm: f64) -> (Resource, f64) {
        use Resource::*;
        let memory = (self.dram_us.powf(norm) + self.latency_us.powf(norm)).powf(1.0 / norm);
        let memory_bound = if self.dram_us >= self.latency_us {
            Dram
        } else {
            Latency
        };
        let (r, t) = [L2, L1, SharedMemory, Issue, Atomics, ClockWait]
            .into_iter()
            .map(|r| (r, self.get(r)))
            .fold(
                (memory_bound, memory),
                |best, x| {
                    if x.1 > best.1 {
                        x
                    } else {
                        best
                    }
                },
            );
        if t < self.launch_us {
            (Launch, t)
        } else {
            (r, t)
        }
    }
}

impl LaunchReport {
    /// This launch's modelled time on another GPU (`modelled` holds the H100's).
    pub fn modelled_on(&self, gpu: &GpuModel) -> ModelledTime {
        gpu.time(&self.figures, &self.traffic, &self.shape)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn vector_add(n: u64) -> (Figures, Traffic, KernelShape) {
        let requests = n / 32;
        let figures = Figures {
            global_load_requests: 2 * requests,
            global_load_sectors: 8 * requests,
            global_store_requests: requests,
            global_store_sectors: 4 * requests,
            ..Default::default()
        };
        let traffic = Traffic {
            dram_read_sectors: 8 * requests,
            dram_write_sectors: 4 * requests,
            l2_load_sectors: 8 * requests,
            global_lines: 3 * requests,
            warp_instructions: 15 * requests,
            issue_cycles: 20.0 * requests as f64,
            ..Default::default()
        };
        let shape = KernelShape {
            blocks: n / 256,
            threads_per_block: 256,
            shared_bytes_per_block: 0,
            registers_per_thread: 16,
            loads_in_flight: 2.0,
            stores_in_flight: 1.0,
            shared_loads_in_flight: 1.0,
        };
        (figures, traffic, shape)
    }

    #[test]
    fn a_large_vector_add_is_bound_by_dram_at_the_copy_bandwidth() {
        let (f, t, s) = vector_add(1 << 26);
        let m = GpuModel::h100().time(&f, &t, &s);
        assert_eq!(m.bound_by, Resource::Dram, "{m:?}");
        let expected = 12.0 * (1 << 26) as f64 / 2.95e12 * 1e6;
        assert!((m.per_resource.dram_us - expected).abs() < 0.01 * expected);
        assert!(
            m.explain()
                .contains("bound by DRAM: 805.3 MB unique traffic at 3.0 TB/s"),
            "{}",
            m.explain()
        );
        let h200 = GpuModel::h200().time(&f, &t, &s);
        assert!(h200.microseconds < m.microseconds);
    }

    #[test]
    fn a_tiny_launch_is_bound_by_its_overhead() {
        let (f, t, s) = vector_add(1024);
        assert_eq!(GpuModel::h100().time(&f, &t, &s).bound_by, Resource::Launch);
    }

    #[test]
    fn few_warps_per_sm_leave_memory_latency_exposed() {
        let (f, t, mut s) = vector_add(1 << 23);
        // The same work done by 132 blocks of 32 threads, each looping.
        s.blocks = 132;
        s.threads_per_block = 32;
        let m = GpuModel::h100().time(&f, &t, &s);
        assert_eq!(m.bound_by, Resource::Latency, "{m:?}");
        assert_eq!(m.occupancy.warps_per_sm, 1);
    }

    #[test]
    fn a_warp_s_stores_in_a_loop_run_under_its_next_loads() {
        // Exercise 05's grid-stride SAXPY on 4 blocks of 128 threads, 129 elements a thread:
        // each trip loads two values and stores one. NVRTC unrolls a loop whose stride is a
        // precomputed int, so its stores come in batches, and not one spelled
        // `i += blockDim.x * gridDim.x` (unsigned, may wrap): the GPU times both alike.
        let (mut f, t, mut s) = vector_add(65_536);
        f.global_load_requests = 2 * 2048;
        f.global_store_requests = 2048;
        s.blocks = 4;
        s.threads_per_block = 128;
        let gpu = GpuModel::h100();
        let one_at_a_time = gpu.time(&f, &t, &s);
        s.stores_in_flight = 3.4;
        let batched = gpu.time(&f, &t, &s);
        assert_eq!(one_at_a_time.bound_by, Resource::Latency);
        let ratio = one_at_a_time.microseconds / batched.microseconds;
        assert!(
            ratio < 1.05,
            "{ratio}: {one_at_a_time:?} against {batched:?}"
        );
        // A kernel that only stores still waits for its stores: a round trip to DRAM (500 ns)
        // in each of its 4 waves of blocks.
        let (mut f, t, s) = vector_add(1 << 20);
        f.global_load_requests = 0;
        let stores_only = gpu.time(&f, &t, &s);
        assert!(
            stores_only.per_resource.latency_us > 0.9 * 0.5 * 4.0,
            "{stores_only:?}"
        );
    }

    #[test]
    fn lanes_walking_their_own_lines_lose_l1_reuse_when_the_lines_overflow_it() {
        // Exercise 05's SAXPY on 2^23 elements, each thread a contiguous chunk of 32: every
        // request touches 32 lines, and each sector is requested 8 times by its block.
        let n: u64 = 1 << 23;
        let requests = n / 32;
        let figures = Figures {
            global_load_requests: 2 * requests,
            global_load_sectors: 2 * 32 * requests,
            global_store_requests: requests,
            global_store_sectors: 32 * requests,
            ..Default::default()
        };
        let traffic = Traffic {
            dram_read_sectors: 2 * requests * 4,
            dram_write_sectors: requests * 4,
            l2_load_sectors: 2 * requests * 4,
            global_lines: 3 * 32 * requests,
            store_lines: 32 * requests,
            warp_instructions: 15 * requests,
            issue_cycles: 20.0 * requests as f64,
            ..Default::default()
        };
        let mut shape = KernelShape {
            blocks: 1024,
            threads_per_block: 256,
            registers_per_thread: 16,
            loads_in_flight: 2.0,
            stores_in_flight: 1.0,
            shared_loads_in_flight: 1.0,
            ..Default::default()
        };
        let gpu = GpuModel::h100();
        // 8 blocks of 8 warps an SM: 64 warps x 32 lines x 2 loads x 128 B = 512 KB, twice L1.
        let thrashed = gpu.time(&figures, &traffic, &shape);
        // 16 SMs' worth of blocks: the same lines in use per warp, 4 warps an SM, 32 KB.
        shape.blocks = 64;
        shape.threads_per_block = 64;
        let kept = gpu.time(&figures, &traffic, &shape);
        let sectors = |m: &ModelledTime| m.per_resource.l2_us;
        assert!(
            sectors(&thrashed) > 1.5 * sectors(&kept),
            "{thrashed:?} against {kept:?}"
        );
        // Coalesced loads lose nothing: the vector add's L2 time is its sectors' and stores'.
        let (f, t, s) = vector_add(1 << 23);
        let m = gpu.time(&f, &t, &s);
        let expected = 32.0 * 12.0 * (1u64 << 18) as f64 / 5.5e12 * 1e6;
        assert!(
            (m.per_resource.l2_us - expected).abs() < 1e-6 * expected,
            "{m:?}"
        );
    }

    #[test]
    fn occupancy_is_limited_by_shared_memory_and_registers() {
        let gpu = GpuModel::h100();
        let mut s = KernelShape {
            blocks: 10_000,
            threads_per_block: 256,
            shared_bytes_per_block: 48 * 1024,
            registers_per_thread: 32,
            loads_in_flight: 1.0,
            stores_in_flight: 1.0,
            shared_loads_in_flight: 1.0,
        };
        let o = gpu.occupancy(&s);
        assert_eq!(
            (o.blocks_per_sm, o.limited_by),
            (4, OccupancyLimit::SharedMemory)
        );
        s.shared_bytes_per_block = 0;
        s.registers_per_thread = 128;
        let o = gpu.occupancy(&s);
        assert_eq!(
            (o.blocks_per_sm, o.limited_by),
            (2, OccupancyLimit::Registers)
        );
        s.registers_per_thread = 32;
        assert_eq!(gpu.occupancy(&s).limited_by, OccupancyLimit::Threads);
    }
}
