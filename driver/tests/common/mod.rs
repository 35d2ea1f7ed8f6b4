//! Where cargo put what the driver's tests run: the driver library and the example program.

use std::path::PathBuf;

/// target/<profile>/.
pub fn build_dir() -> PathBuf {
    let exe = std::env::current_exe().unwrap();
    exe.parent().unwrap().parent().unwrap().to_path_buf()
}

/// The driver library: in deps/ after `cargo test`, beside it after `cargo build`.
pub fn driver_library() -> PathBuf {
    let build = build_dir();
    let candidates = [
        build.join("deps/libsimcuda.so"),
        build.join("libsimcuda.so"),
    ];
    let found = candidates.iter().find(|p| p.exists());
    found
        .cloned()
        .expect("libsimcuda.so is built by cargo test -p simdriver")
}
