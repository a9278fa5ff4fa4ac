//! The version-independent code object: what a live `types.CodeType` or a marshalled
//! code object holds, with CPython's field names.

use crate::PythonVersion;

/// Kind bits of a fast-locals slot, as in CPython 3.11+ `Include/internal/pycore_code.h`
/// (`CO_FAST_LOCAL`, `CO_FAST_CELL`, `CO_FAST_FREE`, `CO_FAST_HIDDEN`).
pub mod local_kind {
    /// A local variable (parameters included).
    pub const LOCAL: u8 = 0x20;
    /// A cell variable: a local that inner functions capture.
    pub const CELL: u8 = 0x40;
    /// A free variable: captured from an enclosing function.
    pub const FREE: u8 = 0x80;
    /// A local hidden by an inlined comprehension (3.12+).
    pub const HIDDEN: u8 = 0x10;
}

/// `co_flags` bits used by the decompiler (CPython `Include/cpython/code.h`).
pub mod co_flags {
    /// Fast locals are used (a function body).
    pub const OPTIMIZED: u32 = 0x01;
    /// A new locals dict is made for each frame (a function body).
    pub const NEWLOCALS: u32 = 0x02;
    /// The function takes `*args`.
    pub const VARARGS: u32 = 0x04;
    /// The function takes `**kwargs`.
    pub const VARKEYWORDS: u32 = 0x08;
    /// A nested function.
    pub const NESTED: u32 = 0x10;
    /// The function has a docstring in `co_consts[0]` (3.14+).
    pub const HAS_DOCSTRING: u32 = 0x0400_0000;
    /// A generator function.
    pub const GENERATOR: u32 = 0x20;
    /// A coroutine (`async def`); CPython `Include/cpython/code.h` `CO_COROUTINE`.
    pub const COROUTINE: u32 = 0x80;
    /// A generator-based coroutine (`types.coroutine`).
    pub const ITERABLE_COROUTINE: u32 = 0x100;
    /// An async generator.
    pub const ASYNC_GENERATOR: u32 = 0x200;
    /// Compiled under `from __future__ import annotations` (PEP 563, 3.7+): each
    /// annotation is stored as the source text of its expression. CPython
    /// `Include/cpython/compile.h` `CO_FUTURE_ANNOTATIONS`.
    pub const FUTURE_ANNOTATIONS: u32 = 0x0100_0000;
}

/// The widest int (in bits of its magnitude) that [`Constant::BigInt`] writes in
/// decimal: at most 4,299 digits. CPython refuses to compile a decimal literal of more
/// than 4,300 digits (`sys.int_info.default_max_str_digits`, "Exceeds the limit (4300)
/// for integer string conversion"; 3.11+, and 3.8.14, 3.9.14 and 3.10.7 on), which also
/// takes quadratic time to write; a wider int is written in hex, which has no such limit
/// and takes linear time.
pub const MAX_DECIMAL_BITS: u64 = 952 * 15;

/// One entry of `co_consts`.
#[derive(Debug, PartialEq)]
pub enum Constant {
    /// `None`.
    None,
    /// `...`.
    Ellipsis,
    /// `True` / `False`.
    Bool(bool),
    /// An int that fits in 64 bits.
    Int(i64),
    /// An int of any size as a Python literal: decimal
    /// (`"-123456789012345678901234567890"`) up to [`MAX_DECIMAL_BITS`] bits, hex
    /// (`"0x1f..."`, `"-0x1f..."`) past it.
    BigInt(String),
    /// A float.
    Float(f64),
    /// A complex number `(real, imag)`.
    Complex(f64, f64),
    /// A str. Shared (`Arc`): the reader hands out one allocation for every back
    /// reference to an interned string, and a copy of the constant (as the decompiler
    /// makes for each load) costs a reference count, not a copy of the text.
    Str(std::sync::Arc<str>),
    /// A bytes object.
    Bytes(Vec<u8>),
    /// A tuple of constants.
    Tuple(Vec<Constant>),
    /// A frozenset of constants, in iteration order.
    FrozenSet(Vec<Constant>),
    /// A slice `slice(start, stop, step)` of constants (3.14+ folds constant slices).
    Slice(Box<[Constant; 3]>),
    /// A nested code object (function, lambda, class body, comprehension). Shared
    /// (`Arc`): a copy of the constant (as the decompiler makes when the code loads
    /// it) does not copy the code object and everything nested in it.
    Code(std::sync::Arc<CodeObject>),
    /// An object that has no literal form (Dynamo puts arbitrary objects into
    /// `co_consts`): `index` is its position in `co_consts`, `type_name` and `repr` are
    /// for the reader. The decompiler refers to it by a generated name that the caller
    /// binds again when the source is recompiled.
    Opaque {
        /// Position in `co_consts`.
        index: usize,
        /// `type(obj).__qualname__`.
        type_name: String,
        /// `repr(obj)`, possibly shortened.
        repr: String,
    },
}

// A copy as `#[derive(Clone)]` would make it, with the commonest cases (a shared str,
// an int, `None`: a reference count or a few bytes) inlined where the decompiler and
// the marshal reader copy constants; the others are copied out of line.
impl Clone for Constant {
    #[inline]
    fn clone(&self) -> Self {
        match self {
            Constant::Str(s) => Constant::Str(s.clone()),
            Constant::Int(i) => Constant::Int(*i),
            Constant::None => Constant::None,
            _ => self.clone_other(),
        }
    }
}

impl Constant {
    /// [`Clone::clone`] of any constant (every variant is listed: a new one must say
    /// how it is copied).
    #[inline(never)]
    fn clone_other(&self) -> Self {
        match self {
            Constant::None => Constant::None,
            Constant::Ellipsis => Constant::Ellipsis,
            Constant::Bool(b) => Constant::Bool(*b),
            Constant::Int(i) => Constant::Int(*i),
            Constant::BigInt(s) => Constant::BigInt(s.clone()),
            Constant::Float(f) => Constant::Float(*f),
            Constant::Complex(re, im) => Constant::Complex(*re, *im),
            Constant::Str(s) => Constant::Str(s.clone()),
            Constant::Bytes(b) => Constant::Bytes(b.clone()),
            Constant::Tuple(items) => Constant::Tuple(items.clone()),
            Constant::FrozenSet(items) => Constant::FrozenSet(items.clone()),
            Constant::Slice(parts) => Constant::Slice(parts.clone()),
            Constant::Code(code) => Constant::Code(code.clone()),
            Constant::Opaque { index, type_name, repr } => Constant::Opaque { index: *index, type_name: type_name.clone(), repr: repr.clone() },
        }
    }
}

/// A code object of any supported CPython version.
///
/// Fast locals are kept in the 3.11+ shape (`co_localsplusnames`, `co_localspluskinds`)
/// for every version: for 3.8-3.10 they are `co_varnames` (kind `LOCAL`), then
/// `co_cellvars` (kind `CELL`), then `co_freevars` (kind `FREE`), which is the layout of
/// those versions' `f_localsplus`.
#[derive(Clone, Debug, PartialEq)]
pub struct CodeObject {
    /// The CPython version whose bytecode `co_code` holds.
    pub version: PythonVersion,
    /// Number of positional parameters (positional-only included).
    pub co_argcount: u32,
    /// Number of positional-only parameters.
    pub co_posonlyargcount: u32,
    /// Number of keyword-only parameters.
    pub co_kwonlyargcount: u32,
    /// Stack size the compiler computed.
    pub co_stacksize: u32,
    /// Flags (see [`co_flags`]).
    pub co_flags: u32,
    /// Raw bytecode: 2-byte code units, inline caches zeroed.
    pub co_code: Vec<u8>,
    /// Constants.
    pub co_consts: Vec<Constant>,
    /// Global, attribute and import names.
    pub co_names: Vec<std::sync::Arc<str>>,
    /// Names of all fast-locals slots.
    pub co_localsplusnames: Vec<std::sync::Arc<str>>,
    /// Kind bits of each slot (see [`local_kind`]).
    pub co_localspluskinds: Vec<u8>,
    /// File name the code was compiled from.
    pub co_filename: String,
    /// Function or class name.
    pub co_name: String,
    /// Qualified name (3.11+; equal to `co_name` before).
    pub co_qualname: String,
    /// First source line.
    pub co_firstlineno: u32,
    /// Line table: `co_lnotab` for 3.8-3.9, `co_linetable` for 3.10+.
    pub co_linetable: Vec<u8>,
    /// Exception table (3.11+; empty before).
    pub co_exceptiontable: Vec<u8>,
}

impl CodeObject {
    fn names_of_kind(&self, want: u8) -> Vec<&str> {
        self.co_localsplusnames
            .iter()
            .zip(&self.co_localspluskinds)
            .filter(|(_, k)| *k & want != 0)
            .map(|(n, _)| &**n)
            .collect()
    }

    /// `co_varnames`: local variables, parameters first.
    pub fn co_varnames(&self) -> Vec<&str> {
        self.names_of_kind(local_kind::LOCAL)
    }

    /// `co_cellvars`: locals captured by inner functions.
    pub fn co_cellvars(&self) -> Vec<&str> {
        self.names_of_kind(local_kind::CELL)
    }

    /// `co_freevars`: variables captured from enclosing functions.
    pub fn co_freevars(&self) -> Vec<&str> {
        self.names_of_kind(local_kind::FREE)
    }

    /// Number of parameters: positional, keyword-only, `*args` and `**kwargs`.
    pub fn total_argcount(&self) -> usize {
        // In usize: the counts of a corrupt code object may be anything up to u32::MAX.
        let mut n = self.co_argcount as usize + self.co_kwonlyargcount as usize;
        if self.co_flags & co_flags::VARARGS != 0 {
            n += 1;
        }
        if self.co_flags & co_flags::VARKEYWORDS != 0 {
            n += 1;
        }
        n
    }

    /// The docstring of a function: `co_consts[0]` when it is a str and the function
    /// has one (3.14+: the `CO_HAS_DOCSTRING` flag; before: the compiler puts the
    /// docstring or `None` first in every function's constants). `None` for
    /// lambdas, comprehensions, class and module bodies.
    pub fn docstring(&self) -> Option<&str> {
        if self.co_flags & co_flags::OPTIMIZED == 0 || self.co_name.starts_with('<') {
            return None;
        }
        if self.version >= PythonVersion::PY314 && self.co_flags & co_flags::HAS_DOCSTRING == 0 {
            return None;
        }
        match self.co_consts.first() {
            Some(Constant::Str(s)) => Some(s),
            _ => None,
        }
    }

    /// The code objects among `co_consts` (functions, classes, lambdas and
    /// comprehensions defined directly in this one), in `co_consts` order; not recursive.
    pub fn nested_code(&self) -> impl Iterator<Item = &CodeObject> {
        self.co_consts.iter().filter_map(|c| match c {
            Constant::Code(c) => Some(&**c),
            _ => None,
        })
    }

    /// Number of `LOCAL` slots (`co_nlocals`).
    pub fn co_nlocals(&self) -> usize {
        self.co_localspluskinds.iter().filter(|k| *k & local_kind::LOCAL != 0).count()
    }
}
