//! Private names written as in the source: inside `class C`, the compiler stores
//! `__x` as `_C__x` (private-name mangling), and the recovered statements name what
//! the bytecode holds. This pass prints `_C__x` as `__x` again wherever the printed
//! source puts it under a `class C:` statement, in a position the compiler mangles.
//!
//! The rewrite is exact by construction: the printed `class` statement is the scope
//! that mangles the printed name again, so `__x` there compiles to the same `_C__x`.
//! It also matters beyond looks: CPython 3.13+ records the attribute names a class's
//! methods assign on `self` in `__static_attributes__` as they are written, so
//! `self._C__x = v` and `self.__x = v` make different class bodies.
//!
//! Mangled positions (CPython `Python/compile.c` and `Python/symtable.c`,
//! `_Py_Mangle`, checked on 3.9-3.15): names loaded, stored and deleted (including
//! parameters, `global`/`nonlocal`, `except ... as`, `with ... as`, comprehension
//! and pattern captures, walrus targets, import bindings), attribute names, and the
//! module and names of `from m import n` (an undotted `import m` too). Keyword
//! argument names of calls and class patterns, `def`/`class` names (printed from
//! the unmangled `co_name` or class name already) and dotted module names are not
//! mangled and are left as they are. A name is not mangled when it ends in `__` or
//! holds a dot, and a class whose name is only underscores mangles nothing.
//!
//! A function printed on its own (not inside a `class` statement) keeps the mangled
//! names: compiled outside the class, `__x` would not be mangled.

use std::sync::Arc;

use depyf_source::{Arguments, Expr, Ident, Pattern, Stmt};

/// Rewrites the mangled private names under every `class` statement of `body` (at any
/// depth: in function bodies, in nested classes with their own prefix, and in the
/// definitions held by [`Expr::Def`]). Code outside any class is left as it is.
/// `code` is the code object `body` was recovered from: without a name of the mangled
/// shape in it ([`may_mangle`]) the walk is left out.
pub(crate) fn demangle(code: &depyf_bytecode::CodeObject, body: &mut [Stmt]) {
    if may_mangle(code) {
        rewrite(body);
    }
}

/// [`demangle`] without the check of the names: the walk.
fn rewrite(body: &mut [Stmt]) {
    for s in body {
        stmt(s, None);
    }
}

/// Whether some name of `code` or of a code object nested in it could be a mangled
/// private name (`_C__x`: an underscore, a character other than an underscore, and a
/// `__` later). When none is, [`demangle`] changes nothing: every name it rewrites
/// comes from `co_names` or the local, cell and free variable names. Checking the
/// names is much cheaper than walking the tree (issue #7 speed).
fn may_mangle(code: &depyf_bytecode::CodeObject) -> bool {
    code.co_names.iter().any(|n| looks_mangled(n))
        || code.co_localsplusnames.iter().any(|n| looks_mangled(n))
        || code.co_consts.iter().any(|c| matches!(c, depyf_bytecode::Constant::Code(inner) if may_mangle(inner)))
}

/// Whether `n` has the shape of a mangled private name, `_C__x` (bytes compared:
/// names may hold non-ASCII letters).
fn looks_mangled(n: &str) -> bool {
    let b = n.as_bytes();
    b.len() > 4 && b[0] == b'_' && b[1] != b'_' && b[2..].windows(2).any(|w| w == b"__")
}

/// `_C` for `class C` (`_Py_Mangle` strips the class name's leading underscores);
/// `None` for a class named only by underscores, which mangles nothing.
fn prefix_of(class: &str) -> Option<String> {
    let stripped = class.trim_start_matches('_');
    (!stripped.is_empty()).then(|| format!("_{stripped}"))
}

/// `name` without the mangling prefix when compiling `__rest` under that class
/// gives `name` again.
fn name(n: &mut String, prefix: Option<&str>) {
    if let Some(rest) = unmangled(n, prefix) {
        *n = rest.to_string();
    }
}

/// [`name`] for an identifier of the tree.
fn ident(n: &mut Ident, prefix: Option<&str>) {
    if let Some(rest) = unmangled(n, prefix) {
        *n = Ident::from(rest);
    }
}

/// The name that compiling gives `n` under the class of mangling `prefix`, when
/// it is not `n` itself.
fn unmangled<'a>(n: &'a str, prefix: Option<&str>) -> Option<&'a str> {
    let rest = n.strip_prefix(prefix?)?;
    (rest.len() > 2 && rest.starts_with("__") && !rest.ends_with("__") && !rest.contains('.')).then_some(rest)
}

fn names(ns: &mut [String], prefix: Option<&str>) {
    ns.iter_mut().for_each(|n| name(n, prefix));
}

fn body(b: &mut [Stmt], prefix: Option<&str>) {
    b.iter_mut().for_each(|s| stmt(s, prefix));
}

fn arguments(a: &mut Arguments, prefix: Option<&str>) {
    names(&mut a.posonly, prefix);
    names(&mut a.args, prefix);
    names(&mut a.kwonly, prefix);
    for n in [&mut a.vararg, &mut a.kwarg].into_iter().flatten() {
        name(n, prefix);
    }
    // Keyword-only defaults and annotations are keyed by the (mangled) parameter
    // names: renamed with the parameters so that they still pair up.
    for (n, e) in a.kw_defaults.iter_mut().chain(a.annotations.iter_mut()) {
        name(n, prefix);
        expr(e, prefix);
    }
    a.defaults.iter_mut().for_each(|e| expr(e, prefix));
    if let Some(r) = &mut a.returns {
        expr(r, prefix);
    }
}

fn expr(e: &mut Expr, prefix: Option<&str>) {
    // Outside every class no name changes: only a class statement inside a
    // definition that the expression holds could matter, and nearly no expression
    // holds one (a look without rewriting is cheaper; issue #7, speed).
    if prefix.is_none() {
        let mut holds_def = false;
        e.walk(&mut |e| holds_def |= matches!(e, Expr::Def(_)));
        if !holds_def {
            return;
        }
    }
    e.walk_mut(&mut |e| match e {
        Expr::Name(n) | Expr::Attribute(_, n) => ident(n, prefix),
        Expr::NamedExpr(n, _) => name(n, prefix),
        // Parameter names only: the defaults and the body were walked already.
        Expr::Lambda(a, _) => {
            names(&mut a.posonly, prefix);
            names(&mut a.args, prefix);
            names(&mut a.kwonly, prefix);
            for n in [&mut a.vararg, &mut a.kwarg].into_iter().flatten() {
                name(n, prefix);
            }
            a.kw_defaults.iter_mut().for_each(|(n, _)| name(n, prefix));
        }
        Expr::Def(s) => stmt(Arc::make_mut(s), prefix),
        _ => {}
    });
}

fn pattern(p: &mut Pattern, prefix: Option<&str>) {
    match p {
        Pattern::Wildcard => {}
        Pattern::Capture(n) => name(n, prefix),
        Pattern::Value(e) | Pattern::Singleton(e) => expr(e, prefix),
        Pattern::Sequence(items, star) => {
            items.iter_mut().for_each(|q| pattern(q, prefix));
            if let Some((_, Some(n))) = star {
                name(n, prefix);
            }
        }
        Pattern::Mapping(items, rest) => {
            for (k, q) in items {
                expr(k, prefix);
                pattern(q, prefix);
            }
            if let Some(n) = rest {
                name(n, prefix);
            }
        }
        // The keyword attribute names of a class pattern are not mangled.
        Pattern::Class(cls, pos, kws) => {
            expr(cls, prefix);
            pos.iter_mut().for_each(|q| pattern(q, prefix));
            kws.iter_mut().for_each(|(_, q)| pattern(q, prefix));
        }
        Pattern::Or(alts) => alts.iter_mut().for_each(|q| pattern(q, prefix)),
        Pattern::As(q, n) => {
            pattern(q, prefix);
            name(n, prefix);
        }
    }
}

fn stmt(s: &mut Stmt, prefix: Option<&str>) {
    match s {
        Stmt::Expr(e) | Stmt::Return(Some(e)) => expr(e, prefix),
        Stmt::Assign(ts, v) => {
            ts.iter_mut().for_each(|t| expr(t, prefix));
            expr(v, prefix);
        }
        Stmt::AugAssign(t, _, v) => {
            expr(t, prefix);
            expr(v, prefix);
        }
        Stmt::Delete(ts) => ts.iter_mut().for_each(|t| expr(t, prefix)),
        Stmt::Raise(a, b) => [a, b].into_iter().flatten().for_each(|e| expr(e, prefix)),
        Stmt::If(c, a, b) | Stmt::While(c, a, b) => {
            expr(c, prefix);
            body(a, prefix);
            body(b, prefix);
        }
        Stmt::For(t, it, a, b) => {
            expr(t, prefix);
            expr(it, prefix);
            body(a, prefix);
            body(b, prefix);
        }
        Stmt::Import(module, alias) => {
            name(module, prefix);
            if let Some(a) = alias {
                name(a, prefix);
            }
        }
        Stmt::ImportFrom(module, items, _) => {
            name(module, prefix);
            for (n, a) in items {
                name(n, prefix);
                if let Some(a) = a {
                    name(a, prefix);
                }
            }
        }
        Stmt::Lazy(inner) => stmt(inner, prefix),
        Stmt::Global(ns) | Stmt::Nonlocal(ns) => names(ns, prefix),
        Stmt::FunctionDef(_, args, b) => {
            arguments(args, prefix);
            body(b, prefix);
        }
        Stmt::ClassDef(class, bases, kws, b, _) => {
            // Bases and keywords are evaluated in the enclosing scope; the body
            // mangles with this class's own name.
            bases.iter_mut().for_each(|e| expr(e, prefix));
            kws.iter_mut().for_each(|k| expr(&mut k.value, prefix));
            body(b, prefix_of(class).as_deref());
        }
        Stmt::Decorated(ds, inner) => {
            ds.iter_mut().for_each(|e| expr(e, prefix));
            stmt(inner, prefix);
        }
        Stmt::Assert(t, m) => {
            expr(t, prefix);
            if let Some(m) = m {
                expr(m, prefix);
            }
        }
        Stmt::AnnAssign(t, a, v) => {
            expr(t, prefix);
            expr(a, prefix);
            if let Some(v) = v {
                expr(v, prefix);
            }
        }
        Stmt::Try(b, handlers, orelse, fin) => {
            body(b, prefix);
            for h in handlers {
                if let Some(t) = &mut h.typ {
                    expr(t, prefix);
                }
                if let Some(n) = &mut h.name {
                    name(n, prefix);
                }
                body(&mut h.body, prefix);
            }
            body(orelse, prefix);
            body(fin, prefix);
        }
        Stmt::With(items, b) => {
            for (e, t) in items {
                expr(e, prefix);
                if let Some(t) = t {
                    expr(t, prefix);
                }
            }
            body(b, prefix);
        }
        // The alias name and its parameters are left as printed (type parameters are
        // text); the value is an expression of the enclosing scope's names.
        Stmt::TypeAlias(_, _, v) => expr(v, prefix),
        Stmt::Match(subject, cases) => {
            expr(subject, prefix);
            for c in cases {
                pattern(&mut c.pattern, prefix);
                if let Some(g) = &mut c.guard {
                    expr(g, prefix);
                }
                body(&mut c.body, prefix);
            }
        }
        Stmt::Return(None) | Stmt::Pass | Stmt::Break | Stmt::Continue => {}
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn n(s: &str) -> Expr {
        Expr::name(s)
    }

    #[test]
    fn names_that_may_be_mangled() {
        for n in ["_C__x", "_Cls__private_name", "_é__x"] {
            assert!(looks_mangled(n), "{n}");
        }
        for n in ["__init__", "_x", "__x__y", "_C__", "self", "_é_", "x__y"] {
            assert!(!looks_mangled(n), "{n}");
        }
        // Every name `unmangled` rewrites looks mangled.
        for (n, class) in [("_C__x", "C"), ("_C__x", "__C"), ("_Ab__c", "Ab")] {
            assert!(unmangled(n, prefix_of(class).as_deref()).is_some() && looks_mangled(n), "{n}");
        }
    }

    #[test]
    fn names_under_a_class_lose_its_prefix_only_where_the_compiler_adds_it() {
        let method = Stmt::FunctionDef(
            "m".into(),
            Box::new(Arguments { args: vec!["self".into(), "_C__p".into()], ..Default::default() }),
            vec![
                Stmt::Assign(vec![Expr::Attribute(Box::new(n("self")), "_C__a".into())], n("_C__p")),
                // Dunder names, other classes' prefixes and dotted modules stay.
                Stmt::Expr(Expr::Tuple(vec![n("_C__init__"), n("_D__x"), n("_C__")])),
                Stmt::Import("_C__x.y".into(), None),
            ],
        );
        let inner = Stmt::ClassDef("__D".into(), vec![n("_C__base")], vec![], vec![Stmt::Expr(n("_D__x"))], vec![]);
        let mut body = vec![
            Stmt::Expr(n("_C__top")),
            Stmt::ClassDef("C".into(), vec![], vec![], vec![method, inner], vec![]),
        ];
        rewrite(&mut body);
        let text = depyf_source::print_body(&body, 0);
        assert_eq!(
            text,
            "_C__top\nclass C:\n    def m(self, __p):\n        self.__a = __p\n        (_C__init__, _D__x, _C__)\n        import _C__x.y\n    class __D(__base):\n        __x\n"
        );
    }

    #[test]
    fn a_class_named_by_underscores_mangles_nothing() {
        assert_eq!(prefix_of("___"), None);
        assert_eq!(prefix_of("__C").as_deref(), Some("_C"));
    }
}
