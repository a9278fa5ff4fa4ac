//! A reader for CPython's `marshal` format (versions 2-5, as written by CPython 3.8-3.15),
//! producing [`Constant`]s and [`CodeObject`]s.
//!
//! The format is described by CPython's `Python/marshal.c` (`r_object`, `r_ref_reserve`,
//! `r_ref_insert`, `r_PyLong`). Each object starts with a type byte; bit `0x80`
//! (`FLAG_REF`) asks the reader to remember the object so that a later `TYPE_REF` (`r`,
//! followed by a 4-byte index) can point back to it.
//!
//! Hostile input is expected: every length is checked against the remaining input before
//! anything is allocated, recursion depth is bounded ([`MAX_DEPTH`]), and the total size
//! of objects materialized through back references is bounded, so a small file cannot
//! expand into an exponentially large tree.

use std::fmt;

use crate::code::local_kind;
use crate::repr::constant_repr;
use crate::{CodeObject, Constant, PythonVersion};

/// Maximum nesting depth of marshalled objects (CPython allows 2000; real code objects
/// nest a few dozen levels at most).
pub const MAX_DEPTH: usize = 200;

const FLAG_REF: u8 = 0x80;

/// What went wrong while reading marshal data or a `.pyc` file.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum MarshalErrorKind {
    /// The input ends early, e.g. `expected 4 bytes of a tuple length`.
    Truncated {
        /// What the reader was about to read.
        expected: String,
    },
    /// A type byte that marshal never writes, e.g. `0x01`.
    UnknownType(u8),
    /// `TYPE_REF` to an index that was never stored (or is still being read).
    BadRef(u32),
    /// A length that is negative or larger than the remaining input allows.
    BadLength(i64),
    /// Objects nest deeper than [`MAX_DEPTH`].
    TooDeep,
    /// Back references would expand into more data than the input could describe.
    TooLarge,
    /// An object of the wrong type where the code object layout needs another, e.g.
    /// `co_names is a int, expected a tuple of str`.
    Unexpected(String),
    /// A `.pyc` magic number of no supported version, e.g. `3394` (CPython 3.7).
    UnknownMagic(u16),
    /// The `.pyc` header is malformed, e.g. the magic does not end in `\r\n`.
    BadHeader(String),
}

/// A marshal or `.pyc` error: what went wrong and at which byte offset of the input (for
/// a `.pyc` file, of the whole file).
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub struct MarshalError {
    /// What went wrong.
    pub kind: MarshalErrorKind,
    /// Byte offset in the input.
    pub offset: usize,
}

impl fmt::Display for MarshalError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "at byte offset {}: ", self.offset)?;
        match &self.kind {
            MarshalErrorKind::Truncated { expected } => write!(f, "input ends, expected {expected}"),
            MarshalErrorKind::UnknownType(t) => write!(f, "unknown marshal type byte 0x{t:02x}"),
            MarshalErrorKind::BadRef(i) => write!(f, "reference to unknown object #{i}"),
            MarshalErrorKind::BadLength(n) => write!(f, "length {n} is negative or exceeds the remaining input"),
            MarshalErrorKind::TooDeep => write!(f, "objects nest deeper than {MAX_DEPTH} levels (depyf's limit, which keeps decompiling the nested code objects within its stack; CPython's reader allows 2000)"),
            MarshalErrorKind::TooLarge => write!(f, "back references expand beyond the size limit"),
            MarshalErrorKind::Unexpected(m) => write!(f, "{m}"),
            MarshalErrorKind::UnknownMagic(m) => write!(f, "unknown .pyc magic number {m}"),
            MarshalErrorKind::BadHeader(m) => write!(f, "bad .pyc header: {m}"),
        }
    }
}

/// Reads one marshalled object (normally a module code object) from `data`, whose code
/// objects are laid out as `version` writes them.
///
/// Offsets in errors count from the start of `data`. Trailing bytes after the object are
/// ignored, as `marshal.loads` does.
///
/// ```
/// use depyf_bytecode::{marshal, Constant, PythonVersion};
/// // marshal.dumps((1, "a")) under CPython 3.12
/// let data = b"\xa9\x02\xe9\x01\x00\x00\x00\xda\x01a";
/// let c = marshal::loads(data, PythonVersion::PY312).unwrap();
/// assert_eq!(c, Constant::Tuple(vec![Constant::Int(1), Constant::Str("a".into())]));
/// ```
pub fn loads(data: &[u8], version: PythonVersion) -> Result<Constant, MarshalError> {
    loads_at(data, 0, version).map(|(c, _)| c)
}

/// Like [`loads`], but starts reading at `start` (so error offsets are offsets in the
/// whole of `data`) and also returns the offset after the object.
pub fn loads_at(data: &[u8], start: usize, version: PythonVersion) -> Result<(Constant, usize), MarshalError> {
    let mut r = Reader {
        data,
        pos: start.min(data.len()),
        version,
        // About one stored object per 40 bytes of a stdlib .pyc: room for them at
        // once instead of a dozen reallocations of a large vector.
        refs: Vec::with_capacity(data.len().saturating_sub(start) / 48),
        depth: 0,
        budget: (data.len() as u64).saturating_mul(64).saturating_add(1 << 20),
    };
    let c = r.object()?;
    Ok((c, r.pos))
}

struct Reader<'a> {
    data: &'a [u8],
    pos: usize,
    version: PythonVersion,
    /// Stored objects; `None` while reserved but not yet read. Their size estimate
    /// ([`cost`]) is worked out when a reference uses one (most are never used; the
    /// estimate of a code object walks all its constants).
    refs: Vec<Option<Constant>>,
    depth: usize,
    /// Size units that back references may still materialize.
    budget: u64,
}

/// A rough size of `c` in units of "one node or 16 bytes of payload".
fn cost(c: &Constant) -> u64 {
    match c {
        Constant::Str(s) => 1 + s.len() as u64 / 16,
        Constant::BigInt(s) => 1 + s.len() as u64 / 16,
        Constant::Bytes(b) => 1 + b.len() as u64 / 16,
        Constant::Tuple(v) | Constant::FrozenSet(v) => 1 + v.iter().map(cost).sum::<u64>(),
        Constant::Slice(parts) => 1 + parts.iter().map(cost).sum::<u64>(),
        Constant::Code(code) => {
            1 + code.co_consts.iter().map(cost).sum::<u64>()
                + (code.co_code.len() + code.co_linetable.len() + code.co_exceptiontable.len()) as u64 / 16
                + (code.co_names.len() + code.co_localsplusnames.len()) as u64
        }
        Constant::Opaque { repr, .. } => 1 + repr.len() as u64 / 16,
        _ => 1,
    }
}

/// A short description of `c` for an error message: its Python type, with the size of
/// a str, bytes or tuple ("a str of 500 characters"), never its contents (hostile input
/// can make them long and unprintable).
pub(crate) fn describe(c: &Constant) -> String {
    let name = type_name(c);
    match c {
        Constant::Str(s) => format!("a {name} of {} characters", s.chars().count()),
        Constant::Bytes(b) => format!("a {name} of {} bytes", b.len()),
        Constant::Tuple(t) => format!("a {name} of {} items", t.len()),
        _ if name.starts_with(['a', 'e', 'i', 'o', 'u']) => format!("an {name}"),
        _ => format!("a {name}"),
    }
}

fn type_name(c: &Constant) -> &'static str {
    match c {
        Constant::None => "NoneType",
        Constant::Ellipsis => "ellipsis",
        Constant::Bool(_) => "bool",
        Constant::Int(_) | Constant::BigInt(_) => "int",
        Constant::Float(_) => "float",
        Constant::Complex(..) => "complex",
        Constant::Str(_) => "str",
        Constant::Bytes(_) => "bytes",
        Constant::Tuple(_) => "tuple",
        Constant::FrozenSet(_) => "frozenset",
        Constant::Slice(_) => "slice",
        Constant::Code(_) => "code",
        Constant::Opaque { .. } => "object",
    }
}

impl Reader<'_> {
    fn err(&self, offset: usize, kind: MarshalErrorKind) -> MarshalError {
        MarshalError { kind, offset }
    }

    fn take(&mut self, n: usize, what: &str) -> Result<&[u8], MarshalError> {
        if self.data.len() - self.pos < n {
            return Err(self.err(self.pos, MarshalErrorKind::Truncated { expected: format!("{n} bytes of {what}") }));
        }
        let s = &self.data[self.pos..self.pos + n];
        self.pos += n;
        Ok(s)
    }

    fn byte(&mut self, what: &str) -> Result<u8, MarshalError> {
        Ok(self.take(1, what)?[0])
    }

    fn long(&mut self, what: &str) -> Result<i32, MarshalError> {
        let b = self.take(4, what)?;
        Ok(i32::from_le_bytes([b[0], b[1], b[2], b[3]]))
    }

    fn u32_field(&mut self, what: &str) -> Result<u32, MarshalError> {
        let at = self.pos;
        let v = self.long(what)?;
        u32::try_from(v).map_err(|_| self.err(at, MarshalErrorKind::Unexpected(format!("{what} is {v}, expected >= 0"))))
    }

    /// A length prefix (4 bytes), checked against the input left: each element needs at
    /// least `min_elem` bytes.
    fn length(&mut self, what: &str, min_elem: usize) -> Result<usize, MarshalError> {
        let at = self.pos;
        let n = self.long(what)?;
        self.check_len(at, i64::from(n), min_elem)
    }

    fn check_len(&self, at: usize, n: i64, min_elem: usize) -> Result<usize, MarshalError> {
        let left = (self.data.len() - self.pos) as u64;
        if n < 0 || (n as u64).saturating_mul(min_elem as u64) > left {
            return Err(self.err(at, MarshalErrorKind::BadLength(n)));
        }
        Ok(n as usize)
    }

    fn f64(&mut self, what: &str) -> Result<f64, MarshalError> {
        let b = self.take(8, what)?;
        let mut a = [0u8; 8];
        a.copy_from_slice(b);
        Ok(f64::from_le_bytes(a))
    }

    /// An old-style text float: 1-byte length, then ASCII digits.
    fn text_float(&mut self, what: &str) -> Result<f64, MarshalError> {
        let at = self.pos;
        let n = self.byte(what)? as usize;
        let s = self.take(n, what)?;
        let t = std::str::from_utf8(s).unwrap_or("").to_owned();
        parse_py_float(&t).ok_or_else(|| MarshalError { kind: MarshalErrorKind::Unexpected(format!("bad float literal {t:?}")), offset: at })
    }

    fn object(&mut self) -> Result<Constant, MarshalError> {
        if self.depth >= MAX_DEPTH {
            return Err(self.err(self.pos, MarshalErrorKind::TooDeep));
        }
        self.depth += 1;
        let r = self.object_inner();
        self.depth -= 1;
        r
    }

    fn object_inner(&mut self) -> Result<Constant, MarshalError> {
        let at = self.pos;
        let code = self.byte("an object type byte")?;
        let flag = code & FLAG_REF != 0;
        let ty = code & !FLAG_REF;
        // Containers reserve their slot before their items are read (`r_ref_reserve`).
        let slot = if flag && matches!(ty, b'(' | b')' | b'[' | b'{' | b'}' | b'<' | b'>' | b'c' | b':') {
            self.refs.push(None);
            Some(self.refs.len() - 1)
        } else {
            None
        };
        let c = match ty {
            b'0' => return Err(self.err(at, MarshalErrorKind::Unexpected("NULL object outside a dict".into()))),
            b'N' => Constant::None,
            b'F' => Constant::Bool(false),
            b'T' => Constant::Bool(true),
            b'.' => Constant::Ellipsis,
            b'S' => opaque("type", "<class 'StopIteration'>"),
            b'i' => Constant::Int(i64::from(self.long("an int")?)),
            b'I' => {
                let b = self.take(8, "a 64-bit int")?;
                let mut a = [0u8; 8];
                a.copy_from_slice(b);
                Constant::Int(i64::from_le_bytes(a))
            }
            b'l' => self.py_long()?,
            b'g' => Constant::Float(self.f64("a binary float")?),
            b'f' => Constant::Float(self.text_float("a text float")?),
            b'y' => {
                let re = self.f64("the real part of a complex")?;
                let im = self.f64("the imaginary part of a complex")?;
                Constant::Complex(re, im)
            }
            b'x' => {
                let re = self.text_float("the real part of a complex")?;
                let im = self.text_float("the imaginary part of a complex")?;
                Constant::Complex(re, im)
            }
            b's' => {
                let n = self.length("a bytes length", 1)?;
                Constant::Bytes(self.take(n, "bytes")?.to_vec())
            }
            b'u' | b't' => {
                let n = self.length("a str length", 1)?;
                let b = self.take(n, "str data")?;
                str_constant(b)
            }
            b'a' | b'A' => {
                let n = self.length("an ASCII str length", 1)?;
                let b = self.take(n, "ASCII str data")?;
                Constant::Str(ascii_str(b))
            }
            b'z' | b'Z' => {
                let n = self.byte("a short ASCII str length")? as usize;
                let b = self.take(n, "short ASCII str data")?;
                Constant::Str(ascii_str(b))
            }
            b'(' => {
                let n = self.length("a tuple length", 1)?;
                Constant::Tuple(self.items(n)?)
            }
            b')' => {
                let n = self.byte("a small tuple length")? as usize;
                let n = self.check_len(at + 1, n as i64, 1)?;
                Constant::Tuple(self.items(n)?)
            }
            b'[' | b'<' | b'>' | b'{' | b'}' | b':' => self.collection(ty)?,
            b'c' => Constant::Code(std::sync::Arc::new(self.code()?)),
            b'r' => {
                let idx_at = self.pos;
                let idx = self.long("a reference index")? as u32;
                let Some(Some(c)) = self.refs.get(idx as usize) else {
                    return Err(self.err(idx_at, MarshalErrorKind::BadRef(idx)));
                };
                // The walk is no longer than the size it charges (and a charge over the
                // budget ends the read), so it stays within the budget too.
                let size = match c {
                    // The commonest reference (an interned name), without a call.
                    Constant::Str(s) => 1 + s.len() as u64 / 16,
                    _ => cost(c),
                };
                if size > self.budget {
                    return Err(self.err(at, MarshalErrorKind::TooLarge));
                }
                self.budget -= size;
                return Ok(c.clone());
            }
            other => return Err(self.err(at, MarshalErrorKind::UnknownType(other))),
        };
        if flag {
            match slot {
                Some(i) => self.refs[i] = Some(c.clone()),
                None => self.refs.push(Some(c.clone())),
            }
        }
        Ok(c)
    }


    /// Lists, sets, frozensets, dicts, frozendicts and slices (kept out of `object_inner`
    /// to keep its stack frame small).
    #[inline(never)]
    fn collection(&mut self, ty: u8) -> Result<Constant, MarshalError> {
        let at = self.pos - 1;
        let _ = at;
        Ok(match ty {
            b'[' | b'<' | b'>' => {
                let n = self.length("a collection length", 1)?;
                let items = self.items(n)?;
                match ty {
                    b'>' => Constant::FrozenSet(items),
                    b'[' => opaque("list", &format!("[{}]", join_reprs(&items, self.version))),
                    _ if items.is_empty() => opaque("set", "set()"),
                    _ => opaque("set", &format!("{{{}}}", join_reprs(&items, self.version))),
                }
            }
            b'{' | b'}' => {
                let mut parts = Vec::new();
                loop {
                    let k_at = self.pos;
                    if self.data.get(self.pos) == Some(&b'0') {
                        self.pos += 1;
                        break;
                    }
                    if self.pos >= self.data.len() {
                        return Err(self.err(k_at, MarshalErrorKind::Truncated { expected: "a dict key or NULL".into() }));
                    }
                    let k = self.object()?;
                    let v = self.object()?;
                    parts.push(format!("{}: {}", constant_repr(&k, self.version), constant_repr(&v, self.version)));
                }
                let body = format!("{{{}}}", parts.join(", "));
                if ty == b'{' {
                    opaque("dict", &body)
                } else {
                    // TYPE_FROZENDICT, marshal version 6 (CPython 3.15).
                    opaque("frozendict", &format!("frozendict({body})"))
                }
            }
            b':' => {
                let start = self.object()?;
                let stop = self.object()?;
                let step = self.object()?;
                Constant::Slice(Box::new([start, stop, step]))
            }
            other => return Err(self.err(at, MarshalErrorKind::UnknownType(other))),
        })
    }

    fn items(&mut self, n: usize) -> Result<Vec<Constant>, MarshalError> {
        let mut v = Vec::with_capacity(n);
        for _ in 0..n {
            v.push(self.object()?);
        }
        Ok(v)
    }

    /// `TYPE_LONG`: a signed digit count, then 15-bit digits, least significant first.
    #[inline(never)]
    fn py_long(&mut self) -> Result<Constant, MarshalError> {
        let at = self.pos;
        let n = i64::from(self.long("a long digit count")?);
        let count = self.check_len(at, n.abs(), 2)?;
        let mut digits = Vec::with_capacity(count);
        for _ in 0..count {
            let d_at = self.pos;
            let b = self.take(2, "a long digit")?;
            let d = u16::from_le_bytes([b[0], b[1]]);
            if d >= 1 << 15 {
                return Err(self.err(d_at, MarshalErrorKind::Unexpected(format!("long digit {d} out of range"))));
            }
            digits.push(d);
        }
        Ok(long_from_digits(&digits, n < 0))
    }

    fn str_field(&mut self, what: &str) -> Result<String, MarshalError> {
        let at = self.pos;
        match self.object()? {
            Constant::Str(s) => Ok(String::from(&*s)),
            other => Err(self.unexpected(at, what, &other, "a str")),
        }
    }

    fn bytes_field(&mut self, what: &str) -> Result<Vec<u8>, MarshalError> {
        let at = self.pos;
        match self.object()? {
            Constant::Bytes(b) => Ok(b),
            other => Err(self.unexpected(at, what, &other, "a bytes object")),
        }
    }

    fn tuple_field(&mut self, what: &str) -> Result<Vec<Constant>, MarshalError> {
        let at = self.pos;
        match self.object()? {
            Constant::Tuple(t) => Ok(t),
            other => Err(self.unexpected(at, what, &other, "a tuple")),
        }
    }

    /// A tuple of str, each name shared with the reader's stored objects (interned
    /// names come back through references: no copy of the text).
    fn names_field(&mut self, what: &str) -> Result<Vec<std::sync::Arc<str>>, MarshalError> {
        let at = self.pos;
        // A tuple that is not stored for back references (most are not: only the code
        // object holds it) is read straight into the names, without the `Constant`s
        // of a tuple in between. Same depth check, reads and errors as `object`.
        if let Some(&ty @ (b'(' | b')')) = self.data.get(at) {
            if self.depth >= MAX_DEPTH {
                return Err(self.err(at, MarshalErrorKind::TooDeep));
            }
            self.depth += 1;
            let r = self.names_tuple(what, at, ty);
            self.depth -= 1;
            return r;
        }
        let t = self.tuple_field(what)?;
        t.into_iter()
            .map(|c| match c {
                Constant::Str(s) => Ok(s),
                other => Err(self.unexpected(at, what, &other, "a tuple of str")),
            })
            .collect()
    }

    /// The items of the tuple of type byte `ty` (`(` or `)`, not stored for back
    /// references) at `at`, each a str; else the error `names_field` gives for the first
    /// item that is not one, once the whole tuple is read.
    fn names_tuple(&mut self, what: &str, at: usize, ty: u8) -> Result<Vec<std::sync::Arc<str>>, MarshalError> {
        self.pos += 1;
        let n = if ty == b'(' {
            self.length("a tuple length", 1)?
        } else {
            let n = self.byte("a small tuple length")? as usize;
            self.check_len(at + 1, n as i64, 1)?
        };
        let mut names = Vec::with_capacity(n);
        let mut first_bad = None;
        for _ in 0..n {
            match self.object()? {
                Constant::Str(s) => names.push(s),
                other => {
                    first_bad.get_or_insert(other);
                }
            }
        }
        match first_bad {
            None => Ok(names),
            Some(other) => Err(self.unexpected(at, what, &other, "a tuple of str")),
        }
    }

    fn unexpected(&self, at: usize, what: &str, got: &Constant, want: &str) -> MarshalError {
        self.err(at, MarshalErrorKind::Unexpected(format!("{what} is a {}, expected {want}", type_name(got))))
    }

    /// `TYPE_CODE` in the layout of `self.version` (CPython `Python/marshal.c`, the
    /// `TYPE_CODE` case of `r_object`).
    #[inline(never)]
    fn code(&mut self) -> Result<CodeObject, MarshalError> {
        let v = self.version;
        let co_argcount = self.u32_field("co_argcount")?;
        let co_posonlyargcount = self.u32_field("co_posonlyargcount")?;
        let co_kwonlyargcount = self.u32_field("co_kwonlyargcount")?;
        if v < PythonVersion::PY311 {
            let _nlocals = self.u32_field("co_nlocals")?;
        }
        let co_stacksize = self.u32_field("co_stacksize")?;
        let co_flags = self.long("co_flags")? as u32;
        let co_code = self.bytes_field("co_code")?;
        let co_consts = self.tuple_field("co_consts")?;
        let co_names = self.names_field("co_names")?;
        let (co_localsplusnames, co_localspluskinds);
        if v < PythonVersion::PY311 {
            let varnames = self.names_field("co_varnames")?;
            let freevars = self.names_field("co_freevars")?;
            let cellvars = self.names_field("co_cellvars")?;
            let mut kinds = vec![local_kind::LOCAL; varnames.len()];
            kinds.extend(std::iter::repeat_n(local_kind::CELL, cellvars.len()));
            kinds.extend(std::iter::repeat_n(local_kind::FREE, freevars.len()));
            let mut names = varnames;
            names.extend(cellvars);
            names.extend(freevars);
            co_localsplusnames = names;
            co_localspluskinds = kinds;
        } else {
            let at = self.pos;
            co_localsplusnames = self.names_field("co_localsplusnames")?;
            co_localspluskinds = self.bytes_field("co_localspluskinds")?;
            if co_localspluskinds.len() != co_localsplusnames.len() {
                return Err(self.err(
                    at,
                    MarshalErrorKind::Unexpected(format!(
                        "{} co_localsplusnames but {} co_localspluskinds",
                        co_localsplusnames.len(),
                        co_localspluskinds.len()
                    )),
                ));
            }
        }
        let co_filename = self.str_field("co_filename")?;
        let co_name = self.str_field("co_name")?;
        let co_qualname = if v >= PythonVersion::PY311 { self.str_field("co_qualname")? } else { co_name.clone() };
        let co_firstlineno = self.u32_field("co_firstlineno")?;
        let co_linetable = self.bytes_field("co_linetable")?;
        let co_exceptiontable = if v >= PythonVersion::PY311 { self.bytes_field("co_exceptiontable")? } else { Vec::new() };
        Ok(CodeObject {
            version: v,
            co_argcount,
            co_posonlyargcount,
            co_kwonlyargcount,
            co_stacksize,
            co_flags,
            co_code,
            co_consts,
            co_names,
            co_localsplusnames,
            co_localspluskinds,
            co_filename,
            co_name,
            co_qualname,
            co_firstlineno,
            co_linetable,
            co_exceptiontable,
        })
    }
}

fn opaque(type_name: &str, repr: &str) -> Constant {
    Constant::Opaque { index: 0, type_name: type_name.into(), repr: repr.into() }
}

fn join_reprs(items: &[Constant], v: PythonVersion) -> String {
    items.iter().map(|c| constant_repr(c, v)).collect::<Vec<_>>().join(", ")
}

/// The str of marshal's ASCII types: copied as is (ASCII is UTF-8); a byte above
/// 127, which CPython never writes there, is read as Latin-1.
fn ascii_str(b: &[u8]) -> std::sync::Arc<str> {
    match std::str::from_utf8(b) {
        Ok(s) if b.is_ascii() => s.into(),
        _ => b.iter().map(|&c| char::from(c)).collect::<String>().into(),
    }
}

/// A str constant from marshal's UTF-8 (`surrogatepass`) bytes. A Rust `String`
/// cannot hold lone surrogates, so such a str becomes `Constant::Opaque` with type
/// `str` whose `repr` is the Python literal (`'\ud800'`), which printers use as is.
fn str_constant(b: &[u8]) -> Constant {
    if let Ok(s) = std::str::from_utf8(b) {
        return Constant::Str(s.into());
    }
    let mut lit = String::from("'");
    let mut i = 0;
    while i < b.len() {
        // A surrogate code point in generalized UTF-8: ED A0..BF 80..BF.
        if b[i] == 0xED && i + 2 < b.len() && (0xA0..=0xBF).contains(&b[i + 1]) && (0x80..=0xBF).contains(&b[i + 2]) {
            let cp = 0xD000 | (u32::from(b[i + 1] & 0x3F) << 6) | u32::from(b[i + 2] & 0x3F);
            lit.push_str(&format!("\\u{cp:04x}"));
            i += 3;
            continue;
        }
        let len = match b[i] {
            0x00..=0x7F => 1,
            0xC0..=0xDF => 2,
            0xE0..=0xEF => 3,
            _ => 4,
        };
        let chunk = &b[i..(i + len).min(b.len())];
        match std::str::from_utf8(chunk) {
            Ok(t) => {
                for c in t.chars() {
                    match c {
                        '\\' => lit.push_str("\\\\"),
                        '\'' => lit.push_str("\\'"),
                        '\n' => lit.push_str("\\n"),
                        '\r' => lit.push_str("\\r"),
                        '\t' => lit.push_str("\\t"),
                        c if (c as u32) < 0x20 || c as u32 == 0x7f => lit.push_str(&format!("\\x{:02x}", c as u32)),
                        c => lit.push(c),
                    }
                }
            }
            Err(_) => lit.push_str(&format!("\\x{:02x}", b[i])),
        }
        i += chunk.len().max(1);
    }
    lit.push('\'');
    Constant::Opaque { index: 0, type_name: "str".into(), repr: lit }
}

/// Parses the text of an old-style marshal float (`repr(float)` text, `inf`, `nan`).
fn parse_py_float(t: &str) -> Option<f64> {
    match t {
        "inf" | "+inf" => Some(f64::INFINITY),
        "-inf" => Some(f64::NEG_INFINITY),
        "nan" | "+nan" | "-nan" => Some(f64::NAN),
        _ => t.parse().ok(),
    }
}

/// The Python hex literal (`0x...`, `-0x...`) of the int with base-2**15 digits
/// `digits`, least significant first: four bits per character, in linear time.
fn hex_from_digits(digits: &[u16], negative: bool) -> String {
    let mut nibbles: Vec<u8> = Vec::with_capacity(digits.len() * 15 / 4 + 1);
    let (mut acc, mut bits) = (0u32, 0u32);
    for &d in digits {
        acc |= u32::from(d & 0x7fff) << bits;
        bits += 15;
        while bits >= 4 {
            nibbles.push((acc & 0xf) as u8);
            acc >>= 4;
            bits -= 4;
        }
    }
    if bits > 0 {
        nibbles.push((acc & 0xf) as u8);
    }
    while nibbles.len() > 1 && nibbles.last() == Some(&0) {
        nibbles.pop();
    }
    let mut s = String::with_capacity(nibbles.len() + 3);
    if negative {
        s.push('-');
    }
    s.push_str("0x");
    s.extend(nibbles.iter().rev().map(|&n| char::from_digit(u32::from(n), 16).expect("a nibble")));
    s
}

/// Builds an int constant from base-2**15 digits, least significant first (see
/// [`Constant::BigInt`] for when it is written in hex).
fn long_from_digits(digits: &[u16], negative: bool) -> Constant {
    let mut mag: u128 = 0;
    let mut fits = true;
    for &d in digits.iter().rev() {
        if mag >> 100 != 0 {
            fits = false;
            break;
        }
        mag = (mag << 15) | u128::from(d);
    }
    if fits {
        let v = if negative { -(mag as i128) } else { mag as i128 };
        if let Ok(small) = i64::try_from(v) {
            return Constant::Int(small);
        }
    }
    if digits.len() as u64 * 15 > crate::code::MAX_DECIMAL_BITS {
        return Constant::BigInt(hex_from_digits(digits, negative));
    }
    // Schoolbook conversion: divide the digit vector by 10**4 repeatedly.
    let mut work: Vec<u32> = digits.iter().rev().map(|&d| u32::from(d)).collect();
    let mut chunks = Vec::new();
    while work.iter().any(|&d| d != 0) {
        let mut rem = 0u32;
        for d in work.iter_mut() {
            let cur = (rem << 15) | *d;
            *d = cur / 10_000;
            rem = cur % 10_000;
        }
        chunks.push(rem);
        let first_nonzero = work.iter().position(|&d| d != 0).unwrap_or(work.len());
        work.drain(..first_nonzero);
    }
    let mut s = String::new();
    if negative {
        s.push('-');
    }
    match chunks.split_last() {
        None => s.push('0'),
        Some((top, rest)) => {
            s.push_str(&top.to_string());
            for c in rest.iter().rev() {
                s.push_str(&format!("{c:04}"));
            }
        }
    }
    Constant::BigInt(s)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn load(b: &[u8]) -> Result<Constant, MarshalError> {
        loads(b, PythonVersion::PY312)
    }

    #[test]
    fn scalars() {
        assert_eq!(load(b"N").unwrap(), Constant::None);
        assert_eq!(load(b"T").unwrap(), Constant::Bool(true));
        assert_eq!(load(b"\xe9\xff\xff\xff\xff").unwrap(), Constant::Int(-1));
        assert_eq!(load(b"g\x00\x00\x00\x00\x00\x00\xf8?").unwrap(), Constant::Float(1.5));
        assert_eq!(load(b"s\x02\x00\x00\x00ab").unwrap(), Constant::Bytes(b"ab".to_vec()));
        assert_eq!(load(b"u\x02\x00\x00\x00\xc3\xa9").unwrap(), Constant::Str("é".into()));
        assert_eq!(load(b"z\x02ab").unwrap(), Constant::Str("ab".into()));
        assert_eq!(load(b"a\x02\x00\x00\x00ab").unwrap(), Constant::Str("ab".into()));
        // Not written by CPython: a byte above 127 in an ASCII str reads as Latin-1.
        assert_eq!(load(b"z\x02a\xe9").unwrap(), Constant::Str("aé".into()));
    }

    #[test]
    fn big_ints() {
        // marshal.dumps(2**64) == b'l\x05\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x10\x00'
        assert_eq!(
            load(b"l\x05\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x10\x00").unwrap(),
            Constant::BigInt("18446744073709551616".into())
        );
        // -(2**40): fits i64 even though marshalled as TYPE_LONG.
        assert_eq!(load(b"l\xfd\xff\xff\xff\x00\x00\x00\x00\x00\x04").unwrap(), Constant::Int(-(1 << 40)));
        // 10**20 has an inner zero chunk.
        let c = long_from_digits(&[0, 0, 0, 0, 0], false);
        assert_eq!(c, Constant::Int(0));
        let mut digits = Vec::new();
        let mut n: u128 = 10u128.pow(20);
        while n > 0 {
            digits.push((n & 0x7fff) as u16);
            n >>= 15;
        }
        assert_eq!(long_from_digits(&digits, true), Constant::BigInt("-100000000000000000000".into()));
        // 2**14280 - 1 (952 digits of 15 bits, 4,299 decimal digits) is the widest
        // written in decimal; 2**14280 (953 digits) is written in hex.
        let widest = long_from_digits(&[0x7fff; 952], false);
        assert!(matches!(&widest, Constant::BigInt(s) if s.len() == 4299 && s.ends_with("8175")), "{widest:?}");
        let mut wider = vec![0u16; 953];
        wider[952] = 1;
        let expected = format!("-0x1{}", "0".repeat(14280 / 4));
        assert_eq!(long_from_digits(&wider, true), Constant::BigInt(expected));
        // 15-bit digits straddle the hex digits: 0x7fff + 0x7fff * 2**15 = 0x3fffffff,
        // and 3 * 2**14985 starts with 6 (14985 is 1 more than a multiple of 4).
        let mut odd = vec![0u16; 1000];
        odd[0] = 0x7fff;
        odd[1] = 0x7fff;
        odd[999] = 0x3;
        let Constant::BigInt(s) = long_from_digits(&odd, false) else { panic!("a big int") };
        assert!(s.starts_with("0x6") && s.ends_with("3fffffff") && s.len() == 2 + (999 * 15) / 4 + 1, "{}", &s[s.len() - 12..]);
    }

    #[test]
    fn refs_and_small_tuples() {
        // marshal.dumps(("ab", "ab")) with the second "ab" a back reference.
        let data = b"\xa9\x02\xda\x02abr\x01\x00\x00\x00";
        assert_eq!(load(data).unwrap(), Constant::Tuple(vec![Constant::Str("ab".into()), Constant::Str("ab".into())]));
        let e = load(b"\xa9\x02\xda\x02abr\x07\x00\x00\x00").unwrap_err();
        assert_eq!(e.kind, MarshalErrorKind::BadRef(7));
        assert_eq!(e.offset, 7);
        // A tuple referring to itself while it is being read.
        let e = load(b"\xa9\x01r\x00\x00\x00\x00").unwrap_err();
        assert_eq!(e.kind, MarshalErrorKind::BadRef(0));
    }

    #[test]
    fn hostile_lengths() {
        let e = load(b"(\xff\xff\xff\x7f").unwrap_err();
        assert_eq!(e.kind, MarshalErrorKind::BadLength(0x7fff_ffff));
        assert_eq!(e.offset, 1);
        let e = load(b"s\x05\x00\x00\x00ab").unwrap_err();
        assert!(matches!(e.kind, MarshalErrorKind::BadLength(5)));
        let e = load(b"l\x00\x00\x00\x80").unwrap_err();
        assert!(matches!(e.kind, MarshalErrorKind::BadLength(_)), "{e}");
        let e = load(b"").unwrap_err();
        assert!(e.to_string().contains("expected 1 bytes of an object type byte"), "{e}");
        assert_eq!(load(b"\x01").unwrap_err().kind, MarshalErrorKind::UnknownType(1));
    }

    #[test]
    fn depth_is_bounded() {
        let data = [b')', 1].repeat(10_000);
        assert_eq!(load(&data).unwrap_err().kind, MarshalErrorKind::TooDeep);
    }

    #[test]
    fn reference_bombs_are_bounded() {
        // t0 = ("x",); t(i+1) = (t(i), t(i)) via references: 2**60 leaves if expanded.
        let mut data = Vec::new();
        let levels = 60;
        for _ in 0..levels {
            data.extend_from_slice(b"\xa9\x02");
        }
        data.extend_from_slice(b"\xa9\x01\xda\x01x");
        // innermost pair's second element, then each level's second element.
        for i in (0..levels).rev() {
            data.push(b'r');
            data.extend_from_slice(&(i as u32 + 1).to_le_bytes());
        }
        let e = load(&data).unwrap_err();
        assert!(matches!(e.kind, MarshalErrorKind::TooLarge | MarshalErrorKind::BadRef(_)), "{e}");
    }

    #[test]
    fn containers_become_opaque_or_frozenset() {
        assert_eq!(load(b">\x01\x00\x00\x00\xe9\x01\x00\x00\x00").unwrap(), Constant::FrozenSet(vec![Constant::Int(1)]));
        match load(b"{\xe9\x01\x00\x00\x00N0").unwrap() {
            Constant::Opaque { type_name, repr, .. } => {
                assert_eq!(type_name, "dict");
                assert_eq!(repr, "{1: None}");
            }
            other => panic!("{other:?}"),
        }
    }
}
