//! What a stream capture keeps (`graph` owns the entry points): the work queued on a capturing
//! stream as nodes, the captures under way, and graphs captured or instantiated.

use super::{Driver, Result};
use cudarc::driver::sys::{cudaError_enum as E, CUresult, CUstream};

/// One captured piece of work.
#[derive(Clone)]
pub(crate) enum Node {
    Launch {
        function: usize,
        /// The kernel's name, for the record.
        kernel: String,
        grid: [u32; 3],
        block: [u32; 3],
        shared_bytes: u32,
        params: Vec<Vec<u8>>,
    },
    /// A copy, its host side kept as an address (read or written when the graph runs).
    Copy { what: CopyAddresses, bytes: usize },
    Memset {
        dst: u64,
        pattern: Vec<u8>,
        count: usize,
    },
}

/// A graph, captured or instantiated: its nodes, and its entry in the record's `graphs`.
#[derive(Clone)]
pub(crate) struct Graph {
    pub(crate) nodes: Vec<Node>,
    pub(crate) recorded: usize,
}

/// A capture under way: its nodes so far, the stream it began on, and whether a refused call
/// invalidated it.
pub(crate) struct Capture {
    pub(crate) nodes: Vec<Node>,
    pub(crate) origin: usize,
    pub(crate) relaxed: bool,
    pub(crate) invalidated: bool,
}

impl Driver {
    /// The capture stream `stream` is part of, if any.
    pub(crate) fn capture_of(&mut self, stream: usize) -> Option<&mut Capture> {
        let id = *self.capturing.get(&stream)?;
        self.captures.get_mut(id)
    }

    /// Keeps `node` instead of running it, when `stream` is capturing: whether it was kept.
    pub(crate) fn captured(&mut self, stream: usize, node: impl FnOnce() -> Node) -> bool {
        match self.capture_of(stream) {
            Some(capture) => {
                capture.nodes.push(node());
                true
            }
            None => false,
        }
    }

    /// A call a GPU refuses during a (not relaxed) capture: every such capture is invalidated
    /// and the call answers `answer`.
    pub(crate) fn refuse_while_capturing(&mut self, answer: CUresult) -> Result {
        let mut refused = false;
        for id in self.capturing.values() {
            if let Some(capture) = self.captures.get_mut(*id) {
                if !capture.relaxed {
                    capture.invalidated = true;
                    refused = true;
                }
            }
        }
        if refused {
            return Err(answer);
        }
        Ok(())
    }

    /// Whether work queued on `stream` (`None`: a synchronous call) is kept as a node of the graph
    /// being captured there; a synchronous call during a capture is refused.
    pub(crate) fn kept_for_a_graph(
        &mut self,
        stream: Option<CUstream>,
        node: impl FnOnce() -> Node,
    ) -> Result<bool> {
        let Some(stream) = stream else {
            // A synchronous call waits on the legacy default stream, which a capture forbids.
            self.refuse_while_capturing(E::CUDA_ERROR_STREAM_CAPTURE_IMPLICIT)?;
            return Ok(false);
        };
        let s = self.stream_index(stream.cast())?;
        Ok(self.captured(s, node))
    }

    /// The capture an event recorded now on `stream` belongs to (a stream that waits for it joins).
    pub(crate) fn capture_id(&self, stream: usize) -> Option<usize> {
        self.capturing.get(&stream).copied()
    }

    /// Stream `stream` joins capture `id`, as waiting for one of its events makes it.
    pub(crate) fn join_capture(&mut self, stream: usize, id: usize) {
        if self.captures.get(id).is_some() {
            self.capturing.insert(stream, id);
        }
    }
}

/// A copy (`memory::Copy`) with its host pointer as a number, as a captured graph keeps it.
#[derive(Clone, Copy)]
pub(crate) enum CopyAddresses {
    In { dst: u64, src: usize },
    Out { dst: usize, src: u64 },
    Within { dst: u64, src: u64 },
}
