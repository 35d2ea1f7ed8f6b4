// Variant: no swap: even rounds smooth a into b, odd rounds b into a, and the array the last round wrote is copied back; both arrays made with alloc_zeros and the signal put in with memcpy_htod
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

#[allow(unused_variables, unused_mut)]
fn main() -> Result<(), Box<dyn Error>> {
    let task = hostkit::Task::open()?;
    let steps = task.param("steps")?;
    let mut signal = task.read_f32s("signal")?;
    let n = signal.len();

    let ctx = CudaContext::new(0)?;
    let stream = ctx.default_stream();
    let module = ctx.load_module(compile_ptx(include_str!("../rounds.cu"))?)?;
    let smooth = module.load_function("smooth")?;
    let gain = module.load_function("gain")?;
    let clip = module.load_function("clip")?;
    let config = LaunchConfig::for_num_elems(n as u32);
    let n_arg = n as i32;

    let mut a = stream.alloc_zeros::<f32>(n)?;
    let mut b = stream.alloc_zeros::<f32>(n)?;
    stream.memcpy_htod(&signal, &mut a)?;
    for round in 0..steps {
        let (from, to) = if round % 2 == 0 { (&a, &mut b) } else { (&b, &mut a) };
        // SAFETY: each kernel's arguments in the order and types rounds.cu declares.
        unsafe {
            stream.launch_builder(&smooth).arg(from).arg(&mut *to).arg(&n_arg).launch(config)?;
            stream.launch_builder(&gain).arg(&mut *to).arg(&GAIN).arg(&n_arg).launch(config)?;
            stream.launch_builder(&clip).arg(&mut *to).arg(&LIMIT).arg(&n_arg).launch(config)?;
        }
    }
    let last = if steps % 2 == 1 { &b } else { &a };
    stream.memcpy_dtoh(last, &mut signal)?;
    task.write_f32s("signal", &signal)?;
    Ok(())
}
