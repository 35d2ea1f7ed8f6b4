//! Compile children (`runner __compile --serve`): one serves compiles one after another, has
//! compiled a kernel of its own before its first request comes, and is replaced after a compile
//! that hangs it or makes it run out of memory, so the next compile passes as in a fresh one.

use runner::compile::child::{self, Limits, Stopped};
use runner::compile::nvrtc::Nvrtc;
use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// Far longer than loading NVRTC and one small compile take on any machine.
const PATIENCE: Duration = Duration::from_secs(120);

fn nvrtc() -> Nvrtc {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).parent().unwrap();
    Nvrtc::find(Some(root)).expect("NVRTC (scripts/install-nvrtc installs the course's own)")
}

#[test]
fn a_compile_child_has_compiled_once_before_its_first_request_comes() {
    let nvrtc = nvrtc();
    let mut child = Command::new(env!("CARGO_BIN_EXE_runner"))
        .args(["__compile", "--serve", "4096", "30", &nvrtc.path])
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
        "the compile child never loaded NVRTC's builtins before its first request"
    );
    assert!(status.success(), "{status}");
}

const GOOD: &str = "extern \"C\" __global__ void k(float* x) { x[threadIdx.x] += 1.0f; }\n";

/// A macro bomb: 2^40 tokens once expanded.
fn macro_bomb() -> String {
    let mut text = String::from("#define A0(x) x x\n");
    for level in 1..=40 {
        let below = level - 1;
        text.push_str(&format!("#define A{level}(x) A{below}(x) A{below}(x)\n"));
    }
    text.push_str("__global__ void k(int* c) { int x = 0 A40(+1); c[0] = x; }\n");
    text
}

#[test]
fn one_child_serves_compiles_and_a_fresh_one_follows_a_compile_that_hung_or_filled_it() {
    child::serve_from(PathBuf::from(env!("CARGO_BIN_EXE_runner")));
    let nvrtc = nvrtc();
    let options = vec!["--gpu-architecture=compute_80".to_string()];
    let compile =
        |text: &str, limits: Limits| child::compile(&nvrtc, text, "k.cu", &options, false, limits);
    let compiled = |text: &str, limits: Limits| match compile(text, limits) {
        Ok(Ok(compiled)) => String::from_utf8(compiled.image).unwrap(),
        Ok(Err(rejected)) => panic!("rejected: {}", rejected.log),
        Err(stopped) => panic!("stopped: {stopped:?}"),
    };

    let usual = Limits {
        seconds: 30,
        memory_mb: 4096,
    };
    let before = child::children_started();
    for _ in 0..3 {
        assert!(compiled(GOOD, usual).contains(".entry k"));
    }
    assert_eq!(
        child::children_started() - before,
        1,
        "three compiles, one child"
    );

    // The bomb grows by a few hundred MiB a second: a memory limit it cannot reach in 3 s on
    // any machine, so the time limit is what stops it.
    let short = Limits {
        seconds: 3,
        memory_mb: 65536,
    };
    let before = child::children_started();
    assert!(matches!(
        compile(&macro_bomb(), short),
        Err(Stopped::TimedOut)
    ));
    assert!(compiled(GOOD, short).contains(".entry k"));
    assert!(compiled(GOOD, short).contains(".entry k"));
    assert_eq!(
        child::children_started() - before,
        2,
        "the hung child, then one fresh child for the two compiles after it"
    );

    // A time limit no machine reaches before 400 MiB, so the memory limit is what stops it:
    // NVRTC's own "out of memory", or the allocation that fails ends the child.
    let tight = Limits {
        seconds: 500,
        memory_mb: 400,
    };
    let before = child::children_started();
    match compile(&macro_bomb(), tight) {
        Ok(Err(rejected)) => assert!(rejected.log.contains("out of memory"), "{}", rejected.log),
        Err(Stopped::Crashed {
            out_of_memory: true,
            ..
        }) => {}
        other => panic!(
            "{:?}",
            other.map(|answer| answer.map(|_| "an image").map_err(|r| r.log))
        ),
    }
    assert!(compiled(GOOD, tight).contains(".entry k"));
    assert_eq!(child::children_started() - before, 2);
}
