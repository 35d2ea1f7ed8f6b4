//! Where an output element's value came from. A watched launch ([`crate::Machine::launch_watched`])
//! records every store to a few elements: which thread and block, at which line, what it left
//! there, and the instruction that computed the value with its operands (and where a loaded
//! operand was read). [`origin_of`] then says who wrote an element last, how often it was
//! written, and where a student's run and the reference solution's first differ on it. Nothing
//! here knows any exercise: it holds for any kernel.

mod definition;
pub(crate) mod loops;
mod scalar;
pub(crate) mod thread;

/// A recorded value's type: the type of the instruction that made or stored it.
pub use crate::ir::Ty as Scalar;
pub(crate) use definition::{operands, signed_result, Definitions};

use crate::source::SourceLocation;
use serde::{Deserialize, Serialize};

/// Stores to one element kept in order; later ones are only counted (the last is kept apart).
pub const KEPT_STORES: usize = 64;

/// What a watched launch records: the elements to watch, the buffers that give addresses their
/// names (for where a loaded operand came from), and the threads to follow step by step.
#[derive(Clone, Debug, Default)]
pub struct Watch {
    /// Output elements whose every store the launch records.
    pub elements: Vec<WatchedElement>,
    /// Buffers that name the addresses loaded operands came from.
    pub buffers: Vec<NamedBuffer>,
    /// Threads whose every load, store and branch the launch records ([`thread::ThreadTrace`]).
    pub threads: Vec<thread::WatchedThread>,
}

/// One output element: its device address and size.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct WatchedElement {
    /// Device address of the element's first byte.
    pub address: u64,
    /// Size of the element in bytes.
    pub bytes: u32,
}

/// A device buffer as the student knows it: its parameter name, where it lies, its element size.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct NamedBuffer {
    /// The kernel parameter's name.
    pub name: String,
    /// Device address of the buffer's first byte.
    pub address: u64,
    /// Size of the buffer in bytes.
    pub bytes: u64,
    /// Size of one element in bytes, for element indices.
    pub element_bytes: u32,
}

impl Watch {
    /// The named place holding global address `address`, in elements of the buffer's own size.
    pub(crate) fn place(&self, address: u64) -> Place {
        let buffer = self
            .buffers
            .iter()
            .find(|b| address.wrapping_sub(b.address) < b.bytes);
        Place {
            space: Space::Global,
            address,
            name: buffer.map(|b| b.name.clone()),
            index: buffer.map(|b| (address - b.address) / b.element_bytes.max(1) as u64),
        }
    }
}

/// The memory a place is in.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Space {
    /// Global memory: a device address.
    Global,
    /// The block's shared memory: a byte offset in it.
    Shared,
    /// Another lane's register, read with a shuffle: `index` is the lane.
    Lane,
}

/// Where a value was loaded from: a named buffer's element where the address lies in one.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Place {
    /// Which memory the address is in.
    pub space: Space,
    /// Device address (global) or byte offset in the block's shared memory.
    pub address: u64,
    /// The buffer's parameter name, or the `__shared__` variable's.
    pub name: Option<String>,
    /// Element index in that buffer or variable.
    pub index: Option<u64>,
}

impl std::fmt::Display for Place {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match (&self.name, self.index, self.space) {
            (_, Some(lane), Space::Lane) => write!(f, "lane {lane}'s value"),
            (_, None, Space::Lane) => write!(f, "another lane's value"),
            (Some(name), Some(index), _) => write!(f, "{name}[{index}]"),
            (_, _, Space::Global) => write!(f, "global memory at {:#x}", self.address),
            (_, _, Space::Shared) => write!(f, "shared memory at byte {}", self.address),
        }
    }
}

/// One operand of the instruction that computed a stored value, as it was when it was used.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Operand {
    /// The operand's type.
    pub ty: Scalar,
    /// `None` where the register may have changed between the computation and the store.
    pub bits: Option<u64>,
    /// Where the operand was loaded from, when a load made it.
    pub loaded_from: Option<Place>,
}

/// The instruction that computed a stored value: a load (with where it read), arithmetic (with
/// its operands' values), or an atomic (the old value and its operand).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Computation {
    /// The PTX instruction, as `add.f32` or `ld.global.nc.f32`.
    pub instruction: String,
    /// The CUDA source line of the instruction (None without line info).
    pub location: Option<SourceLocation>,
    /// Its source operands, in PTX order, with their values then.
    pub operands: Vec<Operand>,
    /// Where a load read the value; None for arithmetic.
    pub loaded_from: Option<Place>,
}

/// One store (or atomic) that wrote a watched element.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct StoreEvent {
    /// Index of the storing thread's block.
    pub block: [u32; 3],
    /// Index of the storing thread in its block.
    pub thread: [u32; 3],
    /// The CUDA source line of the store (None without line info).
    pub location: Option<SourceLocation>,
    /// The PTX instruction, as `st.global.f32` or `atom.global.add.u32`.
    pub instruction: String,
    /// The type of the value stored: the store's, or where the store's is an unsigned integer
    /// and the instruction that computed the value is signed of the same width (C's `int` is
    /// stored with `st.u32`), that signed type, so that -3 shows as -3.
    pub ty: Scalar,
    /// What the store left in the element (its bits, element-sized), or where the store covered
    /// only part of the element (`whole` false), the bits it wrote.
    pub bits: u64,
    /// Whether the store covered the whole element.
    pub whole: bool,
    /// Where the value was computed, when that is certain (straight code from the computation to
    /// the store, its operands unchanged since); `None` otherwise.
    pub computed_by: Option<Computation>,
}

/// Every store a watched launch made to one element, in the order they ran.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct ElementStores {
    /// Device address of the element.
    pub address: u64,
    /// Size of the element in bytes.
    pub bytes: u32,
    /// Stores that hit the element.
    pub count: u64,
    /// The first [`KEPT_STORES`] of them.
    pub first: Vec<StoreEvent>,
    /// The last, when more were made than kept.
    pub later_last: Option<StoreEvent>,
}

impl ElementStores {
    pub(crate) fn new(element: WatchedElement) -> ElementStores {
        ElementStores {
            address: element.address,
            bytes: element.bytes,
            ..ElementStores::default()
        }
    }

    pub(crate) fn push(&mut self, store: StoreEvent) {
        self.count += 1;
        if self.first.len() < KEPT_STORES {
            self.first.push(store);
        } else {
            self.later_last = Some(store);
        }
    }

    /// The store whose value the element holds at the end of the launch.
    pub fn last(&self) -> Option<&StoreEvent> {
        self.later_last.as_ref().or(self.first.last())
    }
}

/// What a watched launch recorded: the stores to each watched element and the steps of each
/// watched thread, both in the watch's order.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Watched {
    /// The stores to each watched element.
    pub elements: Vec<ElementStores>,
    /// The steps of each watched thread.
    pub threads: Vec<thread::ThreadTrace>,
    /// Reads of shared memory that no thread of the block had written, one per line at most.
    #[serde(default)]
    pub unwritten_shared: Vec<UnwrittenRead>,
}

/// A read of shared memory that no thread of its block had written since the block began: what
/// the block reads there is whatever was left in shared memory, not anything it computed.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct UnwrittenRead {
    /// Index of the reading thread's block.
    pub block: [u32; 3],
    /// Index of the reading thread in its block.
    pub thread: [u32; 3],
    /// The CUDA source line of the read (None without line info).
    pub location: Option<SourceLocation>,
    /// The `__shared__` array and the element read, in elements of the read's size.
    pub place: Place,
}

/// Who wrote an element in one run: how many stores, and the last one.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Writers {
    /// Stores that hit the element in the run.
    pub count: u64,
    /// `None`: no thread wrote the element.
    pub last: Option<StoreEvent>,
}

impl Writers {
    fn of(stores: &ElementStores) -> Writers {
        Writers {
            count: stores.count,
            last: stores.last().cloned(),
        }
    }
}

/// The first store to an element where the two runs part: the `number`-th store (from 1) of each,
/// one of which may not exist (the other run stored fewer times). Past the first [`KEPT_STORES`],
/// the runs' last stores.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Divergence {
    /// Which store of each run parts, from 1.
    pub number: u64,
    /// The student's store of that number; None if the student's run stored fewer times.
    pub student: Option<StoreEvent>,
    /// The reference's store of that number; None if the reference's run stored fewer times.
    pub reference: Option<StoreEvent>,
}

/// Where a wrong element's value came from, beside what the reference solution's run stored there.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ElementOrigin {
    /// Who wrote the element in the student's run.
    pub student: Writers,
    /// `None` where the reference solution could not be run.
    pub reference: Option<Writers>,
    /// The first store whose value differs between the runs; `None` where the kept stores agree.
    pub first_difference: Option<Divergence>,
    /// Where the student's run of the thread that (in the solution's run) wrote the element first
    /// parts from the solution's run of it, step by step; set by a second watched launch.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub thread: Option<thread::ThreadDivergence>,
}

/// How close two stored floats must be to count as the same value (integers must be equal).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Closeness {
    /// Absolute tolerance, in the value's units.
    pub abs: f64,
    /// Relative tolerance, as a fraction of the reference value's magnitude.
    pub rel: f64,
}

/// The origin of one element from the stores of the student's run and, where it ran, the
/// reference solution's on the same case.
pub fn origin_of(
    student: &ElementStores,
    reference: Option<&ElementStores>,
    close: Closeness,
) -> ElementOrigin {
    let first_difference = reference.and_then(|r| first_difference(student, r, close));
    ElementOrigin {
        student: Writers::of(student),
        reference: reference.map(Writers::of),
        first_difference,
        thread: None,
    }
}

fn first_difference(
    student: &ElementStores,
    reference: &ElementStores,
    close: Closeness,
) -> Option<Divergence> {
    let kept = student.first.len().max(reference.first.len());
    for k in 0..kept {
        let (s, r) = (student.first.get(k), reference.first.get(k));
        let same = match (s, r) {
            (Some(s), Some(r)) => s.ty.same_value(s.bits, r.bits, close.abs, close.rel),
            _ => false,
        };
        if !same {
            return Some(Divergence {
                number: k as u64 + 1,
                student: s.cloned(),
                reference: r.cloned(),
            });
        }
    }
    // Past the kept stores only the counts and the last stores are known: a difference there is
    // told at the last store of each run.
    let (s, r) = (student.last(), reference.last());
    let last_same = match (s, r) {
        (Some(s), Some(r)) => s.ty.same_value(s.bits, r.bits, close.abs, close.rel),
        (None, None) => true,
        _ => false,
    };
    (student.count != reference.count || !last_same).then(|| Divergence {
        number: student.count.max(reference.count),
        student: s.cloned(),
        reference: r.cloned(),
    })
}

/// What a watched launch shares with its blocks: the watch, where branches land (to find the
/// instruction behind a stored value), and the PTX lines that name instructions.
pub(crate) struct WatchCx<'a> {
    pub watch: &'a Watch,
    pub defs: Definitions,
    lines: Vec<&'a str>,
}

impl<'a> WatchCx<'a> {
    pub(crate) fn new(watch: &'a Watch, prog: &crate::ir::Program, ptx: &'a str) -> WatchCx<'a> {
        WatchCx {
            watch,
            defs: Definitions::new(prog),
            lines: ptx.lines().collect(),
        }
    }

    /// The instruction's name at PTX line `line` (1-based), as `ld.global.nc.f32`, without its
    /// guard and operands.
    pub(crate) fn instruction(&self, line: u32) -> String {
        let text = self.lines.get((line as usize).wrapping_sub(1)).copied();
        let mut words = text.unwrap_or("").split_whitespace();
        let first = words.next().unwrap_or("");
        let name = if first.starts_with('@') {
            words.next().unwrap_or("")
        } else {
            first
        };
        name.trim_end_matches(';').to_string()
    }
}
