// Variant: the kernel written in main.rs as a raw string (an early return for the threads past n, +=), 1024-thread blocks, the grid worked out with integer arithmetic, the result read back with memcpy_dtov
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

const SAXPY: &str = r#"
extern "C" __global__ void saxpy(float a, const float* x, float* y, int n) {
    int i = blockDim.x * blockIdx.x + threadIdx.x;
    if (i >= n) return;
    y[i] += a * x[i];
}
"#;

fn main() -> Result<(), Box<dyn Error>> {
    let task = hostkit::Task::open()?;
    let alpha: f32 = task.real("alpha")? as f32;
    let x = task.read_f32s("x")?;
    let y = task.read_f32s("y")?;
    let n = x.len() as u32;

    let ctx = CudaContext::new(0)?;
    let module = ctx.load_module(compile_ptx(SAXPY)?)?;
    let f = module.load_function("saxpy")?;
    let stream = ctx.default_stream();
    let (x_dev, mut y_dev) = (stream.memcpy_stod(&x)?, stream.memcpy_stod(&y)?);
    let block = 1024u32;
    let cfg = LaunchConfig {
        grid_dim: ((n + block - 1) / block, 1, 1),
        block_dim: (block, 1, 1),
        shared_mem_bytes: 0,
    };
    let count = n as i32;
    let mut launch = stream.launch_builder(&f);
    launch.arg(&alpha).arg(&x_dev).arg(&mut y_dev).arg(&count);
    // SAFETY: the arguments match saxpy's parameters in order and type.
    unsafe {
        launch.launch(cfg)?;
    }
    let out: Vec<f32> = stream.memcpy_dtov(&y_dev)?;
    task.write_f32s("y", &out)?;
    Ok(())
}
