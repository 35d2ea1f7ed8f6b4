//! INTEGRITY_CHECK (`d4082055-...`): the runtime's check that it talks to NVIDIA's driver. It
//! calls slot 1 three times at start-up, with its own version (13000 + 0, 1 and 2 for cudart
//! 13.0), the time, and where to write 16 bytes; it computes the same answer itself and stops
//! with `cudaErrorSoftwareValidityNotEstablished` (103) on a mismatch. For version digits 0 and 1
//! the answer is a constant; for 2, an HMAC over MD2, with a fixed key, of the driver's version,
//! the runtime's, the process and thread, the addresses of two tables and of this function, the
//! time, and each device's UUID and PCI place (ZLUDA's `integrity_check` found this out).

use super::{unknown_slot, Slots, Table};
use cudarc::driver::sys::{cudaError_enum as E, CUdevice_attribute as A, CUresult};
use hmac::{Mac, SimpleHmac};
use std::ffi::{c_int, c_void};

const T: usize = Table::IntegrityCheck as usize;

pub(crate) static TABLE: Slots<3> = Slots([
    Slots::<3>::SIZE,
    integrity_check as *const c_void,
    unknown_slot::<T, 2> as *const c_void,
]);

/// The answers that depend on nothing, for version digits 0 and 1 (in memory order).
const FIXED: [[u64; 2]; 2] = [
    [0x3341_181C_03CB_675C, 0x8ED3_83AA_1F4C_D1E8],
    [0x1841_181C_03CB_675C, 0x8ED3_83AA_1F4C_D1E8],
];

/// The HMAC's key.
const KEY: [u8; 16] = [
    0x14, 0x6A, 0xDD, 0xAE, 0x53, 0xA9, 0xA7, 0x52, 0xAA, 0x08, 0x41, 0x36, 0x0B, 0xF5, 0x5A, 0x9F,
];

/// What goes into the answer besides the device, as the runtime lays it out (C, 64-bit).
pub(crate) struct Inputs {
    pub driver_version: u32,
    pub runtime_version: u32,
    pub process: u32,
    pub thread: u32,
    pub runtime_table: usize,
    pub integrity_table: usize,
    pub function: usize,
    pub unix_seconds: u64,
}

/// A device as it enters the answer.
pub(crate) struct Device {
    pub uuid: [u8; 16],
    pub pci_domain: i32,
    pub pci_bus: i32,
    pub pci_device: i32,
}

/// The 16 bytes the runtime expects.
pub(crate) fn answer(inputs: &Inputs, devices: &[Device]) -> [u8; 16] {
    let digit = inputs.runtime_version % 10;
    if let Some(&[low, high]) = FIXED.get(digit as usize) {
        let mut bytes = [0; 16];
        bytes[..8].copy_from_slice(&low.to_ne_bytes());
        bytes[8..].copy_from_slice(&high.to_ne_bytes());
        return bytes;
    }
    let mut mac = SimpleHmac::<md2::Md2>::new_from_slice(&KEY).expect("HMAC takes any key");
    for word in [
        inputs.driver_version,
        inputs.runtime_version,
        inputs.process,
        inputs.thread,
    ] {
        mac.update(&word.to_ne_bytes());
    }
    for address in [
        inputs.runtime_table,
        inputs.integrity_table,
        inputs.function,
    ] {
        mac.update(&address.to_ne_bytes());
    }
    mac.update(&inputs.unix_seconds.to_ne_bytes());
    for device in devices {
        mac.update(&device.uuid);
        for place in [device.pci_domain, device.pci_bus, device.pci_device] {
            mac.update(&place.to_ne_bytes());
        }
    }
    mac.finalize().into_bytes().into()
}

/// The simulated device, as `cuDeviceGetUuid` and `cuDeviceGetAttribute` describe it.
fn simulated_device() -> Device {
    let attribute = |a: A| crate::device::attribute(a as c_int);
    Device {
        uuid: crate::device::UUID,
        pci_domain: attribute(A::CU_DEVICE_ATTRIBUTE_PCI_DOMAIN_ID),
        pci_bus: attribute(A::CU_DEVICE_ATTRIBUTE_PCI_BUS_ID),
        pci_device: attribute(A::CU_DEVICE_ATTRIBUTE_PCI_DEVICE_ID),
    }
}

/// Slot 1.
///
/// # Safety
/// `result` is null or valid for a write of 16 bytes.
unsafe extern "C" fn integrity_check(
    version: u32,
    unix_seconds: u64,
    result: *mut [u8; 16],
) -> CUresult {
    if result.is_null() {
        return E::CUDA_ERROR_INVALID_VALUE;
    }
    let inputs = Inputs {
        driver_version: crate::device::DRIVER_VERSION as u32,
        runtime_version: version,
        process: std::process::id(),
        // The runtime takes the thread's pthread_t, cut to 32 bits.
        // SAFETY: pthread_self has no preconditions.
        thread: unsafe { libc::pthread_self() } as u32,
        runtime_table: super::cudart::TABLE.0.as_ptr() as usize,
        integrity_table: TABLE.0.as_ptr() as usize,
        function: TABLE.0[1] as usize,
        unix_seconds,
    };
    // SAFETY: the caller's contract.
    unsafe { result.write(answer(&inputs, &[simulated_device()])) };
    E::CUDA_SUCCESS
}

#[cfg(test)]
mod tests {
    use super::*;

    fn inputs(runtime_version: u32) -> Inputs {
        Inputs {
            driver_version: 13000,
            runtime_version,
            process: 4242,
            thread: 0xf79c_1000,
            runtime_table: 0x7fff_f695_8240,
            integrity_table: 0x7fff_f695_8220,
            function: 0x7fff_f2aa_f4a0,
            unix_seconds: 0x682b_9cee,
        }
    }

    #[test]
    fn versions_ending_in_0_and_1_get_fixed_answers() {
        let zero = answer(&inputs(13000), &[]);
        assert_eq!(zero[..8], 0x3341_181C_03CB_675Cu64.to_ne_bytes());
        assert_ne!(answer(&inputs(13001), &[]), zero);
        assert_eq!(answer(&inputs(12080), &[simulated_device()]), zero);
    }

    #[test]
    fn the_computed_answer_depends_on_every_input() {
        let device = || simulated_device();
        let base = answer(&inputs(13002), &[device()]);
        let mut other_time = inputs(13002);
        other_time.unix_seconds += 1;
        let mut other_table = inputs(13002);
        other_table.runtime_table += 8;
        let mut other_uuid = device();
        other_uuid.uuid[0] ^= 1;
        for changed in [
            answer(&other_time, &[device()]),
            answer(&other_table, &[device()]),
            answer(&inputs(13002), &[other_uuid]),
            answer(&inputs(13002), &[]),
        ] {
            assert_ne!(changed, base);
        }
    }
}
