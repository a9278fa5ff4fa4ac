//! Printing the AST as Python source. Precedence levels follow the CPython grammar
//! (`Grammar/python.gram`, and the table of `Lib/ast.py` `_Precedence`).

use std::fmt::Write;

use depyf_bytecode::Constant;

use crate::ast::{Arguments, Expr, Keyword, Stmt};

// Precedence levels, lowest binding first.
const P_TUPLE: u8 = 0;
const P_TEST: u8 = 1; // if-else
const P_OR: u8 = 2;
const P_AND: u8 = 3;
const P_NOT: u8 = 4;
const P_CMP: u8 = 5;
const P_BOR: u8 = 6;
const P_BXOR: u8 = 7;
const P_BAND: u8 = 8;
const P_SHIFT: u8 = 9;
const P_ARITH: u8 = 10;
const P_TERM: u8 = 11;
const P_FACTOR: u8 = 12;
const P_POWER: u8 = 13;
const P_ATOM: u8 = 15;

fn binop_prec(op: &str) -> u8 {
    match op {
        "|" => P_BOR,
        "^" => P_BXOR,
        "&" => P_BAND,
        "<<" | ">>" => P_SHIFT,
        "+" | "-" => P_ARITH,
        "*" | "@" | "/" | "//" | "%" => P_TERM,
        "**" => P_POWER,
        _ => P_ATOM,
    }
}

fn prec(e: &Expr) -> u8 {
    match e {
        Expr::Tuple(_) => P_ATOM, // always printed with parentheses
        Expr::IfExp(..) => P_TEST,
        Expr::BoolOp(true, _) => P_AND,
        Expr::BoolOp(false, _) => P_OR,
        Expr::UnaryOp("not", _) => P_NOT,
        Expr::UnaryOp(..) => P_FACTOR,
        Expr::Compare(..) => P_CMP,
        Expr::BinOp(_, op, _) => binop_prec(op),
        Expr::Const(c) if is_negative_number(c) => P_FACTOR,
        Expr::Starred(_) => P_BOR,
        _ => P_ATOM,
    }
}

fn is_negative_number(c: &Constant) -> bool {
    match c {
        Constant::Int(v) => *v < 0,
        Constant::BigInt(s) => s.starts_with('-'),
        Constant::Float(f) => f.is_sign_negative() && !f.is_nan(),
        Constant::Complex(re, im) => *re != 0.0 || re.is_sign_negative() || im.is_sign_negative(),
        _ => false,
    }
}

/// Prints one expression as Python source (no trailing newline).
pub fn print_expr(e: &Expr) -> String {
    let mut s = String::new();
    expr(&mut s, e, P_TUPLE);
    s
}

fn paren(out: &mut String, e: &Expr, min: u8) {
    if prec(e) < min {
        out.push('(');
        expr(out, e, P_TUPLE);
        out.push(')');
    } else {
        expr(out, e, min);
    }
}

fn comma_list(out: &mut String, items: &[Expr]) {
    for (i, e) in items.iter().enumerate() {
        if i > 0 {
            out.push_str(", ");
        }
        paren(out, e, P_TEST);
    }
}

fn expr(out: &mut String, e: &Expr, _ctx: u8) {
    match e {
        Expr::Name(n) => out.push_str(n),
        Expr::Const(c) => out.push_str(&constant_literal(c)),
        Expr::Attribute(v, attr) => {
            let needs = prec(v) < P_ATOM
                || matches!(&**v, Expr::Const(Constant::Int(_) | Constant::BigInt(_) | Constant::Float(_) | Constant::Complex(..)));
            if needs {
                out.push('(');
                expr(out, v, P_TUPLE);
                out.push(')');
            } else {
                expr(out, v, P_ATOM);
            }
            out.push('.');
            out.push_str(attr);
        }
        Expr::Subscript(v, idx) => {
            paren(out, v, P_ATOM);
            out.push('[');
            match &**idx {
                Expr::Slice(..) => expr(out, idx, P_TUPLE),
                Expr::Tuple(items) if !items.is_empty() && items.iter().any(|i| matches!(i, Expr::Slice(..))) => {
                    for (i, it) in items.iter().enumerate() {
                        if i > 0 {
                            out.push_str(", ");
                        }
                        match it {
                            Expr::Slice(..) => expr(out, it, P_TUPLE),
                            _ => paren(out, it, P_TEST),
                        }
                    }
                }
                _ => paren(out, idx, P_TEST),
            }
            out.push(']');
        }
        Expr::Slice(a, b, c) => {
            if let Some(a) = a {
                paren(out, a, P_TEST);
            }
            out.push(':');
            if let Some(b) = b {
                paren(out, b, P_TEST);
            }
            if let Some(c) = c {
                out.push(':');
                paren(out, c, P_TEST);
            }
        }
        Expr::Call(func, args, kws) => {
            paren(out, func, P_ATOM);
            out.push('(');
            let mut first = true;
            for a in args {
                if !first {
                    out.push_str(", ");
                }
                first = false;
                paren(out, a, P_TEST);
            }
            for Keyword { name, value } in kws {
                if !first {
                    out.push_str(", ");
                }
                first = false;
                match name {
                    Some(n) => {
                        out.push_str(n);
                        out.push('=');
                    }
                    None => out.push_str("**"),
                }
                paren(out, value, if name.is_some() { P_TEST } else { P_BOR });
            }
            out.push(')');
        }
        Expr::Starred(v) => {
            out.push('*');
            paren(out, v, P_BOR);
        }
        Expr::BinOp(l, op, r) => {
            let p = binop_prec(op);
            if *op == "**" {
                paren(out, l, p + 1);
                let _ = write!(out, " {op} ");
                paren(out, r, P_FACTOR);
            } else {
                paren(out, l, p);
                let _ = write!(out, " {op} ");
                paren(out, r, p + 1);
            }
        }
        Expr::UnaryOp(op, v) => {
            if *op == "not" {
                out.push_str("not ");
                paren(out, v, P_NOT);
            } else {
                out.push_str(op);
                paren(out, v, P_FACTOR);
            }
        }
        Expr::Compare(l, rest) => {
            paren(out, l, P_CMP + 1);
            for (op, r) in rest {
                let _ = write!(out, " {op} ");
                paren(out, r, P_CMP + 1);
            }
        }
        Expr::BoolOp(is_and, vals) => {
            let p = if *is_and { P_AND } else { P_OR };
            for (i, v) in vals.iter().enumerate() {
                if i > 0 {
                    out.push_str(if *is_and { " and " } else { " or " });
                }
                paren(out, v, p + 1);
            }
        }
        Expr::IfExp(test, body, orelse) => {
            paren(out, body, P_TEST + 1);
            out.push_str(" if ");
            paren(out, test, P_TEST + 1);
            out.push_str(" else ");
            paren(out, orelse, P_TEST);
        }
        Expr::Tuple(items) => {
            out.push('(');
            comma_list(out, items);
            if items.len() == 1 {
                out.push(',');
            }
            out.push(')');
        }
        Expr::List(items) => {
            out.push('[');
            comma_list(out, items);
            out.push(']');
        }
        Expr::Set(items) => {
            if items.is_empty() {
                out.push_str("set()");
            } else {
                out.push('{');
                comma_list(out, items);
                out.push('}');
            }
        }
        Expr::Dict(items) => {
            out.push('{');
            for (i, (k, v)) in items.iter().enumerate() {
                if i > 0 {
                    out.push_str(", ");
                }
                match k {
                    Some(k) => {
                        paren(out, k, P_TEST);
                        out.push_str(": ");
                        paren(out, v, P_TEST);
                    }
                    None => {
                        out.push_str("**");
                        paren(out, v, P_BOR);
                    }
                }
            }
            out.push('}');
        }
    }
}

fn float_literal(f: f64) -> String {
    if f.is_nan() {
        return "float('nan')".into();
    }
    if f.is_infinite() {
        return if f > 0.0 { "1e309".into() } else { "-1e309".into() };
    }
    let s = format!("{f:?}");
    if s.contains(['.', 'e', 'E']) {
        s
    } else {
        format!("{s}.0")
    }
}

fn str_literal(s: &str) -> String {
    let quote = if s.contains('\'') && !s.contains('"') { '"' } else { '\'' };
    let mut out = String::with_capacity(s.len() + 2);
    out.push(quote);
    for ch in s.chars() {
        match ch {
            '\\' => out.push_str("\\\\"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            '\t' => out.push_str("\\t"),
            c if c == quote => {
                out.push('\\');
                out.push(c);
            }
            c if (c as u32) < 0x20 || c as u32 == 0x7f || (0x80..0xa0).contains(&(c as u32)) => {
                let _ = write!(out, "\\x{:02x}", c as u32);
            }
            c if matches!(c as u32, 0x2028 | 0x2029 | 0xfeff | 0x200b..=0x200f) => {
                let _ = write!(out, "\\u{:04x}", c as u32);
            }
            c => out.push(c),
        }
    }
    out.push(quote);
    out
}

fn bytes_literal(b: &[u8]) -> String {
    let quote = if b.contains(&b'\'') && !b.contains(&b'"') { b'"' } else { b'\'' };
    let mut out = String::from("b");
    out.push(quote as char);
    for &c in b {
        match c {
            b'\\' => out.push_str("\\\\"),
            b'\n' => out.push_str("\\n"),
            b'\r' => out.push_str("\\r"),
            b'\t' => out.push_str("\\t"),
            c if c == quote => {
                out.push('\\');
                out.push(c as char);
            }
            0x20..=0x7e => out.push(c as char),
            c => {
                let _ = write!(out, "\\x{c:02x}");
            }
        }
    }
    out.push(quote as char);
    out
}

/// The Python literal of a constant, e.g. `'a\\n'`, `(1,)`, `1e309`, `frozenset({1})`.
/// Code objects and opaque objects have no literal: they print as a placeholder name
/// (`__code_<name>` / `__const_<index>`), which callers replace before printing.
pub fn constant_literal(c: &Constant) -> String {
    match c {
        Constant::None => "None".into(),
        Constant::Ellipsis => "...".into(),
        Constant::Bool(b) => if *b { "True" } else { "False" }.into(),
        Constant::Int(v) => v.to_string(),
        Constant::BigInt(s) => s.clone(),
        Constant::Float(f) => float_literal(*f),
        Constant::Complex(re, im) => {
            let imag = if im.is_finite() { format!("{}j", float_literal(*im)) } else { format!("({}*1j)", float_literal(*im)) };
            if *re == 0.0 && !re.is_sign_negative() {
                imag
            } else {
                format!("({} + {})", float_literal(*re), imag)
            }
        }
        Constant::Str(s) => str_literal(s),
        Constant::Bytes(b) => bytes_literal(b),
        Constant::Tuple(items) => {
            let parts: Vec<String> = items.iter().map(constant_literal).collect();
            if parts.len() == 1 {
                format!("({},)", parts[0])
            } else {
                format!("({})", parts.join(", "))
            }
        }
        Constant::FrozenSet(items) => {
            if items.is_empty() {
                "frozenset()".into()
            } else {
                let parts: Vec<String> = items.iter().map(constant_literal).collect();
                format!("frozenset({{{}}})", parts.join(", "))
            }
        }
        Constant::Code(code) => format!("__code_{}", code.co_name),
        Constant::Opaque { index, .. } => format!("__const_{index}"),
    }
}

fn arguments(out: &mut String, a: &Arguments) {
    let mut parts: Vec<String> = Vec::new();
    parts.extend(a.posonly.iter().cloned());
    if !a.posonly.is_empty() {
        parts.push("/".into());
    }
    parts.extend(a.args.iter().cloned());
    if let Some(v) = &a.vararg {
        parts.push(format!("*{v}"));
    } else if !a.kwonly.is_empty() {
        parts.push("*".into());
    }
    parts.extend(a.kwonly.iter().cloned());
    if let Some(k) = &a.kwarg {
        parts.push(format!("**{k}"));
    }
    out.push_str(&parts.join(", "));
}

fn indent(out: &mut String, level: usize) {
    for _ in 0..level {
        out.push_str("    ");
    }
}

fn block(out: &mut String, body: &[Stmt], level: usize) {
    if body.is_empty() {
        indent(out, level);
        out.push_str("pass\n");
    } else {
        for s in body {
            stmt(out, s, level);
        }
    }
}

fn target(out: &mut String, t: &Expr) {
    match t {
        Expr::Tuple(items) if !items.is_empty() => {
            for (i, it) in items.iter().enumerate() {
                if i > 0 {
                    out.push_str(", ");
                }
                paren(out, it, P_BOR);
            }
            if items.len() == 1 {
                out.push(',');
            }
        }
        _ => paren(out, t, P_TEST),
    }
}

fn stmt(out: &mut String, s: &Stmt, level: usize) {
    indent(out, level);
    match s {
        Stmt::Expr(e) => {
            paren(out, e, P_TEST);
            out.push('\n');
        }
        Stmt::Assign(targets, value) => {
            for t in targets {
                target(out, t);
                out.push_str(" = ");
            }
            match value {
                Expr::Tuple(items) if !items.is_empty() => {
                    comma_list(out, items);
                    if items.len() == 1 {
                        out.push(',');
                    }
                }
                _ => paren(out, value, P_TEST),
            }
            out.push('\n');
        }
        Stmt::AugAssign(t, op, v) => {
            target(out, t);
            let _ = write!(out, " {op} ");
            paren(out, v, P_TEST);
            out.push('\n');
        }
        Stmt::Delete(targets) => {
            out.push_str("del ");
            for (i, t) in targets.iter().enumerate() {
                if i > 0 {
                    out.push_str(", ");
                }
                paren(out, t, P_BOR);
            }
            out.push('\n');
        }
        Stmt::Return(v) => {
            out.push_str("return");
            if let Some(v) = v {
                out.push(' ');
                match v {
                    Expr::Tuple(items) if !items.is_empty() => {
                        comma_list(out, items);
                        if items.len() == 1 {
                            out.push(',');
                        }
                    }
                    _ => paren(out, v, P_TEST),
                }
            }
            out.push('\n');
        }
        Stmt::Raise(exc, cause) => {
            out.push_str("raise");
            if let Some(e) = exc {
                out.push(' ');
                paren(out, e, P_TEST);
            }
            if let Some(c) = cause {
                out.push_str(" from ");
                paren(out, c, P_TEST);
            }
            out.push('\n');
        }
        Stmt::If(test, body, orelse) => {
            out.push_str("if ");
            paren(out, test, P_TEST);
            out.push_str(":\n");
            block(out, body, level + 1);
            let mut orelse = orelse;
            loop {
                match orelse.as_slice() {
                    [] => break,
                    [Stmt::If(t, b, o)] => {
                        indent(out, level);
                        out.push_str("elif ");
                        paren(out, t, P_TEST);
                        out.push_str(":\n");
                        block(out, b, level + 1);
                        orelse = o;
                    }
                    rest => {
                        indent(out, level);
                        out.push_str("else:\n");
                        block(out, rest, level + 1);
                        break;
                    }
                }
            }
        }
        Stmt::Pass => out.push_str("pass\n"),
        Stmt::Break => out.push_str("break\n"),
        Stmt::Continue => out.push_str("continue\n"),
        Stmt::While(test, body, orelse) => {
            out.push_str("while ");
            paren(out, test, P_TEST);
            out.push_str(":\n");
            block(out, body, level + 1);
            if !orelse.is_empty() {
                indent(out, level);
                out.push_str("else:\n");
                block(out, orelse, level + 1);
            }
        }
        Stmt::For(t, iter, body, orelse) => {
            out.push_str("for ");
            target(out, t);
            out.push_str(" in ");
            match iter {
                Expr::Tuple(items) if !items.is_empty() => {
                    comma_list(out, items);
                    if items.len() == 1 {
                        out.push(',');
                    }
                }
                _ => paren(out, iter, P_TEST),
            }
            out.push_str(":\n");
            block(out, body, level + 1);
            if !orelse.is_empty() {
                indent(out, level);
                out.push_str("else:\n");
                block(out, orelse, level + 1);
            }
        }
        Stmt::Import(module, alias) => {
            let _ = write!(out, "import {module}");
            if let Some(a) = alias {
                let _ = write!(out, " as {a}");
            }
            out.push('\n');
        }
        Stmt::ImportFrom(module, names, level_dots) => {
            let _ = write!(out, "from {}{module} import ", ".".repeat(*level_dots as usize));
            let parts: Vec<String> = names
                .iter()
                .map(|(n, a)| match a {
                    Some(a) => format!("{n} as {a}"),
                    None => n.clone(),
                })
                .collect();
            out.push_str(&parts.join(", "));
            out.push('\n');
        }
        Stmt::Global(names) => {
            let _ = writeln!(out, "global {}", names.join(", "));
        }
        Stmt::Nonlocal(names) => {
            let _ = writeln!(out, "nonlocal {}", names.join(", "));
        }
        Stmt::FunctionDef(name, args, body) => {
            let _ = write!(out, "def {name}(");
            arguments(out, args);
            out.push_str("):\n");
            block(out, body, level + 1);
        }
    }
}

/// Prints statements at indentation `level` (4 spaces each), one per line, with a
/// trailing newline; an empty body prints `pass`.
pub fn print_body(body: &[Stmt], level: usize) -> String {
    let mut out = String::new();
    block(&mut out, body, level);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    macro_rules! assert_prints {
        ($e:expr, $s:expr) => {
            assert_eq!(print_expr(&$e), $s)
        };
    }

    fn n(s: &str) -> Expr {
        Expr::name(s)
    }

    #[test]
    fn precedence() {
        assert_prints!(n("a").binop("-", n("b").binop("-", n("c"))), "a - (b - c)");
        assert_prints!(n("a").binop("-", n("b")).binop("-", n("c")), "a - b - c");
        assert_prints!(n("a").binop("**", n("b")).binop("**", n("c")), "(a ** b) ** c");
        assert_prints!(n("a").binop("**", n("b").binop("**", n("c"))), "a ** b ** c");
        assert_prints!(Expr::UnaryOp("-", Box::new(n("a").binop("**", n("b")))), "-a ** b");
        assert_prints!(Expr::Const(Constant::Int(-1)).binop("**", n("b")), "(-1) ** b");
        assert_prints!(Expr::Attribute(Box::new(Expr::int(1)), "real".into()), "(1).real");
        assert_prints!(Expr::Tuple(vec![n("a")]), "(a,)");
        assert_prints!(
            Expr::UnaryOp("not", Box::new(Expr::Compare(Box::new(n("a")), vec![("<", n("b"))]))),
            "not a < b"
        );
    }

    #[test]
    fn literals() {
        assert_eq!(constant_literal(&Constant::Str("it's".into())), "\"it's\"");
        assert_eq!(constant_literal(&Constant::Str("a'\"\n".into())), "'a\\'\"\\n'");
        assert_eq!(constant_literal(&Constant::Bytes(vec![0, b'a'])), "b'\\x00a'");
        assert_eq!(constant_literal(&Constant::Float(1e16)), "1e16");
        assert_eq!(constant_literal(&Constant::Float(2.0)), "2.0");
        assert_eq!(constant_literal(&Constant::Float(f64::INFINITY)), "1e309");
        assert_eq!(constant_literal(&Constant::Complex(0.0, 2.0)), "2.0j");
        assert_eq!(constant_literal(&Constant::Tuple(vec![Constant::Int(1)])), "(1,)");
    }
}
