// Variant: an uninitialised device array (alloc) and one of zeros, both filled with memcpy_htod, the kernel compiled with options (compile_ptx_with_opts), a new stream rather than the default one, errors turned into panics with expect
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

    let ctx = CudaContext::new(0).expect("no CUDA device");
    let stream = ctx.new_stream().expect("cannot make a stream");
    let options = cudarc::nvrtc::CompileOptions {
        options: vec!["-lineinfo".to_string()],
        ..Default::default()
    };
    let ptx = cudarc::nvrtc::compile_ptx_with_opts(include_str!("../saxpy.cu"), options)
        .expect("saxpy.cu does not compile");
    let module = ctx.load_module(ptx).expect("cannot load the module");
    let saxpy = module.load_function("saxpy").expect("no saxpy in the module");

    // SAFETY: x_dev is written whole by the copy below before the kernel reads it.
    let mut x_dev = unsafe { stream.alloc::<f32>(n) }.expect("cannot allocate x");
    let mut y_dev = stream.alloc_zeros::<f32>(n).expect("cannot allocate y");
    stream.memcpy_htod(&x, &mut x_dev).expect("copy of x failed");
    stream.memcpy_htod(&y, &mut y_dev).expect("copy of y failed");

    let n_arg = n as i32;
    let mut builder = stream.launch_builder(&saxpy);
    builder.arg(&alpha);
    builder.arg(&x_dev);
    builder.arg(&mut y_dev);
    builder.arg(&n_arg);
    // SAFETY: saxpy takes (float, const float*, float*, int), passed in that order.
    unsafe { builder.launch(LaunchConfig::for_num_elems(n as u32)) }.expect("launch failed");

    stream.memcpy_dtoh(&y_dev, y.as_mut_slice()).expect("copy back failed");
    stream.synchronize().expect("the kernel failed");
    task.write_f32s("y", &y)?;
    Ok(())
}
