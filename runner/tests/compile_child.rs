//! A compile child started ahead (`runner __compile --warm`, as `runner watch`'s and the
//! grader's workers keep them) has compiled a kernel of its own before its request comes, so the
//! request does not wait for NVRTC's first-compile set-up: NVRTC loads its builtins library only
//! then, so the child's memory map shows it.

use std::io::Write;
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// Far longer than loading NVRTC and one small compile take on any machine.
const PATIENCE: Duration = Duration::from_secs(120);

#[test]
fn a_warm_compile_child_has_compiled_once_before_its_request_comes() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).parent().unwrap();
    let nvrtc = runner::compile::nvrtc::Nvrtc::find(Some(root))
        .expect("NVRTC (scripts/install-nvrtc installs the course's own)");
    let mut child = Command::new(env!("CARGO_BIN_EXE_runner"))
        .args(["__compile", "--warm", "4096", "30", &nvrtc.path])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let maps = format!("/proc/{}/maps", child.id());
    let started = Instant::now();
    let primed = loop {
        let mapped = std::fs::read_to_string(&maps).unwrap_or_default();
        if mapped.contains("nvrtc-builtins") {
            break true;
        }
        if started.elapsed() > PATIENCE || child.try_wait().unwrap().is_some() {
            break false;
        }
        std::thread::sleep(Duration::from_millis(20));
    };
    // End of input with no request: the child ends.
    let mut stdin = child.stdin.take().unwrap();
    let _ = stdin.flush();
    drop(stdin);
    let status = child.wait().unwrap();
    assert!(
        primed,
        "the warm child never loaded NVRTC's builtins while it waited"
    );
    assert!(status.success(), "{status}");
}
