//! 20: block sums by warp shuffles, one slot of shared memory per warp. The same contract and
//! cases as exercise 19, so that their times compare.

use super::ex19_reduce_sequential::block_sum_cases;
use crate::case::{Case, CaseOptions};

pub(super) fn cases(options: &CaseOptions) -> Vec<Case> {
    block_sum_cases(options, "reduce_shuffle")
}
