//! The simulated device: global memory, module variables, and launches (blocks spread over CPU
//! threads, results merged in block order so they do not depend on the number of threads).

use crate::analyse::provenance::thread::ThreadTrace;
use crate::analyse::provenance::{ElementStores, Watch, WatchCx, Watched};
use crate::error::SimError;
use crate::exec::block::{LaunchCx, Worker, WorkerOut};
use crate::exec::grid::GridBarrier;
use crate::exec::heap::{DeviceHeap, HEAP_BYTES};
use crate::instructions::{Class, InstructionCounts};
use crate::ir::{ConstVal, Op, Program};
use crate::memory::traffic::SectorSet;
use crate::memory::GlobalMemory;
use crate::model::issue::PipeCycles;
use crate::model::GpuModel;
use crate::module::Module;
use crate::report::{
    DiagKey, Diagnostic, Figures, KernelShape, Launch, LaunchReport, LineFigures, Traffic,
};
use crate::source::SourceLocation;
use std::collections::{BTreeMap, HashMap, HashSet};
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};

/// Largest shared memory per block, static plus dynamic: what sm_90 allows a kernel that opted in
/// with `cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, bytes)`. The
/// simulator takes every kernel as opted in; without the attribute a GPU stops at 48 KiB.
const MAX_SHARED: u64 = 227 * 1024;
/// Largest static `__shared__` data per block: ptxas refuses more, whatever the attribute.
const MAX_STATIC_SHARED: u64 = 48 * 1024;
/// Largest local memory per thread (CUDA C++ Programming Guide, "Features and Technical
/// Specifications": 512 KB for every compute capability since 2.0).
const MAX_LOCAL_PER_THREAD: u64 = 512 * 1024;
/// `__constant__` memory of a module (the same table: 64 KB).
const MAX_CONSTANT: u64 = 64 * 1024;
/// Local memory the blocks running at once may need at most; fewer CPU threads run blocks of a
/// kernel whose threads could touch more.
const MAX_LOCAL_IN_FLIGHT: u64 = 1 << 30;

/// A simulated GPU: its global memory and the module variables placed in it; launches run on
/// it one at a time.
pub struct Machine {
    mem: GlobalMemory,
    /// Addresses of each module's global variables on this machine.
    module_globals: HashMap<u64, Vec<u64>>,
    /// Where kernels' `malloc` takes memory from, set aside at the first launch that needs it.
    heap: Option<DeviceHeap>,
}

impl Default for Machine {
    fn default() -> Self {
        Self::new()
    }
}

impl Machine {
    /// A GPU with no allocations.
    pub fn new() -> Machine {
        Machine {
            mem: GlobalMemory::new(),
            module_globals: HashMap::new(),
            heap: None,
        }
    }

    /// Allocates device memory, 256-byte aligned like cudaMalloc, zero-filled. Allocations are
    /// spaced far apart so that any access outside a live allocation is caught.
    ///
    /// # Panics
    /// When the simulated 4 GiB are used up; use [`Machine::try_alloc`] to get an error instead.
    pub fn alloc(&mut self, bytes: u64) -> u64 {
        self.try_alloc(bytes)
            .expect("simulated device memory exhausted")
    }

    /// Allocates as [`Machine::alloc`] does; an error where the simulated memory is used up.
    pub fn try_alloc(&mut self, bytes: u64) -> Result<u64, SimError> {
        self.mem.alloc(bytes, 256)
    }

    /// Places an allocation of `bytes` at `addr`, an address the host's own memory has (mapped
    /// host memory, managed memory): zero-filled, refused where the device already uses an address.
    pub fn alloc_at(&mut self, addr: u64, bytes: u64) -> Result<(), SimError> {
        self.mem.alloc_at(addr, bytes)
    }

    /// Frees an allocation; freeing an address that is not an allocation's start does nothing.
    pub fn free(&mut self, addr: u64) {
        self.mem.free(addr);
    }

    /// Whether `[addr, addr + len)` lies inside one live allocation: what a copy or memset of
    /// `len` bytes checks before anything is built for it.
    pub fn holds(&self, addr: u64, len: u64) -> bool {
        self.mem.find(addr, len).is_some()
    }

    /// Copies `data` to device address `addr`; an error where the bytes leave a live allocation.
    pub fn write(&mut self, addr: u64, data: &[u8]) -> Result<(), SimError> {
        self.mem.write(addr, data)
    }

    /// Copies `len` bytes from device address `addr`; an error where they leave a live allocation.
    pub fn read(&self, addr: u64, len: u64) -> Result<Vec<u8>, SimError> {
        self.mem.read(addr, len)
    }

    /// Device address and size of a module's `__device__` or `__constant__` variable (for
    /// `cudaMemcpyToSymbol`-style initialisation); `None` when the module has no such variable.
    pub fn symbol(&mut self, module: &Module, name: &str) -> Result<Option<(u64, u64)>, SimError> {
        let addrs = self.module_addresses(module)?;
        Ok(module
            .globals
            .iter()
            .position(|g| g.name == name)
            .map(|i| (addrs[i], module.globals[i].size)))
    }

    fn module_addresses(&mut self, module: &Module) -> Result<Vec<u64>, SimError> {
        if let Some(a) = self.module_globals.get(&module.id) {
            return Ok(a.clone());
        }
        let mut addrs = Vec::new();
        for g in &module.globals {
            addrs.push(self.mem.alloc(g.size, g.align as u64)?);
        }
        for (g, &addr) in module.globals.iter().zip(&addrs) {
            let mut bytes = g.init.clone();
            for &(off, var, addend) in &g.relocs {
                let v = (addrs[var] as i64 + addend) as u64;
                bytes[off as usize..off as usize + 8].copy_from_slice(&v.to_le_bytes());
            }
            bytes.truncate(g.size as usize);
            self.mem.write(addr, &bytes)?;
        }
        self.module_globals.insert(module.id, addrs.clone());
        Ok(addrs)
    }

    /// Runs a kernel to completion (or to its first fatal error) and reports what it did.
    pub fn launch(&mut self, module: &Module, launch: &Launch) -> Result<LaunchReport, SimError> {
        Ok(self.run(module, launch, None)?.0)
    }

    /// Runs a kernel as [`Machine::launch`] does, its blocks one at a time in order, and records
    /// every store to the elements of `watch` (thread, line, value and the instruction that
    /// computed it), one [`ElementStores`] per watched element in the watch's order, and every
    /// step of the watch's threads (one [`ThreadTrace`] each). What a check does after it finds
    /// wrong elements: a plain launch records nothing and pays nothing.
    pub fn launch_watched(
        &mut self,
        module: &Module,
        launch: &Launch,
        watch: &Watch,
    ) -> Result<(LaunchReport, Watched), SimError> {
        let (report, mut watched) = self.run(module, launch, Some(watch))?;
        if watched.elements.is_empty() {
            watched.elements = watch
                .elements
                .iter()
                .map(|&e| ElementStores::new(e))
                .collect();
        }
        if watched.threads.is_empty() {
            watched.threads = watch.threads.iter().map(|&t| ThreadTrace::new(t)).collect();
        }
        Ok((report, watched))
    }

    fn run(
        &mut self,
        module: &Module,
        launch: &Launch,
        watch: Option<&Watch>,
    ) -> Result<(LaunchReport, Watched), SimError> {
        let prog = module.program(&launch.kernel).ok_or_else(|| {
            match module.lowering_error(&launch.kernel) {
                Some(why) => SimError::KernelNotLowered {
                    name: launch.kernel.clone(),
                    reason: why.to_string(),
                },
                None => SimError::UnknownKernel {
                    name: launch.kernel.clone(),
                    available: module.programs.iter().map(|p| p.name.clone()).collect(),
                },
            }
        })?;
        check_resources(module, prog)?;
        let params = param_buffer(prog, launch)?;
        let (threads, total_blocks) = check_dims(launch)?;
        if let Some(why) = prog.bounds.refusal(launch.block) {
            return Err(SimError::InvalidLaunch(format!(
                "{why}; {BAD_CONFIGURATION}"
            )));
        }
        let shared_size = if launch.dynamic_shared_bytes > 0 {
            prog.dynamic_shared_offset as u64 + launch.dynamic_shared_bytes as u64
        } else {
            prog.shared_static as u64
        };
        if shared_size > MAX_SHARED {
            return Err(SimError::InvalidLaunch(format!(
                "the kernel needs {shared_size} bytes of shared memory per block ({} static, {} dynamic), more \
                 than the {MAX_SHARED} (227 KiB) an H100 allows even after cudaFuncSetAttribute(kernel, \
                 cudaFuncAttributeMaxDynamicSharedMemorySize, bytes); a GPU fails the launch with \
                 CUDA_ERROR_INVALID_VALUE (\"invalid argument\"); use less shared memory per block",
                prog.shared_static, launch.dynamic_shared_bytes
            )));
        }
        let uses_heap = prog
            .code
            .iter()
            .any(|i| matches!(i.op, Op::Malloc { .. } | Op::Free { .. }));
        if uses_heap && self.heap.is_none() {
            let base = self.mem.alloc(HEAP_BYTES, 256)?;
            self.heap = Some(DeviceHeap::new(base, HEAP_BYTES));
        }
        let addrs = self.module_addresses(module)?;
        let consts = prog
            .consts
            .iter()
            .map(|(s, c)| {
                let v = match c {
                    ConstVal::Bits(b) => *b,
                    ConstVal::GlobalVar { var, offset } => (addrs[*var] as i64 + offset) as u64,
                };
                (*s, v)
            })
            .collect();
        let watching = watch.map(|w| WatchCx::new(w, prog, &module.ptx));
        let l = LaunchCx {
            prog,
            mem: &self.mem,
            params,
            grid: launch.grid,
            block_dim: launch.block,
            threads_per_block: threads,
            warps_per_block: threads.div_ceil(32),
            shared_size: shared_size as u32,
            dynamic_shared: launch.dynamic_shared_bytes,
            consts,
            max_warp_instructions: launch.limits.max_warp_instructions,
            max_clock: launch.limits.max_clock,
            remaining: AtomicU64::new(launch.limits.max_warp_instructions),
            deadline: launch
                .limits
                .max_wall_time
                .map(|t| std::time::Instant::now() + t),
            fatal_block: AtomicU64::new(u64::MAX),
            next_block: AtomicU64::new(0),
            total_blocks,
            tids: thread_indices(launch.block),
            cas_reads: crate::analyse::cas_reads::cas_reads(prog),
            global_names: module
                .globals
                .iter()
                .zip(&addrs)
                .map(|(g, &a)| (a, g.name.clone()))
                .collect(),
            sectors: SectorSet::new(self.mem.allocations()),
            printf_bytes: AtomicU64::new(0),
            printf_cut: AtomicBool::new(false),
            watch: watching.as_ref(),
            heap: self.heap.as_ref(),
            past_the_end: launch.limits.past_the_end,
            grid_barrier: GridBarrier::of(prog),
        };
        let has_printf = prog.code.iter().any(|i| matches!(i.op, Op::Printf { .. }));
        // Blocks at once whose threads could fill all their local memory within the bound.
        let local_per_block = (prog.local_total as u64 * threads as u64).max(1);
        let local_workers = (MAX_LOCAL_IN_FLIGHT / local_per_block).max(1) as usize;
        // printf runs its blocks in order, so the output cut at the printf buffer's size is always
        // the same.
        // A watched launch keeps its stores in the order one worker runs them.
        // Blocks that allocate take the heap's blocks in the same order on every run.
        let workers = if prog.has_global_atomics || has_printf || uses_heap || watch.is_some() {
            1
        } else if launch.limits.threads == 0 {
            std::thread::available_parallelism().map_or(1, |n| n.get())
        } else {
            launch.limits.threads
        }
        .min(total_blocks.min(usize::MAX as u64) as usize)
        .min(local_workers)
        .max(1);
        let mut outs = run_workers(&l, workers);
        let mut races = cross_block_races(&l, &mut outs);
        // Blocks parked at a grid barrier go on once every block has reached it or ended.
        while let Some(grid) = l.grid_barrier.as_ref().filter(|g| g.waiting() > 0) {
            if l.fatal_block.load(Ordering::Relaxed) != u64::MAX {
                break;
            }
            if let Err(stuck) = grid.release(&l) {
                outs[0].fatal = Some(stuck);
                break;
            }
            let mut more = run_workers(&l, workers);
            races.extend(cross_block_races(&l, &mut more));
            outs.extend(more);
        }
        if let Some(first) = outs.first_mut() {
            first.diags.extend(races);
        }
        if let Some(heap) = &self.heap {
            heap.launch_ended();
        }
        let stores = outs
            .iter_mut()
            .map(|o| std::mem::take(&mut o.watched))
            .find(|w| !w.is_empty())
            .unwrap_or_default();
        let traces = outs
            .iter_mut()
            .map(|o| std::mem::take(&mut o.threads))
            .find(|t| !t.is_empty())
            .unwrap_or_default();
        let mut unwritten_shared: Vec<_> = outs
            .iter_mut()
            .flat_map(|o| std::mem::take(&mut o.unwritten))
            .collect();
        // One read per line of code, the first block's and thread's, in the order of the code.
        unwritten_shared.sort_by_key(|u| (u.site, u.read.block, u.read.thread));
        unwritten_shared.dedup_by_key(|u| u.site);
        let unwritten_shared = unwritten_shared.into_iter().map(|u| u.read).collect();
        let mut report = merge(prog, outs, launch.limits.max_diagnostics);
        cut_printf(&mut report.printf, l.printf_cut.load(Ordering::Relaxed));
        (
            report.traffic.dram_read_sectors,
            report.traffic.dram_write_sectors,
        ) = l.sectors.counts();
        let statics = module
            .statics
            .get(&launch.kernel)
            .cloned()
            .unwrap_or_default();
        report.shape = KernelShape {
            blocks: total_blocks,
            threads_per_block: threads,
            shared_bytes_per_block: shared_size as u32,
            registers_per_thread: statics.registers,
            loads_in_flight: statics.loads_in_flight,
            stores_in_flight: statics.stores_in_flight,
            shared_loads_in_flight: statics.shared_loads_in_flight,
        };
        report.modelled = report.modelled_on(&GpuModel::h100());
        Ok((
            report,
            Watched {
                elements: stores,
                threads: traces,
                unwritten_shared,
            },
        ))
    }
}

/// Runs blocks from the launch's queues on `workers` CPU threads until none are left.
fn run_workers(l: &LaunchCx, workers: usize) -> Vec<WorkerOut> {
    if workers == 1 {
        let mut w = Worker::new(l);
        w.run(l);
        return vec![w.out];
    }
    std::thread::scope(|s| {
        let handles: Vec<_> = (0..workers)
            .map(|_| {
                s.spawn(|| {
                    let mut w = Worker::new(l);
                    w.run(l);
                    w.out
                })
            })
            .collect();
        handles
            .into_iter()
            .map(|h| h.join().expect("a simulator worker thread panicked"))
            .collect()
    })
}

/// Overlaps between blocks' global accesses of what `outs` ran (the ranges they kept are taken).
fn cross_block_races(l: &LaunchCx, outs: &mut [WorkerOut]) -> Vec<(u64, DiagKey, Diagnostic)> {
    let ranges = outs
        .iter_mut()
        .flat_map(|o| std::mem::take(&mut o.global.ranges))
        .collect();
    crate::analyse::global::cross_block(&l.view(), ranges)
}

fn param_buffer(prog: &Program, launch: &Launch) -> Result<Vec<u8>, SimError> {
    if launch.params.len() != prog.params.len() {
        return Err(SimError::ParamCount {
            kernel: prog.name.clone(),
            expected: prog.params.len(),
            got: launch.params.len(),
        });
    }
    let mut buf = vec![0u8; prog.param_bytes as usize];
    for (i, (p, bytes)) in prog.params.iter().zip(&launch.params).enumerate() {
        if bytes.len() != p.size_bytes as usize {
            return Err(SimError::ParamSize {
                kernel: prog.name.clone(),
                index: i,
                name: p.name.clone(),
                expected: p.size_bytes,
                got: bytes.len(),
            });
        }
        let off = prog.param_offsets[i] as usize;
        buf[off..off + bytes.len()].copy_from_slice(bytes);
    }
    Ok(buf)
}

/// `%tid` of each thread of a block, by linear index (x fastest), so kernels need no division.
fn thread_indices([bx, by, bz]: [u32; 3]) -> [Vec<u64>; 3] {
    let n = bx as u64 * by as u64 * bz as u64;
    let x = (0..n).map(|t| t % bx as u64).collect();
    let y = (0..n).map(|t| (t / bx as u64) % by as u64).collect();
    let z = (0..n).map(|t| t / (bx as u64 * by as u64)).collect();
    [x, y, z]
}

/// Keeps the first `printf::BUFFER_BYTES` of the output (whole lines where it can) and says so.
fn cut_printf(text: &mut String, cut: bool) {
    let max = crate::printf::BUFFER_BYTES;
    if !cut && text.len() <= max {
        return;
    }
    let mut end = max.min(text.len());
    while !text.is_char_boundary(end) {
        end -= 1;
    }
    if let Some(line_end) = text[..end].rfind('\n') {
        end = line_end + 1;
    }
    text.truncate(end);
    if !text.is_empty() && !text.ends_with('\n') {
        text.push('\n');
    }
    text.push_str(crate::printf::CUT_NOTE);
    text.push('\n');
}

/// What ptxas refuses when the driver loads the module (before any launch).
fn check_resources(module: &Module, prog: &Program) -> Result<(), SimError> {
    let name = &prog.name;
    if prog.shared_static as u64 > MAX_STATIC_SHARED {
        return Err(SimError::TooManyResources {
            ptxas: format!(
                "Entry function '{name}' uses too much shared data ({:#x} bytes, {MAX_STATIC_SHARED:#x} max)",
                prog.shared_static
            ),
            advice: "static `__shared__` arrays hold at most 48 KiB per block; for more, declare the array \
                     `extern __shared__`, pass its size as the launch's dynamic shared memory and raise the \
                     kernel's limit with cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, \
                     bytes)"
                .into(),
        });
    }
    if prog.local_total as u64 > MAX_LOCAL_PER_THREAD {
        return Err(SimError::TooManyResources {
            ptxas: format!(
                "Entry function '{name}' uses too much local data ({:#x} bytes, {MAX_LOCAL_PER_THREAD:#x} max)",
                prog.local_total
            ),
            advice: "a thread has at most 512 KiB of local memory (its arrays and spilled registers); keep big \
                     arrays in global memory (cudaMalloc) instead"
                .into(),
        });
    }
    let constant: u64 = module
        .globals
        .iter()
        .filter(|g| g.constant)
        .map(|g| g.size)
        .sum();
    if constant > MAX_CONSTANT {
        return Err(SimError::TooManyResources {
            ptxas: format!(
                "File uses too much global constant data ({constant:#x} bytes, {MAX_CONSTANT:#x} max)"
            ),
            advice: "`__constant__` variables share 64 KiB; keep larger tables in global memory (a `const` \
                     pointer parameter, read through `__ldg` or `const __restrict__`)"
                .into(),
        });
    }
    Ok(())
}

/// What a GPU refuses at launch: cuLaunchKernel's CUDA_ERROR_INVALID_VALUE, which the runtime's
/// `<<<...>>>` reports as cudaErrorInvalidConfiguration.
const BAD_CONFIGURATION: &str =
    "a GPU fails the launch with CUDA_ERROR_INVALID_VALUE (`invalid configuration argument` from <<<...>>>)";

fn check_dims(launch: &Launch) -> Result<(u32, u64), SimError> {
    let [bx, by, bz] = launch.block;
    let [gx, gy, gz] = launch.grid;
    if bx == 0 || by == 0 || bz == 0 || gx == 0 || gy == 0 || gz == 0 {
        return Err(SimError::InvalidLaunch(format!(
            "grid ({gx},{gy},{gz}) and block ({bx},{by},{bz}) must be at least 1 in every dimension; {BAD_CONFIGURATION}"
        )));
    }
    // Saturating: three u32 dimensions multiply past u64 (a hostile launch gives u32::MAX each).
    let threads = (bx as u64)
        .saturating_mul(by as u64)
        .saturating_mul(bz as u64);
    if threads > 1024 || bx > 1024 || by > 1024 || bz > 64 {
        return Err(SimError::InvalidLaunch(format!(
            "a block of ({bx},{by},{bz}) = {threads} threads is too large: at most 1024 threads (x, y <= 1024, z <= 64); \
             {BAD_CONFIGURATION}"
        )));
    }
    if gx > i32::MAX as u32 || gy > 65535 || gz > 65535 {
        return Err(SimError::InvalidLaunch(format!(
            "a grid of ({gx},{gy},{gz}) blocks is too large: x is at most 2^31 - 1 = 2147483647, y and z at most \
             65535; {BAD_CONFIGURATION}"
        )));
    }
    Ok((threads as u32, gx as u64 * gy as u64 * gz as u64))
}

fn merge(prog: &Program, outs: Vec<WorkerOut>, max_diagnostics: usize) -> LaunchReport {
    let mut report = LaunchReport::default();
    let fatal = outs
        .iter()
        .filter_map(|o| o.fatal.as_ref())
        .min_by_key(|(b, _)| *b)
        .cloned();
    let last_block = fatal.as_ref().map_or(u64::MAX, |(b, _)| *b);

    let mut by_line: BTreeMap<SourceLocation, (Figures, InstructionCounts)> = BTreeMap::new();
    let mut site_totals = vec![Figures::default(); prog.sites.len()];
    let mut diags = Vec::new();
    let mut prints = Vec::new();
    let mut traffic = Traffic::default();
    let mut executed = vec![0u64; prog.code.len()];
    let mut atomic_addresses: HashMap<u64, u64> = HashMap::new();
    for o in outs {
        for (t, f) in site_totals.iter_mut().zip(&o.site_figures) {
            *t += f;
        }
        let t = o.traffic;
        traffic.l2_load_sectors += t.block_unique_load_sectors;
        traffic.global_lines += t.global_lines;
        traffic.barriers += t.barriers;
        traffic.busiest_block_lines = traffic.busiest_block_lines.max(t.busiest_block_lines);
        traffic.busiest_block_instructions = traffic
            .busiest_block_instructions
            .max(t.busiest_block_instructions);
        traffic.busy_warp_instructions += t.busy_warp_instructions;
        traffic.busiest_warp_loads = traffic.busiest_warp_loads.max(t.busiest_warp_loads);
        traffic.busiest_warp_stores = traffic.busiest_warp_stores.max(t.busiest_warp_stores);
        traffic.store_lines += t.store_lines;
        traffic.longest_clock_wait_cycles =
            traffic.longest_clock_wait_cycles.max(t.longest_clock_wait);
        for (e, n) in executed.iter_mut().zip(&t.executed) {
            *e += n;
        }
        for (a, n) in t.atomic_addresses {
            *atomic_addresses.entry(a).or_default() += n;
        }
        report.warp_instructions += o.instructions;
        diags.extend(o.diags.into_iter().filter(|(b, _, _)| *b <= last_block));
        prints.extend(o.printf.into_iter().filter(|p| p.block <= last_block));
    }
    for (site, f) in site_totals.iter().enumerate() {
        report.figures += f;
        if let Some(loc) = &prog.sites[site] {
            if !f.is_empty() {
                by_line.entry(loc.clone()).or_default().0 += f;
            }
        }
    }
    let mut pipes = PipeCycles::default();
    for (inst, &n) in prog.code.iter().zip(&executed) {
        if n > 0 {
            pipes.add(&inst.op, n);
            let class = Class::of(&inst.op);
            report.instructions.add(class, n);
            if let Some(Some(loc)) = prog.sites.get(inst.site as usize) {
                by_line.entry(loc.clone()).or_default().1.add(class, n);
            }
        }
    }
    traffic.issue_cycles = pipes.cycles();
    traffic.warp_instructions = report.warp_instructions;
    traffic.hottest_atomic_requests = atomic_addresses.values().copied().max().unwrap_or(0);
    report.traffic = traffic;
    report.lines = by_line
        .into_iter()
        .map(|(loc, (figures, instructions))| LineFigures {
            file: loc.file,
            line: loc.line,
            figures,
            instructions,
        })
        .collect();

    diags.sort_by_key(|(b, _, _)| *b);
    let mut seen = HashSet::new();
    let mut kept: Vec<_> = diags
        .into_iter()
        .filter(|(_, k, _)| seen.insert(*k))
        .map(|(_, _, d)| d)
        .collect();
    match fatal {
        Some((_, d)) => {
            kept.truncate(max_diagnostics.saturating_sub(1));
            kept.push(d);
            report.aborted = true;
        }
        None => kept.truncate(max_diagnostics),
    }
    report.diagnostics = kept;

    prints.sort_by_key(|p| (p.block, p.warp, p.seq, p.lane));
    report.printf = prints.into_iter().map(|p| p.text).collect();
    report
}
