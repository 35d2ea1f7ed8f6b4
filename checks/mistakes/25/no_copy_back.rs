// Mistake: the copy back left out: y is handed back as it was read
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
    #[allow(unused_mut)]
    let mut y = task.read_f32s("y")?;
    let n = x.len();
    println!("saxpy on {n} elements, alpha = {alpha}");

    // TODO 1: open device 0 (CudaContext::new) and take its default stream.
    let ctx = CudaContext::new(0)?;
    let stream = ctx.default_stream();

    // TODO 2: compile saxpy.cu (include_str!("../saxpy.cu")) with compile_ptx, load it as a
    // module (ctx.load_module) and find the function "saxpy" in it.
    let ptx = compile_ptx(include_str!("../saxpy.cu"))?;
    let module = ctx.load_module(ptx)?;
    let saxpy = module.load_function("saxpy")?;

    // TODO 3: copy x and y to the device (stream.memcpy_stod).
    let x_dev = stream.memcpy_stod(&x)?;
    let mut y_dev = stream.memcpy_stod(&y)?;

    // TODO 4: launch saxpy(alpha, x, y, n) with one thread per element: a launch builder on
    // the stream, its four arguments in order, and LaunchConfig::for_num_elems(n as u32).
    // Launching is `unsafe`: the compiler cannot check the arguments against the kernel.
    let n_arg = n as i32;
    let mut launch = stream.launch_builder(&saxpy);
    launch.arg(&alpha).arg(&x_dev).arg(&mut y_dev).arg(&n_arg);
    // SAFETY: saxpy takes (float, const float*, float*, int), passed in that order.
    unsafe { launch.launch(LaunchConfig::for_num_elems(n as u32)) }?;

    // TODO 5: copy the device's y back into y (stream.memcpy_dtoh).
    stream.synchronize()?;

    task.write_f32s("y", &y)?;
    Ok(())
}
