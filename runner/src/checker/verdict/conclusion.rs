//! How a whole check ends in one verdict: what each stage of a kernel's or a program's check
//! found, and the order in which those findings win. The checker and the program judge gather
//! the facts; only [`conclude`] turns them into the report's verdict.

use contract::Verdict;

/// What a check found, stage by stage. A stage the check never reached keeps its default.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Stages {
    /// The source did not compile (a kernel) or build (a program).
    pub compile_failed: bool,
    /// A kernel the exercise names is not in the compiled module.
    pub kernel_missing: bool,
    /// A value the exercise's cases read from the source (a declared constant) is missing.
    pub declaration_missing: bool,
    /// The worst of the cases' verdicts: `Passed` when every case that ran was right.
    pub cases: Verdict,
    /// Every case was right, but a target, a technique rule or a named mistake was not met.
    pub technique_missed: bool,
    /// With the technique missed: the exercise's kernel was never launched (a program that
    /// computes its outputs on the CPU).
    pub kernel_never_launched: bool,
    /// The file is the one handed out (or, with no original at hand, the check's evidence says
    /// so): whatever else failed, the exercise is not begun.
    pub untouched: bool,
}

impl Default for Stages {
    fn default() -> Self {
        Stages {
            compile_failed: false,
            kernel_missing: false,
            declaration_missing: false,
            cases: Verdict::Passed,
            technique_missed: false,
            kernel_never_launched: false,
            untouched: false,
        }
    }
}

/// The check's verdict. A stage that stops the check (compiling, finding the kernels and the
/// declared values) decides before the cases; a case's failure before the technique; and a
/// failing file that is still the one handed out is `not_done`, so a student is told to begin
/// rather than what is wrong with the skeleton.
pub fn conclude(stages: &Stages) -> Verdict {
    let found = if stages.compile_failed {
        Verdict::CompileError
    } else if stages.kernel_missing {
        Verdict::MissingKernel
    } else if stages.declaration_missing {
        Verdict::MissingDeclaration
    } else if stages.cases != Verdict::Passed {
        stages.cases
    } else if stages.technique_missed && stages.kernel_never_launched {
        Verdict::MissingKernel
    } else if stages.technique_missed {
        Verdict::TargetsMissed
    } else {
        Verdict::Passed
    };
    if stages.untouched && found != Verdict::Passed {
        Verdict::NotDone
    } else {
        found
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_check_that_found_nothing_passes() {
        assert_eq!(conclude(&Stages::default()), Verdict::Passed);
    }

    #[test]
    fn an_earlier_stage_decides_before_a_later_one() {
        let all = Stages {
            compile_failed: true,
            kernel_missing: true,
            declaration_missing: true,
            cases: Verdict::WrongOutput,
            technique_missed: true,
            ..Stages::default()
        };
        assert_eq!(conclude(&all), Verdict::CompileError);
        let built = Stages {
            compile_failed: false,
            ..all
        };
        assert_eq!(conclude(&built), Verdict::MissingKernel);
        let found = Stages {
            kernel_missing: false,
            ..built
        };
        assert_eq!(conclude(&found), Verdict::MissingDeclaration);
        let declared = Stages {
            declaration_missing: false,
            ..found
        };
        assert_eq!(conclude(&declared), Verdict::WrongOutput);
        let right = Stages {
            cases: Verdict::Passed,
            ..declared
        };
        assert_eq!(conclude(&right), Verdict::TargetsMissed);
    }

    #[test]
    fn a_kernel_never_launched_is_named_over_a_missed_target() {
        let cpu_only = Stages {
            technique_missed: true,
            kernel_never_launched: true,
            ..Stages::default()
        };
        assert_eq!(conclude(&cpu_only), Verdict::MissingKernel);
    }

    #[test]
    fn a_failing_file_as_handed_out_is_not_done_and_a_passing_one_passes() {
        for failing in [
            Stages {
                compile_failed: true,
                ..Stages::default()
            },
            Stages {
                cases: Verdict::WrongOutput,
                ..Stages::default()
            },
            Stages {
                technique_missed: true,
                ..Stages::default()
            },
        ] {
            let untouched = Stages {
                untouched: true,
                ..failing
            };
            assert_ne!(conclude(&failing), Verdict::NotDone);
            assert_eq!(conclude(&untouched), Verdict::NotDone);
        }
        let solved_in_the_skeleton = Stages {
            untouched: true,
            ..Stages::default()
        };
        assert_eq!(conclude(&solved_in_the_skeleton), Verdict::Passed);
    }
}
