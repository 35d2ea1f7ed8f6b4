//! A function's performance directives (`.maxntid`, `.reqntid`, `.maxnreg`, `.minnctapersm`...),
//! read between its parameters and its body: the launch bounds a GPU's driver enforces and
//! reports (`cuFuncGetAttribute`), which the simulator must enforce and report alike.

use super::lexer::Tok;
use super::Parser;
use crate::error::SimError;

/// Threads a block may have on any GPU the course targets (the driver refuses more).
const MAX_BLOCK_THREADS: u64 = 1024;

/// What a function's directives ask of its launches and of ptxas.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct LaunchBounds {
    /// `.maxntid x, y, z`: the most threads a block of this kernel may have (their product).
    pub max_threads: Option<[u32; 3]>,
    /// `.reqntid x, y, z`: the block's exact shape, which every launch must use.
    pub required_threads: Option<[u32; 3]>,
    /// `.maxnreg n`: the most registers per thread ptxas may give the kernel.
    pub max_registers: Option<u32>,
}

impl LaunchBounds {
    /// The most threads a block may have under `.maxntid` or `.reqntid` (the tighter of the two).
    pub fn thread_limit(&self) -> Option<u32> {
        let product = |d: [u32; 3]| d.iter().product::<u32>();
        match (self.max_threads, self.required_threads) {
            (Some(m), Some(r)) => Some(product(m).min(product(r))),
            (m, r) => m.or(r).map(product),
        }
    }

    /// Why a block of `block` threads may not launch this kernel, or `None` where it may.
    pub fn refusal(&self, block: [u32; 3]) -> Option<String> {
        let threads: u64 = block.iter().map(|&d| u64::from(d)).product();
        let [x, y, z] = block;
        if let Some(required) = self.required_threads {
            if block != required {
                let [a, b, c] = required;
                return Some(format!(
                    "the kernel declares .reqntid {a}, {b}, {c} (every block exactly that shape), \
                     and the launch asks for blocks of {x} x {y} x {z}: launch it with that block"
                ));
            }
        }
        if let Some(max) = self.max_threads {
            let limit: u64 = max.iter().map(|&d| u64::from(d)).product();
            if threads > limit {
                return Some(format!(
                    "the kernel declares .maxntid {limit} (launch_bounds / __launch_bounds__), \
                     and the launch asks for blocks of {x} x {y} x {z} = {threads} threads: use \
                     blocks of at most {limit} threads or raise the bound"
                ));
            }
        }
        None
    }
}

impl crate::Module {
    /// Kernel `name`'s `.maxntid`, `.reqntid` and `.maxnreg`, as `cuFuncGetAttribute` reports
    /// them (`CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK` is [`LaunchBounds::thread_limit`], else
    /// the device's 1024); `None` where the module has no such kernel the simulator can run.
    pub fn launch_bounds(&self, name: &str) -> Option<LaunchBounds> {
        self.program(name).map(|p| p.bounds)
    }
}

impl Parser<'_> {
    /// The directives between a function's parameters and its body (or its `;`). Those that do
    /// not bound a launch (`.minnctapersm`, `.maxclusterrank`, `.noreturn`...) are skipped.
    pub(super) fn launch_bounds(&mut self) -> Result<LaunchBounds, SimError> {
        let mut bounds = LaunchBounds::default();
        while !self.is_punct('{') && !self.is_punct(';') {
            match self.next()? {
                Tok::Ident(d) if d == ".maxntid" => bounds.max_threads = Some(self.dims(&d)?),
                Tok::Ident(d) if d == ".reqntid" => bounds.required_threads = Some(self.dims(&d)?),
                Tok::Ident(d) if d == ".maxnreg" => {
                    let n = self.int()?;
                    bounds.max_registers = Some(n.min(u64::from(u32::MAX)) as u32);
                }
                _ => {}
            }
        }
        Ok(bounds)
    }

    /// `x[, y[, z]]` of `.maxntid` / `.reqntid`, missing dimensions 1: each at least 1 and their
    /// product at most a block's 1024 threads, as ptxas checks.
    fn dims(&mut self, directive: &str) -> Result<[u32; 3], SimError> {
        let mut dims = [1u32; 3];
        for (k, dim) in dims.iter_mut().enumerate() {
            if k > 0 && !self.eat_punct(',') {
                break;
            }
            let n = self.int()?;
            if n == 0 || n > MAX_BLOCK_THREADS {
                return Err(self.error(format!(
                    "`{directive}` dimension {n} is not between 1 and {MAX_BLOCK_THREADS}"
                )));
            }
            *dim = n as u32;
        }
        if dims.iter().map(|&d| u64::from(d)).product::<u64>() > MAX_BLOCK_THREADS {
            return Err(self.error(format!(
                "`{directive}` asks for more than {MAX_BLOCK_THREADS} threads a block"
            )));
        }
        Ok(dims)
    }
}

#[cfg(test)]
mod tests {
    use super::LaunchBounds;

    fn bounds_of(ptx_directives: &str) -> LaunchBounds {
        let ptx = format!(
            ".version 8.0\n.target sm_80\n.address_size 64\n\
             .visible .entry k() {ptx_directives}\n{{ ret; }}\n"
        );
        let ast = crate::parse::parse(&ptx).expect("parses");
        ast.funcs[0].bounds
    }

    #[test]
    fn maxntid_reqntid_and_maxnreg_are_read_in_any_of_their_forms() {
        assert_eq!(bounds_of(""), LaunchBounds::default());
        let b = bounds_of(".maxntid 128, 1, 1\n.minnctapersm 2\n.maxnreg 40");
        assert_eq!(b.max_threads, Some([128, 1, 1]));
        assert_eq!(b.max_registers, Some(40));
        assert_eq!(b.thread_limit(), Some(128));
        let b = bounds_of(".maxntid 128");
        assert_eq!(b.max_threads, Some([128, 1, 1]));
        let b = bounds_of(".reqntid 16, 8");
        assert_eq!(b.required_threads, Some([16, 8, 1]));
        assert_eq!(b.thread_limit(), Some(128));
    }

    #[test]
    fn a_block_over_maxntid_or_off_reqntid_is_refused_with_the_bound() {
        let b = bounds_of(".maxntid 128");
        assert_eq!(b.refusal([128, 1, 1]), None);
        assert_eq!(b.refusal([64, 2, 1]), None);
        let why = b.refusal([256, 1, 1]).expect("over the bound");
        assert!(
            why.contains(".maxntid 128") && why.contains("256 threads"),
            "{why}"
        );
        let b = bounds_of(".reqntid 32, 4, 1");
        assert_eq!(b.refusal([32, 4, 1]), None);
        assert!(b.refusal([128, 1, 1]).is_some(), "same count, other shape");
        assert!(b.refusal([32, 2, 1]).is_some(), "fewer threads");
    }

    #[test]
    fn a_bound_past_a_block_is_a_parse_error() {
        let ptx = ".version 8.0\n.target sm_80\n.address_size 64\n\
                   .visible .entry k() .maxntid 2048, 1, 1\n{ ret; }\n";
        assert!(crate::parse::parse(ptx).is_err());
    }
}
