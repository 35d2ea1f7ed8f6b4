//! The driver's one state, behind a lock, and the wrapper every entry point goes through.

use crate::handles::Table;
use crate::ranges::Ranges;
use crate::record::Record;
use cudarc::driver::sys::{cudaError_enum as E, CUresult};
use std::collections::HashMap;
use std::sync::{Arc, Mutex};

pub(crate) mod advice;
pub(crate) mod book;
pub(crate) mod capture;
pub(crate) mod copies;
#[allow(unreachable_pub)] // its entry points
mod cut;
mod exit;
pub(crate) mod mirrors;
pub(crate) mod timing;

pub(crate) use exit::write_when_the_program_exits;

pub(crate) type Result<T = ()> = std::result::Result<T, CUresult>;

/// A loaded module, and the function handles given out for its kernels (gone with it).
pub(crate) struct LoadedModule {
    pub module: Arc<sim::Module>,
    pub functions: Vec<usize>,
}

/// What a link (`link`) collects: its PTX inputs, and the image once complete (kept until
/// destroyed, as the driver keeps it).
#[derive(Default)]
pub(crate) struct Link {
    pub inputs: Vec<Vec<u8>>,
    pub image: Vec<u8>,
}

/// An event: unrecorded, or recorded at a modelled time (microseconds).
#[derive(Clone, Copy, Default)]
pub(crate) struct Event {
    pub at_us: Option<f64>,
    /// The stream it was recorded on and the order of what was queued before it.
    pub recorded: Option<(usize, u64)>,
    /// Created with `CU_EVENT_DISABLE_TIMING`: a GPU gives no elapsed time for it.
    pub without_timing: bool,
    /// Recorded during stream capture `id`: waiting for it joins the capture (`graph`).
    pub captured_in: Option<usize>,
}

/// Everything the driver holds. Handles given to the program are indices into these tables,
/// plus one (a null handle is never valid); a destroyed entry stays `None`.
pub(crate) struct Driver {
    pub initialised: bool,
    pub machine: sim::Machine,
    pub modules: Table<LoadedModule>,
    /// (module index, kernel name) of each function handle.
    pub functions: Table<(usize, String)>,
    /// The function handle of each (module index, kernel name): asked again, the driver gives
    /// the same handle, as NVIDIA's does, rather than a new entry per call.
    pub function_handles: HashMap<(usize, String), usize>,
    /// Kernel names given out by `cuFuncGetName`, one string each.
    pub names: Vec<&'static std::ffi::CStr>,
    /// Streams created (index 0 is the default stream, always there).
    /// Streams, each with the context that was current when it was made (none for the
    /// default stream, which is every context's own).
    pub streams: Table<Option<usize>>,
    pub events: Table<Event>,
    pub links: Table<Link>,
    /// Stream captures under way (`graph`), and the capture each capturing stream is part of.
    pub captures: Table<capture::Capture>,
    pub capturing: HashMap<usize, usize>,
    /// Graphs captured, and graphs instantiated: their nodes, in order.
    pub graphs: Table<capture::Graph>,
    pub graph_execs: Table<capture::Graph>,
    /// Device allocations: start and size.
    pub allocations: Ranges,
    /// Page-locked host memory: start and size (from cuMemAllocHost / cuMemHostRegister).
    pub pinned: Ranges,
    /// The starts of the page-locked blocks this driver allocated (the rest of `pinned` is the
    /// program's memory, registered): only these are the driver's to free.
    pub allocated_host: std::collections::HashSet<u64>,
    /// Host memory the device also sees (managed, mapped): `mirror`.
    pub mirrors: mirrors::Mirrors,
    /// Advice and prefetches per managed block (`managed`).
    pub advice: advice::AdviceTable,
    /// Contexts created; the primary context is index 0.
    pub contexts: Vec<bool>,
    pub primary_retains: u32,
    /// Context limits the program set (`cuCtxSetLimit`), by limit.
    pub limits: HashMap<std::ffi::c_int, usize>,
    /// A kernel fault: every later call answers it, as a GPU's lost context does.
    pub sticky: Option<CUresult>,
    /// A kernel fault the program has not waited for yet: calls that only queue work succeed, as
    /// on a GPU still running the kernel, and the first call that waits makes it `sticky`.
    pub unseen_fault: Option<CUresult>,
    pub record: Record,
    /// Pass-through mode's streams and the events not read yet.
    pub measured: timing::Measured,
    /// Copies back to page-locked memory not waited for yet (`in_flight`).
    pub in_flight: Vec<copies::InFlight>,
    /// Copies that landed only because their memory was freed (`in_flight`).
    pub never_waited_for: u64,
    /// Device allocations made before the driver last started afresh (`cut`): not the leaks of
    /// what runs now.
    pub earlier_allocations: Vec<(u64, u64)>,
}

impl Driver {
    fn new() -> Driver {
        Driver {
            initialised: false,
            machine: sim::Machine::new(),
            modules: Table::default(),
            functions: Table::default(),
            function_handles: HashMap::new(),
            names: Vec::new(),
            streams: default_stream_only(),
            events: Table::default(),
            links: Table::default(),
            captures: Table::default(),
            capturing: HashMap::new(),
            graphs: Table::default(),
            graph_execs: Table::default(),
            allocations: Ranges::default(),
            pinned: Ranges::default(),
            allocated_host: Default::default(),
            mirrors: Default::default(),
            advice: Default::default(),
            contexts: vec![true],
            primary_retains: 0,
            limits: HashMap::new(),
            sticky: None,
            unseen_fault: None,
            record: Record::default(),
            measured: Default::default(),
            in_flight: Vec::new(),
            never_waited_for: 0,
            earlier_allocations: Vec::new(),
        }
    }

    /// Whether `[ptr, ptr + len)` lies in page-locked host memory.
    pub(crate) fn is_pinned(&self, ptr: usize, len: usize) -> bool {
        self.pinned.contains(ptr as u64, len as u64)
    }

    /// The stream a handle names: null, `CU_STREAM_LEGACY` (1) and `CU_STREAM_PER_THREAD` (2)
    /// are the default stream; streams created have handles [`stream_handle`] made.
    pub(crate) fn stream_index(&self, stream: *mut std::ffi::c_void) -> Result<usize> {
        let index = match stream as usize {
            0..=2 => 0,
            h => h >> 4,
        };
        match self.streams.get(index) {
            Some(_) => Ok(index),
            None => Err(E::CUDA_ERROR_INVALID_HANDLE),
        }
    }

    /// The calling thread's current context: the top of its context stack.
    pub(crate) fn current(&self) -> Option<usize> {
        CONTEXT_STACK.with_borrow(|stack| stack.last().copied())
    }

    /// Runs `f` on the calling thread's context stack.
    pub(crate) fn context_stack<T>(&mut self, f: impl FnOnce(&mut Vec<usize>) -> T) -> T {
        CONTEXT_STACK.with_borrow_mut(f)
    }

    /// The calling thread's current context must be there, and not destroyed (by another
    /// thread: destroying it pops it from the destroying thread's own stack).
    pub(crate) fn require_context(&self) -> Result {
        self.live_context(self.current()).map(|_| ())
    }

    /// `context` where it is one that lives; the error a call answers where it was destroyed or
    /// there is none.
    pub(crate) fn live_context(&self, context: Option<usize>) -> Result<usize> {
        match context {
            Some(i) if self.contexts.get(i) == Some(&true) => Ok(i),
            Some(_) => Err(E::CUDA_ERROR_CONTEXT_IS_DESTROYED),
            None => Err(E::CUDA_ERROR_INVALID_CONTEXT),
        }
    }
}

/// The stream table as a process starts: the default stream, number 0.
fn default_stream_only() -> Table<Option<usize>> {
    let mut streams = Table::default();
    streams.insert(None);
    streams
}

thread_local! {
    /// Each CPU thread's context stack (`cuCtxPushCurrent`, `cuCtxPopCurrent`), as NVIDIA's
    /// driver keeps one per thread: its top is the thread's current context.
    static CONTEXT_STACK: std::cell::RefCell<Vec<usize>> = const { std::cell::RefCell::new(Vec::new()) };
}

static DRIVER: Mutex<Option<Driver>> = Mutex::new(None);

/// Runs entry point `name`: counted in the record, refused before `cuInit` (as the real driver
/// does) unless `before_init`, and never unwinding into the program (a panic here is a bug of
/// this driver, reported as `CUDA_ERROR_UNKNOWN` with its message).
pub(crate) fn call(name: &'static str, f: impl FnOnce(&mut Driver) -> Result) -> CUresult {
    call_with(name, false, f)
}

/// Whether the entry point `name` waits for work queued on the device (a synchronise, a query,
/// a synchronous copy, a free): where a GPU's program learns that a kernel faulted. A call that
/// only queues more work (a launch, an event record, an asynchronous copy) returns before the
/// kernel has run on a GPU, so it cannot answer the kernel's fault.
fn waits_for_the_device(name: &str) -> bool {
    name.contains("Synchronize")
        || name.contains("Query")
        || (name.starts_with("cuMemcpy") && !name.contains("Async"))
        || name.starts_with("cuMemFree")
        || matches!(
            name,
            "cuEventElapsedTime"
                | "cuEventElapsedTime_v2"
                | "cuCtxDestroy"
                | "cuCtxDestroy_v2"
                | "cuModuleUnload"
                | "cuDevicePrimaryCtxReset"
                | "cuDevicePrimaryCtxReset_v2"
        )
}

pub(crate) fn call_with(
    name: &'static str,
    before_init: bool,
    f: impl FnOnce(&mut Driver) -> Result,
) -> CUresult {
    let mut guard = DRIVER
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner());
    let driver = guard.get_or_insert_with(Driver::new);
    // The record is written however far the program got, even if it never called cuInit.
    write_when_the_program_exits();
    driver.record.count(name);
    if !driver.initialised && !before_init {
        return driver.record.failed(name, E::CUDA_ERROR_NOT_INITIALIZED);
    }
    if waits_for_the_device(name) {
        if let Some(fault) = driver.unseen_fault.take() {
            driver.sticky = Some(fault);
        }
    }
    if let Some(fault) = driver.sticky.filter(|_| !before_init) {
        return driver.record.failed(name, fault);
    }
    let outcome = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| f(driver)));
    match outcome {
        Ok(Ok(())) => E::CUDA_SUCCESS,
        Ok(Err(e)) => driver.record.failed(name, e),
        Err(panic) => {
            let why = panic
                .downcast_ref::<String>()
                .cloned()
                .or_else(|| panic.downcast_ref::<&str>().map(|s| s.to_string()))
                .unwrap_or_default();
            eprintln!("simcuda: {name} failed inside the simulator's driver: {why}");
            driver.record.failed(name, E::CUDA_ERROR_UNKNOWN)
        }
    }
}

/// Runs `f` on the state, for the exit hook.
pub(crate) fn with_driver<T>(f: impl FnOnce(&mut Driver) -> T) -> T {
    let mut guard = DRIVER
        .lock()
        .unwrap_or_else(|poisoned| poisoned.into_inner());
    f(guard.get_or_insert_with(Driver::new))
}

/// Writes `value` through `out`, refusing a null pointer as the driver does.
///
/// # Safety
/// `out` is null or valid for a write of `T`.
pub(crate) unsafe fn put<T>(out: *mut T, value: T) -> Result {
    if out.is_null() {
        return Err(E::CUDA_ERROR_INVALID_VALUE);
    }
    // SAFETY: non-null, and valid for a write by the caller's contract.
    unsafe { out.write(value) };
    Ok(())
}

/// The handle of created stream `index` (past the special handles 1 and 2).
pub(crate) fn stream_handle<T>(index: usize) -> *mut T {
    (index << 4) as *mut T
}

/// A handle for table index `index`: never null.
pub(crate) fn handle<T>(index: usize) -> *mut T {
    (index + 1) as *mut T
}

/// The table index of a handle made by [`handle`].
pub(crate) fn index<T>(handle: *mut T) -> Result<usize> {
    (handle as usize)
        .checked_sub(1)
        .ok_or(E::CUDA_ERROR_INVALID_HANDLE)
}
