//! Pairs of alike kernels joined into groups: two pairs that share a submission are one group,
//! so a ring of three who copied from each other shows as one group of three, not three pairs.
//! A union-find over a class's few hundred indices is a dozen lines; a graph crate would add a
//! dependency for it.

/// The group's representative of `i` in a union-find forest, halving the path on the way.
fn root(parent: &mut [usize], mut i: usize) -> usize {
    while parent[i] != i {
        parent[i] = parent[parent[i]];
        i = parent[i];
    }
    i
}

/// The groups that `pairs` (indices below `n`) join `0..n` into, each sorted, groups of one
/// left out, in order of their smallest member.
pub(super) fn components(n: usize, pairs: &[(usize, usize)]) -> Vec<Vec<usize>> {
    let mut parent: Vec<usize> = (0..n).collect();
    for &(a, b) in pairs {
        let (ra, rb) = (root(&mut parent, a), root(&mut parent, b));
        parent[ra.max(rb)] = ra.min(rb);
    }
    let mut groups: Vec<Vec<usize>> = vec![Vec::new(); n];
    for i in 0..n {
        let r = root(&mut parent, i);
        groups[r].push(i);
    }
    groups.retain(|g| g.len() > 1);
    groups
}

/// Of `pairs` (in order of preference), the indices of those that join a new member to a
/// group: Kruskal's spanning forest, so each group keeps one pair fewer than it has members.
pub(super) fn spanning(n: usize, pairs: &[(usize, usize)]) -> Vec<usize> {
    let mut parent: Vec<usize> = (0..n).collect();
    let mut kept = Vec::new();
    for (k, &(a, b)) in pairs.iter().enumerate() {
        let (ra, rb) = (root(&mut parent, a), root(&mut parent, b));
        if ra != rb {
            parent[ra.max(rb)] = ra.min(rb);
            kept.push(k);
        }
    }
    kept
}

#[cfg(test)]
mod tests {
    use super::{components, spanning};

    #[test]
    fn a_group_keeps_the_first_pairs_that_join_its_members() {
        // A ring of three: the third pair joins no one new.
        assert_eq!(spanning(3, &[(0, 1), (1, 2), (0, 2)]), [0, 1]);
        assert_eq!(spanning(4, &[(2, 3), (0, 1), (1, 3), (0, 2)]), [0, 1, 2]);
    }

    #[test]
    fn a_ring_and_a_chain_are_one_group_each_and_the_unpaired_are_in_none() {
        // 0-1-2 a ring, 3-5 and 5-6 a chain (3 and 6 not alike themselves), 4 alone.
        let pairs = [(0, 1), (1, 2), (0, 2), (5, 6), (3, 5)];
        assert_eq!(components(7, &pairs), [vec![0, 1, 2], vec![3, 5, 6]]);
        assert!(components(3, &[]).is_empty());
    }
}
