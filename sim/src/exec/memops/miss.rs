//! The kernel's own names for the allocation a bad global access was nearest: the parameter whose
//! pointer is its base, else the `__device__` variable there.

use crate::analyse::global::LaunchView;
use crate::report::NearAllocation;

/// Fills in `allocation`'s argument (the first pointer parameter holding its base) or, where
/// none does, the `__device__` variable that starts there.
pub(super) fn name(l: &LaunchView, allocation: &mut NearAllocation) {
    allocation.argument = pointer_arguments(l)
        .find(|&(_, ptr)| ptr == allocation.base)
        .map(|(i, _)| i);
    if allocation.argument.is_none() {
        allocation.variable = l
            .global_names
            .iter()
            .find(|(base, _)| *base == allocation.base)
            .map(|(_, name)| name.clone());
    }
}

/// Each 8-byte parameter (0-based) with the value the launch gave it.
fn pointer_arguments<'a>(l: &'a LaunchView) -> impl Iterator<Item = (u32, u64)> + 'a {
    l.prog.params.iter().enumerate().filter_map(|(i, p)| {
        if p.size_bytes != 8 {
            return None;
        }
        let off = l.prog.param_offsets[i] as usize;
        let bytes = l.params.get(off..off + 8)?;
        let ptr = u64::from_le_bytes(bytes.try_into().expect("8 bytes"));
        Some((i as u32, ptr))
    })
}
