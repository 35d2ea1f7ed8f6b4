//! What the host has waited for, as happens-before between the streams and the host: vector
//! clocks over the order in which work was queued. Work runs when it is queued here, so these
//! clocks, not the data, say whether a program was entitled to what it read: a copy into
//! page-locked memory lands only once the host's clock covers it, an event is complete only
//! once the host has waited for it, and a result read before its copy was waited for is a fact
//! of the record even where the bytes happened to be there (a copy into pageable memory).
//!
//! The edges: work on one stream runs in order; `cuStreamWaitEvent` orders a stream after what
//! the event's stream had queued (and waited for) when the event was recorded; the host waits
//! for a stream, an event or the whole context. The legacy default stream's implicit barriers
//! are taken leniently: waiting for the default stream covers every blocking stream's work so
//! far, and waiting for a blocking stream covers the default stream's, so that no correct
//! program is failed on a barrier the model does not place exactly.

use std::collections::HashMap;

/// For each stream (by index), the position of the last operation of it that is known done.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub(crate) struct Clock(Vec<u64>);

impl Clock {
    fn get(&self, stream: usize) -> u64 {
        self.0.get(stream).copied().unwrap_or(0)
    }

    fn raise(&mut self, stream: usize, to: u64) {
        if self.0.len() <= stream {
            self.0.resize(stream + 1, 0);
        }
        self.0[stream] = self.0[stream].max(to);
    }

    fn join(&mut self, other: &Clock) {
        for (stream, &to) in other.0.iter().enumerate() {
            self.raise(stream, to);
        }
    }
}

/// An asynchronous copy back to pageable memory whose bytes are already there (a GPU's driver
/// stages such a copy and, today, returns only once it is done; CUDA promises only that it
/// "might be synchronous"), not yet waited for.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Arrival {
    pub(crate) stream: usize,
    pub(crate) position: u64,
    pub(crate) destination: usize,
    pub(crate) len: usize,
}

/// The most arrivals kept: a program that never waits forgets the oldest, not its memory.
const MAX_ARRIVALS: usize = 4096;

/// The order of everything queued, and what the streams and the host have waited for.
#[derive(Debug, Default)]
pub(crate) struct HappensBefore {
    /// Positions given so far: every operation queued takes the next.
    position: u64,
    /// Per stream, the position of the last operation queued on it.
    last: Clock,
    /// Per stream: what its work comes after on other streams (its events waited for).
    incoming: Vec<Clock>,
    /// Streams made with `CU_STREAM_NON_BLOCKING`: no implicit barrier with the default stream.
    non_blocking: Vec<bool>,
    /// What the host has waited for.
    host: Clock,
    /// The clock each recorded event carries, by event index.
    events: HashMap<usize, Clock>,
    /// Copies back to pageable memory not waited for yet.
    arrivals: Vec<Arrival>,
}

impl HappensBefore {
    /// The position of the last operation queued.
    pub(crate) fn position(&self) -> u64 {
        self.position
    }

    /// The position of an operation queued now on `stream`.
    pub(crate) fn queued_on(&mut self, stream: usize) -> u64 {
        self.position += 1;
        self.last.raise(stream, self.position);
        self.position
    }

    /// Notes a new stream and whether it was made non-blocking.
    pub(crate) fn stream_created(&mut self, stream: usize, non_blocking: bool) {
        if self.non_blocking.len() <= stream {
            self.non_blocking.resize(stream + 1, false);
        }
        self.non_blocking[stream] = non_blocking;
    }

    fn blocking(&self, stream: usize) -> bool {
        !self.non_blocking.get(stream).copied().unwrap_or(false)
    }

    fn incoming(&self, stream: usize) -> Clock {
        self.incoming.get(stream).cloned().unwrap_or_default()
    }

    /// What `stream` has queued so far, with what it waited for on other streams; for the
    /// default stream, every blocking stream's too, and for a blocking stream the default
    /// stream's (the legacy default stream's implicit barriers, taken leniently).
    fn stream_clock(&self, stream: usize) -> Clock {
        let mut joined = vec![stream];
        if stream == 0 {
            joined.extend((1..self.streams()).filter(|&s| self.blocking(s)));
        } else if self.blocking(stream) {
            joined.push(0);
        }
        let mut clock = Clock::default();
        for s in joined {
            clock.join(&self.incoming(s));
            clock.raise(s, self.last.get(s));
        }
        clock
    }

    /// How many stream indices have been seen.
    fn streams(&self) -> usize {
        self.non_blocking.len().max(self.incoming.len()).max(1)
    }

    /// `event` is recorded on `stream`: it completes after everything `stream` has queued.
    pub(crate) fn record_event(&mut self, event: usize, stream: usize) {
        let clock = self.stream_clock(stream);
        self.events.insert(event, clock);
    }

    /// `event` is gone: a stream or the host can no longer wait for it.
    pub(crate) fn event_destroyed(&mut self, event: usize) {
        self.events.remove(&event);
    }

    /// `stream`'s later work waits for `event` (`cuStreamWaitEvent`); an event never recorded
    /// orders nothing, as on a GPU.
    pub(crate) fn stream_waits_event(&mut self, stream: usize, event: usize) {
        let Some(clock) = self.events.get(&event).cloned() else {
            return;
        };
        if self.incoming.len() <= stream {
            self.incoming.resize(stream + 1, Clock::default());
        }
        self.incoming[stream].join(&clock);
    }

    /// The host waits for `stream` (`cuStreamSynchronize`, or a query that answered complete).
    pub(crate) fn host_waits_stream(&mut self, stream: usize) {
        let clock = self.stream_clock(stream);
        self.host.join(&clock);
        self.forget_waited_arrivals();
    }

    /// The host waits for `event` (`cuEventSynchronize`, or a query that answered complete).
    pub(crate) fn host_waits_event(&mut self, event: usize) {
        if let Some(clock) = self.events.get(&event).cloned() {
            self.host.join(&clock);
        }
        self.forget_waited_arrivals();
    }

    /// The host waits for everything queued (the context, a synchronous call).
    pub(crate) fn host_waits_all(&mut self) {
        for stream in 0..self.streams() {
            self.host.raise(stream, self.position);
        }
        self.forget_waited_arrivals();
    }

    /// Whether the host has waited for the operation at `position` on `stream`.
    pub(crate) fn host_waited_for(&self, stream: usize, position: u64) -> bool {
        // A stream made after the host's last wait for everything has a position past it.
        position <= self.host.get(stream)
    }

    /// Whether the host has waited for everything `event` stands for; false for an event never
    /// recorded.
    pub(crate) fn event_complete(&self, event: usize) -> bool {
        self.events.get(&event).is_some_and(|clock| {
            clock
                .0
                .iter()
                .enumerate()
                .all(|(stream, &position)| position <= self.host.get(stream))
        })
    }

    /// A copy back to pageable memory on `stream` whose bytes are already in `[destination,
    /// destination + len)`.
    pub(crate) fn arrived(&mut self, stream: usize, destination: usize, len: usize) {
        if self.arrivals.len() >= MAX_ARRIVALS {
            self.arrivals.remove(0);
        }
        let position = self.queued_on(stream);
        self.arrivals.push(Arrival {
            stream,
            position,
            destination,
            len,
        });
    }

    /// The bytes of `[start, start + len)` that copies not waited for brought (at most `len`),
    /// and their streams.
    pub(crate) fn arrived_into(&self, start: usize, len: usize) -> (u64, Vec<usize>) {
        let mut bytes = 0;
        let mut streams = Vec::new();
        for a in &self.arrivals {
            let from = a.destination.max(start);
            let to = (a.destination + a.len).min(start + len);
            if to > from {
                bytes += (to - from) as u64;
                if !streams.contains(&a.stream) {
                    streams.push(a.stream);
                }
            }
        }
        (bytes.min(len as u64), streams)
    }

    /// Copies back to pageable memory never waited for, so far.
    pub(crate) fn arrivals_not_waited_for(&self) -> u64 {
        self.arrivals.len() as u64
    }

    fn forget_waited_arrivals(&mut self) {
        let host = &self.host;
        self.arrivals.retain(|a| a.position > host.get(a.stream));
    }
}

#[cfg(test)]
mod tests {
    use super::HappensBefore;

    /// Streams 1 and 2, made non-blocking (as cuda.core's and the examples' are).
    fn two_non_blocking() -> HappensBefore {
        let mut order = HappensBefore::default();
        order.stream_created(1, true);
        order.stream_created(2, true);
        order
    }

    #[test]
    fn waiting_for_a_stream_covers_its_work_and_not_another_streams() {
        let mut order = two_non_blocking();
        let (on_1, on_2) = (order.queued_on(1), order.queued_on(2));
        order.host_waits_stream(1);
        assert!(order.host_waited_for(1, on_1));
        assert!(!order.host_waited_for(2, on_2));
        let later_on_1 = order.queued_on(1);
        assert!(!order.host_waited_for(1, later_on_1));
        order.host_waits_all();
        assert!(order.host_waited_for(2, on_2) && order.host_waited_for(1, later_on_1));
    }

    #[test]
    fn a_stream_that_waited_for_an_event_carries_it_to_the_host() {
        let mut order = two_non_blocking();
        let copy_on_1 = order.queued_on(1);
        order.record_event(7, 1);
        let after_event = order.queued_on(1);
        order.stream_waits_event(2, 7);
        order.host_waits_stream(2);
        assert!(
            order.host_waited_for(1, copy_on_1),
            "joined through the event"
        );
        assert!(
            !order.host_waited_for(1, after_event),
            "queued on 1 after the event: not covered"
        );
    }

    #[test]
    fn an_event_is_complete_only_once_the_host_waited_for_it() {
        let mut order = two_non_blocking();
        order.queued_on(1);
        order.record_event(3, 1);
        assert!(!order.event_complete(3));
        assert!(!order.event_complete(4), "never recorded");
        order.host_waits_stream(2);
        assert!(!order.event_complete(3), "another stream's wait");
        order.host_waits_event(3);
        assert!(order.event_complete(3));
        order.event_destroyed(3);
        assert!(!order.event_complete(3));
    }

    #[test]
    fn the_default_stream_and_blocking_streams_wait_for_each_other() {
        let mut order = HappensBefore::default();
        order.stream_created(1, false);
        order.stream_created(2, true);
        let (on_1, on_2) = (order.queued_on(1), order.queued_on(2));
        order.host_waits_stream(0);
        assert!(order.host_waited_for(1, on_1), "a blocking stream");
        assert!(!order.host_waited_for(2, on_2), "a non-blocking one");
        let on_default = order.queued_on(0);
        order.host_waits_stream(1);
        assert!(order.host_waited_for(0, on_default));
        // An event recorded on the default stream stands for the blocking streams' work too.
        let later_on_1 = order.queued_on(1);
        order.record_event(5, 0);
        order.host_waits_event(5);
        assert!(order.host_waited_for(1, later_on_1));
    }

    #[test]
    fn an_event_on_a_stream_with_nothing_new_is_complete_whatever_other_streams_queued() {
        let mut order = two_non_blocking();
        order.queued_on(1);
        order.host_waits_stream(1);
        order.queued_on(2);
        order.record_event(9, 1);
        assert!(order.event_complete(9));
    }

    #[test]
    fn arrivals_are_forgotten_once_waited_for_and_counted_where_read() {
        let mut order = two_non_blocking();
        order.arrived(1, 1000, 100);
        order.arrived(2, 1050, 100);
        assert_eq!(order.arrived_into(1040, 20), (20, vec![1, 2]));
        order.host_waits_stream(1);
        assert_eq!(order.arrived_into(1000, 200), (100, vec![2]));
        assert_eq!(order.arrivals_not_waited_for(), 1);
        order.host_waits_all();
        assert_eq!(order.arrivals_not_waited_for(), 0);
    }
}
