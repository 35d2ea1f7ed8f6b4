//! Registers in scope: single names, and `%r<N>` ranges whose members get a slot on first use, so
//! that a declaration of millions of registers costs only the registers the code uses.

use super::{Builder, Name};
use std::collections::HashMap;

/// What a scope binds a name to: a register, predicate or variable, or a declared range.
#[derive(Clone, Copy, Debug)]
pub(super) enum Declared {
    Name(Name),
    /// An index into `Builder::ranges`, stored under the range's `range_key`.
    Range(u32),
}

/// A `.reg .TY prefix<count>;` declaration: `prefix0` to `prefix{count-1}`.
#[derive(Debug, Default)]
pub(super) struct RegRange {
    count: u32,
    pred: bool,
    members: HashMap<u32, Name>,
}

/// The key a range is stored under: `<` cannot appear in a PTX name, so it clashes with none.
pub(super) fn range_key(prefix: &str) -> String {
    format!("{prefix}<>")
}

/// `%r12` -> (`%r`, 12). A member's index is written without leading zeros, as `%r<N>` names them.
fn split(name: &str) -> Option<(&str, u32)> {
    let digits = name.len() - name.trim_end_matches(|c: char| c.is_ascii_digit()).len();
    let (prefix, index) = name.split_at(name.len() - digits);
    if prefix.is_empty() || index.is_empty() || (index.len() > 1 && index.starts_with('0')) {
        return None;
    }
    Some((prefix, index.parse().ok()?))
}

impl Builder<'_> {
    /// Declares `prefix0..prefix{count-1}` in `scope` without giving them slots yet.
    pub(super) fn declare_range(
        &mut self,
        scope: &mut HashMap<String, Declared>,
        prefix: &str,
        count: u32,
        pred: bool,
    ) {
        let id = self.ranges.len() as u32;
        self.ranges.push(RegRange {
            count,
            pred,
            members: HashMap::new(),
        });
        scope.insert(range_key(prefix), Declared::Range(id));
    }

    /// `name` as a member of a range declared in `scope`, given its slot now if it has none.
    pub(super) fn range_member(
        &mut self,
        scope: &HashMap<String, Declared>,
        name: &str,
    ) -> Option<Name> {
        let (prefix, index) = split(name)?;
        let Some(&Declared::Range(id)) = scope.get(&range_key(prefix)) else {
            return None;
        };
        let range = &self.ranges[id as usize];
        if index >= range.count {
            return None;
        }
        if let Some(&n) = range.members.get(&index) {
            return Some(n);
        }
        let n = if range.pred {
            Name::Pred(self.new_pred())
        } else {
            Name::Reg(self.new_slot())
        };
        self.ranges[id as usize].members.insert(index, n);
        Some(n)
    }
}

#[cfg(test)]
mod tests {
    use super::split;

    #[test]
    fn only_the_registers_used_get_slots() {
        let ptx = ".version 8.8\n.target sm_80\n.address_size 64\n.visible .entry k()\n{\n\
                   .reg .b32 %r<4000000>;\n.reg .pred %p<4000000>;\n\
                   mov.u32 %r3999999, 7;\nsetp.eq.u32 %p12, %r3999999, 7;\nret;\n}\n";
        let lowered = crate::lower::lower_module(&crate::parse::parse(ptx).unwrap()).unwrap();
        let program = &lowered.programs[0];
        assert!(program.n_slots < 16, "{} slots", program.n_slots);
        assert!(program.n_preds < 16, "{} predicates", program.n_preds);
    }

    #[test]
    fn names_split_into_prefix_and_index_as_ranges_name_them() {
        assert_eq!(split("%r12"), Some(("%r", 12)));
        assert_eq!(split("%rd0"), Some(("%rd", 0)));
        assert_eq!(split("%r012"), None);
        assert_eq!(split("%r"), None);
        assert_eq!(split("12"), None);
        assert_eq!(split("%r99999999999"), None);
    }
}
