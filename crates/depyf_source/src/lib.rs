//! The last stage of the pipeline: a small Python AST ([`Expr`], [`Stmt`]) and a
//! printer that parenthesizes by precedence and writes literals so that CPython reads
//! back the same values.
//!
//! Why not `ruff_python_ast` + `ruff_python_codegen` (the DESIGN.md default): measured
//! on this toolchain (Rust 1.95), the newest published ruff crates (0.0.20) need Rust
//! 1.97, so we would be pinned to an old snapshot of an API that its authors call
//! unstable; the pinned 0.0.10 crates add 57 s to a cold build on 2 cores; and the
//! printer must follow the *target* CPython's rules (3.8 has no parenthesized context
//! managers, f-string quoting differs before 3.12), which ruff's generator does not
//! offer. The AST here holds only what the decompiler produces.
//!
//! ```
//! use depyf_source::{Expr, Stmt, print_body};
//! let s = Stmt::Return(Some(Expr::name("x").binop("*", Expr::name("y").binop("+", Expr::int(1)))));
//! assert_eq!(print_body(&[s], 0), "return x * (y + 1)\n");
//! ```

mod ast;
mod printer;

pub use ast::{Arguments, ASYNC_MARK, Ident, CompKind, Comprehension, ExceptHandler, Expr, FPart, FStringSyntax, Keyword, MatchCase, Pattern, Stmt};
pub use printer::{constant_literal, fstring, fstring_fits, print_body, print_expr, tstring};
