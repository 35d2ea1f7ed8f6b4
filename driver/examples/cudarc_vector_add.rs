//! A whole host program on cudarc's safe driver API, as a student or a library would write it:
//! context, stream, copies in, a module from PTX, a launch, events around it, a copy back. The
//! driver's tests run it unchanged against the simulator's `libcuda.so`.
//!
//! `cudarc_vector_add PTX [unguarded | far]`: with `unguarded`, the kernel without a bounds check
//! runs on a size that is not a multiple of the block (its 24 extra threads stay inside the
//! arrays' 256-byte granules, which a GPU maps); with `far`, on twice the threads, past them. The
//! program reports the driver's error.

use cudarc::driver::sys::CUevent_flags;
use cudarc::driver::{CudaContext, DriverError, LaunchConfig, PushKernelArg};
use cudarc::nvrtc::Ptx;

fn main() -> Result<(), DriverError> {
    let mut args = std::env::args().skip(1);
    let ptx = args
        .next()
        .expect("usage: cudarc_vector_add PTX [unguarded | far]");
    let n = 1000usize;
    let (kernel, threads) = match args.next().as_deref() {
        Some("unguarded") => ("vector_add_unguarded", n),
        Some("far") => ("vector_add_unguarded", 2 * n),
        _ => ("vector_add", n),
    };
    let ctx = CudaContext::new(0)?;
    println!("device: {}", ctx.name()?);
    let stream = ctx.default_stream();
    let module = ctx.load_module(Ptx::from_file(ptx))?;
    let f = module.load_function(kernel)?;

    let a: Vec<f32> = (0..n).map(|i| i as f32).collect();
    let b: Vec<f32> = (0..n).map(|i| 2.0 * i as f32).collect();
    let a_dev = stream.memcpy_stod(&a)?;
    let b_dev = stream.memcpy_stod(&b)?;
    let mut c_dev = stream.alloc_zeros::<f32>(n)?;

    // Events that keep time: cudarc's default (`None`) disables timing, and a GPU then gives
    // no elapsed time.
    let timed = Some(CUevent_flags::CU_EVENT_DEFAULT);
    let start = ctx.new_event(timed)?;
    let end = ctx.new_event(timed)?;
    start.record(&stream)?;
    let n_arg = n as i32;
    let mut launch = stream.launch_builder(&f);
    launch.arg(&a_dev).arg(&b_dev).arg(&mut c_dev).arg(&n_arg);
    // SAFETY: the kernel takes (const float*, const float*, float*, int), as passed.
    unsafe { launch.launch(LaunchConfig::for_num_elems(threads as u32)) }?;
    end.record(&stream)?;
    let c = stream.memcpy_dtov(&c_dev)?;
    println!("kernel: {:.3} ms", start.elapsed_ms(&end)?);
    let wrong = (0..n).filter(|&i| c[i] != a[i] + b[i]).count();
    println!("{wrong} of {n} elements wrong");
    Ok(())
}
