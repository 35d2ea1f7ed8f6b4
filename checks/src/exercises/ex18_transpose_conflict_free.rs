//! 18: the tiled transpose of exercise 16 with a padded tile, so that reading a column of it
//! touches 32 different banks. The cases are exercise 16's; the lesson is in the targets
//! (no bank conflicts, still 4 sectors per request).

use super::ex16_transpose_tiled::transpose_cases;
use crate::case::{Case, CaseOptions};

pub(super) fn cases(options: &CaseOptions) -> Vec<Case> {
    transpose_cases(options, "transpose_conflict_free")
}
