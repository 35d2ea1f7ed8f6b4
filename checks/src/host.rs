//! The host exercises' cases: a whole program gets a case's numbers and input arrays, and hands
//! back output arrays that are compared with a CPU reference. How the program got there (copies,
//! launches, streams) is judged from the driver's record, in the runner.

use crate::case::HostData;
use crate::random::Rng;

mod cpp01_first_program;
mod cpp04_graphs;
mod ex25_first_program;
mod ex26_device_arrays;
mod ex27_pinned_streams;
mod ex28_host_random;
mod py01_ufunc;
mod py02_device_arrays;
mod py03_grid_stride;
mod py04_atomics;
mod py05_random;
mod py06_grid_2d;
mod py07_shared_memory;
mod py08_transpose;
mod py09_cuda_core;
mod py10_device_functions;
mod py11_local_const;
mod py12_matmul_tiled;
mod py13_reduction;
mod py14_scan;
mod py15_stencil;
mod py16_streams;

/// One run of a host program: what it is given and what it must hand back.
#[derive(Clone, Debug)]
pub struct HostCase {
    /// Says what the case tries (`n = 1000, not a whole number of blocks`).
    pub name: String,
    /// Numbers, as `name = value` lines for the program.
    pub params: Vec<(&'static str, String)>,
    /// Input arrays the program reads, by name.
    pub inputs: Vec<(&'static str, HostData)>,
    /// The outputs the CPU reference computes, by name.
    pub expected: Vec<(&'static str, HostData)>,
}

type CaseFn = fn(&mut Rng) -> Vec<HostCase>;
type DiagnoseFn = fn(&HostCase, &str, &HostData) -> Option<String>;

struct HostCheck {
    id: &'static str,
    cases: CaseFn,
    /// Names the likely mistake behind a wrong output, where the exercise can tell.
    diagnose: Option<DiagnoseFn>,
}

const CHECKS: &[HostCheck] = &[
    HostCheck {
        id: "25",
        cases: ex25_first_program::cases,
        diagnose: Some(ex25_first_program::diagnose),
    },
    HostCheck {
        id: "26",
        cases: ex26_device_arrays::cases,
        diagnose: Some(ex26_device_arrays::diagnose),
    },
    HostCheck {
        id: "27",
        cases: ex27_pinned_streams::cases,
        diagnose: None,
    },
    HostCheck {
        id: "py01",
        cases: py01_ufunc::cases,
        diagnose: None,
    },
    HostCheck {
        id: "py02",
        cases: py02_device_arrays::cases,
        diagnose: Some(py02_device_arrays::diagnose),
    },
    HostCheck {
        id: "py03",
        cases: py03_grid_stride::cases,
        diagnose: Some(py03_grid_stride::diagnose),
    },
    HostCheck {
        id: "py04",
        cases: py04_atomics::cases,
        diagnose: Some(py04_atomics::diagnose),
    },
    HostCheck {
        id: "py05",
        cases: py05_random::cases,
        diagnose: Some(py05_random::diagnose),
    },
    HostCheck {
        id: "py06",
        cases: py06_grid_2d::cases,
        diagnose: Some(py06_grid_2d::diagnose),
    },
    HostCheck {
        id: "py07",
        cases: py07_shared_memory::cases,
        diagnose: None,
    },
    HostCheck {
        id: "py08",
        cases: py08_transpose::cases,
        diagnose: None,
    },
    HostCheck {
        id: "py09",
        cases: py09_cuda_core::cases,
        diagnose: Some(py09_cuda_core::diagnose),
    },
    HostCheck {
        id: "py10",
        cases: py10_device_functions::cases,
        diagnose: Some(py10_device_functions::diagnose),
    },
    HostCheck {
        id: "py11",
        cases: py11_local_const::cases,
        diagnose: Some(py11_local_const::diagnose),
    },
    HostCheck {
        id: "py12",
        cases: py12_matmul_tiled::cases,
        diagnose: Some(py12_matmul_tiled::diagnose),
    },
    HostCheck {
        id: "py13",
        cases: py13_reduction::cases,
        diagnose: Some(py13_reduction::diagnose),
    },
    HostCheck {
        id: "py14",
        cases: py14_scan::cases,
        diagnose: Some(py14_scan::diagnose),
    },
    HostCheck {
        id: "py15",
        cases: py15_stencil::cases,
        diagnose: Some(py15_stencil::diagnose),
    },
    // Exercise 27's program in Numba, with chunks large enough for Numba's host time.
    HostCheck {
        id: "py16",
        cases: py16_streams::cases,
        diagnose: None,
    },
    HostCheck {
        id: "cpp01",
        cases: cpp01_first_program::cases,
        diagnose: Some(cpp01_first_program::diagnose),
    },
    // The C++ track's Unified Memory program is cpp01's saxpy on managed memory: the same cases.
    // A wrong y is named from the driver's record of managed memory (the runner's judge).
    HostCheck {
        id: "cpp02",
        cases: cpp01_first_program::cases,
        diagnose: None,
    },
    // The C++ track's streams program is exercise 27's in CUDA C++: the same cases.
    HostCheck {
        id: "cpp03",
        cases: ex27_pinned_streams::cases,
        diagnose: None,
    },
    HostCheck {
        id: "cpp04",
        cases: cpp04_graphs::cases,
        diagnose: Some(cpp04_graphs::diagnose),
    },
    HostCheck {
        id: "28",
        cases: ex28_host_random::cases,
        diagnose: Some(ex28_host_random::diagnose),
    },
];

/// The default seed of the cases' random inputs (`runner check --seed` picks another).
pub const DEFAULT_SEED: u64 = 0x2025;

/// The cases of host exercise `id`, or None when it has no host check.
pub fn host_cases_for(id: &str, seed: Option<u64>) -> Option<Vec<HostCase>> {
    let check = CHECKS.iter().find(|c| c.id == id)?;
    let mut rng = Rng::new(seed.unwrap_or(DEFAULT_SEED));
    Some((check.cases)(&mut rng))
}

/// The ids of the exercises with a host check.
pub fn host_ids() -> impl Iterator<Item = &'static str> {
    CHECKS.iter().map(|c| c.id)
}

/// The likely mistake behind output `name` of `case` being `actual`, where exercise `id` knows.
pub fn diagnose_host(id: &str, case: &HostCase, name: &str, actual: &HostData) -> Option<String> {
    let check = CHECKS.iter().find(|c| c.id == id)?;
    check
        .diagnose
        .and_then(|diagnose| diagnose(case, name, actual))
}

impl HostCase {
    /// The expected content of output `name`; None if the case has no such output.
    pub fn expected(&self, name: &str) -> Option<&HostData> {
        self.expected
            .iter()
            .find(|(n, _)| *n == name)
            .map(|(_, d)| d)
    }

    /// Input array `name`; None if the case has none by that name.
    pub fn input(&self, name: &str) -> Option<&HostData> {
        self.inputs.iter().find(|(n, _)| *n == name).map(|(_, d)| d)
    }

    /// The value of number `name`, as the program gets it; None if the case has none by that name.
    pub fn param(&self, name: &str) -> Option<&str> {
        self.params
            .iter()
            .find(|(n, _)| *n == name)
            .map(|(_, v)| v.as_str())
    }
}

/// The file extension hostkit gives an element type (`hostkit::Element::SUFFIX`).
pub fn suffix(data: &HostData) -> &'static str {
    match data {
        HostData::F32(_) => "f32",
        HostData::F64(_) => "f64",
        HostData::I32(_) => "i32",
        HostData::U32(_) => "u32",
        HostData::U8(_) => "u8",
    }
}
