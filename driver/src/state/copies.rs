//! Copies back to page-locked memory not landed yet, and which of them a wait lands: the data
//! `in_flight` acts on.

/// One copy whose bytes have not reached the program's memory yet.
pub(crate) struct InFlight {
    pub(crate) stream: usize,
    /// Its place in the order of everything queued (an event waits for the copies before it).
    pub(crate) order: u64,
    pub(crate) destination: usize,
    pub(crate) bytes: Vec<u8>,
}

/// Which copies a wait lands.
#[derive(Clone, Copy, Debug)]
pub(crate) enum Wait {
    /// Every copy (the context, a synchronous call, the legacy default stream).
    All,
    /// The copies of one stream.
    Stream(usize),
    /// The copies of one stream queued before a point (an event).
    Before { stream: usize, order: u64 },
    /// The copies into host memory that is being freed or unregistered.
    Into { start: usize, len: usize },
}
