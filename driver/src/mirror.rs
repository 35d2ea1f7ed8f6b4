//! Host memory the device also sees: managed memory and mapped page-locked memory. Each block is
//! the program's host memory and a simulator allocation at the same address (so a kernel is given
//! the host's own pointer, as on a GPU with unified addressing). Work runs in the calling thread,
//! so keeping the two alike at the edges of device work is enough: the host's bytes go to the
//! device before a launch, copy or memset, and come back after it; a managed block's come back
//! after asynchronous work only when the program waits for it (`managed::book`), as a GPU's
//! kernel may still be writing it until then, so a program that reads its results before
//! synchronising reads the values from before the kernel, every time.

use crate::state::copies::Wait;
pub(crate) use crate::state::mirrors::Kind;
use crate::state::Driver;

impl Driver {
    /// Makes `[start, start + len)` of host memory device memory too, at the same address.
    pub(crate) fn mirror(&mut self, start: u64, len: u64, kind: Kind) -> crate::state::Result {
        use cudarc::driver::sys::cudaError_enum as E;
        self.machine
            .alloc_at(start, len)
            .map_err(|_| E::CUDA_ERROR_OUT_OF_MEMORY)?;
        self.mirrors.blocks.insert(start, (len, kind));
        Ok(())
    }

    /// Forgets the mirror that starts at `start`, if any: its length and kind.
    pub(crate) fn unmirror(&mut self, start: u64) -> Option<(u64, Kind)> {
        let block = self.mirrors.blocks.remove(&start)?;
        self.machine.free(start);
        Some(block)
    }

    /// Gives the device the host's bytes of every mirrored block, before device work; a block
    /// earlier device work holds is newer on the device, and stays as it is there.
    pub(crate) fn mirrors_to_device(&mut self) {
        for (&start, &(len, _)) in &self.mirrors.blocks {
            if self.mirrors.book.is_held(start) {
                continue;
            }
            // SAFETY: the block is live host memory of `len` bytes (mapped by this driver, or
            // page-locked memory the program has not freed or unregistered).
            let bytes = unsafe { std::slice::from_raw_parts(start as *const u8, len as usize) };
            self.machine
                .write(start, bytes)
                .expect("a mirrored block is a device allocation of its length");
        }
    }

    /// Gives the host the device's bytes of the mirrored blocks `which` selects.
    fn mirrors_to_host(&mut self, which: impl Fn(u64, Kind) -> bool) {
        for (&start, &(len, kind)) in &self.mirrors.blocks {
            if !which(start, kind) {
                continue;
            }
            let bytes = self
                .machine
                .read(start, len)
                .expect("a mirrored block is a device allocation of its length");
            // SAFETY: as in `mirrors_to_device`; the device's copy never overlaps the host's.
            unsafe { std::ptr::copy_nonoverlapping(bytes.as_ptr(), start as *mut u8, bytes.len()) };
        }
    }

    /// Runs device work `f` with every mirrored block alike on both sides around it: work
    /// `queued_on` a stream (asynchronous) leaves the managed blocks held until the program waits
    /// for it, while a synchronous call (None) has finished when it returns.
    pub(crate) fn with_mirrors<T>(
        &mut self,
        queued_on: Option<usize>,
        f: impl FnOnce(&mut Driver) -> T,
    ) -> T {
        if self.mirrors.blocks.is_empty() {
            return f(self);
        }
        self.mirrors_to_device();
        let out = f(self);
        match queued_on {
            Some(stream) => {
                self.mirrors_to_host(|_, kind| kind == Kind::Mapped);
                self.managed_work_queued(stream);
            }
            None => self.mirrors_to_host(|_, _| true),
        }
        out
    }

    /// Lands the managed blocks a wait releases: the host gets the device's bytes.
    pub(crate) fn land_managed(&mut self, wait: Wait) {
        let released = self.managed_waited(wait);
        if !released.is_empty() {
            self.mirrors_to_host(|start, _| released.iter().any(|&(s, _)| s == start));
        }
    }
}
