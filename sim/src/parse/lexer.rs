//! Splits PTX text into tokens, each tagged with its PTX line number.

use crate::error::SimError;

#[derive(Clone, Debug, PartialEq)]
pub(crate) enum Tok {
    /// Directives (`.reg`), opcodes (`ld.global.f32`), registers (`%r1`, `%tid.x`), symbols and labels.
    Ident(String),
    /// An unsigned integer literal; a leading `-` is a separate token.
    Int(u64),
    /// `0fXXXXXXXX`: the bits of an f32.
    F32(u32),
    /// `0dXXXXXXXXXXXXXXXX`: the bits of an f64.
    F64(u64),
    /// A decimal float literal such as `1.5`.
    Float(f64),
    Str(String),
    Punct(char),
}

#[derive(Clone, Debug)]
pub(crate) struct Token {
    pub tok: Tok,
    pub line: u32,
}

fn is_ident_start(c: u8) -> bool {
    c.is_ascii_alphabetic() || matches!(c, b'_' | b'$' | b'%' | b'.')
}

fn is_ident_char(c: u8) -> bool {
    c.is_ascii_alphanumeric() || matches!(c, b'_' | b'$' | b'.')
}

pub(crate) fn tokenize(src: &str) -> Result<Vec<Token>, SimError> {
    let bytes = src.as_bytes();
    let mut out = Vec::with_capacity(src.len() / 4);
    let mut i = 0;
    let mut line = 1u32;
    let err = |line: u32, msg: String| SimError::Parse {
        line,
        text: src
            .lines()
            .nth(line as usize - 1)
            .unwrap_or("")
            .trim()
            .to_string(),
        message: msg,
    };
    while i < bytes.len() {
        let c = bytes[i];
        match c {
            b'\n' => {
                line += 1;
                i += 1;
            }
            b' ' | b'\t' | b'\r' => i += 1,
            b'/' if bytes.get(i + 1) == Some(&b'/') => {
                while i < bytes.len() && bytes[i] != b'\n' {
                    i += 1;
                }
            }
            b'/' if bytes.get(i + 1) == Some(&b'*') => {
                i += 2;
                while i < bytes.len() && !(bytes[i] == b'*' && bytes.get(i + 1) == Some(&b'/')) {
                    if bytes[i] == b'\n' {
                        line += 1;
                    }
                    i += 1;
                }
                i += 2;
            }
            b'"' => {
                let start_line = line;
                i += 1;
                let mut s = String::new();
                while i < bytes.len() && bytes[i] != b'"' {
                    if bytes[i] == b'\\' && i + 1 < bytes.len() {
                        i += 1;
                        s.push(match bytes[i] {
                            b'n' => '\n',
                            b't' => '\t',
                            other => other as char,
                        });
                    } else {
                        if bytes[i] == b'\n' {
                            line += 1;
                        }
                        s.push(bytes[i] as char);
                    }
                    i += 1;
                }
                if i >= bytes.len() {
                    return Err(err(start_line, "unterminated string".into()));
                }
                i += 1;
                out.push(Token {
                    tok: Tok::Str(s),
                    line: start_line,
                });
            }
            b'0'..=b'9' => {
                let start = i;
                let tok = if c == b'0'
                    && matches!(
                        bytes.get(i + 1),
                        Some(b'f' | b'F' | b'd' | b'D' | b'x' | b'X')
                    ) {
                    let kind = bytes[i + 1].to_ascii_lowercase();
                    i += 2;
                    let hs = i;
                    while i < bytes.len() && bytes[i].is_ascii_hexdigit() {
                        i += 1;
                    }
                    let hex = &src[hs..i];
                    let parse = |bits| {
                        u64::from_str_radix(hex, 16)
                            .ok()
                            .filter(|v| bits == 64 || *v <= u32::MAX as u64)
                            .ok_or_else(|| {
                                err(
                                    line,
                                    format!("bad hexadecimal literal `{}`", &src[start..i]),
                                )
                            })
                    };
                    match kind {
                        b'f' => Tok::F32(parse(32)? as u32),
                        b'd' => Tok::F64(parse(64)?),
                        _ => Tok::Int(parse(64)?),
                    }
                } else {
                    while i < bytes.len() && bytes[i].is_ascii_digit() {
                        i += 1;
                    }
                    let is_float = bytes.get(i) == Some(&b'.')
                        && bytes.get(i + 1).is_some_and(|c| c.is_ascii_digit());
                    if is_float || matches!(bytes.get(i), Some(b'e' | b'E')) {
                        if is_float {
                            i += 1;
                            while i < bytes.len() && bytes[i].is_ascii_digit() {
                                i += 1;
                            }
                        }
                        if matches!(bytes.get(i), Some(b'e' | b'E')) {
                            i += 1;
                            if matches!(bytes.get(i), Some(b'+' | b'-')) {
                                i += 1;
                            }
                            while i < bytes.len() && bytes[i].is_ascii_digit() {
                                i += 1;
                            }
                        }
                        let text = &src[start..i];
                        Tok::Float(
                            text.parse()
                                .map_err(|_| err(line, format!("bad float literal `{text}`")))?,
                        )
                    } else {
                        let text = &src[start..i];
                        // PTX writes octal with a leading 0; NVRTC never does, but honour it.
                        let v = if text.len() > 1 && text.starts_with('0') {
                            u64::from_str_radix(&text[1..], 8)
                        } else {
                            text.parse()
                        };
                        Tok::Int(v.map_err(|_| err(line, format!("bad integer literal `{text}`")))?)
                    }
                };
                // Integer suffix `U` is allowed by PTX.
                if matches!(bytes.get(i), Some(b'U' | b'u')) {
                    i += 1;
                }
                out.push(Token { tok, line });
            }
            c if is_ident_start(c) => {
                let start = i;
                i += 1;
                loop {
                    if i < bytes.len() && is_ident_char(bytes[i]) {
                        i += 1;
                    } else if i + 2 < bytes.len()
                        && bytes[i] == b':'
                        && bytes[i + 1] == b':'
                        && is_ident_char(bytes[i + 2])
                    {
                        // Cache hints such as `.L1::evict_last` are part of the opcode.
                        i += 2;
                    } else {
                        break;
                    }
                }
                out.push(Token {
                    tok: Tok::Ident(src[start..i].to_string()),
                    line,
                });
            }
            b',' | b';' | b':' | b'{' | b'}' | b'[' | b']' | b'(' | b')' | b'+' | b'-' | b'|'
            | b'!' | b'@' | b'<' | b'>' | b'=' | b'*' => {
                out.push(Token {
                    tok: Tok::Punct(c as char),
                    line,
                });
                i += 1;
            }
            _ => return Err(err(line, format!("unexpected character `{}`", c as char))),
        }
    }
    Ok(out)
}
