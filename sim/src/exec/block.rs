//! Blocks: running a block's warps to barriers and to the end, resolving barriers (and spotting
//! divergent ones and deadlocks), and the per-CPU-thread worker that runs blocks one after another.

use super::{run_warp, Warp, FULL};
use crate::analyse::global::{GlobalRanges, GlobalShadow, LaunchView};
use crate::analyse::RaceShadow;
use crate::ir::{BarKind, Inst, Program, Slot, Special, NONE};
use crate::memory::traffic::{SectorSet, TrafficCounter};
use crate::memory::GlobalMemory;
use crate::report::{DiagKey, Diagnostic, DiagnosticKind, Figures};
use crate::source::SourceLocation;
use std::collections::HashSet;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::Instant;

/// Uninitialised shared memory reads as 0xff bytes (NaN as float, -1 as int), so a kernel that
/// reads shared memory nobody wrote gets visibly wrong results, as it would on a GPU.
const SHARED_POISON: u8 = 0xff;
/// Warp instructions a worker takes from the launch's budget at a time.
const BUDGET_CHUNK: u64 = 1 << 16;
/// What starting a block costs, in warp instructions per warp (clearing its registers, local and
/// shared memory, shadows and counters), so that a huge grid of tiny blocks stops at the budget
/// within its time too.
const BLOCK_START_COST_PER_WARP: u64 = 8;

/// What every block of a launch shares.
pub(crate) struct LaunchCx<'a> {
    pub prog: &'a Program,
    pub mem: &'a GlobalMemory,
    pub params: Vec<u8>,
    pub grid: [u32; 3],
    pub block_dim: [u32; 3],
    pub threads_per_block: u32,
    pub warps_per_block: u32,
    pub shared_size: u32,
    pub dynamic_shared: u32,
    pub consts: Vec<(Slot, u64)>,
    pub max_warp_instructions: u64,
    pub max_clock: u64,
    /// Warp instructions left in the launch's budget.
    pub remaining: AtomicU64,
    /// When the launch stops whatever budget is left (`Limits::max_wall_time`).
    pub deadline: Option<Instant>,
    /// Lowest block index that hit a fatal error (`u64::MAX`: none); later blocks are skipped.
    pub fatal_block: AtomicU64,
    pub next_block: AtomicU64,
    pub total_blocks: u64,
    /// `%tid.{x,y,z}` of every thread of a block, by linear thread index.
    pub tids: [Vec<u64>; 3],
    /// Loads whose value is the expected value of a compare-and-swap (`analyse::cas_reads`).
    pub cas_reads: Vec<bool>,
    /// Address and name of each `__device__` variable, for race messages.
    pub global_names: Vec<(u64, String)>,
    /// Sectors the launch reads and writes, for the time model's DRAM traffic.
    pub sectors: SectorSet,
    /// Bytes of printf output so far; past `printf::BUFFER_BYTES` printf prints nothing.
    pub printf_bytes: AtomicU64,
    /// A printf found the buffer full.
    pub printf_cut: AtomicBool,
    /// The elements whose stores a watched launch records; `None` in a plain launch.
    pub watch: Option<&'a crate::analyse::provenance::WatchCx<'a>>,
    /// The device heap of kernels' `malloc`, where the kernel calls it.
    pub heap: Option<&'a crate::exec::heap::DeviceHeap>,
    /// What an access past an allocation's end inside its granule does (`Limits::past_the_end`).
    pub past_the_end: crate::report::PastTheEnd,
    /// The grid barrier, where the kernel calls `grid.sync()`.
    pub grid_barrier: Option<super::grid::GridBarrier>,
}

impl LaunchCx<'_> {
    /// What the race analysis needs of the launch to name a thread, a line or an address.
    pub(crate) fn view(&self) -> LaunchView<'_> {
        LaunchView {
            prog: self.prog,
            mem: self.mem,
            params: &self.params,
            global_names: &self.global_names,
            grid: self.grid,
            block_dim: self.block_dim,
            total_blocks: self.total_blocks,
        }
    }

    pub(crate) fn block_index(&self, lin: u64) -> [u32; 3] {
        self.view().block_index(lin)
    }

    /// The limit a launch that stopped ran past, for its message.
    pub(crate) fn limit_text(&self) -> String {
        if self.deadline.is_some_and(|d| Instant::now() >= d) {
            "time limit (it ran slower than the budget of warp instructions assumes)".to_string()
        } else {
            format!("limit of {} warp instructions", self.max_warp_instructions)
        }
    }

    pub(crate) fn thread_index(&self, lin: u32) -> [u32; 3] {
        self.view().thread_index(lin)
    }
}

pub(crate) struct PrintRecord {
    pub block: u64,
    pub warp: u32,
    pub seq: u32,
    pub lane: u32,
    pub text: String,
}

/// What a worker collects over the blocks it runs.
#[derive(Default)]
pub(crate) struct WorkerOut {
    pub site_figures: Vec<Figures>,
    /// Non-fatal diagnostics with their block's linear index, first of their kind per worker.
    pub diags: Vec<(u64, DiagKey, Diagnostic)>,
    pub seen: HashSet<DiagKey>,
    pub fatal: Option<(u64, Diagnostic)>,
    pub printf: Vec<PrintRecord>,
    pub instructions: u64,
    /// What each block touched in global memory, for the cross-block race pass.
    pub global: GlobalRanges,
    /// Races reported as read/write, which a write/write race on the same lines replaces (the
    /// racy `count += 1` first reads what another thread wrote; that both write is the point).
    pub race_reads: HashSet<DiagKey>,
    /// Counts for the time model.
    pub traffic: TrafficCounter,
    /// A watched launch's stores to each watched element (empty until the first one).
    pub watched: Vec<crate::analyse::provenance::ElementStores>,
    /// A watched launch's steps of each watched thread (empty until the first one).
    pub threads: Vec<crate::analyse::provenance::thread::ThreadTrace>,
    /// A watched launch's bytes of the block's shared memory written so far, one bit each.
    pub shared_written: Vec<u64>,
    /// A watched launch's reads of shared memory no thread of the block had written.
    pub unwritten: Vec<super::memops::Unwritten>,
}

/// A block in flight: everything an instruction may touch besides its own warp.
pub(crate) struct BlockCx<'a> {
    pub l: &'a LaunchCx<'a>,
    pub block: [u32; 3],
    pub block_lin: u64,
    pub shared: &'a mut [u8],
    pub shadow: &'a mut RaceShadow,
    pub global_shadow: &'a mut GlobalShadow,
    pub out: &'a mut WorkerOut,
    /// Barrier interval number for race detection (unique per worker, never reused).
    pub epoch: u32,
    /// Number of the shared-memory instruction being executed (unique per worker).
    pub stamp: &'a mut u32,
    pub budget: &'a mut u64,
    pub exited_in_epoch: u32,
}

impl BlockCx<'_> {
    pub(crate) fn location(&self, site: u32) -> Option<SourceLocation> {
        self.l.prog.sites.get(site as usize).cloned().flatten()
    }

    pub(crate) fn diagnostic(
        &self,
        kind: DiagnosticKind,
        w: &Warp,
        lane: usize,
        site: u32,
        message: String,
    ) -> Diagnostic {
        Diagnostic {
            kind,
            block: self.block,
            thread: self.l.thread_index(w.thread_linear(lane)),
            location: self.location(site),
            message,
            race: None,
            access: None,
        }
    }

    /// Records a non-fatal diagnostic once per (kind, sites).
    pub(crate) fn report(&mut self, key: DiagKey, d: Diagnostic) {
        if self.out.seen.insert(key) {
            self.out.diags.push((self.block_lin, key, d));
        }
    }

    pub(crate) fn trap(
        &self,
        w: &Warp,
        exec: u32,
        inst: &Inst,
        message: String,
    ) -> Box<Diagnostic> {
        let lane = exec.trailing_zeros() as usize;
        Box::new(self.diagnostic(DiagnosticKind::Trap, w, lane, inst.site, message))
    }

    /// Takes `n` warp instructions' worth of work (printf formatting, say) from the budget.
    pub(crate) fn charge(
        &mut self,
        w: &Warp,
        inst: &Inst,
        mut n: u64,
    ) -> Result<(), Box<Diagnostic>> {
        while n > *self.budget {
            n -= *self.budget;
            *self.budget = 0;
            self.refill_budget(w, inst)?;
        }
        *self.budget -= n;
        Ok(())
    }

    /// The launch stops where a warp's clock passes the time limit (`Limits::max_clock`).
    pub(crate) fn clock_timeout(&self, w: &Warp, inst: &Inst, clock: u64) -> Box<Diagnostic> {
        let at = self
            .location(inst.site)
            .map_or(String::new(), |l| format!(" at line {}", l.line));
        let msg = format!(
            "warp {} read the clock{at} (PTX line {}) {:.3} s into the launch, past its time limit of {:.3} s: \
             a wait on clock64() that long, or a loop that never ends",
            w.index,
            inst.ptx_line,
            clock as f64 / 1e9,
            self.l.max_clock as f64 / 1e9,
        );
        let lane = w.active.trailing_zeros() as usize;
        Box::new(self.diagnostic(DiagnosticKind::Timeout, w, lane, inst.site, msg))
    }

    pub(crate) fn refill_budget(&mut self, w: &Warp, inst: &Inst) -> Result<(), Box<Diagnostic>> {
        match take_budget(self.l) {
            Some(chunk) => {
                *self.budget = chunk;
                Ok(())
            }
            None => {
                let lane = w.active.trailing_zeros() as usize;
                let at = self
                    .location(inst.site)
                    .map_or(String::new(), |l| format!(" at line {}", l.line));
                let msg = if w.icount.saturating_mul(100) < self.l.max_warp_instructions {
                    // This warp did little: the many blocks before it spent the budget.
                    too_many_blocks(self.l, self.block_lin)
                } else {
                    format!(
                        "the launch ran past its {}; warp {} was still running{at} (PTX line {}), so it is probably \
                         stuck in a loop that never ends",
                        self.l.limit_text(),
                        w.index,
                        inst.ptx_line
                    )
                };
                Err(Box::new(self.diagnostic(
                    DiagnosticKind::Timeout,
                    w,
                    lane,
                    inst.site,
                    msg,
                )))
            }
        }
    }

    /// A special register's value in every lane of warp `warp`.
    /// A special register's value in every lane of warp `warp`, the clock reading `clock`.
    pub(crate) fn special(&self, warp: u32, clock: u64, reg: Special) -> [u64; 32] {
        let l = self.l;
        let base = warp as usize * 32;
        let uniform = |v: u64| [v; 32];
        let per_lane = |f: &dyn Fn(u64) -> u64| std::array::from_fn(|lane| f(lane as u64));
        match reg {
            Special::Tid(d) => {
                let t = &l.tids[d as usize];
                std::array::from_fn(|lane| t.get(base + lane).copied().unwrap_or(0))
            }
            Special::Ntid(d) => uniform(l.block_dim[d as usize] as u64),
            Special::Ctaid(d) => uniform(self.block[d as usize] as u64),
            Special::Nctaid(d) => uniform(l.grid[d as usize] as u64),
            Special::LaneId => per_lane(&|lane| lane),
            Special::WarpId => uniform(warp as u64),
            Special::NWarpId => uniform(l.warps_per_block as u64),
            Special::SmId | Special::GridId => uniform(0),
            Special::NSmId => uniform(1),
            Special::LanemaskEq => per_lane(&|lane| 1 << lane),
            Special::LanemaskLt => per_lane(&|lane| (1 << lane) - 1),
            Special::LanemaskLe => per_lane(&|lane| (1 << (lane + 1)) - 1),
            Special::LanemaskGt => per_lane(&|lane| !((1u64 << (lane + 1)) - 1) & 0xffff_ffff),
            Special::LanemaskGe => per_lane(&|lane| !((1u64 << lane) - 1) & 0xffff_ffff),
            Special::Clock => uniform(clock & 0xffff_ffff),
            Special::Clock64 | Special::GlobalTimer => uniform(clock),
            Special::DynamicSmemSize => uniform(l.dynamic_shared as u64),
            Special::TotalSmemSize => uniform(l.shared_size as u64),
        }
    }
}

fn too_many_blocks(l: &LaunchCx, lin: u64) -> String {
    let b = l.block_index(lin);
    format!(
        "the launch ran past its {} at block ({},{},{}) of its {} blocks: the grid is too large to simulate in \
         the time allowed (or its blocks run too long); launch fewer blocks, for example with a grid-stride loop",
        l.limit_text(),
        b[0],
        b[1],
        b[2],
        l.total_blocks
    )
}

/// A chunk of the launch's remaining budget; `None` when it is spent.
fn take_budget(l: &LaunchCx) -> Option<u64> {
    if l.deadline.is_some_and(|d| Instant::now() >= d) {
        l.remaining.store(0, Ordering::Relaxed);
        return None;
    }
    l.remaining
        .fetch_update(Ordering::Relaxed, Ordering::Relaxed, |r| {
            (r > 0).then(|| r - r.min(BUDGET_CHUNK))
        })
        .ok()
        .map(|r| r.min(BUDGET_CHUNK))
}

/// Per CPU thread: reusable warps, shared memory and race shadow.
pub(crate) struct Worker {
    warps: Vec<Warp>,
    shared: Vec<u8>,
    shadow: RaceShadow,
    global_shadow: GlobalShadow,
    epoch: u32,
    stamp: u32,
    budget: u64,
    pub out: WorkerOut,
}

impl Worker {
    pub(crate) fn new(l: &LaunchCx) -> Worker {
        let warps = (0..l.warps_per_block)
            .map(|_| Warp::new(l.prog, &l.consts))
            .collect();
        let mut shadow = RaceShadow::default();
        shadow.resize(l.shared_size as usize);
        Worker {
            warps,
            shared: vec![0; l.shared_size as usize],
            shadow,
            global_shadow: GlobalShadow::default(),
            epoch: 0,
            stamp: 0,
            budget: 0,
            out: WorkerOut {
                site_figures: vec![Figures::default(); l.prog.sites.len()],
                traffic: TrafficCounter::new(l.prog.code.len()),
                ..Default::default()
            },
        }
    }

    /// Runs blocks taken from the launch's queue (first those released from a grid barrier)
    /// until none are left.
    pub(crate) fn run(&mut self, l: &LaunchCx) {
        loop {
            let resumed = l.grid_barrier.as_ref().and_then(|g| g.next_resumed());
            let b = match &resumed {
                Some(p) => p.lin,
                None => l.next_block.fetch_add(1, Ordering::Relaxed),
            };
            if b >= l.total_blocks || b > l.fatal_block.load(Ordering::Relaxed) {
                if resumed.is_some() {
                    continue;
                }
                break;
            }
            let result = match resumed {
                Some(p) => self.resume_block(l, p),
                None => self
                    .charge_block_start(l, b)
                    .and_then(|()| self.run_block(l, b)),
            };
            if let Err(d) = result {
                l.fatal_block.fetch_min(b, Ordering::Relaxed);
                if self.out.fatal.as_ref().is_none_or(|(fb, _)| b < *fb) {
                    self.out.fatal = Some((b, *d));
                }
            }
        }
    }

    fn charge_block_start(&mut self, l: &LaunchCx, lin: u64) -> Result<(), Box<Diagnostic>> {
        let mut n = BLOCK_START_COST_PER_WARP * l.warps_per_block as u64;
        while n > self.budget {
            n -= self.budget;
            self.budget = take_budget(l).ok_or_else(|| {
                let block = l.block_index(lin);
                Box::new(Diagnostic {
                    kind: DiagnosticKind::Timeout,
                    block,
                    thread: [0, 0, 0],
                    location: None,
                    message: too_many_blocks(l, lin),
                    race: None,
                    access: None,
                })
            })?;
        }
        self.budget -= n;
        Ok(())
    }

    fn run_block(&mut self, l: &LaunchCx, lin: u64) -> Result<(), Box<Diagnostic>> {
        self.epoch += 1;
        self.shared.fill(SHARED_POISON);
        self.out.shared_written.fill(0);
        let threads = l.threads_per_block;
        for (i, w) in self.warps.iter_mut().enumerate() {
            let first = i as u32 * 32;
            let n = threads.saturating_sub(first).min(32);
            w.reset(i as u32, if n == 32 { FULL } else { (1u32 << n) - 1 });
        }
        self.go(l, lin, false)
    }

    /// Goes on with a block released from a grid barrier, in a barrier interval of its own.
    fn resume_block(
        &mut self,
        l: &LaunchCx,
        p: super::grid::Parked,
    ) -> Result<(), Box<Diagnostic>> {
        self.epoch += 1;
        self.warps = p.warps;
        self.shared = p.shared;
        self.out.shared_written = p.shared_written;
        self.go(l, p.lin, true)
    }

    /// Runs block `lin`'s warps (past the barrier they wait at, where `released`) to the end or
    /// to a grid barrier, where the block is parked with its warps and shared memory.
    fn go(&mut self, l: &LaunchCx, lin: u64, released: bool) -> Result<(), Box<Diagnostic>> {
        self.global_shadow.begin_block(self.epoch);
        let Worker {
            warps,
            shared,
            shadow,
            global_shadow,
            epoch,
            stamp,
            budget,
            out,
        } = self;
        let mut cx = BlockCx {
            l,
            block: l.block_index(lin),
            block_lin: lin,
            shared,
            shadow,
            global_shadow,
            out,
            epoch: *epoch,
            stamp,
            budget,
            exited_in_epoch: 0,
        };
        if released {
            release_barrier(warps, &mut cx);
        }
        let result = run_block_warps(warps, &mut cx);
        *epoch = cx.epoch;
        if let (Ok(BlockStop::AtGridBarrier), Some(grid)) = (&result, &l.grid_barrier) {
            // What the block touched before the barrier is ordered before what any block
            // touches after it: its ranges go to this phase's cross-block pass.
            self.global_shadow.finish_block(lin, &mut self.out.global);
            let fresh = (0..l.warps_per_block)
                .map(|_| Warp::new(l.prog, &l.consts))
                .collect();
            grid.park(super::grid::Parked {
                lin,
                warps: std::mem::replace(&mut self.warps, fresh),
                shared: std::mem::replace(&mut self.shared, vec![0; l.shared_size as usize]),
                shared_written: std::mem::take(&mut self.out.shared_written),
            });
            return Ok(());
        }
        if let (Ok(_), Some(grid)) = (&result, &l.grid_barrier) {
            grid.block_ended();
        }
        let executed: u64 = warps.iter().map(|w| w.icount).sum();
        self.out.instructions += executed;
        self.out.traffic.block_warps(warps.iter().map(|w| w.icount));
        let waited = warps.iter().map(|w| w.clock.skipped()).max().unwrap_or(0);
        self.out.traffic.longest_clock_wait = self.out.traffic.longest_clock_wait.max(waited);
        self.global_shadow.finish_block(lin, &mut self.out.global);
        self.out.traffic.end_block();
        result.map(|_| ())
    }
}

/// Where a block's warps stopped.
enum BlockStop {
    /// Every thread exited.
    Ended,
    /// Every live thread waits at a grid barrier (`grid.sync()`).
    AtGridBarrier,
}

fn run_block_warps(warps: &mut [Warp], cx: &mut BlockCx) -> Result<BlockStop, Box<Diagnostic>> {
    loop {
        for w in warps.iter_mut() {
            if w.runnable() {
                run_warp(w, cx)?;
            }
        }
        if warps.iter().all(|w| w.finished()) {
            return Ok(BlockStop::Ended);
        }
        if let Some(w) = warps.iter().find(|w| w.sync_wait != 0) {
            let lane = w.sync_wait.trailing_zeros() as usize;
            let site = cx.l.prog.code[w.lane_pc[lane] as usize].site;
            let msg = format!(
                "every thread of the block is waiting: {} of warp {} wait in a warp-synchronous operation \
                 for lanes of their mask that wait at a barrier or exited",
                lane_list(w.sync_wait),
                w.index
            );
            return Err(Box::new(cx.diagnostic(
                DiagnosticKind::WarpSyncDeadlock,
                w,
                lane,
                site,
                msg,
            )));
        }
        check_barrier(warps, cx);
        if cx.l.grid_barrier.is_some() && super::grid::waits_at_grid(warps) {
            return Ok(BlockStop::AtGridBarrier);
        }
        release_barrier(warps, cx);
    }
}

/// All live threads wait at barriers: check they are the same barrier and that no thread left
/// without reaching it.
fn check_barrier(warps: &[Warp], cx: &mut BlockCx) {
    let waiting: Vec<usize> = (0..warps.len())
        .filter(|&i| warps[i].bar_wait != 0)
        .collect();
    let first = &warps[waiting[0]];
    let same_barrier = waiting.iter().all(|&i| warps[i].bar.pc == first.bar.pc);
    let arrived: u32 = waiting
        .iter()
        .map(|&i| warps[i].bar_wait.count_ones())
        .sum();
    let lane = first.bar_wait.trailing_zeros() as usize;
    let site = first.bar.site;
    if cx.exited_in_epoch > 0 {
        let line = cx
            .location(site)
            .map_or(String::new(), |l| format!(" at line {}", l.line));
        let msg = format!(
            "__syncthreads(){line} was reached by {arrived} of the block's {} threads; the other {} exited without \
             reaching it (for example through an early `return` or a barrier inside an `if`), which is undefined \
             behaviour: every thread of the block must reach the same barrier",
            cx.l.threads_per_block,
            cx.exited_in_epoch
        );
        let d = cx.diagnostic(DiagnosticKind::DivergentBarrier, first, lane, site, msg);
        cx.report(DiagKey(DiagnosticKind::DivergentBarrier, site, site), d);
    } else if !same_barrier || waiting.iter().any(|&i| warps[i].bar.mixed) {
        // Different barrier instructions (or lanes of one warp at different ones).
        let mut sites: Vec<u32> = waiting.iter().map(|&i| warps[i].bar.site).collect();
        sites.sort_unstable();
        sites.dedup();
        let lines: Vec<String> = sites
            .iter()
            .map(|&s| {
                cx.location(s)
                    .map_or("?".to_string(), |l| l.line.to_string())
            })
            .collect();
        {
            let msg = format!(
                "threads of the block wait at different __syncthreads() calls (lines {}); every thread must reach \
                 the same barrier, so keep barriers out of code that only some threads run",
                lines.join(" and ")
            );
            let d = cx.diagnostic(DiagnosticKind::DivergentBarrier, first, lane, site, msg);
            cx.report(
                DiagKey(
                    DiagnosticKind::DivergentBarrier,
                    sites[0],
                    *sites.last().expect("one site"),
                ),
                d,
            );
        }
    }
}

/// Releases the threads waiting at a barrier, with `bar.red`'s results.
fn release_barrier(warps: &mut [Warp], cx: &mut BlockCx) {
    let waiting: Vec<usize> = (0..warps.len())
        .filter(|&i| warps[i].bar_wait != 0)
        .collect();
    let arrived: u32 = waiting
        .iter()
        .map(|&i| warps[i].bar_wait.count_ones())
        .sum();
    // bar.red: the reduction over every arriving thread.
    let pred_true: u32 = waiting
        .iter()
        .map(|&i| (warps[i].bar.pred & warps[i].bar_wait).count_ones())
        .sum();
    for &i in &waiting {
        let w = &mut warps[i];
        let arrived_here = w.bar_wait;
        if let Some(kind) = w.bar.kind {
            let value = match kind {
                BarKind::RedPopc => pred_true as u64,
                BarKind::RedAnd => (pred_true == arrived) as u64,
                BarKind::RedOr => (pred_true > 0) as u64,
                _ => 0,
            };
            if w.bar.d != NONE {
                for l in super::lanes(arrived_here) {
                    w.regs[w.bar.d as usize * 32 + l] = value;
                }
            }
            if w.bar.dp != NONE {
                let p = &mut w.preds[w.bar.dp as usize];
                *p = if value != 0 {
                    *p | arrived_here
                } else {
                    *p & !arrived_here
                };
            }
        }
        w.bar_wait = 0;
        w.bar = Default::default();
        w.ready |= arrived_here;
        // Over all 32 lanes without branches (the compiler vectorises it): a barrier releases
        // every warp of the block, and most of its lanes.
        let ready = w.ready;
        w.min_ready_pc = (0..32)
            .map(|l| {
                if ready >> l & 1 != 0 {
                    w.lane_pc[l]
                } else {
                    NONE
                }
            })
            .min()
            .unwrap_or(NONE);
    }
    cx.exited_in_epoch = 0;
    cx.epoch += 1;
    cx.out.traffic.barriers += 1;
}

// Other messages of exec name lanes the way a bad access does.
pub(crate) use crate::report::lane_list;
