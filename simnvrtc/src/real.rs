//! NVIDIA's NVRTC, loaded once from `SIMNVRTC_REAL` (an absolute path: this library is on the
//! program's library path as `libnvrtc.so`, so a search by name would find it again), and its
//! entry points by name.

use std::sync::OnceLock;

/// The variable that names NVIDIA's library.
pub(crate) const REAL_VARIABLE: &str = "SIMNVRTC_REAL";

fn library() -> Option<&'static libloading::Library> {
    static REAL: OnceLock<Option<libloading::Library>> = OnceLock::new();
    REAL.get_or_init(|| {
        let loaded = match std::env::var_os(REAL_VARIABLE) {
            // SAFETY: NVIDIA's NVRTC, whose initialisers are those of any program using it.
            Some(path) => unsafe { libloading::Library::new(&path) }
                .map_err(|e| format!("cannot load {}: {e}", path.to_string_lossy())),
            None => Err(format!("{REAL_VARIABLE} is not set")),
        };
        // Said once, on stderr, where the program's own NVRTC error would leave the cause out.
        loaded
            .map_err(|why| {
                eprintln!(
                    "simnvrtc: {why}; the course's NVRTC forwards to NVIDIA's: run \
                     `runner doctor` to see which one the runner finds"
                )
            })
            .ok()
    })
    .as_ref()
}

/// NVIDIA's entry point `name` (NUL-terminated), as the function type `F`; None where the library
/// could not be loaded or has no such entry point (an older NVRTC).
///
/// # Safety
/// `F` must be the entry point's C signature.
pub(crate) unsafe fn symbol<F: Copy>(name: &[u8]) -> Option<F> {
    // SAFETY: the caller gives the entry point's own signature.
    library().and_then(|lib| unsafe { lib.get::<F>(name) }.ok().map(|s| *s))
}
