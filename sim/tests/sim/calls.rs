//! Calls the simulator does not inline as written: through function pointers, and to the device
//! heap's `malloc` and `free`.

use super::common::*;
use sim::{DiagnosticKind, Launch, Machine};

fn no_diagnostics(r: &sim::LaunchReport) {
    assert!(
        r.diagnostics.is_empty() && !r.aborted,
        "{:#?}",
        r.diagnostics
    );
}

fn launch_report(
    m: &mut Machine,
    module: &sim::Module,
    kernel: &str,
    args: &[u64],
) -> sim::LaunchReport {
    let params = args.iter().map(|a| a.to_le_bytes().to_vec()).collect();
    m.launch(module, &Launch::new(kernel, [1, 1, 1], [32, 1, 1], params))
        .unwrap_or_else(|e| panic!("{kernel}: {e}"))
}

#[test]
fn a_call_through_a_pointer_runs_the_function_the_pointer_holds() {
    let module = module("function_pointer");
    let mut m = Machine::new();
    let out = upload(&mut m, &[0u32; 32]);
    for (which, factor) in [(0, 2), (1, 3)] {
        no_diagnostics(&launch(
            &mut m,
            &module,
            "apply",
            [1, 1, 1],
            [32, 1, 1],
            &[Arg::Ptr(out), Arg::I32(which)],
        ));
        assert_eq!(
            download_u32(&m, out, 32),
            (0..32).map(|t| factor * t).collect::<Vec<u32>>(),
            "ops[{which}]"
        );
    }
    // Lanes of one warp holding different pointers each reach their own function.
    no_diagnostics(&launch(
        &mut m,
        &module,
        "alternate",
        [1, 1, 1],
        [32, 1, 1],
        &[Arg::Ptr(out)],
    ));
    let expect: Vec<u32> = (0..32)
        .map(|t| if t % 2 == 1 { 3 * t } else { 2 * t })
        .collect();
    assert_eq!(download_u32(&m, out, 32), expect);
    // A pointer the host read from the table, as cudaMemcpyFromSymbol gives it.
    let (table, _) = m
        .symbol(&module, "ops")
        .unwrap()
        .expect("ops is a variable");
    let thrice = download_u64(&m, table + 8, 1)[0];
    no_diagnostics(&launch_report(
        &mut m,
        &module,
        "call_given",
        &[out, thrice],
    ));
    assert_eq!(
        download_u32(&m, out, 32),
        (0..32).map(|t| 3 * t).collect::<Vec<u32>>()
    );
}

#[test]
fn a_call_through_a_pointer_to_no_function_stops_the_kernel() {
    let module = module("function_pointer");
    let mut m = Machine::new();
    let out = upload(&mut m, &[0u32; 32]);
    let r = launch_report(&mut m, &module, "call_given", &[out, 0x1234]);
    assert!(
        r.diagnostics.iter().any(|d| d.kind == DiagnosticKind::Trap
            && d.location
                .as_ref()
                .is_some_and(|l| l.line == line_of("function_pointer", "GIVEN POINTER"))),
        "{:?}",
        r.diagnostics
    );
}

#[test]
fn malloc_gives_each_thread_an_aligned_block_and_free_takes_it_back() {
    let module = module("device_heap");
    let mut m = Machine::new();
    let n = 100;
    let input: Vec<i32> = (0..n).map(|i| i * 7).collect();
    let din = upload(&mut m, &input);
    let out = upload(&mut m, &vec![0u32; 2 * n as usize]);
    // Four blocks of 64 threads, each thread's block freed before the next launch: 20 launches
    // of 400 threads x 16 bytes would pass 8 MB only if free gave nothing back.
    for _ in 0..20 {
        let r = launch(
            &mut m,
            &module,
            "scratch",
            [2, 1, 1],
            [64, 1, 1],
            &[Arg::Ptr(din), Arg::Ptr(out), Arg::I32(n)],
        );
        no_diagnostics(&r);
    }
    let got = download_u32(&m, out, 2 * n as usize);
    for i in 0..n as usize {
        assert_eq!(got[2 * i] as i32, 2 * input[i] + 3, "thread {i}'s sum");
        assert_eq!(got[2 * i + 1], 0, "thread {i}'s block is 16-byte aligned");
    }
}

#[test]
fn a_block_lives_from_one_launch_to_the_next_and_the_heap_has_a_size() {
    let module = module("device_heap");
    let mut m = Machine::new();
    let slot = upload(&mut m, &[0u64]);
    let out = upload(&mut m, &[0u64]);
    no_diagnostics(&launch(
        &mut m,
        &module,
        "keep",
        [1, 1, 1],
        [1, 1, 1],
        &[Arg::Ptr(slot), Arg::I32(41)],
    ));
    assert_ne!(download_u64(&m, slot, 1)[0], 0, "malloc gave a block");
    no_diagnostics(&launch(
        &mut m,
        &module,
        "release",
        [1, 1, 1],
        [1, 1, 1],
        &[Arg::Ptr(slot), Arg::Ptr(out)],
    ));
    assert_eq!(download_u32(&m, out, 1)[0], 41);
    // 1 TiB is more than the 8 MB heap: malloc answers null, as on a GPU.
    m.write(out, &[0xff; 8]).unwrap();
    no_diagnostics(&launch(
        &mut m,
        &module,
        "too_much",
        [1, 1, 1],
        [1, 1, 1],
        &[Arg::Ptr(out)],
    ));
    assert_eq!(download_u64(&m, out, 1)[0], 0);
}

#[test]
fn freeing_what_malloc_never_gave_stops_the_kernel_at_that_line() {
    let module = module("device_heap");
    let mut m = Machine::new();
    let out = upload(&mut m, &[0u32; 4]);
    let r = launch_report(&mut m, &module, "free_stranger", &[out]);
    let d = r.diagnostics.first().expect("a diagnostic");
    assert_eq!(d.kind, DiagnosticKind::Trap);
    assert!(
        d.message.contains("not an address malloc returned"),
        "{}",
        d.message
    );
    assert_eq!(
        d.location.as_ref().map(|l| l.line),
        Some(line_of("device_heap", "BUG: not from malloc"))
    );
}

/// Numba declares a C-ABI `void` function as returning a value (`.extern .func (.param .b64
/// func_retval0) consume(...)`) and calls it so, while the function linked in returns nothing: a
/// GPU's linker takes that, so the simulator runs the call (the body's store lands) and refuses
/// only a call whose parameters do not match.
#[test]
fn a_call_expecting_a_value_from_a_void_function_runs() {
    let body = ".visible .func consume(.param .b64 consume_param_0)\n{\n\
                .reg .b32 %r<2>;\n.reg .b64 %rd<2>;\n\
                ld.param.u64 %rd1, [consume_param_0];\nmov.u32 %r1, 42;\n\
                st.global.u32 [%rd1], %r1;\nret;\n}\n";
    let kernel = |args: &str| {
        format!(
            ".version 8.0\n.target sm_80\n.address_size 64\n{body}\
             .visible .entry k(.param .u64 out)\n{{\n.reg .b64 %rd<2>;\n\
             ld.param.u64 %rd1, [out];\n{{\n.param .b64 param0;\n\
             st.param.b64 [param0], %rd1;\n.param .b64 retval0;\n\
             call.uni (retval0), consume, ({args});\n}}\nret;\n}}\n"
        )
    };
    let module = sim::Module::parse(&kernel("param0")).expect("the call is taken");
    let mut m = Machine::new();
    let out = upload(&mut m, &[0u32]);
    no_diagnostics(&launch_report(&mut m, &module, "k", &[out]));
    assert_eq!(download_u32(&m, out, 1), [42]);
    assert!(
        sim::Module::parse(&kernel("param0, param0")).is_err(),
        "a parameter too many is still refused"
    );
}
