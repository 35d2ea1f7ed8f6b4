//! The data of one test case: buffers, scalars, the launch plan and the CPU reference.

use std::fmt;
use std::sync::Arc;

#[cfg(target_endian = "big")]
compile_error!(
    "buffers are copied to the GPU as they lie in memory, which needs a little-endian host"
);

/// The element type and values of a host-side array.
#[derive(Clone, Debug, PartialEq)]
pub enum HostData {
    /// `float` elements.
    F32(Vec<f32>),
    /// `double` elements.
    F64(Vec<f64>),
    /// `int` elements.
    I32(Vec<i32>),
    /// `unsigned int` elements.
    U32(Vec<u32>),
    /// `unsigned char` elements.
    U8(Vec<u8>),
}

impl HostData {
    /// Number of elements.
    pub fn len(&self) -> usize {
        match self {
            HostData::F32(v) => v.len(),
            HostData::F64(v) => v.len(),
            HostData::I32(v) => v.len(),
            HostData::U32(v) => v.len(),
            HostData::U8(v) => v.len(),
        }
    }

    /// Whether the array has no elements.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// Size of one element in bytes, as the device stores it.
    pub fn element_bytes(&self) -> usize {
        match self {
            HostData::F64(_) => 8,
            HostData::F32(_) | HostData::I32(_) | HostData::U32(_) => 4,
            HostData::U8(_) => 1,
        }
    }

    /// The element type as CUDA C spells it (`unsigned int`), for messages.
    pub fn type_name(&self) -> &'static str {
        match self {
            HostData::F32(_) => "float",
            HostData::F64(_) => "double",
            HostData::I32(_) => "int",
            HostData::U32(_) => "unsigned int",
            HostData::U8(_) => "unsigned char",
        }
    }

    /// Size of the whole array in bytes.
    pub fn byte_len(&self) -> usize {
        self.len() * self.element_bytes()
    }

    /// The elements' bytes in memory, which are what the device holds: GPUs are little-endian,
    /// and so are the hosts CUDA runs on (a big-endian host does not compile, below).
    pub fn as_bytes(&self) -> &[u8] {
        match self {
            HostData::F32(v) => bytemuck::cast_slice(v),
            HostData::F64(v) => bytemuck::cast_slice(v),
            HostData::I32(v) => bytemuck::cast_slice(v),
            HostData::U32(v) => bytemuck::cast_slice(v),
            HostData::U8(v) => v,
        }
    }

    /// The bytes of the elements, to fill them from the device.
    pub fn as_bytes_mut(&mut self) -> &mut [u8] {
        match self {
            HostData::F32(v) => bytemuck::cast_slice_mut(v),
            HostData::F64(v) => bytemuck::cast_slice_mut(v),
            HostData::I32(v) => bytemuck::cast_slice_mut(v),
            HostData::U32(v) => bytemuck::cast_slice_mut(v),
            HostData::U8(v) => v,
        }
    }

    /// `len` zeros of the same type.
    pub fn zeros_like(&self, len: usize) -> HostData {
        match self {
            HostData::F32(_) => HostData::F32(vec![0.0; len]),
            HostData::F64(_) => HostData::F64(vec![0.0; len]),
            HostData::I32(_) => HostData::I32(vec![0; len]),
            HostData::U32(_) => HostData::U32(vec![0; len]),
            HostData::U8(_) => HostData::U8(vec![0; len]),
        }
    }

    /// The same type and length, every element set to a recognisable value that no correct kernel
    /// writes, so that an element the kernel never wrote can be told apart from a wrong one.
    pub fn poisoned(&self) -> HostData {
        let n = self.len();
        match self {
            HostData::F32(_) => HostData::F32(vec![f32::from_bits(POISON_F32_BITS); n]),
            HostData::F64(_) => HostData::F64(vec![f64::from_bits(POISON_F64_BITS); n]),
            HostData::I32(_) => HostData::I32(vec![POISON_U32 as i32; n]),
            HostData::U32(_) => HostData::U32(vec![POISON_U32; n]),
            HostData::U8(_) => HostData::U8(vec![POISON_U8; n]),
        }
    }

    /// Whether element `i` still holds the poison value.
    pub fn is_poison(&self, i: usize) -> bool {
        match self {
            HostData::F32(v) => v[i].to_bits() == POISON_F32_BITS,
            HostData::F64(v) => v[i].to_bits() == POISON_F64_BITS,
            HostData::I32(v) => v[i] as u32 == POISON_U32,
            HostData::U32(v) => v[i] == POISON_U32,
            HostData::U8(v) => v[i] == POISON_U8,
        }
    }

    /// Element `i` as text, for mismatch reports.
    pub fn show(&self, i: usize) -> String {
        if self.is_poison(i) {
            return "(never written)".into();
        }
        match self {
            HostData::F32(v) => format!("{}", v[i]),
            HostData::F64(v) => format!("{}", v[i]),
            HostData::I32(v) => format!("{}", v[i]),
            HostData::U32(v) => format!("{}", v[i]),
            HostData::U8(v) => format!("{}", v[i]),
        }
    }
}

/// A quiet NaN with a payload no arithmetic produces.
pub const POISON_F32_BITS: u32 = 0x7FC0_DEAD;
/// The `double` poison: a quiet NaN with a payload no arithmetic produces.
pub const POISON_F64_BITS: u64 = 0x7FF8_0000_DEAD_BEEF;
/// The `int` and `unsigned int` poison.
pub const POISON_U32: u32 = 0xDEAD_BEEF;
/// The `unsigned char` poison.
pub const POISON_U8: u8 = 0xA5;

/// How the kernel uses a buffer: inputs are copied in, outputs are poisoned before the launch and
/// compared after it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Role {
    /// Copied to the device before the launch; not compared.
    Input,
    /// Poisoned before the launch and compared with the reference after it.
    Output,
    /// Copied in before the launch and compared after it (updated in place).
    InOut,
}

/// A named kernel argument that points at device memory: its host-side data and how the kernel
/// uses it.
#[derive(Clone, Debug)]
pub struct Buffer {
    /// Parameter name, as the kernel declares it and messages show it.
    pub name: String,
    /// Element type and contents: the inputs, or the poison an output starts as.
    pub data: HostData,
    /// Whether it is copied in, compared after, or both.
    pub role: Role,
}

/// A kernel parameter passed by value.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Scalar {
    /// `int`.
    I32(i32),
    /// `unsigned int`.
    U32(u32),
    /// `long long`.
    I64(i64),
    /// `unsigned long long` (also `size_t`).
    U64(u64),
    /// `float`.
    F32(f32),
    /// `double`.
    F64(f64),
}

impl Scalar {
    /// The value's little-endian bytes, as the kernel's parameter buffer holds them.
    pub fn to_bytes(self) -> Vec<u8> {
        match self {
            Scalar::I32(v) => v.to_le_bytes().to_vec(),
            Scalar::U32(v) => v.to_le_bytes().to_vec(),
            Scalar::I64(v) => v.to_le_bytes().to_vec(),
            Scalar::U64(v) => v.to_le_bytes().to_vec(),
            Scalar::F32(v) => v.to_le_bytes().to_vec(),
            Scalar::F64(v) => v.to_le_bytes().to_vec(),
        }
    }
}

impl fmt::Display for Scalar {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Scalar::I32(v) => write!(f, "{v}"),
            Scalar::U32(v) => write!(f, "{v}"),
            Scalar::I64(v) => write!(f, "{v}"),
            Scalar::U64(v) => write!(f, "{v}"),
            Scalar::F32(v) => write!(f, "{v}"),
            Scalar::F64(v) => write!(f, "{v}"),
        }
    }
}

/// One kernel parameter, in the kernel's parameter order.
#[derive(Clone, Debug)]
pub enum Arg {
    /// A pointer to a device buffer.
    Buffer(Buffer),
    /// A value passed by value.
    Scalar {
        /// Parameter name, as the kernel declares it.
        name: String,
        /// The value and its type.
        value: Scalar,
    },
}

/// Grid and block shape and dynamic shared memory of one launch.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Launch {
    /// Blocks per grid in x, y, z.
    pub grid: [u32; 3],
    /// Threads per block in x, y, z.
    pub block: [u32; 3],
    /// Dynamic shared memory per block, in bytes.
    pub shared_bytes: u32,
}

impl Launch {
    /// Enough blocks of `block` threads to give every one of `n` elements a thread.
    pub fn covering(n: usize, block: u32) -> Launch {
        let blocks = n.div_ceil(block as usize).max(1) as u32;
        Launch {
            grid: [blocks, 1, 1],
            block: [block, 1, 1],
            shared_bytes: 0,
        }
    }

    /// The same work laid out for a kernel whose blocks have `block` threads and whose threads
    /// each do `items` times the work of one of this launch's threads, per dimension: the grid
    /// shrinks so that the threads still cover every element this launch covered. A tuned
    /// reference declares these to be launched as it needs (wider loads, several rows each).
    pub fn retiled(&self, block: [u32; 3], items: [u32; 3]) -> Launch {
        let mut grid = [1; 3];
        for d in 0..3 {
            let covered = self.grid[d] as u64 * self.block[d] as u64;
            let per_block = (block[d].max(1) as u64) * (items[d].max(1) as u64);
            grid[d] = covered.div_ceil(per_block).max(1) as u32;
        }
        Launch {
            grid,
            block,
            shared_bytes: self.shared_bytes,
        }
    }

    /// Threads in one block (x * y * z).
    pub fn threads_per_block(&self) -> u32 {
        self.block.iter().product()
    }

    /// Threads in the whole grid.
    pub fn total_threads(&self) -> u64 {
        self.grid.iter().map(|&g| g as u64).product::<u64>() * self.threads_per_block() as u64
    }
}

impl fmt::Display for Launch {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let dims = |d: [u32; 3]| match d {
            [x, 1, 1] => format!("{x}"),
            [x, y, 1] => format!("({x}, {y})"),
            [x, y, z] => format!("({x}, {y}, {z})"),
        };
        write!(f, "<<<{}, {}>>>", dims(self.grid), dims(self.block))
    }
}

/// The CPU reference: given the case (its inputs), the expected content of each output buffer.
pub type Reference = Arc<dyn Fn(&Case) -> Vec<(String, HostData)> + Send + Sync>;

/// What an exercise's `diagnose` reads to name a mistake: the case (inputs, launch), the output
/// that is wrong, what it should hold and what it holds, and which elements are wrong.
pub struct Evidence<'a> {
    /// The case the output came from.
    pub case: &'a Case,
    /// Name of the wrong output buffer.
    pub buffer: &'a str,
    /// What the CPU reference says the output should hold.
    pub expected: &'a HostData,
    /// What the kernel left in it (poison where it never wrote).
    pub actual: &'a HostData,
    /// Indices of the wrong (or never written) elements, ascending.
    pub wrong: &'a [usize],
}

impl Evidence<'_> {
    /// Whether element `i` still holds the poison the runner filled the output with.
    pub fn never_written(&self, i: usize) -> bool {
        self.actual.is_poison(i)
    }

    /// Elements that are wrong, as a share of the output.
    pub fn wrong_share(&self) -> f64 {
        self.wrong.len() as f64 / self.expected.len().max(1) as f64
    }
}

/// An exercise's knowledge of its typical mistakes: given the evidence of a wrong output, the
/// likely mistake in a sentence a student can act on, or None when the pattern does not tell.
pub type Diagnose = Arc<dyn Fn(&Evidence) -> Option<String> + Send + Sync>;

/// The inputs that produced element `index` of output `buffer`, as a short text
/// (`a = 1.5, b = -2`), shown beside a wrong element; None when no input is its own.
pub type InputsOf = Arc<dyn Fn(&Case, &str, usize) -> Option<String> + Send + Sync>;

/// One launch of the student's kernel with known inputs and a known right answer.
#[derive(Clone)]
pub struct Case {
    /// Case name shown in reports (`n = 1000, not a multiple of the block`).
    pub name: String,
    /// Name of the kernel function to launch, as the exercise's file declares it.
    pub kernel: String,
    /// Grid, block and dynamic shared memory of the launch.
    pub launch: Launch,
    /// The kernel's arguments, in its parameter order.
    pub args: Vec<Arg>,
    /// Computes the expected outputs from the inputs.
    pub reference: Reference,
    /// Bytes a perfect kernel reads and writes in global memory, for effective bandwidth.
    pub bytes_moved: u64,
    /// Floating-point operations of the computation, for compute-bound kernels (matrix
    /// multiply); 0 where bandwidth is the measure.
    pub flops: u64,
    /// Large cases made for timing on a GPU; the simulator leaves them out.
    pub for_timing: bool,
    /// For matrix multiply: the shape (m, n, k) of C = A·B, on which cuBLAS SGEMM is timed as
    /// the ceiling.
    pub sgemm_shape: Option<[usize; 3]>,
    /// Row-major shapes `[rows, cols]` of the 2D outputs, by name: wrong elements are shown at
    /// (row, col).
    pub shapes: Vec<(String, [usize; 2])>,
    /// Names the likely mistake from a wrong output (per exercise).
    pub diagnose: Option<Diagnose>,
    /// Shows the inputs behind a wrong element (per exercise).
    pub inputs_of: Option<InputsOf>,
}

impl fmt::Debug for Case {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Case")
            .field("name", &self.name)
            .field("kernel", &self.kernel)
            .field("launch", &self.launch)
            .finish_non_exhaustive()
    }
}

impl Case {
    /// A case named `name` launching `kernel` with `launch`, with no arguments yet and a reference
    /// that expects nothing.
    pub fn new(name: impl Into<String>, kernel: &str, launch: Launch) -> Case {
        Case {
            name: name.into(),
            kernel: kernel.to_string(),
            launch,
            args: Vec::new(),
            reference: Arc::new(|_| Vec::new()),
            bytes_moved: 0,
            flops: 0,
            for_timing: false,
            sgemm_shape: None,
            shapes: Vec::new(),
            diagnose: None,
            inputs_of: None,
        }
    }

    /// Appends an input buffer argument.
    pub fn input(mut self, name: &str, data: HostData) -> Case {
        self.args.push(Arg::Buffer(Buffer {
            name: name.into(),
            data,
            role: Role::Input,
        }));
        self
    }

    /// An output buffer of `len` elements of the type of `like`.
    pub fn output(mut self, name: &str, like: HostData) -> Case {
        let data = like.poisoned();
        self.args.push(Arg::Buffer(Buffer {
            name: name.into(),
            data,
            role: Role::Output,
        }));
        self
    }

    /// Appends a buffer the kernel reads and updates in place.
    pub fn in_out(mut self, name: &str, data: HostData) -> Case {
        self.args.push(Arg::Buffer(Buffer {
            name: name.into(),
            data,
            role: Role::InOut,
        }));
        self
    }

    /// Appends a by-value argument.
    pub fn scalar(mut self, name: &str, value: Scalar) -> Case {
        self.args.push(Arg::Scalar {
            name: name.into(),
            value,
        });
        self
    }

    /// Sets the CPU reference that computes the expected outputs from this case.
    pub fn reference(
        mut self,
        f: impl Fn(&Case) -> Vec<(String, HostData)> + Send + Sync + 'static,
    ) -> Case {
        self.reference = Arc::new(f);
        self
    }

    /// Sets the global-memory bytes a perfect kernel moves, from which effective bandwidth is
    /// computed.
    pub fn bytes_moved(mut self, bytes: u64) -> Case {
        self.bytes_moved = bytes;
        self
    }

    /// Sets the floating-point operations, for compute-bound kernels.
    pub fn flops(mut self, flops: u64) -> Case {
        self.flops = flops;
        self
    }

    /// Names the matrix-multiply shape (m, n, k) whose cuBLAS time is this case's ceiling.
    pub fn sgemm_shape(mut self, m: usize, n: usize, k: usize) -> Case {
        self.sgemm_shape = Some([m, n, k]);
        self
    }

    /// Declares output `name` a row-major matrix of `rows` x `cols`.
    pub fn shape_2d(mut self, name: &str, rows: usize, cols: usize) -> Case {
        self.shapes.push((name.to_string(), [rows, cols]));
        self
    }

    /// The shape of output `name` when it is 2D.
    pub fn shape_of(&self, name: &str) -> Option<[usize; 2]> {
        self.shapes.iter().find(|(n, _)| n == name).map(|(_, s)| *s)
    }

    /// Names the exercise's typical mistakes from a wrong output.
    pub fn diagnose(
        mut self,
        f: impl Fn(&Evidence) -> Option<String> + Send + Sync + 'static,
    ) -> Case {
        self.diagnose = Some(Arc::new(f));
        self
    }

    /// Shows the inputs behind a wrong element.
    pub fn inputs_of(
        mut self,
        f: impl Fn(&Case, &str, usize) -> Option<String> + Send + Sync + 'static,
    ) -> Case {
        self.inputs_of = Some(Arc::new(f));
        self
    }

    /// Marks a large case made for timing on a GPU.
    pub fn for_timing(mut self, yes: bool) -> Case {
        self.for_timing = yes;
        self
    }

    /// The buffer called `name`; a check asking for one it did not declare is a bug in the check.
    pub fn buffer(&self, name: &str) -> &HostData {
        self.args
            .iter()
            .find_map(|a| match a {
                Arg::Buffer(b) if b.name == name => Some(&b.data),
                _ => None,
            })
            .unwrap_or_else(|| panic!("case {:?} has no buffer {name:?}", self.name))
    }

    /// The `float` buffer called `name`; panics if it has another type (a bug in the check).
    pub fn f32s(&self, name: &str) -> &[f32] {
        match self.buffer(name) {
            HostData::F32(v) => v,
            other => panic!("buffer {name:?} holds {}, not float", other.type_name()),
        }
    }

    /// The `int` buffer called `name`; panics if it has another type (a bug in the check).
    pub fn i32s(&self, name: &str) -> &[i32] {
        match self.buffer(name) {
            HostData::I32(v) => v,
            other => panic!("buffer {name:?} holds {}, not int", other.type_name()),
        }
    }

    /// The `unsigned int` buffer called `name`; panics if it has another type (a bug in the check).
    pub fn u32s(&self, name: &str) -> &[u32] {
        match self.buffer(name) {
            HostData::U32(v) => v,
            other => panic!(
                "buffer {name:?} holds {}, not unsigned int",
                other.type_name()
            ),
        }
    }

    /// The value of the scalar parameter `name`.
    pub fn scalar_value(&self, name: &str) -> Scalar {
        self.args
            .iter()
            .find_map(|a| match a {
                Arg::Scalar { name: n, value } if n == name => Some(*value),
                _ => None,
            })
            .unwrap_or_else(|| panic!("case {:?} has no scalar {name:?}", self.name))
    }

    /// Runs the CPU reference.
    pub fn expected(&self) -> Vec<(String, HostData)> {
        (self.reference)(self)
    }

    /// The buffers the kernel writes (outputs and in-out buffers), in parameter order.
    pub fn outputs(&self) -> impl Iterator<Item = &Buffer> {
        self.args.iter().filter_map(|a| match a {
            Arg::Buffer(b) if b.role != Role::Input => Some(b),
            _ => None,
        })
    }
}

/// What the instructor or the student can vary about the cases.
#[derive(Clone, Debug, PartialEq)]
pub struct CaseOptions {
    /// Seed of the random inputs; graders use their own to make hidden cases.
    pub seed: u64,
    /// Extra problem sizes to test, beyond the exercise's own.
    pub extra_sizes: Vec<usize>,
    /// Whether to add the large cases used for timing on a GPU.
    pub timing: bool,
    /// How many times larger than a check's the timing cases are made: `runner bench` asks for
    /// more, so that launch overhead and tail effects fade and the figures approach the
    /// hardware's (one-dimensional exercises follow it; fixed shapes do not).
    pub timing_scale: usize,
    /// Values the student declared in the kernel file (`extern "C" __constant__ int name = ...;`),
    /// read back from the compiled module, such as a launch configuration they chose.
    pub declared: std::collections::BTreeMap<String, i64>,
}

impl Default for CaseOptions {
    fn default() -> Self {
        CaseOptions {
            seed: 2024,
            extra_sizes: Vec::new(),
            timing: false,
            timing_scale: 1,
            declared: Default::default(),
        }
    }
}

impl CaseOptions {
    /// A declared value; the runner has read every name the exercise's metadata lists, so a
    /// missing one is a bug in the exercise.
    pub fn declared(&self, name: &str) -> i64 {
        *self
            .declared
            .get(name)
            .unwrap_or_else(|| panic!("exercises.toml must list {name:?} under `declared`"))
    }
}

#[cfg(test)]
mod tests {
    use super::Launch;

    #[test]
    fn retiled_launch_covers_the_same_elements_with_fewer_threads() {
        let check = Launch::covering(1000, 256);
        let tuned = check.retiled([128, 1, 1], [4, 1, 1]);
        assert_eq!((tuned.grid, tuned.block), ([2, 1, 1], [128, 1, 1]));
        assert!(tuned.total_threads() * 4 >= 1000);
    }

    #[test]
    fn retiled_transpose_takes_several_rows_per_thread() {
        let check = Launch {
            grid: [64, 128, 1],
            block: [32, 32, 1],
            shared_bytes: 0,
        };
        let tuned = check.retiled([32, 8, 1], [1, 4, 1]);
        assert_eq!(tuned.grid, [64, 128, 1]);
        assert_eq!(tuned.block, [32, 8, 1]);
    }
}
