//! The element types a kernel's buffers and scalars may have: their names on the command line,
//! their sizes, their NumPy descriptors, and their values as little-endian bytes.

use checks::random::Rng;
use std::fmt;

/// One number's type.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Scalar {
    /// CUDA's `unsigned char`.
    U8,
    /// `signed char`.
    I8,
    /// `unsigned short`.
    U16,
    /// `short`.
    I16,
    /// IEEE half precision (`__half`), stored as its raw 2 bytes.
    F16,
    /// `int`.
    I32,
    /// `unsigned int`.
    U32,
    /// `long long`.
    I64,
    /// `unsigned long long` (and a pointer's bits).
    U64,
    /// `float`.
    F32,
    /// `double`.
    F64,
}

const SCALARS: [(&str, Scalar); 11] = [
    ("u8", Scalar::U8),
    ("i8", Scalar::I8),
    ("u16", Scalar::U16),
    ("i16", Scalar::I16),
    ("f16", Scalar::F16),
    ("i32", Scalar::I32),
    ("u32", Scalar::U32),
    ("i64", Scalar::I64),
    ("u64", Scalar::U64),
    ("f32", Scalar::F32),
    ("f64", Scalar::F64),
];

/// CUDA's vector types, as buffers (or scalars) of 2, 3 or 4 components.
const VECTORS: [(&str, Scalar, u32); 26] = [
    ("char2", Scalar::I8, 2),
    ("char4", Scalar::I8, 4),
    ("uchar2", Scalar::U8, 2),
    ("uchar4", Scalar::U8, 4),
    ("short2", Scalar::I16, 2),
    ("short4", Scalar::I16, 4),
    ("ushort2", Scalar::U16, 2),
    ("ushort4", Scalar::U16, 4),
    ("half2", Scalar::F16, 2),
    ("int2", Scalar::I32, 2),
    ("int3", Scalar::I32, 3),
    ("int4", Scalar::I32, 4),
    ("uint2", Scalar::U32, 2),
    ("uint3", Scalar::U32, 3),
    ("uint4", Scalar::U32, 4),
    ("float2", Scalar::F32, 2),
    ("float3", Scalar::F32, 3),
    ("float4", Scalar::F32, 4),
    ("long2", Scalar::I64, 2),
    ("ulong2", Scalar::U64, 2),
    ("longlong2", Scalar::I64, 2),
    ("ulonglong2", Scalar::U64, 2),
    ("double2", Scalar::F64, 2),
    ("long4", Scalar::I64, 4),
    ("ulong4", Scalar::U64, 4),
    ("double4", Scalar::F64, 4),
];

/// The type names `runner sim` accepts, for messages.
pub(super) const TYPE_NAMES: &str =
    "u8, i8, u16, i16, f16, i32, u32, i64, u64, f32, f64, or a CUDA \
    vector type such as float2, float4, int4, uchar4, half2, double2";

impl Scalar {
    /// Its size in bytes.
    pub(super) fn bytes(self) -> usize {
        match self {
            Scalar::U8 | Scalar::I8 => 1,
            Scalar::U16 | Scalar::I16 | Scalar::F16 => 2,
            Scalar::I32 | Scalar::U32 | Scalar::F32 => 4,
            Scalar::I64 | Scalar::U64 | Scalar::F64 => 8,
        }
    }

    /// Whether it holds floating-point values (parsed as reals, drawn in [-1, 1)).
    pub(super) fn is_float(self) -> bool {
        matches!(self, Scalar::F16 | Scalar::F32 | Scalar::F64)
    }

    /// NumPy's descriptor for this type, little-endian (`|` where byte order does not apply).
    pub(super) fn npy_descr(self) -> &'static str {
        match self {
            Scalar::U8 => "|u1",
            Scalar::I8 => "|i1",
            Scalar::U16 => "<u2",
            Scalar::I16 => "<i2",
            Scalar::F16 => "<f2",
            Scalar::I32 => "<i4",
            Scalar::U32 => "<u4",
            Scalar::I64 => "<i8",
            Scalar::U64 => "<u8",
            Scalar::F32 => "<f4",
            Scalar::F64 => "<f8",
        }
    }

    /// NumPy's name, for messages that say how to convert an array.
    pub(super) fn numpy_name(self) -> &'static str {
        match self {
            Scalar::U8 => "np.uint8",
            Scalar::I8 => "np.int8",
            Scalar::U16 => "np.uint16",
            Scalar::I16 => "np.int16",
            Scalar::F16 => "np.float16",
            Scalar::I32 => "np.int32",
            Scalar::U32 => "np.uint32",
            Scalar::I64 => "np.int64",
            Scalar::U64 => "np.uint64",
            Scalar::F32 => "np.float32",
            Scalar::F64 => "np.float64",
        }
    }

    /// Appends `text` (a number) as this type; an integer that does not fit is an error.
    pub(super) fn push_parsed(self, text: &str, out: &mut Vec<u8>) -> Result<(), String> {
        let text = text.trim();
        if self.is_float() {
            let v: f64 = text
                .parse()
                .map_err(|_| format!("{text:?} is not a number"))?;
            self.push_f64(v, out);
            return Ok(());
        }
        let v: i128 = text
            .parse()
            .map_err(|_| format!("{text:?} is not a whole number"))?;
        let bits = self.bytes() as u32 * 8;
        let signed = matches!(self, Scalar::I8 | Scalar::I16 | Scalar::I32 | Scalar::I64);
        let (lo, hi) = if signed {
            (-(1i128 << (bits - 1)), (1i128 << (bits - 1)) - 1)
        } else {
            (0, (1i128 << bits) - 1)
        };
        if v < lo || v > hi {
            return Err(format!("{v} does not fit in {self} ({lo} to {hi})"));
        }
        out.extend_from_slice(&v.to_le_bytes()[..self.bytes()]);
        Ok(())
    }

    /// Appends `v` converted to this type (integers wrap, as NumPy's `astype` does).
    pub(super) fn push_f64(self, v: f64, out: &mut Vec<u8>) {
        match self {
            Scalar::F16 => out.extend(half::f16::from_f64(v).to_le_bytes()),
            Scalar::F32 => out.extend((v as f32).to_le_bytes()),
            Scalar::F64 => out.extend(v.to_le_bytes()),
            _ => out.extend_from_slice(&(v as i64).to_le_bytes()[..self.bytes()]),
        }
    }

    /// Appends one random value: floats in [-1, 1), integers in [0, 1000) (or the type's range).
    /// Each value takes the same draws from `rng` as `runner sim` always took for f32, f64,
    /// i32, u32 and i64, so a seed gives the inputs it gave before.
    pub(super) fn push_random(self, rng: &mut Rng, out: &mut Vec<u8>) {
        let float = rng.range_f32(-1.0, 1.0) as f64;
        if self.is_float() {
            return self.push_f64(float, out);
        }
        let range = match self {
            Scalar::U8 => 256,
            Scalar::I8 => 128,
            _ => 1000,
        };
        self.push_f64((rng.next_u64() % range) as f64, out);
    }
}

impl fmt::Display for Scalar {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let name = SCALARS.iter().find(|(_, s)| s == self).map(|(n, _)| *n);
        f.write_str(name.unwrap_or("?"))
    }
}

/// A buffer element or scalar: one number, or a CUDA vector of `lanes` numbers.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct ElemType {
    /// The type of each component.
    pub scalar: Scalar,
    /// Components: 1 for a number, 2 to 4 for a vector type (`float4`).
    pub lanes: u32,
}

impl ElemType {
    /// The type a command line names (`f32`, `float4`, `half2`); None for an unknown name
    /// ([`TYPE_NAMES`] lists the known ones).
    pub(super) fn parse(name: &str) -> Option<ElemType> {
        let name = name.trim();
        if let Some((_, scalar)) = SCALARS.iter().find(|(n, _)| *n == name) {
            return Some(ElemType {
                scalar: *scalar,
                lanes: 1,
            });
        }
        VECTORS
            .iter()
            .find(|(n, _, _)| *n == name)
            .map(|&(_, scalar, lanes)| ElemType { scalar, lanes })
    }

    /// Its size in bytes, all components together.
    pub(super) fn bytes(self) -> usize {
        self.scalar.bytes() * self.lanes as usize
    }

    /// Appends a value written as `text`: one number, or `lanes` numbers separated by commas.
    pub(super) fn push_parsed(self, text: &str, out: &mut Vec<u8>) -> Result<(), String> {
        let parts: Vec<&str> = text.split(',').collect();
        if parts.len() != self.lanes as usize {
            return Err(format!(
                "{self} has {} component{}; {text:?} gives {}",
                self.lanes,
                if self.lanes == 1 { "" } else { "s" },
                parts.len()
            ));
        }
        parts
            .iter()
            .try_for_each(|p| self.scalar.push_parsed(p, out))
    }
}

impl fmt::Display for ElemType {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.lanes == 1 {
            return write!(f, "{}", self.scalar);
        }
        let name = VECTORS
            .iter()
            .find(|(_, s, l)| *s == self.scalar && *l == self.lanes)
            .map(|(n, _, _)| *n);
        f.write_str(name.unwrap_or("?"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parsed(ty: &str, text: &str) -> Result<Vec<u8>, String> {
        let mut out = Vec::new();
        ElemType::parse(ty).unwrap().push_parsed(text, &mut out)?;
        Ok(out)
    }

    #[test]
    fn every_type_has_its_size_and_vectors_their_components() {
        let sizes = [
            ("u8", 1),
            ("i8", 1),
            ("u16", 2),
            ("i16", 2),
            ("f16", 2),
            ("i32", 4),
            ("u32", 4),
            ("i64", 8),
            ("u64", 8),
            ("f32", 4),
            ("f64", 8),
            ("float2", 8),
            ("float4", 16),
            ("int4", 16),
            ("half2", 4),
            ("double2", 16),
        ];
        for (name, bytes) in sizes {
            let ty = ElemType::parse(name).unwrap();
            assert_eq!(ty.bytes(), bytes, "{name}");
            assert_eq!(ty.to_string(), name);
        }
        assert_eq!(ElemType::parse("float5"), None);
    }

    #[test]
    fn values_are_little_endian_and_halves_are_ieee() {
        assert_eq!(parsed("u8", "255").unwrap(), [255]);
        assert_eq!(parsed("i16", "-2").unwrap(), [0xfe, 0xff]);
        assert_eq!(parsed("f16", "1.5").unwrap(), 0x3e00u16.to_le_bytes());
        assert_eq!(parsed("u64", "1").unwrap(), 1u64.to_le_bytes());
        let mut two = 1.0f32.to_le_bytes().to_vec();
        two.extend(2.0f32.to_le_bytes());
        assert_eq!(parsed("float2", "1, 2").unwrap(), two);
    }

    #[test]
    fn a_value_that_does_not_fit_or_has_the_wrong_components_says_so() {
        assert!(parsed("u8", "256")
            .unwrap_err()
            .contains("does not fit in u8"));
        assert!(parsed("i8", "-129").unwrap_err().contains("-128 to 127"));
        assert!(parsed("i32", "1.5").unwrap_err().contains("whole number"));
        assert!(parsed("float4", "1,2")
            .unwrap_err()
            .contains("4 components"));
    }
}
