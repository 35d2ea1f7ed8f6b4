//! Copies back to page-locked host memory on a stream, in flight until the program waits for
//! them. On a GPU such a copy returns at once and its bytes arrive later; a program that reads
//! the destination before synchronising reads whatever was there before, sometimes. Here the
//! bytes are taken from the device when the copy is queued (everything before it on its stream
//! has run by then) and written to the program's memory only when the program waits: a stream,
//! the context, an event recorded after the copy, a synchronous call, or freeing the memory. So
//! a missing wait gives stale results every time, not once in a while, and the record counts the
//! copies still in flight when the program ended. (A copy to pageable memory returns only once
//! its bytes have arrived, on a GPU too: it is written at once.)

use crate::state::copies::InFlight;
pub(crate) use crate::state::copies::Wait;
use crate::state::Driver;

impl Driver {
    /// Queues a copy of `bytes` to `destination` on `stream`; returns its order.
    pub(crate) fn send_later(&mut self, stream: usize, destination: usize, bytes: Vec<u8>) {
        self.queued += 1;
        self.in_flight.push(InFlight {
            stream,
            order: self.queued,
            destination,
            bytes,
        });
    }

    /// Writes the copies `wait` covers into the program's memory, in the order they were queued.
    pub(crate) fn land(&mut self, wait: Wait) {
        self.land_managed(wait);
        let covered = |c: &InFlight| match wait {
            Wait::All => true,
            Wait::Stream(s) => c.stream == s,
            Wait::Before { stream, order } => c.stream == stream && c.order <= order,
            Wait::Into { start, len } => {
                c.destination < start + len && start < c.destination + c.bytes.len()
            }
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

    /// The order of the last thing queued (an event recorded now waits for everything up to it).
    pub(crate) fn queued_so_far(&self) -> u64 {
        self.queued
    }

    /// Copies never waited for: still in flight when the program ends, or when their memory was
    /// freed.
    pub(crate) fn copies_never_waited_for(&self) -> u64 {
        self.in_flight.len() as u64 + self.never_waited_for
    }
}

/// How many bytes of [`start`, `start + len`) still wait for a copy from the device: 0 when the
/// program has waited for every copy into it. hostkit asks before it reads a result.
#[no_mangle]
pub extern "C" fn simcudaBytesInFlight(start: *const std::ffi::c_void, len: usize) -> usize {
    crate::state::with_driver(|d| {
        // A result read from managed memory is noted in the record (on a GPU too, where this
        // driver passes calls through: the same holds are kept there).
        let managed = d.managed_result_read(start as u64, len as u64) as usize;
        d.in_flight_into(start as usize, len) + managed
    })
}
