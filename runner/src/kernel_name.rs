//! Kernels by the names their source gave them: the driver and the simulator see the mangled
//! symbol (`_Z4spinPf`, Numba's `_ZN8__main__3addB2v1B92...E5ArrayIf...`), which says nothing to
//! the student who wrote `spin` or `add`.

/// A kernel's name as its source wrote it, for C++ names (`_Z4spinPf` is `spin`) and Numba's
/// (`_ZN8__main__3addB2v1B92...E5ArrayIf...` is `__main__::add`): the mangled name's
/// components up to the first that is not a plain name. Anything else is shown as it is.
pub fn short_name(mangled: &str) -> String {
    let Some(rest) = mangled.strip_prefix("_Z") else {
        return mangled.to_string();
    };
    let (mut rest, nested) = match rest.strip_prefix('N') {
        Some(inner) => (inner, true),
        None => (rest, false),
    };
    let mut parts = Vec::new();
    loop {
        let digits = rest.len() - rest.trim_start_matches(|c: char| c.is_ascii_digit()).len();
        let Ok(len) = rest[..digits].parse::<usize>() else {
            break;
        };
        let Some(part) = rest.get(digits..digits + len) else {
            break;
        };
        parts.push(part);
        rest = &rest[digits + len..];
        if !nested {
            break;
        }
    }
    if parts.is_empty() {
        mangled.to_string()
    } else {
        parts.join("::")
    }
}

#[cfg(test)]
mod tests {
    use super::short_name;

    #[test]
    fn mangled_kernel_names_are_shown_as_written() {
        assert_eq!(short_name("_Z4spinxPx"), "spin");
        assert_eq!(
            short_name("_ZN8__main__3addB2v1B92cw51cXTLSUwE5ArrayIfLi1E"),
            "__main__::add"
        );
        assert_eq!(short_name("vector_add"), "vector_add");
        assert_eq!(short_name("_Zbad"), "_Zbad");
    }
}
