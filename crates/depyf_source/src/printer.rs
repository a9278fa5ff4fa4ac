//! Printing the AST as Python source. Precedence levels follow the CPython grammar
//! (`Grammar/python.gram`, and the table of `Lib/ast.py` `_Precedence`).

use std::fmt::Write;

use depyf_bytecode::Constant;

use crate::ast::{Arguments, CompKind, Comprehension, Expr, FPart, FStringSyntax, Keyword, Stmt, Pattern};

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
/// Context of a subscript's index, the one place where `a:b` is a slice.
const P_SUBSCRIPT: u8 = 16;

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
        Expr::IfExp(..) | Expr::Lambda(..) | Expr::SourceText(_) => P_TEST,
        Expr::BoolOp(true, _) => P_AND,
        Expr::BoolOp(false, _) => P_OR,
        Expr::UnaryOp("not", _) => P_NOT,
        Expr::UnaryOp(..) => P_FACTOR,
        Expr::Compare(..) => P_CMP,
        Expr::BinOp(_, op, _) => binop_prec(op),
        Expr::Const(c) if is_negative_number(c) => P_FACTOR,
        Expr::Starred(_) => P_BOR,
        Expr::Yield(_) | Expr::YieldFrom(_) => 0,
        Expr::Await(_) => P_POWER + 1,
        _ => P_ATOM,
    }
}

fn is_negative_number(c: &Constant) -> bool {
    match c {
        Constant::Int(v) => *v < 0,
        Constant::BigInt(s) => s.starts_with('-'),
        Constant::Float(f) => f.is_sign_negative() && !f.is_nan(),
        Constant::Complex(re, im) => complex_literal(*re, *im).starts_with('-'),
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
        Expr::SourceText(n) => out.push_str(n),
        Expr::Const(c) => write_constant(out, c),
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
                Expr::Slice(..) => expr(out, idx, P_SUBSCRIPT),
                // `d[i, j]` as written (a tuple of two or more, no starred item: `d[*a]`
                // needs 3.11), and every tuple with a slice in it.
                Expr::Tuple(items)
                    if (items.len() >= 2 && !items.iter().any(|i| matches!(i, Expr::Starred(..))))
                        || (!items.is_empty() && items.iter().any(|i| matches!(i, Expr::Slice(..)))) =>
                {
                    for (i, it) in items.iter().enumerate() {
                        if i > 0 {
                            out.push_str(", ");
                        }
                        match it {
                            Expr::Slice(..) => expr(out, it, P_SUBSCRIPT),
                            _ => paren(out, it, P_TEST),
                        }
                    }
                }
                _ => paren(out, idx, P_TEST),
            }
            out.push(']');
        }
        Expr::Slice(..) if _ctx != P_SUBSCRIPT => {
            // Outside a subscript a slice is the call that builds the same object.
            let Expr::Slice(a, b, c) = e else { unreachable!("matched") };
            let none = Expr::Const(Constant::None);
            let mut parts = vec![a.as_deref().unwrap_or(&none).clone(), b.as_deref().unwrap_or(&none).clone()];
            if let Some(c) = c {
                parts.push((**c).clone());
            }
            out.push_str("slice(");
            comma_list(out, &parts);
            out.push(')');
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
            if let ([gen @ Expr::Comp(CompKind::Generator, ..)], []) = (args.as_slice(), kws.as_slice()) {
                // `f(x for x in y)`: a sole generator argument needs no parentheses.
                expr(out, gen, P_TUPLE);
                return;
            }
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
        Expr::NewLine(v) => {
            out.push_str("(\n");
            expr(out, v, P_TUPLE);
            out.push(')');
        }
        Expr::BinOp(l, op, r) => {
            let p = binop_prec(op);
            if *op == "**" {
                paren(out, l, p + 1);
                out.push(' ');
                out.push_str(op);
                out.push(' ');
                paren(out, r, P_FACTOR);
            } else {
                paren(out, l, p);
                out.push(' ');
                out.push_str(op);
                out.push(' ');
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
                out.push(' ');
                out.push_str(op);
                out.push(' ');
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
        Expr::NamedExpr(name, value) => {
            out.push('(');
            out.push_str(name);
            out.push_str(" := ");
            paren(out, value, P_TEST);
            out.push(')');
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
        Expr::Lambda(args, body) => {
            out.push_str("lambda");
            let mut params = String::new();
            arguments(&mut params, args, false);
            if !params.is_empty() {
                out.push(' ');
                out.push_str(&params);
            }
            out.push_str(": ");
            paren(out, body, P_TEST);
        }
        Expr::Comp(kind, elt, gens) => {
            let (open, close) = match kind {
                CompKind::List => ('[', ']'),
                CompKind::Set => ('{', '}'),
                CompKind::Generator => ('(', ')'),
            };
            out.push(open);
            paren(out, elt, P_TEST);
            comprehensions(out, gens);
            out.push(close);
        }
        Expr::DictComp(k, v, gens) => {
            out.push('{');
            paren(out, k, P_TEST);
            out.push_str(": ");
            paren(out, v, P_TEST);
            comprehensions(out, gens);
            out.push('}');
        }
        // Recovery checks `fstring` first; the fallback does not compile.
        Expr::FString(parts, syntax) => out.push_str(&fstring(parts, *syntax).unwrap_or_else(|| "<f-string without a quoting>".into())),
        Expr::TString(parts, texts) => out.push_str(&tstring(parts, texts).unwrap_or_else(|| "<t-string without a quoting>".into())),
        Expr::Yield(v) => {
            out.push_str("yield");
            if let Some(v) = v {
                out.push(' ');
                yield_value(out, v);
            }
        }
        Expr::YieldFrom(v) => {
            out.push_str("yield from ");
            paren(out, v, P_TEST);
        }
        Expr::Await(v) => {
            out.push_str("await ");
            paren(out, v, P_POWER + 1);
        }
        Expr::Def(s) => {
            let name = match &**s {
                Stmt::FunctionDef(n, ..) | Stmt::ClassDef(n, ..) => n.as_str(),
                _ => "?",
            };
            out.push_str("<def ");
            out.push_str(name);
            out.push('>');
        }
    }
}

fn comprehensions(out: &mut String, gens: &[Comprehension]) {
    for g in gens {
        let iter = match g.iter.async_inner() {
            Some(inner) => {
                out.push_str(" async for ");
                inner
            }
            None => {
                out.push_str(" for ");
                &g.iter
            }
        };
        target(out, &g.target);
        out.push_str(" in ");
        paren(out, iter, P_OR);
        for (k, c) in g.ifs.iter().enumerate() {
            out.push_str(if g.ifs_on_new_line.get(k).copied().unwrap_or(false) { "\n if " } else { " if " });
            paren(out, c, P_OR);
        }
    }
}

/// The source text of a replacement field's expression, as it appears between the
/// braces (a leading `{` would read as an escaped brace: a space goes first).
fn field_text(e: &Expr) -> String {
    let mut s = String::new();
    // A field is written on one line: its operands' own lines are dropped.
    paren(&mut s, &e.without_line_breaks(), P_TEST + 1);
    if s.starts_with('{') {
        s.insert(0, ' ');
    }
    s
}

fn fields_of(parts: &[FPart], out: &mut Vec<String>) {
    for p in parts {
        if let FPart::Field(v, _, spec) = p {
            out.push(field_text(v));
            if let Some(spec) = spec {
                fields_of(spec, out);
            }
        }
    }
}

/// Prints an f-string whose source follows `syntax`, choosing quotes that its
/// replacement fields do not use. Before CPython 3.12 ([`FStringSyntax::Pep498`]) a
/// field cannot contain the enclosing quote, a backslash or `#`; from 3.12 on
/// ([`FStringSyntax::Pep701`], PEP 701) it may, so such f-strings print too, reusing a
/// quote. `None` when no quoting works (a field that spans lines, or an old-rules field
/// with a backslash, `#` or every kind of quote).
pub fn fstring(parts: &[FPart], syntax: FStringSyntax) -> Option<String> {
    let mut fields = Vec::new();
    fields_of(parts, &mut fields);
    quoted_fields("f", parts, &fields, None, syntax)
}

/// Whether [`fstring`] prints `parts` (is `Some`), without writing the f-string.
pub fn fstring_fits(parts: &[FPart], syntax: FStringSyntax) -> bool {
    let mut fields = Vec::new();
    fields_of(parts, &mut fields);
    field_quote(&fields, syntax).is_some()
}

/// The source of a template string (CPython 3.14+, PEP 750, so PEP 701 rules as in
/// [`fstring`]): each top-level interpolation written as `texts` gives it (the
/// expression's source text, which the template keeps); `None` when a field text spans
/// lines or `texts` does not have one text per interpolation.
pub fn tstring(parts: &[FPart], texts: &[String]) -> Option<String> {
    if parts.iter().filter(|p| matches!(p, FPart::Field(..))).count() != texts.len() {
        return None;
    }
    let mut fields = texts.to_vec();
    for p in parts {
        if let FPart::Field(_, _, Some(spec)) = p {
            fields_of(spec, &mut fields);
        }
    }
    quoted_fields("t", parts, &fields, Some(texts), FStringSyntax::Pep701)
}

/// `prefix` and the quoted parts: in the first quote that old-rules fields allow
/// (so f-strings print alike for every version where they can), else under PEP 701
/// in a single quote that no field contains, else in `'` reused by the fields.
///
/// No field text may contain a line break: only a triple-quoted f-string can hold
/// one, and a `#` after it would start a comment. Without line breaks a `#` can only
/// be inside a string literal of the field (the printer writes no comments, and a
/// template's text ends at its `}`), which PEP 701 allows.
fn quoted_fields(prefix: &str, parts: &[FPart], fields: &[String], texts: Option<&[String]>, syntax: FStringSyntax) -> Option<String> {
    let quote = field_quote(fields, syntax)?;
    let qc = quote.chars().next().expect("non-empty");
    let mut out = String::from(prefix);
    out.push_str(quote);
    match texts {
        Some(texts) => fstring_parts(&mut out, parts, qc, &mut texts.iter(), false),
        // An f-string's `fields` are the texts of all its fields, nested ones
        // included, in the order they are written: not printed a second time.
        None => fstring_parts(&mut out, parts, qc, &mut fields.iter(), true),
    }
    out.push_str(quote);
    Some(out)
}

/// The quote of [`quoted_fields`] for fields of the texts `fields`: `None` when no
/// quoting works.
fn field_quote(fields: &[String], syntax: FStringSyntax) -> Option<&'static str> {
    if fields.iter().any(|f| f.contains(['\n', '\r'])) {
        return None;
    }
    let plain = fields.iter().all(|f| !f.contains(['\\', '#']));
    let fits = |q: &str| {
        let c = q.chars().next().expect("non-empty");
        fields.iter().all(|f| if q.len() == 1 { !f.contains(c) } else { !f.contains(q) && !f.ends_with(c) && !f.starts_with(c) })
    };
    let old_rules = ["'", "\"", "'''", "\"\"\""].into_iter().find(|q| plain && fits(q));
    match (old_rules, syntax) {
        (Some(q), _) => Some(q),
        (None, FStringSyntax::Pep498) => None,
        (None, FStringSyntax::Pep701) => Some(["'", "\""].into_iter().find(|q| fits(q)).unwrap_or("'")),
    }
}

/// Prints `parts` in `quote`; fields take their text from `texts` while it lasts
/// (a template string's interpolations, or every field of an f-string), else from
/// their expression. The fields of a format spec read on in `texts` when
/// `specs_too`, else take theirs from their expressions.
fn fstring_parts(out: &mut String, parts: &[FPart], quote: char, texts: &mut std::slice::Iter<'_, String>, specs_too: bool) {
    for p in parts {
        match p {
            FPart::Lit(s) => {
                for ch in s.chars() {
                    match ch {
                        '{' => out.push_str("{{"),
                        '}' => out.push_str("}}"),
                        c => push_escaped(out, c, quote),
                    }
                }
            }
            FPart::Field(v, conv, spec) => {
                out.push('{');
                match texts.next() {
                    Some(t) => out.push_str(t),
                    None => out.push_str(&field_text(v)),
                }
                if let Some(c) = conv {
                    out.push('!');
                    out.push(*c);
                }
                if let Some(spec) = spec {
                    out.push(':');
                    if specs_too {
                        fstring_parts(out, spec, quote, texts, true);
                    } else {
                        fstring_parts(out, spec, quote, &mut [].iter(), false);
                    }
                }
                out.push('}');
            }
        }
    }
}

/// One character of a string literal enclosed in `quote`.
fn push_escaped(out: &mut String, ch: char, quote: char) {
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
    let mut out = String::with_capacity(s.len() + 2);
    push_str_literal(&mut out, s);
    out
}

/// Appends [`str_literal`] of `s` to `out`.
fn push_str_literal(out: &mut String, s: &str) {
    let quote = if s.contains('\'') && !s.contains('"') { '"' } else { '\'' };
    out.reserve(s.len() + 2);
    out.push(quote);
    // Runs of characters that stand for themselves are copied at once (docstrings
    // are long); the others go through `push_escaped`.
    // Printable ASCII other than the quote and the backslash is tested by byte, without
    // decoding a char.
    let bytes = s.as_bytes();
    let mut plain = 0;
    let mut i = 0;
    while i < bytes.len() {
        // Eight plain bytes at a time (docstrings are mostly plain).
        if let Some(w) = bytes.get(i..i + 8) {
            if plain_word(u64::from_le_bytes(w.try_into().expect("eight bytes")), quote as u8) {
                i += 8;
                continue;
            }
        }
        let b = bytes[i];
        if (0x20..0x7f).contains(&b) && b != b'\\' && char::from(b) != quote {
            i += 1;
            continue;
        }
        let ch = s[i..].chars().next().expect("i is a char boundary");
        if needs_escape(ch, quote) {
            out.push_str(&s[plain..i]);
            push_escaped(out, ch, quote);
            plain = i + ch.len_utf8();
        }
        i += ch.len_utf8();
    }
    out.push_str(&s[plain..]);
    out.push(quote);
}

/// Whether each of the eight bytes of `w` is printable ASCII (`0x20..0x7f`) other
/// than the backslash and `quote`: bytes that [`str_literal`] copies as they are.
/// May answer `false` for such a word (the caller then looks at one byte), never
/// `true` for another (bit tricks of "Bit Twiddling Hacks", `haszero`/`hasless`).
fn plain_word(w: u64, quote: u8) -> bool {
    const ONES: u64 = 0x0101_0101_0101_0101;
    const HIGHS: u64 = 0x8080_8080_8080_8080;
    let has_zero = |x: u64| x.wrapping_sub(ONES) & !x & HIGHS != 0;
    // A byte below 0x20, or 0x7f and above (0x7f + 1 sets the high bit).
    let below = w.wrapping_sub(ONES * 0x20) & !w & HIGHS != 0;
    let above = (w.wrapping_add(ONES) | w) & HIGHS != 0;
    !(below || above || has_zero(w ^ (ONES * u64::from(b'\\'))) || has_zero(w ^ (ONES * u64::from(quote))))
}

/// Whether [`push_escaped`] writes `ch` as something else than itself.
fn needs_escape(ch: char, quote: char) -> bool {
    let c = ch as u32;
    if (0x20..0x7f).contains(&c) {
        return ch == '\\' || ch == quote;
    }
    c < 0x20 || c == 0x7f || (0x80..0xa0).contains(&c) || matches!(c, 0x2028 | 0x2029 | 0xfeff | 0x200b..=0x200f)
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

/// A complex literal that evaluates to exactly `complex(re, im)`, signed zeros,
/// infinities and NaNs included: `2.0j`, `-2.0j` (which is `complex(-0.0, -2.0)`),
/// `(1.0 + 2.0j)`, `(1.0 - 2.0j)`, else a `complex(re, im)` call.
fn complex_literal(re: f64, im: f64) -> String {
    let imag = |x: f64| -> Option<String> { (!x.is_nan()).then(|| format!("{}j", float_literal(x.abs()))) };
    let zero = |x: f64| x == 0.0;
    if zero(re) && !re.is_sign_negative() && !im.is_sign_negative() {
        if let Some(i) = imag(im) {
            return i;
        }
    }
    if zero(re) && re.is_sign_negative() && im.is_sign_negative() {
        if let Some(i) = imag(im) {
            return format!("-{i}");
        }
    }
    // `re + imj` adds re to complex(0.0, im): exact unless re is -0.0 (becomes
    // +0.0) or im is -0.0 with a subtraction (0.0 - 0.0 is +0.0).
    if !re.is_nan() && !(zero(re) && re.is_sign_negative()) && !(zero(im) && im.is_sign_negative()) {
        if let Some(i) = imag(im) {
            let op = if im.is_sign_negative() { "-" } else { "+" };
            return format!("({} {op} {i})", float_literal(re));
        }
    }
    format!("complex({}, {})", float_literal(re), float_literal(im))
}

/// The Python literal of a constant, e.g. `'a\\n'`, `(1,)`, `1e309`, `frozenset({1})`.
/// Code objects and opaque objects have no literal: they print as a placeholder name
/// (`__code_<name>` / `__const_<index>`), which callers replace before printing.
pub fn constant_literal(c: &Constant) -> String {
    let mut out = String::new();
    write_constant(&mut out, c);
    out
}

/// Appends the decimal digits of `v` (with its `-`) to `out`: what `{v}` formats,
/// without the formatting machinery (the printer writes one for every int constant).
fn push_int(out: &mut String, v: i64) {
    let mut digits = [0u8; 20];
    let mut n = v.unsigned_abs();
    let mut at = digits.len();
    loop {
        at -= 1;
        digits[at] = b'0' + (n % 10) as u8;
        n /= 10;
        if n == 0 {
            break;
        }
    }
    if v < 0 {
        out.push('-');
    }
    out.push_str(std::str::from_utf8(&digits[at..]).expect("ASCII digits"));
}

/// Appends [`constant_literal`] of `c` to `out` (without a `String` of its own for
/// the common constants: the printer writes one for every constant it meets).
fn write_constant(out: &mut String, c: &Constant) {
    match c {
        Constant::None => out.push_str("None"),
        Constant::Ellipsis => out.push_str("..."),
        Constant::Bool(b) => out.push_str(if *b { "True" } else { "False" }),
        Constant::Int(v) => {
            push_int(out, *v);
        }
        Constant::BigInt(s) => out.push_str(s),
        Constant::Str(s) => push_str_literal(out, s),
        Constant::Tuple(items) => {
            out.push('(');
            for (i, item) in items.iter().enumerate() {
                if i > 0 {
                    out.push_str(", ");
                }
                write_constant(out, item);
            }
            if items.len() == 1 {
                out.push(',');
            }
            out.push(')');
        }
        Constant::Opaque { type_name, repr, .. } if type_name == "str" => out.push_str(repr),
        _ => out.push_str(&other_literal(c)),
    }
}

/// [`constant_literal`] of the constants that [`write_constant`] does not write itself.
fn other_literal(c: &Constant) -> String {
    match c {
        Constant::None => "None".into(),
        Constant::Ellipsis => "...".into(),
        Constant::Bool(b) => if *b { "True" } else { "False" }.into(),
        Constant::Int(v) => v.to_string(),
        Constant::BigInt(s) => s.clone(),
        Constant::Float(f) => float_literal(*f),
        Constant::Complex(re, im) => complex_literal(*re, *im),
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
        Constant::Slice(parts) => {
            let [a, b, c] = &**parts;
            format!("slice({}, {}, {})", constant_literal(a), constant_literal(b), constant_literal(c))
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
        // A str whose literal the reader already wrote (lone surrogates).
        Constant::Opaque { type_name, repr, .. } if type_name == "str" => repr.clone(),
        Constant::Opaque { index, .. } => format!("__const_{index}"),
    }
}

/// Parameters with their defaults, and annotations when `annotated` (a `def`, not a
/// `lambda`).
fn arguments(out: &mut String, a: &Arguments, annotated: bool) {
    let param = |name: &str, default: Option<&Expr>| {
        let mut p = name.to_string();
        let ann = if annotated { a.annotations.iter().find(|(n, _)| n == name).map(|(_, e)| e) } else { None };
        if let Some(ann) = ann {
            p.push_str(": ");
            paren(&mut p, ann, P_TEST);
        }
        if let Some(d) = default {
            p.push_str(if ann.is_some() { " = " } else { "=" });
            paren(&mut p, d, P_TEST);
        }
        p
    };
    let positional: Vec<&String> = a.posonly.iter().chain(&a.args).collect();
    let first_default = positional.len().saturating_sub(a.defaults.len());
    let mut parts: Vec<String> = Vec::new();
    for (i, n) in positional.iter().enumerate() {
        let d = if i >= first_default { a.defaults.get(i - first_default) } else { None };
        parts.push(param(n, d));
        if i + 1 == a.posonly.len() {
            parts.push("/".into());
        }
    }
    if let Some(v) = &a.vararg {
        parts.push(format!("*{}", param(v, None)));
    } else if !a.kwonly.is_empty() {
        parts.push("*".into());
    }
    for n in &a.kwonly {
        let d = a.kw_defaults.iter().find(|(k, _)| k == n).map(|(_, e)| e);
        parts.push(param(n, d));
    }
    if let Some(k) = &a.kwarg {
        parts.push(format!("**{}", param(k, None)));
    }
    out.push_str(&parts.join(", "));
}


/// Prints a `case` pattern; `top`: an `as` or `|` pattern needs no parentheses here
/// (the whole pattern of a `case`, an item of a sequence or class pattern).
fn pattern(out: &mut String, p: &Pattern, top: bool) {
    match p {
        Pattern::Wildcard => out.push('_'),
        Pattern::Capture(n) => out.push_str(n),
        Pattern::Value(e) | Pattern::Singleton(e) => expr(out, e, P_TUPLE),
        Pattern::Sequence(items, star) => {
            out.push('[');
            let mut parts: Vec<String> = items
                .iter()
                .map(|q| {
                    let mut s = String::new();
                    pattern(&mut s, q, true);
                    s
                })
                .collect();
            if let Some((at, name)) = star {
                parts.insert(*at, format!("*{}", name.as_deref().unwrap_or("_")));
            }
            out.push_str(&parts.join(", "));
            out.push(']');
        }
        Pattern::Mapping(items, rest) => {
            out.push('{');
            let mut parts: Vec<String> = items
                .iter()
                .map(|(k, q)| {
                    let mut s = String::new();
                    expr(&mut s, k, P_TUPLE);
                    s.push_str(": ");
                    pattern(&mut s, q, true);
                    s
                })
                .collect();
            if let Some(r) = rest {
                parts.push(format!("**{r}"));
            }
            out.push_str(&parts.join(", "));
            out.push('}');
        }
        Pattern::Class(cls, pos, kws) => {
            expr(out, cls, P_TUPLE);
            out.push('(');
            let mut parts: Vec<String> = Vec::new();
            for q in pos {
                let mut s = String::new();
                pattern(&mut s, q, true);
                parts.push(s);
            }
            for (k, q) in kws {
                let mut s = format!("{k}=");
                pattern(&mut s, q, true);
                parts.push(s);
            }
            out.push_str(&parts.join(", "));
            out.push(')');
        }
        Pattern::Or(alts) => {
            if !top {
                out.push('(');
            }
            for (i, q) in alts.iter().enumerate() {
                if i > 0 {
                    out.push_str(" | ");
                }
                pattern(out, q, false);
            }
            if !top {
                out.push(')');
            }
        }
        Pattern::As(q, name) => {
            if !top {
                out.push('(');
            }
            pattern(out, q, false);
            out.push_str(" as ");
            out.push_str(name);
            if !top {
                out.push(')');
            }
        }
    }
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

fn yield_value(out: &mut String, v: &Expr) {
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

/// A statement-level value: `yield` needs no parentheses there.
fn top_value(out: &mut String, e: &Expr) {
    if matches!(e, Expr::Yield(_) | Expr::YieldFrom(_)) {
        expr(out, e, 0);
    } else {
        paren(out, e, P_TEST);
    }
}

fn stmt(out: &mut String, s: &Stmt, level: usize) {
    indent(out, level);
    match s {
        Stmt::Expr(e) => {
            top_value(out, e);
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
                _ => top_value(out, value),
            }
            out.push('\n');
        }
        Stmt::AugAssign(t, op, v) => {
            target(out, t);
            out.push(' ');
            out.push_str(op);
            out.push(' ');
            top_value(out, v);
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
            let iter = match iter.async_inner() {
                Some(inner) => {
                    out.push_str("async ");
                    inner
                }
                None => iter,
            };
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
        Stmt::Lazy(inner) => {
            out.push_str("lazy ");
            let mut rest = String::new();
            stmt(&mut rest, inner, level);
            out.push_str(rest.trim_start_matches(' '));
        }
        Stmt::Import(module, alias) => {
            out.push_str("import ");
            out.push_str(module);
            if let Some(a) = alias {
                out.push_str(" as ");
                out.push_str(a);
            }
            out.push('\n');
        }
        Stmt::ImportFrom(module, names, level_dots) => {
            out.push_str("from ");
            (0..*level_dots).for_each(|_| out.push('.'));
            out.push_str(module);
            out.push_str(" import ");
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
            out.push_str(if args.is_async { "async def " } else { "def " });
            out.push_str(name);
            if !args.type_params.is_empty() {
                let _ = write!(out, "[{}]", args.type_params.join(", "));
            }
            out.push('(');
            arguments(out, args, true);
            out.push(')');
            if let Some(r) = &args.returns {
                out.push_str(" -> ");
                paren(out, r, P_TEST);
            }
            out.push_str(":\n");
            block(out, body, level + 1);
        }
        Stmt::ClassDef(name, bases, kws, body, type_params) => {
            out.push_str("class ");
            out.push_str(name);
            if !type_params.is_empty() {
                let _ = write!(out, "[{}]", type_params.join(", "));
            }
            if !bases.is_empty() || !kws.is_empty() {
                let mut call = String::new();
                expr(&mut call, &Expr::Call(Box::new(Expr::name("")), bases.clone(), kws.clone()), P_TUPLE);
                out.push_str(&call);
            }
            out.push_str(":\n");
            block(out, body, level + 1);
        }
        Stmt::Decorated(decorators, def) => {
            for d in decorators {
                out.push('@');
                paren(out, d, P_TEST);
                out.push('\n');
                indent(out, level);
            }
            let mut rest = String::new();
            stmt(&mut rest, def, level);
            out.push_str(rest.trim_start_matches(' '));
        }
        Stmt::Assert(test, msg) => {
            out.push_str("assert ");
            paren(out, test, P_TEST);
            if let Some(m) = msg {
                out.push_str(", ");
                paren(out, m, P_TEST);
            }
            out.push('\n');
        }
        Stmt::Match(subject, cases) => {
            out.push_str("match ");
            paren(out, subject, P_TEST);
            out.push_str(":\n");
            for c in cases {
                indent(out, level + 1);
                out.push_str("case ");
                pattern(out, &c.pattern, true);
                if let Some(g) = &c.guard {
                    out.push_str(" if ");
                    paren(out, g, P_TEST);
                }
                out.push_str(":\n");
                block(out, &c.body, level + 2);
            }
        }
        Stmt::TypeAlias(name, params, value) => {
            out.push_str("type ");
            out.push_str(name);
            if !params.is_empty() {
                let _ = write!(out, "[{}]", params.join(", "));
            }
            out.push_str(" = ");
            paren(out, value, P_TEST);
            out.push('\n');
        }
        Stmt::AnnAssign(t, ann, value) => {
            target(out, t);
            out.push_str(": ");
            paren(out, ann, P_TEST);
            if let Some(v) = value {
                out.push_str(" = ");
                paren(out, v, P_TEST);
            }
            out.push('\n');
        }
        Stmt::Try(body, handlers, orelse, finalbody) => {
            out.push_str("try:\n");
            block(out, body, level + 1);
            for h in handlers {
                indent(out, level);
                out.push_str(if h.star { "except*" } else { "except" });
                if let Some(t) = &h.typ {
                    out.push(' ');
                    paren(out, t, P_TEST);
                    if let Some(n) = &h.name {
                        out.push_str(" as ");
                        out.push_str(n);
                    }
                }
                out.push_str(":\n");
                block(out, &h.body, level + 1);
            }
            if !orelse.is_empty() {
                indent(out, level);
                out.push_str("else:\n");
                block(out, orelse, level + 1);
            }
            if !finalbody.is_empty() || handlers.is_empty() {
                indent(out, level);
                out.push_str("finally:\n");
                block(out, finalbody, level + 1);
            }
        }
        Stmt::With(items, body) => {
            let is_async = items.first().is_some_and(|(e, _)| e.async_inner().is_some());
            out.push_str(if is_async { "async with " } else { "with " });
            for (i, (e, t)) in items.iter().enumerate() {
                if i > 0 {
                    out.push_str(", ");
                }
                let e = if is_async { e.async_inner().unwrap_or(e) } else { e };
                paren(out, e, P_TEST);
                if let Some(t) = t {
                    out.push_str(" as ");
                    paren(out, t, P_TEST);
                }
            }
            out.push_str(":\n");
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
    fn ints_print_as_rust_formats_them() {
        for v in [0, 1, -1, 9, 10, -10, 99, 100, 12345, -98765, i64::MAX, i64::MIN, i64::MIN + 1] {
            let mut out = String::from("x");
            push_int(&mut out, v);
            assert_eq!(out, format!("x{v}"));
        }
    }

    #[test]
    fn plain_words_are_exactly_the_plain_bytes() {
        // Every byte value at every position of a word of plain bytes, both quotes.
        let plain = |b: u8, q: u8| (0x20..0x7f).contains(&b) && b != b'\\' && b != q;
        for q in [b'\'', b'"'] {
            for pos in 0..8 {
                for b in 0..=255u8 {
                    let mut bytes = *b"abcdefgh";
                    bytes[pos] = b;
                    assert_eq!(plain_word(u64::from_le_bytes(bytes), q), plain(b, q), "byte {b:#x} at {pos}");
                }
            }
            assert!(plain_word(u64::from_le_bytes(*b" ~ ~ ~ ~"), q));
            assert!(!plain_word(u64::from_le_bytes([0xff; 8]), q));
        }
    }

    #[test]
    fn str_literals_escape_only_what_needs_it() {
        assert_eq!(str_literal("plain text, long enough"), "'plain text, long enough'");
        assert_eq!(str_literal("a'b"), "\"a'b\"");
        assert_eq!(str_literal("a'b\"c"), "'a\\'b\"c'");
        assert_eq!(str_literal("tab\there\\ \u{7f}\u{85}é\u{2028}z\n"), "'tab\\there\\\\ \\x7f\\x85é\\u2028z\\n'");
        // Each character alone prints as the run-copying loop prints it in a string.
        for ch in ['a', '"', '\\', '\0', '\u{9f}', '\u{a0}', '\u{200b}', '\u{feff}', '€'] {
            let mut one = String::new();
            push_escaped(&mut one, ch, '\'');
            assert_eq!(str_literal(&format!("x{ch}y")), format!("'x{one}y'"), "{ch:?}");
        }
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

    fn s(v: &str) -> Expr {
        Expr::Const(Constant::Str(v.into()))
    }

    fn field(e: Expr) -> FPart {
        FPart::Field(Box::new(e), None, None)
    }

    #[test]
    fn lambdas_and_comprehensions() {
        let args = Arguments { args: vec!["a".into(), "b".into()], defaults: vec![Expr::int(1)], ..Default::default() };
        let lam = Expr::Lambda(Box::new(args), Box::new(n("a").binop("+", n("b"))));
        assert_prints!(lam.clone(), "lambda a, b=1: a + b");
        assert_prints!(Expr::Lambda(Box::default(), Box::new(n("x"))), "lambda: x");
        assert_prints!(Expr::Call(Box::new(lam.clone()), vec![], vec![]), "(lambda a, b=1: a + b)()");
        assert_prints!(Expr::IfExp(Box::new(n("c")), Box::new(n("a")), Box::new(lam.clone())), "a if c else lambda a, b=1: a + b");
        assert_prints!(Expr::IfExp(Box::new(n("c")), Box::new(lam), Box::new(n("a"))), "(lambda a, b=1: a + b) if c else a");
        let gen = |iter: Expr| vec![Comprehension { target: Expr::Tuple(vec![n("k"), n("v")]), iter, ifs: vec![n("k"), Expr::BoolOp(false, vec![n("a"), n("b")])], ifs_on_new_line: vec![] }];
        assert_prints!(Expr::Comp(CompKind::List, Box::new(n("k")), gen(n("xs"))), "[k for k, v in xs if k if a or b]");
        let cond = Expr::IfExp(Box::new(n("c")), Box::new(n("a")), Box::new(n("b")));
        assert_prints!(Expr::Comp(CompKind::Generator, Box::new(cond.clone()), gen(cond)), "(a if c else b for k, v in (a if c else b) if k if a or b)");
        assert_prints!(Expr::DictComp(Box::new(n("k")), Box::new(n("v")), gen(n("xs"))), "{k: v for k, v in xs if k if a or b}");
        assert_prints!(Expr::Comp(CompKind::Set, Box::new(n("k")), gen(n("xs"))), "{k for k, v in xs if k if a or b}");
        let g = Expr::Comp(CompKind::Generator, Box::new(n("k")), gen(n("xs")));
        assert_prints!(Expr::Call(Box::new(n("f")), vec![g.clone()], vec![]), "f(k for k, v in xs if k if a or b)");
        assert_prints!(Expr::Call(Box::new(n("f")), vec![g.clone(), n("z")], vec![]), "f((k for k, v in xs if k if a or b), z)");
        // A condition marked to stand on its own line starts one (inside the brackets).
        let mut own = gen(n("xs"));
        own[0].ifs_on_new_line = vec![false, true];
        assert_prints!(Expr::Comp(CompKind::List, Box::new(n("k")), own), "[k for k, v in xs if k\n if a or b]");
    }

    #[test]
    fn fstrings() {
        let old = |parts: Vec<FPart>| Expr::FString(parts, FStringSyntax::Pep498);
        let spec = vec![FPart::Lit(">".into()), field(n("w"))];
        let parts = vec![FPart::Lit("a{b}\n'".into()), FPart::Field(Box::new(n("x")), Some('r'), Some(spec))];
        assert_prints!(old(parts), r"f'a{{b}}\n\'{x!r:>{w}}'");
        // A field that uses one quote gets the other, or triple quotes.
        assert_prints!(old(vec![field(Expr::Subscript(Box::new(n("d")), Box::new(s("k"))))]), r#"f"{d['k']}""#);
        let both = Expr::Call(Box::new(n("g")), vec![s("it's"), s("a")], vec![]);
        assert_prints!(old(vec![field(both)]), r#"f'''{g("it's", 'a')}'''"#);
        // Nested f-strings alternate quotes; a dict field gets a space after the brace.
        let inner = old(vec![field(n("x"))]);
        assert_prints!(old(vec![field(inner)]), r#"f"{f'{x}'}""#);
        assert_prints!(old(vec![field(Expr::Dict(vec![]))]), "f'{ {}}'");
        // Backslashes and `#` cannot appear in a field before 3.12.
        assert_eq!(fstring(&[field(s("\n"))], FStringSyntax::Pep498), None);
        assert_eq!(fstring(&[field(s("#"))], FStringSyntax::Pep498), None);
    }

    #[test]
    fn pep701_fstrings_reuse_quotes_and_hold_backslashes() {
        let new = |parts: Vec<FPart>| Expr::FString(parts, FStringSyntax::Pep701);
        let join = |sep: &str| Expr::Call(Box::new(Expr::Attribute(Box::new(s(sep)), "join".into())), vec![n("xs")], vec![]);
        // What old rules can print prints the same under PEP 701.
        assert_prints!(new(vec![field(Expr::Subscript(Box::new(n("d")), Box::new(s("k"))))]), r#"f"{d['k']}""#);
        let both = Expr::Call(Box::new(n("g")), vec![s("it's"), s("a")], vec![]);
        assert_prints!(new(vec![field(both.clone())]), r#"f'''{g("it's", 'a')}'''"#);
        // A backslash or `#` in a field's string takes a quote the field does not use...
        assert_prints!(new(vec![field(join("\n"))]), r#"f"{'\n'.join(xs)}""#);
        assert_prints!(new(vec![field(join("#"))]), r#"f"{'#'.join(xs)}""#);
        // ...or reuses `'` when the field uses both.
        let mixed = Expr::IfExp(Box::new(n("x")), Box::new(s("a\\")), Box::new(s("it's")));
        assert_prints!(new(vec![FPart::Lit("'".into()), field(mixed)]), r#"f'\'{('a\\' if x else "it's")}'"#);
        assert_prints!(new(vec![field(both), field(join("\t"))]), r#"f'{g("it's", 'a')}{'\t'.join(xs)}'"#);
        // A quote in a format spec's field.
        let spec = vec![field(s(">")), field(n("w"))];
        assert_prints!(new(vec![FPart::Field(Box::new(n("x")), Some('r'), Some(spec))]), r#"f"{x!r:{'>'}{w}}""#);
        // Four levels of nesting: once old quotings run out, quotes are reused.
        let mut e = n("n");
        for _ in 0..4 {
            e = new(vec![field(e)]);
        }
        assert_prints!(e, r#"f"""{f'''{f"{f'{n}'}"}'''}""""#);
        let mut e = s("\n");
        for _ in 0..4 {
            e = new(vec![field(e)]);
        }
        assert_prints!(e, r#"f'{f'{f'{f"{'\n'}"}'}'}'"#);
        // A line break in a field is never printed (the printer produces none).
        assert_eq!(fstring(&[field(n("a\nb"))], FStringSyntax::Pep701), None);
    }

    #[test]
    fn definitions() {
        let args = Arguments {
            posonly: vec!["p".into()],
            args: vec!["a".into()],
            vararg: Some("r".into()),
            kwonly: vec!["k".into()],
            kwarg: Some("kw".into()),
            defaults: vec![Expr::int(1)],
            kw_defaults: vec![("k".into(), Expr::int(2))],
            annotations: vec![("a".into(), n("int")), ("kw".into(), n("T"))],
            returns: Some(n("R")),
            is_async: false,
            type_params: Vec::new(),
        };
        let def = Stmt::FunctionDef("f".into(), Box::new(args), vec![Stmt::Pass]);
        let dec = Stmt::Decorated(vec![n("d"), Expr::Call(Box::new(n("e")), vec![Expr::int(1)], vec![])], Box::new(def));
        assert_eq!(print_body(&[dec], 1), "    @d\n    @e(1)\n    def f(p, /, a: int = 1, *r, k=2, **kw: T) -> R:\n        pass\n");
        let kw = Keyword { name: Some("metaclass".into()), value: n("M") };
        let class = Stmt::ClassDef("C".into(), vec![n("B")], vec![kw], vec![Stmt::Expr(s("doc"))], vec![]);
        assert_eq!(print_body(&[class], 0), "class C(B, metaclass=M):\n    'doc'\n");
        assert_eq!(print_body(&[Stmt::ClassDef("C".into(), vec![], vec![], vec![], vec![])], 0), "class C:\n    pass\n");
        assert_eq!(print_body(&[Stmt::Assert(n("x"), Some(s("m")))], 0), "assert x, 'm'\n");
        assert_eq!(print_body(&[Stmt::AnnAssign(n("x"), n("int"), Some(Expr::int(1)))], 0), "x: int = 1\n");
    }

    #[test]
    fn tstrings_print_their_expression_texts() {
        let field = |e: Expr, conv: Option<char>, spec: Option<Vec<FPart>>| FPart::Field(Box::new(e), conv, spec);
        let parts = vec![FPart::Lit("a{".into()), field(n("x"), Some('r'), Some(vec![FPart::Lit(">".into()), field(n("w"), None, None)]))];
        assert_prints!(Expr::TString(parts.clone(), vec!["x ".into()]), "t'a{{{x !r:>{w}}'");
        assert_prints!(Expr::TString(vec![field(n("d"), None, None)], vec!["d['k']".into()]), r#"t"{d['k']}""#);
        assert_eq!(tstring(&parts, &[]), None);
        // PEP 701 rules: quotes reused, backslashes and `#` in strings; no line breaks.
        assert_prints!(Expr::TString(vec![field(n("d"), None, None)], vec![r#"d["'\n"]"#.into()]), r#"t'{d["'\n"]}'"#);
        assert_prints!(Expr::TString(vec![field(n("j"), None, None)], vec![r"'\n#'.join(xs)".into()]), r#"t"{'\n#'.join(xs)}""#);
        assert_eq!(tstring(&[field(n("x"), None, None)], &["x # c\n".into()]), None);
    }

    #[test]
    fn lazy_imports() {
        let imp = Stmt::Lazy(Box::new(Stmt::Import("os.path".into(), Some("p".into()))));
        assert_eq!(print_body(&[imp], 0), "lazy import os.path as p\n");
        let from = Stmt::Lazy(Box::new(Stmt::ImportFrom("typing".into(), vec![("IO".into(), None), ("Literal".into(), Some("L".into()))], 0)));
        assert_eq!(print_body(&[Stmt::If(n("c"), vec![from], vec![])], 0), "if c:\n    lazy from typing import IO, Literal as L\n");
    }

    #[test]
    fn tuple_subscripts_print_as_written() {
        let sub = |items: Vec<Expr>| Expr::Subscript(Box::new(n("d")), Box::new(Expr::Tuple(items)));
        assert_prints!(sub(vec![n("i"), Expr::int(1)]), "d[i, 1]");
        assert_prints!(sub(vec![n("i")]), "d[(i,)]");
        assert_prints!(sub(vec![]), "d[()]");
        assert_prints!(sub(vec![Expr::Starred(Box::new(n("a"))), n("b")]), "d[(*a, b)]");
        assert_prints!(sub(vec![Expr::IfExp(Box::new(n("c")), Box::new(n("x")), Box::new(n("y"))), n("b")]), "d[x if c else y, b]");
        assert_prints!(sub(vec![Expr::NamedExpr("x".into(), Box::new(Expr::int(1))), n("b")]), "d[(x := 1), b]");
    }

    #[test]
    fn source_text_prints_as_written() {
        let t = |x: &str| Expr::SourceText(x.into());
        let args = Arguments { args: vec!["a".into()], annotations: vec![("a".into(), t("A | None"))], returns: Some(t("list[int]")), ..Default::default() };
        let def = Stmt::FunctionDef("f".into(), Box::new(args), vec![Stmt::Pass]);
        assert_eq!(print_body(&[def], 0), "def f(a: A | None) -> list[int]:\n    pass\n");
        assert_eq!(print_body(&[Stmt::AnnAssign(n("x"), t("'quoted'"), None)], 0), "x: 'quoted'\n");
        // Where a `test` does not fit, in parentheses.
        assert_prints!(Expr::Attribute(Box::new(t("a or b")), "c".into()), "(a or b).c");
    }

    #[test]
    fn async_forms_and_type_params() {
        let a = |e: Expr| Expr::async_mark(e);
        let for_ = Stmt::For(n("x"), a(n("it")), vec![Stmt::Pass], vec![]);
        assert_eq!(print_body(&[for_], 0), "async for x in it:\n    pass\n");
        let with = Stmt::With(vec![(a(n("m")), Some(n("v"))), (a(n("k")), None)], vec![Stmt::Pass]);
        assert_eq!(print_body(&[with], 0), "async with m as v, k:\n    pass\n");
        let gens = vec![Comprehension { target: n("x"), iter: a(n("xs")), ifs: vec![], ifs_on_new_line: vec![] }];
        assert_eq!(print_expr(&Expr::Comp(CompKind::List, Box::new(n("x")), gens)), "[x async for x in xs]");
        let alias = Stmt::TypeAlias("P".into(), vec!["K".into(), "*Vs".into()], n("int"));
        assert_eq!(print_body(&[alias], 0), "type P[K, *Vs] = int\n");
        let args = Arguments { args: vec!["x".into()], type_params: vec!["T".into(), "**P".into()], ..Default::default() };
        assert_eq!(print_body(&[Stmt::FunctionDef("f".into(), Box::new(args), vec![Stmt::Pass])], 0), "def f[T, **P](x):\n    pass\n");
        let class = Stmt::ClassDef("C".into(), vec![n("B")], vec![], vec![Stmt::Pass], vec!["T: int".into(), "*Ts".into()]);
        assert_eq!(print_body(&[class], 0), "class C[T: int, *Ts](B):\n    pass\n");
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

    #[test]
    fn match_patterns() {
        use crate::ast::{MatchCase, Pattern as P};
        let c = |v: i64| Expr::Const(Constant::Int(v));
        let or = P::Or(vec![P::Value(c(0)), P::Value(c(-1))]);
        let cases = vec![
            MatchCase { pattern: P::As(Box::new(or.clone()), "small".into()), guard: None, body: vec![Stmt::Pass] },
            MatchCase {
                pattern: P::Sequence(vec![P::Capture("a".into()), P::As(Box::new(P::Wildcard), "b".into())], Some((1, Some("rest".into())))),
                guard: Some(Expr::BoolOp(false, vec![n("a"), n("b")])),
                body: vec![Stmt::Pass],
            },
            MatchCase {
                pattern: P::Class(Expr::Attribute(Box::new(n("m")), "Pt".into()), vec![or], vec![("y".into(), P::Singleton(Expr::Const(Constant::None)))]),
                guard: None,
                body: vec![Stmt::Pass],
            },
            MatchCase { pattern: P::Mapping(vec![(Expr::Const(Constant::Str("k".into())), P::Wildcard)], Some("r".into())), guard: None, body: vec![Stmt::Pass] },
            MatchCase { pattern: P::Sequence(vec![], Some((0, None))), guard: None, body: vec![Stmt::Pass] },
        ];
        let text = print_body(&[Stmt::Match(n("v"), cases)], 0);
        assert_eq!(
            text,
            "match v:\n    case (0 | -1) as small:\n        pass\n    case [a, *rest, _ as b] if a or b:\n        pass\n    case m.Pt(0 | -1, y=None):\n        pass\n    case {'k': _, **r}:\n        pass\n    case [*_]:\n        pass\n"
        );
    }
}
