//! The course's `sitecustomize` (python/sitecustomize.py), run by every Python program a check
//! starts: cuda.core's links through the driver's cuLink* get log buffers of 64 KiB, not the
//! 4 MiB each that cuda.core decodes and strips whole after every link (0.2 s a kernel); a Numba
//! error is summed up by the lines that explain it.

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

/// A Numba typing error's message as numba-cuda words it for `math.hypot(x[i], y)` with `y` an
/// array, shortened to the lines the summary needs.
const HYPOT_ERROR: &str = r#"
import sitecustomize, warnings
message = '''No implementation of function Function(<built-in function hypot>) found for signature:
 
 >>> hypot(float32, array(float32, 1d, C))
 
There are 2 candidate implementations:
 - Of which 2 did not match due to:
 Type Restricted Function in function 'hypot': File: unknown: Line unknown.
   With argument(s): '(float32, array(float32, 1d, C))':
  No match for registered cases:
   * (float32, float32) -> float32
   * (float64, float64) -> float64

During: resolving callee type: Function(<built-in function hypot>)

File "grid_stride.py", line 20:
    out[i] = math.hypot(x[i], y)
    ^
'''
print(sitecustomize._what(TypeError(message)))
warnings.warn("Could not find source for function: <function __vectorized_f at 0x1>. Debug line information may be inaccurate.")
"#;

#[test]
fn a_numba_typing_error_is_summed_up_by_the_types_that_explain_it() {
    let site = Path::new(env!("CARGO_MANIFEST_DIR")).join("python");
    let out = Command::new(python())
        .args(["-c", HYPOT_ERROR])
        .env("PYTHONPATH", &site)
        .output()
        .unwrap();
    let (stdout, stderr) = (
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr),
    );
    assert!(out.status.success(), "{stderr}");
    assert_eq!(
        stdout.trim(),
        "TypeError: No implementation of function Function(<built-in function hypot>) found \
         for signature: / >>> hypot(float32, array(float32, 1d, C)) / it takes (float32, \
         float32) -> float32, (float64, float64) -> float64"
    );
    // The warning Numba gives for the kernels it writes itself once the course turns line
    // information on is not the student's to read.
    assert!(!stderr.contains("Could not find source"), "{stderr}");
}
