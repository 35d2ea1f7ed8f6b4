// Variant: a stream for every chunk (as many streams as chunks), the whole run timed with a pair of events on the first stream after the others are joined into it, the result read after the event is waited for
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
    let parts: Vec<&[f32]> = signal.chunks(chunk).collect();
    let streams = parts
        .iter()
        .map(|_| ctx.new_stream())
        .collect::<Result<Vec<_>, _>>()?;

    let mut buffers = Vec::new();
    for (part, stream) in parts.iter().zip(&streams) {
        // SAFETY: the input is filled here, the output by its copy back.
        let mut pinned_in = unsafe { ctx.alloc_pinned::<f32>(part.len())? };
        let pinned_out = unsafe { ctx.alloc_pinned::<f32>(part.len())? };
        pinned_in.as_mut_slice()?.copy_from_slice(part);
        let device_in = stream.alloc_zeros::<f32>(part.len())?;
        let device_out = stream.alloc_zeros::<f32>(part.len())?;
        buffers.push((pinned_in, pinned_out, device_in, device_out));
    }

    let first = &streams[0];
    // Timing events: cudarc's record_event(None) makes events that cannot be timed.
    let timed = Some(cudarc::driver::sys::CUevent_flags::CU_EVENT_DEFAULT);
    let start = first.record_event(timed)?;
    for ((pinned_in, pinned_out, device_in, device_out), stream) in buffers.iter_mut().zip(&streams) {
        if !std::ptr::eq(stream.as_ref(), first.as_ref()) {
            stream.wait(&start)?;
        }
        stream.memcpy_htod(pinned_in, device_in)?;
        let len = pinned_in.len() as i32;
        let mut launch = stream.launch_builder(&transform);
        launch.arg(&*device_in).arg(&mut *device_out).arg(&len).arg(&rounds);
        // SAFETY: transform takes (const float*, float*, int, int).
        unsafe { launch.launch(LaunchConfig::for_num_elems(len as u32)) }?;
        stream.memcpy_dtoh(&*device_out, pinned_out)?;
    }
    for stream in &streams[1..] {
        first.join(stream)?;
    }
    let stop = first.record_event(timed)?;
    stop.synchronize()?;
    println!("{:.3} ms on the GPU", start.elapsed_ms(&stop)?);

    let mut result = Vec::with_capacity(n);
    for (_, pinned_out, _, _) in &buffers {
        result.extend_from_slice(pinned_out.as_slice()?);
    }
    task.write_f32s("signal", &result)?;
    Ok(())
}
