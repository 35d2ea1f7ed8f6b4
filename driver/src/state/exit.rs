//! The record written to `SIMCUDA_REPORT` when the program exits: registered by the first entry
//! point called (simulated or passed through), it reads pass-through's last events and the
//! state's totals (memory not freed, copies never waited for) into the record.

use super::{with_driver, Driver};
use contract::{DriverRecord, TimelineKind};

/// Writes the record to `SIMCUDA_REPORT`, if set, when the program exits.
extern "C" fn write_at_exit() {
    let Some(path) = std::env::var_os("SIMCUDA_REPORT") else {
        return;
    };
    if crate::real::active() {
        super::timing::resolve(true);
    }
    let json = with_driver(|d| serde_json::to_string_pretty(finished(d)));
    match json.map(|text| std::fs::write(&path, text)) {
        Ok(Ok(())) => {}
        Ok(Err(e)) => eprintln!("simcuda: cannot write {}: {e}", path.to_string_lossy()),
        Err(e) => eprintln!("simcuda: cannot write the report: {e}"),
    }
}

/// The record with the state's totals read into it, as it is written (at exit, or at a cut).
pub(super) fn finished(d: &mut Driver) -> &DriverRecord {
    if crate::real::active() {
        d.record.timeline = TimelineKind::Measured;
    }
    d.record.version = contract::DRIVER_RECORD_VERSION;
    d.record.leaked_bytes = d.allocations.total() - super::cut::earlier_bytes_left(d);
    d.record.copies_never_waited_for = d.copies_never_waited_for();
    d.record.arrivals_never_waited_for = d.record.order.arrivals_not_waited_for();
    &d.record.data
}

/// Registers [`write_at_exit`] once, unless this library is the real driver behind a copy of
/// itself in pass-through mode (that copy keeps the record).
pub(crate) fn write_when_the_program_exits() {
    static ONCE: std::sync::Once = std::sync::Once::new();
    ONCE.call_once(|| {
        if !crate::real::keeps_record() {
            return;
        }
        // SAFETY: registers a function without arguments that never unwinds.
        unsafe { libc::atexit(write_at_exit) };
    });
}
