//! cpp04: CUDA graphs. Exercise 26's rounds (smooth, gain, clip) on data that stays on the
//! device, with more rounds, captured once into a graph and launched once per round. The CPU
//! reference is exercise 26's round, so the result matches to the last bit; a result that is
//! another number of rounds names the likely reason in a graph's terms.

use super::ex26_device_arrays::round;
use super::HostCase;
use crate::case::HostData;
use crate::random::Rng;

fn case(name: &str, n: usize, rounds: usize, rng: &mut Rng) -> HostCase {
    let signal = rng.vec_f32(n, -1.0, 1.0);
    let mut want = signal.clone();
    for _ in 0..rounds {
        want = round(&want);
    }
    HostCase {
        name: name.to_string(),
        params: vec![("rounds", rounds.to_string())],
        inputs: vec![("signal", HostData::F32(signal))],
        expected: vec![("signal", HostData::F32(want))],
    }
}

pub(super) fn cases(rng: &mut Rng) -> Vec<HostCase> {
    vec![
        // One round: the graph launched once, and nothing else.
        case("n = 1000, 1 round", 1000, 1, rng),
        case("n = 1000, 6 rounds", 1000, 6, rng),
        case("n = 20000, 12 rounds", 20_000, 12, rng),
    ]
}

/// How many rounds the result is, where it is a whole number of rounds other than asked: one
/// fewer is the graph launched once too few times (a capture queues nothing, it only records);
/// none at all is a graph never launched.
pub(super) fn diagnose(case: &HostCase, name: &str, actual: &HostData) -> Option<String> {
    let (Some(HostData::F32(signal)), Some(rounds)) = (case.input(name), case.param("rounds"))
    else {
        return None;
    };
    let rounds: usize = rounds.parse().ok()?;
    let mut state = signal.clone();
    let mut done = None;
    for k in 0..=rounds + 1 {
        if k != rounds && HostData::F32(state.clone()) == *actual {
            done = Some(k);
            break;
        }
        state = round(&state);
    }
    let done = done?;
    let asked = format!("the case asks for {rounds}");
    Some(if done == 0 {
        format!(
            "{name} came back as it went in: the graph never ran. Capturing a stream records \
             its work without running it; launch the instantiated graph (cudaGraphLaunch) once \
             per round"
        )
    } else if done + 1 == rounds {
        format!(
            "the result is what {done} rounds give, one fewer than {asked}: capturing a stream \
             records its work without running it, so the round captured did not run. Launch \
             the graph once per round, {rounds} times"
        )
    } else {
        format!(
            "the result is what {done} rounds give, and {asked}: queue one round in the \
             capture, and launch the graph once per round"
        )
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_round_of_every_case_changes_the_result() {
        // Rounds saturate (gain, then clip at 1: some twenty rounds leave every element 1, -1
        // or a step between), and a case past that point would not tell a round too few from
        // the right number.
        for case in cases(&mut Rng::new(crate::host::DEFAULT_SEED)) {
            let Some(HostData::F32(signal)) = case.input("signal") else {
                panic!("signal is f32")
            };
            let rounds: usize = case.param("rounds").unwrap().parse().unwrap();
            let mut state = signal.clone();
            for done in 0..rounds {
                let next = round(&state);
                let changed = next != state;
                assert!(changed, "{}: round {} changes nothing", case.name, done + 1);
                state = next;
            }
        }
    }

    #[test]
    fn a_result_short_of_a_round_is_named_as_the_capture_not_running_the_work() {
        let case = &cases(&mut Rng::new(1))[1];
        let Some(HostData::F32(signal)) = case.input("signal") else {
            panic!("signal is f32")
        };
        let mut state = signal.clone();
        for _ in 0..5 {
            state = round(&state);
        }
        let said = diagnose(case, "signal", &HostData::F32(state.clone())).unwrap();
        assert!(said.contains("one fewer"), "{said}");
        let said = diagnose(case, "signal", &HostData::F32(signal.clone())).unwrap();
        assert!(said.contains("the graph never ran"), "{said}");
        let right = round(&state);
        assert!(diagnose(case, "signal", &HostData::F32(right)).is_none());
    }
}
