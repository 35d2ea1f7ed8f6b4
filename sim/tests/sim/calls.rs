//! Calls the simulator does not inline as written: through function pointers.

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
