//! The CUDA versions at which a driver entry point changed, as NVIDIA's driver answers
//! `cuGetProcAddress` by them: asked for `name` at CUDA version `v`, it gives the newest form
//! introduced at or before `v`: the first form is `name` itself, the next `name_v2`, then `name_v3`
//! (`cuCtxCreate` at 3020 is `cuCtxCreate_v2`, at 12050 and later `cuCtxCreate_v4`).
//!
//! The versions are those of the `PFN_<name>_v<version>` typedefs in CUDA 13.0's cudaTypedefs.h
//! (the header that says which form each version means), for every name with more than one form;
//! a name with one form is itself at any version. NVIDIA's Python bindings (cuda-bindings 12.9)
//! ask for each of these forms at exactly these versions; NVIDIA's driver on an H100 (580.159)
//! answered every form at every version here alike (scripts/gpu/driver-answers). Where two forms' typedefs take the same
//! arguments (`same`), the later one serves a caller of the earlier where this driver lacks it
//! (`cuDevicePrimaryCtxRelease` at 7000 gets `cuDevicePrimaryCtxRelease_v2`).

/// One form of an entry point: the CUDA version that introduced it, and whether it takes the
/// arguments of the form before it.
pub(super) struct Form {
    since: u32,
    same_arguments: bool,
}

const fn new(since: u32) -> Form {
    Form {
        since,
        same_arguments: false,
    }
}

const fn same(since: u32) -> Form {
    Form {
        since,
        same_arguments: true,
    }
}

/// Each entry point with more than one form: its base name and its forms, oldest first.
pub(super) const FORMS: &[(&str, &[Form])] = &[
    ("cuArray3DCreate", &[new(2000), new(3020)]),
    ("cuArray3DGetDescriptor", &[new(2000), new(3020)]),
    ("cuArrayCreate", &[new(2000), new(3020)]),
    ("cuArrayGetDescriptor", &[new(2000), new(3020)]),
    (
        "cuCtxCreate",
        &[new(2000), same(3020), new(11040), new(12050)],
    ),
    ("cuCtxDestroy", &[new(2000), same(4000)]),
    ("cuCtxGetDevice", &[new(2000), new(13000)]),
    ("cuCtxPopCurrent", &[new(2000), same(4000)]),
    ("cuCtxPushCurrent", &[new(2000), same(4000)]),
    ("cuCtxSynchronize", &[new(2000), new(13000)]),
    ("cuDeviceGetUuid", &[new(9020), same(11040)]),
    ("cuDevicePrimaryCtxRelease", &[new(7000), same(11000)]),
    ("cuDevicePrimaryCtxReset", &[new(7000), same(11000)]),
    ("cuDevicePrimaryCtxSetFlags", &[new(7000), same(11000)]),
    ("cuDeviceTotalMem", &[new(2000), new(3020)]),
    ("cuEventDestroy", &[new(2000), same(4000)]),
    ("cuEventElapsedTime", &[new(2000), same(12080)]),
    ("cuGetProcAddress", &[new(11030), new(12000)]),
    ("cuGraphAddDependencies", &[new(10000), new(12030)]),
    ("cuGraphAddKernelNode", &[new(10000), new(12000)]),
    ("cuGraphAddNode", &[new(12020), new(12030)]),
    ("cuGraphExecKernelNodeSetParams", &[new(10010), new(12000)]),
    ("cuGraphExecUpdate", &[new(10020), new(12000)]),
    ("cuGraphGetEdges", &[new(10000), new(12030)]),
    ("cuGraphInstantiate", &[new(10000), same(11000)]),
    ("cuGraphKernelNodeGetParams", &[new(10000), new(12000)]),
    ("cuGraphKernelNodeSetParams", &[new(10000), new(12000)]),
    ("cuGraphNodeGetDependencies", &[new(10000), new(12030)]),
    ("cuGraphNodeGetDependentNodes", &[new(10000), new(12030)]),
    ("cuGraphRemoveDependencies", &[new(10000), new(12030)]),
    (
        "cuGraphicsResourceGetMappedPointer",
        &[new(3000), new(3020)],
    ),
    ("cuGraphicsResourceSetMapFlags", &[new(3000), same(6050)]),
    ("cuIpcOpenMemHandle", &[new(4010), same(11000)]),
    ("cuLinkAddData", &[new(5050), same(6050)]),
    ("cuLinkAddFile", &[new(5050), same(6050)]),
    ("cuLinkCreate", &[new(5050), same(6050)]),
    ("cuMemAdvise", &[new(8000), new(12020)]),
    ("cuMemAlloc", &[new(2000), new(3020)]),
    ("cuMemAllocHost", &[new(2000), new(3020)]),
    ("cuMemAllocPitch", &[new(2000), new(3020)]),
    ("cuMemFree", &[new(2000), new(3020)]),
    ("cuMemGetAddressRange", &[new(2000), new(3020)]),
    ("cuMemGetInfo", &[new(2000), new(3020)]),
    ("cuMemHostGetDevicePointer", &[new(2020), new(3020)]),
    ("cuMemHostRegister", &[new(4000), same(6050)]),
    ("cuMemPrefetchAsync", &[new(8000), new(12020)]),
    ("cuMemcpy2D", &[new(2000), new(3020)]),
    ("cuMemcpy2DAsync", &[new(2000), new(3020)]),
    ("cuMemcpy2DUnaligned", &[new(2000), new(3020)]),
    ("cuMemcpy3D", &[new(2000), new(3020)]),
    ("cuMemcpy3DAsync", &[new(2000), new(3020)]),
    ("cuMemcpy3DBatchAsync", &[new(12080), new(13000)]),
    ("cuMemcpyAtoA", &[new(2000), new(3020)]),
    ("cuMemcpyAtoD", &[new(2000), new(3020)]),
    ("cuMemcpyAtoH", &[new(2000), new(3020)]),
    ("cuMemcpyAtoHAsync", &[new(2000), new(3020)]),
    ("cuMemcpyBatchAsync", &[new(12080), new(13000)]),
    ("cuMemcpyDtoA", &[new(2000), new(3020)]),
    ("cuMemcpyDtoD", &[new(2000), new(3020)]),
    ("cuMemcpyDtoDAsync", &[new(3000), new(3020)]),
    ("cuMemcpyDtoH", &[new(2000), new(3020)]),
    ("cuMemcpyDtoHAsync", &[new(2000), new(3020)]),
    ("cuMemcpyHtoA", &[new(2000), new(3020)]),
    ("cuMemcpyHtoAAsync", &[new(2000), new(3020)]),
    ("cuMemcpyHtoD", &[new(2000), new(3020)]),
    ("cuMemcpyHtoDAsync", &[new(2000), new(3020)]),
    ("cuMemsetD16", &[new(2000), new(3020)]),
    ("cuMemsetD2D16", &[new(2000), new(3020)]),
    ("cuMemsetD2D32", &[new(2000), new(3020)]),
    ("cuMemsetD2D8", &[new(2000), new(3020)]),
    ("cuMemsetD32", &[new(2000), new(3020)]),
    ("cuMemsetD8", &[new(2000), new(3020)]),
    ("cuModuleGetGlobal", &[new(2000), new(3020)]),
    ("cuStreamBatchMemOp", &[new(8000), same(11070)]),
    ("cuStreamBeginCapture", &[new(10000), new(10010)]),
    ("cuStreamDestroy", &[new(2000), same(4000)]),
    (
        "cuStreamGetCaptureInfo",
        &[new(10010), new(11030), new(12030)],
    ),
    ("cuStreamGetCtx", &[new(9020), new(12050)]),
    (
        "cuStreamUpdateCaptureDependencies",
        &[new(11030), new(12030)],
    ),
    ("cuStreamWaitValue32", &[new(8000), same(11070)]),
    ("cuStreamWaitValue64", &[new(9000), same(11070)]),
    ("cuStreamWriteValue32", &[new(8000), same(11070)]),
    ("cuStreamWriteValue64", &[new(9000), same(11070)]),
    ("cuTexRefGetAddress", &[new(2000), new(3020)]),
    ("cuTexRefSetAddress", &[new(2000), new(3020)]),
    ("cuTexRefSetAddress2D", &[new(2020), new(3020), same(4010)]),
];

/// Whether CUDA version `version` is older than `name`'s first form: NVIDIA's driver then gives
/// no address, with CU_GET_PROC_ADDRESS_VERSION_NOT_SUFFICIENT and CUDA_SUCCESS (seen on an
/// H100, driver 580.159: scripts/gpu/driver-answers/proc_address.sh).
pub(super) fn too_old(name: &str, version: i32) -> bool {
    FORMS
        .iter()
        .find(|(base, _)| *base == name)
        .is_some_and(|(_, forms)| i64::from(version) < i64::from(forms[0].since))
}

/// The symbols that can answer for `name` at CUDA version `version`, best first: the form that
/// version means, then later forms that take the same arguments; None where `name` has one
/// form. (A version older than the first form is [`too_old`]; here it gets the first form.)
pub(super) fn forms(name: &str, version: i32) -> Option<Vec<String>> {
    let (_, forms) = FORMS.iter().find(|(base, _)| *base == name)?;
    let symbol = |k: usize| match k {
        0 => name.to_string(),
        k => format!("{name}_v{}", k + 1),
    };
    let meant = forms
        .iter()
        .filter(|f| i64::from(f.since) <= i64::from(version))
        .count()
        .saturating_sub(1);
    let alike = forms[meant + 1..]
        .iter()
        .take_while(|f| f.same_arguments)
        .count();
    Some((meant..=meant + alike).map(symbol).collect())
}

#[cfg(test)]
mod tests {
    use super::{forms, too_old};

    #[test]
    fn a_version_means_the_newest_form_begun_by_then_and_alike_forms_stand_in() {
        let at = |name, version| forms(name, version).unwrap();
        assert_eq!(at("cuCtxCreate", 13000), ["cuCtxCreate_v4"]);
        assert_eq!(at("cuCtxCreate", 12049), ["cuCtxCreate_v3"]);
        assert_eq!(at("cuCtxCreate", 2000), ["cuCtxCreate", "cuCtxCreate_v2"]);
        assert_eq!(at("cuCtxSynchronize", 13000), ["cuCtxSynchronize_v2"]);
        assert_eq!(at("cuCtxSynchronize", 12090), ["cuCtxSynchronize"]);
        assert_eq!(
            at("cuDevicePrimaryCtxRelease", 7000),
            ["cuDevicePrimaryCtxRelease", "cuDevicePrimaryCtxRelease_v2"]
        );
        assert_eq!(
            at("cuStreamGetCaptureInfo", 12030),
            ["cuStreamGetCaptureInfo_v3"]
        );
        assert_eq!(
            at("cuTexRefSetAddress2D", 3020),
            ["cuTexRefSetAddress2D_v2", "cuTexRefSetAddress2D_v3"]
        );
        assert!(too_old("cuMemAlloc", 1999) && !too_old("cuMemAlloc", 2000));
        assert!(!too_old("cuLaunchKernel", 0));
        assert_eq!(forms("cuLaunchKernel", 12000), None);
    }
}
