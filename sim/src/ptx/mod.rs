//! PTX front-end: tokenizer and parser producing the decoded IR ([`crate::ir::Module`]).
//!
//! Grammar follows the PTX ISA (version 8.x) as emitted by nvcc/NVRTC 11.x–12.x for
//! sm_70..sm_90. Unsupported constructs are errors naming file, line, column and the text.
//! Parsed modules are checked against the rules ptxas enforces ([`check`]) before anything
//! runs them.

pub mod check;
pub mod error;
pub mod lexer;
pub mod parser;

pub use check::Rule;
pub use error::{Pos, PtxError};
pub use parser::parse;
