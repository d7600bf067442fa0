//! Errors of the PTX front-end.

use thiserror::Error;

use super::check::Rule;

/// A 1-based source position.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord)]
pub struct Pos {
    pub line: u32,
    pub col: u32,
}

/// Anything that can go wrong reading PTX. Every variant names file, line and column.
#[derive(Debug, Error, Clone, PartialEq)]
pub enum PtxError {
    /// The text does not follow the PTX grammar (or uses a construct regwatt does not support).
    #[error("{file}:{line}:{col}: {msg} (at `{text}`)")]
    Syntax {
        file: String,
        line: u32,
        col: u32,
        text: String,
        msg: String,
    },
    /// The text parses but breaks a rule of the PTX ISA that ptxas enforces (operand counts and
    /// types, predicates, addresses, `.version`/`.target`, barriers; see [`super::check`]).
    /// `instr` is the offending instruction or directive as written, `rule` the rule broken.
    #[error("{file}:{line}:{col}: {rule}: {msg} (in `{instr}`)")]
    Check {
        file: String,
        line: u32,
        col: u32,
        instr: String,
        rule: Rule,
        msg: String,
    },
    /// The input ended in the middle of a construct. `line`/`col` are the end of the file;
    /// `msg` says what was expected (may be empty).
    #[error("{file}:{line}:{col}: unexpected end of input{}", eof_detail(.msg))]
    Eof {
        file: String,
        line: u32,
        col: u32,
        msg: String,
    },
}

fn eof_detail(msg: &str) -> String {
    if msg.is_empty() {
        String::new()
    } else {
        format!(" ({msg})")
    }
}
