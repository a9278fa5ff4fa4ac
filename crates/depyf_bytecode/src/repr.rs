//! Python's `repr()` of constants, as the disassembler shows them.
//!
//! Follows CPython's `Objects/unicodeobject.c` (`unicode_repr`), `Objects/bytesobject.c`
//! (`PyBytes_Repr`), `Objects/floatobject.c` (`float_repr`, the shortest round-trip
//! digits with `repr`'s switch to exponent notation), `Objects/complexobject.c`
//! (`complex_repr`) and `Objects/codeobject.c` (`code_repr`).

use crate::{Constant, PythonVersion};

/// `repr(c)` as CPython `version` prints it. Code objects print a fixed fake address
/// (`<code object f at 0x0000, file "x.py", line 1>`): the real one is different in
/// every process.
pub fn constant_repr(c: &Constant, version: PythonVersion) -> String {
    let _ = version;
    match c {
        Constant::None => "None".into(),
        Constant::Ellipsis => "Ellipsis".into(),
        Constant::Bool(true) => "True".into(),
        Constant::Bool(false) => "False".into(),
        Constant::Int(i) => i.to_string(),
        Constant::BigInt(s) => s.clone(),
        Constant::Float(f) => float_repr(*f),
        Constant::Complex(re, im) => complex_repr(*re, *im),
        Constant::Str(s) => str_repr(s),
        Constant::Bytes(b) => bytes_repr(b),
        Constant::Tuple(items) => {
            let inner: Vec<String> = items.iter().map(|c| constant_repr(c, version)).collect();
            if inner.len() == 1 {
                format!("({},)", inner[0])
            } else {
                format!("({})", inner.join(", "))
            }
        }
        Constant::Slice(parts) => {
            let [a, b, c] = &**parts;
            format!("slice({}, {}, {})", constant_repr(a, version), constant_repr(b, version), constant_repr(c, version))
        }
        Constant::FrozenSet(items) => {
            if items.is_empty() {
                "frozenset()".into()
            } else {
                let order = crate::set_order::frozenset_order(items, version);
                let inner: Vec<String> = order.iter().map(|&i| constant_repr(&items[i], version)).collect();
                format!("frozenset({{{}}})", inner.join(", "))
            }
        }
        Constant::Code(code) => {
            format!("<code object {} at 0x0000, file \"{}\", line {}>", code.co_name, code.co_filename, code.co_firstlineno)
        }
        Constant::Opaque { repr, .. } => repr.clone(),
    }
}

/// Shortest round-trip digits and decimal exponent of a finite, non-zero `f`:
/// `(digits, decpt)` with `f = 0.digits * 10**decpt`.
fn shortest_digits(f: f64) -> (String, i32) {
    let s = format!("{:e}", f.abs());
    let (mant, exp) = s.split_once('e').unwrap_or((&s, "0"));
    let digits: String = mant.chars().filter(char::is_ascii_digit).collect();
    let exp: i32 = exp.parse().unwrap_or(0);
    (digits, exp + 1)
}

/// `float.__repr__` (format code `r`): `1.0`, `1e+16`, `1.5e-05`, `inf`, `nan`, `-0.0`.
pub fn float_repr(f: f64) -> String {
    format_float(f, true)
}

fn format_float(f: f64, add_dot_zero: bool) -> String {
    if f.is_nan() {
        return "nan".into();
    }
    if f.is_infinite() {
        return if f > 0.0 { "inf".into() } else { "-inf".into() };
    }
    let sign = if f.is_sign_negative() { "-" } else { "" };
    if f == 0.0 {
        return format!("{sign}0{}", if add_dot_zero { ".0" } else { "" });
    }
    let (digits, decpt) = shortest_digits(f);
    let body = if -4 < decpt && decpt <= 16 {
        let n = digits.len() as i32;
        if decpt <= 0 {
            format!("0.{}{}", "0".repeat((-decpt) as usize), digits)
        } else if decpt >= n {
            let zeros = "0".repeat((decpt - n) as usize);
            if add_dot_zero {
                format!("{digits}{zeros}.0")
            } else {
                format!("{digits}{zeros}")
            }
        } else {
            format!("{}.{}", &digits[..decpt as usize], &digits[decpt as usize..])
        }
    } else {
        let e = decpt - 1;
        let frac = if digits.len() > 1 { format!(".{}", &digits[1..]) } else { String::new() };
        let esign = if e < 0 { '-' } else { '+' };
        format!("{}{}e{}{:02}", &digits[..1], frac, esign, e.abs())
    };
    format!("{sign}{body}")
}

/// `complex.__repr__`: `1j`, `(1+2j)`, `(-0-1j)`, `(nan+infj)`.
pub fn complex_repr(re: f64, im: f64) -> String {
    let im_s = format_float(im, false);
    if re == 0.0 && re.is_sign_positive() {
        return format!("{im_s}j");
    }
    let re_s = format_float(re, false);
    let im_signed = if im_s.starts_with('-') { im_s } else { format!("+{im_s}") };
    format!("({re_s}{im_signed}j)")
}

/// Whether `str.isprintable()` holds for `c` (approximated without the full Unicode
/// database: control, format, separator, surrogate, private-use and noncharacter code
/// points are unprintable; unassigned ones are treated as printable).
fn is_printable(c: char) -> bool {
    let u = c as u32;
    if u < 0x20 || (0x7f..=0xa0).contains(&u) || u == 0xad {
        return false;
    }
    if u < 0x300 {
        return true;
    }
    !matches!(u,
        0x0600..=0x0605 | 0x061c | 0x06dd | 0x070f | 0x0890..=0x0891 | 0x08e2 | 0x1680 | 0x180e
        | 0x2000..=0x200f | 0x2028..=0x202f | 0x205f..=0x2064 | 0x2066..=0x206f | 0x3000
        | 0xd800..=0xf8ff | 0xfdd0..=0xfdef | 0xfeff | 0xfff9..=0xfffb | 0xfffe..=0xffff
        | 0x110bd | 0x110cd | 0x13430..=0x1343f | 0x1bca0..=0x1bca3 | 0x1d173..=0x1d17a
        | 0xe0001 | 0xe0020..=0xe007f | 0xf0000..=0x10ffff)
        && (u & 0xfffe) != 0xfffe
}

/// `str.__repr__`: single quotes unless the text has `'` and no `"`.
pub fn str_repr(s: &str) -> String {
    let quote = if s.contains('\'') && !s.contains('"') { '"' } else { '\'' };
    let mut out = String::with_capacity(s.len() + 2);
    out.push(quote);
    for c in s.chars() {
        match c {
            '\\' => out.push_str("\\\\"),
            '\t' => out.push_str("\\t"),
            '\n' => out.push_str("\\n"),
            '\r' => out.push_str("\\r"),
            c if c == quote => {
                out.push('\\');
                out.push(c);
            }
            c if is_printable(c) => out.push(c),
            c if (c as u32) < 0x100 => out.push_str(&format!("\\x{:02x}", c as u32)),
            c if (c as u32) < 0x10000 => out.push_str(&format!("\\u{:04x}", c as u32)),
            c => out.push_str(&format!("\\U{:08x}", c as u32)),
        }
    }
    out.push(quote);
    out
}

/// `bytes.__repr__`: `b'...'`, quotes chosen as for `str`.
pub fn bytes_repr(b: &[u8]) -> String {
    let quote = if b.contains(&b'\'') && !b.contains(&b'"') { b'"' } else { b'\'' };
    let mut out = String::with_capacity(b.len() + 3);
    out.push('b');
    out.push(char::from(quote));
    for &c in b {
        match c {
            b'\\' => out.push_str("\\\\"),
            b'\t' => out.push_str("\\t"),
            b'\n' => out.push_str("\\n"),
            b'\r' => out.push_str("\\r"),
            c if c == quote => {
                out.push('\\');
                out.push(char::from(c));
            }
            0x20..=0x7e => out.push(char::from(c)),
            c => out.push_str(&format!("\\x{c:02x}")),
        }
    }
    out.push(char::from(quote));
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn floats() {
        assert_eq!(float_repr(1.0), "1.0");
        assert_eq!(float_repr(0.1), "0.1");
        assert_eq!(float_repr(1e16), "1e+16");
        assert_eq!(float_repr(1e15), "1000000000000000.0");
        assert_eq!(float_repr(1.5e-5), "1.5e-05");
        assert_eq!(float_repr(0.0001), "0.0001");
        assert_eq!(float_repr(-0.0), "-0.0");
        assert_eq!(float_repr(123.456), "123.456");
        assert_eq!(float_repr(f64::INFINITY), "inf");
        assert_eq!(float_repr(1.7976931348623157e308), "1.7976931348623157e+308");
    }

    #[test]
    fn complexes() {
        assert_eq!(complex_repr(0.0, 1.0), "1j");
        assert_eq!(complex_repr(0.0, 1.5), "1.5j");
        assert_eq!(complex_repr(1.0, 2.0), "(1+2j)");
        assert_eq!(complex_repr(-0.0, -1.0), "(-0-1j)");
        assert_eq!(complex_repr(0.0, 1e16), "1e+16j");
    }

    #[test]
    fn strings_and_bytes() {
        assert_eq!(str_repr("a'b"), "\"a'b\"");
        assert_eq!(str_repr("a'\"b"), "'a\\'\"b'");
        assert_eq!(str_repr("\x00\n\u{7f}é\u{200b}"), "'\\x00\\n\\x7fé\\u200b'");
        assert_eq!(bytes_repr(b"a'\x00\xff"), "b\"a'\\x00\\xff\"");
    }

    #[test]
    fn containers() {
        let v = PythonVersion::PY312;
        assert_eq!(constant_repr(&Constant::Tuple(vec![Constant::Int(1)]), v), "(1,)");
        assert_eq!(constant_repr(&Constant::Tuple(vec![]), v), "()");
        assert_eq!(constant_repr(&Constant::FrozenSet(vec![Constant::Str("a".into())]), v), "frozenset({'a'})");
        assert_eq!(constant_repr(&Constant::FrozenSet(vec![]), v), "frozenset()");
    }
}
