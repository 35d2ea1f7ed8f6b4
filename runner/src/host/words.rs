//! The advice of a host check in the words of the program's language: the same mistake is
//! fixed with `?` in Rust, a checking macro in CUDA C++, a NumPy array in Python.

use crate::course::Language;

/// What a failed call the program went on after means, and how to stop at it.
pub fn went_on(language: Language) -> &'static str {
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

/// How the language frees device memory.
pub fn free_advice(language: Language) -> &'static str {
    match language {
        Language::Cpp => "every cudaMalloc or cudaMallocManaged needs its cudaFree",
        _ => "cudarc frees a CudaSlice when it is dropped; a raw cuMemAlloc needs its cuMemFree",
    }
}

/// What pageable host memory is in the language, and how to get pinned memory instead.
pub fn pinned_advice(language: Language) -> (&'static str, &'static str) {
    match language {
        Language::Cpp => ("malloc, new or a std::vector", "cudaMallocHost"),
        Language::Python => ("a NumPy array", "cuda.pinned_array"),
        Language::Rust => ("a Vec", "ctx.alloc_pinned"),
    }
}

/// The hostkit call that hands back output `name`.
pub fn write_call(language: Language, name: &str) -> String {
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
}
