//! The public API: memory, module variables, launch validation and errors.

use super::common::*;
use sim::{Launch, Limits, Machine, Module, SimError};

#[test]
fn allocations_are_aligned_and_far_apart() {
    let mut gpu = Machine::new();
    let a = gpu.alloc(100);
    let b = gpu.alloc(1);
    assert_eq!(a % 256, 0);
    assert_eq!(b % 256, 0);
    assert!(
        b - a >= 1 << 20,
        "a gap between allocations catches indexes that run off one"
    );
    gpu.write(a, &[1, 2, 3]).unwrap();
    assert_eq!(gpu.read(a, 3).unwrap(), vec![1, 2, 3]);
    assert_eq!(
        gpu.read(a + 3, 2).unwrap(),
        vec![0, 0],
        "memory starts zeroed"
    );
    assert!(matches!(
        gpu.write(a + 99, &[0, 0]),
        Err(SimError::BadAccess { .. })
    ));
    assert!(matches!(
        gpu.read(a + 100, 1),
        Err(SimError::BadAccess { .. })
    ));
    gpu.free(a);
    assert!(gpu.read(a, 1).is_err(), "freed memory is gone");
    assert!(matches!(
        gpu.try_alloc(1 << 40),
        Err(SimError::OutOfMemory { .. })
    ));
}

#[test]
fn launch_errors() {
    let m = module("vector_add");
    let mut gpu = Machine::new();
    let p = |v: u64| v.to_le_bytes().to_vec();
    let ok = vec![p(0), p(0), p(0), 0i32.to_le_bytes().to_vec()];
    let err = |l: Launch, gpu: &mut Machine| gpu.launch(&m, &l).unwrap_err();
    let e = err(
        Launch::new("nope", [1, 1, 1], [32, 1, 1], ok.clone()),
        &mut gpu,
    );
    assert!(
        matches!(&e, SimError::UnknownKernel { available, .. } if available.len() == 3),
        "{e}"
    );
    let e = err(
        Launch::new("vector_add", [1, 1, 1], [32, 1, 1], ok[..3].to_vec()),
        &mut gpu,
    );
    assert!(
        matches!(
            e,
            SimError::ParamCount {
                expected: 4,
                got: 3,
                ..
            }
        ),
        "{e}"
    );
    let mut bad = ok.clone();
    bad[3] = p(0);
    let e = err(
        Launch::new("vector_add", [1, 1, 1], [32, 1, 1], bad),
        &mut gpu,
    );
    assert!(
        matches!(
            e,
            SimError::ParamSize {
                index: 3,
                expected: 4,
                got: 8,
                ..
            }
        ),
        "{e}"
    );
    let e = err(
        Launch::new("vector_add", [1, 1, 1], [2048, 1, 1], ok.clone()),
        &mut gpu,
    );
    assert!(matches!(e, SimError::InvalidLaunch(_)), "{e}");
    let e = err(
        Launch::new("vector_add", [0, 1, 1], [32, 1, 1], ok),
        &mut gpu,
    );
    assert!(matches!(e, SimError::InvalidLaunch(_)), "{e}");
}

#[test]
fn module_variables_persist_across_launches() {
    let m = module("globals");
    let mut gpu = Machine::new();
    let x: Vec<f32> = (0..64).map(|i| i as f32 * 0.25).collect();
    let dx = upload(&mut gpu, &x);
    let dy = gpu.alloc(4 * 64);
    for _ in 0..2 {
        let r = launch(
            &mut gpu,
            &m,
            "poly",
            [1, 1, 1],
            [64, 1, 1],
            &[Arg::Ptr(dx), Arg::Ptr(dy), Arg::I32(64)],
        );
        assert!(r.diagnostics.is_empty(), "{:#?}", r.diagnostics);
    }
    let y = download_f32(&gpu, dy, 64);
    for i in 0..64 {
        let v = x[i];
        let expect = v.mul_add(v.mul_add(v.mul_add(4.0, 3.0), 2.0), 1.0);
        assert!(
            (y[i] - expect).abs() <= 1e-5 * expect.abs(),
            "{i}: {} vs {expect}",
            y[i]
        );
    }
    let out = gpu.alloc(4);
    launch(
        &mut gpu,
        &m,
        "read_launches",
        [1, 1, 1],
        [1, 1, 1],
        &[Arg::Ptr(out)],
    );
    assert_eq!(download_u32(&gpu, out, 1)[0], 2);

    // cudaMemcpyToSymbol: new coefficients.
    let (addr, size) = gpu
        .symbol(&m, "coeffs")
        .unwrap()
        .expect("coeffs is a module variable");
    assert_eq!(size, 16);
    gpu.write(addr, &as_bytes(&[0f32, 0.0, 0.0, 1.0])).unwrap();
    launch(
        &mut gpu,
        &m,
        "poly",
        [1, 1, 1],
        [64, 1, 1],
        &[Arg::Ptr(dx), Arg::Ptr(dy), Arg::I32(64)],
    );
    let y = download_f32(&gpu, dy, 64);
    assert_eq!(y[8], 8.0);
    assert!(gpu.symbol(&m, "missing").unwrap().is_none());
}

#[test]
fn syncthreads_count_or_and() {
    let m = module("globals");
    let mut gpu = Machine::new();
    let input: Vec<i32> = (0..96).map(|i| i - 10).collect();
    let din = upload(&mut gpu, &input);
    let dout = gpu.alloc(4 * 96);
    let r = launch(
        &mut gpu,
        &m,
        "block_votes",
        [1, 1, 1],
        [96, 1, 1],
        &[Arg::Ptr(din), Arg::Ptr(dout)],
    );
    assert!(r.diagnostics.is_empty(), "{:#?}", r.diagnostics);
    let count = input.iter().filter(|v| **v > 0).count() as u32;
    assert_eq!(download_u32(&gpu, dout, 96), vec![count; 96]);
}

#[test]
fn module_is_shareable_between_threads() {
    fn assert_send_sync<T: Send + Sync>() {}
    assert_send_sync::<Module>();
    assert_send_sync::<sim::LaunchReport>();
}

#[test]
fn reports_serialize() {
    let m = module("vector_add");
    let mut gpu = Machine::new();
    let a = gpu.alloc(4 * 32);
    let r = launch(
        &mut gpu,
        &m,
        "vector_add_unguarded",
        [2, 1, 1],
        [32, 1, 1],
        &[Arg::Ptr(a), Arg::Ptr(a), Arg::Ptr(a), Arg::I32(32)],
    );
    let json = serde_json::to_value(&r).unwrap();
    assert_eq!(json["diagnostics"][0]["kind"], "out_of_bounds");
    assert_eq!(json["aborted"], true);
    let _ = Limits::default();
}

#[test]
fn a_kernel_the_simulator_cannot_run_costs_that_kernel_only() {
    let ptx = r#"
.version 7.0
.target sm_80
.address_size 64
.visible .entry good(.param .u64 out)
{
    .reg .b32 %r<2>;
    .reg .b64 %rd<3>;
    ld.param.u64 %rd1, [out];
    cvta.to.global.u64 %rd2, %rd1;
    mov.u32 %r1, 7;
    st.global.u32 [%rd2], %r1;
    ret;
}
.visible .entry odd(.param .u64 out)
{
    .reg .b32 %r<2>;
    frobnicate.u32 %r1, %r1;
    ret;
}
"#;
    let module = sim::Module::parse(ptx).unwrap();
    assert!(module.lowering_error("good").is_none());
    let why = module.lowering_error("odd").unwrap();
    assert!(why.contains("frobnicate"), "{why}");
    let mut gpu = sim::Machine::new();
    let out = gpu.alloc(4);
    let params = vec![out.to_le_bytes().to_vec()];
    gpu.launch(
        &module,
        &sim::Launch::new("good", [1, 1, 1], [1, 1, 1], params.clone()),
    )
    .unwrap();
    assert_eq!(gpu.read(out, 4).unwrap(), 7u32.to_le_bytes());
    let err = gpu
        .launch(
            &module,
            &sim::Launch::new("odd", [1, 1, 1], [1, 1, 1], params),
        )
        .unwrap_err()
        .to_string();
    assert!(
        err.contains("`odd` cannot run in the simulator") && err.contains("frobnicate"),
        "{err}"
    );
}

#[test]
fn a_kernels_static_resources_are_read_from_its_ptx() {
    let m = module("reduce");
    let resources = m
        .resources("reduce_shared")
        .expect("reduce_shared is in the module");
    // `.shared .align 4 .b8 sdata[1024]`, no `.local` frame, no `__constant__` variable.
    assert_eq!(resources.shared_static_bytes, 1024);
    assert_eq!(resources.local_bytes_per_thread, 0);
    assert_eq!(resources.constant_bytes, 0);
    assert!(m.resources("no_such_kernel").is_none());
}

/// A kernel's `.maxntid` and `.reqntid` bound its launches as on a GPU: within them it runs, past
/// them the launch is refused (the driver answers CUDA_ERROR_INVALID_VALUE), naming the bound.
#[test]
fn launch_bounds_from_the_ptx_refuse_blocks_past_them() {
    let ptx = ".version 8.0\n.target sm_80\n.address_size 64\n\
               .visible .entry bounded() .maxntid 128, 1, 1 .minnctapersm 2\n{ ret; }\n\
               .visible .entry shaped() .reqntid 32, 2, 1\n{ ret; }\n";
    let m = Module::parse(ptx).expect("parses");
    let mut gpu = Machine::new();
    let mut run = |kernel: &str, block: [u32; 3]| {
        gpu.launch(&m, &Launch::new(kernel, [2, 1, 1], block, Vec::new()))
    };
    assert!(run("bounded", [128, 1, 1]).is_ok());
    assert!(run("bounded", [32, 4, 1]).is_ok());
    let e = run("bounded", [256, 1, 1]).expect_err("over .maxntid");
    assert!(
        matches!(&e, SimError::InvalidLaunch(why) if why.contains(".maxntid 128")),
        "{e}"
    );
    let bounds = m.launch_bounds("bounded").expect("a kernel");
    assert_eq!(bounds.thread_limit(), Some(128));
    assert_eq!(m.launch_bounds("shaped").unwrap().thread_limit(), Some(64));
    assert!(m.launch_bounds("absent").is_none());
    assert!(run("shaped", [32, 2, 1]).is_ok());
    let e = run("shaped", [64, 1, 1]).expect_err("off .reqntid");
    assert!(
        matches!(&e, SimError::InvalidLaunch(why) if why.contains(".reqntid 32, 2, 1")),
        "{e}"
    );
}
