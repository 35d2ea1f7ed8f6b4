//! Watched launches: the store that wrote an element is named (thread, block, line, value, the
//! instruction that computed it and where its operands were loaded), an element nobody wrote
//! says so, and two runs are compared store by store.

use super::common::*;
use sim::{
    origin_of, thread_divergence, Closeness, ElementStores, Launch, Limits, Machine, NamedBuffer,
    Parting, Scalar, Step, ThreadTrace, Watch, Watched, WatchedElement, WatchedThread,
};

const CLOSE: Closeness = Closeness {
    abs: 1e-6,
    rel: 1e-5,
};

fn params(args: &[Arg]) -> Vec<Vec<u8>> {
    args.iter()
        .map(|a| match a {
            Arg::Ptr(p) => p.to_le_bytes().to_vec(),
            Arg::I32(v) => v.to_le_bytes().to_vec(),
            Arg::U32(v) => v.to_le_bytes().to_vec(),
            Arg::F32(v) => v.to_le_bytes().to_vec(),
        })
        .collect()
}

fn watched(
    gpu: &mut Machine,
    kernel: &str,
    grid: u32,
    args: &[Arg],
    watch: &Watch,
) -> Vec<ElementStores> {
    traced(gpu, kernel, grid, args, watch).elements
}

fn traced(gpu: &mut Machine, kernel: &str, grid: u32, args: &[Arg], watch: &Watch) -> Watched {
    let launch = Launch {
        kernel: kernel.into(),
        grid: [grid, 1, 1],
        block: [32, 1, 1],
        dynamic_shared_bytes: 0,
        params: params(args),
        limits: Limits::default(),
    };
    let (report, stores) = gpu
        .launch_watched(&module("provenance"), &launch, watch)
        .unwrap_or_else(|e| panic!("{kernel}: {e}"));
    assert!(!report.aborted, "{:?}", report.diagnostics);
    stores
}

fn buffer(name: &str, address: u64, elements: usize) -> NamedBuffer {
    NamedBuffer {
        name: name.into(),
        address,
        bytes: 4 * elements as u64,
        element_bytes: 4,
    }
}

fn element(base: u64, index: u64) -> WatchedElement {
    WatchedElement {
        address: base + 4 * index,
        bytes: 4,
    }
}

#[test]
fn the_store_that_wrote_an_element_is_named_with_its_operands() {
    let mut gpu = Machine::new();
    let n = 40;
    let a: Vec<f32> = (0..n).map(|i| i as f32 * 0.5).collect();
    let da = upload(&mut gpu, &a);
    let dout = gpu.alloc(4 * n as u64);
    let watch = Watch {
        elements: vec![element(dout, 37), element(dout, 39)],
        buffers: vec![buffer("a", da, n), buffer("out", dout, n)],
        threads: Vec::new(),
    };
    let args = [Arg::Ptr(da), Arg::Ptr(dout), Arg::I32(n as i32)];
    let stores = watched(&mut gpu, "scale_shifted", 2, &args, &watch);

    let out37 = &stores[0];
    assert_eq!(out37.count, 1);
    let store = out37.last().expect("element 37 was written");
    assert_eq!(store.thread, [5, 0, 0]);
    assert_eq!(store.block, [1, 0, 0]);
    let line = store.location.as_ref().expect("line information").line;
    assert_eq!(line, line_of("provenance", "// STORE"));
    assert_eq!(store.instruction, "st.global.f32");
    assert_eq!(store.ty, Scalar::F32);
    assert!(store.whole);
    assert_eq!(f32::from_bits(store.bits as u32), a[38] * 2.0);
    let computed = store
        .computed_by
        .as_ref()
        .expect("the computation is known");
    assert_eq!(computed.instruction, "add.f32");
    assert_eq!(computed.operands.len(), 2);
    for operand in &computed.operands {
        assert_eq!(operand.bits, Some(a[38].to_bits() as u64));
        let from = operand
            .loaded_from
            .as_ref()
            .expect("a load made the operand");
        assert_eq!(from.to_string(), "a[38]");
    }

    // The guard stops thread 39: nobody writes the last element.
    assert_eq!(stores[1].count, 0);
    assert!(stores[1].last().is_none());
}

#[test]
fn a_negative_int_is_shown_as_the_int_its_computation_made() {
    let mut gpu = Machine::new();
    let n = 8;
    let a: Vec<i32> = (0..n as i32).collect();
    let b: Vec<i32> = a.iter().map(|x| x + 3).collect();
    let (da, db) = (upload(&mut gpu, &a), upload(&mut gpu, &b));
    let dout = gpu.alloc(4 * n as u64);
    let watch = Watch {
        elements: vec![element(dout, 5)],
        buffers: vec![
            buffer("a", da, n),
            buffer("b", db, n),
            buffer("out", dout, n),
        ],
        threads: Vec::new(),
    };
    let args = [
        Arg::Ptr(da),
        Arg::Ptr(db),
        Arg::Ptr(dout),
        Arg::I32(n as i32),
    ];
    let stores = watched(&mut gpu, "differences", 1, &args, &watch);
    let store = stores[0].last().expect("element 5 was written");
    // The store is unsigned in the PTX; the value is the sub.s32's.
    assert_eq!(store.instruction, "st.global.u32");
    assert_eq!(store.ty, Scalar::S32);
    assert_eq!(store.ty.show(store.bits), "-3");
    let computed = store
        .computed_by
        .as_ref()
        .expect("the computation is known");
    assert_eq!(computed.instruction, "sub.s32");
}

#[test]
fn atomics_are_counted_with_the_value_each_left() {
    let mut gpu = Machine::new();
    let data: Vec<i32> = (0..64).map(|i| if i % 4 == 0 { 1 } else { -1 }).collect();
    let dd = upload(&mut gpu, &data);
    let dcount = gpu.alloc(4);
    let watch = Watch {
        elements: vec![element(dcount, 0)],
        buffers: vec![buffer("count", dcount, 1)],
        threads: Vec::new(),
    };
    let args = [Arg::Ptr(dd), Arg::Ptr(dcount), Arg::I32(64)];
    let stores = watched(&mut gpu, "count_positive", 2, &args, &watch);
    assert_eq!(stores[0].count, 16);
    let last = stores[0].last().unwrap();
    assert_eq!(last.bits, 16);
    assert_eq!(last.thread, [28, 0, 0]);
    assert_eq!(last.block, [1, 0, 0]);
    assert!(last.instruction.starts_with("atom.global.add"));
    let line = last.location.as_ref().unwrap().line;
    assert_eq!(line, line_of("provenance", "// ATOMIC"));
}

#[test]
fn two_runs_are_compared_store_by_store() {
    let mut gpu = Machine::new();
    let n = 32;
    let a: Vec<f32> = (0..n).map(|i| i as f32).collect();
    let da = upload(&mut gpu, &a);
    let dout = gpu.alloc(4 * n as u64);
    let watch = |out| Watch {
        elements: vec![element(out, 3)],
        buffers: vec![buffer("a", da, n), buffer("out", out, n)],
        threads: Vec::new(),
    };
    let args = |out| [Arg::Ptr(da), Arg::Ptr(out), Arg::I32(n as i32)];
    let two = watched(&mut gpu, "two_passes", 1, &args(dout), &watch(dout));
    assert_eq!(two[0].count, 2);
    let first = &two[0].first[0];
    assert_eq!(
        first.location.as_ref().unwrap().line,
        line_of("provenance", "// FIRST")
    );
    assert_eq!(f32::from_bits(two[0].last().unwrap().bits as u32), 4.0);

    // Against a run that stores twice the value once, the first store is where they part.
    let other = gpu.alloc(4 * n as u64);
    let once = watched(&mut gpu, "scale_shifted", 1, &args(other), &watch(other));
    let origin = origin_of(&two[0], Some(&once[0]), CLOSE);
    let part = origin.first_difference.expect("the runs differ");
    assert_eq!(part.number, 1);
    assert_eq!(f32::from_bits(part.student.unwrap().bits as u32), 3.0);
    assert_eq!(f32::from_bits(part.reference.unwrap().bits as u32), 8.0);
    assert_eq!(origin.student.count, 2);
    assert_eq!(origin.reference.unwrap().count, 1);

    // A run compared with itself does not differ.
    let same = origin_of(&two[0], Some(&two[0]), CLOSE);
    assert!(same.first_difference.is_none());
}

/// Thread 5 of block 0's steps in `row_sums` over a 12 x 12 matrix, stopping `short_by` short.
fn row_sums_of_thread_5(short_by: i32) -> ThreadTrace {
    let mut gpu = Machine::new();
    let n = 12;
    let a: Vec<f32> = (0..n * n).map(|i| i as f32 * 0.25).collect();
    let da = upload(&mut gpu, &a);
    let dout = gpu.alloc(4 * n as u64);
    let thread = WatchedThread {
        block: [0, 0, 0],
        thread: [5, 0, 0],
    };
    let watch = Watch {
        elements: vec![element(dout, 5)],
        buffers: vec![buffer("a", da, n * n), buffer("out", dout, n)],
        threads: vec![thread],
    };
    let args = [
        Arg::Ptr(da),
        Arg::Ptr(dout),
        Arg::I32(n as i32),
        Arg::I32(short_by),
    ];
    let mut run = traced(&mut gpu, "row_sums", 1, &args, &watch);
    assert_eq!(run.threads.len(), 1);
    run.threads.remove(0)
}

#[test]
fn a_watched_thread_records_its_loads_stores_and_branches() {
    let trace = row_sums_of_thread_5(0);
    let places: Vec<String> = trace
        .steps
        .iter()
        .filter_map(|s| match s {
            Step::Memory(m) => Some(m.place.to_string()),
            Step::Branch(_) => None,
        })
        .collect();
    let mut want: Vec<String> = (0..12).map(|k| format!("a[{}]", 5 * 12 + k)).collect();
    want.push("out[5]".into());
    assert_eq!(places, want);
    let branches = trace.steps.iter().filter(|s| matches!(s, Step::Branch(_)));
    assert!(branches.count() >= 2, "{:?}", trace.steps);
    // Another thread of the same launch is not followed.
    assert!(!trace.cut);
}

#[test]
fn a_loop_that_stops_one_element_early_is_where_two_runs_part() {
    let (short, full) = (row_sums_of_thread_5(1), row_sums_of_thread_5(0));
    let part = thread_divergence(&short, &full, CLOSE).expect("the runs part");
    assert_eq!(part.parting, Parting::StudentStops);
    assert_eq!(part.agreed, 11);
    assert!(part.student.is_none());
    let last = part.student_last.expect("the student's last read");
    assert_eq!(last.place.to_string(), "a[70]");
    let next = part.reference.expect("the solution's next read");
    assert_eq!(next.place.to_string(), "a[71]");
    assert_eq!(
        next.location.unwrap().line,
        line_of("provenance", "// READ")
    );
    let branch = part.student_branch.expect("a branch before the parting");
    assert!(branch.condition.is_some(), "{branch:?}");
    // The other way round, the longer run goes on where the shorter stops.
    let other = thread_divergence(&full, &short, CLOSE).expect("the runs part");
    assert_eq!(other.parting, Parting::StudentGoesOn);
    assert_eq!(other.student.unwrap().place.to_string(), "a[71]");
    // A run compared with itself does not part.
    assert!(thread_divergence(&full, &full, CLOSE).is_none());
}

/// A trace of loads of `a` at `indices`, each with the value `index / 2`.
fn loads(indices: &[u64]) -> ThreadTrace {
    let mut trace = ThreadTrace::new(WatchedThread {
        block: [0; 3],
        thread: [0; 3],
    });
    trace.steps = indices
        .iter()
        .map(|&i| {
            Step::Memory(sim::MemoryStep {
                access: sim::Access::Load,
                place: sim::Place {
                    space: sim::Space::Global,
                    address: 0x1000 + 4 * i,
                    name: Some("a".into()),
                    index: Some(i),
                },
                ty: Scalar::F32,
                bits: (i as f32 / 2.0).to_bits() as u64,
                location: None,
                instruction: "ld.global.f32".into(),
            })
        })
        .collect();
    trace
}

#[test]
fn steps_one_run_leaves_out_before_both_go_on_alike_are_named_as_left_out() {
    // A tree that leaves out its last step, then both runs go on to the next phase.
    let (mine, theirs) = (loads(&[8, 4, 2, 8, 4, 2]), loads(&[8, 4, 2, 1, 8, 4, 2, 1]));
    let part = thread_divergence(&mine, &theirs, CLOSE).expect("the runs part");
    assert_eq!(part.parting, Parting::StudentSkips);
    assert_eq!(part.left_out, 1);
    assert_eq!(part.agreed, 3);
    assert_eq!(part.student_last.unwrap().place.index, Some(2));
    assert_eq!(part.reference.unwrap().place.index, Some(1));
    // The other way round, the student's run adds the step.
    let other = thread_divergence(&theirs, &mine, CLOSE).expect("the runs part");
    assert_eq!(other.parting, Parting::StudentAdds);
    // Elements that never line up again are a different place, not steps left out.
    let shifted = thread_divergence(&loads(&[9, 5, 3, 7]), &theirs, CLOSE).unwrap();
    assert_eq!(shifted.parting, Parting::Place);
}
