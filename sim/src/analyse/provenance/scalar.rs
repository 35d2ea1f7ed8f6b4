//! The type of a recorded value, so that every reader shows the same bits the same way.

use crate::ir::Ty;

impl Ty {
    /// The value as C would print it: `2.5`, `-3`, `4294967295`.
    pub fn show(self, bits: u64) -> String {
        let half = |b: u64| half::f16::from_bits(b as u16).to_f32();
        let brain = |b: u64| half::bf16::from_bits(b as u16).to_f32();
        match self {
            Ty::U8 => (bits as u8).to_string(),
            Ty::S8 => (bits as i8).to_string(),
            Ty::U16 => (bits as u16).to_string(),
            Ty::S16 => (bits as i16).to_string(),
            Ty::U32 => (bits as u32).to_string(),
            Ty::S32 => (bits as i32).to_string(),
            Ty::U64 => bits.to_string(),
            Ty::S64 => (bits as i64).to_string(),
            Ty::F16 => format!("{:?}", half(bits)),
            Ty::F16x2 => format!("({:?}, {:?})", half(bits), half(bits >> 16)),
            Ty::BF16 => format!("{:?}", brain(bits)),
            Ty::BF16x2 => format!("({:?}, {:?})", brain(bits), brain(bits >> 16)),
            Ty::F32 => format!("{:?}", f32::from_bits(bits as u32)),
            Ty::F64 => format!("{:?}", f64::from_bits(bits)),
            Ty::E4M3 | Ty::E5M2 => format!("{:?}", crate::rounding::fp8::value(self, bits)),
        }
    }

    /// Whether two values of this type are the same, floats within `abs + rel * |b|`.
    pub fn same_value(self, a: u64, b: u64, abs: f64, rel: f64) -> bool {
        let close = |x: f64, y: f64| {
            x.to_bits() == y.to_bits()
                || (x.is_nan() && y.is_nan())
                || (x - y).abs() <= abs + rel * y.abs()
        };
        match self {
            Ty::F32 => close(
                f32::from_bits(a as u32) as f64,
                f32::from_bits(b as u32) as f64,
            ),
            Ty::F64 => close(f64::from_bits(a), f64::from_bits(b)),
            Ty::F16 => close(
                half::f16::from_bits(a as u16).to_f64(),
                half::f16::from_bits(b as u16).to_f64(),
            ),
            Ty::BF16 => close(
                half::bf16::from_bits(a as u16).to_f64(),
                half::bf16::from_bits(b as u16).to_f64(),
            ),
            _ => {
                let mask = crate::ir::mask(self.bits());
                a & mask == b & mask
            }
        }
    }
}
