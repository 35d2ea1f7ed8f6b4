//! The clock a warp reads (`%clock`, `%clock64`, `%globaltimer`): the warp's own instructions at
//! 4 cycles each (1 ns a cycle), so timings inside a kernel are the same on every run and every
//! machine, plus the cycles skipped while the warp waits on the clock.
//!
//! A busy-wait (`while (clock64() - start < cycles) {}`) costs a GPU its cycles, whatever the
//! number of warps doing it; simulated turn by turn it would cost every warp `cycles / 20` turns
//! of the loop, and a wait of a millisecond in each of a few thousand warps passes any budget.
//! So a warp that comes back to the same read of the clock within a few instructions is taken
//! as waiting on it, and each turn of its wait skips further than the last, by an eighth: a wait
//! of `n` cycles takes about `8.5 * log2(n / 32)` turns and ends at most an eighth past `n`.

/// Cycles a warp instruction is taken to take.
pub(crate) const CYCLES_PER_INSTRUCTION: u64 = 4;

/// Instructions from one read of the clock to the next at the same place for the warp to be
/// taken as waiting on it: a wait's loop is a subtraction, a comparison and a branch; a loop
/// that does work between reads is longer, and its clock stays its instructions' count.
const WAIT_INSTRUCTIONS: u64 = 8;

#[derive(Clone, Copy, Default)]
pub(crate) struct WarpClock {
    /// Cycles skipped in waits so far.
    skipped: u64,
    /// Where and after how many instructions the clock was last read.
    last_read: Option<(u32, u64)>,
    /// Cycles the last turn of a wait skipped.
    stride: u64,
}

impl WarpClock {
    /// Cycles skipped in waits so far.
    pub(crate) fn skipped(&self) -> u64 {
        self.skipped
    }

    /// `nanosleep` for `ns` nanoseconds: PTX bounds a sleep at a millisecond, and the clock ticks
    /// at 1 GHz, so the warp's clock moves on by that many cycles.
    pub(crate) fn sleep(&mut self, ns: u64) {
        const LONGEST_SLEEP_NS: u64 = 1_000_000;
        self.skipped = self.skipped.saturating_add(ns.min(LONGEST_SLEEP_NS));
    }

    /// The clock as the warp reads it at `pc` after `icount` instructions.
    pub(crate) fn read(&mut self, pc: u32, icount: u64) -> u64 {
        let waiting = matches!(self.last_read,
            Some((at, then)) if at == pc && icount - then <= WAIT_INSTRUCTIONS);
        if waiting {
            let least = CYCLES_PER_INSTRUCTION * WAIT_INSTRUCTIONS;
            self.stride = (self.stride + self.stride / 8).max(least);
            self.skipped = self.skipped.saturating_add(self.stride);
        } else {
            self.stride = 0;
        }
        self.last_read = Some((pc, icount));
        (icount * CYCLES_PER_INSTRUCTION).saturating_add(self.skipped)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Reads the clock as `while (clock64() - start < cycles)` does, `turn` instructions a turn.
    fn wait(clock: &mut WarpClock, cycles: u64, turn: u64) -> (u64, u64) {
        let (mut icount, mut turns) = (10, 0);
        let start = clock.read(0, icount);
        loop {
            icount += turn;
            turns += 1;
            let now = clock.read(7, icount);
            if now - start >= cycles {
                return (now - start, turns);
            }
        }
    }

    #[test]
    fn a_wait_ends_past_its_cycles_by_at_most_an_eighth_in_few_turns() {
        for cycles in [100, 10_000, 1_000_000, 2_000_000_000] {
            let (waited, turns) = wait(&mut WarpClock::default(), cycles, 4);
            assert!(
                waited >= cycles && waited <= cycles + cycles / 8 + 40,
                "{cycles}: {waited}"
            );
            assert!(
                turns <= 8 + 9 * (cycles / 32).max(1).ilog2() as u64,
                "{cycles}: {turns}"
            );
        }
    }

    #[test]
    fn a_loop_with_work_between_its_reads_counts_its_instructions_only() {
        let mut clock = WarpClock::default();
        let (waited, turns) = wait(&mut clock, 10_000, WAIT_INSTRUCTIONS + 1);
        assert_eq!(
            waited,
            turns * (WAIT_INSTRUCTIONS + 1) * CYCLES_PER_INSTRUCTION
        );
        // Two reads at different places (a start and an end around some work) skip nothing.
        let mut clock = WarpClock::default();
        for i in 0..100 {
            assert_eq!(clock.read(3, i * 4), i * 16);
            assert_eq!(clock.read(5, i * 4 + 2), (i * 4 + 2) * 4);
        }
    }
}
