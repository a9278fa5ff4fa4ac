//! Recovery of expressions and definitions: functions, lambdas, closures,
//! comprehensions, classes, f-strings, imports, asserts, dict/set building.
//!
//! Values that only a later statement can explain are pushed as *markers*: names that
//! are no Python identifiers (`<build_class>`, `<AssertionError>`, ...) or an
//! [`Expr::Def`] for a function or class object. [`crate::definitions::bind`] turns
//! them into `def`/`class`/`assert` statements, and fails the code object if any is
//! left, so a marker never reaches printed source.

use depyf_bytecode::{local_kind, CodeObject, Constant};
use depyf_ir::{CallLayout, IrInstr, Op};
use depyf_source::{Expr, FPart, FStringSyntax, Stmt};

use super::{BlockState, SVal};
use crate::definitions::{BUILD_CLASS, LOCALS, SETUP_ANNOTATIONS};
use crate::idioms::ASSERTION_ERROR;
use crate::DecompileError;

/// `CONVERT_VALUE` (3.13+) results wait for their `FORMAT_*` as a call of this marker.
const CONVERTED: [&str; 4] = ["", "<convert !s>", "<convert !r>", "<convert !a>"];

fn conversion_char(c: u32) -> Option<char> {
    match c {
        1 => Some('s'),
        2 => Some('r'),
        3 => Some('a'),
        _ => None,
    }
}

/// The pieces of a format spec or of a `BUILD_STRING` operand.
fn string_parts(e: Expr) -> Option<Vec<FPart>> {
    match e {
        Expr::Const(Constant::Str(s)) => Some(if s.is_empty() { vec![] } else { vec![FPart::Lit(String::from(&*s))] }),
        Expr::FString(parts, _) => Some(parts),
        _ => None,
    }
}

/// What `BUILD_INTERPOLATION` leaves for `BUILD_TEMPLATE`:
/// `<interpolation>(value, 'expression text', conversion, spec or None)`.
const INTERPOLATION: &str = "<interpolation>";

/// The template string of `BUILD_TEMPLATE` from its two operands: a constant tuple of
/// literal pieces, one more than the interpolations (CPython 3.14
/// `Python/codegen.c`, `codegen_template_str`). Each interpolation is printed as the
/// source text it keeps, which must be its value's expression as recovered (the same
/// tokens up to spacing and quote style), so that the printed template computes what
/// the code does.
fn template(strings: Expr, interpolations: Expr) -> Result<Expr, &'static str> {
    let interpolations = tuple_items(interpolations).ok_or("a template string whose interpolations are not a tuple")?;
    let Expr::Const(Constant::Tuple(strings)) = strings else { return Err("a template string whose pieces are not a constant tuple") };
    if strings.len() != interpolations.len() + 1 {
        return Err("a template string of an unknown shape");
    }
    let mut parts = Vec::new();
    let mut texts = Vec::new();
    let mut interpolations = interpolations.into_iter();
    for s in strings {
        let Constant::Str(s) = s else { return Err("a template string whose pieces are not strings") };
        if !s.is_empty() {
            parts.push(FPart::Lit(String::from(&*s)));
        }
        let Some(it) = interpolations.next() else { break };
        let Expr::Call(f, args, kws) = it else { return Err("a template string whose interpolations are not built in place") };
        let Ok([value, Expr::Const(Constant::Str(text)), Expr::Const(Constant::Int(conv)), spec]) = <[Expr; 4]>::try_from(args) else {
            return Err("a template string whose interpolations are not built in place");
        };
        if !f.is_name(INTERPOLATION) || !kws.is_empty() {
            return Err("a template string whose interpolations are not built in place");
        }
        if squeeze(&text) != squeeze(&depyf_source::print_expr(&value)) {
            return Err("an interpolation whose expression text does not match its code");
        }
        let spec = match spec {
            Expr::FString(p, _) => Some(p),
            _ => None,
        };
        let conv = u32::try_from(conv).ok().and_then(conversion_char);
        parts.push(FPart::Field(Box::new(value), conv, spec));
        texts.push(String::from(&*text));
    }
    let t = Expr::TString(parts, texts);
    match &t {
        Expr::TString(p, x) if depyf_source::tstring(p, x).is_some() => Ok(t),
        _ => Err("a template string whose interpolation text needs a line break"),
    }
}

/// Source text compared up to spacing and quote style: whitespace outside string
/// literals is dropped except one space between two word characters, and string
/// delimiters become `'`.
fn squeeze(s: &str) -> String {
    let word = |c: char| c.is_alphanumeric() || c == '_';
    let mut out = String::with_capacity(s.len());
    let mut quote: Option<char> = None;
    let mut space = false;
    let mut chars = s.chars();
    while let Some(c) = chars.next() {
        if let Some(q) = quote {
            if c == '\\' {
                out.push(c);
                out.extend(chars.next());
            } else if c == q {
                out.push('\'');
                quote = None;
            } else {
                out.push(c);
            }
            continue;
        }
        if c.is_whitespace() {
            space = true;
            continue;
        }
        if space && out.chars().last().is_some_and(word) && word(c) {
            out.push(' ');
        }
        space = false;
        if c == '\'' || c == '"' {
            quote = Some(c);
            out.push('\'');
        } else {
            out.push(c);
        }
    }
    out
}

/// Appends `more` to `parts`, merging adjacent literal text.
fn extend_parts(parts: &mut Vec<FPart>, more: Vec<FPart>) {
    for p in more {
        match (parts.last_mut(), p) {
            (Some(FPart::Lit(a)), FPart::Lit(b)) => a.push_str(&b),
            (_, p) => parts.push(p),
        }
    }
}

/// The items of a built or constant tuple.
fn tuple_items(e: Expr) -> Option<Vec<Expr>> {
    match e {
        Expr::Tuple(items) => Some(items),
        Expr::Const(Constant::Tuple(items)) => Some(items.into_iter().map(Expr::Const).collect()),
        _ => None,
    }
}

/// The body of a stub for `code`, which failed with `e` (`Options::stub_failures`):
/// `raise RuntimeError('depyf could not decompile <qualname>: <reason>')`. Records the
/// failure.
fn stub_body(code: &CodeObject, e: &DecompileError, failures: &std::cell::RefCell<Vec<crate::Failure>>) -> Vec<Stmt> {
    let reason = e.to_string();
    let msg = format!("depyf could not decompile {}: {reason}", code.co_qualname);
    failures.borrow_mut().push(crate::Failure { qualname: code.co_qualname.clone(), reason });
    let exc = Expr::Call(Box::new(Expr::name("RuntimeError")), vec![Expr::Const(Constant::Str(msg.into()))], vec![]);
    vec![Stmt::Raise(Some(exc), None)]
}

impl BlockState<'_, '_> {
    /// Interprets one op of this module's kind; returns how many following ops it
    /// consumed (as `step` does).
    pub(super) fn step_expr(&mut self, op: &Op, next: &[IrInstr]) -> Result<usize, DecompileError> {
        match *op {
            Op::LoadSmallInt(v) => self.push(Expr::int(i64::from(v))),
            Op::LoadCommonConstant(c) => self.push(match c {
                "None" => Expr::Const(Constant::None),
                "True" => Expr::Const(Constant::Bool(true)),
                "False" => Expr::Const(Constant::Bool(false)),
                "''" => Expr::Const(Constant::Str("".into())),
                "-1" => Expr::int(-1),
                builtin => Expr::name(builtin),
            }),
            Op::MakeFunction { flags, qualname } => return self.make_function(flags, qualname, next),
            Op::SetFunctionAttribute(flag) => {
                let f = self.pop_expr()?;
                let attr = self.pop_expr()?;
                let f = self.set_function_attribute(f, flag, attr)?;
                self.push(f);
            }
            Op::ConvertValue(c) => {
                let v = self.pop_expr()?;
                let marker = CONVERTED.get(c as usize).filter(|m| !m.is_empty()).ok_or_else(|| self.err("unknown conversion"))?;
                self.push(Expr::Call(Box::new(Expr::name(marker)), vec![v], vec![]));
            }
            Op::FormatValue { conversion, with_spec } => {
                let spec = if with_spec {
                    let s = self.pop_expr()?;
                    Some(string_parts(s).ok_or_else(|| self.err("a format spec that is not a string"))?)
                } else {
                    None
                };
                let mut value = self.pop_expr()?;
                let mut conv = conversion_char(conversion);
                if let Expr::Call(f, args, kws) = &value {
                    if let (Expr::Name(m), [_], []) = (&**f, args.as_slice(), kws.as_slice()) {
                        if let Some(c) = CONVERTED.iter().position(|x| x == m).filter(|&c| c > 0) {
                            conv = conversion_char(c as u32);
                            value = args[0].clone();
                        }
                    }
                }
                let fs = Expr::FString(vec![FPart::Field(Box::new(value), conv, spec)], self.fstring_syntax());
                self.check_fstring(&fs)?;
                self.push(fs);
            }
            Op::BuildString(n) => {
                let pieces = self.pop_n(n as usize)?;
                let mut parts = Vec::new();
                for p in pieces {
                    let more = string_parts(p).ok_or_else(|| self.err("BUILD_STRING of a value that is not a string"))?;
                    extend_parts(&mut parts, more);
                }
                let fs = match parts.as_slice() {
                    [] => Expr::Const(Constant::Str("".into())),
                    _ => Expr::FString(parts, self.fstring_syntax()),
                };
                self.check_fstring(&fs)?;
                self.push(fs);
            }
            Op::BuildInterpolation { conversion, with_spec } => {
                let spec = if with_spec {
                    let s = self.pop_expr()?;
                    Expr::FString(string_parts(s).ok_or_else(|| self.err("an interpolation whose format spec is not a string"))?, FStringSyntax::Pep701)
                } else {
                    Expr::Const(Constant::None)
                };
                let text = self.pop_expr()?;
                let value = self.pop_expr()?;
                if !matches!(text, Expr::Const(Constant::Str(_))) || conversion > 3 {
                    return Err(self.err("an interpolation of an unknown shape"));
                }
                self.push(Expr::Call(Box::new(Expr::name(INTERPOLATION)), vec![value, text, Expr::int(i64::from(conversion)), spec], vec![]));
            }
            Op::BuildTemplate => {
                let interpolations = self.pop_expr()?;
                let strings = self.pop_expr()?;
                let t = template(strings, interpolations).map_err(|m| self.err(m))?;
                self.push(t);
            }
            Op::SetAdd(i) | Op::SetUpdate(i) | Op::DictUpdate(i, _) => {
                let v = self.pop_expr()?;
                let pos = self.container_at(i)?;
                if i == 1 {
                    match (&mut self.stack[pos], op) {
                        (SVal::Expr(Expr::Set(items)), Op::SetAdd(_)) => {
                            items.push(v);
                            return Ok(0);
                        }
                        (SVal::Expr(Expr::Set(items)), Op::SetUpdate(_)) => {
                            // `{1, 2, 3}`: the compiler adds a constant frozenset to an
                            // empty set.
                            match v {
                                Expr::Const(Constant::FrozenSet(cs)) if items.is_empty() && cs.len() >= 3 => {
                                    items.extend(cs.into_iter().map(Expr::Const));
                                }
                                v => items.push(Expr::Starred(Box::new(v))),
                            }
                            return Ok(0);
                        }
                        (SVal::Expr(Expr::Dict(items)), Op::DictUpdate(..)) => {
                            items.push((None, v));
                            return Ok(0);
                        }
                        _ => {}
                    }
                }
                if !matches!(op, Op::SetAdd(_)) {
                    return Err(self.err("an update of a set or dict that is not being built"));
                }
                // A comprehension's set, below the loop's iterator.
                self.spill_upto(self.stack.len());
                let SVal::Expr(set) = self.stack[pos].clone() else { return Err(self.err("SET_ADD to a NULL marker")) };
                let call = Expr::Call(Box::new(Expr::Attribute(Box::new(set), "add".into())), vec![v], vec![]);
                self.emit(Stmt::Expr(call));
            }
            Op::MapAdd(i) => {
                let v = self.pop_expr()?;
                let k = self.pop_expr()?;
                let pos = self.container_at(i)?;
                if i == 1 {
                    if let SVal::Expr(Expr::Dict(items)) = &mut self.stack[pos] {
                        items.push((Some(k), v));
                        return Ok(0);
                    }
                }
                // A comprehension's dict: `d[k] = v` (the pattern `definitions` reads).
                self.spill_upto(self.stack.len());
                let SVal::Expr(d) = self.stack[pos].clone() else { return Err(self.err("MAP_ADD to a NULL marker")) };
                self.stmts.push(Stmt::Assign(vec![Expr::Subscript(Box::new(d), Box::new(k))], v));
            }
            Op::UnpackEx(before, after) => {
                let v = self.pop_expr()?;
                let (before, n) = (before as usize, (before + 1 + after) as usize);
                let targets: Option<Vec<Expr>> = next.iter().take(n).map(|i| self.simple_store(&i.op)).collect();
                let star = |mut t: Vec<Expr>| {
                    let s = std::mem::replace(&mut t[before], Expr::name(""));
                    t[before] = Expr::Starred(Box::new(s));
                    Expr::Tuple(t)
                };
                if let Some(targets) = targets.filter(|t| t.len() == n) {
                    for i in next.iter().take(n) {
                        self.note_store(&i.op);
                    }
                    self.emit(Stmt::Assign(vec![star(targets)], v));
                    return Ok(n);
                }
                let temps: Vec<String> = (0..n).map(|_| self.ctx.fresh_temp()).collect();
                self.emit(Stmt::Assign(vec![star(temps.iter().map(|t| Expr::name(t)).collect())], v));
                for t in temps.iter().rev() {
                    self.push(Expr::name(t));
                }
            }
            Op::ImportName(i) => return self.import(i, next),
            Op::LazyImportName(i) => {
                let used = self.import(i, next)?;
                match self.stmts.pop() {
                    Some(s @ (Stmt::Import(..) | Stmt::ImportFrom(..))) if !matches!(&s, Stmt::ImportFrom(_, names, _) if names.iter().any(|(n, _)| n == "*")) => {
                        self.stmts.push(Stmt::Lazy(Box::new(s)));
                    }
                    _ => return Err(self.err("a lazy import of an unknown shape")),
                }
                return Ok(used);
            }
            Op::ImportFrom(_) | Op::ImportStar => return Err(self.err("an import that is not a whole import statement")),
            Op::LoadBuildClass => self.push(Expr::name(BUILD_CLASS)),
            Op::LoadAssertionError => self.push(Expr::name(ASSERTION_ERROR)),
            Op::SetupAnnotations => self.emit(Stmt::Expr(Expr::name(SETUP_ANNOTATIONS))),
            Op::LoadLocals => self.push(Expr::name(LOCALS)),
            Op::LoadFromDictOr(i, deref) => {
                let m = self.pop_expr()?;
                if !m.is_name(LOCALS) && !(m.is_name("__classdict__") && self.ctx.naming.class_annotate) {
                    return Err(self.err("a name looked up in a mapping other than the class namespace"));
                }
                let n = if deref { self.ctx.local_name(i) } else { self.ctx.name(i) };
                self.push(Expr::Name(n.into()));
            }
            Op::LoadSuperAttr { name, method, two_args } => {
                let self_arg = self.pop_expr()?;
                let class = self.pop_expr()?;
                let sup = self.pop_expr()?;
                if !sup.is_name("super") {
                    return Err(self.err("LOAD_SUPER_ATTR of a callable that is not the global `super`"));
                }
                // Zero arguments: the compiler loads the `__class__` cell and the first
                // parameter itself; two arguments: the written ones, in order.
                let args = if two_args {
                    vec![class, self_arg]
                } else if class.is_name("__class__") {
                    vec![]
                } else {
                    return Err(self.err("LOAD_SUPER_ATTR that is not a zero-argument super()"));
                };
                let attr = Expr::Attribute(Box::new(Expr::Call(Box::new(sup), args, vec![])), self.ctx.name(name));
                match method {
                    None => self.push(attr),
                    Some(CallLayout::NullSecond) => {
                        self.push(attr);
                        self.stack.push(SVal::Null);
                    }
                    Some(_) => {
                        self.stack.push(SVal::Null);
                        self.push(attr);
                    }
                }
            }
            _ => return Err(self.err("not supported by the decompiler yet")),
        }
        Ok(0)
    }

    /// The f-string rules of the code's version: PEP 701 (fields may reuse the quote and
    /// hold backslashes) from CPython 3.12 on, whose `Parser/lexer/lexer.c` tokenizes
    /// fields; PEP 498 before. The one place that chooses them for recovered f-strings.
    fn fstring_syntax(&self) -> FStringSyntax {
        if self.ctx.code.version >= depyf_bytecode::PythonVersion::PY312 {
            FStringSyntax::Pep701
        } else {
            FStringSyntax::Pep498
        }
    }

    fn check_fstring(&self, e: &Expr) -> Result<(), DecompileError> {
        if let Expr::FString(parts, syntax) = e {
            // CPython 3.11 compiles `'%s' % (x,)` into an f-string, which
            // `definitions::bind` writes back in the `%` form where the f-string
            // cannot be written.
            let percent = self.ctx.code.version == depyf_bytecode::PythonVersion::PY311 && crate::definitions::percent_format(parts).is_some();
            if !percent && !depyf_source::fstring_fits(parts, *syntax) {
                return Err(self.err(match syntax {
                    FStringSyntax::Pep498 => "an f-string field that needs a backslash, '#' or every kind of quote (before CPython 3.12)",
                    FStringSyntax::Pep701 => "an f-string field that needs a line break",
                }));
            }
        }
        Ok(())
    }

    /// Stack position of the container of a `*_ADD`/`*_UPDATE` with oparg `i` (after
    /// the operands were popped).
    fn container_at(&self, i: u32) -> Result<usize, DecompileError> {
        let i = i as usize;
        if i == 0 || i > self.stack.len() {
            return Err(self.err("stack underflow"));
        }
        Ok(self.stack.len() - i)
    }

    /// The target of a plain store to a variable.
    fn simple_store(&self, op: &Op) -> Option<Expr> {
        match *op {
            Op::StoreFast(x) | Op::StoreDeref(x) => Some(Expr::Name(self.ctx.local_name(x))),
            Op::StoreName(x) | Op::StoreGlobal(x) => Some(Expr::Name(self.ctx.name(x))),
            _ => None,
        }
    }

    /// Records the `global`/`nonlocal` facts of a store consumed here.
    fn note_store(&mut self, op: &Op) {
        match *op {
            Op::StoreGlobal(x) => {
                let n = self.ctx.name(x);
                self.ctx.globals_stored.insert(n.to_string());
            }
            Op::StoreDeref(x) if self.ctx.code.co_localspluskinds[x] & local_kind::FREE != 0 => {
                let n = self.ctx.local_name(x);
                self.ctx.nonlocals_stored.insert(n.to_string());
            }
            _ => {}
        }
    }

    /// `import a.b.c`, `import a.b as c`, `from .m import x as y, z`, `from m import *`.
    fn import(&mut self, i: usize, next: &[IrInstr]) -> Result<usize, DecompileError> {
        let fromlist = self.pop_expr()?;
        let level = self.pop_expr()?;
        let Expr::Const(Constant::Int(level)) = level else { return Err(self.err("an import level that is not an int constant")) };
        let level = u32::try_from(level).map_err(|_| self.err("a negative import level"))?;
        let module = self.ctx.name(i);
        let bad = || "an import statement of an unknown shape";
        match fromlist {
            Expr::Const(Constant::None) => {
                let top = module.split('.').next().unwrap_or("").to_string();
                let ops: Vec<&Op> = next.iter().map(|i| &i.op).collect();
                if let Some(Some(Expr::Name(n))) = ops.first().map(|o| self.simple_store(o)) {
                    if level != 0 {
                        return Err(self.err(bad()));
                    }
                    self.note_store(ops[0]);
                    let alias = if n == top { None } else if !module.contains('.') { Some(n) } else { return Err(self.err(bad())) };
                    self.emit(Stmt::Import(module.to_string(), alias.map(String::from)));
                    return Ok(1);
                }
                // `import a.b.c as d`: IMPORT_FROM b, SWAP 2, POP_TOP, IMPORT_FROM c,
                // store d, POP_TOP.
                let parts: Vec<&str> = module.split('.').collect();
                let mut k = 0;
                for (j, part) in parts.iter().enumerate().skip(1) {
                    let Some(Op::ImportFrom(x)) = ops.get(k) else { return Err(self.err(bad())) };
                    if self.ctx.name(*x) != *part {
                        return Err(self.err(bad()));
                    }
                    k += 1;
                    if j + 1 < parts.len() {
                        if !matches!(ops.get(k..k + 2), Some([Op::Swap(2), Op::PopTop])) {
                            return Err(self.err(bad()));
                        }
                        k += 2;
                    }
                }
                let store = ops.get(k).and_then(|o| self.simple_store(o));
                match (store, ops.get(k + 1)) {
                    (Some(Expr::Name(n)), Some(Op::PopTop)) if parts.len() > 1 && level == 0 => {
                        self.note_store(ops[k]);
                        self.emit(Stmt::Import(module.to_string(), Some(n.to_string())));
                        Ok(k + 2)
                    }
                    _ => Err(self.err(bad())),
                }
            }
            Expr::Const(Constant::Tuple(names)) => {
                let names: Vec<String> = names
                    .into_iter()
                    .map(|c| match c {
                        Constant::Str(s) => Ok(String::from(&*s)),
                        _ => Err(self.err("an import name that is not a str")),
                    })
                    .collect::<Result<_, _>>()?;
                if names == ["*"] {
                    if !matches!(next.first().map(|i| &i.op), Some(Op::ImportStar)) {
                        return Err(self.err(bad()));
                    }
                    self.emit(Stmt::ImportFrom(module.to_string(), vec![("*".into(), None)], level));
                    return Ok(1);
                }
                let mut aliases = Vec::new();
                let mut k = 0;
                for n in &names {
                    let (Some(Op::ImportFrom(x)), Some(store)) = (next.get(k).map(|i| &i.op), next.get(k + 1)) else {
                        return Err(self.err(bad()));
                    };
                    let Some(Expr::Name(target)) = self.simple_store(&store.op) else { return Err(self.err(bad())) };
                    if self.ctx.name(*x) != *n {
                        return Err(self.err(bad()));
                    }
                    self.note_store(&store.op);
                    aliases.push((n.clone(), (target != *n).then(|| target.to_string())));
                    k += 2;
                }
                if !matches!(next.get(k).map(|i| &i.op), Some(Op::PopTop)) {
                    return Err(self.err(bad()));
                }
                self.emit(Stmt::ImportFrom(module.to_string(), aliases, level));
                Ok(k + 1)
            }
            _ => Err(self.err(bad())),
        }
    }

    fn options(&self) -> crate::Options {
        crate::Options {
            function_name: None,
            const_prefix: self.ctx.naming.const_prefix.to_string(),
            stub_failures: self.ctx.naming.stub_failures,
        }
    }

    fn make_function(&mut self, flags: u32, qualname: bool, next: &[IrInstr]) -> Result<usize, DecompileError> {
        if qualname {
            self.pop_expr()?;
        }
        let Expr::Const(Constant::Code(code)) = self.pop_expr()? else {
            return Err(self.err("MAKE_FUNCTION of a value that is not a code object"));
        };
        if flags & !0x0f != 0 {
            return Err(self.err("MAKE_FUNCTION with annotate functions is not supported yet"));
        }
        let mut attrs = Vec::new();
        for flag in [0x08, 0x04, 0x02, 0x01] {
            if flags & flag != 0 {
                attrs.push((flag, self.pop_expr()?));
            }
        }
        // `__build_class__` sits right below the class body's function, or under the
        // NULL that 3.13+ pushes after the callable.
        let is_build_class = |v: Option<&SVal>| matches!(v, Some(SVal::Expr(e)) if e.is_name(BUILD_CLASS));
        let n = self.stack.len();
        // 3.13+ sets the closure after MAKE_FUNCTION: the cells may still lie on top.
        let cells = |v: Option<&SVal>| {
            matches!(v, Some(SVal::Expr(e)) if tuple_items(e.clone()).is_some_and(|c| !c.is_empty() && c.iter().all(|c| super::cell_name(c).is_some())))
        };
        let under_null = |top: usize| {
            is_build_class(self.stack.get(top)) || (matches!(self.stack.get(top), Some(SVal::Null)) && top >= 1 && is_build_class(self.stack.get(top - 1)))
        };
        let is_class = (n >= 1 && under_null(n - 1)) || (n >= 2 && cells(self.stack.last()) && under_null(n - 2));
        let mut f = self.function_value(&code, is_class)?;
        for (flag, attr) in attrs.into_iter().rev() {
            f = self.set_function_attribute(f, flag, attr)?;
        }
        if matches!(f, Expr::Comp(..) | Expr::DictComp(..)) {
            // A list/set/dict comprehension with `async for` or `await` is a coroutine
            // that the caller awaits at once (CPython 3.8-3.11 `compiler_comprehension`).
            let awaited = code.co_flags & depyf_bytecode::co_flags::COROUTINE != 0;
            return self.call_comprehension(f, next, awaited);
        }
        self.push(f);
        Ok(0)
    }

    /// The function object of `code`: a lambda, a comprehension waiting for its
    /// iterable, or a `def`/`class` body waiting for its name.
    fn function_value(&mut self, code: &CodeObject, is_class: bool) -> Result<Expr, DecompileError> {
        let options = self.options();
        let failures = self.ctx.naming.failures;
        let args = Box::new(crate::arguments(code));
        if is_class {
            let body = crate::definitions::class_body(code, crate::recover_body_in(code, &options, failures)?);
            return Ok(Expr::Def(std::sync::Arc::new(Stmt::ClassDef(code.co_name.clone(), vec![], vec![], body, vec![]))));
        }
        match code.co_name.as_str() {
            "<lambda>" => {
                let body = crate::recover_body(code, &options)?;
                let e = crate::definitions::lambda_body(&body).ok_or_else(|| DecompileError::new(code, 0, "", "a lambda body that is not one expression"))?;
                Ok(Expr::Lambda(args, Box::new(e)))
            }
            "<listcomp>" | "<setcomp>" | "<dictcomp>" | "<genexpr>" => crate::definitions::comprehension(code, &options),
            // A class body's 3.14+ annotations, read back into the body by
            // `definitions::bind`.
            "__annotate__" if code.co_freevars().iter().any(|n| *n == "__classdict__") => {
                let body = crate::recover_body_with(code, &options, failures, true)?;
                Ok(Expr::Def(std::sync::Arc::new(Stmt::FunctionDef(code.co_name.clone(), args, body))))
            }
            n if n.starts_with("<generic parameters of ") => {
                let body = crate::generic_params_body(code, &options, failures)?;
                let g = crate::definitions::generic(code, body)?;
                Ok(Expr::Call(Box::new(Expr::name(crate::recover::markers::GENERIC)), vec![g], vec![]))
            }
            _ => {
                match crate::recover_body_in(code, &options, failures) {
                    Ok(body) => Ok(Expr::Def(std::sync::Arc::new(Stmt::FunctionDef(code.co_name.clone(), args, body)))),
                    // Written with names source can spell: the stub must compile
                    // where the rest of the function does.
                    Err(e) if options.stub_failures => {
                        let body = stub_body(code, &e, failures);
                        Ok(Expr::Def(std::sync::Arc::new(Stmt::FunctionDef(crate::spellable(&code.co_name), Box::new(crate::spellable_arguments(*args)), body))))
                    }
                    Err(e) => Err(e),
                }
            }
        }
    }

    /// Sets defaults (0x01), keyword defaults (0x02), annotations (0x04) or the
    /// closure (0x08) of a function value.
    fn set_function_attribute(&self, mut f: Expr, flag: u32, attr: Expr) -> Result<Expr, DecompileError> {
        if flag == 0x08 {
            // The cells of the nested code's free variables: the recompiled `def`
            // captures the same names.
            return match tuple_items(attr) {
                Some(cells) if cells.iter().all(|c| super::cell_name(c).is_some()) => Ok(f),
                _ => Err(self.err("a closure that is not a tuple of cells")),
            };
        }
        let is_lambda = matches!(f, Expr::Lambda(..));
        let args = match &mut f {
            Expr::Lambda(a, _) => &mut **a,
            Expr::Def(s) => match std::sync::Arc::make_mut(s) {
                Stmt::FunctionDef(_, a, _) => a,
                _ => return Err(self.err("function attributes of a class body")),
            },
            _ => return Err(self.err("function attributes of a comprehension")),
        };
        // A generic function's defaults are the arguments of its parameters function
        // (PEP 695; the first is named `.defaults` even when it holds the keyword
        // defaults): placeholders that `definitions::as_definition` fills in.
        let placeholder = matches!(&attr, Expr::Name(n) if n == ".defaults" || n == ".kwdefaults");
        match flag {
            0x01 if placeholder && args.defaults.is_empty() => {
                args.defaults = vec![attr];
                return Ok(f);
            }
            0x02 if placeholder && args.kw_defaults.is_empty() => {
                args.kw_defaults = vec![(".kwdefaults".to_string(), attr)];
                return Ok(f);
            }
            _ => {}
        }
        match flag {
            0x01 => {
                let items = tuple_items(attr).ok_or_else(|| self.err("defaults that are not a tuple"))?;
                if items.len() > args.posonly.len() + args.args.len() {
                    return Err(self.err("more defaults than positional parameters"));
                }
                args.defaults = items;
            }
            0x02 => {
                let Expr::Dict(items) = attr else { return Err(self.err("keyword defaults that are not a dict")) };
                for (k, v) in items {
                    let Some(Expr::Const(Constant::Str(k))) = k else { return Err(self.err("a keyword default without a name")) };
                    let k = String::from(&*k);
                    if !args.kwonly.contains(&k) {
                        return Err(self.err("a keyword default of no keyword-only parameter"));
                    }
                    args.kw_defaults.push((k, v));
                }
            }
            0x04 | 0x10 => {
                if is_lambda {
                    return Err(self.err("annotations of a lambda"));
                }
                let pairs: Vec<(Expr, Expr)> = match attr {
                    // 3.14+ deferred annotations (PEP 649): a compiler-made
                    // `__annotate__(format)` that returns the dict.
                    attr if flag == 0x10 => annotate_items(attr).ok_or_else(|| self.err("an __annotate__ function of an unknown shape"))?,
                    Expr::Dict(items) => items.into_iter().map(|(k, v)| k.map(|k| (k, v))).collect::<Option<_>>().ok_or_else(|| self.err("annotations with **"))?,
                    other => {
                        let items = tuple_items(other).ok_or_else(|| self.err("annotations that are not a tuple"))?;
                        if items.len() % 2 != 0 {
                            return Err(self.err("annotations of odd length"));
                        }
                        let mut it = items.into_iter();
                        let mut v = Vec::new();
                        while let (Some(k), Some(x)) = (it.next(), it.next()) {
                            v.push((k, x));
                        }
                        v
                    }
                };
                for (k, v) in pairs {
                    let Expr::Const(Constant::Str(k)) = k else { return Err(self.err("an annotation without a name")) };
                    let k = String::from(&*k);
                    let v = if args.vararg.as_deref() == Some(k.as_str()) {
                        star_annotation(v)
                    } else if matches!(v, Expr::Starred(_)) {
                        return Err(self.err(format!("a starred annotation of `{k}`, which is no *args parameter")));
                    } else {
                        v
                    };
                    if k == "return" {
                        args.returns = Some(v);
                    } else {
                        let known = args.posonly.iter().chain(&args.args).chain(&args.kwonly).chain(&args.vararg).chain(&args.kwarg).any(|p| *p == k);
                        if !known {
                            return Err(self.err(format!("an annotation of `{k}`, which is no parameter")));
                        }
                        args.annotations.push((k, v));
                    }
                }
            }
            _ => return Err(self.err(format!("function attribute {flag:#x}"))),
        }
        Ok(f)
    }

    /// A comprehension function is called at once with `iter(iterable)`: interprets
    /// the ops that compute the iterable up to that call, and pushes the comprehension.
    /// `awaited`: the comprehension is a coroutine, whose call is followed by the `await`
    /// that runs it (part of the comprehension, not of the source).
    fn call_comprehension(&mut self, comp: Expr, next: &[IrInstr], awaited: bool) -> Result<usize, DecompileError> {
        let mut base = self.stack.len();
        self.push(comp);
        let mut j = 0;
        while j < next.len() {
            let op = &next[j].op;
            // 3.13+: the closure (`SET_FUNCTION_ATTRIBUTE 8`, `(attr, func -- func)`)
            // is set after MAKE_FUNCTION.
            if let Op::SetFunctionAttribute(flag) = *op {
                if self.stack.len() == base + 1 && base >= 1 {
                    let comp = self.pop_expr()?;
                    let attr = self.pop_expr()?;
                    let comp = self.set_function_attribute(comp, flag, attr)?;
                    base -= 1;
                    self.push(comp);
                    j += 1;
                    continue;
                }
            }
            if matches!(op, Op::GetIter | Op::GetAIter) && self.stack.len() == base + 2 {
                let Some(call_at) = self.fill_comprehension(matches!(op, Op::GetAIter), &next[j + 1..])? else {
                    break;
                };
                let mut end = j + 1 + call_at + 1;
                if awaited {
                    let aw = next[end..].iter().position(|i| i.op != Op::Nop).map(|k| end + k);
                    match aw {
                        Some(k) if next[k].op == Op::Await => end = k + 1,
                        _ => return Err(self.err("an async comprehension that is not awaited at once")),
                    }
                }
                return Ok(end);
            }
            if self.stack.len() <= base {
                break;
            }
            let skip = self.step(op, &next[j + 1..])?;
            j += 1 + skip;
        }
        // The block ends inside the iterable (`x or ()`, `a if c else b`): the
        // comprehension stays on the stack, still over `.0`, for the `GET_ITER` and
        // call after the merge of the iterable's branches ([`Self::pending_comprehension`]).
        // A `.0` that no call fills fails the code object (`definitions::bind`).
        if j >= next.len() && !awaited && self.stack.len() > base && matches!(self.stack.get(base), Some(SVal::Expr(e)) if is_pending(e)) {
            return Ok(j);
        }
        Err(self.err("a comprehension that is not called with its iterable in the same block"))
    }

    /// `GET_ITER` (`GET_AITER` when `is_async`) of the iterable on top, over a
    /// comprehension function still iterating `.0` right below it, followed in `rest`
    /// (`Nop`s skipped) by the call that runs the comprehension: 3.12's and 3.13+'s
    /// `CALL 0` over `function, iterator` (the iterator in the `self` slot), 3.8-3.10's
    /// `CALL_FUNCTION 1` (CPython `Python/compile.c`, `compiler_comprehension`). Pops
    /// both, pushes the comprehension over the iterable and returns the call's index
    /// in `rest`; `Ok(None)` (nothing changed) when `rest` has no such call.
    fn fill_comprehension(&mut self, is_async: bool, rest: &[IrInstr]) -> Result<Option<usize>, DecompileError> {
        let call_at = rest.iter().position(|i| i.op != Op::Nop);
        let call_ok = matches!(
            call_at.map(|k| &rest[k].op),
            Some(Op::Call { argc: 0, kwnames: None, layout: CallLayout::NullFirst | CallLayout::NullSecond })
                | Some(Op::Call { argc: 1, kwnames: None, layout: CallLayout::NoNull })
        );
        if !call_ok {
            return Ok(None);
        }
        let iterable = super::set_display(self.pop_expr()?);
        let mut comp = self.pop_expr()?;
        let gens = match &mut comp {
            Expr::Comp(_, _, g) | Expr::DictComp(_, _, g) => g,
            _ => return Err(self.err("a comprehension was evaluated before its call")),
        };
        if gens[0].iter.async_inner().is_some() != is_async {
            return Err(self.err("a comprehension whose first loop and iterable disagree on async"));
        }
        gens[0].iter = if is_async { Expr::async_mark(iterable) } else { iterable };
        self.push(comp);
        Ok(call_at)
    }

    /// `GET_ITER` in a block after the one that made a comprehension function whose
    /// iterable has branches (see [`Self::call_comprehension`]): when the value below
    /// the top is that comprehension, still over `.0`, and the call follows, fills in
    /// the iterable and returns how many ops of `rest` it used (the call included).
    pub(super) fn pending_comprehension(&mut self, rest: &[IrInstr]) -> Result<Option<usize>, DecompileError> {
        let n = self.stack.len();
        if n < 2 || !matches!(&self.stack[n - 2], SVal::Expr(e) if is_pending(e)) {
            return Ok(None);
        }
        Ok(self.fill_comprehension(false, rest)?.map(|k| k + 1))
    }
}

/// A comprehension function value whose first loop still iterates the `.0` parameter
/// (its call, which passes the iterator, not read yet).
fn is_pending(e: &Expr) -> bool {
    matches!(e, Expr::Comp(_, _, g) | Expr::DictComp(_, _, g) if g.first().is_some_and(|g| g.iter.is_name(".0")))
}

/// The `(name, annotation)` pairs of a 3.14+ `__annotate__` function value (CPython
/// 3.14 `Python/codegen.c`, `codegen_annotations`): its body is `if format > 2: raise
/// NotImplementedError` (formats other than VALUE and VALUE_WITH_FAKE_GLOBALS) and
/// `return {'name': annotation, ...}` in parameter order, `'return'` last. `None` for
/// any other shape.
fn annotate_items(f: Expr) -> Option<Vec<(Expr, Expr)>> {
    let Expr::Def(d) = f else { return None };
    let Stmt::FunctionDef(name, args, mut body) = std::sync::Arc::unwrap_or_clone(d) else { return None };
    let Some(Stmt::Return(Some(Expr::Dict(items)))) = body.pop() else { return None };
    if name != "__annotate__" || body.is_empty() || !crate::definitions::is_format_guard(&args, &body[0]) {
        return None;
    }
    if body.len() != 1 {
        return None;
    }
    items.into_iter().map(|(k, v)| Some((k?, v))).collect()
}

/// The annotation `*Ts` of a `*args` parameter (PEP 646), from `v`, the value its
/// code leaves: CPython 3.11+ computes it as `[*Ts][0]`, an `UNPACK_SEQUENCE 1`
/// (`Python/compile.c` `compiler_visit_argannotation`) that recovery leaves as the
/// marker call `<star_annotation>(Ts)`. Any other `v` is returned as it is (a marker
/// elsewhere stays, and is reported as a shape not recognized).
fn star_annotation(v: Expr) -> Expr {
    match v {
        Expr::Call(f, mut args, kws) if f.is_name(crate::recover::markers::STAR_ANNOTATION) && args.len() == 1 && kws.is_empty() => {
            Expr::Starred(Box::new(args.pop().expect("one argument")))
        }
        other => other,
    }
}
