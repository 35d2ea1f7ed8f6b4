//! The advice of a host check in the words of the program's language: the same mistake is
//! fixed with `?` in Rust, a checking macro in CUDA C++, a NumPy array in Python.

use crate::course::Language;

/// What a failed call the program went on after means, and how to stop at it.
pub(super) fn went_on(language: Language) -> &'static str {
    match language {
        Language::Cpp => {
            "and the program went on as if it had worked: check the cudaError_t of every call \
             (wrap each in a CHECK macro that prints cudaGetErrorString and exits), and after a \
             launch CHECK(cudaGetLastError()), so an error stops the program where it happens"
        }
        _ => {
            "and the program went on as if it had worked: check the result of every call (in \
             Rust, `?` or a match), so an error stops the program where it happens"
        }
    }
}

/// What a failed call's error means, where its name alone does not say what to do: the
/// refusals of stream capture, which come from where the call was made, not from its arguments.
pub(super) fn error_advice(error: u32) -> Option<&'static str> {
    use cudarc::driver::sys::CUresult as R;
    let is = |code: R| error == code as u32;
    if is(R::CUDA_ERROR_STREAM_CAPTURE_IMPLICIT) {
        Some(
            "a synchronous call (cudaMemcpy, cudaMemset) while a stream was being captured into \
             a graph: it waits for the default stream, which a capture forbids, and it \
             invalidates the capture. Inside a capture queue only work on the capturing stream \
             (cudaMemcpyAsync(..., stream), kernel<<<..., stream>>>); copy before \
             cudaStreamBeginCapture or after cudaStreamEndCapture",
        )
    } else if is(R::CUDA_ERROR_STREAM_CAPTURE_INVALIDATED) {
        Some(
            "the capture was invalidated by a call made while it was under way that a capture \
             forbids (a synchronous copy or memset, or waiting for the device): queue only \
             asynchronous work on the capturing stream between cudaStreamBeginCapture and \
             cudaStreamEndCapture",
        )
    } else if is(R::CUDA_ERROR_NOT_READY) {
        Some(
            "the time between two events was asked for before the program waited for them: a GPU \
             answers cudaErrorNotReady (or, where the error goes unchecked, the time is never \
             written) until both have completed. Wait for the stop event first \
             (cudaEventSynchronize(stop), or the stream or device it was recorded on)",
        )
    } else if is(R::CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED) {
        Some(
            "the legacy default stream cannot be captured, and nothing may wait for the device or \
             a capturing stream during a capture: capture a stream of your own (cudaStreamCreate), \
             and wait only after cudaStreamEndCapture",
        )
    } else {
        None
    }
}

/// How the language frees device memory.
pub(super) fn free_advice(language: Language) -> &'static str {
    match language {
        Language::Cpp => "every cudaMalloc or cudaMallocManaged needs its cudaFree",
        _ => "cudarc frees a CudaSlice when it is dropped; a raw cuMemAlloc needs its cuMemFree",
    }
}

/// What pageable host memory is in the language, and how to get pinned memory instead.
pub(super) fn pinned_advice(language: Language) -> (&'static str, &'static str) {
    match language {
        Language::Cpp => ("malloc, new or a std::vector", "cudaMallocHost"),
        Language::Python => ("a NumPy array", "cuda.pinned_array"),
        Language::Rust => ("a Vec", "ctx.alloc_pinned"),
    }
}

/// The hostkit call that hands back output `name`.
pub(super) fn write_call(language: Language, name: &str) -> String {
    match language {
        Language::Cpp => format!("task.write(\"{name}\", ...)"),
        Language::Python => format!("task.write(\"{name}\", ...)"),
        Language::Rust => format!("task.write_f32s(\"{name}\", ...)"),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_cpp_program_hears_the_runtimes_words() {
        assert!(went_on(Language::Cpp).contains("cudaGetLastError"));
        assert!(free_advice(Language::Cpp).contains("cudaFree"));
        assert_eq!(pinned_advice(Language::Cpp).1, "cudaMallocHost");
        assert!(went_on(Language::Rust).contains("`?`"));
    }

    #[test]
    fn the_refusals_of_stream_capture_say_what_to_do() {
        use cudarc::driver::sys::CUresult as R;
        let implicit = error_advice(R::CUDA_ERROR_STREAM_CAPTURE_IMPLICIT as u32).unwrap();
        assert!(
            implicit.contains("cudaMemcpyAsync(..., stream)"),
            "{implicit}"
        );
        assert!(error_advice(R::CUDA_ERROR_STREAM_CAPTURE_INVALIDATED as u32).is_some());
        assert!(error_advice(R::CUDA_ERROR_INVALID_VALUE as u32).is_none());
    }
}
