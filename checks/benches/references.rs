//! The CPU references of every exercise on its largest simulator-sized case: the host-side cost
//! a check adds to each run (the large GPU timing cases are timed by `runner bench` instead).

use checks::{cases_for, known_ids, CaseOptions};
use criterion::{criterion_group, criterion_main, Criterion};
use std::hint::black_box;

fn references(c: &mut Criterion) {
    let mut group = c.benchmark_group("cpu_reference");
    group.sample_size(10);
    for id in known_ids() {
        let cases = cases_for(id, &CaseOptions::default()).expect("every known id has cases");
        let largest = cases
            .iter()
            .max_by_key(|case| case.bytes_moved)
            .expect("cases");
        group.bench_function(id, |b| b.iter(|| black_box(largest.expected())));
    }
    group.finish();
}

criterion_group!(benches, references);
criterion_main!(benches);
