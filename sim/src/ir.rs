//! The executable form of a kernel: a flat instruction list with register slots, constant slots,
//! resolved branch targets and memory layouts, produced by `lower` and run by `exec`.

use crate::source::SourceLocation;

/// A row of the warp's register file (32 lanes of 64 bits). Constants live in rows too, so every
/// source operand is a row and the lane loops need no operand-kind branch.
pub(crate) type Slot = u32;
/// An index into the warp's predicate file (one 32-bit lane mask per predicate register).
pub(crate) type Pred = u32;
pub(crate) const NONE: u32 = u32::MAX;

/// A PTX value type; public as [`crate::Scalar`], the type of a value a watched launch records.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "lowercase")]
pub enum Ty {
    /// `.u8`.
    U8,
    /// `.s8`.
    S8,
    /// `.u16`.
    U16,
    /// `.s16`.
    S16,
    /// `.u32` (and `.b32`).
    U32,
    /// `.s32`.
    S32,
    /// `.u64` (and `.b64`).
    U64,
    /// `.s64`.
    S64,
    /// `.f16`: a half in the low 16 bits of a register.
    F16,
    /// Two halves in one 32-bit register, the low one first (`__half2`).
    F16x2,
    /// bfloat16 (f32's 8 exponent bits, 7 fraction bits) in the low 16 bits of a register.
    BF16,
    /// Two bfloat16 in one 32-bit register, the low one first (`__nv_bfloat162`).
    BF16x2,
    /// An 8-bit float with 4 exponent and 3 fraction bits (`__nv_fp8_e4m3`), one member of an
    /// `.e4m3x2` pair: only `cvt` (`lower::fp8`) reads or writes it.
    E4M3,
    /// An 8-bit float with 5 exponent and 2 fraction bits (`__nv_fp8_e5m2`), as `E4M3`.
    E5M2,
    /// `.f32`.
    F32,
    /// `.f64`.
    F64,
}

impl Ty {
    /// Size of a value in bytes.
    pub fn bytes(self) -> u32 {
        match self {
            Ty::U8 | Ty::S8 | Ty::E4M3 | Ty::E5M2 => 1,
            Ty::U16 | Ty::S16 | Ty::F16 | Ty::BF16 => 2,
            Ty::U32 | Ty::S32 | Ty::F32 | Ty::F16x2 | Ty::BF16x2 => 4,
            Ty::U64 | Ty::S64 | Ty::F64 => 8,
        }
    }
    /// Size of a value in bits.
    pub fn bits(self) -> u32 {
        self.bytes() * 8
    }
    /// A signed integer type.
    pub fn is_signed(self) -> bool {
        matches!(self, Ty::S8 | Ty::S16 | Ty::S32 | Ty::S64)
    }
    /// A floating-point type, 8- and 16-bit ones and pairs included.
    pub fn is_float(self) -> bool {
        self.is_half() || matches!(self, Ty::F32 | Ty::F64 | Ty::E4M3 | Ty::E5M2)
    }
    /// A 16-bit float (`.f16`, `.bf16`) or a pair of them: what `exec::halves` computes on.
    pub fn is_half(self) -> bool {
        matches!(self, Ty::F16 | Ty::F16x2 | Ty::BF16 | Ty::BF16x2)
    }
    /// Two 16-bit floats in one 32-bit register.
    pub fn is_pair(self) -> bool {
        matches!(self, Ty::F16x2 | Ty::BF16x2)
    }
    /// The type of each 16-bit float of a pair; a single one's own type.
    pub fn half_lane(self) -> Ty {
        match self {
            Ty::F16x2 => Ty::F16,
            Ty::BF16x2 => Ty::BF16,
            other => other,
        }
    }
}

/// The low `bits` bits set: a register holds a `bits`-bit value zero-extended to 64 bits.
#[inline(always)]
pub(crate) fn mask(bits: u32) -> u64 {
    if bits >= 64 {
        u64::MAX
    } else {
        (1u64 << bits) - 1
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Rnd {
    Rn,
    Rz,
    Rm,
    Rp,
}

/// Floating-point modifiers of one instruction.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct FMode {
    pub rnd: Rnd,
    pub ftz: bool,
    pub sat: bool,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum IntOp {
    Add,
    Sub,
    AddSat,
    SubSat,
    MulLo,
    MulHi,
    MulWide,
    Mul24Lo,
    Mul24Hi,
    Div,
    Rem,
    Min,
    Max,
    And,
    Or,
    Xor,
    Shl,
    Shr,
    Bmsk,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum IntUn {
    Neg,
    Abs,
    Not,
    Cnot,
    Popc,
    Clz,
    Brev,
    Bfind,
    BfindShift,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum IntOp3 {
    MadLo,
    MadHi,
    MadWide,
    Mad24Lo,
    Sad,
    Bfe,
    /// `slct.d.s32`: d = c >= 0 ? a : b (c is s32 or f32).
    SlctS32,
    SlctF32,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum CarryOp {
    Add,
    Sub,
    MadLo,
    MadHi,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum FOp {
    Add,
    Sub,
    Mul,
    Div,
    Min,
    Max,
    MinNan,
    MaxNan,
    Copysign,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum FUn {
    Neg,
    Abs,
    Sqrt,
    Rsqrt,
    Rcp,
    /// `.approx` versions of sqrt, rcp and rsqrt for f64 (`rcp.approx.ftz.f64` in libdevice division).
    RcpApprox,
    Ex2,
    Lg2,
    Sin,
    Cos,
    Tanh,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Cmp {
    Eq,
    Ne,
    Lt,
    Le,
    Gt,
    Ge,
    Equ,
    Neu,
    Ltu,
    Leu,
    Gtu,
    Geu,
    Num,
    Nan,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum BoolOp {
    And,
    Or,
    Xor,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum TestP {
    Finite,
    Infinite,
    Number,
    NotANumber,
    Normal,
    Subnormal,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Special {
    Tid(u8),
    Ntid(u8),
    Ctaid(u8),
    Nctaid(u8),
    LaneId,
    WarpId,
    NWarpId,
    SmId,
    NSmId,
    GridId,
    LanemaskEq,
    LanemaskLt,
    LanemaskLe,
    LanemaskGt,
    LanemaskGe,
    Clock,
    Clock64,
    GlobalTimer,
    DynamicSmemSize,
    TotalSmemSize,
}

/// Where a load or store goes. `Generic` is resolved per lane at run time.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum MemSpace {
    Global,
    Shared,
    Local,
    /// `ld.const`: module `__constant__` data, kept in global memory but not counted as global traffic.
    Const,
    /// The kernel's parameter buffer; the address is the instruction's offset.
    KernelParam,
    /// Call arguments of inlined device functions: per-thread bytes after the local frame.
    Scratch,
    Generic,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum AtomOp {
    Add,
    Min,
    Max,
    And,
    Or,
    Xor,
    Exch,
    Cas,
    Inc,
    Dec,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum ShflMode {
    Up,
    Down,
    Bfly,
    Idx,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum VoteMode {
    All,
    Any,
    Uni,
    Ballot,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum ReduxOp {
    Add,
    Min,
    Max,
    And,
    Or,
    Xor,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum BarKind {
    Sync,
    /// `bar.arrive`: counts as arriving but does not wait.
    Arrive,
    RedPopc,
    RedAnd,
    RedOr,
    /// A barrier of every thread of the grid (the device runtime's `cudaCGSynchronize`, what
    /// `grid.sync()` calls): the block waits there until every block of the launch has arrived.
    Grid,
}

#[derive(Clone, Debug)]
pub(crate) enum Op {
    Nop,
    /// A 64-bit copy; lowering guarantees source and destination hold the same width.
    Mov {
        d: Slot,
        a: Slot,
    },
    /// `mov.b64 d, {a, b}`: concatenate `n` parts of `bits` each, lowest first.
    Pack {
        d: Slot,
        parts: [Slot; 4],
        n: u8,
        bits: u8,
    },
    /// `mov.b64 {a, b}, d`: split into parts; `NONE` parts are discarded.
    Unpack {
        ds: [Slot; 4],
        n: u8,
        bits: u8,
        a: Slot,
    },
    Special {
        d: Slot,
        reg: Special,
    },
    Int2 {
        op: IntOp,
        ty: Ty,
        d: Slot,
        a: Slot,
        b: Slot,
    },
    Int1 {
        op: IntUn,
        ty: Ty,
        d: Slot,
        a: Slot,
    },
    Int3 {
        op: IntOp3,
        ty: Ty,
        d: Slot,
        a: Slot,
        b: Slot,
        c: Slot,
    },
    /// Integer ops reading (`cin`) and/or writing (`cout`) the per-lane carry flag.
    Carry {
        op: CarryOp,
        ty: Ty,
        d: Slot,
        a: Slot,
        b: Slot,
        c: Slot,
        cin: bool,
        cout: bool,
    },
    Bfi {
        ty: Ty,
        d: Slot,
        a: Slot,
        b: Slot,
        pos: Slot,
        len: Slot,
    },
    Prmt {
        d: Slot,
        a: Slot,
        b: Slot,
        c: Slot,
        mode: u8,
    },
    Shf {
        d: Slot,
        a: Slot,
        b: Slot,
        c: Slot,
        left: bool,
        clamp: bool,
    },
    Lop3 {
        d: Slot,
        a: Slot,
        b: Slot,
        c: Slot,
        lut: u8,
    },
    Float2 {
        op: FOp,
        ty: Ty,
        m: FMode,
        d: Slot,
        a: Slot,
        b: Slot,
    },
    Float1 {
        op: FUn,
        ty: Ty,
        m: FMode,
        d: Slot,
        a: Slot,
    },
    Fma {
        ty: Ty,
        m: FMode,
        d: Slot,
        a: Slot,
        b: Slot,
        c: Slot,
    },
    /// `setp.cmp[.bop].ty p[|q], a, b[, c]`
    Setp {
        cmp: Cmp,
        ty: Ty,
        ftz: bool,
        p: Pred,
        q: Pred,
        a: Slot,
        b: Slot,
        comb: Option<(BoolOp, Pred, bool)>,
    },
    Testp {
        op: TestP,
        ty: Ty,
        p: Pred,
        a: Slot,
    },
    Selp {
        d: Slot,
        a: Slot,
        b: Slot,
        p: Pred,
        neg: bool,
    },
    /// Predicate logic: d = (a ^ na) op (b ^ nb); `op == None` copies a.
    PredLogic {
        op: Option<BoolOp>,
        d: Pred,
        a: Pred,
        na: bool,
        b: Pred,
        nb: bool,
    },
    /// Predicate to and from integer registers (`selp` is the usual route; this covers `mov` of
    /// immediates into predicates).
    PredSet {
        d: Pred,
        value: bool,
    },
    Cvt {
        dt: Ty,
        st: Ty,
        rnd: Option<Rnd>,
        to_int: bool,
        ftz: bool,
        sat: bool,
        d: Slot,
        a: Slot,
    },
    /// cvta: `to` converts a generic address into `space`, otherwise from it.
    Cvta {
        space: MemSpace,
        to: bool,
        d: Slot,
        a: Slot,
    },
    Isspacep {
        space: MemSpace,
        p: Pred,
        a: Slot,
    },
    Ld {
        space: MemSpace,
        ty: Ty,
        vec: u8,
        d: [Slot; 4],
        addr: Slot,
        off: i64,
    },
    St {
        space: MemSpace,
        ty: Ty,
        vec: u8,
        v: [Slot; 4],
        addr: Slot,
        off: i64,
    },
    Atom {
        space: MemSpace,
        op: AtomOp,
        ty: Ty,
        d: Slot,
        addr: Slot,
        off: i64,
        b: Slot,
        c: Slot,
    },
    Bra {
        target: u32,
    },
    Brx {
        idx: Slot,
        targets: Box<[u32]>,
    },
    Exit,
    Trap,
    /// `nanosleep.u32 t`: the warp's clock moves on by `t` nanoseconds (its longest lane's).
    Nanosleep {
        t: Slot,
    },
    Bar {
        kind: BarKind,
        d: Slot,
        p: Pred,
        np: bool,
        dp: Pred,
    },
    WarpSync {
        mask: Slot,
    },
    Shfl {
        mode: ShflMode,
        d: Slot,
        p: Pred,
        a: Slot,
        b: Slot,
        c: Slot,
        mask: Slot,
    },
    Vote {
        mode: VoteMode,
        d: Slot,
        dp: Pred,
        a: Pred,
        na: bool,
        mask: Slot,
    },
    Match {
        all: bool,
        ty: Ty,
        d: Slot,
        p: Pred,
        a: Slot,
        mask: Slot,
    },
    Redux {
        op: ReduxOp,
        ty: Ty,
        d: Slot,
        a: Slot,
        mask: Slot,
    },
    Activemask {
        d: Slot,
    },
    Elect {
        d: Slot,
        p: Pred,
        mask: Slot,
    },
    /// `vprintf(format, args)`: the result register gets the number of arguments, like the GPU.
    Printf {
        fmt: Slot,
        args: Slot,
        d: Slot,
    },
    /// `__assertfail(message, file, line, function, charsize)`.
    AssertFail {
        msg: Slot,
        file: Slot,
        line: Slot,
        func: Slot,
    },
    /// Device-side `malloc(size)`: each lane gets a block of the device heap, or null.
    Malloc {
        size: Slot,
        d: Slot,
    },
    /// Device-side `free(ptr)` (null frees nothing).
    Free {
        ptr: Slot,
    },
}

#[derive(Clone, Debug)]
pub(crate) struct Inst {
    pub op: Op,
    /// Guard predicate: `NONE`, or `pred << 1 | negated`.
    pub guard: u32,
    /// Index into `Program::sites` (source location of the nearest preceding `.loc`).
    pub site: u32,
    /// PTX line, for messages.
    pub ptx_line: u32,
}

impl Op {
    /// The registers an instruction writes (`NONE` where a destination is unused).
    pub(crate) fn written_slots(&self) -> Vec<Slot> {
        match *self {
            Op::Mov { d, .. }
            | Op::Pack { d, .. }
            | Op::Special { d, .. }
            | Op::Int2 { d, .. }
            | Op::Int1 { d, .. }
            | Op::Int3 { d, .. }
            | Op::Carry { d, .. }
            | Op::Bfi { d, .. }
            | Op::Prmt { d, .. }
            | Op::Shf { d, .. }
            | Op::Lop3 { d, .. }
            | Op::Float2 { d, .. }
            | Op::Float1 { d, .. }
            | Op::Fma { d, .. }
            | Op::Selp { d, .. }
            | Op::Cvt { d, .. }
            | Op::Cvta { d, .. }
            | Op::Atom { d, .. }
            | Op::Bar { d, .. }
            | Op::Shfl { d, .. }
            | Op::Vote { d, .. }
            | Op::Match { d, .. }
            | Op::Redux { d, .. }
            | Op::Activemask { d, .. }
            | Op::Elect { d, .. }
            | Op::Printf { d, .. }
            | Op::Malloc { d, .. } => vec![d],
            Op::Ld { d, .. } => d.to_vec(),
            Op::Unpack { ds, .. } => ds.to_vec(),
            _ => Vec::new(),
        }
    }
}

/// A value placed in a constant row when a warp's register file is set up for a launch.
#[derive(Clone, Debug)]
pub(crate) enum ConstVal {
    Bits(u64),
    /// The device address of module variable `var`, plus `offset` (known only per machine).
    GlobalVar {
        var: usize,
        offset: i64,
    },
}

#[derive(Clone, Debug)]
pub(crate) struct SharedVar {
    pub name: String,
    pub offset: u32,
    pub size: u32,
}

/// A kernel parameter as the launch must supply it: public through [`crate::KernelInfo`].
#[derive(Clone, Debug)]
pub struct ParamInfo {
    /// The parameter's PTX name.
    pub name: String,
    /// Size of the argument in bytes.
    pub size_bytes: u32,
    /// Alignment of the argument in the parameter buffer, in bytes.
    pub align: u32,
}

/// How a shared-memory load or store is counted.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum MergeRole {
    /// As itself.
    Alone,
    /// As one access of `bytes` at its lanes' addresses less `back` bytes: the merged load.
    Leads { bytes: u8, back: u8 },
    /// Not at all: the load that leads its group counts it.
    Follows,
}

/// One kernel, lowered with all device functions inlined.
#[derive(Clone, Debug)]
pub(crate) struct Program {
    pub name: String,
    pub params: Vec<ParamInfo>,
    pub param_offsets: Vec<u32>,
    pub param_bytes: u32,
    pub code: Vec<Inst>,
    pub n_slots: u32,
    pub n_preds: u32,
    pub consts: Vec<(Slot, ConstVal)>,
    /// Static shared bytes; dynamic shared memory starts at `dynamic_shared_offset`.
    pub shared_static: u32,
    pub dynamic_shared_offset: u32,
    pub shared_vars: Vec<SharedVar>,
    /// Bytes of `.local` frames per thread (what the kernel's own code may touch).
    pub local_frame: u32,
    /// Frame plus call-argument scratch.
    pub local_total: u32,
    pub sites: Vec<Option<SourceLocation>>,
    /// Has atomics on global or generic addresses: blocks then run one at a time, so the order of
    /// atomic operations (and any float rounding that depends on it) does not depend on threads.
    pub has_global_atomics: bool,
    /// Has atomics of system scope (`atom.sys`, as `atomicAdd_system` compiles): the host may
    /// work on the same (managed) memory while it runs.
    pub has_system_atomics: bool,
    /// Has a memory fence (`__threadfence()`) or volatile / acquire / release / relaxed global
    /// accesses: its blocks communicate on purpose, so race detection trusts their reads of each
    /// other's writes.
    pub cross_block_sync: bool,
    /// How each instruction's shared-memory load is counted: ptxas merges some into one wide
    /// load (`lower::merge`).
    pub shared_merges: Vec<MergeRole>,
    /// Global atomics that ptxas combines into one for the warp (`lower::uniform`).
    pub combined_atomics: Vec<bool>,
    /// The kernel's `.maxntid` / `.reqntid` / `.maxnreg`, which its launches must keep to.
    pub bounds: crate::parse::LaunchBounds,
}
