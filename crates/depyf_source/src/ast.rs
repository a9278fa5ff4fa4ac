//! The recovered AST.

use depyf_bytecode::Constant;

/// The reserved callee that marks an asynchronous iterable or context manager:
/// `__async__(x)` as the iterable of a [`Stmt::For`] or a [`Comprehension`] prints
/// `async for ... in x`, and as the first manager of a [`Stmt::With`] prints
/// `async with x, ...` (every item of that `with` is then unwrapped). Anywhere else it
/// is a leftover that the decompiler refuses (it names no real function).
pub const ASYNC_MARK: &str = "__async__";

impl Expr {
    /// `__async__(inner)` (see [`ASYNC_MARK`]).
    pub fn async_mark(inner: Expr) -> Expr {
        Expr::Call(Box::new(Expr::name(ASYNC_MARK)), vec![inner], Vec::new())
    }

    /// The operand of `__async__(x)`, if this is one.
    pub fn async_inner(&self) -> Option<&Expr> {
        match self {
            Expr::Call(f, args, kws) if f.is_name(ASYNC_MARK) && args.len() == 1 && kws.is_empty() => Some(&args[0]),
            _ => None,
        }
    }
}

/// An identifier in the tree (a variable or attribute name): a string that holds up
/// to 24 bytes inline, so that making and copying the names of a tree (recovery and
/// structuring copy expressions often) allocates only for longer ones.
pub type Ident = compact_str::CompactString;

/// An expression.
#[derive(Clone, Debug, PartialEq)]
pub enum Expr {
    /// A variable: local, global, cell, or a decompiler temporary.
    Name(Ident),
    /// `(name := value)`.
    NamedExpr(String, Box<Expr>),
    /// A literal constant.
    Const(Constant),
    /// `value.attr`.
    Attribute(Box<Expr>, Ident),
    /// `value[index]`.
    Subscript(Box<Expr>, Box<Expr>),
    /// `lower:upper:step` (only inside a subscript; elsewhere printed as `slice(...)`).
    Slice(Option<Box<Expr>>, Option<Box<Expr>>, Option<Box<Expr>>),
    /// `func(args, keywords)`.
    Call(Box<Expr>, Vec<Expr>, Vec<Keyword>),
    /// `*value` inside a call, list, tuple or set.
    Starred(Box<Expr>),
    /// `left <op> right` with the operator symbol (`"+"`).
    BinOp(Box<Expr>, &'static str, Box<Expr>),
    /// `<op> operand` with the operator (`"-"`, `"not"`, `"~"`, `"+"`).
    UnaryOp(&'static str, Box<Expr>),
    /// `left <op> right <op> right2 ...` with operator symbols (`"<"`, `"is not"`).
    Compare(Box<Expr>, Vec<(&'static str, Expr)>),
    /// `a and b and c` (`true`) or `a or b` (`false`).
    BoolOp(bool, Vec<Expr>),
    /// `body if test else orelse`.
    IfExp(Box<Expr>, Box<Expr>, Box<Expr>),
    /// `(a, b)`.
    Tuple(Vec<Expr>),
    /// `[a, b]`.
    List(Vec<Expr>),
    /// `{a, b}`.
    Set(Vec<Expr>),
    /// `{k: v, **m}` (`None` key: `**value`).
    Dict(Vec<(Option<Expr>, Expr)>),
    /// `lambda args: body`.
    Lambda(Box<Arguments>, Box<Expr>),
    /// `[elt for ...]`, `{elt for ...}`, `(elt for ...)`.
    Comp(CompKind, Box<Expr>, Vec<Comprehension>),
    /// `{key: value for ...}`.
    DictComp(Box<Expr>, Box<Expr>, Vec<Comprehension>),
    /// An f-string: literal pieces and replacement fields, and the syntax rules its
    /// source may follow (those of the CPython version that compiled the code).
    FString(Vec<FPart>, FStringSyntax),
    /// A 3.14+ template string (PEP 750): literal pieces and interpolations, with the
    /// source text of each top-level interpolation's expression in order (the
    /// template keeps that text, so it is printed as it was written).
    TString(Vec<FPart>, Vec<String>),
    /// A function or class object made by the code but not yet bound to a name by a
    /// `def`/`class` statement (a recovery intermediate: recovery turns it into a
    /// statement or fails; printed as `<def name>`, which does not compile). Shared
    /// (`Arc`): the statement holds the whole nested body, and structuring copies the
    /// statements that hold it.
    Def(std::sync::Arc<Stmt>),
    /// An expression given as its source text, printed as it is: the text CPython
    /// stores for an annotation under `from __future__ import annotations` (PEP 563,
    /// CPython `Python/ast_unparse.c`), which parses back to the same expression.
    /// Printed without parentheses where a `test` fits (`x: a | b`), with them
    /// elsewhere.
    SourceText(String),
    /// `yield` / `yield value`.
    Yield(Option<Box<Expr>>),
    /// `yield from value`.
    YieldFrom(Box<Expr>),
    /// `await value`.
    Await(Box<Expr>),
    /// The operand `value`, written on a source line of its own: printed as `(`, a
    /// line break, `value`, `)`. Recovery wraps a load whose instruction had a line
    /// of its own in the original, where keeping it on the line of the load before
    /// would change the bytecode: CPython 3.13+ fuses two adjacent `LOAD_FAST` into
    /// `LOAD_FAST_LOAD_FAST` only when both have the same line number (CPython 3.13
    /// `Python/flowgraph.c`, `insert_superinstructions` / `make_super_instruction`).
    /// The parentheses and the line break compile to nothing.
    NewLine(Box<Expr>),
}

/// The kind of a comprehension with one element expression.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CompKind {
    /// `[elt for ...]`
    List,
    /// `{elt for ...}`
    Set,
    /// `(elt for ...)`
    Generator,
}

/// One `for target in iter if cond1 if cond2` clause of a comprehension.
#[derive(Clone, Debug, PartialEq)]
pub struct Comprehension {
    /// Loop target.
    pub target: Expr,
    /// Iterated expression.
    pub iter: Expr,
    /// Conditions, in order.
    pub ifs: Vec<Expr>,
    /// For each condition (a missing entry is `false`): print it on a line of its
    /// own (`if` first), not on the line of the element. CPython 3.10-3.12 thread
    /// a failed test's jump to the loop's next step only when the test and the
    /// element (whose line the jump back carries) are on the same line (3.12
    /// `Python/flowgraph.c`, `jump_thread`), so there the layout shows in the
    /// bytecode.
    pub ifs_on_new_line: Vec<bool>,
}

/// What the replacement fields of a printed f-string may contain.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FStringSyntax {
    /// CPython 3.8-3.11 (PEP 498): a field cannot contain the enclosing quote, a
    /// backslash or `#` (tokenizer `Parser/tokenizer.c` reads the f-string as one string
    /// token first).
    Pep498,
    /// CPython 3.12+ (PEP 701, `Parser/lexer/lexer.c` tokenizes fields): a field may reuse
    /// the enclosing quote and hold backslashes and `#` inside its string literals.
    Pep701,
}

/// A piece of an f-string.
#[derive(Clone, Debug, PartialEq)]
pub enum FPart {
    /// Literal text (unescaped).
    Lit(String),
    /// `{value!conversion:spec}`; conversion is `'s'`, `'r'` or `'a'`.
    Field(Box<Expr>, Option<char>, Option<Vec<FPart>>),
}

/// A keyword argument `name=value`, or `**value` when `name` is `None`.
#[derive(Clone, Debug, PartialEq)]
pub struct Keyword {
    /// Keyword name.
    pub name: Option<String>,
    /// Value.
    pub value: Expr,
}

/// Parameters of a function definition.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Arguments {
    /// Whether the function is `async def` (a coroutine or async generator).
    pub is_async: bool,
    /// Positional-only parameters (before `/`).
    pub posonly: Vec<String>,
    /// Positional-or-keyword parameters.
    pub args: Vec<String>,
    /// `*args` name.
    pub vararg: Option<String>,
    /// Keyword-only parameters.
    pub kwonly: Vec<String>,
    /// `**kwargs` name.
    pub kwarg: Option<String>,
    /// Default values of the last positional parameters (`posonly` then `args`).
    pub defaults: Vec<Expr>,
    /// Default values of keyword-only parameters, by name.
    pub kw_defaults: Vec<(String, Expr)>,
    /// Parameter annotations, by name (`vararg`/`kwarg` names included).
    pub annotations: Vec<(String, Expr)>,
    /// The return annotation.
    pub returns: Option<Expr>,
    /// PEP 695 type parameters of a generic function (3.12+), as written: `T`,
    /// `*Ts`, `**P`.
    pub type_params: Vec<String>,
}

/// A statement.
#[derive(Clone, Debug, PartialEq)]
pub enum Stmt {
    /// An expression statement.
    Expr(Expr),
    /// `t1 = t2 = value`.
    Assign(Vec<Expr>, Expr),
    /// `target op= value` (`op` is `"+="` etc.).
    AugAssign(Expr, &'static str, Expr),
    /// `del a, b`.
    Delete(Vec<Expr>),
    /// `return` / `return value`.
    Return(Option<Expr>),
    /// `raise`, `raise exc`, `raise exc from cause`.
    Raise(Option<Expr>, Option<Expr>),
    /// `if test: body else: orelse` (`elif` when `orelse` is a single `If`).
    If(Expr, Vec<Stmt>, Vec<Stmt>),
    /// `pass`.
    Pass,
    /// `while test: body else: orelse`.
    While(Expr, Vec<Stmt>, Vec<Stmt>),
    /// `for target in iter: body else: orelse`.
    For(Expr, Expr, Vec<Stmt>, Vec<Stmt>),
    /// `break`.
    Break,
    /// `continue`.
    Continue,
    /// `import a.b.c` (`alias` for `import a.b as c`).
    Import(String, Option<String>),
    /// `from module import name as alias, ...` with the relative level (dots).
    ImportFrom(String, Vec<(String, Option<String>)>, u32),
    /// `lazy import ...` / `lazy from ... import ...` (CPython 3.15+, PEP 810): an
    /// [`Stmt::Import`] or [`Stmt::ImportFrom`] whose binding is resolved on first use.
    Lazy(Box<Stmt>),
    /// `global a, b`.
    Global(Vec<String>),
    /// `nonlocal a, b`.
    Nonlocal(Vec<String>),
    /// `def name(args): body`.
    FunctionDef(String, Box<Arguments>, Vec<Stmt>),
    /// `class name[type_params](bases, keywords): body`; type parameters as in
    /// [`Arguments::type_params`] (PEP 695, 3.12+).
    ClassDef(String, Vec<Expr>, Vec<Keyword>, Vec<Stmt>, Vec<String>),
    /// `@d1 @d2 <def or class>`: decorators, outermost first.
    Decorated(Vec<Expr>, Box<Stmt>),
    /// `assert test, msg`.
    Assert(Expr, Option<Expr>),
    /// `target: annotation = value` (simple name targets).
    AnnAssign(Expr, Expr, Option<Expr>),
    /// `try:` body, `except` handlers, `else:`, `finally:`.
    Try(Vec<Stmt>, Vec<ExceptHandler>, Vec<Stmt>, Vec<Stmt>),
    /// `with item [as target], ...:` body.
    With(Vec<(Expr, Option<Expr>)>, Vec<Stmt>),
    /// `type name[params] = value` (3.12+), params as in [`Arguments::type_params`].
    TypeAlias(String, Vec<String>, Expr),
    /// `match subject:` with its cases, in order (3.10+).
    Match(Expr, Vec<MatchCase>),
}

/// One `case pattern if guard: body` of a [`Stmt::Match`].
#[derive(Clone, Debug, PartialEq)]
pub struct MatchCase {
    /// The pattern.
    pub pattern: Pattern,
    /// The guard, if any.
    pub guard: Option<Expr>,
    /// The case body.
    pub body: Vec<Stmt>,
}

/// A pattern of a `case` clause (PEP 634).
#[derive(Clone, Debug, PartialEq)]
pub enum Pattern {
    /// `_`.
    Wildcard,
    /// A capture name `x`.
    Capture(String),
    /// A literal or value pattern compared with `==` (`1`, `-1`, `"s"`, `Color.RED`).
    Value(Expr),
    /// `None`, `True`, `False` (compared with `is`).
    Singleton(Expr),
    /// `[p1, *rest, p2]`: items, and the position and name of the star item (`None`
    /// name: `*_`).
    Sequence(Vec<Pattern>, Option<(usize, Option<String>)>),
    /// `{k: p, **rest}`: keys (literal or value expressions), sub-patterns, rest name.
    Mapping(Vec<(Expr, Pattern)>, Option<String>),
    /// `Cls(p1, kw=p2)`: class expression, positional and keyword sub-patterns.
    Class(Expr, Vec<Pattern>, Vec<(String, Pattern)>),
    /// `p1 | p2`.
    Or(Vec<Pattern>),
    /// `p as name`.
    As(Box<Pattern>, String),
}

/// One `except` clause.
#[derive(Clone, Debug, PartialEq)]
pub struct ExceptHandler {
    /// The exception type (a tuple for several); `None` for a bare `except:`.
    pub typ: Option<Expr>,
    /// The `as` name.
    pub name: Option<String>,
    /// The handler's body.
    pub body: Vec<Stmt>,
    /// `except*` (PEP 654, 3.11+): the handler takes the matching part of an
    /// exception group. A `try` has only plain or only starred handlers.
    pub star: bool,
}

impl Expr {
    /// `Name(id)`.
    pub fn name(id: &str) -> Expr {
        Expr::Name(Ident::from(id))
    }
    /// An int literal.
    pub fn int(v: i64) -> Expr {
        Expr::Const(Constant::Int(v))
    }
    /// `self <op> rhs` for an operator symbol.
    pub fn binop(self, op: &'static str, rhs: Expr) -> Expr {
        Expr::BinOp(Box::new(self), op, Box::new(rhs))
    }
    /// This expression with every [`Expr::NewLine`] in it replaced by its operand
    /// (for places whose source cannot span lines, such as f-string fields).
    pub fn without_line_breaks(&self) -> Expr {
        let mut e = self.clone();
        e.walk_mut(&mut |x| {
            if let Expr::NewLine(v) = x {
                let inner = std::mem::replace(&mut **v, Expr::Const(Constant::None));
                *x = inner;
            }
        });
        e
    }
    /// Whether this is `Name(id)`.
    pub fn is_name(&self, id: &str) -> bool {
        matches!(self, Expr::Name(n) if n == id)
    }
    /// Calls `f` on this expression and every sub-expression, outermost first.
    ///
    /// Generic over `f` (a `dyn FnMut` works too) so that a closure's body is
    /// inlined into the walk instead of called through a pointer at every node.
    pub fn walk<F: FnMut(&Expr) + ?Sized>(&self, f: &mut F) {
        f(self);
        match self {
            Expr::Name(_) | Expr::Const(_) | Expr::SourceText(_) => {}
            Expr::Attribute(v, _) | Expr::Starred(v) | Expr::UnaryOp(_, v) => v.walk(f),
            Expr::Subscript(a, b) | Expr::BinOp(a, _, b) => {
                a.walk(f);
                b.walk(f);
            }
            Expr::Slice(a, b, c) => {
                for e in [a, b, c].into_iter().flatten() {
                    e.walk(f);
                }
            }
            Expr::Call(func, args, kws) => {
                func.walk(f);
                args.iter().for_each(|a| a.walk(f));
                kws.iter().for_each(|k| k.value.walk(f));
            }
            Expr::Compare(l, rest) => {
                l.walk(f);
                rest.iter().for_each(|(_, e)| e.walk(f));
            }
            Expr::BoolOp(_, v) | Expr::Tuple(v) | Expr::List(v) | Expr::Set(v) => v.iter().for_each(|e| e.walk(f)),
            Expr::NamedExpr(_, v) => v.walk(f),
            Expr::IfExp(a, b, c) => {
                a.walk(f);
                b.walk(f);
                c.walk(f);
            }
            Expr::Dict(items) => {
                for (k, v) in items {
                    if let Some(k) = k {
                        k.walk(f);
                    }
                    v.walk(f);
                }
            }
            Expr::Lambda(a, body) => {
                a.walk(f);
                body.walk(f);
            }
            Expr::Comp(_, elt, gens) => {
                elt.walk(f);
                gens.iter().for_each(|g| g.walk(f));
            }
            Expr::DictComp(k, v, gens) => {
                k.walk(f);
                v.walk(f);
                gens.iter().for_each(|g| g.walk(f));
            }
            Expr::FString(parts, _) | Expr::TString(parts, _) => fparts_walk(parts, f),
            Expr::Yield(v) => {
                if let Some(v) = v {
                    v.walk(f);
                }
            }
            Expr::YieldFrom(v) | Expr::Await(v) | Expr::NewLine(v) => v.walk(f),
            // The statement is not part of this expression's evaluation.
            Expr::Def(_) => {}
        }
    }

    /// Calls `f` on every sub-expression first, then on this expression (innermost
    /// first), letting it rewrite them. Statements inside `Def` are not visited.
    /// Generic over `f` as [`Expr::walk`] is.
    pub fn walk_mut<F: FnMut(&mut Expr) + ?Sized>(&mut self, f: &mut F) {
        match self {
            Expr::Name(_) | Expr::Const(_) | Expr::Def(_) | Expr::SourceText(_) => {}
            Expr::Attribute(v, _) | Expr::Starred(v) | Expr::UnaryOp(_, v) => v.walk_mut(f),
            Expr::Subscript(a, b) | Expr::BinOp(a, _, b) => {
                a.walk_mut(f);
                b.walk_mut(f);
            }
            Expr::Slice(a, b, c) => {
                for e in [a, b, c].into_iter().flatten() {
                    e.walk_mut(f);
                }
            }
            Expr::Call(func, args, kws) => {
                func.walk_mut(f);
                args.iter_mut().for_each(|a| a.walk_mut(f));
                kws.iter_mut().for_each(|k| k.value.walk_mut(f));
            }
            Expr::Compare(l, rest) => {
                l.walk_mut(f);
                rest.iter_mut().for_each(|(_, e)| e.walk_mut(f));
            }
            Expr::BoolOp(_, v) | Expr::Tuple(v) | Expr::List(v) | Expr::Set(v) => v.iter_mut().for_each(|e| e.walk_mut(f)),
            Expr::NamedExpr(_, v) => v.walk_mut(f),
            Expr::IfExp(a, b, c) => {
                a.walk_mut(f);
                b.walk_mut(f);
                c.walk_mut(f);
            }
            Expr::Dict(items) => {
                for (k, v) in items {
                    if let Some(k) = k {
                        k.walk_mut(f);
                    }
                    v.walk_mut(f);
                }
            }
            Expr::Lambda(a, body) => {
                a.defaults.iter_mut().for_each(|e| e.walk_mut(f));
                a.kw_defaults.iter_mut().for_each(|(_, e)| e.walk_mut(f));
                body.walk_mut(f);
            }
            Expr::Comp(_, elt, gens) => {
                elt.walk_mut(f);
                for g in gens {
                    g.target.walk_mut(f);
                    g.iter.walk_mut(f);
                    g.ifs.iter_mut().for_each(|e| e.walk_mut(f));
                }
            }
            Expr::DictComp(k, v, gens) => {
                k.walk_mut(f);
                v.walk_mut(f);
                for g in gens {
                    g.target.walk_mut(f);
                    g.iter.walk_mut(f);
                    g.ifs.iter_mut().for_each(|e| e.walk_mut(f));
                }
            }
            Expr::FString(parts, _) | Expr::TString(parts, _) => fparts_walk_mut(parts, f),
            Expr::Yield(v) => {
                if let Some(v) = v {
                    v.walk_mut(f);
                }
            }
            Expr::YieldFrom(v) | Expr::Await(v) | Expr::NewLine(v) => v.walk_mut(f),
        }
        f(self);
    }
}

fn fparts_walk<F: FnMut(&Expr) + ?Sized>(parts: &[FPart], f: &mut F) {
    for p in parts {
        if let FPart::Field(v, _, spec) = p {
            v.walk(f);
            if let Some(spec) = spec {
                fparts_walk(spec, f);
            }
        }
    }
}

fn fparts_walk_mut<F: FnMut(&mut Expr) + ?Sized>(parts: &mut [FPart], f: &mut F) {
    for p in parts {
        if let FPart::Field(v, _, spec) = p {
            v.walk_mut(f);
            if let Some(spec) = spec {
                fparts_walk_mut(spec, f);
            }
        }
    }
}

impl Comprehension {
    /// Walks the target, the iterable and the conditions.
    pub fn walk<F: FnMut(&Expr) + ?Sized>(&self, f: &mut F) {
        self.target.walk(f);
        self.iter.walk(f);
        self.ifs.iter().for_each(|e| e.walk(f));
    }
}

impl Arguments {
    /// Walks defaults and annotations (what the `def` evaluates).
    pub fn walk<F: FnMut(&Expr) + ?Sized>(&self, f: &mut F) {
        self.defaults.iter().for_each(|e| e.walk(f));
        self.kw_defaults.iter().for_each(|(_, e)| e.walk(f));
        self.annotations.iter().for_each(|(_, e)| e.walk(f));
        if let Some(r) = &self.returns {
            r.walk(f);
        }
    }
}

impl Stmt {
    /// The statement lists nested in a `try` or `with` (body, handler bodies, else,
    /// finally); empty for other statements.
    pub fn bodies_mut(&mut self) -> Vec<&mut Vec<Stmt>> {
        match self {
            Stmt::Try(b, hs, e, fin) => {
                let mut v = vec![b];
                v.extend(hs.iter_mut().map(|h| &mut h.body));
                v.push(e);
                v.push(fin);
                v
            }
            Stmt::With(_, b) => vec![b],
            Stmt::Match(_, cases) => cases.iter_mut().map(|c| &mut c.body).collect(),
            _ => Vec::new(),
        }
    }

    /// Calls `f` on every expression of this statement and of nested statements
    /// (bodies of `if`/`for`/`def`/`class` included), outermost first.
    pub fn walk_exprs<F: FnMut(&Expr) + ?Sized>(&self, f: &mut F) {
        self.walk_exprs_into(true, f);
    }

    /// [`Stmt::walk_exprs`] without the bodies of `def`s (their parameters'
    /// defaults and annotations are visited): the expressions of this scope and of
    /// class bodies in it. For checks already made on each function body on its own,
    /// which would otherwise be made again at every level of nesting.
    pub fn walk_scope_exprs<F: FnMut(&Expr) + ?Sized>(&self, f: &mut F) {
        self.walk_exprs_into(false, f);
    }

    fn walk_exprs_into<F: FnMut(&Expr) + ?Sized>(&self, into_defs: bool, f: &mut F) {
        fn body<F: FnMut(&Expr) + ?Sized>(b: &[Stmt], into_defs: bool, f: &mut F) {
            b.iter().for_each(|s| s.walk_exprs_into(into_defs, f));
        }
        match self {
            Stmt::Expr(e) | Stmt::Return(Some(e)) => e.walk(f),
            Stmt::Assign(ts, v) => {
                ts.iter().for_each(|t| t.walk(f));
                v.walk(f);
            }
            Stmt::AugAssign(t, _, v) => {
                t.walk(f);
                v.walk(f);
            }
            Stmt::Delete(ts) => ts.iter().for_each(|t| t.walk(f)),
            Stmt::Raise(a, b) => {
                for e in [a, b].into_iter().flatten() {
                    e.walk(f);
                }
            }
            Stmt::If(c, a, b) | Stmt::While(c, a, b) => {
                c.walk(f);
                body(a, into_defs, f);
                body(b, into_defs, f);
            }
            Stmt::For(t, it, a, b) => {
                t.walk(f);
                it.walk(f);
                body(a, into_defs, f);
                body(b, into_defs, f);
            }
            Stmt::FunctionDef(_, args, b) => {
                args.walk(f);
                if into_defs {
                    body(b, into_defs, f);
                }
            }
            Stmt::ClassDef(_, bases, kws, b, _) => {
                bases.iter().for_each(|e| e.walk(f));
                kws.iter().for_each(|k| k.value.walk(f));
                body(b, into_defs, f);
            }
            Stmt::Decorated(ds, s) => {
                ds.iter().for_each(|e| e.walk(f));
                s.walk_exprs_into(into_defs, f);
            }
            Stmt::Assert(t, m) => {
                t.walk(f);
                if let Some(m) = m {
                    m.walk(f);
                }
            }
            Stmt::TypeAlias(_, _, v) => v.walk(f),
            Stmt::Match(subject, cases) => {
                subject.walk(f);
                for c in cases {
                    if let Some(g) = &c.guard {
                        g.walk(f);
                    }
                    body(&c.body, into_defs, f);
                }
            }
            Stmt::AnnAssign(t, a, v) => {
                t.walk(f);
                a.walk(f);
                if let Some(v) = v {
                    v.walk(f);
                }
            }
            Stmt::Try(b, hs, e, fin) => {
                body(b, into_defs, f);
                for h in hs {
                    if let Some(t) = &h.typ {
                        t.walk(f);
                    }
                    body(&h.body, into_defs, f);
                }
                body(e, into_defs, f);
                body(fin, into_defs, f);
            }
            Stmt::With(items, b) => {
                for (e, t) in items {
                    e.walk(f);
                    if let Some(t) = t {
                        t.walk(f);
                    }
                }
                body(b, into_defs, f);
            }
            Stmt::Return(None) | Stmt::Pass | Stmt::Break | Stmt::Continue | Stmt::Import(..) | Stmt::ImportFrom(..) | Stmt::Lazy(_) | Stmt::Global(_) | Stmt::Nonlocal(_) => {}
        }
    }
}
