//! Where cargo put what the driver's tests run: the driver library and the example program.

use std::path::PathBuf;

#[allow(dead_code)] // each test file compiles this module; not every one loads its own driver
pub mod loaded;

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

/// How many of the record's transfers go `direction` with 4000 bytes (one of the example's
/// arrays): `(host_to_device, device_to_host)`.
#[allow(dead_code)] // each test file compiles this module; not every one runs the example
pub fn array_copies(record: &serde_json::Value) -> (usize, usize) {
    let transfers = record["transfers"].as_array().unwrap();
    let count = |direction: &str| {
        transfers
            .iter()
            .filter(|t| t["direction"] == direction && t["bytes"] == 4000)
            .count()
    };
    (count("host_to_device"), count("device_to_host"))
}
