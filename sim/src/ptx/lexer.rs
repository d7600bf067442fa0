//! PTX tokenizer.
//!
//! Follows the lexical rules of the PTX ISA, §4 "Syntax": §4.1 source format (`//` and `/* */`
//! comments, §4.2), identifiers (§4.4: `[a-zA-Z][a-zA-Z0-9_$]*` or `[_$%][a-zA-Z0-9_$]+`),
//! directive names starting with `.` (§4.3), and constants (§4.5: decimal, hex `0x`, octal,
//! binary `0b`, the `U` suffix, and the exact floating-point forms `0f` + 8 hex digits and
//! `0d` + 16 hex digits).
//!
//! Dots are kept inside a word so that `add.rn.f32`, `%tid.x` and `.reg` each lex as one
//! [`Tok::Word`]; the parser splits them.

use super::error::{Pos, PtxError};

/// A token.
#[derive(Clone, Debug, PartialEq)]
pub enum Tok {
    /// Identifier, opcode with suffixes, directive (leading `.`), register (`%r1`), label.
    Word(String),
    /// Integer constant (§4.5.1); the flag is true for the `U` suffix.
    Int(u64, bool),
    /// `0fXXXXXXXX` single-precision constant (§4.5.2), raw bits.
    F32(u32),
    /// `0dXXXXXXXXXXXXXXXX` double-precision constant (§4.5.2), raw bits, or a decimal float.
    F64(u64),
    /// A string literal (only in `.file` / `.pragma`).
    Str(String),
    /// One punctuation character: `{ } ( ) [ ] , ; : @ ! + - < > = | *`.
    Punct(char),
}

/// A token with its location.
#[derive(Clone, Debug, PartialEq)]
pub struct Token {
    pub tok: Tok,
    pub loc: Pos,
    /// Byte range of the token in the source.
    pub start: u32,
    pub end: u32,
}

fn is_word_start(c: u8) -> bool {
    c.is_ascii_alphabetic() || c == b'_' || c == b'$' || c == b'%' || c == b'.'
}

fn is_word_cont(c: u8) -> bool {
    c.is_ascii_alphanumeric() || c == b'_' || c == b'$' || c == b'.'
}

/// Splits `src` into tokens. `file` is used in error messages only.
pub fn lex(file: &str, src: &str) -> Result<Vec<Token>, PtxError> {
    let b = src.as_bytes();
    let mut out = Vec::with_capacity(src.len() / 4);
    let (mut i, mut line, mut col) = (0usize, 1u32, 1u32);
    let err = |line: u32, col: u32, text: &str, msg: &str| PtxError::Syntax {
        file: file.to_string(),
        line,
        col,
        text: text.to_string(),
        msg: msg.to_string(),
    };
    while i < b.len() {
        let c = b[i];
        let loc = Pos { line, col };
        if c == b'\n' {
            i += 1;
            line += 1;
            col = 1;
            continue;
        }
        if c.is_ascii_whitespace() {
            i += 1;
            col += 1;
            continue;
        }
        if c == b'/' && b.get(i + 1) == Some(&b'/') {
            while i < b.len() && b[i] != b'\n' {
                i += 1;
            }
            continue;
        }
        if c == b'/' && b.get(i + 1) == Some(&b'*') {
            i += 2;
            col += 2;
            loop {
                match b.get(i) {
                    None => return Err(err(loc.line, loc.col, "/*", "unterminated comment")),
                    Some(b'*') if b.get(i + 1) == Some(&b'/') => {
                        i += 2;
                        col += 2;
                        break;
                    }
                    Some(b'\n') => {
                        i += 1;
                        line += 1;
                        col = 1;
                    }
                    Some(_) => {
                        i += 1;
                        col += 1;
                    }
                }
            }
            continue;
        }
        let start = i;
        let tok = if is_word_start(c) {
            i += 1;
            while i < b.len() {
                if is_word_cont(b[i]) {
                    i += 1;
                } else if b[i] == b':'
                    && b.get(i + 1) == Some(&b':')
                    && b.get(i + 2).is_some_and(|&c| is_word_cont(c))
                {
                    // `.L2::cache_hint`, `.L1::evict_last` (PTX ISA §9.7.9.8)
                    i += 2;
                } else {
                    break;
                }
            }
            Tok::Word(src.get(start..i).unwrap_or_default().to_string())
        } else if c.is_ascii_digit() {
            i += 1;
            while i < b.len() && (b[i].is_ascii_alphanumeric() || b[i] == b'.') {
                // exponent sign of a decimal float
                if (b[i] == b'e' || b[i] == b'E')
                    && matches!(b.get(i + 1), Some(b'+') | Some(b'-'))
                    && !src.get(start..i).unwrap_or("").starts_with("0x")
                    && !src.get(start..i).unwrap_or("").starts_with("0X")
                {
                    i += 1;
                }
                i += 1;
            }
            let text = src.get(start..i).unwrap_or_default();
            parse_number(text).ok_or_else(|| err(line, col, text, "malformed number"))?
        } else if c == b'"' {
            i += 1;
            while i < b.len() && b[i] != b'"' && b[i] != b'\n' {
                i += 1;
            }
            if b.get(i) != Some(&b'"') {
                return Err(err(line, col, "\"", "unterminated string"));
            }
            i += 1;
            Tok::Str(src.get(start + 1..i - 1).unwrap_or_default().to_string())
        } else if b"{}()[],;:@!+-<>=|*".contains(&c) {
            i += 1;
            Tok::Punct(c as char)
        } else {
            // report the whole (possibly multi-byte) character
            let ch = src.get(i..).and_then(|s| s.chars().next()).unwrap_or('?');
            return Err(err(line, col, &ch.to_string(), "unexpected character"));
        };
        col += (i - start) as u32;
        out.push(Token {
            tok,
            loc,
            start: start as u32,
            end: i as u32,
        });
    }
    Ok(out)
}

/// Parses a numeric constant per PTX ISA §4.5.
fn parse_number(t: &str) -> Option<Tok> {
    let lower = t.to_ascii_lowercase();
    if let Some(h) = lower.strip_prefix("0f") {
        if h.len() == 8 {
            return u32::from_str_radix(h, 16).ok().map(Tok::F32);
        }
        return None;
    }
    if let Some(h) = lower.strip_prefix("0d") {
        if h.len() == 16 {
            return u64::from_str_radix(h, 16).ok().map(Tok::F64);
        }
        return None;
    }
    let (body, unsigned) = match lower.strip_suffix('u') {
        Some(s) => (s, true),
        None => (lower.as_str(), false),
    };
    if let Some(h) = body.strip_prefix("0x") {
        return u64::from_str_radix(h, 16)
            .ok()
            .map(|v| Tok::Int(v, unsigned));
    }
    if let Some(h) = body.strip_prefix("0b") {
        return u64::from_str_radix(h, 2)
            .ok()
            .map(|v| Tok::Int(v, unsigned));
    }
    if body.contains('.') || body.contains('e') {
        return lower.parse::<f64>().ok().map(|v| Tok::F64(v.to_bits()));
    }
    if body.len() > 1 && body.starts_with('0') {
        return u64::from_str_radix(&body[1..], 8)
            .ok()
            .map(|v| Tok::Int(v, unsigned));
    }
    body.parse::<u64>().ok().map(|v| Tok::Int(v, unsigned))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn toks(s: &str) -> Vec<Tok> {
        lex("t", s).unwrap().into_iter().map(|t| t.tok).collect()
    }

    #[test]
    fn numbers() {
        assert_eq!(toks("0f3F800000"), vec![Tok::F32(0x3F80_0000)]);
        assert_eq!(toks("0d3FF0000000000000"), vec![Tok::F64(1.0f64.to_bits())]);
        assert_eq!(toks("0x1F"), vec![Tok::Int(31, false)]);
        assert_eq!(toks("0xffffffffU"), vec![Tok::Int(0xffff_ffff, true)]);
        assert_eq!(toks("017"), vec![Tok::Int(15, false)]);
        assert_eq!(toks("0b101"), vec![Tok::Int(5, false)]);
        assert_eq!(toks("1.5e+2"), vec![Tok::F64(150.0f64.to_bits())]);
        assert!(lex("t", "0f3F80").is_err());
        assert!(lex("t", "12abc").is_err());
    }

    #[test]
    fn words_and_comments() {
        let t = toks("add.rn.f32 %f1, %tid.x; // c\n/* x\n y */ $L__BB0_1:");
        assert_eq!(t[0], Tok::Word("add.rn.f32".into()));
        assert_eq!(t[3], Tok::Word("%tid.x".into()));
        assert_eq!(t[5], Tok::Word("$L__BB0_1".into()));
        let all = lex("t", "a\n  b").unwrap();
        assert_eq!((all[1].loc.line, all[1].loc.col), (2, 3));
    }

    #[test]
    fn errors_have_location() {
        let e = lex("f.ptx", "add\n  #").unwrap_err().to_string();
        assert!(e.contains("f.ptx:2:3"), "{e}");
        assert!(lex("t", "/* open").is_err());
        assert!(lex("t", "\"open").is_err());
        assert!(lex("t", "é").is_err());
    }
}
