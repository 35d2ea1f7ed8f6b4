// Variant: three streams, each chunk's buffers in a struct, 128-thread blocks written out, and a ctx.synchronize() before the pinned outputs are read
//! Exercise 27: pinned memory and streams. Hide the copies behind the work.
//!
//! The GPU has an engine that copies to the device, one that copies back, and the SMs: three
//! things that can run at once. A program that copies everything in, computes, then copies
//! everything back uses one at a time. Cut the signal into `chunks`; give each chunk its own
//! copy in, kernel and copy back on a stream (a few streams, taken in turn), and while one chunk
//! computes the next is already being copied in and the one before copied back.
//!
//! Copies only run beside other work from pinned (page-locked) host memory: from a Vec the
//! driver first copies into a buffer of its own while your program waits. And nothing queued
//! after an allocation runs beside what was queued before it: allocate first, then queue.
//!
//! `runner check 27` reads the timeline of copies and kernels from the driver's record and
//! measures how much of the copy time ran beside other work.

#[allow(unused_imports)]
use cudarc::driver::{CudaContext, LaunchConfig, PushKernelArg};
use cudarc::nvrtc::compile_ptx;
use std::error::Error;

/// How many streams the chunks take turns on.
const STREAMS: usize = 4;

use cudarc::driver::{CudaSlice, PinnedHostSlice};

struct Chunk {
    input: PinnedHostSlice<f32>,
    output: PinnedHostSlice<f32>,
    on_device_in: CudaSlice<f32>,
    on_device_out: CudaSlice<f32>,
}

fn main() -> Result<(), Box<dyn Error>> {
    let task = hostkit::Task::open()?;
    let chunks = task.param("chunks")? as usize;
    let rounds = task.param("rounds")? as i32;
    let signal = task.read_f32s("signal")?;
    let n = signal.len();
    let chunk = n.div_ceil(chunks);

    let ctx = CudaContext::new(0)?;
    let module = ctx.load_module(compile_ptx(include_str!("../transform.cu"))?)?;
    let transform = module.load_function("transform")?;
    let streams = [ctx.new_stream()?, ctx.new_stream()?, ctx.new_stream()?];

    let mut work: Vec<Chunk> = Vec::new();
    for (c, part) in signal.chunks(chunk).enumerate() {
        let stream = &streams[c % streams.len()];
        // SAFETY: written before read.
        let mut input = unsafe { ctx.alloc_pinned::<f32>(part.len())? };
        input.as_mut_slice()?.copy_from_slice(part);
        work.push(Chunk {
            input,
            output: unsafe { ctx.alloc_pinned::<f32>(part.len())? },
            on_device_in: stream.alloc_zeros::<f32>(part.len())?,
            on_device_out: stream.alloc_zeros::<f32>(part.len())?,
        });
    }
    for (c, w) in work.iter_mut().enumerate() {
        let stream = &streams[c % streams.len()];
        stream.memcpy_htod(&w.input, &mut w.on_device_in)?;
        let len = w.input.len() as u32;
        let cfg = LaunchConfig {
            grid_dim: (len.div_ceil(128), 1, 1),
            block_dim: (128, 1, 1),
            shared_mem_bytes: 0,
        };
        let len_arg = len as i32;
        // SAFETY: (const float*, float*, int, int) in order.
        unsafe {
            stream
                .launch_builder(&transform)
                .arg(&w.on_device_in)
                .arg(&mut w.on_device_out)
                .arg(&len_arg)
                .arg(&rounds)
                .launch(cfg)?;
        }
        stream.memcpy_dtoh(&w.on_device_out, &mut w.output)?;
    }
    ctx.synchronize()?;
    let result: Vec<f32> = work
        .iter()
        .map(|w| w.output.as_slice().map(|s| s.to_vec()))
        .collect::<Result<Vec<_>, _>>()?
        .concat();
    task.write_f32s("signal", &result)?;
    Ok(())
}
