//! The private tables of `cuGetExportTable`, called slot by slot through the C ABI as the CUDA
//! runtime calls them, each test on a driver of its own (a fresh copy of the library).

mod common;

use common::loaded::Loaded;
use cudarc::driver::sys::cudaError_enum as E;
use std::ffi::c_void;

type Ptr = *mut c_void;

/// A table's id as NVIDIA's tools print it, as the 16 bytes cudart passes.
fn uuid(text: &str) -> [u8; 16] {
    let hex: String = text.chars().filter(|c| *c != '-').collect();
    std::array::from_fn(|i| u8::from_str_radix(&hex[2 * i..2 * i + 2], 16).unwrap())
}

const CUDART_INTERFACE: &str = "6bd5fb6c-5bf4-e74a-8987-d93912fd9df9";
const CONTEXT_LOCAL_STORAGE: &str = "c693336e-1121-df11-a8c3-68f355d89593";
const INTEGRITY_CHECK: &str = "d4082055-bde6-704b-8d34-ba123c66e1f2";

/// A driver with the primary context current, and its export tables.
struct Driver {
    library: Loaded,
}

impl Driver {
    fn with_context() -> Driver {
        Driver {
            library: Loaded::with_context(),
        }
    }

    /// The table with id `text`, or the driver's refusal.
    fn table(&self, text: &str) -> Result<*const usize, E> {
        // SAFETY: the driver API's signature; a writable pointer and a 16-byte id.
        unsafe {
            let get: unsafe extern "C" fn(*mut *const c_void, *const [u8; 16]) -> E =
                self.library.get("cuGetExportTable");
            let mut table: *const c_void = std::ptr::null();
            match get(&mut table, &uuid(text)) {
                E::CUDA_SUCCESS => Ok(table.cast()),
                refused => Err(refused),
            }
        }
    }

    /// Slot `slot` of table `text`, as a function of type `F`.
    ///
    /// # Safety
    /// `F` is the slot's signature.
    unsafe fn slot<F: Copy>(&self, text: &str, slot: usize) -> F {
        let table = self.table(text).unwrap();
        // SAFETY: the table's slots are function addresses, by the driver's contract.
        unsafe { std::mem::transmute_copy::<usize, F>(&*table.add(slot)) }
    }
}

#[test]
fn an_unknown_table_is_refused_and_a_known_one_gives_its_size() {
    let driver = Driver::with_context();
    let unknown = "f8cff951-2146-8b4e-b9e2-fb469e7c0dd9";
    assert_eq!(driver.table(unknown), Err(E::CUDA_ERROR_NOT_SUPPORTED));
    let cudart = driver.table(CUDART_INTERFACE).unwrap();
    // SAFETY: slot 0 of the table is its size in bytes: 13 slots.
    assert_eq!(unsafe { *cudart }, 13 * 8);
}

#[test]
fn a_slot_the_driver_does_not_know_refuses_without_crashing() {
    let driver = Driver::with_context();
    // SAFETY: an unknown slot takes any arguments and answers a CUresult.
    let unknown: unsafe extern "C" fn() -> E = unsafe { driver.slot(CUDART_INTERFACE, 3) };
    // SAFETY: as above.
    assert_eq!(unsafe { unknown() }, E::CUDA_ERROR_NOT_SUPPORTED);
}

#[test]
fn context_local_storage_keeps_a_value_per_key_until_it_is_removed() {
    let driver = Driver::with_context();
    type Store = unsafe extern "C" fn(Ptr, Ptr, Ptr, Ptr) -> E;
    type Remove = unsafe extern "C" fn(Ptr, Ptr) -> E;
    type Fetch = unsafe extern "C" fn(*mut Ptr, Ptr, Ptr) -> E;
    // SAFETY: the slots' signatures (context, key, value, destructor), (context, key) and
    // (value out, context, key); a null context means the current one.
    unsafe {
        let store: Store = driver.slot(CONTEXT_LOCAL_STORAGE, 0);
        let remove: Remove = driver.slot(CONTEXT_LOCAL_STORAGE, 1);
        let fetch: Fetch = driver.slot(CONTEXT_LOCAL_STORAGE, 2);
        let null = std::ptr::null_mut();
        let key = 0x1234 as Ptr;
        let mut value: Ptr = null;
        assert_eq!(fetch(&mut value, null, key), E::CUDA_ERROR_INVALID_HANDLE);
        assert_eq!(store(null, key, 0xbeef as Ptr, null), E::CUDA_SUCCESS);
        assert_eq!(fetch(&mut value, null, key), E::CUDA_SUCCESS);
        assert_eq!(value as usize, 0xbeef);
        assert_eq!(
            fetch(&mut value, null, 0x99 as Ptr),
            E::CUDA_ERROR_INVALID_HANDLE
        );
        assert_eq!(remove(null, key), E::CUDA_SUCCESS);
        assert_eq!(fetch(&mut value, null, key), E::CUDA_ERROR_INVALID_HANDLE);
    }
}

#[test]
fn a_registered_fat_binary_becomes_a_module_with_its_kernel() {
    let driver = Driver::with_context();
    let fatbin = include_bytes!("fixtures/fatbin/zstd.fatbin").to_vec();
    // What __cudaRegisterFatBinary is given: magic, version 1, the fat binary, no file name.
    let wrapper: [u64; 3] = [0x4662_43B1 | 1 << 32, fatbin.as_ptr() as u64, 0];
    // SAFETY: slot 1 (module out, wrapper) and the driver API's cuModuleGetFunction; the
    // wrapper and the fat binary it points at outlive the calls.
    unsafe {
        let load: unsafe extern "C" fn(*mut Ptr, *const c_void) -> E =
            driver.slot(CUDART_INTERFACE, 1);
        let mut module: Ptr = std::ptr::null_mut();
        assert_eq!(load(&mut module, wrapper.as_ptr().cast()), E::CUDA_SUCCESS);
        let get: unsafe extern "C" fn(*mut Ptr, Ptr, *const i8) -> E =
            driver.library.get("cuModuleGetFunction");
        let mut function: Ptr = std::ptr::null_mut();
        let name = c"_Z3addPKfS0_Pfi";
        assert_eq!(get(&mut function, module, name.as_ptr()), E::CUDA_SUCCESS);
    }
}

#[test]
fn the_integrity_check_answers_the_fixed_value_for_a_version_ending_in_0() {
    let driver = Driver::with_context();
    // SAFETY: slot 1's signature (runtime version, time, 16 bytes out).
    unsafe {
        let check: unsafe extern "C" fn(u32, u64, *mut [u64; 2]) -> E =
            driver.slot(INTEGRITY_CHECK, 1);
        let mut answer = [0u64; 2];
        assert_eq!(check(13000, 1_700_000_000, &mut answer), E::CUDA_SUCCESS);
        assert_eq!(answer, [0x3341_181C_03CB_675C, 0x8ED3_83AA_1F4C_D1E8]);
        let mut computed = [0u64; 2];
        assert_eq!(check(13002, 1_700_000_000, &mut computed), E::CUDA_SUCCESS);
        assert_ne!(computed, answer);
    }
}
