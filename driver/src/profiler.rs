//! `cuProfilerStart` and `cuProfilerStop`: they mark the part of a program a profiler records.
//! Without a profiler attached NVIDIA's driver accepts both and does nothing; so does this one.

use crate::state::call;
use cudarc::driver::sys::CUresult;

#[no_mangle]
pub extern "C" fn cuProfilerStart() -> CUresult {
    pass_through!(cuProfilerStart());
    call("cuProfilerStart", |d| d.require_context())
}

#[no_mangle]
pub extern "C" fn cuProfilerStop() -> CUresult {
    pass_through!(cuProfilerStop());
    call("cuProfilerStop", |d| d.require_context())
}
