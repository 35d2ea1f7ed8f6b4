//! What a check concluded, one word a grader can act on, for kernels and whole programs alike.
//! The rules that choose it live in the runner's checker (`checker/verdict.rs`); this is the word.

use serde::{Deserialize, Serialize};

/// What a check concluded. Every verdict but `Passed` fails the check; `runner check` exits with
/// 0 for `Passed`, 1 for any other verdict, and 2 when it could not check at all (bad arguments,
/// no NVRTC, an unreadable file).
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Verdict {
    /// Every case right, no bug found, every target met.
    Passed,
    /// The exercise's TODOs are still to do: the file is the original, or its output unchanged.
    NotDone,
    /// The compiler refused the file.
    CompileError,
    /// An entry point the exercise launches is not in the file.
    MissingKernel,
    /// A value the exercise reads from the file (`extern "C" __constant__ int ...`) is missing.
    MissingDeclaration,
    /// The outputs differ from the CPU reference.
    WrongOutput,
    /// An access outside every allocation.
    OutOfBounds,
    /// An address that is not a multiple of the access's size.
    Misaligned,
    /// Two threads touched the same memory without ordering, at least one writing.
    Race,
    /// A `__syncthreads()` that not every thread of a block reached.
    BarrierDivergence,
    /// A shuffle or vote whose mask names lanes that were not taking part.
    BadMask,
    /// The GPU refuses the launch (too many threads per block, too much shared memory, a grid
    /// of zero blocks): where the student chooses the launch, a mistake of its own.
    InvalidLaunch,
    /// The kernel ran past the exercise's time limit (or every thread waited for ever).
    Hang,
    /// The kernel stopped with an error (trap, assert, a fault).
    Crashed,
    /// Right outputs, no bug found, but a target of the exercise is missed: the technique its
    /// chapter teaches is not used, or the kernel is too slow.
    TargetsMissed,
}

impl Verdict {
    /// The verdict as a student reads it, at the end of the report.
    pub fn headline(self) -> &'static str {
        match self {
            Verdict::Passed => "Passed.",
            Verdict::NotDone => "Not done yet.",
            Verdict::CompileError => "Does not compile.",
            Verdict::MissingKernel => "Kernel not found.",
            Verdict::MissingDeclaration => "Declaration missing.",
            Verdict::WrongOutput => "Wrong output.",
            Verdict::OutOfBounds => "Out of bounds.",
            Verdict::Misaligned => "Misaligned access.",
            Verdict::Race => "Race.",
            Verdict::BarrierDivergence => "Barrier not reached by every thread.",
            Verdict::BadMask => "Bad warp mask.",
            Verdict::InvalidLaunch => "Launch refused.",
            Verdict::Hang => "Hangs.",
            Verdict::Crashed => "Crashed.",
            Verdict::TargetsMissed => "Correct, not yet the technique or speed asked for.",
        }
    }
}
