//! The fat-binary parser on fixtures nvcc 13 made (`driver/tests/fixtures/fatbin/make.sh`).

use super::*;

const PLAIN: &[u8] = include_bytes!("../tests/fixtures/fatbin/plain.fatbin");
const LZ4_FIXTURE: &[u8] = include_bytes!("../tests/fixtures/fatbin/lz4.fatbin");
const ZSTD_FIXTURE: &[u8] = include_bytes!("../tests/fixtures/fatbin/zstd.fatbin");
const TWO_PTX: &[u8] = include_bytes!("../tests/fixtures/fatbin/two_ptx.fatbin");
const SM_80_ONLY: &[u8] = include_bytes!("../tests/fixtures/fatbin/sm_80_only.fatbin");

#[test]
fn plain_ptx_is_the_kernel_the_simulator_parses() {
    let ptx = ptx(PLAIN).unwrap();
    assert!(ptx.contains(".target sm_80"), "{ptx}");
    assert!(!ptx.ends_with('\0'));
    let module = sim::Module::parse(&ptx).unwrap();
    assert!(module.kernel("_Z3addPKfS0_Pfi").is_some());
}

#[test]
fn lz4_and_zstd_payloads_decompress_to_the_same_ptx() {
    let plain = ptx(PLAIN).unwrap();
    for (name, fatbin, compression) in [("lz4", LZ4_FIXTURE, LZ4), ("zstd", ZSTD_FIXTURE, ZSTD)] {
        let stored = &entries(fatbin).unwrap()[0];
        assert!(
            matches!(
                (stored.compression, compression),
                (Compression::Lz4 { .. }, LZ4) | (Compression::Zstd { .. }, ZSTD)
            ),
            "{name}: {:?}",
            stored.compression
        );
        assert!(
            stored.payload.len() < plain.len(),
            "{name} is not compressed"
        );
        assert_eq!(ptx(fatbin).unwrap(), plain, "{name}");
    }
}

#[test]
fn of_two_ptx_files_the_newest_architecture_is_taken() {
    let archs: Vec<_> = entries(TWO_PTX)
        .unwrap()
        .iter()
        .map(|e| (e.kind, e.arch))
        .collect();
    assert_eq!(archs, [(Kind::Ptx, 80), (Kind::Ptx, 90)]);
    assert!(ptx(TWO_PTX).unwrap().contains(".target sm_90"));
}

#[test]
fn machine_code_only_is_refused_with_what_to_build_instead() {
    let err = ptx(SM_80_ONLY).unwrap_err();
    assert_eq!(
        err,
        FatbinError::NoPtx {
            machine_code_for: vec![80]
        }
    );
    assert!(err.to_string().contains("code=compute_80"), "{err}");
}

#[test]
fn an_empty_fat_binary_names_relocatable_device_code() {
    // What nvcc -rdc=true leaves in .nv_fatbin: a header and no files.
    let mut empty = MAGIC.to_vec();
    empty.extend_from_slice(&[1, 0, 16, 0]);
    empty.extend_from_slice(&0u64.to_le_bytes());
    let err = ptx(&empty).unwrap_err();
    assert_eq!(err, FatbinError::Empty);
    assert!(err.to_string().contains("-rdc=true"), "{err}");
}

#[test]
fn a_cut_short_or_foreign_image_is_an_error_not_a_panic() {
    assert_eq!(ptx(b"// PTX text"), Err(FatbinError::NotAFatBinary));
    for cut in [8, 20, 60, PLAIN.len() - 100] {
        assert!(
            matches!(ptx(&PLAIN[..cut]), Err(FatbinError::Truncated { .. })),
            "cut at {cut}"
        );
    }
    let mut corrupt = ZSTD_FIXTURE.to_vec();
    let payload = corrupt.len() - 200;
    corrupt[payload..payload + 8].fill(0xff);
    assert!(matches!(
        ptx(&corrupt),
        Err(FatbinError::Decompress { arch: 80, .. })
    ));
}

#[test]
fn a_fat_binary_is_found_through_its_wrapper_and_sized_by_its_header() {
    // As nvcc lays them out: the wrapper points at the fat binary, which has more after it.
    let mut memory = ZSTD_FIXTURE.to_vec();
    memory.extend_from_slice(&[0xAB; 64]);
    let wrapper: [u64; 3] = [
        u64::from(WRAPPER_MAGIC) | 1 << 32,
        memory.as_ptr() as u64,
        0,
    ];
    // SAFETY: the wrapper points at a whole fat binary in `memory`.
    let found = unsafe { of_wrapper(wrapper.as_ptr().cast()) }.unwrap();
    assert_eq!(found, ZSTD_FIXTURE);
    // SAFETY: `memory` starts with a whole fat binary.
    let direct = unsafe { of_wrapper(memory.as_ptr().cast()) }.unwrap();
    assert_eq!(direct, ZSTD_FIXTURE);
}
