//! A kernel's arrays by the names a whole program's source gives them, from what the simulator
//! knows them by (a PTX parameter's number, Numba's `_cudapy_smem_1`): a diagnostic in a
//! program's kernel then names `counts` or `tile`, as a kernel exercise's names its buffer,
//! rather than "one of the kernel's arrays".
//!
//! A CUDA C++ kernel has one PTX parameter per source parameter. Numba passes each argument as
//! the fields of its data model, one PTX parameter each: an array of `ndim` dimensions as its
//! meminfo, parent, size, item size, data pointer, then `ndim` extents and `ndim` strides; a
//! tuple as its members; a complex number as its two parts. Numba's mangled kernel name lists
//! the argument types (numba-cuda's `itanium_mangler.py`), so the widths are read from it.

use super::record::Launch;
use crate::checker::verdict::named_element;

/// The words for the array a race touched, by the names the kernel's source (the file of the
/// diagnostic's line) gives it: "element 15 of `counts`" for a kernel parameter; "`tile` (byte
/// 132 of it)" for a Numba shared array, which the PTX knows as `_cudapy_smem_1`. A Numba
/// kernel's global array is "one of the kernel's arrays" where the source cannot say: the
/// simulator's parameter number counts Numba's fields, not the Python function's parameters.
/// None keeps the simulator's own words.
pub(super) fn race_array_words(
    launch: &Launch,
    d: &sim::Diagnostic,
    python: bool,
) -> Option<String> {
    let location = d.location.as_ref();
    let source = || location.and_then(|l| std::fs::read_to_string(&l.file).ok());
    match &d.race.as_deref()?.place {
        sim::RacePlace::Global {
            argument: Some(argument),
            element,
            ..
        } => {
            let named = source()
                .and_then(|source| parameter_name(&launch.kernel, &source, *argument, python));
            match named {
                Some(name) => Some(named_element(*element, &format!("`{name}`"))),
                None if python => Some(named_element(*element, "one of the kernel's arrays")),
                None => None,
            }
        }
        sim::RacePlace::Shared {
            variable: Some(variable),
            byte,
        } if python && variable.starts_with(NUMBA_SHARED_PREFIX) => {
            let line = location?.line;
            let name = numba_shared_array_at(&source()?, line)?;
            Some(format!("`{name}` (byte {byte} of it)"))
        }
        _ => None,
    }
}

/// A bad global access with the array it was nearest named as the kernel's source names it: the
/// diagnostic's message ("164 bytes past the end of `counts` (16 bytes)") and, for an access past
/// the end, what keeps a thread inside the array, in the program's language. None keeps the
/// simulator's words (the allocation by address), where no kernel parameter points at the
/// allocation or the source does not say its name.
pub(super) fn bad_access_words(
    launch: &Launch,
    d: &sim::Diagnostic,
    python: bool,
) -> Option<(String, Option<String>)> {
    let access = d.access.as_deref()?;
    let miss = access.global_miss()?;
    let argument = miss.allocation()?.argument?;
    let source = std::fs::read_to_string(&d.location.as_ref()?.file).ok()?;
    let (name, width) = parameter_of(&launch.kernel, &source, argument, python)?;
    let message =
        access.describe(&|a: &sim::NearAllocation| format!("`{name}` ({} bytes)", a.size));
    let guard = match (python, width) {
        (true, NUMBA_2D_ARRAY) => {
            format!("`if row < {name}.shape[0] and col < {name}.shape[1]`")
        }
        (true, _) => format!("`if i < {name}.size`"),
        (false, _) => "`if (i < n)` or, in 2D, `if (row < rows && col < cols)`".to_string(),
    };
    let advice = miss.is_past_the_end().then(|| {
        format!(
            "No thread may reach past the end of `{name}`: guard the access with the array's \
             size, as in {guard} (the grid is rounded up to whole blocks), or keep the index \
             inside the array at its edges"
        )
    });
    Some((message, advice))
}

/// The PTX parameters of a Numba 2D array: meminfo, parent, size, item size, data, 2 extents
/// and 2 strides.
const NUMBA_2D_ARRAY: u32 = 9;

/// How Numba names a `cuda.shared.array` in the PTX (`_cudapy_smem_1`), numbered across the
/// whole program rather than the kernel.
const NUMBA_SHARED_PREFIX: &str = "_cudapy_smem";

/// The one shared array (a name assigned `cuda.shared.array(...)` in `source`) that line `line`
/// subscripts. None where it subscripts none of them, or several.
fn numba_shared_array_at(source: &str, line: u32) -> Option<String> {
    let shared: Vec<&str> = source
        .lines()
        .filter_map(|l| {
            let (name, value) = l.split_once('=')?;
            let value = value.trim_start();
            (value.starts_with("cuda.shared.array(")
                || value.starts_with("numba.cuda.shared.array("))
            .then(|| name.trim())
            .filter(|n| n.chars().all(|c| c.is_alphanumeric() || c == '_'))
        })
        .collect();
    let text = source
        .lines()
        .nth(usize::try_from(line).ok()?.checked_sub(1)?)?;
    let mut subscripted: Vec<&str> = shared
        .into_iter()
        .filter(|name| {
            text.match_indices(name).any(|(at, _)| {
                let before = text[..at].chars().next_back();
                let word_start =
                    !before.is_some_and(|c| c.is_alphanumeric() || c == '_' || c == '.');
                word_start && text[at + name.len()..].trim_start().starts_with('[')
            })
        })
        .collect();
    subscripted.dedup();
    match subscripted.as_slice() {
        [one] => Some(one.to_string()),
        _ => None,
    }
}

/// The name the source gives the parameter that PTX numbers `argument` (0-based) of `kernel`
/// (its mangled name), reading the kernel's definition in `source`. None where the source or
/// the name cannot be read with certainty: the caller then keeps its unnamed wording.
pub(super) fn parameter_name(
    kernel: &str,
    source: &str,
    argument: u32,
    python: bool,
) -> Option<String> {
    parameter_of(kernel, source, argument, python).map(|(name, _)| name)
}

/// The name the source gives the parameter that PTX numbers `argument` of `kernel`, with the
/// number of PTX parameters it takes (a Numba array of `ndim` dimensions, `5 + 2 * ndim`).
fn parameter_of(kernel: &str, source: &str, argument: u32, python: bool) -> Option<(String, u32)> {
    let name = crate::kernel_name::short_name(kernel);
    let name = name.rsplit("::").next().unwrap_or(&name);
    let (names, widths) = if python {
        let names = python_parameters(source, name)?;
        let widths = numba_widths(kernel)?;
        (names, widths)
    } else {
        let names = cuda_parameters(source, name)?;
        let widths = vec![1; names.len()];
        (names, widths)
    };
    if names.len() != widths.len() {
        return None;
    }
    let mut first = 0u32;
    for (name, width) in names.into_iter().zip(widths) {
        if (first..first + width).contains(&argument) {
            return Some((name, width));
        }
        first += width;
    }
    None
}

/// The parameters of `def name(...)` in a Python source, by name (defaults, annotations and the
/// `*` of keyword-only parameters left out). None if no such function is defined, or twice.
fn python_parameters(source: &str, name: &str) -> Option<Vec<String>> {
    let head = format!("def {name}(");
    let mut found = source.match_indices(&head).filter(|(at, _)| {
        let line_start = source[..*at].rfind('\n').map_or(0, |n| n + 1);
        source[line_start..*at].trim().is_empty() || source[line_start..*at].trim() == "async"
    });
    let (at, _) = found.next()?;
    if found.next().is_some() {
        return None;
    }
    let list = bracketed(&source[at + head.len()..])?;
    Some(
        split_top_level(list)
            .into_iter()
            .map(|p| p.split([':', '=']).next().unwrap_or("").trim().to_string())
            .filter(|p| !p.is_empty() && p != "*" && p != "/")
            .collect(),
    )
}

/// The parameters of `__global__ ... name(...)` in a CUDA C++ source, by name: the last
/// identifier of each declaration (`const float *__restrict__ x` is `x`).
fn cuda_parameters(source: &str, name: &str) -> Option<Vec<String>> {
    let mut found = source.match_indices("__global__").filter_map(|(at, _)| {
        // The declaration ends at its body or its semicolon; `__launch_bounds__(...)` may
        // stand before the name.
        let after = &source[at..];
        let head = &after[..after.find(['{', ';']).unwrap_or(after.len())];
        let mut from = 0;
        while let Some(offset) = head[from..].find(name) {
            let start = from + offset;
            let end = start + name.len();
            let word_start = !head[..start].ends_with(|c: char| c.is_alphanumeric() || c == '_');
            let rest = head[end..].trim_start();
            if word_start && rest.starts_with('(') {
                return Some(&rest[1..]);
            }
            from = end;
        }
        None
    });
    let list = bracketed(found.next()?)?;
    if found.next().is_some() {
        return None;
    }
    let list = list.trim();
    if list.is_empty() || list == "void" {
        return Some(Vec::new());
    }
    split_top_level(list)
        .into_iter()
        .map(|declaration| {
            let declaration = declaration.split('=').next().unwrap_or("");
            // An array parameter's extent (`int q[4]`) follows its name.
            let declaration = declaration.split('[').next().unwrap_or("").trim_end();
            let ident = declaration
                .rsplit(|c: char| !c.is_alphanumeric() && c != '_')
                .next()
                .filter(|i| !i.is_empty() && !i.starts_with(|c: char| c.is_ascii_digit()))?;
            Some(ident.to_string())
        })
        .collect()
}

/// The text up to the parenthesis that closes one already opened.
fn bracketed(text: &str) -> Option<&str> {
    let mut depth = 1;
    for (at, c) in text.char_indices() {
        match c {
            '(' => depth += 1,
            ')' => {
                depth -= 1;
                if depth == 0 {
                    return Some(&text[..at]);
                }
            }
            _ => {}
        }
    }
    None
}

/// `list` split at the commas outside any brackets (a template's `<a, b>`, a default's call).
fn split_top_level(list: &str) -> Vec<&str> {
    let (mut parts, mut depth, mut start) = (Vec::new(), 0i32, 0);
    for (at, c) in list.char_indices() {
        match c {
            '(' | '[' | '{' | '<' => depth += 1,
            ')' | ']' | '}' | '>' => depth -= 1,
            ',' if depth == 0 => {
                parts.push(&list[start..at]);
                start = at + 1;
            }
            _ => {}
        }
    }
    parts.push(&list[start..]);
    parts.into_iter().filter(|p| !p.trim().is_empty()).collect()
}

/// A type in Numba's mangling: a builtin's code, or a name with template arguments.
#[derive(Debug, PartialEq)]
enum Mangled {
    Builtin,
    Literal(i64),
    Named(String, Vec<Mangled>),
}

/// How many PTX parameters each argument of a Numba kernel takes, from its mangled name
/// (`_ZN8__main__9histogramB2v1B..E5ArrayIfLi1E1C7mutable7alignedE...`). None for a name that
/// is not Numba's, or an argument type whose data model is not known here.
fn numba_widths(mangled: &str) -> Option<Vec<u32>> {
    let rest = mangled.strip_prefix("_ZN")?;
    let mut rest = skip_nested_name(rest)?;
    let mut widths = Vec::new();
    while !rest.is_empty() {
        let (ty, after) = parse_type(rest)?;
        widths.push(width(&ty)?);
        rest = after;
    }
    Some(widths)
}

/// The PTX parameters one argument of this type takes (numba-cuda's data models).
fn width(ty: &Mangled) -> Option<u32> {
    match ty {
        Mangled::Builtin => Some(1),
        Mangled::Literal(_) => None,
        Mangled::Named(name, args) => match (name.as_str(), args.as_slice()) {
            ("Array", [_, Mangled::Literal(ndim), ..]) => Some(5 + 2 * u32::try_from(*ndim).ok()?),
            ("UniTuple", [member, Mangled::Literal(count)]) => {
                width(member)?.checked_mul(u32::try_from(*count).ok()?)
            }
            ("Tuple", members) => members.iter().map(width).sum(),
            ("complex64" | "complex128", []) => Some(2),
            _ => None,
        },
    }
}

/// Past the `N...E` of a nested name (its identifiers, ABI tags and template arguments).
fn skip_nested_name(mut rest: &str) -> Option<&str> {
    loop {
        if let Some(after) = rest.strip_prefix('E') {
            return Some(after);
        }
        if let Some(after) = rest.strip_prefix('B') {
            rest = identifier(after)?.1;
        } else if rest.starts_with('I') {
            rest = template_arguments(rest)?.1;
        } else {
            rest = identifier(rest)?.1;
        }
    }
}

/// `<length><text>`, and what follows it.
fn identifier(rest: &str) -> Option<(&str, &str)> {
    let digits = rest.len() - rest.trim_start_matches(|c: char| c.is_ascii_digit()).len();
    let len: usize = rest[..digits].parse().ok()?;
    let text = rest.get(digits..digits + len)?;
    Some((text, &rest[digits + len..]))
}

/// `I<arguments>E`, and what follows it.
fn template_arguments(rest: &str) -> Option<(Vec<Mangled>, &str)> {
    let mut rest = rest.strip_prefix('I')?;
    let mut arguments = Vec::new();
    loop {
        if let Some(after) = rest.strip_prefix('E') {
            return Some((arguments, after));
        }
        let (argument, after) = parse_type(rest)?;
        arguments.push(argument);
        rest = after;
    }
}

/// One type or value, and what follows it.
fn parse_type(rest: &str) -> Option<(Mangled, &str)> {
    if let Some(after) = rest.strip_prefix("Dh") {
        return Some((Mangled::Builtin, after));
    }
    if let Some(after) = rest.strip_prefix('L') {
        // A literal: its type's code, then its value, then E (`Li1E`).
        let after = after.get(1..)?;
        let end = after.find('E')?;
        let value = after[..end].replacen('n', "-", 1).parse().ok()?;
        return Some((Mangled::Literal(value), &after[end + 1..]));
    }
    if let Some(after) = rest.strip_prefix('N') {
        let start = after;
        let end = skip_nested_name(after)?;
        let name = identifier(start)
            .map(|(n, _)| n.to_string())
            .unwrap_or_default();
        return Some((Mangled::Named(name, Vec::new()), end));
    }
    let first = rest.chars().next()?;
    if "vbhatsjiyxfdc".contains(first) {
        return Some((Mangled::Builtin, &rest[1..]));
    }
    let (name, mut after) = identifier(rest)?;
    let mut arguments = Vec::new();
    if after.starts_with('I') {
        (arguments, after) = template_arguments(after)?;
    }
    while let Some(tag) = after.strip_prefix('B') {
        after = identifier(tag)?.1;
    }
    Some((Mangled::Named(name.to_string(), arguments), after))
}

#[cfg(test)]
mod tests {
    use super::*;

    const HISTOGRAM: &str = "_ZN8__main__9histogramB2v1B106cw51cXTLSUwv1sDUaKthqaNgoKmjgMVuW1AiA8\
        rAEg2UjxRKtuAIAMYDWpKAqkSkPiQB1BQFk0DyoW21Oizc1a0UoPGnDpQE8oxrNQE_3dE5ArrayIfLi1E1C7mutable\
        7alignedE5ArrayIiLi1E1C7mutable7alignedE";

    #[test]
    fn a_numba_arrays_fields_are_its_ptx_parameters() {
        assert_eq!(numba_widths(HISTOGRAM), Some(vec![7, 7]));
        // A 2D array, a float, an int64 and a tuple of two floats.
        let mixed = "_ZN8__main__1kB2v1E5ArrayIdLi2E1A7mutable7alignedEfx8UniTupleIfLi2EE";
        assert_eq!(numba_widths(mixed), Some(vec![9, 1, 1, 2]));
        // A record's data model is not known here: nothing is guessed.
        assert_eq!(numba_widths("_ZN8__main__1kE6RecordIiE"), None);
        assert_eq!(numba_widths("_Z4spinPf"), None);
    }

    #[test]
    fn a_numba_kernels_argument_is_named_by_its_python_parameter() {
        let source = "@cuda.jit\ndef histogram(x, counts):\n    counts[0] += 1\n";
        // The data pointer of the second array is PTX parameter 11.
        assert_eq!(
            parameter_name(HISTOGRAM, source, 11, true).as_deref(),
            Some("counts")
        );
        assert_eq!(
            parameter_name(HISTOGRAM, source, 4, true).as_deref(),
            Some("x")
        );
        assert_eq!(parameter_name(HISTOGRAM, source, 14, true), None);
        // A definition whose parameters disagree with the mangled types names nothing.
        let other = "def histogram(x):\n    pass\n";
        assert_eq!(parameter_name(HISTOGRAM, other, 11, true), None);
    }

    /// An atomic 164 bytes past the end of histogram's `counts` (16 bytes; PTX parameter 11 points
    /// at it), at line 3 of `source`, written to a file of its own.
    fn past_counts(source: &str) -> (tempfile::TempDir, sim::Diagnostic) {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("histogram.py");
        std::fs::write(&file, source).unwrap();
        let allocation = sim::NearAllocation {
            base: 0x7000_0020_0000,
            size: 16,
            argument: Some(11),
            variable: None,
        };
        let access = sim::BadAccess {
            space: sim::MemorySpace::Global,
            op: sim::AccessOp::Atomic,
            bytes: 4,
            address: 0x7000_0020_00b4,
            lanes: 1,
            warp: 0,
            fault: sim::AccessFault::Global {
                miss: sim::GlobalMiss::PastEnd {
                    allocation,
                    after: 164,
                    element: 45,
                },
            },
        };
        let diagnostic = sim::Diagnostic {
            kind: sim::DiagnosticKind::OutOfBounds,
            block: [0; 3],
            thread: [0; 3],
            location: Some(sim::SourceLocation {
                file: file.display().to_string(),
                line: 3,
            }),
            message: access.message(),
            race: None,
            access: Some(Box::new(access)),
        };
        (dir, diagnostic)
    }

    #[test]
    fn an_access_past_a_numba_array_names_the_array_and_its_guard() {
        let source = "@cuda.jit\ndef histogram(x, counts):\n    cuda.atomic.add(counts, 45, 1)\n";
        let (_dir, d) = past_counts(source);
        let launch = Launch {
            kernel: HISTOGRAM.into(),
            ..Launch::default()
        };
        let (message, advice) = bad_access_words(&launch, &d, true).unwrap();
        assert!(
            message.contains("164 bytes past the end of `counts` (16 bytes)"),
            "{message}"
        );
        let advice = advice.unwrap();
        assert!(advice.contains("`if i < counts.size`"), "{advice}");
        // A source whose kernel does not say the parameter's name keeps the simulator's words.
        let (_dir, d) = past_counts("def other(x):\n    pass\n");
        assert!(bad_access_words(&launch, &d, true).is_none());
    }

    #[test]
    fn a_numba_shared_array_is_named_by_the_line_that_subscripts_it() {
        let source = "def k(a, out):\n    tile = cuda.shared.array((32, 33), float32)\n    \
                      other = cuda.shared.array(32, float32)\n    tile[ty, tx] = a[row, col]\n    \
                      out[i] = tile[tx, ty] + other[tx]\n";
        assert_eq!(numba_shared_array_at(source, 4).as_deref(), Some("tile"));
        // Two shared arrays on one line: which one raced is not known from the line.
        assert_eq!(numba_shared_array_at(source, 5), None);
        assert_eq!(numba_shared_array_at(source, 1), None);
        assert_eq!(numba_shared_array_at(source, 99), None);
    }

    #[test]
    fn python_parameters_leave_out_defaults_and_annotations() {
        let source = "def not_it(a):\n    pass\n\ndef k(a: float, b=(1, 2), *, c):\n    pass\n";
        assert_eq!(
            python_parameters(source, "k"),
            Some(vec!["a".into(), "b".into(), "c".into()])
        );
        // A name in a comment or a call is no definition.
        assert_eq!(python_parameters("x = undef k(1)\n", "k"), None);
    }

    #[test]
    fn a_cuda_kernels_argument_is_named_by_its_declaration() {
        let source = "__device__ float f(float a);\n\
            extern \"C\" __global__ void saxpy(float alpha, const float *__restrict__ x,\n\
                                               float* y, int n) {}\n\
            __global__ void __launch_bounds__(256) other(int q[4]) {}\n";
        assert_eq!(
            parameter_name("saxpy", source, 1, false).as_deref(),
            Some("x")
        );
        assert_eq!(
            parameter_name("_Z5otherPi", source, 0, false).as_deref(),
            Some("q")
        );
        assert_eq!(parameter_name("saxpy", source, 4, false), None);
        assert_eq!(parameter_name("missing", source, 0, false), None);
    }
}
