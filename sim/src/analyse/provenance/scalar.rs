//! The type of a recorded value, so that every reader shows the same bits the same way.

use crate::ir::Ty;
use serde::{Deserialize, Serialize};

/// A value's type as the instruction that made or stored it gives it.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Scalar {
    U8,
    S8,
    U16,
    S16,
    U32,
    S32,
    U64,
    S64,
    F16,
    F16x2,
    F32,
    F64,
}

impl From<Ty> for Scalar {
    fn from(ty: Ty) -> Scalar {
        match ty {
            Ty::U8 => Scalar::U8,
            Ty::S8 => Scalar::S8,
            Ty::U16 => Scalar::U16,
            Ty::S16 => Scalar::S16,
            Ty::U32 => Scalar::U32,
            Ty::S32 => Scalar::S32,
            Ty::U64 => Scalar::U64,
            Ty::S64 => Scalar::S64,
            Ty::F16 => Scalar::F16,
            Ty::F16x2 => Scalar::F16x2,
            Ty::F32 => Scalar::F32,
            Ty::F64 => Scalar::F64,
        }
    }
}

impl Scalar {
    /// The value as C would print it: `2.5`, `-3`, `4294967295`.
    pub fn show(self, bits: u64) -> String {
        let half = |b: u64| half::f16::from_bits(b as u16).to_f32();
        match self {
            Scalar::U8 => (bits as u8).to_string(),
            Scalar::S8 => (bits as i8).to_string(),
            Scalar::U16 => (bits as u16).to_string(),
            Scalar::S16 => (bits as i16).to_string(),
            Scalar::U32 => (bits as u32).to_string(),
            Scalar::S32 => (bits as i32).to_string(),
            Scalar::U64 => bits.to_string(),
            Scalar::S64 => (bits as i64).to_string(),
            Scalar::F16 => format!("{:?}", half(bits)),
            Scalar::F16x2 => format!("({:?}, {:?})", half(bits), half(bits >> 16)),
            Scalar::F32 => format!("{:?}", f32::from_bits(bits as u32)),
            Scalar::F64 => format!("{:?}", f64::from_bits(bits)),
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
            Scalar::F32 => close(
                f32::from_bits(a as u32) as f64,
                f32::from_bits(b as u32) as f64,
            ),
            Scalar::F64 => close(f64::from_bits(a), f64::from_bits(b)),
            Scalar::F16 => close(
                half::f16::from_bits(a as u16).to_f64(),
                half::f16::from_bits(b as u16).to_f64(),
            ),
            _ => a & self.mask() == b & self.mask(),
        }
    }

    fn mask(self) -> u64 {
        match self {
            Scalar::U8 | Scalar::S8 => 0xff,
            Scalar::U16 | Scalar::S16 | Scalar::F16 => 0xffff,
            Scalar::U32 | Scalar::S32 | Scalar::F32 | Scalar::F16x2 => 0xffff_ffff,
            Scalar::U64 | Scalar::S64 | Scalar::F64 => u64::MAX,
        }
    }
}
