//! Calling a real entry point, found by name, with the arguments the program passed: the
//! function's type is made from the arguments' own types (those of the entry point's signature
//! here, which the program called it with), so one generic call serves all 473 entry points.

use cudarc::driver::sys::CUresult;
use std::ffi::c_void;

/// A tuple of an entry point's arguments.
pub(crate) trait Args {
    /// Calls `function` with these arguments.
    ///
    /// # Safety
    /// `function` is an `extern "C"` function taking exactly these types, and its contract
    /// holds for these values.
    unsafe fn call(self, function: *const c_void) -> CUresult;
}

macro_rules! args {
    ($($t:ident),*) => {
        impl<$($t),*> Args for ($($t,)*) {
            #[allow(non_snake_case)]
            unsafe fn call(self, function: *const c_void) -> CUresult {
                let ($($t,)*) = self;
                // SAFETY: a function pointer is an address; its type is the caller's contract.
                let f: unsafe extern "C" fn($($t),*) -> CUresult =
                    unsafe { std::mem::transmute_copy(&function) };
                // SAFETY: the caller's contract.
                unsafe { f($($t),*) }
            }
        }
    };
}

args!();
args!(A);
args!(A, B);
args!(A, B, C);
args!(A, B, C, D);
args!(A, B, C, D, F);
args!(A, B, C, D, F, G);
args!(A, B, C, D, F, G, H);
args!(A, B, C, D, F, G, H, I);
args!(A, B, C, D, F, G, H, I, J);
args!(A, B, C, D, F, G, H, I, J, K);
args!(A, B, C, D, F, G, H, I, J, K, L);
args!(A, B, C, D, F, G, H, I, J, K, L, M);
args!(A, B, C, D, F, G, H, I, J, K, L, M, N);
args!(A, B, C, D, F, G, H, I, J, K, L, M, N, O);
args!(A, B, C, D, F, G, H, I, J, K, L, M, N, O, P);
args!(A, B, C, D, F, G, H, I, J, K, L, M, N, O, P, Q);

#[cfg(test)]
mod tests {
    use super::Args;
    use cudarc::driver::sys::{cudaError_enum as E, CUresult};

    extern "C" fn sum_into(out: *mut u64, a: u32, b: u64, c: f32) -> CUresult {
        // SAFETY: the test passes a valid pointer.
        unsafe { *out = a as u64 + b + c as u64 };
        E::CUDA_ERROR_NOT_READY
    }

    #[test]
    fn arguments_reach_the_function_in_order_and_its_answer_comes_back() {
        let mut out = 0u64;
        let f = sum_into as *const std::ffi::c_void;
        // SAFETY: the tuple's types are sum_into's.
        let r = unsafe { (&mut out as *mut u64, 1u32, 20u64, 300.0f32).call(f) };
        assert_eq!((out, r), (321, E::CUDA_ERROR_NOT_READY));
    }
}
