//! Exercise 25 with the kernel written inline, as code moved from a half-precision version
//! keeps its includes: `cuda_fp16.h` and `cuda/std/cmath` (CCCL), found beside a toolkit's
//! NVRTC on a GPU machine and through the course's headers under the runner.

use cudarc::driver::{CudaContext, LaunchConfig, PushKernelArg};
use cudarc::nvrtc::compile_ptx;
use std::error::Error;

const SAXPY: &str = r#"
#include <cuda_fp16.h>
#include <cuda/std/cmath>

extern "C" __global__ void saxpy(float alpha, const float* x, float* y, int n) {
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n && !cuda::std::isnan(alpha)) {
        y[i] = fmaf(alpha, x[i], y[i]);
    }
}
"#;

fn main() -> Result<(), Box<dyn Error>> {
    let task = hostkit::Task::open()?;
    let alpha = task.real("alpha")? as f32;
    let x = task.read_f32s("x")?;
    let mut y = task.read_f32s("y")?;
    let n = x.len();

    let ctx = CudaContext::new(0)?;
    let stream = ctx.default_stream();
    let module = ctx.load_module(compile_ptx(SAXPY)?)?;
    let saxpy = module.load_function("saxpy")?;

    let x_dev = stream.memcpy_stod(&x)?;
    let mut y_dev = stream.memcpy_stod(&y)?;
    let n_arg = n as i32;
    let mut launch = stream.launch_builder(&saxpy);
    launch.arg(&alpha).arg(&x_dev).arg(&mut y_dev).arg(&n_arg);
    // SAFETY: saxpy takes (float, const float*, float*, int), in that order.
    unsafe { launch.launch(LaunchConfig::for_num_elems(n as u32)) }?;
    stream.memcpy_dtoh(&y_dev, &mut y)?;

    task.write_f32s("y", &y)?;
    Ok(())
}
