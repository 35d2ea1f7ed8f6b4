//! `cuGetExportTable`: the private tables of driver functions that NVIDIA's CUDA runtime (cudart
//! 12.x and 13.x, linked statically or shared) asks the driver for by UUID before any runtime
//! call can work. They are undocumented; what each slot takes was learned from ZLUDA's notes
//! (`dark_api` in github.com/vosen/ZLUDA) and from what cudart asks of this driver.
//!
//! A table is an array of function pointers, most with its own size in bytes in slot 0. A slot
//! this driver does not know answers `CUDA_ERROR_NOT_SUPPORTED` and names itself once on stderr
//! (never a null pointer to jump through). A table this driver does not know is refused quietly,
//! as before cudart was served: NVRTC and cudart 13 (`f8cff951-...`) each probe one they go on
//! without.
//! In pass-through mode the real driver's tables are handed out instead.

mod context_storage;
mod cudart;
mod integrity;
mod tools;

use crate::state::with_driver;
use cudarc::driver::sys::{cudaError_enum as E, CUresult, CUuuid};
use std::ffi::c_void;

/// A table as the runtime reads it: pointers at a fixed address for the life of the process.
#[repr(transparent)]
pub(crate) struct Slots<const N: usize>(pub [*const c_void; N]);

// SAFETY: the slots are function addresses and sizes, never written after they are built.
unsafe impl<const N: usize> Sync for Slots<N> {}

impl<const N: usize> Slots<N> {
    /// Slot 0 of most tables: the table's size in bytes, which the runtime checks.
    pub(crate) const SIZE: *const c_void = (N * std::mem::size_of::<usize>()) as *const c_void;

    fn start(&'static self) -> *const c_void {
        self.0.as_ptr().cast()
    }
}

/// The tables this driver serves, by the name ZLUDA gives each, in the order cudart 13 asks.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Table {
    CudartInterface,
    ToolsRuntimeCallbackHooks,
    ToolsTls,
    ContextLocalStorage,
    ContextChecks,
    IntegrityCheck,
}

impl Table {
    const ALL: [Table; 6] = [
        Table::CudartInterface,
        Table::ToolsRuntimeCallbackHooks,
        Table::ToolsTls,
        Table::ContextLocalStorage,
        Table::ContextChecks,
        Table::IntegrityCheck,
    ];

    fn id(self) -> u128 {
        match self {
            Table::CudartInterface => 0x6bd5fb6c_5bf4_e74a_8987_d93912fd9df9,
            Table::ToolsRuntimeCallbackHooks => 0xa094798c_2e74_2e74_93f2_0800200c0a66,
            Table::ToolsTls => 0x42d85a81_23f6_cb47_8298_f6e78a3aecdc,
            Table::ContextLocalStorage => 0xc693336e_1121_df11_a8c3_68f355d89593,
            Table::ContextChecks => 0x263e8860_7cd2_6143_92f6_bbd5006dfa7e,
            Table::IntegrityCheck => 0xd4082055_bde6_704b_8d34_ba123c66e1f2,
        }
    }

    fn name(self) -> &'static str {
        match self {
            Table::CudartInterface => "CUDART_INTERFACE",
            Table::ToolsRuntimeCallbackHooks => "TOOLS_RUNTIME_CALLBACK_HOOKS",
            Table::ToolsTls => "TOOLS_TLS",
            Table::ContextLocalStorage => "CONTEXT_LOCAL_STORAGE",
            Table::ContextChecks => "CONTEXT_CHECKS",
            Table::IntegrityCheck => "INTEGRITY_CHECK",
        }
    }

    fn start(self) -> *const c_void {
        match self {
            Table::CudartInterface => cudart::TABLE.start(),
            Table::ToolsRuntimeCallbackHooks => tools::CALLBACK_HOOKS.start(),
            Table::ToolsTls => tools::TLS.start(),
            Table::ContextLocalStorage => context_storage::TABLE.start(),
            Table::ContextChecks => tools::CONTEXT_CHECKS.start(),
            Table::IntegrityCheck => integrity::TABLE.start(),
        }
    }

    fn find(id: &[u8; 16]) -> Option<Table> {
        let id = u128::from_be_bytes(*id);
        Table::ALL.into_iter().find(|t| t.id() == id)
    }
}

/// What a slot this driver does not know answers: it says which, once, and refuses.
///
/// # Safety
/// None: it reads no argument (extra arguments in registers are ignored by the C ABI).
pub(crate) unsafe extern "C" fn unknown_slot<const TABLE: usize, const SLOT: usize>() -> CUresult {
    // One name per slot a program calls, kept for the run as the record keeps names.
    static NAMES: std::sync::Mutex<Vec<((usize, usize), &'static str)>> =
        std::sync::Mutex::new(Vec::new());
    let mut names = NAMES.lock().unwrap_or_else(|p| p.into_inner());
    let name = match names.iter().find(|(at, _)| *at == (TABLE, SLOT)) {
        Some(&(_, name)) => name,
        None => {
            let table = Table::ALL[TABLE].name();
            let name: &'static str =
                Box::leak(format!("cuGetExportTable {table} slot {SLOT}").into_boxed_str());
            names.push(((TABLE, SLOT), name));
            name
        }
    };
    drop(names);
    crate::error_calls::not_supported(name)
}

/// Runs a table function on the driver's state, refused before `cuInit` and after a kernel
/// fault like any entry point, and never unwinding into the runtime. Not counted among the
/// program's calls: the runtime makes them, not the program.
pub(crate) fn inside(
    what: &'static str,
    f: impl FnOnce(&mut crate::state::Driver) -> crate::state::Result,
) -> CUresult {
    with_driver(|d| {
        if !d.initialised {
            return E::CUDA_ERROR_NOT_INITIALIZED;
        }
        if let Some(fault) = d.sticky {
            return fault;
        }
        match std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| f(d))) {
            Ok(Ok(())) => E::CUDA_SUCCESS,
            Ok(Err(e)) => d.record.failed(what, e),
            Err(_) => {
                eprintln!("simcuda: {what} failed inside the simulator's driver");
                d.record.failed(what, E::CUDA_ERROR_UNKNOWN)
            }
        }
    })
}

/// # Safety
/// As the driver's: `table` is valid for a write, `id` for a read.
#[no_mangle]
pub unsafe extern "C" fn cuGetExportTable(
    table: *mut *const c_void,
    id: *const CUuuid,
) -> CUresult {
    pass_through!(cuGetExportTable(table, id));
    with_driver(|d| d.record.count("cuGetExportTable"));
    if table.is_null() || id.is_null() {
        return E::CUDA_ERROR_INVALID_VALUE;
    }
    // SAFETY: the caller's contract; a UUID is 16 bytes.
    let bytes: [u8; 16] = unsafe { (*id).bytes }.map(|b| b as u8);
    match Table::find(&bytes) {
        Some(found) => {
            // SAFETY: the caller's contract.
            unsafe { table.write(found.start()) };
            E::CUDA_SUCCESS
        }
        None => E::CUDA_ERROR_NOT_SUPPORTED,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The bytes of a UUID as NVIDIA's tools print it (`6bd5fb6c-5bf4-...`).
    fn uuid(text: &str) -> [u8; 16] {
        let hex: String = text.chars().filter(|c| *c != '-').collect();
        std::array::from_fn(|i| u8::from_str_radix(&hex[2 * i..2 * i + 2], 16).unwrap())
    }

    #[test]
    fn tables_are_found_by_the_ids_cudart_asks_for() {
        let cudart = uuid("6bd5fb6c-5bf4-e74a-8987-d93912fd9df9");
        assert_eq!(Table::find(&cudart), Some(Table::CudartInterface));
        let storage = uuid("c693336e-1121-df11-a8c3-68f355d89593");
        assert_eq!(Table::find(&storage), Some(Table::ContextLocalStorage));
        assert_eq!(
            Table::find(&uuid("f8cff951-2146-8b4e-b9e2-fb469e7c0dd9")),
            None
        );
    }
}
