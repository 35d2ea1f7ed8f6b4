//! Copies back to page-locked memory on a stream, in flight until the program waits for
//! them. On a GPU such a copy returns at once and its bytes arrive later; a program that reads
//! the destination before synchronising reads whatever was there before, sometimes. Here the
//! bytes are taken from the device when the copy is queued (everything before it on its stream
//! has run by then) and written to the program's memory only once the host has waited for the
//! copy (`happens_before`): its stream, a stream that waited for an event recorded after it, the
//! event, the context, a synchronous call, or freeing the memory. So a missing wait gives stale
//! results every time, not once in a while, and the record counts the copies still in flight
//! when the program ended. (A copy to pageable memory is written at once, as a GPU's driver
//! does today; whether the host waited for it before reading it is noted all the same.)

use crate::state::copies::InFlight;
pub(crate) use crate::state::copies::Wait;
use crate::state::Driver;
use contract::HostRead;

impl Driver {
    /// Queues a copy of `bytes` to `destination` on `stream`.
    pub(crate) fn send_later(&mut self, stream: usize, destination: usize, bytes: Vec<u8>) {
        let order = self.record.order.queued_on(stream);
        self.in_flight.push(InFlight {
            stream,
            order,
            destination,
            bytes,
        });
    }

    /// The host waits (`wait`), and the copies it has now waited for are written into the
    /// program's memory, in the order they were queued. An event's wait (`Wait::Before`) has
    /// had its clock joined by the caller ([`HappensBefore::host_waits_event`]).
    ///
    /// [`HappensBefore::host_waits_event`]: crate::happens_before::HappensBefore::host_waits_event
    pub(crate) fn land(&mut self, wait: Wait) {
        self.land_managed(wait);
        let order = &mut self.record.order;
        match wait {
            Wait::All => order.host_waits_all(),
            Wait::Stream(s) => order.host_waits_stream(s),
            // Memory being freed is no wait of the host's: its copies land, counted as never
            // waited for.
            Wait::Before { .. } | Wait::Into { .. } => {}
        }
        let order = &self.record.order;
        let covered = |c: &InFlight| match wait {
            Wait::Into { start, len } => {
                c.destination < start + len && start < c.destination + c.bytes.len()
            }
            _ => order.host_waited_for(c.stream, c.order),
        };
        let (landing, staying): (Vec<InFlight>, Vec<InFlight>) =
            std::mem::take(&mut self.in_flight)
                .into_iter()
                .partition(covered);
        self.in_flight = staying;
        // Memory freed or unregistered with a copy into it still in flight: the program never
        // waited for that copy (the driver lands it so the bytes do not arrive in freed memory).
        if let Wait::Into { .. } = wait {
            self.never_waited_for += landing.len() as u64;
        }
        for copy in landing {
            // SAFETY: the program gave this page-locked memory as the copy's destination, valid
            // for its length; it is still allocated, since freeing it lands its copies first.
            unsafe {
                std::ptr::copy_nonoverlapping(
                    copy.bytes.as_ptr(),
                    copy.destination as *mut u8,
                    copy.bytes.len(),
                )
            };
        }
    }

    /// The bytes still in flight into [start, start + len): for hostkit to tell a result read
    /// before its copy was waited for.
    pub(crate) fn in_flight_into(&self, start: usize, len: usize) -> usize {
        self.in_flight
            .iter()
            .filter(|c| c.destination < start + len && start < c.destination + c.bytes.len())
            .map(|c| c.bytes.len())
            .sum()
    }

    /// Copies never waited for: still in flight when the program ends, or when their memory was
    /// freed.
    pub(crate) fn copies_never_waited_for(&self) -> u64 {
        self.in_flight.len() as u64 + self.never_waited_for
    }
}

impl Driver {
    /// The program hands back `[start, start + len)` as a result: the read is noted in the
    /// record with what the host had not waited for; returns the bytes still to come.
    fn result_read(&mut self, start: usize, len: usize) -> usize {
        let in_flight = self.in_flight_into(start, len);
        let (arrived_unwaited, streams) = self.record.order.arrived_into(start, len);
        self.record.host_reads.push(HostRead {
            bytes: len as u64,
            in_flight: in_flight as u64,
            arrived_unwaited,
            streams,
        });
        in_flight
    }
}

/// How many bytes of [`start`, `start + len`) still wait for a copy from the device: 0 when the
/// program has waited for every copy into it. hostkit asks before it reads a result, so the
/// read is noted in the record too.
#[no_mangle]
pub extern "C" fn simcudaBytesInFlight(start: *const std::ffi::c_void, len: usize) -> usize {
    crate::state::with_driver(|d| {
        // A result read from managed memory is noted in the record (on a GPU too, where this
        // driver passes calls through: the same holds are kept there).
        let managed = d.managed_result_read(start as u64, len as u64) as usize;
        d.result_read(start as usize, len) + managed
    })
}
