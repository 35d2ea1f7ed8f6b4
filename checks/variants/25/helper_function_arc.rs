// Variant: the device work in a helper that takes an Arc<CudaContext> clone and returns the result Vec, errors passed up with ?, the context synchronised before the write
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

use std::sync::Arc;

fn saxpy_on_device(
    ctx: Arc<CudaContext>,
    alpha: f32,
    x: &[f32],
    y: &[f32],
) -> Result<Vec<f32>, Box<dyn Error>> {
    let stream = ctx.default_stream();
    let ptx = compile_ptx(include_str!("../saxpy.cu"))?;
    let saxpy = ctx.load_module(ptx)?.load_function("saxpy")?;
    let x_dev = stream.memcpy_stod(x)?;
    let mut y_dev = stream.memcpy_stod(y)?;
    let n = x.len() as i32;
    let config = LaunchConfig::for_num_elems(x.len() as u32);
    // SAFETY: (float, const float*, float*, int) in order.
    unsafe {
        stream
            .launch_builder(&saxpy)
            .arg(&alpha)
            .arg(&x_dev)
            .arg(&mut y_dev)
            .arg(&n)
            .launch(config)?;
    }
    let mut out = vec![0.0f32; y.len()];
    stream.memcpy_dtoh(&y_dev, &mut out)?;
    Ok(out)
}

fn main() -> Result<(), Box<dyn Error>> {
    let task = hostkit::Task::open()?;
    let alpha = task.real("alpha")? as f32;
    let x = task.read_f32s("x")?;
    let y = task.read_f32s("y")?;
    let ctx = CudaContext::new(0)?;
    let result = saxpy_on_device(Arc::clone(&ctx), alpha, &x, &y)?;
    ctx.synchronize()?;
    task.write_f32s("y", &result)?;
    Ok(())
}
