//! The recovered AST.

use depyf_bytecode::Constant;

/// An expression.
#[derive(Clone, Debug, PartialEq)]
pub enum Expr {
    /// A variable: local, global, cell, or a decompiler temporary.
    Name(String),
    /// A literal constant.
    Const(Constant),
    /// `value.attr`.
    Attribute(Box<Expr>, String),
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
    /// `global a, b`.
    Global(Vec<String>),
    /// `nonlocal a, b`.
    Nonlocal(Vec<String>),
    /// `def name(args): body`.
    FunctionDef(String, Arguments, Vec<Stmt>),
}

impl Expr {
    /// `Name(id)`.
    pub fn name(id: &str) -> Expr {
        Expr::Name(id.to_string())
    }
    /// An int literal.
    pub fn int(v: i64) -> Expr {
        Expr::Const(Constant::Int(v))
    }
    /// `self <op> rhs` for an operator symbol.
    pub fn binop(self, op: &'static str, rhs: Expr) -> Expr {
        Expr::BinOp(Box::new(self), op, Box::new(rhs))
    }
    /// Whether this is `Name(id)`.
    pub fn is_name(&self, id: &str) -> bool {
        matches!(self, Expr::Name(n) if n == id)
    }
    /// Calls `f` on this expression and every sub-expression, outermost first.
    pub fn walk(&self, f: &mut dyn FnMut(&Expr)) {
        f(self);
        match self {
            Expr::Name(_) | Expr::Const(_) => {}
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
        }
    }
}
