//! PTX text -> syntax tree: module variables, functions, and their statements, with PTX line numbers.
//!
//! The parser accepts what NVRTC emits and leaves meaning to `lower`: opcodes stay dotted strings,
//! operands stay names and literals.

mod bounds;
mod directives;
mod lexer;

pub use directives::LaunchBounds;

use crate::error::SimError;
use lexer::{Tok, Token};

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Space {
    Global,
    Const,
    Shared,
    Local,
    Param,
}

/// `v` rounded up to a multiple of `a` (0 and 1 leave it): how PTX lays out parameters and
/// variables, which parsing checks (a kernel's parameter space) and lowering places.
pub(crate) fn align_up(v: u64, a: u64) -> u64 {
    if a <= 1 {
        v
    } else {
        v.div_ceil(a) * a
    }
}

#[derive(Clone, Debug)]
pub(crate) enum InitVal {
    Int(u64),
    F32(u32),
    F64(u64),
    Float(f64),
    /// The address of another variable (`generic($str)` or a bare name), plus an offset.
    Symbol(String, i64),
}

#[derive(Clone, Debug)]
pub(crate) struct VarDecl {
    pub space: Space,
    pub align: u32,
    /// Element type without the dot, e.g. `b8`, `u32`, `f32`.
    pub ty: String,
    /// Bytes of one element (vector types included).
    pub elem_size: u32,
    pub name: String,
    /// Number of elements; `None` for an unsized `[]` array (dynamic shared memory).
    pub count: Option<u64>,
    pub init: Vec<InitVal>,
    pub is_extern: bool,
    pub line: u32,
}

impl VarDecl {
    pub(crate) fn size_bytes(&self) -> u64 {
        self.count.unwrap_or(0) * self.elem_size as u64
    }
}

#[derive(Clone, Debug)]
pub(crate) struct ParamDecl {
    pub name: String,
    pub size: u32,
    pub align: u32,
}

#[derive(Clone, Debug)]
pub(crate) struct Function {
    pub name: String,
    pub is_entry: bool,
    pub params: Vec<ParamDecl>,
    pub rets: Vec<ParamDecl>,
    /// `None` for a declaration (`.extern .func vprintf(...)`).
    pub body: Option<Vec<Stmt>>,
    /// Why the body could not be read, where it could not: that costs the kernels that run this
    /// function, not the module's others.
    pub unreadable: Option<BodyError>,
    /// `.maxntid`, `.reqntid`, `.maxnreg`: what its launches and ptxas must keep to.
    pub bounds: LaunchBounds,
    pub line: u32,
}

/// A parse error inside a function body, kept to be reported for the kernels that need the body.
#[derive(Clone, Debug)]
pub(crate) struct BodyError {
    pub line: u32,
    pub text: String,
    pub message: String,
}

impl From<BodyError> for SimError {
    fn from(e: BodyError) -> SimError {
        SimError::Parse {
            line: e.line,
            text: e.text,
            message: e.message,
        }
    }
}

#[derive(Clone, Debug)]
pub(crate) enum Operand {
    /// A register, special register, variable, label or function name.
    Name(String),
    /// `name+offset` outside brackets (only in initialisers and `mov`).
    NameOffset(String, i64),
    /// An integer literal, two's complement when negative.
    Int(u64),
    F32(u32),
    F64(u64),
    Float(f64),
    /// `[base+offset]`; base is `None` for an absolute address.
    Addr {
        base: Option<String>,
        offset: i64,
    },
    /// `{a, b, c, d}`
    Vector(Vec<Operand>),
    /// `!%p`
    Not(String),
    /// `%r|%p`: a result and a predicate result.
    Pair(String, String),
    /// `_`: a result nobody reads.
    Sink,
    /// `(a, b)` in `call`.
    List(Vec<Operand>),
}

#[derive(Clone, Debug)]
pub(crate) struct Instruction {
    /// The guard predicate and whether it is negated (`@!%p`).
    pub guard: Option<(String, bool)>,
    pub opcode: String,
    pub operands: Vec<Operand>,
    pub line: u32,
}

#[derive(Clone, Debug)]
pub(crate) enum Stmt {
    /// `.reg .b32 %r<6>;` (count) or `.reg .b32 %a, %b;`
    Reg {
        ty: String,
        names: Vec<(String, Option<u32>)>,
    },
    Var(VarDecl),
    Label(String),
    Inst(Instruction),
    Loc {
        file: u32,
        line: u32,
    },
    /// `{` and `}` open and close a scope for registers and call parameters.
    Open,
    Close,
    /// `prototype_0 : .callprototype (...) _ (...);`: the signature of a call through a pointer.
    CallPrototype {
        line: u32,
    },
    /// `label: .branchtargets a, b, c;`
    BranchTargets {
        name: String,
        targets: Vec<String>,
    },
}

#[derive(Clone, Debug, Default)]
pub(crate) struct Ast {
    pub files: Vec<(u32, String)>,
    pub vars: Vec<VarDecl>,
    pub funcs: Vec<Function>,
}

struct Parser<'a> {
    toks: Vec<Token>,
    pos: usize,
    src: &'a str,
}

pub(crate) fn parse(src: &str) -> Result<Ast, SimError> {
    let toks = lexer::tokenize(src)?;
    let mut p = Parser { toks, pos: 0, src };
    p.module()
}

fn type_size(ty: &str) -> Option<u32> {
    Some(match ty {
        "b8" | "u8" | "s8" | "pred" => 1,
        "b16" | "u16" | "s16" | "f16" | "bf16" => 2,
        "b32" | "u32" | "s32" | "f32" | "f16x2" | "bf16x2" | "tf32" => 4,
        "b64" | "u64" | "s64" | "f64" => 8,
        "b128" => 16,
        _ => return None,
    })
}

impl Parser<'_> {
    fn line(&self) -> u32 {
        self.toks
            .get(self.pos)
            .or(self.toks.last())
            .map_or(1, |t| t.line)
    }

    fn error(&self, message: impl Into<String>) -> SimError {
        let line = self.line();
        SimError::Parse {
            line,
            text: self
                .src
                .lines()
                .nth(line as usize - 1)
                .unwrap_or("")
                .trim()
                .to_string(),
            message: message.into(),
        }
    }

    fn peek(&self) -> Option<&Tok> {
        self.toks.get(self.pos).map(|t| &t.tok)
    }

    fn peek_at(&self, k: usize) -> Option<&Tok> {
        self.toks.get(self.pos + k).map(|t| &t.tok)
    }

    fn next(&mut self) -> Result<Tok, SimError> {
        let t = self
            .toks
            .get(self.pos)
            .map(|t| t.tok.clone())
            .ok_or_else(|| self.error("unexpected end of PTX"))?;
        self.pos += 1;
        Ok(t)
    }

    fn is_punct(&self, c: char) -> bool {
        self.peek() == Some(&Tok::Punct(c))
    }

    fn eat_punct(&mut self, c: char) -> bool {
        if self.is_punct(c) {
            self.pos += 1;
            true
        } else {
            false
        }
    }

    fn expect_punct(&mut self, c: char) -> Result<(), SimError> {
        if self.eat_punct(c) {
            Ok(())
        } else {
            Err(self.error(format!("expected `{c}`")))
        }
    }

    fn ident(&mut self) -> Result<String, SimError> {
        match self.next()? {
            Tok::Ident(s) => Ok(s),
            other => {
                self.pos -= 1;
                Err(self.error(format!("expected a name, found {other:?}")))
            }
        }
    }

    fn is_ident(&self, s: &str) -> bool {
        matches!(self.peek(), Some(Tok::Ident(x)) if x == s)
    }

    fn eat_ident(&mut self, s: &str) -> bool {
        if self.is_ident(s) {
            self.pos += 1;
            true
        } else {
            false
        }
    }

    fn int(&mut self) -> Result<u64, SimError> {
        let neg = self.eat_punct('-');
        match self.next()? {
            Tok::Int(v) => Ok(if neg { v.wrapping_neg() } else { v }),
            _ => {
                self.pos -= 1;
                Err(self.error("expected an integer"))
            }
        }
    }

    /// Directives without a terminating `;` (`.loc`, `.file`, `.version`...) end with their line.
    fn rest_of_line(&mut self, line: u32) -> Vec<Tok> {
        let mut out = Vec::new();
        while let Some(t) = self.toks.get(self.pos) {
            if t.line != line {
                break;
            }
            out.push(t.tok.clone());
            self.pos += 1;
        }
        out
    }

    fn skip_balanced_braces(&mut self) -> Result<(), SimError> {
        self.expect_punct('{')?;
        let mut depth = 1;
        while depth > 0 {
            match self.next()? {
                Tok::Punct('{') => depth += 1,
                Tok::Punct('}') => depth -= 1,
                _ => {}
            }
        }
        Ok(())
    }

    fn module(&mut self) -> Result<Ast, SimError> {
        let mut ast = Ast::default();
        while let Some(tok) = self.peek().cloned() {
            let line = self.line();
            let Tok::Ident(word) = tok else {
                if self.eat_punct(';') {
                    continue;
                }
                return Err(self.error("expected a directive"));
            };
            match word.as_str() {
                ".version" | ".target" | ".address_size" => {
                    self.rest_of_line(line);
                }
                ".file" => {
                    let toks = self.rest_of_line(line);
                    if let (Some(Tok::Int(n)), Some(Tok::Str(name))) = (toks.get(1), toks.get(2)) {
                        ast.files.push((*n as u32, name.clone()));
                    }
                }
                ".pragma" => {
                    while !self.eat_punct(';') {
                        self.next()?;
                    }
                }
                ".section" => {
                    self.next()?;
                    self.ident().ok();
                    self.skip_balanced_braces()?;
                }
                _ => {
                    let mut is_extern = false;
                    while let Some(Tok::Ident(w)) = self.peek() {
                        match w.as_str() {
                            ".visible" | ".weak" | ".common" => self.pos += 1,
                            ".extern" => {
                                is_extern = true;
                                self.pos += 1
                            }
                            _ => break,
                        }
                    }
                    let word = self.ident()?;
                    match word.as_str() {
                        ".entry" | ".func" => {
                            let function = self.function(word == ".entry", line)?;
                            refuse_second_definition(&ast.funcs, &function)?;
                            ast.funcs.push(function)
                        }
                        ".global" | ".const" | ".shared" | ".local" => {
                            let v = self.var_decl(&word, is_extern, line)?;
                            self.expect_punct(';')?;
                            ast.vars.push(v);
                        }
                        other => {
                            self.pos -= 1;
                            return Err(
                                self.error(format!("unsupported module-level directive `{other}`"))
                            );
                        }
                    }
                }
            }
        }
        Ok(ast)
    }

    fn param_list(&mut self) -> Result<Vec<ParamDecl>, SimError> {
        let mut out = Vec::new();
        self.expect_punct('(')?;
        while !self.eat_punct(')') {
            if !self.eat_ident(".param") && !self.eat_ident(".reg") {
                return Err(self.error("expected `.param`"));
            }
            let mut align = 0;
            let mut size = 0;
            let mut vec = 1;
            let name = loop {
                let w = self.ident()?;
                match w.as_str() {
                    ".align" => align = self.alignment()?,
                    ".ptr" | ".global" | ".shared" | ".local" | ".const" => {}
                    ".v2" => vec = 2,
                    ".v4" => vec = 4,
                    _ if w.starts_with('.') => {
                        size = type_size(&w[1..])
                            .ok_or_else(|| self.error(format!("unknown parameter type `{w}`")))?
                            * vec
                    }
                    _ => break w,
                }
            };
            if self.eat_punct('[') {
                let n = self.int()?;
                self.expect_punct(']')?;
                size = self.variable_bytes(&name, n, size)? as u32;
            }
            if align == 0 {
                align = size.clamp(1, 8);
            }
            out.push(ParamDecl { name, size, align });
            if !self.eat_punct(',') {
                self.expect_punct(')')?;
                break;
            }
        }
        Ok(out)
    }

    fn function(&mut self, is_entry: bool, line: u32) -> Result<Function, SimError> {
        let rets = if self.is_punct('(') {
            self.param_list()?
        } else {
            Vec::new()
        };
        let name = self.ident()?;
        let params = if self.is_punct('(') {
            self.param_list()?
        } else {
            Vec::new()
        };
        if is_entry {
            self.check_kernel_params(&name, &params)?;
        }
        // Performance directives do not change meaning, but bound the launches (.maxntid, .reqntid).
        let bounds = self.launch_bounds()?;
        let mut unreadable = None;
        let body = if self.eat_punct(';') {
            None
        } else {
            let start = self.pos;
            match self.body() {
                Ok(body) => Some(body),
                // What cannot be read costs this function only: the parser goes on after its `}`.
                Err(SimError::Parse {
                    line,
                    text,
                    message,
                }) => {
                    self.pos = start;
                    self.skip_balanced_braces()?;
                    unreadable = Some(BodyError {
                        line,
                        text,
                        message,
                    });
                    Some(Vec::new())
                }
                Err(other) => return Err(other),
            }
        };
        Ok(Function {
            name,
            is_entry,
            params,
            rets,
            body,
            unreadable,
            bounds,
            line,
        })
    }

    fn var_decl(
        &mut self,
        space_word: &str,
        is_extern: bool,
        line: u32,
    ) -> Result<VarDecl, SimError> {
        let space = match space_word {
            ".global" => Space::Global,
            ".const" => Space::Const,
            ".shared" => Space::Shared,
            ".local" => Space::Local,
            _ => Space::Param,
        };
        let mut align = 0;
        let mut vec = 1;
        let mut ty = String::new();
        let name = loop {
            let w = self.ident()?;
            match w.as_str() {
                ".align" => align = self.alignment()?,
                ".v2" => vec = 2,
                ".v4" => vec = 4,
                ".ptr" | ".attribute" => {}
                _ if w.starts_with('.') => ty = w[1..].to_string(),
                _ => break w,
            }
        };
        let base =
            type_size(&ty).ok_or_else(|| self.error(format!("unknown variable type `.{ty}`")))?;
        let elem_size = base * vec;
        let mut count = Some(1u64);
        while self.eat_punct('[') {
            if self.eat_punct(']') {
                count = None;
            } else {
                let n = self.int()?;
                self.expect_punct(']')?;
                count = match count.map(|c| c.checked_mul(n)) {
                    Some(None) => Some(u64::MAX),
                    c => c.flatten(),
                };
            }
        }
        if let Some(c) = count {
            self.variable_bytes(&name, c, elem_size)?;
        }
        let mut init = Vec::new();
        if self.eat_punct('=') {
            self.initializer(&mut init)?;
        }
        // `.b8 x[] = {1,2,3}` takes its size from the initialiser.
        if count.is_none() && !init.is_empty() {
            count = Some(init.len() as u64);
        }
        if align == 0 {
            align = elem_size;
        }
        Ok(VarDecl {
            space,
            align,
            ty,
            elem_size,
            name,
            count,
            init,
            is_extern,
            line,
        })
    }

    fn initializer(&mut self, out: &mut Vec<InitVal>) -> Result<(), SimError> {
        if self.eat_punct('{') {
            loop {
                if self.eat_punct('}') {
                    break;
                }
                self.initializer(out)?;
                if !self.eat_punct(',') {
                    self.expect_punct('}')?;
                    break;
                }
            }
            return Ok(());
        }
        match self.operand()? {
            Operand::Int(v) => out.push(InitVal::Int(v)),
            Operand::F32(v) => out.push(InitVal::F32(v)),
            Operand::F64(v) => out.push(InitVal::F64(v)),
            Operand::Float(v) => out.push(InitVal::Float(v)),
            Operand::Name(n) => out.push(InitVal::Symbol(n, 0)),
            Operand::NameOffset(n, o) => out.push(InitVal::Symbol(n, o)),
            Operand::List(items) => {
                // `generic(name)` parses as a name followed by a list.
                for item in items {
                    if let Operand::Name(n) = item {
                        out.push(InitVal::Symbol(n, 0));
                    }
                }
            }
            other => return Err(self.error(format!("unsupported initialiser {other:?}"))),
        }
        Ok(())
    }

    fn body(&mut self) -> Result<Vec<Stmt>, SimError> {
        let mut out = Vec::new();
        self.expect_punct('{')?;
        let mut depth = 1;
        while depth > 0 {
            let line = self.line();
            let tok = self.next()?;
            match tok {
                Tok::Punct('{') => {
                    depth += 1;
                    out.push(Stmt::Open);
                }
                Tok::Punct('}') => {
                    depth -= 1;
                    if depth > 0 {
                        out.push(Stmt::Close);
                    }
                }
                Tok::Punct(';') => {}
                Tok::Punct('@') => {
                    let neg = self.eat_punct('!');
                    let pred = self.ident()?;
                    let opcode = self.ident()?;
                    out.push(Stmt::Inst(self.instruction(
                        Some((pred, neg)),
                        opcode,
                        line,
                    )?));
                }
                Tok::Ident(word) if self.is_punct(':') => {
                    self.pos += 1;
                    if self.eat_ident(".branchtargets") {
                        let mut targets = vec![self.ident()?];
                        while self.eat_punct(',') {
                            targets.push(self.ident()?);
                        }
                        self.expect_punct(';')?;
                        out.push(Stmt::BranchTargets {
                            name: word,
                            targets,
                        });
                    } else if self.eat_ident(".callprototype") {
                        while !self.eat_punct(';') {
                            self.next()?;
                        }
                        out.push(Stmt::CallPrototype { line });
                    } else {
                        out.push(Stmt::Label(word));
                    }
                }
                Tok::Ident(word) => match word.as_str() {
                    ".reg" => out.push(self.reg_decl(None)?),
                    // Inline assembly in CUDA's headers writes `.reg.b32 f;` without a space.
                    w if w.starts_with(".reg.") => out.push(self.reg_decl(Some(&w[5..]))?),
                    ".local" | ".shared" | ".param" | ".const" | ".global" => {
                        let v = self.var_decl(&word, false, line)?;
                        self.expect_punct(';')?;
                        out.push(Stmt::Var(v));
                    }
                    ".loc" => {
                        let toks = self.rest_of_line(line);
                        if let (Some(Tok::Int(f)), Some(Tok::Int(l))) = (toks.first(), toks.get(1))
                        {
                            out.push(Stmt::Loc {
                                file: *f as u32,
                                line: *l as u32,
                            });
                        }
                    }
                    ".pragma" => {
                        while !self.eat_punct(';') {
                            self.next()?;
                        }
                    }
                    _ if word.starts_with('.') => {
                        self.pos -= 1;
                        return Err(self
                            .error(format!("unsupported directive `{word}` in a function body")));
                    }
                    _ => out.push(Stmt::Inst(self.instruction(None, word, line)?)),
                },
                _ => {
                    self.pos -= 1;
                    return Err(self.error("expected an instruction"));
                }
            }
        }
        Ok(out)
    }

    /// `.reg .TY names;`, the type already read when the lexer joined it to `.reg`.
    fn reg_decl(&mut self, joined_ty: Option<&str>) -> Result<Stmt, SimError> {
        let mut ty = joined_ty.unwrap_or_default().to_string();
        let mut names = Vec::new();
        loop {
            let w = self.ident()?;
            if w == ".v2" || w == ".v4" {
                continue;
            }
            if w.starts_with('.') && names.is_empty() && ty.is_empty() {
                ty = w[1..].to_string();
                continue;
            }
            let count = if self.eat_punct('<') {
                let n = self.register_count()?;
                self.expect_punct('>')?;
                Some(n)
            } else {
                None
            };
            names.push((w, count));
            if !self.eat_punct(',') {
                break;
            }
        }
        self.expect_punct(';')?;
        Ok(Stmt::Reg { ty, names })
    }

    fn instruction(
        &mut self,
        guard: Option<(String, bool)>,
        opcode: String,
        line: u32,
    ) -> Result<Instruction, SimError> {
        let mut operands = Vec::new();
        if !self.eat_punct(';') {
            loop {
                operands.push(self.operand()?);
                if self.eat_punct(',') {
                    continue;
                }
                // `call (ret), f, (args)` lists may follow without a comma in some emitters.
                if self.is_punct('(') {
                    continue;
                }
                self.expect_punct(';')?;
                break;
            }
        }
        Ok(Instruction {
            guard,
            opcode,
            operands,
            line,
        })
    }

    fn operand(&mut self) -> Result<Operand, SimError> {
        let tok = self.next()?;
        Ok(match tok {
            Tok::Punct('[') => {
                let (base, mut offset) = match self.next()? {
                    Tok::Ident(n) => (Some(n), 0i64),
                    Tok::Int(v) => (None, v as i64),
                    _ => return Err(self.error("expected an address")),
                };
                while self.is_punct('+') || self.is_punct('-') {
                    let sign = if self.eat_punct('-') {
                        -1
                    } else {
                        self.pos += 1;
                        1
                    };
                    offset = offset.wrapping_add(sign * self.int()? as i64);
                }
                self.expect_punct(']')?;
                Operand::Addr { base, offset }
            }
            Tok::Punct('{') => {
                let mut items = Vec::new();
                loop {
                    items.push(self.operand()?);
                    if !self.eat_punct(',') {
                        break;
                    }
                }
                self.expect_punct('}')?;
                Operand::Vector(items)
            }
            Tok::Punct('(') => {
                let mut items = Vec::new();
                if !self.eat_punct(')') {
                    loop {
                        items.push(self.operand()?);
                        if !self.eat_punct(',') {
                            break;
                        }
                    }
                    self.expect_punct(')')?;
                }
                Operand::List(items)
            }
            Tok::Punct('!') => Operand::Not(self.ident()?),
            Tok::Punct('-') => match self.next()? {
                Tok::Int(v) => Operand::Int(v.wrapping_neg()),
                Tok::Float(v) => Operand::Float(-v),
                _ => return Err(self.error("expected a number after `-`")),
            },
            Tok::Int(v) => Operand::Int(v),
            Tok::F32(v) => Operand::F32(v),
            Tok::F64(v) => Operand::F64(v),
            Tok::Float(v) => Operand::Float(v),
            Tok::Ident(n) if n == "_" => Operand::Sink,
            Tok::Ident(n) => {
                if self.eat_punct('|') {
                    Operand::Pair(n, self.ident()?)
                } else if self.is_punct('(') && (n == "generic" || n == "global") {
                    match self.operand()? {
                        Operand::List(mut items) if items.len() == 1 => items.pop().unwrap(),
                        _ => return Err(self.error("expected `generic(name)`")),
                    }
                } else if self.is_punct('+') && matches!(self.peek_at(1), Some(Tok::Int(_))) {
                    self.pos += 1;
                    let off = self.int()? as i64;
                    Operand::NameOffset(n, off)
                } else {
                    Operand::Name(n)
                }
            }
            other => return Err(self.error(format!("unexpected {other:?} in an operand"))),
        })
    }
}

/// A kernel or function defined twice (a declaration and its definition are one): ptxas refuses
/// the module, and which body a launch would run is undefined, so the simulator refuses it too.
fn refuse_second_definition(earlier: &[Function], function: &Function) -> Result<(), SimError> {
    let defined = |f: &Function| f.body.is_some();
    match earlier
        .iter()
        .find(|f| f.name == function.name && defined(f) && defined(function))
    {
        Some(first) => Err(SimError::Invalid {
            message: format!(
                "`{}` is defined twice (first at PTX line {}); ptxas refuses a duplicate \
                 definition: give each kernel and function its own name",
                function.name, first.line
            ),
            ptx_line: function.line,
            location: None,
        }),
        None => Ok(()),
    }
}
