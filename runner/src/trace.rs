//! `RUNNER_TRACE=1`: a line on stderr as each phase of a command ends, with the milliseconds
//! since the command started, to see where a check's wall time goes (on a GPU machine, where a
//! profiler of the host side is rarely at hand).

use std::sync::OnceLock;
use std::time::Instant;

static STARTED: OnceLock<Option<Instant>> = OnceLock::new();

/// Starts the clock when RUNNER_TRACE is set; call first thing in main.
pub fn start() {
    STARTED.get_or_init(|| std::env::var_os("RUNNER_TRACE").map(|_| Instant::now()));
}

/// Notes that `phase` has just ended.
pub fn mark(phase: impl AsRef<str>) {
    if let Some(Some(started)) = STARTED.get() {
        let ms = started.elapsed().as_secs_f64() * 1000.0;
        // Phases of the simulator's re-check interleave with the GPU's: named threads say whose.
        match std::thread::current().name() {
            Some(thread) if thread != "main" => {
                eprintln!("[trace {ms:8.1} ms] ({thread}) {}", phase.as_ref())
            }
            _ => eprintln!("[trace {ms:8.1} ms] {}", phase.as_ref()),
        }
    }
}
