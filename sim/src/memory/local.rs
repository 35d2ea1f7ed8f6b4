//! Local memory: each lane's private bytes (local arrays, spills, call frames), held in pages that
//! are allocated on first write and given back when the warp starts its next block. A kernel with
//! a 512 KiB local array of which each thread touches a few bytes then costs a few pages, not
//! 512 KiB per thread; untouched bytes read as zero.

/// Largest page; a lane whose local memory is smaller gets one page of its own size.
const PAGE: usize = 1024;

pub(crate) struct LocalMemory {
    page_bytes: usize,
    pages_per_lane: usize,
    /// `lane * pages_per_lane + page`; `None` until first written.
    pages: Vec<Option<Box<[u8]>>>,
    /// Indices of the pages in use, for `reset`.
    in_use: Vec<usize>,
    /// Zeroed pages from earlier blocks, reused before allocating.
    pool: Vec<Box<[u8]>>,
}

/// The host could not give the simulator another page.
#[derive(Debug)]
pub(crate) struct OutOfHostMemory;

impl LocalMemory {
    /// Local memory for 32 lanes of `per_lane` bytes each.
    pub(crate) fn new(per_lane: u32) -> LocalMemory {
        let per_lane = per_lane as usize;
        let page_bytes = per_lane.clamp(16, PAGE);
        let pages_per_lane = per_lane.div_ceil(page_bytes);
        LocalMemory {
            page_bytes,
            pages_per_lane,
            pages: std::iter::repeat_with(|| None)
                .take(pages_per_lane * 32)
                .collect(),
            in_use: Vec::new(),
            pool: Vec::new(),
        }
    }

    /// Every byte reads as zero again; the pages go back to the pool.
    pub(crate) fn reset(&mut self) {
        for i in self.in_use.drain(..) {
            if let Some(mut page) = self.pages[i].take() {
                page.fill(0);
                self.pool.push(page);
            }
        }
    }

    fn index(&self, lane: usize, off: usize) -> (usize, usize) {
        (
            lane * self.pages_per_lane + off / self.page_bytes,
            off % self.page_bytes,
        )
    }

    /// `len` bytes at `off` of `lane` (within one page: an aligned element of at most 16 bytes).
    #[inline]
    pub(crate) fn load(&self, lane: usize, off: usize, len: usize) -> u64 {
        let (i, o) = self.index(lane, off);
        match &self.pages[i] {
            Some(page) => page[o..o + len]
                .iter()
                .rev()
                .fold(0u64, |v, b| v << 8 | *b as u64),
            None => 0,
        }
    }

    /// Stores the low `len` bytes of `v` at `off` of `lane` (within one page).
    #[inline]
    pub(crate) fn store(
        &mut self,
        lane: usize,
        off: usize,
        len: usize,
        v: u64,
    ) -> Result<(), OutOfHostMemory> {
        let (i, o) = self.index(lane, off);
        if self.pages[i].is_none() {
            let page = match self.pool.pop() {
                Some(p) => p,
                None => {
                    let mut bytes = Vec::new();
                    bytes
                        .try_reserve_exact(self.page_bytes)
                        .map_err(|_| OutOfHostMemory)?;
                    bytes.resize(self.page_bytes, 0);
                    bytes.into_boxed_slice()
                }
            };
            self.pages[i] = Some(page);
            self.in_use.push(i);
        }
        let page = self.pages[i].as_mut().expect("allocated above");
        page[o..o + len].copy_from_slice(&v.to_le_bytes()[..len]);
        Ok(())
    }

    /// Any `len` bytes at `off` of `lane` (for printf's arguments and strings).
    pub(crate) fn read(&self, lane: usize, off: usize, len: usize) -> Vec<u8> {
        (off..off + len)
            .map(|a| self.load(lane, a, 1) as u8)
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Pages allocated so far, in use or pooled: what the lanes' local memory costs the host.
    fn pages_held(memory: &LocalMemory) -> usize {
        memory.in_use.len() + memory.pool.len()
    }

    #[test]
    fn a_512_kib_array_costs_only_the_pages_its_lanes_touch() {
        let mut memory = LocalMemory::new(512 << 10);
        for lane in 0..32 {
            memory.store(lane, 300_000, 8, lane as u64 + 1).unwrap();
        }
        assert_eq!(
            pages_held(&memory),
            32,
            "one 1 KiB page a lane, not 512 KiB"
        );
        assert_eq!(memory.load(7, 300_000, 8), 8);
        assert_eq!(memory.load(7, 0, 8), 0, "untouched bytes read as zero");
    }

    #[test]
    fn the_next_block_reuses_zeroed_pages() {
        let mut memory = LocalMemory::new(512 << 10);
        for block in 0..100u64 {
            for lane in 0..32 {
                assert_eq!(memory.load(lane, 4096, 4), 0, "block {block} sees zeros");
                memory.store(lane, 4096, 4, block + 1).unwrap();
            }
            memory.reset();
        }
        assert_eq!(pages_held(&memory), 32, "pages come back from the pool");
    }
}
