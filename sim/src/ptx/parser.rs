//! PTX parser: tokens → decoded IR ([`Module`]).
//!
//! Covers the module directives of PTX ISA §11.1 (`.version`, `.target`, `.address_size`), debug
//! directives §11.5 (`.file`, `.loc`, `.section` — accepted and ignored), `.pragma` §11.6,
//! linking directives §11.7, kernel/function directives §11.2–11.3 (`.entry`, `.func`,
//! parameters §5.1.6 with `.ptr`/`.align` attributes), performance directives §11.4, variable
//! declarations §5.4 (`.reg` incl. `%r<N>` ranges, `.global/.const/.shared/.local/.param`,
//! arrays, alignment, initialisers, `.extern .shared` dynamic arrays), labels, guard predicates
//! §9.3, operand forms §6 and the instruction set of §9.7 (see [`Opcode`]).

use std::collections::HashMap;

use super::check::{self, InstrSrc, Lit, OperandSrc, SourceMap};
use super::error::{Pos, PtxError};
use super::lexer::{lex, Tok, Token};
use crate::ir::{
    Addr, AddrBase, AtomOp, BoolOp, CallInfo, CallTarget, Cfg, Cmp, Function, Guard, Instr, Mode,
    Mods, Module, Opcode, Operand, Param, PtrAttr, Reg, RegDecl, Round, Space, Sreg, Sym, Tuning,
    Ty, Var,
};

/// Parses PTX source text. `file` is used in error messages only.
pub fn parse(file: &str, src: &str) -> Result<Module, PtxError> {
    let mut module = parse_unscheduled(file, src)?;
    // free definitions (ld.param, %tid, immediates) move to their first use, as ptxas places
    // them (`analysis::sink`)
    crate::analysis::sink::sink_module(&mut module);
    Ok(module)
}

/// [`parse`] without the `analysis::sink` pass: instructions in source order.
///
/// The parsed module is checked by [`check::check_module`] (the rules ptxas enforces: operand
/// counts and types, predicates, addresses, `.version`/`.target`, barriers) before `.func`
/// calls are inlined, so that every error points at the text as written.
pub fn parse_unscheduled(file: &str, src: &str) -> Result<Module, PtxError> {
    let (module, map) = parse_unchecked(file, src)?;
    check::check_module(file, &module, &map)?;
    inline(file, src, module)
}

/// Parses without [`check::check_module`] and without inlining: the module as written and
/// where each instruction is in the source. For tools that want every rule violation
/// ([`check::check_all`]) rather than the first.
pub fn parse_unchecked(file: &str, src: &str) -> Result<(Module, SourceMap), PtxError> {
    let toks = lex(file, src)?;
    let mut p = Parser {
        file,
        src,
        toks,
        eof: end_pos(src),
        i: 0,
        module: Module {
            version: (0, 0),
            target: Vec::new(),
            address_size: 32,
            globals: Vec::new(),
            functions: Vec::new(),
        },
        globals: HashMap::new(),
        funcs: HashMap::new(),
        map: SourceMap::default(),
    };
    p.module_items()?;
    Ok((p.module, p.map))
}

fn inline(file: &str, src: &str, mut module: Module) -> Result<Module, PtxError> {
    // `.func` calls are executed by inlining them into the kernels (`ir::inline`)
    crate::ir::inline::inline_calls(&mut module).map_err(|e| {
        let text = src
            .lines()
            .nth(e.line.saturating_sub(1) as usize)
            .unwrap_or("")
            .trim()
            .to_string();
        PtxError::Syntax {
            file: file.to_string(),
            line: e.line,
            col: 1,
            text,
            msg: e.message,
        }
    })?;
    Ok(module)
}

/// Message of an error at the end of the input (see [`PtxError::Eof`]).
const EOF_MSG: &str = "unexpected end of input";

/// The 1-based line and column just past the end of `src` (columns count bytes, as the lexer's).
fn end_pos(src: &str) -> Pos {
    let line = 1 + src.bytes().filter(|&c| c == b'\n').count();
    let last = src.rfind('\n').map_or(0, |i| i + 1);
    Pos {
        line: u32::try_from(line).unwrap_or(u32::MAX),
        col: u32::try_from(src.len() - last + 1).unwrap_or(u32::MAX),
    }
}

/// Maximum number of registers one `%r<N>` range may declare (guards memory on hostile input).
const MAX_REG_RANGE: u64 = 1 << 20;
/// Largest variable or array accepted, in bytes.
const MAX_VAR_BYTES: u64 = 1 << 31;

#[derive(Clone, Copy, Debug)]
enum Name {
    Reg(Reg),
    Var(u32),
    Param(u32),
    Ret(u32),
}

struct Parser<'a> {
    file: &'a str,
    src: &'a str,
    toks: Vec<Token>,
    /// Position just past the last character of the input (for [`PtxError::Eof`]).
    eof: Pos,
    i: usize,
    module: Module,
    globals: HashMap<String, u32>,
    funcs: HashMap<String, u32>,
    /// Source positions of the module directives and of every instruction (for `check`).
    map: SourceMap,
}

/// State while parsing one function body.
struct FnState {
    scopes: Vec<HashMap<String, Name>>,
    regs: Vec<RegDecl>,
    vars: Vec<Var>,
    instrs: Vec<Instr>,
    labels: std::collections::BTreeMap<String, u32>,
    /// (instruction, operand index in src, label name, token index)
    pending: Vec<(usize, usize, String, usize)>,
    /// Indices of instructions preceded by `.pragma "nounroll";` (PTX ISA §11.6.1).
    nounroll: Vec<usize>,
    /// The body's `.pragma` strings, in source order.
    pragmas: Vec<String>,
    /// Where each of `instrs` is in the source (same indices).
    srcs: Vec<InstrSrc>,
}

impl FnState {
    fn lookup(&self, name: &str) -> Option<Name> {
        self.scopes.iter().rev().find_map(|s| s.get(name).copied())
    }
}

struct VarDecl {
    space: Space,
    ty: Ty,
    align: Option<u32>,
    name: String,
    /// None: scalar; Some(None): `[]`; Some(Some(n)): total elements over all dims
    dims: Option<Option<u64>>,
    ptr: Option<PtrAttr>,
    init: Option<Vec<u8>>,
    init_elems: u64,
    tok: usize,
}

impl<'a> Parser<'a> {
    // ---------- token helpers ----------

    fn peek(&self) -> Option<&Tok> {
        self.toks.get(self.i).map(|t| &t.tok)
    }

    fn peek_at(&self, k: usize) -> Option<&Tok> {
        self.toks.get(self.i + k).map(|t| &t.tok)
    }

    fn text_of(&self, k: usize) -> String {
        match self.toks.get(k) {
            Some(t) => self
                .src
                .get(t.start as usize..t.end as usize)
                .unwrap_or("")
                .chars()
                .take(60)
                .collect(),
            None => "<end of input>".into(),
        }
    }

    fn err_at(&self, k: usize, msg: impl Into<String>) -> PtxError {
        match self.toks.get(k) {
            Some(t) => PtxError::Syntax {
                file: self.file.to_string(),
                line: t.loc.line,
                col: t.loc.col,
                text: self.text_of(k),
                msg: msg.into(),
            },
            None => {
                let msg: String = msg.into();
                PtxError::Eof {
                    file: self.file.to_string(),
                    line: self.eof.line,
                    col: self.eof.col,
                    // `next()` reports plain end of input; don't repeat it
                    msg: if msg == EOF_MSG { String::new() } else { msg },
                }
            }
        }
    }

    fn err(&self, msg: impl Into<String>) -> PtxError {
        self.err_at(self.i, msg)
    }

    fn pos(&self) -> Pos {
        self.toks
            .get(self.i)
            .or_else(|| self.toks.last())
            .map(|t| t.loc)
            .unwrap_or_default()
    }

    fn next(&mut self) -> Result<Tok, PtxError> {
        match self.toks.get(self.i) {
            Some(t) => {
                self.i += 1;
                Ok(t.tok.clone())
            }
            None => Err(self.err(EOF_MSG)),
        }
    }

    fn is_punct(&self, c: char) -> bool {
        self.peek() == Some(&Tok::Punct(c))
    }

    fn eat_punct(&mut self, c: char) -> bool {
        if self.is_punct(c) {
            self.i += 1;
            true
        } else {
            false
        }
    }

    fn expect_punct(&mut self, c: char) -> Result<(), PtxError> {
        if self.eat_punct(c) {
            Ok(())
        } else {
            Err(self.err(format!("expected `{c}`")))
        }
    }

    fn is_word(&self, w: &str) -> bool {
        matches!(self.peek(), Some(Tok::Word(x)) if x == w)
    }

    #[allow(dead_code)]
    fn eat_word(&mut self, w: &str) -> bool {
        if self.is_word(w) {
            self.i += 1;
            true
        } else {
            false
        }
    }

    fn expect_word(&mut self, what: &str) -> Result<String, PtxError> {
        match self.peek() {
            Some(Tok::Word(w)) => {
                let w = w.clone();
                self.i += 1;
                Ok(w)
            }
            _ => Err(self.err(format!("expected {what}"))),
        }
    }

    fn expect_int(&mut self, what: &str) -> Result<u64, PtxError> {
        match self.peek() {
            Some(Tok::Int(v, _)) => {
                let v = *v;
                self.i += 1;
                Ok(v)
            }
            _ => Err(self.err(format!("expected integer {what}"))),
        }
    }

    fn expect_u32(&mut self, what: &str) -> Result<u32, PtxError> {
        let k = self.i;
        let v = self.expect_int(what)?;
        u32::try_from(v).map_err(|_| self.err_at(k, format!("{what} out of range")))
    }

    /// Skips the rest of the current source line (for `.file`/`.loc`), noting a `.loc` with
    /// `inlined_at` (for `check`: PTX ISA 7.0).
    fn skip_line(&mut self, line: u32) {
        while let Some(t) = self.toks.get(self.i) {
            if t.loc.line != line {
                break;
            }
            if self.map.loc_inlined.is_none() && matches!(&t.tok, Tok::Word(w) if w == "inlined_at")
            {
                self.map.loc_inlined = Some(t.loc);
            }
            self.i += 1;
        }
    }

    /// Skips to and past the next `;` at bracket depth 0.
    fn skip_statement(&mut self) -> Result<(), PtxError> {
        let mut depth = 0i32;
        loop {
            match self.next()? {
                Tok::Punct('(') | Tok::Punct('{') | Tok::Punct('[') => depth += 1,
                Tok::Punct(')') | Tok::Punct('}') | Tok::Punct(']') => depth -= 1,
                Tok::Punct(';') if depth <= 0 => return Ok(()),
                _ => {}
            }
        }
    }

    // ---------- module level ----------

    fn module_items(&mut self) -> Result<(), PtxError> {
        let (mut visible, mut is_extern) = (false, false);
        while let Some(tok) = self.peek().cloned() {
            let k = self.i;
            let Tok::Word(w) = tok else {
                return Err(self.err("expected a directive"));
            };
            self.map.directives.push((w.clone(), self.toks[k].loc));
            match w.as_str() {
                ".version" => {
                    self.i += 1;
                    let t = self.text_of(self.i);
                    self.next()?;
                    let (a, b) = t.split_once('.').unwrap_or((t.as_str(), "0"));
                    match (a.parse(), b.parse()) {
                        (Ok(a), Ok(b)) => {
                            self.module.version = (a, b);
                            self.map.version_text = t.clone();
                        }
                        _ => return Err(self.err_at(k + 1, "malformed .version")),
                    }
                }
                ".target" => {
                    self.i += 1;
                    loop {
                        let tk = self.i;
                        let t = self.expect_word("target name")?;
                        self.map.target_pos.push(self.toks[tk].loc);
                        self.module.target.push(t);
                        if !self.eat_punct(',') {
                            break;
                        }
                    }
                }
                ".address_size" => {
                    self.i += 1;
                    let a = self.expect_u32("address size")?;
                    if a != 32 && a != 64 {
                        return Err(self.err_at(k + 1, "address size must be 32 or 64"));
                    }
                    self.module.address_size = a;
                }
                ".file" | ".loc" => {
                    let line = self.toks[k].loc.line;
                    self.i += 1;
                    self.skip_line(line);
                }
                ".pragma" => {
                    self.i += 1;
                    self.record_pragma(k);
                    self.skip_statement()?;
                }
                ".section" => {
                    // DWARF sections of `-G` builds: `.section .debug_x { ... }`
                    self.i += 1;
                    self.expect_word("section name")?;
                    self.expect_punct('{')?;
                    let mut depth = 1;
                    while depth > 0 {
                        match self.next()? {
                            Tok::Punct('{') => depth += 1,
                            Tok::Punct('}') => depth -= 1,
                            _ => {}
                        }
                    }
                }
                ".visible" | ".weak" | ".common" => {
                    self.i += 1;
                    visible = true;
                    continue;
                }
                ".extern" => {
                    self.i += 1;
                    is_extern = true;
                    continue;
                }
                ".entry" | ".func" => {
                    self.i += 1;
                    self.function(w == ".entry", k)?;
                }
                ".global" | ".const" | ".shared" | ".local" => {
                    let d = self.var_decl(false)?;
                    self.expect_punct(';')?;
                    let var = self.finish_var(d, visible, is_extern)?;
                    let idx = self.module.globals.len() as u32;
                    self.globals.insert(var.name.clone(), idx);
                    self.module.globals.push(var);
                }
                _ => {
                    return Err(self.err_at(k, format!("unsupported module-level directive `{w}`")))
                }
            }
            visible = false;
            is_extern = false;
        }
        Ok(())
    }

    // ---------- declarations ----------

    /// Parses `SPACE [attrs] TYPE name[dims] [= init]` (without the `;`). For parameters
    /// (`is_param`) the space is `.param` or `.reg` and no initialiser is allowed.
    fn var_decl(&mut self, is_param: bool) -> Result<VarDecl, PtxError> {
        let k = self.i;
        let sw = self.expect_word("state space")?;
        let space = match sw.as_str() {
            ".reg" => Space::Generic, // marker for .reg parameters
            other => Space::from_suffix(other.trim_start_matches('.'))
                .ok_or_else(|| self.err_at(k, "expected a state space"))?,
        };
        let mut ty = Ty::None;
        let mut align = None;
        let mut ptr: Option<PtrAttr> = None;
        loop {
            let kk = self.i;
            let w = match self.peek() {
                Some(Tok::Word(w)) if w.starts_with('.') => w.clone(),
                _ => break,
            };
            self.i += 1;
            match w.as_str() {
                ".align" => {
                    let a = self.expect_u32("alignment")?;
                    if !a.is_power_of_two() {
                        return Err(self.err_at(kk + 1, "alignment must be a power of two"));
                    }
                    if let Some(p) = ptr.as_mut() {
                        p.align = a;
                    } else {
                        align = Some(a);
                    }
                }
                ".ptr" => {
                    ptr = Some(PtrAttr {
                        space: Space::Generic,
                        align: 1,
                    })
                }
                ".v2" | ".v4" => return Err(self.err_at(kk, "vector variables are not supported")),
                _ => {
                    let s = w.trim_start_matches('.');
                    if let (Some(p), Some(sp)) = (ptr.as_mut(), Space::from_suffix(s)) {
                        p.space = sp;
                    } else if let Some(t) = Ty::from_suffix(s) {
                        if ty != Ty::None {
                            return Err(self.err_at(kk, "two types in one declaration"));
                        }
                        ty = t;
                    } else {
                        return Err(self.err_at(kk, format!("unsupported attribute `{w}`")));
                    }
                }
            }
        }
        if ty == Ty::None {
            return Err(self.err("expected a type"));
        }
        let ntok = self.i;
        let name = self.expect_word("a name")?;
        let mut dims: Option<Option<u64>> = None;
        while self.eat_punct('[') {
            if self.eat_punct(']') {
                if dims.is_some() {
                    return Err(self.err("only the first dimension may be empty"));
                }
                dims = Some(None);
                continue;
            }
            let n = self.expect_int("array size")?;
            self.expect_punct(']')?;
            let prev = match dims {
                None => 1,
                Some(Some(p)) => p,
                Some(None) => return Err(self.err("only the first dimension may be empty")),
            };
            let tot = prev
                .checked_mul(n)
                .filter(|&t| t.saturating_mul(u64::from(ty.size())) <= MAX_VAR_BYTES)
                .ok_or_else(|| self.err_at(ntok, "array too large"))?;
            dims = Some(Some(tot));
        }
        let mut init = None;
        let mut init_elems = 0;
        if !is_param && self.eat_punct('=') {
            let mut bytes = Vec::new();
            self.initialiser(ty, &mut bytes, &mut init_elems, 0)?;
            init = Some(bytes);
        }
        Ok(VarDecl {
            space,
            ty,
            align,
            name,
            dims,
            ptr,
            init,
            init_elems,
            tok: ntok,
        })
    }

    fn initialiser(
        &mut self,
        ty: Ty,
        out: &mut Vec<u8>,
        n: &mut u64,
        depth: u32,
    ) -> Result<(), PtxError> {
        if self.is_punct('{') {
            if depth >= 8 {
                return Err(self.err("initialiser nested too deeply"));
            }
            self.i += 1;
            loop {
                self.initialiser(ty, out, n, depth + 1)?;
                if self.eat_punct(',') {
                    continue;
                }
                self.expect_punct('}')?;
                return Ok(());
            }
        }
        let k = self.i;
        let neg = self.eat_punct('-');
        let tok = self.next()?;
        let bits = match tok {
            Tok::Int(..) | Tok::F32(_) | Tok::F64(_) => imm_bits(&tok, neg, ty),
            Tok::Word(_) => {
                return Err(self.err_at(k, "symbol addresses in initialisers are not supported"))
            }
            _ => return Err(self.err_at(k, "expected a constant")),
        };
        let size = ty.size().max(1) as usize;
        out.extend_from_slice(&bits.to_le_bytes()[..size.min(8)]);
        if size > 8 {
            out.resize(out.len() + size - 8, 0);
        }
        *n += 1;
        if out.len() as u64 > MAX_VAR_BYTES {
            return Err(self.err_at(k, "initialiser too large"));
        }
        Ok(())
    }

    fn finish_var(&self, d: VarDecl, visible: bool, is_extern: bool) -> Result<Var, PtxError> {
        let elem = u64::from(d.ty.size());
        let count = match d.dims {
            None => 1,
            Some(Some(n)) => n,
            Some(None) => {
                if d.init.is_some() {
                    d.init_elems
                } else {
                    0
                }
            }
        };
        if d.init.is_some() && d.init_elems > count {
            return Err(self.err_at(d.tok, "more initialisers than elements"));
        }
        let size = count * elem;
        let mut init = d.init;
        if let Some(b) = init.as_mut() {
            b.resize(size as usize, 0);
        }
        if d.ptr.is_some() {
            return Err(self.err_at(d.tok, ".ptr is only allowed on kernel parameters"));
        }
        Ok(Var {
            name: d.name,
            space: d.space,
            ty: d.ty,
            size: size as u32,
            align: d.align.unwrap_or(elem as u32).max(1),
            init,
            is_extern,
            visible,
        })
    }

    /// Parses a parenthesised parameter list.
    fn param_list(&mut self) -> Result<Vec<Param>, PtxError> {
        self.expect_punct('(')?;
        let mut out: Vec<Param> = Vec::new();
        let mut off: u64 = 0;
        if self.eat_punct(')') {
            return Ok(out);
        }
        loop {
            let d = self.var_decl(true)?;
            let is_reg = d.space == Space::Generic;
            if !is_reg && d.space != Space::Param {
                return Err(self.err_at(d.tok, "parameters must be .param or .reg"));
            }
            let count = match d.dims {
                None => 1,
                Some(Some(n)) => n,
                Some(None) => 0,
            };
            let size = count * u64::from(d.ty.size());
            let align = u64::from(d.align.unwrap_or(d.ty.size()).max(1));
            off = off.div_ceil(align) * align;
            if off + size > MAX_VAR_BYTES {
                return Err(self.err_at(d.tok, "parameter list too large"));
            }
            out.push(Param {
                name: d.name,
                ty: d.ty,
                count: count as u32,
                size: size as u32,
                align: align as u32,
                offset: off as u32,
                ptr: d.ptr,
                is_reg,
            });
            off += size;
            if self.eat_punct(',') {
                continue;
            }
            self.expect_punct(')')?;
            return Ok(out);
        }
    }

    // ---------- functions ----------

    fn function(&mut self, is_kernel: bool, start_tok: usize) -> Result<(), PtxError> {
        let mut rets = Vec::new();
        if !is_kernel && self.is_punct('(') {
            rets = self.param_list()?;
        }
        let name_tok = self.i;
        let name = self.expect_word("function name")?;
        let params = if self.is_punct('(') {
            self.param_list()?
        } else {
            Vec::new()
        };
        let param_bytes = params.last().map(|p| p.offset + p.size).unwrap_or(0);
        let mut tuning = Tuning::default();
        loop {
            let k = self.i;
            match self.peek() {
                Some(Tok::Word(w)) if w.starts_with('.') => {
                    let w = w.clone();
                    self.i += 1;
                    match w.as_str() {
                        ".maxntid" => {
                            tuning.maxntid_line = self.toks[k].loc.line;
                            tuning.maxntid = Some(self.dim3()?)
                        }
                        ".reqntid" => {
                            tuning.reqntid_line = self.toks[k].loc.line;
                            tuning.reqntid = Some(self.dim3()?)
                        }
                        ".minnctapersm" => {
                            tuning.minnctapersm = Some(self.expect_u32(".minnctapersm")?)
                        }
                        ".maxnctapersm" => {
                            self.expect_u32(".maxnctapersm")?;
                        }
                        ".maxnreg" => tuning.maxnreg = Some(self.expect_u32(".maxnreg")?),
                        ".noreturn" | ".explicitcluster" => {}
                        ".reqnctapercluster" | ".maxclusterrank" => {
                            self.dim3()?;
                        }
                        ".pragma" => self.skip_statement()?,
                        _ => {
                            return Err(
                                self.err_at(k, format!("unsupported function directive `{w}`"))
                            )
                        }
                    }
                }
                _ => break,
            }
        }
        let mut f = Function {
            name: name.clone(),
            is_kernel,
            defined: false,
            params,
            rets,
            param_bytes,
            regs: Vec::new(),
            vars: Vec::new(),
            instrs: Vec::new(),
            labels: Default::default(),
            tuning,
            pragmas: Vec::new(),
            cfg: Cfg::default(),
        };
        // register the name before the body so that recursive calls resolve
        let idx = match self.funcs.get(&name) {
            Some(&i) => {
                let prev = self.module.functions.get(i as usize);
                if prev.is_some_and(|p| p.defined) && self.is_punct('{') {
                    return Err(self.err_at(name_tok, format!("function `{name}` defined twice")));
                }
                i
            }
            None => {
                let i = self.module.functions.len() as u32;
                self.module.functions.push(f.clone());
                self.map.functions.push(Vec::new());
                self.funcs.insert(name.clone(), i);
                i
            }
        };
        if self.eat_punct(';') {
            return Ok(());
        }
        if !self.is_punct('{') {
            return Err(self.err_at(start_tok, "expected `{` or `;` after function header"));
        }
        let srcs = self.body(&mut f)?;
        if let Some(slot) = self.map.functions.get_mut(idx as usize) {
            *slot = srcs;
        }
        f.defined = true;
        f.cfg = Cfg::build(&f.instrs);
        if let Some(slot) = self.module.functions.get_mut(idx as usize) {
            *slot = f;
        }
        Ok(())
    }

    fn dim3(&mut self) -> Result<[u32; 3], PtxError> {
        let mut d = [1u32; 3];
        for (j, slot) in d.iter_mut().enumerate() {
            if j > 0 && !self.eat_punct(',') {
                break;
            }
            *slot = self.expect_u32("dimension")?;
        }
        Ok(d)
    }

    fn body(&mut self, f: &mut Function) -> Result<Vec<InstrSrc>, PtxError> {
        let mut top = HashMap::new();
        for (j, p) in f.params.iter().enumerate() {
            top.insert(p.name.clone(), Name::Param(j as u32));
        }
        for (j, p) in f.rets.iter().enumerate() {
            top.insert(p.name.clone(), Name::Ret(j as u32));
        }
        let mut st = FnState {
            scopes: vec![top],
            regs: Vec::new(),
            vars: Vec::new(),
            instrs: Vec::new(),
            labels: Default::default(),
            pending: Vec::new(),
            nounroll: Vec::new(),
            pragmas: Vec::new(),
            srcs: Vec::new(),
        };
        // `.reg` parameters are registers of the function
        for (j, p) in f.params.iter().chain(f.rets.iter()).enumerate() {
            if p.is_reg {
                let r = Reg(st.regs.len() as u32);
                st.regs.push(RegDecl {
                    name: p.name.clone(),
                    ty: p.ty,
                });
                if let Some(s) = st.scopes.first_mut() {
                    s.insert(p.name.clone(), Name::Reg(r));
                }
                let _ = j;
            }
        }
        self.expect_punct('{')?;
        st.scopes.push(HashMap::new());
        let mut depth = 1usize;
        let mut end_line = 0;
        while depth > 0 {
            let k = self.i;
            let tok = match self.peek() {
                Some(t) => t.clone(),
                None => return Err(self.err("unterminated function body")),
            };
            match tok {
                Tok::Punct('{') => {
                    self.i += 1;
                    depth += 1;
                    st.scopes.push(HashMap::new());
                }
                Tok::Punct('}') => {
                    end_line = self.toks[k].loc.line;
                    self.i += 1;
                    depth -= 1;
                    st.scopes.pop();
                }
                Tok::Punct('@') => self.instruction(&mut st)?,
                Tok::Word(w) => {
                    if self.peek_at(1) == Some(&Tok::Punct(':')) && !w.starts_with('.') {
                        self.i += 2;
                        if self.is_word(".callprototype") {
                            self.skip_statement()?;
                            continue;
                        }
                        if st.labels.contains_key(&w) {
                            return Err(self.err_at(k, format!("label `{w}` defined twice")));
                        }
                        st.labels.insert(w, st.instrs.len() as u32);
                        continue;
                    }
                    match w.as_str() {
                        ".reg" => self.reg_decl(&mut st)?,
                        ".local" | ".shared" | ".param" | ".const" | ".global" => {
                            let d = self.var_decl(false)?;
                            self.expect_punct(';')?;
                            let var = self.finish_var(d, false, false)?;
                            let idx = st.vars.len() as u32;
                            if let Some(s) = st.scopes.last_mut() {
                                s.insert(var.name.clone(), Name::Var(idx));
                            }
                            st.vars.push(var);
                        }
                        ".loc" | ".file" => {
                            let line = self.toks[k].loc.line;
                            self.i += 1;
                            self.skip_line(line);
                        }
                        ".pragma" => {
                            self.i += 1;
                            self.record_pragma(k);
                            if let Some(Tok::Str(s)) = self.peek() {
                                if s == "nounroll" {
                                    st.nounroll.push(st.instrs.len());
                                }
                                st.pragmas.push(s.clone());
                            }
                            self.skip_statement()?;
                        }
                        ".maxnreg" | ".maxntid" | ".reqntid" | ".minnctapersm" => {
                            self.i += 1;
                            self.skip_statement()?;
                        }
                        _ if w.starts_with('.') => {
                            return Err(self.err_at(k, format!("unsupported directive `{w}`")))
                        }
                        _ => self.instruction(&mut st)?,
                    }
                }
                _ => return Err(self.err("expected an instruction, label or declaration")),
            }
        }
        // falling off the end (or a label at the end) behaves as `ret` (PTX ISA §9.7.11.3)
        let n = st.instrs.len() as u32;
        let falls = st
            .instrs
            .last()
            .map(|l| !l.op.is_terminator() || l.guard.is_some())
            .unwrap_or(true);
        if falls || st.labels.values().any(|&v| v == n) {
            let mut r = Instr::new(Opcode::Ret);
            r.line = end_line;
            st.instrs.push(r);
            st.srcs.push(InstrSrc {
                pos: Pos {
                    line: end_line,
                    col: 1,
                },
                text: "ret; (implicit at the end of the body)".into(),
                synthetic: true,
                ..InstrSrc::default()
            });
        }
        for (ins, opi, name, tk) in std::mem::take(&mut st.pending) {
            let t = *st
                .labels
                .get(&name)
                .ok_or_else(|| self.err_at(tk, format!("undefined label `{name}`")))?;
            if let Some(o) = st.instrs.get_mut(ins).and_then(|i| i.src.get_mut(opi)) {
                *o = Operand::Label(t);
            }
        }
        for pc in std::mem::take(&mut st.nounroll) {
            if let Some(i) = st.instrs.get_mut(pc) {
                i.mods.0 |= Mods::NOUNROLL;
            }
        }
        f.regs = st.regs;
        f.pragmas = st.pragmas;
        f.vars = st.vars;
        f.instrs = st.instrs;
        f.labels = st.labels;
        Ok(st.srcs)
    }

    fn reg_decl(&mut self, st: &mut FnState) -> Result<(), PtxError> {
        self.i += 1; // .reg
        let mut ty = Ty::None;
        while let Some(Tok::Word(w)) = self.peek() {
            if !w.starts_with('.') {
                break;
            }
            let k = self.i;
            let w = w.clone();
            self.i += 1;
            match Ty::from_suffix(&w[1..]) {
                Some(t) if ty == Ty::None => ty = t,
                _ if w == ".align" => {
                    self.expect_int("alignment")?;
                }
                _ => return Err(self.err_at(k, format!("unsupported .reg attribute `{w}`"))),
            }
        }
        if ty == Ty::None {
            return Err(self.err("expected a register type"));
        }
        loop {
            let k = self.i;
            let name = self.expect_word("register name")?;
            if self.eat_punct('<') {
                let n = self.expect_int("register count")?;
                self.expect_punct('>')?;
                if n > MAX_REG_RANGE || st.regs.len() as u64 + n > MAX_REG_RANGE {
                    return Err(self.err_at(k, "too many registers"));
                }
                for j in 0..n {
                    self.add_reg(st, format!("{name}{j}"), ty);
                }
            } else {
                if st.regs.len() as u64 >= MAX_REG_RANGE {
                    return Err(self.err_at(k, "too many registers"));
                }
                self.add_reg(st, name, ty);
            }
            if self.eat_punct(',') {
                continue;
            }
            self.expect_punct(';')?;
            return Ok(());
        }
    }

    fn add_reg(&self, st: &mut FnState, name: String, ty: Ty) {
        let r = Reg(st.regs.len() as u32);
        st.regs.push(RegDecl {
            name: name.clone(),
            ty,
        });
        if let Some(s) = st.scopes.last_mut() {
            s.insert(name, Name::Reg(r));
        }
    }

    // ---------- instructions ----------

    fn instruction(&mut self, st: &mut FnState) -> Result<(), PtxError> {
        let line = self.pos().line;
        let start_tok = self.i;
        let mut guard = None;
        if self.eat_punct('@') {
            let neg = self.eat_punct('!');
            let k = self.i;
            let g = self.expect_word("guard predicate")?;
            match st.lookup(&g) {
                Some(Name::Reg(r)) if st.regs.get(r.idx()).is_some_and(|d| d.ty == Ty::Pred) => {
                    guard = Some(Guard { reg: r, neg })
                }
                _ => return Err(self.err_at(k, format!("`{g}` is not a predicate register"))),
            }
        }
        let op_tok = self.i;
        let opw = self.expect_word("opcode")?;
        let mut ins = self.decode_opcode(&opw, op_tok)?;
        ins.guard = guard;
        ins.line = line;
        if ins.op == Opcode::Call {
            self.call_operands(st, &mut ins)?;
            st.srcs.push(self.instr_src(start_tok, op_tok, &[], false));
            st.instrs.push(ins);
            return Ok(());
        }
        // operands
        let mut ops: Vec<(Operand, usize)> = Vec::new();
        let mut second_dst: Option<Operand> = None;
        // token ranges of the operands in source order (the `|` operand second), for `check`
        let mut ranges: Vec<(usize, usize)> = Vec::new();
        if !self.is_punct(';') {
            loop {
                let k = self.i;
                let o = self.operand(st, &ins, ops.len())?;
                ranges.push((k, self.i));
                if let Some(name) = o.1 {
                    // label reference: resolved when the body ends
                    st.pending.push((st.instrs.len(), ops.len(), name, k));
                }
                ops.push((o.0, k));
                if ops.len() == 1 && self.eat_punct('|') {
                    let k2 = self.i;
                    let o2 = self.operand(st, &ins, 1)?;
                    ranges.push((k2, self.i));
                    second_dst = Some(o2.0);
                }
                if self.eat_punct(',') {
                    continue;
                }
                break;
            }
        }
        // the operand list may end with `;`
        if !self.eat_punct(';') {
            return Err(self.err("expected `,` or `;` after operand"));
        }
        let pipe = second_dst.is_some();
        let mut it = ops.into_iter();
        if ins.op.has_dst() {
            match it.next() {
                Some((d, k)) => {
                    if matches!(d, Operand::Imm(_) | Operand::Addr(_) | Operand::Label(_)) {
                        return Err(self.err_at(k, "destination must be a register"));
                    }
                    ins.dst.push(d);
                }
                None => return Err(self.err_at(op_tok, "missing destination operand")),
            }
            if let Some(d2) = second_dst {
                ins.dst.push(d2);
            }
        } else if second_dst.is_some() {
            return Err(self.err_at(op_tok, "`|` is only valid in a destination"));
        }
        ins.src = it.map(|(o, _)| o).collect();
        // label operands were recorded with their index among all operands; shift for dst
        if ins.op.has_dst() {
            // this instruction's entries are the last ones pushed (scanning the whole
            // list made parsing quadratic in the number of branches)
            let me = st.instrs.len();
            for p in st.pending.iter_mut().rev().take_while(|p| p.0 == me) {
                p.1 = p.1.saturating_sub(1);
            }
        }
        // `bar.red.popc.u32 d, a, c` / `bar.red.and.pred p, a, c` write their first operand
        // (PTX ISA §9.7.12.1), unlike the other `bar` forms
        if ins.op == Opcode::Bar && ins.mode == Mode::BarRed && !ins.src.is_empty() {
            let d = ins.src.remove(0);
            if !matches!(d, Operand::Reg(_) | Operand::Sink) {
                return Err(self.err_at(op_tok, "bar.red: destination must be a register"));
            }
            ins.dst.push(d);
        }
        st.srcs
            .push(self.instr_src(start_tok, op_tok, &ranges, pipe));
        st.instrs.push(ins);
        Ok(())
    }

    /// Records the string of the `.pragma` at token `k` (for `check`).
    fn record_pragma(&mut self, k: usize) {
        if let (Some(Tok::Str(text)), Some(t)) = (self.peek(), self.toks.get(k)) {
            self.map.pragmas.push((text.clone(), t.loc));
        }
    }

    /// Where the instruction starting at token `start` is in the source: its position, its text
    /// up to the `;`, and each operand's position and literal kinds (`ranges`: token ranges of
    /// the operands in source order).
    fn instr_src(
        &self,
        start: usize,
        op_tok: usize,
        ranges: &[(usize, usize)],
        pipe: bool,
    ) -> InstrSrc {
        let loc = |k: usize| self.toks.get(k).map(|t| t.loc).unwrap_or_default();
        let end = self.i.saturating_sub(1);
        let text = match (self.toks.get(start), self.toks.get(end)) {
            (Some(a), Some(b)) if b.end >= a.start => self
                .src
                .get(a.start as usize..b.end as usize)
                .unwrap_or("")
                .split_whitespace()
                .collect::<Vec<_>>()
                .join(" "),
            _ => String::new(),
        };
        let operands = ranges
            .iter()
            .map(|&(a, b)| OperandSrc {
                pos: loc(a),
                lits: (a..b)
                    .filter_map(|k| match self.toks.get(k).map(|t| &t.tok) {
                        Some(Tok::Int(..)) => Some(Lit::Int),
                        Some(Tok::F32(_)) => Some(Lit::F32),
                        Some(Tok::F64(_)) => Some(Lit::F64),
                        _ => None,
                    })
                    .collect(),
            })
            .collect();
        InstrSrc {
            pos: loc(start),
            op_pos: loc(op_tok),
            text,
            operands,
            pipe,
            synthetic: false,
        }
    }

    /// Parses one operand. Returns the operand and, for branch targets, the label name.
    fn operand(
        &mut self,
        st: &FnState,
        ins: &Instr,
        index: usize,
    ) -> Result<(Operand, Option<String>), PtxError> {
        let k = self.i;
        if self.eat_punct('[') {
            let a = self.address(st)?;
            self.expect_punct(']')?;
            return Ok((Operand::Addr(a), None));
        }
        if self.eat_punct('{') {
            let mut v = Vec::new();
            loop {
                if self.is_punct('{') {
                    return Err(self.err("nested vector operand"));
                }
                let (o, lbl) = self.operand(st, ins, index)?;
                if lbl.is_some() || !matches!(o, Operand::Reg(_) | Operand::Imm(_) | Operand::Sink)
                {
                    return Err(self.err_at(k, "vector elements must be registers or constants"));
                }
                v.push(o);
                if self.eat_punct(',') {
                    continue;
                }
                self.expect_punct('}')?;
                break;
            }
            return Ok((Operand::Vec(v), None));
        }
        if self.eat_punct('!') {
            let kk = self.i;
            let w = self.expect_word("predicate")?;
            return match st.lookup(&w) {
                Some(Name::Reg(r)) => Ok((Operand::NegPred(r), None)),
                _ => Err(self.err_at(kk, format!("`{w}` is not a register"))),
            };
        }
        let neg = self.eat_punct('-');
        let tok = self.next()?;
        match tok {
            Tok::Int(..) | Tok::F32(_) | Tok::F64(_) => {
                let ty = imm_type(ins, index);
                Ok((Operand::Imm(imm_bits(&tok, neg, ty)), None))
            }
            Tok::Word(w) if !neg => {
                if w == "_" {
                    return Ok((Operand::Sink, None));
                }
                if ins.op == Opcode::Bra && !w.starts_with('%') {
                    return Ok((Operand::Label(0), Some(w)));
                }
                if ins.op.is_simd_video() && w.starts_with('%') && w.contains('.') {
                    if let Some((r, sel)) = w.split_once('.') {
                        if st.lookup(r).is_some() {
                            return Err(self.err_at(
                                k,
                                format!("video operand selector/mask `.{sel}` is not supported"),
                            ));
                        }
                    }
                }
                let o = self.resolve(st, &w, k)?;
                if let Operand::Sym(s, _) = o {
                    if self.is_punct('+') {
                        self.i += 1;
                        let off = self.offset()?;
                        return Ok((Operand::Sym(s, off), None));
                    }
                }
                Ok((o, None))
            }
            _ => Err(self.err_at(k, "expected an operand")),
        }
    }

    fn offset(&mut self) -> Result<i64, PtxError> {
        let neg = self.eat_punct('-');
        let k = self.i;
        let v = self.expect_int("offset")?;
        let v = i64::try_from(v).map_err(|_| self.err_at(k, "offset out of range"))?;
        Ok(if neg { -v } else { v })
    }

    fn resolve(&self, st: &FnState, w: &str, k: usize) -> Result<Operand, PtxError> {
        match st.lookup(w) {
            Some(Name::Reg(r)) => return Ok(Operand::Reg(r)),
            Some(Name::Var(v)) => return Ok(Operand::Sym(Sym::Local(v), 0)),
            Some(Name::Param(p)) => return Ok(Operand::Sym(Sym::Param(p), 0)),
            Some(Name::Ret(p)) => return Ok(Operand::Sym(Sym::Ret(p), 0)),
            None => {}
        }
        if w.starts_with('%') {
            if let Some(s) = Sreg::from_name(w) {
                return Ok(Operand::Special(s));
            }
            return Err(self.err_at(k, format!("undeclared register `{w}`")));
        }
        if let Some(&g) = self.globals.get(w) {
            return Ok(Operand::Sym(Sym::Global(g), 0));
        }
        if let Some(&f) = self.funcs.get(w) {
            return Ok(Operand::Sym(Sym::Func(f), 0));
        }
        Err(self.err_at(k, format!("unknown identifier `{w}`")))
    }

    fn address(&mut self, st: &FnState) -> Result<Addr, PtxError> {
        let k = self.i;
        match self.next()? {
            Tok::Int(v, _) => Ok(Addr {
                base: AddrBase::Abs,
                offset: v as i64,
            }),
            Tok::Word(w) => {
                let base = match self.resolve(st, &w, k)? {
                    Operand::Reg(r) => AddrBase::Reg(r),
                    Operand::Sym(s, _) => AddrBase::Sym(s),
                    _ => return Err(self.err_at(k, "invalid address base")),
                };
                let mut offset = 0;
                if self.eat_punct('+') || self.is_punct('-') {
                    offset = self.offset()?;
                }
                Ok(Addr { base, offset })
            }
            _ => Err(self.err_at(k, "expected an address")),
        }
    }

    fn call_operands(&mut self, st: &mut FnState, ins: &mut Instr) -> Result<(), PtxError> {
        let mut rets = Vec::new();
        if self.is_punct('(') {
            rets = self.call_list(st)?;
            self.expect_punct(',')?;
        }
        let k = self.i;
        let tname = self.expect_word("call target")?;
        let target = match st.lookup(&tname) {
            Some(Name::Reg(r)) => CallTarget::Indirect(r),
            _ => match self.funcs.get(&tname) {
                Some(&f) => CallTarget::Direct(f),
                None => {
                    return Err(self.err_at(k, format!("call to undeclared function `{tname}`")))
                }
            },
        };
        let mut args = Vec::new();
        if self.eat_punct(',') {
            if self.is_punct('(') {
                args = self.call_list(st)?;
                if self.eat_punct(',') {
                    // prototype name or label list of an indirect call
                    self.expect_word("call prototype")?;
                }
            } else {
                self.expect_word("call prototype")?;
            }
        }
        self.expect_punct(';')?;
        ins.call = Some(Box::new(CallInfo { target, rets, args }));
        Ok(())
    }

    fn call_list(&mut self, st: &FnState) -> Result<Vec<Operand>, PtxError> {
        self.expect_punct('(')?;
        let mut v = Vec::new();
        if self.eat_punct(')') {
            return Ok(v);
        }
        loop {
            let k = self.i;
            let neg = self.eat_punct('-');
            let tok = self.next()?;
            let o = match tok {
                Tok::Word(w) if !neg => self.resolve(st, &w, k)?,
                Tok::Int(..) | Tok::F32(_) | Tok::F64(_) => {
                    Operand::Imm(imm_bits(&tok, neg, Ty::B64))
                }
                _ => return Err(self.err_at(k, "expected a call argument")),
            };
            v.push(o);
            if self.eat_punct(',') {
                continue;
            }
            self.expect_punct(')')?;
            return Ok(v);
        }
    }

    /// Decodes `opcode.mod.mod.type` into a blank [`Instr`] (PTX ISA §9.7).
    fn decode_opcode(&self, w: &str, k: usize) -> Result<Instr, PtxError> {
        let mut parts = w.split('.');
        let base = parts.next().unwrap_or("");
        let rest: Vec<&str> = parts.collect();
        let bad = |m: String| self.err_at(k, m);
        let (op, mut mods) = match base {
            "addc" => (Opcode::Add, Mods::CARRY_IN),
            "subc" => (Opcode::Sub, Mods::CARRY_IN),
            "madc" => (Opcode::Mad, Mods::CARRY_IN),
            _ => match Opcode::from_name(base) {
                Some(o) => (o, 0),
                None => return Err(bad(format!("unsupported opcode `{base}`"))),
            },
        };
        let mut ins = Instr::new(op);
        let mut rest = rest.as_slice();
        if op == Opcode::Bar && rest.first() == Some(&"warp") {
            ins.op = Opcode::BarWarp;
            rest = &rest[1..];
        }
        if op == Opcode::Cvt && rest.first() == Some(&"pack") {
            return Err(bad("`cvt.pack` is not supported".into()));
        }
        for &m in rest {
            if m.is_empty() {
                return Err(bad("empty modifier".into()));
            }
            if let Some(t) = Ty::from_suffix(m) {
                if ins.ty == Ty::None {
                    ins.ty = t;
                } else if ins.ty2 == Ty::None {
                    ins.ty2 = t;
                } else if ins.ty3 == Ty::None && ins.op.is_simd_video() {
                    ins.ty3 = t;
                } else {
                    return Err(bad(format!("too many type suffixes in `{w}`")));
                }
                continue;
            }
            let opk = ins.op;
            let handled = match opk {
                Opcode::Vset2 | Opcode::Vset4 if Cmp::from_suffix(m).is_some() => {
                    ins.cmp = Cmp::from_suffix(m).unwrap_or_default();
                    true
                }
                _ if opk.is_simd_video() && m == "add" => {
                    ins.mode = Mode::VideoAdd;
                    true
                }
                Opcode::Setp | Opcode::Set | Opcode::Slct => {
                    if let (Some(c), Cmp::None) = (Cmp::from_suffix(m), ins.cmp) {
                        ins.cmp = c;
                        true
                    } else {
                        match m {
                            "and" => ins.bool_op = BoolOp::And,
                            "or" => ins.bool_op = BoolOp::Or,
                            "xor" => ins.bool_op = BoolOp::Xor,
                            _ => {}
                        }
                        matches!(m, "and" | "or" | "xor")
                    }
                }
                // `dp2a.lo` / `dp2a.hi` pick the half of b (PTX ISA §9.7.1.24)
                Opcode::Mul | Opcode::Mad | Opcode::Mul24 | Opcode::Mad24 | Opcode::Dp2a => {
                    ins.mode = match m {
                        "lo" => Mode::Lo,
                        "hi" => Mode::Hi,
                        "wide" => Mode::Wide,
                        _ => ins.mode,
                    };
                    matches!(m, "lo" | "hi" | "wide")
                }
                Opcode::Atom | Opcode::Red | Opcode::Redux => match AtomOp::from_suffix(m) {
                    Some(a) if a != AtomOp::Popc => {
                        ins.atom = a;
                        true
                    }
                    _ => false,
                },
                Opcode::Shfl => {
                    ins.mode = match m {
                        "up" => Mode::ShflUp,
                        "down" => Mode::ShflDown,
                        "bfly" => Mode::ShflBfly,
                        "idx" => Mode::ShflIdx,
                        _ => ins.mode,
                    };
                    matches!(m, "up" | "down" | "bfly" | "idx")
                }
                Opcode::Vote => {
                    ins.mode = match m {
                        "all" => Mode::VoteAll,
                        "any" => Mode::VoteAny,
                        "uni" => Mode::VoteUni,
                        "ballot" => Mode::VoteBallot,
                        _ => ins.mode,
                    };
                    matches!(m, "all" | "any" | "uni" | "ballot")
                }
                Opcode::Match => {
                    ins.mode = match m {
                        "any" => Mode::MatchAny,
                        "all" => Mode::MatchAll,
                        _ => ins.mode,
                    };
                    matches!(m, "any" | "all")
                }
                Opcode::Bar => match m {
                    "sync" => {
                        ins.mode = Mode::BarSync;
                        true
                    }
                    "arrive" => {
                        ins.mode = Mode::BarArrive;
                        true
                    }
                    "red" => {
                        ins.mode = Mode::BarRed;
                        true
                    }
                    "popc" | "and" | "or" => {
                        ins.atom = AtomOp::from_suffix(m).unwrap_or_default();
                        true
                    }
                    _ => false,
                },
                Opcode::Cvta if m == "to" => {
                    ins.mode = Mode::CvtaTo;
                    true
                }
                Opcode::Shf => {
                    ins.mode = match m {
                        "l" => Mode::ShfL,
                        "r" => Mode::ShfR,
                        _ => ins.mode,
                    };
                    matches!(m, "l" | "r")
                }
                Opcode::Prmt => {
                    ins.mode = match m {
                        "f4e" => Mode::PrmtF4e,
                        "b4e" => Mode::PrmtB4e,
                        "rc8" => Mode::PrmtRc8,
                        "ecl" => Mode::PrmtEcl,
                        "ecr" => Mode::PrmtEcr,
                        "rc16" => Mode::PrmtRc16,
                        _ => ins.mode,
                    };
                    matches!(m, "f4e" | "b4e" | "rc8" | "ecl" | "ecr" | "rc16")
                }
                _ => false,
            };
            if handled {
                continue;
            }
            if let Some(r) = Round::from_suffix(m) {
                ins.rnd = r;
                continue;
            }
            if let Some(s) = Space::from_suffix(m) {
                ins.space = s;
                continue;
            }
            let flag = match m {
                "sat" => Mods::SAT,
                "ftz" => Mods::FTZ,
                "approx" => Mods::APPROX,
                "full" => Mods::FULL,
                "uni" => Mods::UNI,
                "cc" => Mods::CC,
                "sync" => Mods::SYNC,
                "aligned" => Mods::ALIGNED,
                "volatile" => Mods::VOLATILE,
                "relaxed" | "acquire" | "release" | "acq_rel" | "sc" => Mods::ORDERED,
                "nc" => Mods::NC,
                "cv" => Mods::CV,
                "wrap" => Mods::WRAP,
                "clamp" => Mods::CLAMP,
                "shiftamt" => Mods::SHIFTAMT,
                "noftz" => Mods::NOFTZ,
                "relu" => Mods::RELU,
                "NaN" | "nan" => Mods::NAN,
                "satfinite" => Mods::SATFINITE,
                "unified" => Mods::UNIFIED,
                "abs" => Mods::ABS,
                "v2" => {
                    ins.vec = 2;
                    0
                }
                "v4" => {
                    ins.vec = 4;
                    0
                }
                "v8" => {
                    ins.vec = 8;
                    0
                }
                // cache operators (§9.7.9.1), scopes (§8.5), weak/mmio and cache hints:
                // accepted, no functional effect
                "ca" | "cg" | "cs" | "lu" | "wb" | "wt" | "cta" | "gpu" | "sys" | "cluster"
                | "gl" | "weak" | "mmio" | "level" | "L2" | "L1" => 0,
                _ if m.starts_with("L1::") || m.starts_with("L2::") => 0,
                _ => return Err(bad(format!("unsupported modifier `.{m}` in `{w}`"))),
            };
            mods |= flag;
        }
        if ins.op == Opcode::Cvta && ins.mode == Mode::None {
            ins.mode = Mode::CvtaFrom;
        }
        ins.mods = Mods(mods);
        Ok(ins)
    }
}

/// The type an immediate in source position `index` (counting the destination) is converted to.
fn imm_type(ins: &Instr, index: usize) -> Ty {
    match ins.op {
        Opcode::Cvt | Opcode::Set if index > 0 => ins.ty2,
        Opcode::Shl | Opcode::Shr | Opcode::Bfe | Opcode::Shfl if index >= 2 => Ty::U32,
        Opcode::Bra | Opcode::Bar | Opcode::BarWarp | Opcode::Vote | Opcode::Nanosleep => Ty::U32,
        _ => ins.ty,
    }
}

/// Converts a numeric token to raw bits of `ty` (PTX ISA §4.5: integer constants are 64-bit;
/// floating-point constants in `0f`/`0d` form are exact bit patterns; a constant of the other
/// kind in a floating-point instruction is converted to that type's value).
fn imm_bits(tok: &Tok, neg: bool, ty: Ty) -> u64 {
    match (ty, tok) {
        (Ty::F32, Tok::F32(b)) => u64::from(if neg { b ^ 0x8000_0000 } else { *b }),
        (Ty::F32, Tok::F64(b)) => {
            let v = f64::from_bits(*b) as f32;
            u64::from((if neg { -v } else { v }).to_bits())
        }
        (Ty::F32, Tok::Int(v, _)) => {
            let x = *v as i64 as f32;
            u64::from((if neg { -x } else { x }).to_bits())
        }
        (Ty::F64, Tok::F64(b)) => {
            if neg {
                b ^ (1 << 63)
            } else {
                *b
            }
        }
        (Ty::F64, Tok::F32(b)) => {
            let v = f64::from(f32::from_bits(*b));
            (if neg { -v } else { v }).to_bits()
        }
        (Ty::F64, Tok::Int(v, _)) => {
            let x = *v as i64 as f64;
            (if neg { -x } else { x }).to_bits()
        }
        (_, Tok::Int(v, _)) => {
            if neg {
                v.wrapping_neg()
            } else {
                *v
            }
        }
        (_, Tok::F32(b)) => u64::from(if neg { b ^ 0x8000_0000 } else { *b }),
        (_, Tok::F64(b)) => {
            if neg {
                b ^ (1 << 63)
            } else {
                *b
            }
        }
        _ => 0,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ir::{Dim, Mode};

    const HDR: &str = ".version 8.0\n.target sm_80\n.address_size 64\n";

    fn one(body: &str) -> Function {
        let src = format!(
            "{HDR}.visible .entry k(\n\t.param .u64 .ptr .global .align 16 k_p0,\n\t.param .u32 k_p1,\n\t.param .align 8 .b8 k_s[12]\n)\n.maxntid 128, 1, 1\n{{\n\
             .reg .pred %p<3>;\n.reg .b16 %rs<3>;\n.reg .b32 %r<10>;\n.reg .f32 %f<5>;\n.reg .b64 %rd<6>;\n.reg .f64 %fd<2>;\n{body}\n}}\n"
        );
        let m = parse_unscheduled("t.ptx", &src).unwrap_or_else(|e| panic!("{e}"));
        m.function("k").unwrap().clone()
    }

    #[test]
    fn header_params_and_layout() {
        let f = one("ret;");
        assert!(f.is_kernel);
        assert_eq!(f.params.len(), 3);
        assert_eq!(
            f.params[0].ptr,
            Some(PtrAttr {
                space: Space::Global,
                align: 16
            })
        );
        assert_eq!((f.params[1].offset, f.params[1].size), (8, 4));
        assert_eq!(
            (f.params[2].offset, f.params[2].size, f.params[2].count),
            (16, 12, 12)
        );
        assert_eq!(f.param_bytes, 28);
        assert_eq!(f.tuning.maxntid, Some([128, 1, 1]));
        // the directive's line, for the launch-bounds message
        assert_eq!((f.tuning.maxntid_line, f.tuning.reqntid_line), (9, 0));
        assert_eq!(f.regs.len(), 3 + 3 + 10 + 5 + 6 + 2);
        assert_eq!(f.regs[3].name, "%rs0");
    }

    #[test]
    fn operands_of_every_form() {
        let f = one("ld.param.u64 %rd1, [k_p0];\n\
             mov.u32 %r1, %tid.x;\n\
             mov.f32 %f1, 0f3F800000;\n\
             mov.f64 %fd1, 0d4000000000000000;\n\
             add.s32 %r2, %r1, -1;\n\
             add.s32 %r3, %r1, 0x10;\n\
             add.f32 %f2, %f1, 0f40000000;\n\
             ld.global.nc.v4.f32 {%f1, %f2, _, %f4}, [%rd1+16];\n\
             st.global.v2.u32 [%rd1+-8], {%r1, %r2};\n\
             setp.lt.s32 %p1|%p2, %r1, %r2;\n\
             @!%p1 bra $L_end;\n\
             setp.eq.and.s32 %p0, %r1, 3, !%p2;\n\
             $L_end:\n\
             ret;");
        let i = &f.instrs;
        assert_eq!(
            i[0].src[0],
            Operand::Addr(Addr {
                base: AddrBase::Sym(Sym::Param(0)),
                offset: 0
            })
        );
        assert_eq!(i[1].src[0], Operand::Special(Sreg::Tid(Dim::X)));
        assert_eq!(i[2].src[0], Operand::Imm(0x3F80_0000));
        assert_eq!(i[3].src[0], Operand::Imm(2.0f64.to_bits()));
        assert_eq!(i[4].src[1], Operand::Imm(u64::MAX));
        assert_eq!(i[5].src[1], Operand::Imm(16));
        assert_eq!(
            (i[7].vec, i[7].space, i[7].mods.has(Mods::NC)),
            (4, Space::Global, true)
        );
        assert!(matches!(&i[7].dst[0], Operand::Vec(v) if v.len() == 4 && v[2] == Operand::Sink));
        assert!(matches!(
            i[8].src[0],
            Operand::Addr(Addr { offset: -8, .. })
        ));
        assert_eq!(i[9].dst.len(), 2);
        assert_eq!(i[9].cmp, Cmp::Lt);
        assert_eq!(i[10].guard.map(|g| g.neg), Some(true));
        assert_eq!(i[10].src[0], Operand::Label(12));
        assert_eq!(i[11].bool_op, BoolOp::And);
        assert!(matches!(i[11].src[2], Operand::NegPred(_)));
        assert_eq!(i.len(), 13);
    }

    #[test]
    fn opcode_modifiers_decode() {
        let f = one(
            "mul.wide.s32 %rd2, %r1, 4;\nmad.hi.u32 %r3, %r1, %r2, %r3;\n\
             cvt.rn.f32.s32 %f1, %r1;\ncvt.rzi.s32.f32 %r4, %f1;\n\
             fma.rn.ftz.sat.f32 %f2, %f1, %f1, %f1;\n\
             shfl.sync.bfly.b32 %r5|%p1, %r1, 16, 31, -1;\n\
             atom.global.cas.b32 %r6, [%rd1], %r1, %r2;\n\
             red.shared.add.u32 [%r1], 1;\n\
             bar.sync 0;\nbarrier.sync.aligned 1, 64;\nbar.warp.sync -1;\n\
             cvta.to.global.u64 %rd3, %rd1;\ncvta.shared.u64 %rd4, %rd1;\n\
             ld.global.L1::evict_last.L2::256B.f32 %f3, [%rd1];\n\
             addc.cc.u32 %r7, %r1, %r2;\n\
             vote.sync.ballot.b32 %r8, %p1, -1;\n\
             ex2.approx.ftz.f32 %f4, %f3;\nret;",
        );
        let i = &f.instrs;
        assert_eq!(
            (i[0].op, i[0].mode, i[0].ty),
            (Opcode::Mul, Mode::Wide, Ty::S32)
        );
        assert_eq!(i[1].mode, Mode::Hi);
        assert_eq!((i[2].ty, i[2].ty2, i[2].rnd), (Ty::F32, Ty::S32, Round::Rn));
        assert_eq!(i[3].rnd, Round::Rzi);
        assert!(i[4].mods.has(Mods::FTZ) && i[4].mods.has(Mods::SAT));
        assert_eq!(
            (i[5].mode, i[5].dst.len(), i[5].src.len()),
            (Mode::ShflBfly, 2, 4)
        );
        assert_eq!(
            (i[6].atom, i[6].space, i[6].src.len()),
            (AtomOp::Cas, Space::Global, 3)
        );
        assert!(i[7].dst.is_empty() && i[7].atom == AtomOp::Add);
        assert_eq!((i[8].op, i[8].mode), (Opcode::Bar, Mode::BarSync));
        assert_eq!(i[9].src.len(), 2);
        assert_eq!(i[10].op, Opcode::BarWarp);
        assert_eq!(i[11].mode, Mode::CvtaTo);
        assert_eq!((i[12].mode, i[12].space), (Mode::CvtaFrom, Space::Shared));
        assert_eq!(i[13].ty, Ty::F32);
        assert!(i[14].mods.has(Mods::CARRY_IN) && i[14].mods.has(Mods::CC));
        assert_eq!(i[15].mode, Mode::VoteBallot);
        assert!(i[16].mods.has(Mods::APPROX));
    }

    #[test]
    fn module_variables_and_calls() {
        let src = format!(
            "{HDR}.file 1 \"k.cu\"\n.global .align 4 .u32 counter = 7;\n\
             .const .align 4 .f32 coef[4] = {{0f3F800000, 0f3F000000}};\n\
             .global .align 1 .b8 grid[2][3] = {{{{1, 2, 3}}, {{4, 5, 6}}}};\n\
             .extern .shared .align 16 .b8 dyn[];\n\
             .shared .align 4 .b8 tile[1024];\n\
             .func (.param .b32 ret0) helper(.param .b32 a)\n{{\n.reg .b32 %r<2>;\n\
             ld.param.b32 %r0, [a];\nst.param.b32 [ret0+0], %r0;\nret;\n}}\n\
             .visible .entry k()\n{{\n.local .align 4 .b8 __local_depot0[64];\n\
             .reg .b32 %r<3>;\n.reg .b64 %SPL;\n\
             .pragma \"nounroll\";\n.loc 1 5 3\n\
             mov.u64 %SPL, __local_depot0;\nmov.u64 %SPL, tile;\nld.const.f32 %r0, [coef+4];\n\
             {{ // callseq\n.reg .b32 temp_param_reg;\n.param .b32 param0;\n\
             st.param.b32 [param0+0], %r0;\n.param .b32 retval0;\n\
             call.uni (retval0), \nhelper, \n(\nparam0\n);\nld.param.b32 %r1, [retval0+0];\n}}\n\
             ret;\n}}\n"
        );
        let m = parse("m.ptx", &src).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(m.globals.len(), 5);
        assert_eq!(m.globals[0].init, Some(vec![7, 0, 0, 0]));
        let coef = m.global("coef").unwrap();
        assert_eq!(coef.size, 16);
        assert_eq!(coef.init.as_ref().unwrap()[4..8], 0.5f32.to_le_bytes());
        assert_eq!(m.global("grid").unwrap().init, Some(vec![1, 2, 3, 4, 5, 6]));
        let dynm = m.global("dyn").unwrap();
        assert!(dynm.is_extern && dynm.size == 0 && dynm.align == 16);
        let k = m.function("k").unwrap();
        assert_eq!(k.local_bytes(), 64);
        // A body's `.pragma` strings are kept on its function
        assert_eq!(k.pragmas, vec!["nounroll".to_string()]);
        assert_eq!(k.instrs[0].src[0], Operand::Sym(Sym::Local(0), 0));
        assert_eq!(k.instrs[1].src[0], Operand::Sym(Sym::Global(4), 0));
        // The kernel's call is inlined; the call operands are decoded as written in a
        // non-kernel caller (`.func`s are not inlined)
        assert!(k.instrs.iter().all(|i| i.op != Opcode::Call));
        assert!(k.regs.iter().any(|r| r.name == "%r0@helper#0"));
        let as_func = src.replace(".visible .entry k()", ".func k()");
        let mf = parse("m.ptx", &as_func).unwrap_or_else(|e| panic!("{e}"));
        let kf = mf.function("k").unwrap();
        let call = kf.instrs.iter().find(|i| i.op == Opcode::Call).unwrap();
        let c = call.call.as_ref().unwrap();
        assert_eq!(
            c.target,
            CallTarget::Direct(mf.function_index("helper").unwrap())
        );
        assert_eq!(c.args.len(), 1);
        assert_eq!(c.rets.len(), 1);
        assert!(call.mods.has(Mods::UNI));
        let h = m.function("helper").unwrap();
        assert!(h.pragmas.is_empty());
        assert_eq!(h.rets[0].name, "ret0");
        assert_eq!(
            h.instrs[1].src[0],
            Operand::Addr(Addr {
                base: AddrBase::Sym(Sym::Ret(0)),
                offset: 0
            })
        );
    }

    #[test]
    fn errors_point_at_the_offending_text() {
        let cases = [
            ("add.s32 %r1, %r9999, 1;", "undeclared register"),
            ("bra $nowhere;", "undefined label"),
            ("add.q32 %r1, %r1, 1;", "unsupported modifier"),
            ("wmma.load.a.sync %r1, [%rd1];", "unsupported opcode"),
            ("add.s32 %r1, %r1;;", "expected an instruction"),
            ("st.global.u32 [%rd1];", "wrong number of operands"),
            ("@%r1 bra $x;", "not a predicate"),
            ("mov.u32 5, %r1;", "destination must be a register"),
            ("call nothere;", "undeclared function"),
        ];
        for (body, msg) in cases {
            let src =
                format!("{HDR}.entry k()\n{{\n.reg .b32 %r<3>;\n.reg .b64 %rd<2>;\n{body}\n}}\n");
            let e = parse("e.ptx", &src).unwrap_err().to_string();
            assert!(e.starts_with("e.ptx:8:"), "{body}: {e}");
            assert!(e.contains(msg), "{body}: {e}");
        }
        let e = parse("e.ptx", ".version 7.0\n.bogus 3\n")
            .unwrap_err()
            .to_string();
        assert!(e.contains("e.ptx:2:1") && e.contains(".bogus"), "{e}");
        assert!(matches!(
            parse("e.ptx", ".entry k() {"),
            Err(PtxError::Eof { .. })
        ));
    }

    #[test]
    fn falling_off_the_end_appends_ret() {
        let f = one("add.s32 %r1, %r1, 1;");
        assert_eq!(f.instrs.last().map(|i| i.op), Some(Opcode::Ret));
        assert_eq!(f.instrs.len(), 2);
    }
}
