//! The sandbox policy: what one grading cell sees of the machine and what it may change, written
//! as bubblewrap's (`bwrap`) arguments, plus the [`Setup`] that the sandbox's first process
//! (`runner grade sandbox`, in `sandbox`) carries out inside before it becomes the check.
//!
//! A cell sees:
//! - the system read-only (/usr, /etc less its secrets, /sys), a /dev of its own with the GPUs,
//!   the /proc of its own PID namespace, a private /tmp, and no network;
//! - of the course only what a check reads, read-only: `exercises/`, `hostkit/`, the course's
//!   NVRTC and CUDA Python, `Cargo.lock`, the pristine copies in `.runner/` (its progress file is
//!   private to the cell). Never `solutions/`, the grading file, the submissions, the grade book
//!   or the grader's scratch folder;
//! - each reference solution the check needs only as `/proc/self/fd/N`: a file descriptor the
//!   check's own process holds, which its children (the compiler, the student's program) do not
//!   inherit and cannot open in it (the check makes itself non-dumpable);
//! - the tools a check runs, read-only: the runner's folder, cargo and rustup (less their
//!   credentials), NVRTC, the compile cache;
//! - writable, each a size-capped folder of its own: its submission's staged files (copied in),
//!   /tmp and the home folder, and for a Rust program the build folder, whose prebuilt
//!   dependencies are linked in read-only.
//!
//! A check of the course's own files (the preflight) is trusted with the real build folder and
//! compile cache, so that what it builds and compiles is there for every student's cell.

use serde::{Deserialize, Serialize};
use std::ffi::OsString;
use std::path::{Path, PathBuf};

/// The sandbox's program: bubblewrap, from the distribution's package `bubblewrap`.
pub(crate) const BWRAP: &str = "bwrap";

/// Where the cell's own copies are made from, inside the sandbox (read-only, out of the way).
const STAGED_SOURCE: &str = "/run/runner/staged";
const PREBUILT_SOURCE: &str = "/run/runner/prebuilt";

/// The course entries a check reads; everything else at the course's top is left out.
const COURSE_ENTRIES: &[&str] = &[
    "exercises",
    "hostkit",
    ".nvrtc",
    ".cuda-python",
    ".nvcc",
    "Cargo.toml",
    "Cargo.lock",
];

/// Files of /etc that hold secrets: shown empty.
const ETC_SECRETS: &[&str] = &[
    "shadow",
    "shadow-",
    "gshadow",
    "gshadow-",
    "ssh",
    "sudoers",
    "sudoers.d",
    "ssl/private",
];

/// Files of cargo's home that hold a registry token: shown empty.
const CARGO_SECRETS: &[&str] = &["credentials", "credentials.toml"];

/// Variables passed into the sandbox (the rest of the grader's environment stays out).
const VARIABLES: &[&str] = &[
    "PATH",
    "LANG",
    "LC_ALL",
    "LC_CTYPE",
    "TZ",
    "NO_COLOR",
    "RUST_BACKTRACE",
    "LD_LIBRARY_PATH",
    "CUDA_VISIBLE_DEVICES",
    "CUDA_PATH",
    "CUDA_HOME",
    "CARGO",
    "RUSTUP_TOOLCHAIN",
];
const VARIABLE_PREFIXES: &[&str] = &["RUNNER_", "SIMCUDA_", "NUMBA_"];

/// What the sandbox's first process does inside, before it becomes the check; handed to it as
/// JSON (`runner grade sandbox --setup`).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub(crate) struct Setup {
    /// The submission's staged folder (read-only, at `STAGED_SOURCE`) is copied to this path,
    /// a size-capped folder of the cell's own, where the grader staged it: messages name the
    /// same paths inside and out.
    pub staged: Option<Copy>,
    /// The prebuilt build folder of the host exercises, linked file by file into the cell's
    /// own writable build folder.
    pub prebuilt: Option<Links>,
    /// The home folder to make (in the private /tmp).
    pub home: Option<PathBuf>,
    /// The descriptor the hidden seed is read from, once; it never reaches a command line.
    pub seed_fd: Option<i32>,
    /// The descriptor of the file the check writes its report to: kept from the check's
    /// children, so a student's program can neither write a report nor hide the check's.
    #[serde(default)]
    pub report_fd: Option<i32>,
    /// Descriptors of the reference solutions (`/proc/self/fd/N` in the course's view): kept
    /// by the check's process alone.
    pub solution_fds: Vec<i32>,
    /// The most processes the cell's user may have (RLIMIT_NPROC).
    pub processes: u64,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub(crate) struct Copy {
    pub from: PathBuf,
    pub to: PathBuf,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub(crate) struct Links {
    pub from: PathBuf,
    pub to: PathBuf,
}

/// Who a cell's code is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Trust {
    /// The course's own files (the preflight): its builds and compiles are kept for the class.
    Course,
    /// A student's submission: nothing it writes outlives the cell.
    Student,
}

/// What one cell gets beyond the run's policy.
#[derive(Clone, Debug)]
pub(crate) struct Cell {
    pub trust: Trust,
    /// The folder of the kernel or program being checked, when it is a staged submission.
    pub staged: Option<PathBuf>,
    /// Reference solutions (absolute paths in the course) and the descriptor that serves each.
    pub solutions: Vec<(PathBuf, i32)>,
    /// The descriptor that carries the hidden seed.
    pub seed_fd: Option<i32>,
    /// Files every cell of the run shares read-write (the GPU timing lock).
    pub shared: Vec<PathBuf>,
    /// Folders bound read-only at their own path (a worker's inbox of kernels).
    pub read_only: Vec<(PathBuf, PathBuf)>,
    /// It builds a Rust program: the prebuilt build folder is linked in.
    pub builds: bool,
}

/// What every cell of a run sees: decided once, from the course and the grader's environment.
#[derive(Clone, Debug, PartialEq)]
pub(crate) struct Policy {
    pub course_root: PathBuf,
    /// Tools the check runs, read-only (folders or files).
    pub tools: Vec<PathBuf>,
    /// Cargo's home (its credentials hidden), where there is one.
    pub cargo_home: Option<PathBuf>,
    pub rustup_home: Option<PathBuf>,
    /// The compile cache: read-only to a student's cell.
    pub cache: PathBuf,
    /// The host exercises' build folder: linked into a student's cell.
    pub host_target: PathBuf,
    /// Paths of the grader's that must not be seen even where a bound folder holds them.
    pub hidden: Vec<PathBuf>,
    /// Devices bound in (the GPUs).
    pub devices: Vec<PathBuf>,
    /// Size of each of the cell's writable folders, MiB (a debug build of a Rust program with
    /// cudarc takes about 60).
    pub disk_mb: u64,
    /// Processes the cell may have at once.
    pub processes: u64,
    /// The grader's variables that pass into the cell.
    pub variables: Vec<(OsString, OsString)>,
}

/// The compile cache the checks use: RUNNER_CACHE_DIR, else the user's cache folder (as
/// `compile::cache::Cache::open` decides it; inside, the home folder differs, so it is named).
fn cache_dir() -> PathBuf {
    std::env::var_os("RUNNER_CACHE_DIR")
        .map(PathBuf::from)
        .or_else(|| {
            directories::ProjectDirs::from("org", "gpu-course", "runner")
                .map(|d| d.cache_dir().to_path_buf())
        })
        .unwrap_or_else(|| std::env::temp_dir().join("runner-cache"))
}

fn home_of(variable: &str, default: &str) -> Option<PathBuf> {
    let path = std::env::var_os(variable)
        .map(PathBuf::from)
        .or_else(|| std::env::var_os("HOME").map(|h| PathBuf::from(h).join(default)))?;
    path.is_dir().then_some(path)
}

/// The folder a tool named by a variable lives in: a program's or library's folder, a Python
/// environment's root for its interpreter, the course-style `.nvrtc` root for NVRTC and `.nvcc`
/// root for nvcc (whose wrapper runs the compilers and headers of the wheels beside it).
fn tool_folder(path: &Path) -> Option<PathBuf> {
    if let Some(root) = path.ancestors().find(|a| {
        a.file_name()
            .is_some_and(|n| n == ".nvrtc" || n == ".cuda-python" || n == ".nvcc")
    }) {
        return Some(root.to_path_buf());
    }
    let parent = path.parent()?;
    if parent.file_name().is_some_and(|n| n == "bin") {
        return parent.parent().map(Path::to_path_buf);
    }
    Some(parent.to_path_buf())
}

impl Policy {
    /// The policy for grading `course_root` with the runner at `exe`, hiding `hidden` (the
    /// submissions, the output folder, the grading file, the scratch folder).
    pub(crate) fn for_run(
        course_root: &Path,
        exe: &Path,
        hidden: Vec<PathBuf>,
        disk_mb: u64,
    ) -> Policy {
        let mut tools: Vec<PathBuf> = exe.parent().map(Path::to_path_buf).into_iter().collect();
        let named = [
            "RUNNER_NVRTC",
            "RUNNER_NVCC",
            "RUNNER_SIMCUDA",
            "RUNNER_CUDA_PYTHON",
            "RUNNER_REAL_LIBCUDA",
        ]
        .into_iter()
        .filter_map(|variable| std::env::var_os(variable).map(PathBuf::from));
        for tool in named.chain([course_root.join(".cuda-python/bin/python")]) {
            tools.extend(tool_folder(&tool));
            // A Python environment's interpreter is a link to the Python it was made from
            // (pyenv's, under a home folder that is not bound): that Python's folder too.
            if let Ok(real) = tool.canonicalize() {
                tools.extend(tool_folder(&real));
            }
        }
        for variable in ["CUDA_PATH", "CUDA_HOME", "CARGO"] {
            tools.extend(std::env::var_os(variable).map(PathBuf::from));
        }
        if let Some(search) = std::env::var_os("LD_LIBRARY_PATH") {
            tools.extend(std::env::split_paths(&search));
        }
        tools.retain(|t| t.is_absolute() && t.exists());
        tools.sort();
        tools.dedup();
        let host_target = std::env::var_os("RUNNER_HOST_TARGET")
            .map(PathBuf::from)
            .unwrap_or_else(|| course_root.join("target").join("host").join("build"));
        let variables = std::env::vars_os()
            .filter(|(name, _)| {
                let name = name.to_string_lossy();
                VARIABLES.contains(&name.as_ref())
                    || VARIABLE_PREFIXES.iter().any(|p| name.starts_with(p))
            })
            .collect();
        Policy {
            course_root: course_root.to_path_buf(),
            tools,
            cargo_home: home_of("CARGO_HOME", ".cargo"),
            rustup_home: home_of("RUSTUP_HOME", ".rustup"),
            cache: cache_dir(),
            host_target,
            hidden,
            devices: gpu_devices(),
            disk_mb,
            processes: PROCESSES,
            variables,
        }
    }

    /// Folders that must exist before bubblewrap binds them (it binds only what is there).
    pub(crate) fn make_folders(&self) -> std::io::Result<()> {
        std::fs::create_dir_all(&self.cache)?;
        std::fs::create_dir_all(&self.host_target)
    }

    fn home(&self) -> PathBuf {
        PathBuf::from("/tmp/home")
    }

    /// The variables the cell's processes start with: the grader's that pass, and where the
    /// cell's home, cache and tools are.
    pub(crate) fn environment(&self) -> Vec<(OsString, OsString)> {
        let mut variables = self.variables.clone();
        let mut set = |name: &str, value: OsString| {
            variables.retain(|(n, _)| n != name);
            variables.push((name.into(), value));
        };
        set("HOME", self.home().into());
        set("TMPDIR", "/tmp".into());
        set("RUNNER_CACHE_DIR", self.cache.clone().into());
        // No network inside: cargo builds from what the course's build fetched.
        set("CARGO_NET_OFFLINE", "true".into());
        if let Some(home) = &self.cargo_home {
            set("CARGO_HOME", home.clone().into());
        }
        if let Some(home) = &self.rustup_home {
            set("RUSTUP_HOME", home.clone().into());
        }
        variables
    }

    /// bubblewrap's arguments for `cell` (up to the command), and what the first process inside
    /// sets up.
    pub(crate) fn arguments(&self, cell: &Cell) -> (Vec<OsString>, Setup) {
        let mut a = Args::default();
        a.flags(&[
            "--unshare-all",
            "--die-with-parent",
            "--new-session",
            "--proc",
            "/proc",
            "--dev",
            "/dev",
        ]);
        a.sized_tmpfs(Path::new("/tmp"), self.disk_mb);
        a.system();
        for device in &self.devices {
            a.pair("--dev-bind-try", device, device);
        }
        // bubblewrap's /dev and its /dev/shm are tmpfs in memory, unsized (half the machine's
        // memory each) and writable: a program could fill the host's memory there. /dev/shm
        // gets the cell's cap (CUDA and Python's multiprocessing keep small files there) and
        // /dev turns read-only once the GPU's device files are bound in.
        a.sized_tmpfs(Path::new("/dev/shm"), self.disk_mb);
        a.pair_str("--remount-ro", Path::new("/dev"));
        self.course_view(&mut a, cell);
        for tool in &self.tools {
            a.pair("--ro-bind-try", tool, tool);
        }
        for (home, secrets) in [(&self.cargo_home, CARGO_SECRETS), (&self.rustup_home, &[])] {
            if let Some(home) = home {
                a.pair("--ro-bind", home, home);
                for secret in secrets {
                    a.hide_if_there(&home.join(secret));
                }
            }
        }
        let mut setup = Setup {
            home: Some(self.home()),
            seed_fd: cell.seed_fd,
            solution_fds: cell.solutions.iter().map(|(_, fd)| *fd).collect(),
            processes: self.processes,
            ..Setup::default()
        };
        match cell.trust {
            Trust::Course => {
                a.pair("--bind", &self.cache, &self.cache);
                a.pair("--bind", &self.host_target, &self.host_target);
            }
            Trust::Student => {
                a.pair("--ro-bind", &self.cache, &self.cache);
                a.sized_tmpfs(&self.host_target, self.disk_mb);
                if cell.builds {
                    a.pair("--ro-bind", &self.host_target, Path::new(PREBUILT_SOURCE));
                    setup.prebuilt = Some(Links {
                        from: PREBUILT_SOURCE.into(),
                        to: self.host_target.clone(),
                    });
                }
                if let Some(staged) = &cell.staged {
                    a.pair("--ro-bind", staged, Path::new(STAGED_SOURCE));
                    a.sized_tmpfs(staged, self.disk_mb);
                    setup.staged = Some(Copy {
                        from: STAGED_SOURCE.into(),
                        to: staged.clone(),
                    });
                }
            }
        }
        for shared in &cell.shared {
            a.pair("--bind-try", shared, shared);
        }
        for (from, to) in &cell.read_only {
            a.pair("--ro-bind", from, to);
        }
        for hidden in self
            .hidden
            .iter()
            .chain([&self.course_root.join("solutions")])
        {
            if self.bound(hidden) {
                a.hide_if_there(hidden);
            }
        }
        a.pair_str("--chdir", &self.course_root);
        (a.0, setup)
    }

    /// The course as a check sees it: its entries read-only, a private `.runner/` with the
    /// pristine copies, a private build folder, and the reference solutions only as descriptors.
    fn course_view(&self, a: &mut Args, cell: &Cell) {
        let root = &self.course_root;
        for entry in COURSE_ENTRIES {
            let path = root.join(entry);
            a.pair("--ro-bind-try", &path, &path);
        }
        a.sized_tmpfs(&root.join(".runner"), self.disk_mb);
        let pristine = root.join(".runner").join("pristine");
        a.pair("--ro-bind-try", &pristine, &pristine);
        a.sized_tmpfs(&root.join("target").join("host"), self.disk_mb);
        for (path, fd) in &cell.solutions {
            if path.starts_with(root) {
                a.pair_str("--symlink", Path::new(&format!("/proc/self/fd/{fd}")));
                a.0.push(path.into());
            }
        }
    }

    /// Whether `path` lies inside something bound into the sandbox.
    fn bound(&self, path: &Path) -> bool {
        let course = COURSE_ENTRIES.iter().map(|e| self.course_root.join(e));
        let homes = [&self.cargo_home, &self.rustup_home]
            .into_iter()
            .flatten()
            .cloned();
        course
            .chain(self.tools.iter().cloned())
            .chain(homes)
            .chain([self.cache.clone(), self.host_target.clone()])
            .chain(["/usr", "/etc", "/sys"].map(PathBuf::from))
            .any(|b| path.starts_with(&b) && path != b)
    }
}

/// Processes (and threads) a cell may have: cargo's and rustc's threads, Numba's, a few children.
const PROCESSES: u64 = 512;

/// The GPUs' device files, bound into the sandbox so that a check on a GPU works there.
fn gpu_devices() -> Vec<PathBuf> {
    let Ok(entries) = std::fs::read_dir("/dev") else {
        return Vec::new();
    };
    let mut devices: Vec<PathBuf> = entries
        .flatten()
        .filter(|e| e.file_name().to_string_lossy().starts_with("nvidia"))
        .map(|e| e.path())
        .collect();
    devices.sort();
    devices
}

/// bubblewrap's arguments, built in order (later mounts go over earlier ones).
#[derive(Default)]
struct Args(Vec<OsString>);

impl Args {
    fn flags(&mut self, flags: &[&str]) {
        self.0.extend(flags.iter().map(OsString::from));
    }

    fn pair(&mut self, option: &str, from: &Path, to: &Path) {
        self.0.push(option.into());
        self.0.push(from.into());
        self.0.push(to.into());
    }

    fn pair_str(&mut self, option: &str, value: &Path) {
        self.0.push(option.into());
        self.0.push(value.into());
    }

    fn sized_tmpfs(&mut self, path: &Path, mb: u64) {
        self.0.push("--size".into());
        self.0.push((mb << 20).to_string().into());
        self.pair_str("--tmpfs", path);
    }

    /// Shows a folder as empty and a file as empty; nothing where there is nothing.
    fn hide_if_there(&mut self, path: &Path) {
        match std::fs::metadata(path) {
            Ok(m) if m.is_dir() => self.pair_str("--tmpfs", path),
            Ok(_) => self.pair("--ro-bind", Path::new("/dev/null"), path),
            Err(_) => {}
        }
    }

    /// The system's programs and libraries, read-only; /etc without its secrets. A merged /usr's
    /// links (/bin -> usr/bin) stay links.
    fn system(&mut self) {
        for top in [
            "/usr", "/etc", "/sys", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32",
        ] {
            let path = Path::new(top);
            match std::fs::read_link(path) {
                Ok(target) => self.pair("--symlink", &target, path),
                Err(_) if path.is_dir() => self.pair("--ro-bind", path, path),
                Err(_) => {}
            }
        }
        for secret in ETC_SECRETS {
            self.hide_if_there(&Path::new("/etc").join(secret));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn policy(root: &Path) -> Policy {
        Policy {
            course_root: root.to_path_buf(),
            tools: vec!["/opt/runner/bin".into()],
            cargo_home: None,
            rustup_home: None,
            cache: "/var/cache/runner".into(),
            host_target: root.join("target/host/build"),
            hidden: vec![root.join("grading.toml"), root.join("exercises")],
            devices: Vec::new(),
            disk_mb: 16,
            processes: 64,
            variables: Vec::new(),
        }
    }

    fn text(args: &[OsString]) -> String {
        args.iter()
            .map(|a| a.to_string_lossy().into_owned())
            .collect::<Vec<_>>()
            .join(" ")
    }

    fn student(staged: Option<&str>) -> Cell {
        Cell {
            trust: Trust::Student,
            staged: staged.map(PathBuf::from),
            solutions: vec![("/course/solutions/02_vector_add/vector_add.cu".into(), 105)],
            seed_fd: Some(104),
            shared: Vec::new(),
            read_only: Vec::new(),
            builds: true,
        }
    }

    #[test]
    fn a_students_cell_sees_the_course_less_its_solutions_and_writes_only_its_own_folders() {
        let policy = policy(Path::new("/course"));
        let (args, setup) = policy.arguments(&student(Some("/tmp/runner-grade-x/stage/ann")));
        let args = text(&args);
        for wanted in [
            "--unshare-all --die-with-parent --new-session",
            "--ro-bind-try /course/exercises /course/exercises",
            "--ro-bind-try /course/hostkit /course/hostkit",
            "--size 16777216 --tmpfs /course/.runner",
            "--symlink /proc/self/fd/105 /course/solutions/02_vector_add/vector_add.cu",
            "--ro-bind /var/cache/runner /var/cache/runner",
            "--ro-bind /course/target/host/build /run/runner/prebuilt",
            "--size 16777216 --tmpfs /course/target/host/build",
            "--ro-bind /tmp/runner-grade-x/stage/ann /run/runner/staged",
            "--size 16777216 --tmpfs /tmp/runner-grade-x/stage/ann",
            "--chdir /course",
        ] {
            assert!(args.contains(wanted), "{wanted} not in {args}");
        }
        for unwanted in [
            "/course/solutions ",
            "--bind /var/cache",
            "--ro-bind /course /course",
            "--share-net",
        ] {
            assert!(!args.contains(unwanted), "{unwanted} in {args}");
        }
        assert_eq!(setup.seed_fd, Some(104));
        assert_eq!(setup.solution_fds, vec![105]);
        assert_eq!(
            setup.staged.unwrap().to,
            PathBuf::from("/tmp/runner-grade-x/stage/ann")
        );
        assert_eq!(
            setup.prebuilt.unwrap().to,
            PathBuf::from("/course/target/host/build")
        );
    }

    #[test]
    fn dev_shm_is_capped_and_dev_read_only_after_the_gpus_files_are_bound() {
        let mut policy = policy(Path::new("/course"));
        policy.devices = vec!["/dev/nvidia0".into()];
        let (args, _) = policy.arguments(&student(None));
        let args = text(&args);
        let at = |wanted: &str| {
            args.find(wanted)
                .unwrap_or_else(|| panic!("{wanted} not in {args}"))
        };
        let device = at("--dev-bind-try /dev/nvidia0 /dev/nvidia0");
        let shm = at("--size 16777216 --tmpfs /dev/shm");
        let read_only = at("--remount-ro /dev ");
        assert!(
            at("--dev /dev") < device && device < shm && shm < read_only,
            "{args}"
        );
    }

    #[test]
    fn the_course_check_keeps_its_builds_and_compiles_for_the_class() {
        let policy = policy(Path::new("/course"));
        let mut cell = student(None);
        cell.trust = Trust::Course;
        let (args, setup) = policy.arguments(&cell);
        let args = text(&args);
        assert!(
            args.contains("--bind /var/cache/runner /var/cache/runner"),
            "{args}"
        );
        assert!(
            args.contains("--bind /course/target/host/build /course/target/host/build"),
            "{args}"
        );
        assert!(!args.contains("/run/runner/prebuilt"), "{args}");
        assert_eq!(setup.prebuilt, None);
    }

    #[test]
    fn hidden_paths_inside_a_bound_folder_are_covered_and_others_need_nothing() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path();
        std::fs::create_dir_all(root.join("exercises/grades")).unwrap();
        std::fs::write(root.join("grading.toml"), "seed = 1\n").unwrap();
        let mut policy = policy(root);
        policy.hidden = vec![
            root.join("exercises/grades"),
            root.join("grading.toml"),
            root.join("submissions"),
        ];
        let (args, _) = policy.arguments(&student(None));
        let args = text(&args);
        assert!(
            args.contains(&format!(
                "--tmpfs {}",
                root.join("exercises/grades").display()
            )),
            "{args}"
        );
        // At the course's top, outside every bound entry: not there to hide.
        assert!(!args.contains("grading.toml"), "{args}");
    }

    #[test]
    fn a_tool_is_bound_by_the_folder_it_lives_in() {
        assert_eq!(
            tool_folder(Path::new("/c/.nvrtc/nvidia/cuda_nvrtc/lib/libnvrtc.so.12")),
            Some(PathBuf::from("/c/.nvrtc"))
        );
        assert_eq!(
            tool_folder(Path::new("/c/.cuda-python/bin/python")),
            Some(PathBuf::from("/c/.cuda-python"))
        );
        assert_eq!(
            tool_folder(Path::new("/opt/venv/bin/python")),
            Some(PathBuf::from("/opt/venv"))
        );
        assert_eq!(
            tool_folder(Path::new("/usr/lib/libsimcuda.so")),
            Some(PathBuf::from("/usr/lib"))
        );
    }
}
