//! Comparing a kernel's outputs with the CPU reference, and naming the likely mistake.

use crate::case::{
    Case, Evidence, HostData, Launch, POISON_F32_BITS, POISON_F64_BITS, POISON_U32, POISON_U8,
};
use serde::{Deserialize, Serialize};

/// An output's difference from the reference is part of a check's report, so its types are the
/// contract's.
pub use contract::{Mismatch, WrongElement};

/// How far a float result may be from the reference: |actual - expected| <= abs + rel * |expected|.
/// Integers are always compared exactly.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Tolerance {
    /// Absolute tolerance, in the output's units.
    #[serde(default)]
    pub abs: f64,
    /// Relative tolerance, as a fraction of the expected value's magnitude.
    #[serde(default)]
    pub rel: f64,
}

impl Default for Tolerance {
    fn default() -> Self {
        Tolerance {
            abs: 1e-6,
            rel: 1e-5,
        }
    }
}

impl Tolerance {
    fn accepts(&self, expected: f64, actual: f64) -> bool {
        if expected.is_nan() || actual.is_nan() {
            return expected.is_nan() && actual.is_nan() && !actual_is_poison(actual);
        }
        if expected.is_infinite() || actual.is_infinite() {
            return expected == actual;
        }
        (actual - expected).abs() <= self.abs + self.rel * expected.abs()
    }
}

fn actual_is_poison(x: f64) -> bool {
    (x as f32).to_bits() == crate::case::POISON_F32_BITS
        || x.to_bits() == crate::case::POISON_F64_BITS
}

/// Compares output `buffer` of `case` with the reference, and when it is wrong, names the
/// likely mistake (the exercise's own diagnosis first, then the general patterns), shows the
/// inputs of the first wrong elements and their (row, col) in 2D outputs.
pub fn compare_case(
    case: &Case,
    buffer: &str,
    expected: &HostData,
    actual: &HostData,
    tolerance: Tolerance,
) -> Result<(), Mismatch> {
    let wrong = wrong_elements(expected, actual, tolerance);
    if wrong.is_empty() {
        return Ok(());
    }
    let mut mismatch = mismatch_of(buffer, expected, actual, &wrong, &case.launch);
    // An output that holds what it held before the launch says more than where it is wrong; the
    // exercise's own diagnosis, below, may still say why.
    if mismatch.never_written == 0 && case.buffer(buffer) == actual && !actual.is_empty() {
        mismatch.unchanged = true;
        mismatch.likely_cause = Some(format!(
            "`{buffer}` holds exactly what it held before the launch: the kernel changed nothing in it"
        ));
    }
    let shape = case.shape_of(buffer);
    for w in &mut mismatch.first_wrong {
        w.at = shape.map(|[_, cols]| [w.index / cols.max(1), w.index % cols.max(1)]);
        w.inputs = case
            .inputs_of
            .as_ref()
            .and_then(|f| f(case, buffer, w.index));
    }
    if let Some(diagnose) = &case.diagnose {
        let evidence = Evidence {
            case,
            buffer,
            expected,
            actual,
            wrong: &wrong,
        };
        if let Some(cause) = diagnose(&evidence) {
            mismatch.likely_cause = Some(cause);
        }
    }
    Err(mismatch)
}

const SHOWN: usize = 5;

/// Compares `actual` with `expected` element by element.
pub fn compare(
    buffer: &str,
    expected: &HostData,
    actual: &HostData,
    tolerance: Tolerance,
    launch: &Launch,
) -> Result<(), Mismatch> {
    assert_eq!(
        expected.len(),
        actual.len(),
        "output {buffer} changed length"
    );
    let wrong = wrong_elements(expected, actual, tolerance);
    if wrong.is_empty() {
        return Ok(());
    }
    Err(mismatch_of(buffer, expected, actual, &wrong, launch))
}

fn mismatch_of(
    buffer: &str,
    expected: &HostData,
    actual: &HostData,
    wrong: &[usize],
    launch: &Launch,
) -> Mismatch {
    assert_eq!(
        expected.len(),
        actual.len(),
        "output {buffer} changed length"
    );
    let never_written = wrong.iter().filter(|&&i| actual.is_poison(i)).count();
    Mismatch {
        buffer: buffer.to_string(),
        len: expected.len(),
        wrong: wrong.len(),
        never_written,
        first_wrong: wrong
            .iter()
            .take(SHOWN)
            .map(|&i| WrongElement {
                index: i,
                at: None,
                expected: expected.show(i),
                actual: actual.show(i),
                inputs: None,
                origin: None,
            })
            .collect(),
        likely_cause: likely_cause(buffer, expected.len(), wrong, never_written, launch),
        unchanged: false,
    }
}

/// Indices of the elements that are wrong, or were never written (still poison). One pass per
/// type over plain slices: the timing cases have tens of millions of elements.
fn wrong_elements(expected: &HostData, actual: &HostData, tol: Tolerance) -> Vec<usize> {
    fn scan<T: Copy>(e: &[T], a: &[T], right: impl Fn(T, T) -> bool) -> Vec<usize> {
        e.iter()
            .zip(a)
            .enumerate()
            .filter(|&(_, (&e, &a))| !right(e, a))
            .map(|(i, _)| i)
            .collect()
    }
    match (expected, actual) {
        (HostData::F32(e), HostData::F32(a)) => scan(e, a, |e, a| {
            a.to_bits() != POISON_F32_BITS && tol.accepts(e as f64, a as f64)
        }),
        (HostData::F64(e), HostData::F64(a)) => scan(e, a, |e, a| {
            a.to_bits() != POISON_F64_BITS && tol.accepts(e, a)
        }),
        (HostData::I32(e), HostData::I32(a)) => scan(e, a, |e, a| a as u32 != POISON_U32 && e == a),
        (HostData::U32(e), HostData::U32(a)) => scan(e, a, |e, a| a != POISON_U32 && e == a),
        (HostData::U8(e), HostData::U8(a)) => scan(e, a, |e, a| a != POISON_U8 && e == a),
        _ => (0..expected.len()).collect(),
    }
}

/// Reads the shape of the wrong elements for the mistakes beginners make most.
fn likely_cause(
    buffer: &str,
    len: usize,
    wrong: &[usize],
    never_written: usize,
    launch: &Launch,
) -> Option<String> {
    let block = launch.threads_per_block() as usize;
    let first = *wrong.first()?;
    let contiguous_tail = wrong.len() == len - first && wrong.last() == Some(&(len - 1));
    if never_written == len {
        return Some(format!(
            "the kernel wrote nothing to `{buffer}`: is the TODO done, and does the kernel store its result?"
        ));
    }
    if launch.grid[0] > 1 && first == block && contiguous_tail && never_written == wrong.len() {
        return Some(format!(
            "only the first {block} elements (block 0) were written: is blockIdx.x missing from the index?"
        ));
    }
    if contiguous_tail && never_written == wrong.len() {
        return Some(format!(
            "elements from index {first} on were never written: does the grid cover all {len} elements, \
             and does each thread write its own element?"
        ));
    }
    if never_written > 0 && never_written * 2 >= wrong.len() {
        return Some(format!(
            "{never_written} elements of `{buffer}` were never written: check which index each thread writes"
        ));
    }
    None
}

/// A quick pass for the common case, never a different verdict: outputs that are bit for bit
/// the reference's, with no poison value and (floats) every element finite, are what
/// `compare_case` accepts too (|x - x| = 0 is within any tolerance of non-negative bounds).
/// Anything else goes to `compare_case`, which explains what is wrong. Large outputs are scanned
/// on several threads: an 8M-element output takes `compare_case` tens of milliseconds.
pub fn identical_and_accepted(want: &HostData, got: &HostData, tolerance: Tolerance) -> bool {
    use HostData as D;
    if tolerance.abs < 0.0 || tolerance.rel < 0.0 || want.as_bytes().len() != got.as_bytes().len() {
        return false;
    }
    fn all<T: Sync>(want: &[T], got: &[T], fine: impl Fn(&[T], &[T]) -> bool + Sync) -> bool {
        const CHUNK: usize = 1 << 20;
        if want.len() <= CHUNK {
            return fine(want, got);
        }
        std::thread::scope(|scope| {
            let fine = &fine;
            let parts: Vec<_> = want
                .chunks(CHUNK)
                .zip(got.chunks(CHUNK))
                .map(|(w, g)| scope.spawn(move || fine(w, g)))
                .collect();
            parts.into_iter().all(|p| p.join().unwrap_or(false))
        })
    }
    match (want, got) {
        (D::F32(w), D::F32(g)) => all(w, g, |w, g| {
            w.iter().zip(g).all(|(a, b)| a.to_bits() == b.to_bits())
                && g.iter().all(|x| x.is_finite())
        }),
        (D::F64(w), D::F64(g)) => all(w, g, |w, g| {
            w.iter().zip(g).all(|(a, b)| a.to_bits() == b.to_bits())
                && g.iter().all(|x| x.is_finite())
        }),
        (D::I32(w), D::I32(g)) => all(w, g, |w, g| {
            w == g && g.iter().all(|&x| x as u32 != POISON_U32)
        }),
        (D::U32(w), D::U32(g)) => all(w, g, |w, g| w == g && g.iter().all(|&x| x != POISON_U32)),
        (D::U8(w), D::U8(g)) => all(w, g, |w, g| w == g && g.iter().all(|&x| x != POISON_U8)),
        _ => false,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_quick_pass_accepts_only_identical_finite_unpoisoned_outputs() {
        use crate::case::HostData as D;
        let tol = Tolerance::default();
        let big: Vec<f32> = (0..3_000_000).map(|i| i as f32 * 0.5).collect();
        assert!(identical_and_accepted(
            &D::F32(big.clone()),
            &D::F32(big.clone()),
            tol
        ));
        let mut off = big.clone();
        off[2_500_000] += 1.0;
        assert!(!identical_and_accepted(
            &D::F32(big.clone()),
            &D::F32(off),
            tol
        ));
        let nan = vec![f32::NAN; 4];
        assert!(!identical_and_accepted(
            &D::F32(nan.clone()),
            &D::F32(nan),
            tol
        ));
        let poison = vec![POISON_U32; 4];
        assert!(!identical_and_accepted(
            &D::U32(poison.clone()),
            &D::U32(poison),
            tol
        ));
        assert!(!identical_and_accepted(
            &D::U32(vec![1]),
            &D::I32(vec![1]),
            tol
        ));
    }

    use crate::case::HostData;

    fn launch(n: usize) -> Launch {
        Launch::covering(n, 256)
    }

    #[test]
    fn values_within_tolerance_pass_and_outside_fail() {
        let e = HostData::F32(vec![1.0, 2.0]);
        let near = HostData::F32(vec![1.0 + 1e-6, 2.0]);
        let far = HostData::F32(vec![1.1, 2.0]);
        let tol = Tolerance {
            abs: 0.0,
            rel: 1e-5,
        };
        assert!(compare("c", &e, &near, tol, &launch(2)).is_ok());
        let m = compare("c", &e, &far, tol, &launch(2)).unwrap_err();
        assert_eq!((m.wrong, m.first_wrong[0].index), (1, 0));
    }

    #[test]
    fn integers_compare_exactly() {
        let e = HostData::I32(vec![5, 6]);
        let a = HostData::I32(vec![5, 7]);
        assert_eq!(
            compare("o", &e, &a, Tolerance::default(), &launch(2))
                .unwrap_err()
                .wrong,
            1
        );
    }

    #[test]
    fn untouched_output_is_reported_as_never_written() {
        let e = HostData::F32(vec![1.0; 10]);
        let a = e.poisoned();
        let m = compare("c", &e, &a, Tolerance::default(), &launch(10)).unwrap_err();
        assert_eq!(m.never_written, 10);
        assert_eq!(m.first_wrong[0].actual, "(never written)");
        assert!(m.likely_cause.unwrap().contains("wrote nothing"));
    }

    #[test]
    fn only_first_block_written_points_at_block_index() {
        let n = 1000;
        let e = HostData::F32(vec![1.0; n]);
        let mut a = e.poisoned();
        if let HostData::F32(v) = &mut a {
            v[..256].fill(1.0);
        }
        let m = compare("c", &e, &a, Tolerance::default(), &launch(n)).unwrap_err();
        assert!(m.likely_cause.unwrap().contains("blockIdx.x"));
    }

    #[test]
    fn unwritten_tail_points_at_grid_coverage() {
        let n = 1000;
        let e = HostData::F32(vec![1.0; n]);
        let mut a = e.poisoned();
        if let HostData::F32(v) = &mut a {
            v[..768].fill(1.0);
        }
        let m = compare("c", &e, &a, Tolerance::default(), &launch(n)).unwrap_err();
        assert!(m.likely_cause.unwrap().contains("from index 768"));
    }

    #[test]
    fn nan_matches_nan_but_not_poison() {
        let e = HostData::F32(vec![f32::NAN]);
        assert!(compare(
            "c",
            &e,
            &HostData::F32(vec![f32::NAN]),
            Tolerance::default(),
            &launch(1)
        )
        .is_ok());
        assert!(compare("c", &e, &e.poisoned(), Tolerance::default(), &launch(1)).is_err());
    }
}

// ---------------------------------------------------------------------------------------------
// Reading the evidence: small helpers for the exercises' `diagnose` functions (01-12).
// ---------------------------------------------------------------------------------------------

impl HostData {
    /// Element `i` as a double, whatever the element type: diagnoses compare it with formulas.
    pub fn f64_at(&self, i: usize) -> f64 {
        match self {
            HostData::F32(v) => v[i] as f64,
            HostData::F64(v) => v[i],
            HostData::I32(v) => v[i] as f64,
            HostData::U32(v) => v[i] as f64,
            HostData::U8(v) => v[i] as f64,
        }
    }
}

impl Tolerance {
    /// Whether `actual` is within this tolerance of `expected` (NaN matches NaN): for
    /// diagnoses that compare a value with what a mistake would give.
    pub fn accepts_value(&self, expected: f64, actual: f64) -> bool {
        self.accepts(expected, actual)
    }
}

impl Evidence<'_> {
    /// Elements in the output.
    pub fn len(&self) -> usize {
        self.expected.len()
    }

    /// Whether the output has no elements.
    pub fn is_empty(&self) -> bool {
        self.expected.is_empty()
    }

    /// Whether every element of the output holds what `predict` says a kernel with some mistake
    /// writes there, within `tolerance`: the mistake explains the whole output, not one element.
    pub fn every_element_is(&self, predict: impl Fn(usize) -> f64, tolerance: Tolerance) -> bool {
        (0..self.len())
            .all(|i| !self.never_written(i) && tolerance.accepts(predict(i), self.actual.f64_at(i)))
    }

    /// Whether the wrong elements are exactly the ones never written, and those are exactly the
    /// elements for which `unwritten` holds: every element written holds the right value, and
    /// the kernel skipped just what the mistake skips.
    pub fn unwritten_exactly_where(&self, unwritten: impl Fn(usize) -> bool) -> bool {
        let mut wrong = self.wrong.iter().copied().peekable();
        (0..self.len()).all(|i| {
            let is_wrong = wrong.next_if_eq(&i).is_some();
            let skipped = unwritten(i);
            is_wrong == skipped && (!skipped || self.never_written(i))
        })
    }
}

/// Which of `n` elements a one-dimensional kernel writes when its index is
/// `index(block, thread)` and it guards `i < n`: to compare with the elements a kernel wrote.
pub fn written_by_index(launch: &Launch, n: usize, index: impl Fn(u64, u64) -> u64) -> Vec<bool> {
    let mut written = vec![false; n];
    for block in 0..launch.grid[0] as u64 {
        for thread in 0..launch.block[0] as u64 {
            if let Some(w) = written.get_mut(index(block, thread) as usize) {
                *w = true;
            }
        }
    }
    written
}

/// For a row-major 2D output whose kernel takes its column from x and its row from y: whether
/// the elements never written are exactly those a kernel with the two swapped leaves (its rows
/// reach only as far as the grid's x threads, its columns as the y threads), and no element
/// is wrong otherwise.
pub fn rows_and_columns_swapped(evidence: &Evidence) -> bool {
    let Some([_, cols]) = evidence.case.shape_of(evidence.buffer) else {
        return false;
    };
    let launch = &evidence.case.launch;
    let rows_reached = launch.grid[0] as usize * launch.block[0] as usize;
    let cols_reached = launch.grid[1] as usize * launch.block[1] as usize;
    cols > 0
        && evidence
            .unwritten_exactly_where(|i| i / cols >= rows_reached || i % cols >= cols_reached)
}

/// The likely causes that fit, as one sentence: None when none fits, "A; or B" when several do
/// (a small case cannot always tell them apart).
pub fn any_of(causes: Vec<String>) -> Option<String> {
    (!causes.is_empty()).then(|| causes.join("; or "))
}

#[cfg(test)]
mod diagnosis_helper_tests {
    use super::*;
    use crate::case::Case;

    fn evidence_test(
        expected: HostData,
        actual: HostData,
        launch: Launch,
        check: impl Fn(&Evidence),
    ) {
        let case = Case::new("t", "k", launch).shape_2d("c", 1, expected.len());
        let wrong = wrong_elements(&expected, &actual, Tolerance::default());
        check(&Evidence {
            case: &case,
            buffer: "c",
            expected: &expected,
            actual: &actual,
            wrong: &wrong,
        });
    }

    #[test]
    fn unwritten_exactly_where_needs_the_same_elements_unwritten_and_the_rest_right() {
        let expected = HostData::I32((0..10).collect());
        let mut actual = expected.poisoned();
        if let HostData::I32(v) = &mut actual {
            v[..4].copy_from_slice(&[0, 1, 2, 3]);
        }
        evidence_test(
            expected.clone(),
            actual.clone(),
            Launch::covering(10, 4),
            |ev| {
                assert!(ev.unwritten_exactly_where(|i| i >= 4));
                assert!(!ev.unwritten_exactly_where(|i| i >= 5));
                assert!(!ev.unwritten_exactly_where(|i| i >= 3));
            },
        );
        if let HostData::I32(v) = &mut actual {
            v[1] = 7;
        }
        evidence_test(expected, actual, Launch::covering(10, 4), |ev| {
            assert!(!ev.unwritten_exactly_where(|i| i >= 4));
        });
    }

    #[test]
    fn every_element_is_compares_the_whole_output_with_the_prediction() {
        let expected = HostData::F32(vec![1.0, 2.0, 3.0]);
        let actual = HostData::F32(vec![2.0, 4.0, 6.0]);
        evidence_test(expected, actual, Launch::covering(3, 4), |ev| {
            let tol = Tolerance::default();
            assert!(ev.every_element_is(|i| 2.0 * ev.expected.f64_at(i), tol));
            assert!(!ev.every_element_is(|i| 3.0 * ev.expected.f64_at(i), tol));
        });
    }

    #[test]
    fn written_by_index_follows_the_formula_and_the_guard() {
        let launch = Launch::covering(10, 4);
        let right = written_by_index(&launch, 10, |b, t| b * 4 + t);
        assert!(right.iter().all(|&w| w));
        let grid_dim = written_by_index(&launch, 10, |b, t| b * 3 + t);
        assert_eq!(grid_dim.iter().filter(|&&w| w).count(), 10);
        let thread_only = written_by_index(&launch, 10, |_, t| t);
        assert_eq!(thread_only.iter().filter(|&&w| w).count(), 4);
    }

    #[test]
    fn any_of_joins_the_causes_that_fit() {
        assert_eq!(any_of(vec![]), None);
        assert_eq!(any_of(vec!["a".into(), "b".into()]).unwrap(), "a; or b");
    }
}

/// The likely cause a check gives when output `buffer` of `case` holds `actual`: for the
/// exercises' tests of their diagnoses, on synthetic outputs.
#[cfg(test)]
pub(crate) fn likely_cause_of(case: &Case, buffer: &str, actual: HostData) -> Option<String> {
    let expected = case
        .expected()
        .into_iter()
        .find(|(name, _)| name == buffer)
        .map(|(_, data)| data)
        .unwrap_or_else(|| panic!("case {:?} has no output {buffer:?}", case.name));
    let tolerance = Tolerance {
        abs: 1e-6,
        rel: 1e-5,
    };
    compare_case(case, buffer, &expected, &actual, tolerance)
        .expect_err("the synthetic output should be wrong")
        .likely_cause
}

// ---------------------------------------------------------------------------------------------
// Reading a wrong output against what a known mistake would write (diagnoses of 13-24).
// ---------------------------------------------------------------------------------------------

/// What a kernel with one known mistake leaves in one output element.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Predicted {
    /// This value, up to the rounding of another order of float operations (integers: exactly).
    Value(f64),
    /// Nothing: the mistake never writes the element.
    Unwritten,
    /// A value taken from whatever memory held, such as a slot of shared memory no thread
    /// wrote (the simulator fills shared memory with NaN, so a NaN there counts as telling).
    Garbage,
}

/// Element `i` of `data` as a double (the poison as NaN).
pub fn element_f64(data: &HostData, i: usize) -> f64 {
    match data {
        HostData::F32(v) => v[i] as f64,
        HostData::F64(v) => v[i],
        HostData::I32(v) => v[i] as f64,
        HostData::U32(v) => v[i] as f64,
        HostData::U8(v) => v[i] as f64,
    }
}

impl Evidence<'_> {
    /// Whether `mistake` explains the wrong elements: each of them holds what the mistake
    /// predicts, and at least one agrees by more than chance (a value, an element left
    /// unwritten, or NaN where the mistake reads unwritten shared memory). Elements that are
    /// right are not asked about: where the mistake changes nothing they are right anyway.
    pub fn explained_by(&self, mistake: impl Fn(usize) -> Predicted) -> bool {
        let integer = matches!(
            self.expected,
            HostData::I32(_) | HostData::U32(_) | HostData::U8(_)
        );
        let mut telling = false;
        for &i in self.wrong {
            let unwritten = self.never_written(i);
            let actual = element_f64(self.actual, i);
            let predicted = mistake(i);
            let agrees = match predicted {
                Predicted::Unwritten => unwritten,
                Predicted::Garbage => {
                    telling |= !unwritten && actual.is_nan();
                    !unwritten
                }
                Predicted::Value(v) if integer => !unwritten && actual == v,
                Predicted::Value(v) => {
                    !unwritten
                        && (actual == v
                            || (actual.is_nan() && v.is_nan())
                            || (actual - v).abs() <= 1e-3 + 1e-4 * v.abs())
                }
            };
            if !agrees {
                return false;
            }
            telling |= !matches!(predicted, Predicted::Garbage);
        }
        telling
    }

    /// The integer scalar parameter `name` as a count (0 when negative).
    pub fn count(&self, name: &str) -> usize {
        match self.case.scalar_value(name) {
            crate::case::Scalar::I32(v) => v.max(0) as usize,
            crate::case::Scalar::U32(v) => v as usize,
            crate::case::Scalar::I64(v) => v.max(0) as usize,
            crate::case::Scalar::U64(v) => v as usize,
            crate::case::Scalar::F32(_) | crate::case::Scalar::F64(_) => 0,
        }
    }

    /// Evidence about the same case and output, with `actual` in place of the kernel's output:
    /// for testing a diagnosis on the output a mistake would give.
    pub fn with_actual<R>(
        case: &Case,
        buffer: &str,
        actual: &HostData,
        f: impl FnOnce(&Evidence) -> R,
    ) -> R {
        let expected = case
            .expected()
            .into_iter()
            .find(|(name, _)| name == buffer)
            .map(|(_, data)| data)
            .unwrap_or_else(|| panic!("case {:?} has no output {buffer:?}", case.name));
        let wrong = wrong_elements(&expected, actual, Tolerance::default());
        f(&Evidence {
            case,
            buffer,
            expected: &expected,
            actual,
            wrong: &wrong,
        })
    }
}
