// Variant: one round in a helper function returning Result<(), DriverError>, run on a stream of its own (ctx.new_stream), 512-thread blocks written out, the result read with memcpy_dtov after a synchronize
//! Exercise 26: device arrays. Keep the data on the device.
//!
//! The program runs `steps` rounds of three kernels (rounds.cu: smooth, gain 1.5, clip to
//! [-1, 1]) on a signal. A copy over PCIe costs far more than these kernels: a program that
//! copies the signal back after every round spends its time on the bus. Copy it to the device
//! once, run every round there, and copy the result back once.
//!
//! `runner check 26` counts the copies each way, from the driver's record.

#[allow(unused_imports)]
use cudarc::driver::{CudaContext, LaunchConfig, PushKernelArg};
use cudarc::nvrtc::compile_ptx;
use std::error::Error;

const GAIN: f32 = 1.5;
const LIMIT: f32 = 1.0;

use cudarc::driver::{CudaFunction, CudaSlice, CudaStream, DriverError};

struct Kernels {
    smooth: CudaFunction,
    gain: CudaFunction,
    clip: CudaFunction,
}

fn round(
    stream: &CudaStream,
    k: &Kernels,
    from: &CudaSlice<f32>,
    to: &mut CudaSlice<f32>,
    n: i32,
) -> Result<(), DriverError> {
    let threads = 512u32;
    let cfg = LaunchConfig {
        grid_dim: ((n as u32).div_ceil(threads), 1, 1),
        block_dim: (threads, 1, 1),
        shared_mem_bytes: 0,
    };
    // SAFETY: (const float*, float*, int), (float*, float, int), (float*, float, int).
    unsafe {
        let mut s = stream.launch_builder(&k.smooth);
        s.arg(from).arg(&mut *to).arg(&n);
        s.launch(cfg)?;
        let mut g = stream.launch_builder(&k.gain);
        g.arg(&mut *to).arg(&GAIN).arg(&n);
        g.launch(cfg)?;
        let mut c = stream.launch_builder(&k.clip);
        c.arg(&mut *to).arg(&LIMIT).arg(&n);
        c.launch(cfg)?;
    }
    Ok(())
}

fn main() -> Result<(), Box<dyn Error>> {
    let task = hostkit::Task::open()?;
    let steps = task.param("steps")?;
    let signal = task.read_f32s("signal")?;
    let n = signal.len();

    let ctx = CudaContext::new(0)?;
    let stream = ctx.new_stream()?;
    let module = ctx.load_module(compile_ptx(include_str!("../rounds.cu"))?)?;
    let kernels = Kernels {
        smooth: module.load_function("smooth")?,
        gain: module.load_function("gain")?,
        clip: module.load_function("clip")?,
    };
    let mut current = stream.memcpy_stod(&signal)?;
    let mut next = stream.alloc_zeros::<f32>(n)?;
    for _ in 0..steps {
        round(&stream, &kernels, &current, &mut next, n as i32)?;
        std::mem::swap(&mut current, &mut next);
    }
    stream.synchronize()?;
    let result = stream.memcpy_dtov(&current)?;
    task.write_f32s("signal", &result)?;
    Ok(())
}
