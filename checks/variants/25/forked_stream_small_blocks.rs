// Variant: the work on a stream forked from the default one and joined back before the copy back on the default stream, 64-thread blocks, n converted with i32::try_from
//! Exercise 25: your first whole CUDA program.
//!
//! Until now the runner did the host's work for you. Here you do it all: open the GPU, compile
//! the kernel in saxpy.cu with NVRTC, copy x and y to the device, launch one thread per element,
//! and copy y back. Every call can fail; `?` passes each error on, so none goes unseen.
//!
//! `runner check 25` builds this program, gives it each test case (x, y and alpha through
//! hostkit) and checks the y it hands back, and what it did through the driver.

#[allow(unused_imports)]
use cudarc::driver::{CudaContext, LaunchConfig, PushKernelArg};
#[allow(unused_imports)]
use cudarc::nvrtc::compile_ptx;
use std::error::Error;

fn main() -> Result<(), Box<dyn Error>> {
    let task = hostkit::Task::open()?;
    let alpha = task.real("alpha")? as f32;
    let x = task.read_f32s("x")?;
    let mut y = task.read_f32s("y")?;
    let n = x.len();

    let ctx = CudaContext::new(0)?;
    let main_stream = ctx.default_stream();
    let work = main_stream.fork()?;
    let saxpy = ctx
        .load_module(compile_ptx(include_str!("../saxpy.cu"))?)?
        .load_function("saxpy")?;
    let x_dev = work.memcpy_stod(&x)?;
    let mut y_dev = work.memcpy_stod(&y)?;
    let threads = 64u32;
    let blocks = (n as u32).div_ceil(threads);
    let len = i32::try_from(n)?;
    let mut b = work.launch_builder(&saxpy);
    b.arg(&alpha).arg(&x_dev).arg(&mut y_dev).arg(&len);
    let cfg = LaunchConfig {
        grid_dim: (blocks, 1, 1),
        block_dim: (threads, 1, 1),
        shared_mem_bytes: 0,
    };
    // SAFETY: saxpy's four parameters, in order.
    unsafe { b.launch(cfg)? };
    main_stream.join(&work)?;
    main_stream.memcpy_dtoh(&y_dev, &mut y)?;
    main_stream.synchronize()?;
    task.write_f32s("y", &y)?;
    Ok(())
}
