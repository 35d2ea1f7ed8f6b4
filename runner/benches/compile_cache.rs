//! A compile-cache hit: what `runner check` pays for compiling when the student's file has not
//! changed since the last check (hashing the source and options, reading the cached module).
//! Needs NVRTC (scripts/install-nvrtc) for the one real compile that fills the cache.

use criterion::{criterion_group, criterion_main, Criterion};
use runner::compile::{Compiler, Source, Target};
use std::hint::black_box;
use std::path::Path;

fn cache_hit(c: &mut Criterion) {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"))
        .parent()
        .expect("the course root");
    let cache = tempfile::tempdir().expect("a temporary cache folder");
    std::env::set_var("RUNNER_CACHE_DIR", cache.path());
    let compiler = Compiler::new(Some(root)).expect("NVRTC: run scripts/install-nvrtc first");
    let path = root.join("solutions/02_vector_add/vector_add.cu");
    let text = std::fs::read_to_string(&path).expect("the vector add solution");
    let source = Source {
        name: "solutions/02_vector_add/vector_add.cu",
        text: &text,
    };
    let target = Target::Ptx { arch: 80 };
    let first = compiler
        .compile(&source, &target)
        .expect("the solution compiles");
    assert!(!first.from_cache);
    c.bench_function("compile_cache_hit", |b| {
        b.iter(|| {
            let image = compiler
                .compile(black_box(&source), &target)
                .expect("cached");
            assert!(image.from_cache);
            image
        })
    });
}

criterion_group!(benches, cache_hit);
criterion_main!(benches);
