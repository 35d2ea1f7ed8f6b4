//! The course's `sitecustomize` (python/sitecustomize.py), run by every Python program a check
//! starts: cuda.core's links through the driver's cuLink* get log buffers of 64 KiB, not the
//! 4 MiB each that cuda.core decodes and strips whole after every link (0.2 s a kernel).

use std::path::{Path, PathBuf};
use std::process::Command;

/// The log buffer sizes LinkerOptions hands the driver, as the program prints them.
const SIZES: &str = r#"
from cuda.core import LinkerOptions
values, keys = LinkerOptions(arch="sm_90")._prepare_driver_options()
print([len(v) if isinstance(v, bytearray) else v
       for k, v in zip(keys, values) if "LOG_BUFFER" in k.name])
"#;

/// The course's CUDA Python environment (scripts/install-cuda-python).
fn python() -> PathBuf {
    let python = Path::new(env!("CARGO_MANIFEST_DIR")).join("../.cuda-python/bin/python");
    assert!(
        python.exists(),
        "CUDA Python is not installed in .cuda-python/: run scripts/test-setup"
    );
    python
}

fn log_buffers(python_path: &Path) -> String {
    let out = Command::new(python())
        .args(["-W", "ignore", "-c", SIZES])
        .env("PYTHONPATH", python_path)
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).unwrap().trim().to_string()
}

#[test]
fn a_link_through_the_driver_gets_small_log_buffers_under_the_courses_site() {
    let site = Path::new(env!("CARGO_MANIFEST_DIR")).join("python");
    assert_eq!(log_buffers(&site), "[65536, 65536, 65536, 65536]");
    // Without the course's site, cuda.core's own sizes: what the patch replaces is still there.
    let nowhere = std::env::temp_dir().join("hostkit-no-site");
    assert_eq!(
        log_buffers(&nowhere),
        "[4194304, 4194304, 4194304, 4194304]"
    );
}
