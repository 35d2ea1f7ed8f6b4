//! Several PTX inputs made into one module, as the driver's linker makes one image of them:
//! Numba links its kernels with the PTX of `.cu` files (`cuda.jit(link=[...])`), its half-precision
//! helpers and other libraries this way.
//!
//! What a linker does, at the level of PTX text: one header (the newest `.version`, the highest
//! target); an `.extern` declaration is dropped where another input defines the name, and kept once
//! where none does (dynamic shared memory); a `.weak` definition gives way to a strong one or to
//! the first weak one; a name an input keeps to itself (no `.visible`, `.extern` or `.weak`, such as
//! each module's `$str` strings) is renamed where another input uses it too; `.file` numbers are
//! kept apart so every `.loc` still names its own source file.

use std::collections::{HashMap, HashSet};

/// A top-level statement of one input: a header line, `.file`, a declaration or a definition.
struct Statement {
    text: String,
    kind: Kind,
}

#[derive(PartialEq, Clone, Copy)]
enum Linkage {
    Extern,
    Visible,
    Weak,
    Internal,
}

enum Kind {
    Version(String),
    Target(String),
    AddressSize,
    File,
    /// A function or variable: its name, linkage, and whether this statement defines it.
    Symbol {
        name: String,
        linkage: Linkage,
        defines: bool,
        is_function: bool,
    },
    Other,
}

/// One module from `inputs`, or why they cannot be linked.
pub(crate) fn merge(inputs: &[String]) -> Result<String, String> {
    let parsed: Vec<Vec<Statement>> = inputs
        .iter()
        .map(|p| statements(&without_comments(p)))
        .collect();
    let defined = Definitions::of(&parsed)?;
    let (version, target) = header(&parsed);
    let mut out = format!(".version {version}\n.target {target}\n.address_size 64\n\n");
    let mut weak_taken = HashSet::new();
    let mut extern_kept = HashSet::new();
    for (k, input) in parsed.iter().enumerate() {
        let renames = internal_collisions(&parsed, k);
        for statement in input {
            if keep(statement, &defined, &mut weak_taken, &mut extern_kept) {
                out.push_str(&rewrite(&statement.text, &renames, k));
                out.push('\n');
            }
        }
    }
    Ok(out)
}

/// Whether `statement` goes into the linked module.
fn keep(
    statement: &Statement,
    defined: &Definitions,
    weak_taken: &mut HashSet<String>,
    extern_kept: &mut HashSet<String>,
) -> bool {
    let Kind::Symbol {
        name,
        linkage,
        defines,
        is_function,
    } = &statement.kind
    else {
        return matches!(statement.kind, Kind::File | Kind::Other);
    };
    match linkage {
        Linkage::Weak if *defines => {
            !defined.strong.contains(name) && weak_taken.insert(name.clone())
        }
        // A function's declaration may stand beside its definition (the simulator takes the two as
        // one, and the definition may come later in the text than a call); a variable's may not.
        Linkage::Extern if *is_function => extern_kept.insert(name.clone()),
        Linkage::Extern => !defined.contains(name) && extern_kept.insert(name.clone()),
        _ => true,
    }
}

/// The names the inputs define with external linkage.
struct Definitions {
    strong: HashSet<String>,
    weak: HashSet<String>,
}

impl Definitions {
    /// A name two inputs define with `.visible` is refused, as NVIDIA's linker refuses it.
    fn of(parsed: &[Vec<Statement>]) -> Result<Definitions, String> {
        let mut defined = Definitions {
            strong: HashSet::new(),
            weak: HashSet::new(),
        };
        for statement in parsed.iter().flatten() {
            let Kind::Symbol {
                name,
                linkage,
                defines: true,
                ..
            } = &statement.kind
            else {
                continue;
            };
            match linkage {
                Linkage::Visible if !defined.strong.insert(name.clone()) => {
                    return Err(format!(
                        "`{name}` is defined by two of the linked inputs; give one of them another name"
                    ))
                }
                Linkage::Weak => {
                    defined.weak.insert(name.clone());
                }
                _ => {}
            }
        }
        Ok(defined)
    }

    fn contains(&self, name: &str) -> bool {
        self.strong.contains(name) || self.weak.contains(name)
    }
}

/// `ptx` without its comments (strings, which only `.file` carries, kept whole).
fn without_comments(ptx: &str) -> String {
    tokens(ptx)
        .into_iter()
        .map(|t| match t {
            Token::Word(w) => w,
            Token::Other(o) if o.starts_with("//") || o.starts_with("/*") => " ",
            Token::Other(o) => o,
        })
        .collect()
}

/// The newest `.version` and the highest `.target` of the inputs.
fn header(parsed: &[Vec<Statement>]) -> (String, String) {
    let mut version = "7.0".to_string();
    let mut target = "sm_52".to_string();
    let number = |s: &str| -> f64 {
        let digits: String = s
            .chars()
            .filter(|c| c.is_ascii_digit() || *c == '.')
            .collect();
        digits.parse().unwrap_or(0.0)
    };
    for statement in parsed.iter().flatten() {
        match &statement.kind {
            Kind::Version(v) if version_key(v) > version_key(&version) => version = v.clone(),
            Kind::Target(t) if number(t) > number(&target) => target = t.clone(),
            _ => {}
        }
    }
    (version, target)
}

fn version_key(v: &str) -> (u32, u32) {
    let (major, minor) = v.split_once('.').unwrap_or((v, "0"));
    (major.parse().unwrap_or(0), minor.parse().unwrap_or(0))
}

/// Input `k`'s own names (internal linkage) that another input also declares or defines, each
/// with the name it takes in the linked module.
fn internal_collisions(parsed: &[Vec<Statement>], k: usize) -> HashMap<String, String> {
    let names_of = |input: &Vec<Statement>| -> HashSet<String> {
        input
            .iter()
            .filter_map(|s| match &s.kind {
                Kind::Symbol { name, .. } => Some(name.clone()),
                _ => None,
            })
            .collect()
    };
    let elsewhere: HashSet<String> = parsed
        .iter()
        .enumerate()
        .filter(|&(j, _)| j != k)
        .flat_map(|(_, input)| names_of(input))
        .collect();
    parsed[k]
        .iter()
        .filter_map(|s| match &s.kind {
            Kind::Symbol {
                name,
                linkage: Linkage::Internal,
                ..
            } if elsewhere.contains(name) => Some((name.clone(), format!("{name}__link{k}"))),
            _ => None,
        })
        .collect()
}

/// `text` with its renamed identifiers replaced and, past the first input, its `.file` and `.loc`
/// numbers moved out of the way of the other inputs' (input `k`'s file 3 becomes `k * 1000 + 3`).
fn rewrite(text: &str, renames: &HashMap<String, String>, k: usize) -> String {
    let mut out = String::with_capacity(text.len());
    let mut previous_word = String::new();
    for token in tokens(text) {
        match token {
            Token::Word(word) => {
                if k > 0 && (previous_word == ".file" || previous_word == ".loc") {
                    if let Ok(n) = word.parse::<u64>() {
                        out.push_str(&(k as u64 * 1000 + n).to_string());
                        previous_word.clear();
                        continue;
                    }
                }
                out.push_str(renames.get(word).map_or(word, String::as_str));
                previous_word = word.to_string();
            }
            Token::Other(other) => {
                if !other.trim().is_empty() {
                    previous_word.clear();
                }
                out.push_str(other);
            }
        }
    }
    out
}

enum Token<'a> {
    /// An identifier, a directive (`.loc`) or a number.
    Word(&'a str),
    /// Anything else: punctuation, spaces, comments and strings, copied as they are.
    Other(&'a str),
}

fn is_word_char(c: u8) -> bool {
    c.is_ascii_alphanumeric() || matches!(c, b'_' | b'$' | b'%' | b'.')
}

/// `text` cut into words and the rest, comments and strings kept whole (never renamed).
fn tokens(text: &str) -> Vec<Token<'_>> {
    let bytes = text.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    while i < bytes.len() {
        let start = i;
        i = match bytes[i] {
            b'/' if bytes.get(i + 1) == Some(&b'/') => find_from(text, i, "\n"),
            b'/' if bytes.get(i + 1) == Some(&b'*') => find_from(text, i + 2, "*/") + 2,
            b'"' => find_from(text, i + 1, "\"") + 1,
            c if is_word_char(c) => {
                let mut j = i;
                while j < bytes.len() && is_word_char(bytes[j]) {
                    j += 1;
                }
                out.push(Token::Word(&text[i..j]));
                i = j;
                continue;
            }
            _ => i + 1,
        }
        .min(bytes.len());
        out.push(Token::Other(&text[start..i]));
    }
    out
}

/// Where `needle` starts in `text` at or after `from`, else the end of `text`.
fn find_from(text: &str, from: usize, needle: &str) -> usize {
    text.get(from..)
        .and_then(|rest| rest.find(needle))
        .map_or(text.len(), |at| from + at)
}

/// `ptx` (without comments) cut into its top-level statements: each ends at a `;` outside braces,
/// at the `}` that closes a function's body, or, for a header line or `.file`, at its line's end.
fn statements(ptx: &str) -> Vec<Statement> {
    let mut out = Vec::new();
    let (mut depth, mut start, mut offset, mut is_function) = (0usize, 0usize, 0usize, false);
    for token in tokens(ptx) {
        let text = match token {
            Token::Word(w) | Token::Other(w) => w,
        };
        offset += text.len();
        let ends = match text {
            ".func" | ".entry" if depth == 0 => {
                is_function = true;
                false
            }
            "{" => {
                depth += 1;
                false
            }
            "}" => {
                depth = depth.saturating_sub(1);
                depth == 0 && is_function
            }
            ";" => depth == 0,
            "\n" => depth == 0 && starts_with_line_directive(&ptx[start..offset]),
            _ => false,
        };
        if ends {
            push_statement(&ptx[start..offset], &mut out);
            (start, is_function) = (offset, false);
        }
    }
    push_statement(&ptx[start..], &mut out);
    out
}

fn push_statement(text: &str, out: &mut Vec<Statement>) {
    let text = text.trim();
    if !text.is_empty() {
        out.push(classify(text));
    }
}

fn is_header(word: &str) -> bool {
    matches!(word, ".version" | ".target" | ".address_size" | ".file")
}

fn starts_with_line_directive(text: &str) -> bool {
    let first = text.split_whitespace().next().unwrap_or_default();
    is_header(first)
}

/// What a statement is, from its leading words.
fn classify(text: &str) -> Statement {
    let words: Vec<&str> = tokens(text)
        .into_iter()
        .filter_map(|t| match t {
            Token::Word(w) => Some(w),
            Token::Other(_) => None,
        })
        .collect();
    let first = words.first().copied().unwrap_or_default();
    let second = || words.get(1).map(|s| s.to_string()).unwrap_or_default();
    let kind = match first {
        ".version" => Kind::Version(second()),
        ".target" => Kind::Target(second()),
        ".address_size" => Kind::AddressSize,
        ".file" => Kind::File,
        _ => symbol(text, &words).unwrap_or(Kind::Other),
    };
    Statement {
        text: text.to_string(),
        kind,
    }
}

/// A function's or variable's name, linkage and whether `text` defines it.
fn symbol(text: &str, words: &[&str]) -> Option<Kind> {
    let linkage = if words.contains(&".extern") {
        Linkage::Extern
    } else if words.contains(&".weak") || words.contains(&".common") {
        Linkage::Weak
    } else if words.contains(&".visible") || words.contains(&".entry") {
        Linkage::Visible
    } else {
        Linkage::Internal
    };
    if let Some(at) = words.iter().position(|w| *w == ".func" || *w == ".entry") {
        // `.func (.param .b32 r) name (...)`: the name is the first word after the return list.
        let after = &text[text.find(words[at])? + words[at].len()..];
        let after = after.trim_start();
        let rest = if after.starts_with('(') {
            &after[find_from(after, 0, ")") + 1..]
        } else {
            after
        };
        let name = tokens(rest).into_iter().find_map(|t| match t {
            Token::Word(w) => Some(w.to_string()),
            Token::Other(_) => None,
        })?;
        let defines = text.trim_end().ends_with('}');
        return Some(Kind::Symbol {
            name,
            linkage,
            defines,
            is_function: true,
        });
    }
    words
        .iter()
        .find(|w| matches!(**w, ".global" | ".const" | ".shared"))?;
    // The name is the last word before `[`, `=` or `;`, past the state space and its type.
    let head = text.split(['[', '=', ';']).next()?;
    let name = tokens(head)
        .into_iter()
        .filter_map(|t| match t {
            Token::Word(w) if !w.starts_with('.') && w.parse::<u64>().is_err() => Some(w),
            _ => None,
        })
        .next_back()?
        .to_string();
    Some(Kind::Symbol {
        name,
        linkage,
        defines: linkage != Linkage::Extern,
        is_function: false,
    })
}

#[cfg(test)]
mod tests;
