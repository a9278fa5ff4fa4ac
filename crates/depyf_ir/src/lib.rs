//! The version-independent instruction set of depyf.
//!
//! Second stage of the pipeline (`bytecode -> ir -> cfg -> recover -> structure ->
//! idioms -> source`). Every CPython version's instructions are rewritten by its
//! normalizer (`normalize::pyXY`) into [`Op`]s whose stack effects are explicit
//! ([`Op::stack_effect`]), so that everything above this crate never asks which version
//! did what: 3.8's `ROT_TWO` and 3.11's `SWAP 2` are both [`Op::Swap`]`(2)`, 3.11's
//! `KW_NAMES` + `PRECALL` + `CALL` is one [`Op::Call`].
//!
//! Modules:
//! - [`op`]: [`Op`], its operands and stack effects;
//! - [`normalize`]: [`normalize()`], dispatching to one module per version;
//! - [`stream`]: the normalized instruction stream that verification compares.

pub mod normalize;
pub mod op;
pub mod stream;

pub use normalize::{has_protected_ranges, normalize, normalize_all, normalize_decoded_with_ranges, normalize_with_ranges, protected_ranges, IrError, IrInstr};
pub use op::{BinOp, CallLayout, CmpOp, Op, UnaryOp};
