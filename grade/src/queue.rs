//! The cells waiting for a check, handed to the checkers exercise by exercise: a checker keeps
//! to the exercise it is on while that exercise has cells left, and a free one joins the exercise
//! with the most cells left for each checker already on it. A worker makes an exercise's cases,
//! their CPU reference outputs and the reference solution's timing once and keeps them for the
//! next cell of the same exercise; when every worker took the next cell in class order, all of
//! them were on the same exercise at once and each made all of that again (on two GPUs, twice
//! the reference work of one: grade-scaling.md).

use std::collections::{BTreeMap, VecDeque};
use std::sync::Mutex;

/// Cells by exercise, each numbered in the order they were queued.
pub(crate) struct Queue<T> {
    state: Mutex<State<T>>,
}

struct State<T> {
    /// Each exercise's cells not yet handed out, in the order queued.
    waiting: BTreeMap<String, VecDeque<(usize, T)>>,
    /// How many checkers are on each exercise now.
    checkers_on: BTreeMap<String, usize>,
}

impl<T> Queue<T> {
    /// A queue of `cells`, each with its exercise's id.
    pub(crate) fn new(cells: impl IntoIterator<Item = (String, T)>) -> Queue<T> {
        let mut waiting: BTreeMap<String, VecDeque<(usize, T)>> = BTreeMap::new();
        for (number, (exercise, cell)) in cells.into_iter().enumerate() {
            waiting
                .entry(exercise)
                .or_default()
                .push_back((number, cell));
        }
        Queue {
            state: Mutex::new(State {
                waiting,
                checkers_on: BTreeMap::new(),
            }),
        }
    }

    /// Counts a checker as on `exercise` before its first cell: a worker that checked the
    /// course's file of it keeps its cases and reference timing, and its first `next` names it.
    pub(crate) fn join(&self, exercise: &str) {
        let mut state = self.state.lock().unwrap_or_else(|p| p.into_inner());
        *state.checkers_on.entry(exercise.to_string()).or_default() += 1;
    }

    /// The next cell for a checker that was on exercise `was_on` (None: it has just started),
    /// with its number; None when no cell is left.
    pub(crate) fn next(&self, was_on: Option<&str>) -> Option<(usize, T)> {
        let mut state = self.state.lock().unwrap_or_else(|p| p.into_inner());
        if let Some(exercise) = was_on {
            if let Some(on) = state.checkers_on.get_mut(exercise) {
                *on = on.saturating_sub(1);
            }
        }
        let exercise = match was_on.filter(|e| state.has_cells(e)) {
            Some(same) => same.to_string(),
            None => state.least_served()?,
        };
        *state.checkers_on.entry(exercise.clone()).or_default() += 1;
        state.waiting.get_mut(&exercise)?.pop_front()
    }
}

impl<T> State<T> {
    fn has_cells(&self, exercise: &str) -> bool {
        self.waiting
            .get(exercise)
            .is_some_and(|cells| !cells.is_empty())
    }

    /// The exercise with the most cells left for each checker on it, counting the one joining;
    /// ties go to the exercise queued first (ids in order).
    fn least_served(&self) -> Option<String> {
        let mut best: Option<(f64, &String)> = None;
        for (exercise, cells) in self.waiting.iter().filter(|(_, c)| !c.is_empty()) {
            let on = self.checkers_on.get(exercise).copied().unwrap_or(0);
            let share = cells.len() as f64 / (on + 1) as f64;
            if best.is_none_or(|(top, _)| share > top) {
                best = Some((share, exercise));
            }
        }
        best.map(|(_, exercise)| exercise.clone())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn class(exercises: &[(&str, usize)]) -> Queue<String> {
        Queue::new(exercises.iter().flat_map(|(id, cells)| {
            (0..*cells).map(move |n| (id.to_string(), format!("{id}/{n}")))
        }))
    }

    #[test]
    fn checkers_start_on_different_exercises_and_keep_to_theirs() {
        let queue = class(&[("01", 3), ("02", 3)]);
        let (_, a) = queue.next(None).unwrap();
        let (_, b) = queue.next(None).unwrap();
        assert_eq!((a.as_str(), b.as_str()), ("01/0", "02/0"));
        assert_eq!(queue.next(Some("01")).unwrap().1, "01/1");
        assert_eq!(queue.next(Some("02")).unwrap().1, "02/1");
    }

    #[test]
    fn a_checker_whose_exercise_is_done_joins_the_one_with_most_left_per_checker() {
        let queue = class(&[("01", 1), ("02", 2), ("03", 6)]);
        let first: Vec<String> = (0..3).map(|_| queue.next(None).unwrap().1).collect();
        assert_eq!(first, ["03/0", "03/1", "02/0"]);
        // 01 has one cell and no checker; 03 has four left for two checkers.
        assert_eq!(queue.next(Some("02")).unwrap().1, "02/1");
        assert_eq!(queue.next(Some("02")).unwrap().1, "03/2");
    }

    #[test]
    fn a_checker_joined_to_an_exercise_keeps_to_it_and_others_count_it_there() {
        let queue = class(&[("01", 4), ("02", 3)]);
        queue.join("01");
        // 01 has four cells for the one joined; 02 three for none: a new checker goes to 02.
        assert_eq!(queue.next(None).unwrap().1, "02/0");
        assert_eq!(queue.next(Some("01")).unwrap().1, "01/0");
        // Joined to an exercise with no cells left, it goes where most are left.
        let queue = class(&[("01", 2)]);
        queue.join("09");
        assert_eq!(queue.next(Some("09")).unwrap().1, "01/0");
    }

    #[test]
    fn every_cell_is_handed_out_once_with_the_number_it_was_queued_with() {
        let queue = class(&[("01", 5), ("02", 4), ("03", 7)]);
        let mut was_on: Vec<Option<String>> = vec![None; 3];
        let mut seen = Vec::new();
        'all: loop {
            for on in was_on.iter_mut() {
                let Some((number, cell)) = queue.next(on.as_deref()) else {
                    break 'all;
                };
                *on = Some(cell[..2].to_string());
                seen.push((number, cell));
            }
        }
        seen.sort();
        let numbers: Vec<usize> = seen.iter().map(|(n, _)| *n).collect();
        assert_eq!(numbers, (0..16).collect::<Vec<_>>());
        assert_eq!(seen[5].1, "02/0", "numbered in the order queued");
    }
}
