//! Shared memory read before any thread of the block wrote it, in a watched launch only: a
//! missing load into a tile, or a tile index off by one at its edge, reads what the block never
//! stored (the simulator's poison), and the read is named with its array, element and line.

use super::{Kind, Req};
use crate::analyse::provenance::UnwrittenRead;
use crate::exec::block::BlockCx;
use crate::exec::{lanes, Warp};
use crate::ir::Inst;

/// Reads kept per launch: the first few name the mistake; more say nothing new.
const KEPT: usize = 8;

/// Marks the bytes this access writes as written, and notes each lane's read of a byte no thread
/// of the block has written (an atomic reads before it writes).
pub(super) fn note(
    w: &Warp,
    cx: &mut BlockCx,
    inst: &Inst,
    req: &Req,
    exec: u32,
    addrs: &[u64; 32],
) {
    let len = req.bytes() as u64;
    let bits = &mut cx.out.shared_written;
    let want = cx.shared.len().div_ceil(64);
    if bits.len() != want {
        bits.resize(want, 0);
    }
    let written = |bits: &[u64], b: u64| bits[(b / 64) as usize] >> (b % 64) & 1 != 0;
    if req.kind != Kind::Store {
        for l in lanes(exec) {
            let a = addrs[l];
            if (a..a + len).all(|b| written(&cx.out.shared_written, b)) {
                continue;
            }
            let seen = cx.out.unwritten.iter().any(|u| u.site == inst.site);
            if seen || cx.out.unwritten.len() >= KEPT {
                break;
            }
            let place = super::watch::shared_place(cx, a, req.elem_bytes());
            let read = UnwrittenRead {
                block: cx.block,
                thread: cx.l.thread_index(w.thread_linear(l)),
                location: cx.location(inst.site),
                place,
            };
            cx.out.unwritten.push(Unwritten {
                site: inst.site,
                read,
            });
            break;
        }
    }
    if req.kind != Kind::Load {
        for l in lanes(exec) {
            for b in addrs[l]..addrs[l] + len {
                cx.out.shared_written[(b / 64) as usize] |= 1 << (b % 64);
            }
        }
    }
}

/// A noted read and the instruction site it was made at (one per site).
pub(crate) struct Unwritten {
    pub site: u32,
    pub read: UnwrittenRead,
}
