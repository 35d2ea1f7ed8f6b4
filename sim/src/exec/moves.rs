//! Moves and conversions over a warp's 32 lanes: copies, packing and unpacking, `cvt`, `cvta`.

use super::{alu, map1, put, row, write_lanes};
use crate::ir::*;
use crate::memory::{LOCAL_WINDOW, SHARED_WINDOW, WINDOW_SIZE};

/// Runs one move or conversion for the lanes in `exec`.
#[inline(always)]
pub(super) fn execute(r: &mut [u64], op: &Op, exec: u32) {
    match *op {
        Op::Mov { d, a } => map1(r, exec, d, a, |x| x),
        Op::Pack { d, parts, n, bits } => {
            let m = mask(bits as u32);
            let mut out = [0u64; 32];
            for (k, &p) in parts.iter().enumerate().take(n as usize) {
                let v = row(r, p);
                for l in 0..32 {
                    out[l] |= (v[l] & m) << (k as u32 * bits as u32);
                }
            }
            put(r, d, exec, &out);
        }
        Op::Unpack { ds, n, bits, a } => {
            let v = row(r, a);
            let m = mask(bits as u32);
            for (k, &d) in ds.iter().enumerate().take(n as usize) {
                if d != NONE {
                    write_lanes(r, exec, d, |l| (v[l] >> (k as u32 * bits as u32)) & m);
                }
            }
        }
        Op::Cvt {
            dt,
            st,
            rnd,
            to_int,
            ftz,
            sat,
            d,
            a,
        } => {
            if !dt.is_float() && !st.is_float() && !sat {
                let (sbits, dbits) = (st.bits(), dt.bits());
                let dm = mask(dbits);
                if st.is_signed() {
                    map1(r, exec, d, a, |x| (alu::sx(x, sbits) as u64) & dm)
                } else {
                    let sm = mask(sbits);
                    map1(r, exec, d, a, |x| x & sm & dm)
                }
            } else {
                map1(r, exec, d, a, |x| {
                    alu::cvt(dt, st, rnd, to_int, ftz, sat, x)
                })
            }
        }
        Op::Cvta { space, to, d, a } => {
            let base = match space {
                MemSpace::Shared => SHARED_WINDOW,
                MemSpace::Local => LOCAL_WINDOW,
                _ => 0,
            };
            if to {
                map1(r, exec, d, a, |x| {
                    if base == 0 {
                        x
                    } else {
                        x.wrapping_sub(base) & (WINDOW_SIZE - 1)
                    }
                })
            } else {
                map1(r, exec, d, a, |x| x.wrapping_add(base))
            }
        }
        _ => unreachable!("not an instruction of this family"),
    }
}
