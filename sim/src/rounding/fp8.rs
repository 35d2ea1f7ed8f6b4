//! The 8-bit floats of `cvt ... .e4m3x2` / `.e5m2x2` (OCP FP8, as `cuda_fp8.h` keeps them):
//! decoding a byte to its exact value, and rounding a value to the nearest byte, ties to even,
//! saturating to the largest finite value as `.satfinite` asks (PTX requires it for these).

use crate::ir::Ty;

/// The bits of an FP8 format: E4M3 has no infinities and one NaN pattern per sign (`S.1111.111`),
/// its largest value 448; E5M2 is IEEE-like (infinities, NaNs), its largest finite value 57344.
struct Format {
    mantissa_bits: u32,
    bias: i32,
    max_finite: f64,
    has_infinity: bool,
}

const E4M3: Format = Format {
    mantissa_bits: 3,
    bias: 7,
    max_finite: 448.0,
    has_infinity: false,
};

const E5M2: Format = Format {
    mantissa_bits: 2,
    bias: 15,
    max_finite: 57344.0,
    has_infinity: true,
};

/// The NaN a conversion to either format writes (what the GPU writes, `0x7f`).
pub(crate) const NAN: u64 = 0x7f;

fn format(ty: Ty) -> &'static Format {
    if ty == Ty::E5M2 {
        &E5M2
    } else {
        &E4M3
    }
}

/// The exact value of FP8 byte `bits` (its low 8 bits) of type `ty`.
pub(crate) fn value(ty: Ty, bits: u64) -> f64 {
    let f = format(ty);
    let byte = bits as u32 & 0xff;
    let sign = if byte & 0x80 != 0 { -1.0 } else { 1.0 };
    let exponent_bits = 7 - f.mantissa_bits;
    let exponent = ((byte >> f.mantissa_bits) & ((1 << exponent_bits) - 1)) as i32;
    let mantissa = byte & ((1 << f.mantissa_bits) - 1);
    let all_ones = (1 << exponent_bits) - 1;
    let scale = f64::from(1u32 << f.mantissa_bits);
    if f.has_infinity && exponent == all_ones {
        return if mantissa == 0 {
            sign * f64::INFINITY
        } else {
            f64::NAN
        };
    }
    if !f.has_infinity && exponent == all_ones && mantissa == (1 << f.mantissa_bits) - 1 {
        return f64::NAN;
    }
    if exponent == 0 {
        return sign * f64::from(mantissa) / scale * 2f64.powi(1 - f.bias);
    }
    sign * (1.0 + f64::from(mantissa) / scale) * 2f64.powi(exponent - f.bias)
}

/// `x` rounded to the nearest FP8 value of type `ty`, ties to even, past the largest finite
/// value (infinity included) the largest finite value of its sign; NaN is [`NAN`].
pub(crate) fn round(ty: Ty, x: f64) -> u64 {
    if x.is_nan() {
        return NAN;
    }
    let f = format(ty);
    let sign = if x.is_sign_negative() { 0x80 } else { 0 };
    let a = x.abs();
    let least_normal_exponent = 1 - f.bias;
    // The spacing of representable values around `a`: an exact power of two.
    let exponent = if a == 0.0 {
        least_normal_exponent
    } else {
        exponent_of(a).max(least_normal_exponent)
    };
    let quantum = 2f64.powi(exponent - f.mantissa_bits as i32);
    let rounded = ((a / quantum).round_ties_even() * quantum).min(f.max_finite);
    sign | encode(f, rounded)
}

/// The unbiased exponent of a positive, normal f64.
fn exponent_of(a: f64) -> i32 {
    ((a.to_bits() >> 52) & 0x7ff) as i32 - 1023
}

/// The byte (without sign) of a non-negative value `r` that the format represents exactly.
fn encode(f: &Format, r: f64) -> u64 {
    let least_normal_exponent = 1 - f.bias;
    let scale = f64::from(1u32 << f.mantissa_bits);
    if r < 2f64.powi(least_normal_exponent) {
        return (r / 2f64.powi(least_normal_exponent) * scale) as u64;
    }
    let e = exponent_of(r);
    let mantissa = ((r / 2f64.powi(e) - 1.0) * scale) as u64;
    (((e + f.bias) as u64) << f.mantissa_bits) | mantissa
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_byte_rounds_back_to_itself() {
        for ty in [Ty::E4M3, Ty::E5M2] {
            for byte in 0..=255u64 {
                let v = value(ty, byte);
                if v.is_nan() {
                    assert_eq!(round(ty, v), NAN);
                } else if v.is_infinite() {
                    assert_eq!(round(ty, v), (byte & 0x80) | 0x7b, "inf saturates");
                } else {
                    assert_eq!(round(ty, v), byte, "{ty:?} {byte:#x} = {v}");
                }
            }
        }
    }

    #[test]
    fn known_values_ties_to_even_and_saturation() {
        assert_eq!(round(Ty::E4M3, 1.0), 0x38);
        assert_eq!(round(Ty::E4M3, 448.0), 0x7e);
        assert_eq!(round(Ty::E4M3, 1e6), 0x7e, "saturates, no NaN");
        assert_eq!(round(Ty::E4M3, -1e6), 0xfe);
        assert_eq!(round(Ty::E4M3, f64::INFINITY), 0x7e);
        assert_eq!(round(Ty::E4M3, 2f64.powi(-9)), 0x01, "least subnormal");
        assert_eq!(
            round(Ty::E4M3, 2f64.powi(-10)),
            0x00,
            "a tie goes to even zero"
        );
        assert_eq!(round(Ty::E4M3, 1.0625), 0x38, "1 + 1/16 ties to 1.0");
        assert_eq!(round(Ty::E4M3, 1.1875), 0x3a, "1 + 3/16 ties to 1.25");
        assert_eq!(
            round(Ty::E5M2, 1.0),
            0x3c,
            "E5M2 is the high byte of an f16"
        );
        assert_eq!(round(Ty::E5M2, 57344.0), 0x7b);
        assert_eq!(round(Ty::E5M2, 1e9), 0x7b);
        assert_eq!(round(Ty::E5M2, -0.0), 0x80);
        assert!(value(Ty::E4M3, 0x7f).is_nan() && value(Ty::E5M2, 0x7d).is_nan());
        assert_eq!(value(Ty::E5M2, 0x7c), f64::INFINITY);
        assert_eq!(value(Ty::E4M3, 0x7e), 448.0);
        assert_eq!(value(Ty::E4M3, 0x81), -(2f64.powi(-9)));
    }
}
