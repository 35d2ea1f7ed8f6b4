//! The record cut between the parts of a process (hostkit's case runner runs a check's cases in
//! one Python interpreter): each part's record holds its own calls and copies on a timeline of
//! its own, and the driver starts as a new process only where nothing of the last part stays.

mod common;

use common::loaded::Loaded;
use cudarc::driver::sys::cudaError_enum as E;
use std::ffi::{c_char, c_int, c_void, CString};
use std::path::Path;

type Ptr = *mut c_void;

/// The driver's cut entry points and the few calls a part makes.
struct Driver {
    library: Loaded,
}

impl Driver {
    fn cut(&self, path: &Path) -> serde_json::Value {
        let path = CString::new(path.to_str().unwrap()).unwrap();
        // SAFETY: the export's signature; a NUL-terminated path.
        let written = unsafe {
            let cut: unsafe extern "C" fn(*const c_char) -> c_int =
                self.library.get("simcudaCutRecord");
            cut(path.as_ptr())
        };
        assert_eq!(written, 0);
        let text = std::fs::read_to_string(path.to_str().unwrap()).unwrap();
        serde_json::from_str(&text).unwrap()
    }

    fn start_afresh(&self) -> c_int {
        // SAFETY: the export's signature.
        unsafe {
            let start: unsafe extern "C" fn() -> c_int = self.library.get("simcudaStartAfresh");
            start()
        }
    }

    /// Copies 4 KiB to a new allocation, on `stream` (null: the default stream's copy).
    fn copy_in(&self, stream: Ptr) {
        let data = [1u8; 4096];
        // SAFETY: the driver API's signatures, valid pointers.
        unsafe {
            let alloc: unsafe extern "C" fn(*mut u64, usize) -> E =
                self.library.get("cuMemAlloc_v2");
            let copy: unsafe extern "C" fn(u64, *const c_void, usize, Ptr) -> E =
                self.library.get("cuMemcpyHtoDAsync_v2");
            let mut at = 0u64;
            assert_eq!(alloc(&mut at, data.len()), E::CUDA_SUCCESS);
            assert_eq!(
                copy(at, data.as_ptr().cast(), data.len(), stream),
                E::CUDA_SUCCESS
            );
        }
    }

    fn stream(&self) -> Ptr {
        let mut stream: Ptr = std::ptr::null_mut();
        // SAFETY: the driver API's signature, a valid pointer.
        unsafe {
            let create: unsafe extern "C" fn(*mut Ptr, u32) -> E =
                self.library.get("cuStreamCreate");
            assert_eq!(create(&mut stream, 0), E::CUDA_SUCCESS);
        }
        stream
    }

    fn destroy(&self, stream: Ptr) {
        // SAFETY: the driver API's signature, a stream this driver made.
        unsafe {
            let destroy: unsafe extern "C" fn(Ptr) -> E = self.library.get("cuStreamDestroy_v2");
            assert_eq!(destroy(stream), E::CUDA_SUCCESS);
        }
    }
}

#[test]
fn each_part_of_a_process_gets_its_own_record_and_a_new_process_start_where_nothing_stays() {
    let dir = tempfile::tempdir().unwrap();
    let driver = Driver {
        library: Loaded::with_context(),
    };
    // A new process's first stream, and where its first copy starts.
    let first = driver.stream();
    driver.copy_in(first);
    let alone = driver.cut(&dir.path().join("alone.json"));
    assert_eq!(alone["calls"]["cuInit"], 1);
    assert_eq!(alone["transfers"].as_array().unwrap().len(), 1);
    let (first_stream, first_start) = (
        alone["transfers"][0]["stream"].clone(),
        alone["transfers"][0]["start_us"].clone(),
    );

    // The stream still lives: a part started now would see it (and number its own after it).
    assert_eq!(driver.start_afresh(), 0);
    driver.destroy(first);
    assert_eq!(driver.start_afresh(), 1);

    // The next part: its record holds only its own calls, its stream has the number a new
    // process's first stream has, and its copy starts where that process's would.
    let second = driver.stream();
    driver.copy_in(second);
    let part = driver.cut(&dir.path().join("part.json"));
    assert_eq!(part["calls"].get("cuInit"), None);
    assert_eq!(part["calls"]["cuStreamCreate"], 1);
    assert_eq!(part["transfers"].as_array().unwrap().len(), 1);
    assert_eq!(part["transfers"][0]["stream"], first_stream);
    assert_eq!(part["transfers"][0]["start_us"], first_start);
    assert_eq!(part["version"], alone["version"]);
    // The first part's allocation is still there, but it is not this part's leak.
    assert_eq!(part["leaked_bytes"], alone["leaked_bytes"]);
}
