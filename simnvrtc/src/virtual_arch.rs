//! Machine code asked of NVRTC on the simulator, which runs PTX: a compile for a real
//! architecture (`--gpu-architecture=sm_90`) becomes one for its virtual architecture
//! (`compute_90`), and that program's "CUBIN" is its PTX, which the simulated driver loads as a
//! module. NVIDIA's cuda-samples compile their NVRTC kernels this way (`nvrtc_helper.h`'s
//! `compileFileToCUBIN` then `cuModuleLoadData`). In pass-through mode (`SIMCUDA_BACKEND=gpu`)
//! nothing changes: the GPU runs the machine code.

use std::collections::HashSet;
use std::ffi::{CStr, CString};
use std::sync::{Mutex, OnceLock};

/// Whether the program runs on the simulator (not passed through to a GPU).
pub fn on_the_simulator() -> bool {
    std::env::var("SIMCUDA_BACKEND").map_or(true, |backend| backend != "gpu")
}

/// The options with every real architecture made virtual, where any was: `-arch=sm_80`,
/// `--gpu-architecture=sm_90a`, or the option then `sm_XX` as the next one. None where the
/// options name no real architecture (or only virtual ones).
pub fn virtual_options(options: &[&CStr]) -> Option<Vec<CString>> {
    let mut changed = false;
    let mut after_flag = false;
    let out = options
        .iter()
        .map(|option| {
            let text = option.to_string_lossy();
            let swapped = if after_flag {
                text.strip_prefix("sm_")
                    .map(|arch| format!("compute_{arch}"))
            } else {
                ["-arch=", "--gpu-architecture="].iter().find_map(|flag| {
                    let arch = text.strip_prefix(flag)?.strip_prefix("sm_")?;
                    Some(format!("{flag}compute_{arch}"))
                })
            };
            after_flag = matches!(&*text, "-arch" | "--gpu-architecture");
            match swapped {
                Some(s) => {
                    changed = true;
                    CString::new(s).expect("made from a C string")
                }
                None => CString::from(*option),
            }
        })
        .collect();
    changed.then_some(out)
}

/// The programs compiled for a virtual architecture in place of a real one, by handle: their
/// CUBIN is their PTX.
fn made_virtual() -> &'static Mutex<HashSet<usize>> {
    static MADE: OnceLock<Mutex<HashSet<usize>>> = OnceLock::new();
    MADE.get_or_init(Default::default)
}

/// Notes that program `handle` was compiled for a virtual architecture in place of a real one
/// (`made`), or not.
pub fn note(handle: usize, made: bool) {
    if let Ok(mut set) = made_virtual().lock() {
        if made {
            set.insert(handle);
        } else {
            set.remove(&handle);
        }
    }
}

/// Whether program `handle`'s CUBIN is to be its PTX.
pub fn cubin_is_ptx(handle: usize) -> bool {
    made_virtual().lock().is_ok_and(|set| set.contains(&handle))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn texts(options: &[CString]) -> Vec<&str> {
        options.iter().map(|o| o.to_str().unwrap()).collect()
    }

    #[test]
    fn real_architectures_become_virtual_and_virtual_ones_stay() {
        let made = virtual_options(&[c"--gpu-architecture=sm_90", c"-lineinfo"]).unwrap();
        assert_eq!(texts(&made), ["--gpu-architecture=compute_90", "-lineinfo"]);
        let made = virtual_options(&[c"-arch", c"sm_80", c"-default-device"]).unwrap();
        assert_eq!(texts(&made), ["-arch", "compute_80", "-default-device"]);
        let made = virtual_options(&[c"-arch=sm_90a"]).unwrap();
        assert_eq!(texts(&made), ["-arch=compute_90a"]);
        assert!(virtual_options(&[c"-arch=compute_80", c"-lineinfo"]).is_none());
        assert!(virtual_options(&[c"--std=c++17"]).is_none());
    }

    #[test]
    fn a_program_made_virtual_is_remembered_until_noted_otherwise() {
        note(7, true);
        assert!(cubin_is_ptx(7));
        assert!(!cubin_is_ptx(8));
        note(7, false);
        assert!(!cubin_is_ptx(7));
    }
}
