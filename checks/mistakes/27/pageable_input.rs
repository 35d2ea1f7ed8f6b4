// Mistake: each chunk copied in from the signal Vec (pageable memory) instead of its pinned buffer: cudarc waits for each such copy
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

#[allow(unused_variables, unused_mut)]
fn main() -> Result<(), Box<dyn Error>> {
    let task = hostkit::Task::open()?;
    let chunks = task.param("chunks")? as usize;
    let rounds = task.param("rounds")? as i32;
    let signal = task.read_f32s("signal")?;
    let n = signal.len();
    let chunk = n.div_ceil(chunks);
    println!("{n} elements in {chunks} chunks of up to {chunk}");

    let ctx = CudaContext::new(0)?;
    let module = ctx.load_module(compile_ptx(include_str!("../transform.cu"))?)?;
    let transform = module.load_function("transform")?;
    let mut result = Vec::with_capacity(n);

    // TODO 1: make STREAMS streams (ctx.new_stream()).
    let streams = (0..STREAMS)
        .map(|_| ctx.new_stream())
        .collect::<Result<Vec<_>, _>>()?;

    // TODO 2: allocate every chunk's memory before queuing any work (an allocation waits for
    // all the work queued before it to finish, which would undo the overlap). For each chunk
    // (signal.chunks(chunk).enumerate(): the last one may be shorter), on stream c % STREAMS:
    //  - pinned host memory for its input and output (unsafe { ctx.alloc_pinned::<f32>(len) }),
    //    the input filled from the chunk (pinned.as_mut_slice()?.copy_from_slice(part));
    //  - its device input and output (stream.alloc_zeros::<f32>(len)).
    // Keep them all (a Vec of tuples) to the end: dropping a device array frees it, and freeing
    // waits for the GPU too.
    let mut buffers = Vec::with_capacity(chunks);
    for (c, part) in signal.chunks(chunk).enumerate() {
        let stream = &streams[c % STREAMS];
        let len = part.len();
        // SAFETY: both are written before they are read: the input here, the output by its copy.
        let (mut pinned_in, pinned_out) =
            unsafe { (ctx.alloc_pinned::<f32>(len)?, ctx.alloc_pinned::<f32>(len)?) };
        pinned_in.as_mut_slice()?.copy_from_slice(part);
        let device_in = stream.alloc_zeros::<f32>(len)?;
        let device_out = stream.alloc_zeros::<f32>(len)?;
        buffers.push((pinned_in, pinned_out, device_in, device_out));
    }

    // TODO 3: queue each chunk's work on its stream: copy in (stream.memcpy_htod), launch
    // transform(in, out, len, rounds), copy back (stream.memcpy_dtoh) into its pinned output.
    // Nothing waits here: the host queues all the chunks, and the GPU overlaps them.
    for (c, (pinned_in, pinned_out, device_in, device_out)) in buffers.iter_mut().enumerate() {
        let stream = &streams[c % STREAMS];
        stream.memcpy_htod(&signal[c * chunk..c * chunk + pinned_in.len()], device_in)?;
        let len_arg = pinned_in.len() as i32;
        let mut launch = stream.launch_builder(&transform);
        launch.arg(&*device_in).arg(&mut *device_out).arg(&len_arg).arg(&rounds);
        // SAFETY: transform takes (const float*, float*, int, int), passed in that order.
        unsafe { launch.launch(LaunchConfig::for_num_elems(len_arg as u32)) }?;
        stream.memcpy_dtoh(&*device_out, pinned_out)?;
    }

    // TODO 4: append each chunk's pinned output to result, in order (as_slice() waits for that
    // chunk's copy back to finish).
    for (_, pinned_out, _, _) in &buffers {
        result.extend_from_slice(pinned_out.as_slice()?);
    }

    task.write_f32s("signal", &result)?;
    Ok(())
}
