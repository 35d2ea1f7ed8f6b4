//! The course on disk: where it is, and its exercise metadata (`exercises/exercises.toml`).

use anyhow::{bail, Context};
use checks::Tolerance;
use serde::Deserialize;
use std::path::{Path, PathBuf};

/// The metadata file, relative to the course's root: finding it is how a course is recognised.
pub const METADATA: &str = "exercises/exercises.toml";

/// One exercise as `exercises.toml` describes it (the file's header says what each key means).
#[derive(Clone, Debug, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Exercise {
    /// The syllabus id (`07`, `py03`, `cpp01`): stable, since tests and grades refer to it.
    pub id: String,
    /// A short name, also the folder's name after the id (`racy_counter`).
    pub name: String,
    /// One line for `runner list` and the report's header.
    pub title: String,
    /// The book page that teaches it, relative to `book/src`.
    pub chapter: String,
    /// The kernel file, relative to `exercises/` (and to `solutions/`).
    pub file: String,
    /// The kernels the check launches (or a program must launch), by their unmangled names.
    pub entries: Vec<String>,
    /// What a pass is worth in a grade.
    pub points: u32,
    /// A launch that runs longer is stopped as a hang; a whole program gets this much CPU time
    /// (and four times it in wall time). The simulator turns it into a budget of instructions.
    #[serde(default = "default_time_limit_ms")]
    pub time_limit_ms: u64,
    /// How far a float output may be from the CPU reference's.
    #[serde(default)]
    pub tolerance: Tolerance,
    /// From a nudge to nearly the answer; `runner hint` shows the next one each time.
    pub hints: Vec<String>,
    /// Names of `extern "C" __constant__ int` values the student sets in the kernel file (e.g. the
    /// launch configuration); the runner reads them from the compiled module for the check.
    #[serde(default)]
    pub declared: Vec<String>,
    /// Goals beyond right outputs; a missed one that decides gives `targets_missed`.
    #[serde(default)]
    pub targets: Targets,
    /// The tuned reference, relative to `solutions/`: the same entry points written for speed,
    /// which `runner bench` times and `runner dev check` holds to every case (see `tuned.rs`).
    #[serde(default)]
    pub tuned: Option<String>,
    /// Present for a host exercise: a whole program (a Rust crate on cudarc's driver API, or a
    /// Python script on Numba or cuda.core) rather than a kernel; `file` is its `src/main.rs` or
    /// its script, and `entries` the kernels it must launch.
    #[serde(default)]
    pub host: Option<HostSpec>,
    /// How a host exercise's kernels must do their work, where right outputs and the driver's
    /// copies do not show it (see `host::technique`).
    #[serde(default)]
    pub technique: Technique,
}

/// Goals on how an exercise's kernels are written: the lesson's technique, which a right answer
/// reached another way does not meet.
#[derive(Clone, Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Technique {
    /// In the simulator: global atomic instructions (a warp's is one) of the exercise's kernels
    /// per block launched, largest case, at most: one thread of a block adds the block's result,
    /// not every thread its own.
    pub max_global_atomics_per_block: Option<f64>,
    /// In the simulator: global and shared-memory load and store instructions (requests) of the
    /// exercise's kernels on the largest case, at most (the solution's with a margin): a loop in
    /// which one thread walks the elements one after another takes one for each.
    pub max_memory_requests: Option<u64>,
    /// The exercise's kernels call at least one `@cuda.jit(device=True)` function of the
    /// program, as Python's parser reads its source (Python exercises).
    #[serde(default)]
    pub kernel_calls_device_function: bool,
    /// The exercise's kernels hold a for or while loop over elements (themselves or in a device
    /// function they call), as Python's parser reads the source (Python exercises): a grid-stride
    /// exercise's fixed grid needs one.
    #[serde(default)]
    pub kernel_loops: bool,
    /// Every result the program reads is read after a wait for the copy back that brought it
    /// (the driver's record of each read, on its streams' happens-before): an exercise that
    /// teaches streams asks for the wait even where the copy happens to be done already.
    #[serde(default)]
    pub results_waited_for: bool,
}

impl Exercise {
    /// Whether the student writes a whole program (see `host`) rather than a kernel.
    pub fn is_host(&self) -> bool {
        self.host.is_some()
    }

    /// Whether the student's whole program is a Python one (the Python track).
    pub fn is_python(&self) -> bool {
        self.host
            .as_ref()
            .is_some_and(|h| h.language == Language::Python)
    }

    /// The language of the student's whole program, or None for a kernel exercise.
    pub fn language(&self) -> Option<Language> {
        self.host.as_ref().map(|h| h.language)
    }

    /// The track the exercise belongs to: what the student writes, and so what they do next.
    pub fn track(&self) -> Track {
        match self.language() {
            None => Track::Kernels,
            Some(Language::Python) => Track::Python,
            Some(Language::Cpp) => Track::Cpp,
            Some(Language::Rust) => Track::RustHost,
        }
    }
}

/// The course's tracks: a student works one at a time, so the next exercise comes from the same.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Track {
    /// CUDA C kernels (01-24).
    Kernels,
    /// Whole programs in Rust on cudarc (25-28).
    RustHost,
    /// Whole programs in Python: Numba, cuda.core (pyNN).
    Python,
    /// Whole programs in CUDA C++ on the runtime API, built with nvcc (cppNN).
    Cpp,
}

/// The language a host exercise's program is written in.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Language {
    /// A crate on cudarc, built by the runner with cargo.
    #[default]
    Rust,
    /// A script run by the course's CUDA Python environment (`.cuda-python/`).
    Python,
    /// A `.cu` program on the CUDA runtime API, built by the runner with nvcc.
    Cpp,
}

/// A host exercise: its language, and what its program must do through the driver beyond
/// right outputs (the lesson of each host exercise is in how it copies and launches).
#[derive(Clone, Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct HostSpec {
    /// What the program is written in, which decides how it is built and run.
    #[serde(default)]
    pub language: Language,
    /// Copies to the device in one run, at most (data kept on the device is uploaded once).
    pub max_uploads: Option<u64>,
    /// Copies back to the host in one run, at most.
    pub max_downloads: Option<u64>,
    /// The share of copy time that overlaps other work on the timeline, at least (streams and
    /// pinned memory), on the exercise's largest case.
    pub min_copy_hidden: Option<f64>,
    /// In the simulator: global sectors per request, loads and stores together, at most, over
    /// the launches of the exercise's kernels (as `targets.max_sectors_per_request`).
    pub max_sectors_per_request: Option<f64>,
    /// In the simulator: shared-memory bank conflicts, loads and stores together, at most, over
    /// the launches of the exercise's kernels (as `targets.max_bank_conflicts`).
    pub max_bank_conflicts: Option<u64>,
    /// In the simulator: global load sectors of the exercise's kernels on the largest case, at
    /// most (the solution's count with a margin: a kernel that reads its inputs again from global
    /// memory, where the exercise keeps them in shared, local or constant memory, takes more).
    pub max_load_sectors: Option<u64>,
    /// Times read from pairs of events (cuEventElapsedTime) in one run, at least: the program
    /// times its work on the GPU's own clock.
    pub min_event_timings: Option<u64>,
    /// Kernel launches the program makes on its own in one run, at most: the rest run as the
    /// nodes of a CUDA graph (captured once, launched many times).
    pub max_direct_launches: Option<u64>,
    /// Graph instantiations in one run, at most: an instantiated graph is launched again as it
    /// is, and instantiating it anew each time costs more than the launches it saves.
    pub max_graph_instantiations: Option<u64>,
    /// Unified Memory: every launch finds each managed buffer prefetched to the device, and each
    /// result read from managed memory was prefetched back to the host and waited for
    /// (`host::unified`).
    #[serde(default)]
    pub managed_prefetches: bool,
}

/// Goals beyond a right answer, for exercises whose lesson is speed or memory traffic. A correct
/// kernel that misses one is told how far off it is, and the exercise is not yet done.
#[derive(Clone, Debug, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Targets {
    /// In the simulator: global sectors per request, loads and stores together, at most.
    pub max_sectors_per_request: Option<f64>,
    /// In the simulator: shared-memory bank conflicts, loads and stores together, at most.
    pub max_bank_conflicts: Option<u64>,
    /// The kernel's time over the reference solution's, at most: measured on a GPU, modelled in
    /// the simulator. In the simulator it decides only with `modelled_time_validated_by`, and
    /// is shown otherwise.
    pub max_time_vs_reference: Option<f64>,
    /// Where the modelled time was validated on a GPU for this exercise (a results file,
    /// relative to the course root): a corpus of correct variants and technique mistakes,
    /// measured and modelled on the same case, ranked alike. Only then does the simulator's
    /// `max_time_vs_reference` fail a check.
    pub modelled_time_validated_by: Option<String>,
    /// In the simulator: the threads of the kernel's launch over those of the reference
    /// solution's launch on the same case, at least (for an exercise where the student
    /// chooses the launch). A grid that leaves a GPU's SMs idle or underfilled misses it: an
    /// exact figure, where a modelled time would decide on the model's word.
    pub min_threads_vs_reference: Option<f64>,
    /// In the simulator: global sectors (loads and stores) over the reference solution's on the
    /// same case, at most. A total, so doing less per request cannot meet it.
    pub max_global_sectors_vs_reference: Option<f64>,
    /// In the simulator: shared-memory wavefronts over the reference solution's, at most.
    pub max_shared_wavefronts_vs_reference: Option<f64>,
    /// In the simulator: atomic operations (warp requests on global and shared memory, each
    /// pass of a CAS loop included) over the reference solution's on the same case, at most.
    /// The simulator's count is the fewest a GPU makes: there, warps retry each other's CAS.
    pub max_atomics_vs_reference: Option<f64>,
    /// Threads per block a multiple of 32 (whole warps) in the launch the student chose: a fact
    /// of the launch, the same on a GPU and in the simulator.
    #[serde(default)]
    pub whole_warps: bool,
}

impl Targets {
    /// Whether a target compares with the reference solution's own figures in the simulator.
    pub fn needs_reference_figures(&self) -> bool {
        self.max_global_sectors_vs_reference.is_some()
            || self.max_shared_wavefronts_vs_reference.is_some()
            || self.max_time_vs_reference.is_some()
            || self.min_threads_vs_reference.is_some()
            || self.max_atomics_vs_reference.is_some()
    }
}

fn default_time_limit_ms() -> u64 {
    5000
}

#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct Metadata {
    exercise: Vec<Exercise>,
}

/// A course on disk: its folder and its exercises.
#[derive(Clone)]
pub struct Course {
    /// The folder that holds `exercises/`, `solutions/` and the metadata.
    pub root: PathBuf,
    /// Every exercise, in syllabus order (the metadata's).
    pub exercises: Vec<Exercise>,
}

impl Course {
    /// Finds the course in `start` or the nearest parent that has `exercises/exercises.toml`.
    pub fn find(start: &Path) -> anyhow::Result<Course> {
        let root = start
            .ancestors()
            .find(|dir| dir.join(METADATA).is_file())
            .with_context(|| {
                format!(
                    "no course here: neither {} nor any folder above it has {METADATA}. \
                     Run the runner from inside the course's folder.",
                    start.display()
                )
            })?;
        Course::load(root)
    }

    /// Reads the course whose root is `root`; an error names the metadata file and what in it
    /// is wrong.
    pub fn load(root: &Path) -> anyhow::Result<Course> {
        let path = root.join(METADATA);
        let text = std::fs::read_to_string(&path)
            .with_context(|| format!("cannot read {}", path.display()))?;
        let exercises =
            parse_metadata(&text).map_err(|e| anyhow::anyhow!("{}: {e}", path.display()))?;
        Ok(Course {
            root: root.to_path_buf(),
            exercises,
        })
    }

    /// The exercise with this id; `3` and `03` both name exercise 03.
    pub fn exercise(&self, id: &str) -> anyhow::Result<&Exercise> {
        let wanted = normalise_id(id);
        if let Some(exercise) = self.exercises.iter().find(|e| e.id == wanted) {
            return Ok(exercise);
        }
        let known: Vec<&str> = self.exercises.iter().map(|e| e.id.as_str()).collect();
        bail!(
            "there is no exercise {id:?}; the exercises are {}. `runner list` shows them all.",
            known.join(", ")
        )
    }

    /// The file the student edits.
    pub fn exercise_path(&self, exercise: &Exercise) -> PathBuf {
        self.root.join("exercises").join(&exercise.file)
    }

    /// The reference solution, at the exercise's path under `solutions/`.
    pub fn solution_path(&self, exercise: &Exercise) -> PathBuf {
        self.root.join("solutions").join(&exercise.file)
    }

    /// The tuned reference of an exercise, where the metadata names one.
    pub fn tuned_path(&self, exercise: &Exercise) -> Option<PathBuf> {
        let file = exercise.tuned.as_ref()?;
        Some(self.root.join("solutions").join(file))
    }

    /// What to do after `current`: the first exercise not done that follows it in its own
    /// track (after py03, py04; after 25, 26), coming round to the track's start; once the track
    /// is done, the first exercise not done in the syllabus. `None` when every one is done.
    pub fn next_after(
        &self,
        current: &Exercise,
        is_done: impl Fn(&str) -> bool,
    ) -> Option<&Exercise> {
        let pending = |e: &&Exercise| e.id != current.id && !is_done(&e.id);
        let at = self
            .exercises
            .iter()
            .position(|e| e.id == current.id)
            .unwrap_or(0);
        let (before, after) = self.exercises.split_at(at);
        after
            .iter()
            .chain(before)
            .filter(|e| e.track() == current.track())
            .find(pending)
            .or_else(|| self.exercises.iter().find(pending))
    }

    /// The name NVRTC and reports use for a file: its path inside the course.
    pub fn display_name(&self, path: &Path) -> String {
        path.strip_prefix(&self.root)
            .unwrap_or(path)
            .display()
            .to_string()
    }
}

/// `3` and `03` name exercise 03; `py1`, `PY01` and `py01` the Python track's py01; `cpp1`
/// the C++ track's cpp01.
fn normalise_id(id: &str) -> String {
    let lower = id.to_ascii_lowercase();
    for track in ["py", "cpp"] {
        if let Some(n) = lower
            .strip_prefix(track)
            .and_then(|d| d.parse::<u32>().ok())
        {
            return format!("{track}{n:02}");
        }
    }
    match id.parse::<u32>() {
        Ok(n) => format!("{n:02}"),
        Err(_) => id.to_string(),
    }
}

/// Parses and validates the metadata; errors name the TOML line and the problem.
fn parse_metadata(text: &str) -> anyhow::Result<Vec<Exercise>> {
    let metadata: Metadata = toml::from_str(text).map_err(|e| anyhow::anyhow!("{e}"))?;
    let mut seen = std::collections::HashMap::new();
    for e in &metadata.exercise {
        // The n-th exercise with this id is at the n-th `id = "..."` line that names it.
        let nth = seen.entry(e.id.clone()).or_insert(0usize);
        *nth += 1;
        let line = nth_line_of(text, &format!("id = \"{}\"", e.id), *nth);
        if *nth > 1 {
            bail!("line {line}: exercise id {} appears twice", e.id);
        }
        check_exercise(e)
            .map_err(|problem| anyhow::anyhow!("line {line}: exercise {}: {problem}", e.id))?;
    }
    Ok(metadata.exercise)
}

/// The longest time limit an exercise may set (an hour): a hang must still be stopped.
const MAX_TIME_LIMIT_MS: u64 = 3_600_000;

/// What is wrong with one exercise's metadata, naming the key.
fn check_exercise(e: &Exercise) -> Result<(), String> {
    let digits = ["py", "cpp"]
        .iter()
        .find_map(|track| e.id.strip_prefix(track))
        .unwrap_or(&e.id);
    if digits.len() != 2 || !digits.chars().all(|c| c.is_ascii_digit()) {
        return Err(format!(
            "id {:?} must be two digits, like \"07\" (or \"py\" or \"cpp\" and two digits for the Python and C++ tracks)",
            e.id
        ));
    }
    if e.id.starts_with("py") && !e.is_python() {
        return Err(
            "a \"py\" id is for a Python program: give it host = { language = \"python\" }".into(),
        );
    }
    if e.id.starts_with("cpp") != (e.language() == Some(Language::Cpp)) {
        return Err(
            "a \"cpp\" id is for a CUDA C++ program, and a CUDA C++ program has a \"cpp\" id: \
             give it host = { language = \"cpp\" } and an id like \"cpp01\""
                .into(),
        );
    }
    if e.entries.is_empty() {
        return Err("names no kernel entry point (entries = [...])".into());
    }
    if e.hints.is_empty() {
        return Err("has no hints".into());
    }
    if e.file.trim().is_empty() || e.file.contains("..") || Path::new(&e.file).is_absolute() {
        return Err(format!(
            "file = {:?} must be a path inside exercises/",
            e.file
        ));
    }
    if !(100..=MAX_TIME_LIMIT_MS).contains(&e.time_limit_ms) {
        return Err(format!(
            "time_limit_ms = {} must be from 100 to {MAX_TIME_LIMIT_MS} (a launch longer than this is a hang)",
            e.time_limit_ms
        ));
    }
    for (key, value) in [
        ("tolerance.abs", e.tolerance.abs),
        ("tolerance.rel", e.tolerance.rel),
    ] {
        if !value.is_finite() || value < 0.0 {
            return Err(format!(
                "{key} = {value} must be a finite number, 0 or more"
            ));
        }
    }
    let t = &e.targets;
    for (key, value) in [
        ("targets.max_sectors_per_request", t.max_sectors_per_request),
        ("targets.max_time_vs_reference", t.max_time_vs_reference),
        (
            "targets.min_threads_vs_reference",
            t.min_threads_vs_reference,
        ),
        (
            "targets.max_global_sectors_vs_reference",
            t.max_global_sectors_vs_reference,
        ),
        (
            "targets.max_shared_wavefronts_vs_reference",
            t.max_shared_wavefronts_vs_reference,
        ),
        (
            "targets.max_atomics_vs_reference",
            t.max_atomics_vs_reference,
        ),
        (
            "host.max_sectors_per_request",
            e.host.as_ref().and_then(|h| h.max_sectors_per_request),
        ),
    ] {
        if let Some(v) = value.filter(|v| !v.is_finite() || *v <= 0.0) {
            return Err(format!("{key} = {v} must be a finite number above 0"));
        }
    }
    // Text printed to a terminal must not carry escape sequences or other control characters.
    let texts = [
        ("name", &e.name),
        ("title", &e.title),
        ("chapter", &e.chapter),
    ];
    let hints = e.hints.iter().map(|h| ("hints", h));
    if let Some((key, _)) = texts
        .into_iter()
        .chain(hints)
        .find(|(_, text)| text.chars().any(|c| c.is_control()))
    {
        return Err(format!(
            "{key} holds a control character (an escape sequence?)"
        ));
    }
    Ok(())
}

/// The line of the `n`-th (from 1) line that contains `needle`, or 0.
fn nth_line_of(text: &str, needle: &str, n: usize) -> usize {
    text.lines()
        .enumerate()
        .filter(|(_, l)| l.contains(needle))
        .nth(n.saturating_sub(1))
        .map_or(0, |(i, _)| i + 1)
}

#[cfg(test)]
mod tests {
    use super::*;

    const ONE: &str = r#"
[[exercise]]
id = "01"
name = "a"
title = "A"
chapter = "a.md"
file = "01_a/a.cu"
entries = ["k"]
points = 10
hints = ["h"]
"#;

    #[test]
    fn valid_metadata_parses_with_defaults() {
        let e = &parse_metadata(ONE).unwrap()[0];
        assert_eq!((e.id.as_str(), e.time_limit_ms), ("01", 5000));
    }

    #[test]
    fn syntax_errors_name_the_line() {
        let broken = ONE.replace("points = 10", "points = ");
        let err = parse_metadata(&broken).unwrap_err().to_string();
        assert!(err.contains("line 9"), "{err}");
    }

    #[test]
    fn unknown_fields_and_bad_ids_are_refused() {
        let err = parse_metadata(&ONE.replace("points", "pionts"))
            .unwrap_err()
            .to_string();
        assert!(err.contains("pionts"), "{err}");
        let err = parse_metadata(&ONE.replace("\"01\"", "\"1\""))
            .unwrap_err()
            .to_string();
        assert!(
            err.contains("line 3") && err.contains("two digits"),
            "{err}"
        );
    }

    #[test]
    fn values_out_of_range_name_their_key_and_line() {
        let cases = [
            (
                "points = 10",
                "points = 10\ntime_limit_ms = 0",
                "time_limit_ms = 0",
            ),
            (
                "points = 10",
                "points = 10\ntime_limit_ms = 99999999",
                "time_limit_ms = 99999999",
            ),
            (
                "points = 10",
                "points = 10\ntolerance = { abs = nan }",
                "tolerance.abs = NaN",
            ),
            (
                "points = 10",
                "points = 10\ntolerance = { rel = -1.0 }",
                "tolerance.rel = -1",
            ),
            (
                "points = 10",
                "points = 10\ntolerance = { rel = inf }",
                "tolerance.rel = inf",
            ),
            ("file = \"01_a/a.cu\"", "file = \"\"", "file = \"\""),
            (
                "hints = [\"h\"]",
                "hints = [\"h\"]\n[exercise.targets]\nmax_time_vs_reference = -2.0",
                "targets.max_time_vs_reference = -2",
            ),
            (
                "hints = [\"h\"]",
                "hints = [\"h\"]\nhost = { max_sectors_per_request = 0.0 }",
                "host.max_sectors_per_request = 0",
            ),
            (
                "title = \"A\"",
                "title = \"A\\u001b[2J\"",
                "title holds a control character",
            ),
        ];
        for (from, to, says) in cases {
            let text = ONE.replace(from, to);
            let err = parse_metadata(&text).unwrap_err().to_string();
            assert!(
                err.contains(says) && err.starts_with("line 3:"),
                "{to}: {err}"
            );
        }
    }

    #[test]
    fn a_duplicate_id_is_reported_where_it_repeats() {
        let twice = format!("{ONE}{ONE}");
        let err = parse_metadata(&twice).unwrap_err().to_string();
        assert!(
            err.starts_with("line 13:") && err.contains("appears twice"),
            "{err}"
        );
    }

    #[test]
    fn ids_are_found_with_or_without_leading_zero() {
        assert_eq!(normalise_id("3"), "03");
        assert_eq!(normalise_id("03"), "03");
        assert_eq!(normalise_id("CPP1"), "cpp01");
    }

    #[test]
    fn a_cpp_id_and_a_cpp_program_go_together() {
        let cpp = ONE.replace("id = \"01\"", "id = \"cpp01\"");
        let err = parse_metadata(&cpp).unwrap_err().to_string();
        assert!(err.contains("host = { language = \"cpp\" }"), "{err}");
        let program = format!("{cpp}host = {{ language = \"cpp\" }}\n");
        let parsed = parse_metadata(&program).unwrap();
        assert_eq!(parsed[0].track(), Track::Cpp);
    }
}
