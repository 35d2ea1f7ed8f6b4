//! Device `printf`: formats a C format string with the argument buffer `vprintf` receives, the way
//! CUDA's printf does (arguments packed at their natural alignment, float promoted to double).

/// Bytes of printf output a launch keeps: the size of the GPU's printf buffer, whose default
/// (`cudaDeviceGetLimit(&size, cudaLimitPrintfFifoSize)`) is 1 MiB; the CUDA C++ Programming Guide,
/// "Formatted Output", describes the buffer and `cudaDeviceSetLimit` to change it.
pub(crate) const BUFFER_BYTES: usize = 1 << 20;

/// What follows the output when it was cut at `BUFFER_BYTES`.
pub(crate) const CUT_NOTE: &str =
    "printf output cut after 1 MiB (the GPU's printf buffer holds 1 MiB too)";

/// Widths and precisions past the buffer's size could only make output that is cut anyway.
const MAX_FIELD: usize = BUFFER_BYTES;

/// Formats `fmt`; `arg(size)` returns the next argument of `size` bytes, `string(addr)` reads a
/// C string. Returns the text and the number of arguments consumed.
pub(crate) fn format(
    fmt: &[u8],
    arg: &mut dyn FnMut(u32) -> u64,
    string: &dyn Fn(u64) -> Option<String>,
) -> (String, u32) {
    let mut out = String::new();
    let mut nargs = 0;
    let mut i = 0;
    let mut literal = Vec::new();
    while i < fmt.len() {
        if out.len() >= BUFFER_BYTES {
            // The rest would be cut anyway; many wide fields must not build gigabytes first.
            return (out, nargs);
        }
        if fmt[i] != b'%' {
            literal.push(fmt[i]);
            i += 1;
            continue;
        }
        out.push_str(&String::from_utf8_lossy(&literal));
        literal.clear();
        let start = i;
        i += 1;
        let mut spec = Spec::default();
        while i < fmt.len() {
            match fmt[i] {
                b'-' => spec.left = true,
                b'+' => spec.plus = true,
                b' ' => spec.space = true,
                b'#' => spec.alt = true,
                b'0' => spec.zero = true,
                _ => break,
            }
            i += 1;
        }
        if fmt.get(i) == Some(&b'*') {
            let w = arg(4) as u32 as i32;
            nargs += 1;
            if w < 0 {
                spec.left = true;
            }
            spec.width = (w.unsigned_abs() as usize).min(MAX_FIELD);
            i += 1;
        } else {
            while let Some(d) = fmt.get(i).filter(|c| c.is_ascii_digit()) {
                spec.width = (spec.width * 10 + (d - b'0') as usize).min(MAX_FIELD);
                i += 1;
            }
        }
        if fmt.get(i) == Some(&b'.') {
            i += 1;
            let mut p = 0usize;
            if fmt.get(i) == Some(&b'*') {
                let v = arg(4) as u32 as i32;
                nargs += 1;
                i += 1;
                spec.precision = (v >= 0).then_some((v as usize).min(MAX_FIELD));
            } else {
                while let Some(d) = fmt.get(i).filter(|c| c.is_ascii_digit()) {
                    p = (p * 10 + (d - b'0') as usize).min(MAX_FIELD);
                    i += 1;
                }
                spec.precision = Some(p);
            }
        }
        let mut long = false;
        while let Some(c) = fmt.get(i) {
            match c {
                b'l' | b'z' | b'j' | b't' | b'q' | b'L' => long = true,
                b'h' => {}
                _ => break,
            }
            i += 1;
        }
        let Some(&conv) = fmt.get(i) else {
            out.push_str(&String::from_utf8_lossy(&fmt[start..]));
            break;
        };
        i += 1;
        let int_size = if long { 8 } else { 4 };
        let text = match conv {
            b'%' => "%".to_string(),
            b'd' | b'i' => {
                nargs += 1;
                let v = arg(int_size);
                let v = if long {
                    v as i64
                } else {
                    v as u32 as i32 as i64
                };
                spec.integer(v < 0, v.unsigned_abs().to_string(), "")
            }
            b'u' | b'o' | b'x' | b'X' => {
                nargs += 1;
                let v = arg(int_size);
                let v = if long { v } else { v as u32 as u64 };
                let (digits, prefix) = match conv {
                    b'u' => (v.to_string(), ""),
                    b'o' => (format!("{v:o}"), if spec.alt { "0" } else { "" }),
                    b'x' => (format!("{v:x}"), if spec.alt && v != 0 { "0x" } else { "" }),
                    _ => (format!("{v:X}"), if spec.alt && v != 0 { "0X" } else { "" }),
                };
                spec.plus = false;
                spec.space = false;
                spec.integer(false, digits, prefix)
            }
            b'c' => {
                nargs += 1;
                let c = (arg(4) as u8 as char).to_string();
                spec.pad(c, false)
            }
            b's' => {
                nargs += 1;
                let p = arg(8);
                let mut s = if p == 0 {
                    "(null)".to_string()
                } else {
                    string(p).unwrap_or_else(|| "<bad string>".into())
                };
                if let Some(n) = spec.precision {
                    s = s.chars().take(n).collect();
                }
                spec.pad(s, false)
            }
            b'p' => {
                nargs += 1;
                let p = arg(8);
                spec.pad(
                    if p == 0 {
                        "(nil)".to_string()
                    } else {
                        format!("0x{p:x}")
                    },
                    false,
                )
            }
            b'f' | b'F' | b'e' | b'E' | b'g' | b'G' | b'a' | b'A' => {
                nargs += 1;
                let v = f64::from_bits(arg(8));
                spec.float(v, conv)
            }
            b'n' => {
                nargs += 1;
                arg(8);
                String::new()
            }
            _ => String::from_utf8_lossy(&fmt[start..i]).into_owned(),
        };
        out.push_str(&text);
    }
    out.push_str(&String::from_utf8_lossy(&literal));
    (out, nargs)
}

#[derive(Default)]
struct Spec {
    left: bool,
    plus: bool,
    space: bool,
    alt: bool,
    zero: bool,
    width: usize,
    precision: Option<usize>,
}

impl Spec {
    fn sign(&self, negative: bool) -> &'static str {
        if negative {
            "-"
        } else if self.plus {
            "+"
        } else if self.space {
            " "
        } else {
            ""
        }
    }

    /// Pads to the width; `numeric` allows zero padding after the sign and prefix.
    fn pad(&self, body: String, numeric: bool) -> String {
        let n = body.chars().count();
        if n >= self.width {
            return body;
        }
        let fill = self.width - n;
        if self.left {
            body + &" ".repeat(fill)
        } else if numeric && self.zero {
            body
        } else {
            " ".repeat(fill) + &body
        }
    }

    fn integer(&self, negative: bool, mut digits: String, prefix: &str) -> String {
        if let Some(p) = self.precision {
            if p == 0 && digits == "0" {
                digits.clear();
            }
            if digits.len() < p {
                digits = "0".repeat(p - digits.len()) + &digits;
            }
        }
        let head = format!("{}{prefix}", self.sign(negative));
        let zero_pad = self.zero && !self.left && self.precision.is_none();
        let body_len = head.len() + digits.len();
        if zero_pad && body_len < self.width {
            return head + &"0".repeat(self.width - body_len) + &digits;
        }
        self.pad(head + &digits, false)
    }

    fn float(&self, v: f64, conv: u8) -> String {
        let upper = conv.is_ascii_uppercase();
        let negative = v.is_sign_negative() && !v.is_nan();
        let a = v.abs();
        let body = if v.is_nan() {
            "nan".to_string()
        } else if v.is_infinite() {
            "inf".to_string()
        } else {
            let p = self.precision.unwrap_or(6);
            match conv.to_ascii_lowercase() {
                b'f' => {
                    let s = fixed(a, p);
                    if self.alt && p == 0 {
                        s + "."
                    } else {
                        s
                    }
                }
                b'e' => exp_format(a, p, self.alt),
                b'g' => {
                    let p = if p == 0 { 1 } else { p };
                    let e = exp_format(a, p - 1, false);
                    let x: i32 = e
                        .rsplit('e')
                        .next()
                        .and_then(|s| s.parse().ok())
                        .unwrap_or(0);
                    let s = if x < -4 || x >= p as i32 {
                        e
                    } else {
                        fixed(a, (p as i32 - 1 - x) as usize)
                    };
                    if self.alt {
                        s
                    } else {
                        strip_zeros(&s)
                    }
                }
                _ => hex_float(a, self.precision),
            }
        };
        let body = if upper { body.to_uppercase() } else { body };
        let head = self.sign(negative);
        let finite = v.is_finite();
        if self.zero && !self.left && finite && head.len() + body.len() < self.width {
            return head.to_string() + &"0".repeat(self.width - head.len() - body.len()) + &body;
        }
        self.pad(head.to_string() + &body, true)
    }
}

/// Digits past the point that a double's exact decimal value can have (2^-1074 has 1074); Rust's
/// formatter refuses precisions past 65535, so longer ones are the exact digits then zeros.
const EXACT_FRACTION_DIGITS: usize = 1100;

/// Significant digits past the first that a double's exact decimal value can have (at most 767).
const EXACT_MANTISSA_DIGITS: usize = 800;

/// `123.450000` style with any precision.
fn fixed(a: f64, p: usize) -> String {
    let exact = p.min(EXACT_FRACTION_DIGITS);
    let mut s = format!("{a:.exact$}");
    s.extend(std::iter::repeat_n('0', p - exact));
    s
}

/// `1.500000e+02` style, as C prints it.
fn exp_format(a: f64, p: usize, alt: bool) -> String {
    let exact = p.min(EXACT_MANTISSA_DIGITS);
    let s = format!("{a:.exact$e}");
    let (mant, exp) = s.split_once('e').expect("exponent format has an e");
    let exp: i32 = exp.parse().expect("exponent is a number");
    let mut mant = if alt && p == 0 {
        format!("{mant}.")
    } else {
        mant.to_string()
    };
    mant.extend(std::iter::repeat_n('0', p - exact));
    format!("{mant}e{}{:02}", if exp < 0 { '-' } else { '+' }, exp.abs())
}

/// `%g` drops trailing zeros of the fraction (and a trailing point).
fn strip_zeros(s: &str) -> String {
    let (mant, exp) = match s.find('e') {
        Some(i) => (&s[..i], &s[i..]),
        None => (s, ""),
    };
    let mant = if mant.contains('.') {
        mant.trim_end_matches('0').trim_end_matches('.')
    } else {
        mant
    };
    format!("{mant}{exp}")
}

fn hex_float(a: f64, precision: Option<usize>) -> String {
    if a == 0.0 {
        return "0x0p+0".to_string();
    }
    let bits = a.to_bits();
    let (mut exp, mut man, lead) = if a.is_subnormal() {
        (-1022i64, bits & ((1 << 52) - 1), 0)
    } else {
        (
            ((bits >> 52) & 0x7ff) as i64 - 1023,
            bits & ((1 << 52) - 1),
            1,
        )
    };
    let mut digits = format!("{man:013x}");
    if let Some(p) = precision {
        if p > 13 {
            digits.extend(std::iter::repeat_n('0', p - 13));
        } else if p < 13 {
            let shift = (13 - p) * 4;
            let round = (man >> (shift - 1)) & 1;
            man = (man >> shift) + round;
            digits = if p == 0 {
                String::new()
            } else {
                format!("{man:0p$x}")
            };
            if man >> (p * 4) != 0 {
                exp += 1;
                digits = "0".repeat(p);
            }
        }
    } else {
        digits = digits.trim_end_matches('0').to_string();
    }
    let dot = if digits.is_empty() { "" } else { "." };
    format!(
        "0x{lead}{dot}{digits}p{}{}",
        if exp < 0 { '-' } else { '+' },
        exp.abs()
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn fmt(f: &str, args: &[u64]) -> String {
        let mut it = args.iter().copied();
        let mut arg = |_size: u32| it.next().unwrap_or(0);
        format(f.as_bytes(), &mut arg, &|_| Some("str".to_string())).0
    }

    #[test]
    fn integers() {
        assert_eq!(
            fmt(
                "%d|%5d|%-5d|%05d|%+d",
                &[(-3i32) as u32 as u64, 42, 42, 42, 7]
            ),
            "-3|   42|42   |00042|+7"
        );
        assert_eq!(
            fmt("%x %X %#x %o %u", &[255, 255, 255, 8, u32::MAX as u64]),
            "ff FF 0xff 10 4294967295"
        );
        assert_eq!(
            fmt("%ld %lld %lu", &[(-5i64) as u64, 1 << 40, u64::MAX]),
            "-5 1099511627776 18446744073709551615"
        );
        assert_eq!(fmt("%.3d %c%%", &[5, 65]), "005 A%");
    }

    #[test]
    fn floats() {
        let d = |x: f64| x.to_bits();
        assert_eq!(
            fmt(
                "%f %.2f %8.3f %-8.1f|",
                &[d(1.5), d(4.56789), d(-2.5), d(0.25)]
            ),
            "1.500000 4.57   -2.500 0.2     |"
        );
        assert_eq!(
            fmt("%e %.2E", &[d(12345.678), d(0.000123)]),
            "1.234568e+04 1.23E-04"
        );
        assert_eq!(
            fmt("%g %g %g %g", &[d(100000.0), d(1e6), d(0.0001), d(1.5e-5)]),
            "100000 1e+06 0.0001 1.5e-05"
        );
        assert_eq!(
            fmt("%g %.3g %g", &[d(4.56789), d(2.0 / 3.0), d(0.0)]),
            "4.56789 0.667 0"
        );
        assert_eq!(fmt("%f %f", &[d(f64::INFINITY), d(-f64::NAN)]), "inf nan");
        assert_eq!(fmt("%a", &[d(1.0)]), "0x1p+0");
    }

    #[test]
    fn strings_and_pointers() {
        assert_eq!(
            fmt("[%s] [%5s] [%.2s] %p", &[1, 1, 1, 0x10]),
            "[str] [  str] [st] 0x10"
        );
    }

    #[test]
    fn huge_precisions_and_widths_format_without_panicking() {
        let x = 1.5f64.to_bits();
        for f in [
            "%.70000f",
            "%.70000e",
            "%.70000g",
            "%#.70000g",
            "%.70000a",
            "%99999999d",
            "%.99999999d",
            "%99999999.70000f",
            "%-99999999s",
        ] {
            let s = fmt(f, &[x]);
            assert!(s.len() <= BUFFER_BYTES + 64, "{f}: {} bytes", s.len());
        }
        let long = fmt("%.70000f", &[x]);
        assert_eq!(long.len(), 70002);
        assert!(long.starts_with("1.5000") && long.ends_with("000"));
        let e = fmt("%.2000e", &[x]);
        assert!(
            e.starts_with("1.5000") && e.ends_with("0e+00"),
            "{}",
            &e[e.len() - 8..]
        );
        assert_eq!(e.len(), 2000 + 6);
        assert_eq!(fmt("%.20a", &[x]), format!("0x1.8{}p+0", "0".repeat(19)));
    }

    /// Random format strings built from C's conversion pieces, with random arguments: every one
    /// is formatted within the buffer's size, never a panic (a fixed seed keeps the run the same).
    #[test]
    fn random_format_strings_format_within_bounds() {
        const PIECES: [&str; 24] = [
            "%", "-", "+", " ", "#", "0", "*", ".", "*", "9", "70000", "99999999", "l", "ll", "h",
            "z", "d", "u", "x", "e", "f", "g", "a", "s",
        ];
        const ENDS: [&str; 8] = ["c", "p", "n", "%", "G", "E", "X", "o"];
        let mut state = 0x9e37_79b9_7f4a_7c15u64;
        let mut next = move || {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            state
        };
        for _ in 0..3000 {
            let mut f = String::new();
            for _ in 0..next() % 12 {
                f.push_str(PIECES[(next() % PIECES.len() as u64) as usize]);
            }
            f.push_str(ENDS[(next() % ENDS.len() as u64) as usize]);
            let args: Vec<u64> = (0..8).map(|_| next()).collect();
            let s = fmt(&f, &args);
            assert!(s.len() <= 2 * BUFFER_BYTES, "{f:?}: {} bytes", s.len());
        }
    }

    #[test]
    fn many_wide_fields_stop_at_the_buffer_size() {
        let s = fmt(&"%999999d".repeat(40), &[]);
        assert!(s.len() < 2 * BUFFER_BYTES, "{} bytes", s.len());
    }
}
