//! Recovery: symbolic interpretation of each basic block's ops into statements and
//! expression trees.
//!
//! Invariants this pass establishes:
//! - evaluation order is kept: a value left on the stack while a statement runs, or
//!   while SWAP/ROT/COPY reorders or duplicates it, is first assigned to a temporary
//!   (`__temp_<n>`), together with every value pushed before it (spilling);
//! - a value that stays on the stack across a block boundary is, in the successor,
//!   either the very atomic value every predecessor leaves there (a constant, a local,
//!   a temporary) or an entry temporary that every predecessor assigns at its end
//!   (before its branch condition is evaluated). NULL markers are never assigned:
//!   all predecessors must agree on them;
//! - temporaries that are assigned a constant or a variable and never read are
//!   dropped.
//! - every op's stack effect is exactly [`Op::stack_effect`]: underflow is an error.

use std::collections::BTreeSet;

use depyf_bytecode::{local_kind, CodeObject, Constant};
use depyf_cfg::{BlockId, Cfg, Terminator};
use depyf_ir::{CallLayout, CmpOp, IrInstr, Op, UnaryOp};
use depyf_source::{CompKind, Comprehension, Expr, Ident, Keyword, Stmt};

use crate::DecompileError;

/// The prefix of the variables that hold `for` iterators when [`Naming::iter_temps`]
/// is set (`__depyf_it_<depth>__`, the state-machine fallback's, see `state_machine`).
pub(crate) const ITER_PREFIX: &str = "__depyf_it_";
/// The loop variable of the generator that wraps an iterable.
const ITEM: &str = "__depyf_x__";

/// The variable of the iterator at stack depth `depth`.
fn iter_name(depth: usize) -> String {
    format!("{ITER_PREFIX}{depth}__")
}

/// `(__depyf_x__ for __depyf_x__ in v)`: an iterator over `v` made as `GET_ITER`
/// makes one (`iter(v)` once, now), stepped with a `for` statement whose own
/// `GET_ITER` returns the generator itself.
fn iter_wrapper(v: Expr) -> Expr {
    Expr::Comp(
        CompKind::Generator,
        Box::new(Expr::name(ITEM)),
        vec![Comprehension { target: Expr::name(ITEM), iter: v, ifs: Vec::new(), ifs_on_new_line: Vec::new() }],
    )
}

mod exprs;

/// A value on the symbolic stack.
#[derive(Clone, Debug, PartialEq)]
enum SVal {
    /// An expression, evaluated lazily.
    Expr(Expr),
    /// The NULL marker below a callable (3.11+).
    Null,
    /// The iterator of a `for` loop (`GET_ITER` of the expression): never spilled,
    /// since the loop statement holds it.
    Iter(Expr),
    /// A value of exception handling or `with` that no source expression names.
    Mark(Mark),
}

/// Stack values of exception handlers and `with` blocks (never spilled).
#[derive(Clone, Debug, PartialEq)]
pub(crate) enum Mark {
    /// The exception a handler was entered with.
    Exc,
    /// The exception that was current before (`PUSH_EXC_INFO`).
    PrevExc,
    /// [`Mark::PrevExc`] swapped above a value that the clause loaded (`SWAP 2`):
    /// `return v` inside an `except` clause keeps `v` on the stack while the
    /// `POP_EXCEPT` below it runs (CPython 3.11+ `Python/compile.c`
    /// `compiler_unwind_fblock` with `preserve_tos`), where code after the `try`
    /// loads it after the pop. Its `POP_EXCEPT` reads as
    /// [`markers::POP_EXCEPT_HELD`].
    PrevExcOverValue,
    /// The offset of the raising instruction.
    Lasti,
    /// The bound `__exit__` of a `with` block on this manager.
    WithExit(Expr),
    /// What `__enter__` of this manager returned.
    WithEnter(Expr),
    /// The exception group an `except*` handler was entered with ([`Op::ExcStarSetup`]).
    EgOrig,
    /// The list in which an `except*` handler collects what its clauses raised.
    EgList,
}

impl Mark {
    /// How a marker reads when used as a value: a reserved name that structuring
    /// recognizes (`__exc__`, `__with_enter__(manager)`).
    fn expr(self) -> Expr {
        match self {
            Mark::Exc => Expr::name(markers::EXC),
            Mark::PrevExc | Mark::PrevExcOverValue => Expr::name("__prev_exc__"),
            Mark::Lasti => Expr::name("__lasti__"),
            Mark::WithExit(m) => Expr::Call(Box::new(Expr::name("__with_exit__")), vec![m], vec![]),
            Mark::WithEnter(m) => Expr::Call(Box::new(Expr::name(markers::WITH_ENTER)), vec![m], vec![]),
            Mark::EgOrig => Expr::name("__eg_orig__"),
            Mark::EgList => Expr::name("__eg_raised__"),
        }
    }
}

/// Reserved names of the marker statements and expressions that recovery leaves for
/// structuring (exception handlers, `with`); none survives into the output.
pub(crate) mod markers {
    /// The handled exception.
    pub const EXC: &str = "__exc__";
    /// `__exc_match__(T)`: the `except T` test.
    pub const EXC_MATCH: &str = "__exc_match__";
    /// `__eg_match__(T) is not None`: the `except* T` test (the matched part is
    /// `__exc__`).
    pub const EG_MATCH: &str = "__eg_match__";
    /// `POP_EXCEPT`.
    pub const POP_EXCEPT: &str = "__pop_except__";
    /// `POP_EXCEPT` run with a value that the clause loaded held on the stack (see
    /// [`super::Mark::PrevExcOverValue`]): the `return` of it that follows is the
    /// clause's own. Structuring reads it as [`POP_EXCEPT`] everywhere else.
    pub const POP_EXCEPT_HELD: &str = "__pop_except_held__";
    /// `RERAISE`: the exception goes on.
    pub const RERAISE: &str = "__reraise__";
    /// `__with_enter__(m)`: the value of `with m`.
    pub const WITH_ENTER: &str = "__with_enter__";
    /// The normal exit of a `with` block.
    pub const WITH_EXIT: &str = "__with_exit__";
    /// PEP 695 type parameters: (intrinsic, marker call, prefix in source), e.g.
    /// `__typevartuple__('Ts')` is `*Ts`.
    pub const TYPE_PARAM_KINDS: [(&str, &str, &str); 3] = [
        ("INTRINSIC_TYPEVAR", "__typevar__", ""),
        ("INTRINSIC_TYPEVARTUPLE", "__typevartuple__", "*"),
        ("INTRINSIC_PARAMSPEC", "__paramspec__", "**"),
    ];
    /// `<star_annotation>(Ts)`: `[*Ts][0]`, the annotation `*Ts` of a `*args`
    /// parameter (PEP 646), for `set_function_attribute` to read back.
    pub const STAR_ANNOTATION: &str = "<star_annotation>";
    /// `__type_alias__(name, params, value)`: `type name[params] = value`.
    pub const TYPE_ALIAS: &str = "__type_alias__";
    /// `__set_type_params__(func, params)`: a generic function.
    pub const SET_TYPE_PARAMS: &str = "__set_type_params__";
    /// `__generic__(x)`: what the `<generic parameters of ...>` function returns, a
    /// generic `def` or a `type` alias, called at once where it is made.
    pub const GENERIC: &str = "__generic__";
    /// `__subscript_generic__(params)`: `Generic[*params]`, the base that a generic
    /// class gets implicitly.
    pub const SUBSCRIPT_GENERIC: &str = "__subscript_generic__";
}

/// The value that a PEP 695 lazily evaluated function returns (a type alias value, a
/// type parameter bound or constraints): its body is `return value`, after, from
/// CPython 3.14 on, the [`crate::definitions::is_format_guard`] guard over its one
/// parameter `.format` (default 1). `None` for any other shape.
fn lazy_value(def: &Stmt) -> Option<&Expr> {
    let Stmt::FunctionDef(_, args, body) = def else { return None };
    match body.as_slice() {
        [Stmt::Return(Some(value))] => Some(value),
        [guard, Stmt::Return(Some(value))] => {
            let format_only = matches!((args.posonly.as_slice(), args.args.as_slice()), ([p], []) | ([], [p]) if p == ".format")
                && args.kwonly.is_empty()
                && args.vararg.is_none()
                && args.kwarg.is_none()
                && matches!(args.defaults.as_slice(), [] | [Expr::Const(Constant::Int(1))]);
            (format_only && crate::definitions::is_format_guard(args, guard)).then_some(value)
        }
        _ => None,
    }
}

/// What recovery learned about one block.
#[derive(Clone, Debug, Default)]
pub(crate) struct BlockCode {
    /// Why recovery failed, for blocks reached only through exception edges (an
    /// error only if structuring emits the block).
    pub error: Option<DecompileError>,
    /// Statements, in order.
    pub stmts: Vec<Stmt>,
    /// For a branch: the condition under which the *fall-through* successor runs.
    pub fall_condition: Option<Expr>,
    /// For a `FOR_ITER` block: the iterated expression and the temporary that holds
    /// each item at the start of the loop body.
    pub for_loop: Option<(Expr, String)>,
    /// For a branch whose arms only compute one value for the block given here (a
    /// conditional expression, `and`/`or`, a chained comparison): structuring goes
    /// straight there, the value being an expression in that block's entry stack.
    pub collapsed_to: Option<BlockId>,
}

/// The result of recovery: per-block statements plus facts for the function header.
pub(crate) struct Recovered {
    pub blocks: Vec<BlockCode>,
    /// Names stored with STORE_GLOBAL (need a `global` declaration).
    pub globals_stored: BTreeSet<String>,
    /// Free variables stored with STORE_DEREF (need a `nonlocal` declaration).
    pub nonlocals_stored: BTreeSet<String>,
}

impl Recovered {
    /// The statements of every block, in block order, taken out of the blocks
    /// (which are left with none): structuring owns them (see
    /// `structure::Structurer::new`).
    pub fn take_stmts(&mut self) -> Vec<Vec<Stmt>> {
        self.blocks.iter_mut().map(|b| std::mem::take(&mut b.stmts)).collect()
    }
}

/// Options that shape names the recovery invents.
pub(crate) struct Naming<'a> {
    /// Prefix of names standing for constants without a literal form.
    pub const_prefix: &'a str,
    /// Whether nested functions that fail become stubs (`Options::stub_failures`).
    pub stub_failures: bool,
    /// Where the stubbed functions are listed.
    pub failures: &'a std::cell::RefCell<Vec<crate::Failure>>,
    /// The code is a class body's 3.14+ `__annotate__` or a 3.12+ generic parameters
    /// function made in a class body, whose name lookups through the class namespace
    /// cell (`LOAD_FROM_DICT_OR_GLOBALS` on `__classdict__`) are what a plain name in
    /// such an annotation scope compiles to.
    pub class_annotate: bool,
    /// The comprehensions of the [`Op::InlinedComp`] ops, by index (CPython 3.12+),
    /// each over the placeholder `.0` that the op's iterator replaces.
    pub inlined: &'a [Expr],
    /// Name each iterator that `GET_ITER` makes at once, for the state machine of
    /// `crate::state_machine`: `GET_ITER` of `v` at stack depth `d` becomes the
    /// statement `__depyf_it_<d>__ = (x for x in v)` and the iterator on the stack
    /// that name, so that a `FOR_ITER` in another state finds it. Such an iterator
    /// may only be stepped by `FOR_ITER` or dropped.
    pub iter_temps: bool,
}

struct Ctx<'a> {
    code: &'a CodeObject,
    naming: &'a Naming<'a>,
    temp_counter: usize,
    globals_stored: BTreeSet<String>,
    nonlocals_stored: BTreeSet<String>,
    /// An empty buffer, with [`stack_room`] once a block that left an empty stack
    /// has been walked, that the next block's walk takes for its stack (see
    /// [`recover_block`]): blocks that end at a statement boundary pass one buffer
    /// on instead of allocating one each.
    spare_stack: Vec<SVal>,
}

impl Ctx<'_> {
    fn fresh_temp(&mut self) -> String {
        let n = self.temp_counter;
        self.temp_counter += 1;
        // A dunder-style name: private-name mangling leaves it alone inside classes.
        format!("__temp_{n}__")
    }

    fn local_name(&self, i: usize) -> Ident {
        Ident::from(&*self.code.co_localsplusnames[i])
    }

    fn name(&self, i: usize) -> Ident {
        Ident::from(&*self.code.co_names[i])
    }

    /// Whether a local named `name` would make the global of that name unreadable
    /// by name: any local but the hidden ones (3.12+ `CO_FAST_HIDDEN`, bound only
    /// by inlined comprehensions, PEP 709), which the rest of the function does not
    /// see. CPython 3.12 `Python/compile.c` (`push_inlined_comprehension_state`).
    fn shadows_global(&self, name: &str) -> bool {
        self.code.co_localsplusnames.iter().zip(&self.code.co_localspluskinds).any(|(n, k)| &**n == name && k & local_kind::HIDDEN == 0)
    }

    /// Whether `name` is a cell or free variable of the code (CPython 3.11+
    /// `co_localspluskinds`; the reader gives older code the same shape).
    fn is_cell_or_free(&self, name: &str) -> bool {
        use depyf_bytecode::local_kind::{CELL, FREE};
        self.code.co_localsplusnames.iter().zip(&self.code.co_localspluskinds).any(|(n, k)| &**n == name && k & (CELL | FREE) != 0)
    }

    fn is_local(&self, name: &str) -> bool {
        name.starts_with("__temp_")
            || self.code.co_localsplusnames.iter().any(|n| &**n == name)
    }

    fn constant(&self, i: usize) -> Expr {
        match &self.code.co_consts[i] {
            // A str with lone surrogates has a literal (made by the reader).
            c @ Constant::Opaque { type_name, repr, .. } if type_name == "str" && repr.starts_with('\'') => Expr::Const(c.clone()),
            // A folded constant slice (3.14+) reads as `a:b:c` in a subscript.
            Constant::Slice(parts) => {
                let part = |c: &Constant| match c {
                    Constant::None => None,
                    c => Some(Box::new(Expr::Const(c.clone()))),
                };
                let [a, b, c] = &**parts;
                Expr::Slice(part(a), part(b), part(c))
            }
            Constant::Opaque { index, .. } => Expr::Name(format!("{}_{index}", self.naming.const_prefix).into()),
            c => Expr::Const(c.clone()),
        }
    }
}

/// The cell of variable `name` as an expression: `(lambda: name).__closure__[0]`
/// (the lambda closes over that very cell). `LOAD_CLOSURE` pushes cells, which
/// Dynamo passes to factories of resume functions.
pub(crate) fn cell_of(name: &str) -> Expr {
    let lambda = Expr::Lambda(Box::default(), Box::new(Expr::name(name)));
    Expr::Subscript(Box::new(Expr::Attribute(Box::new(lambda), "__closure__".into())), Box::new(Expr::int(0)))
}

/// The variable whose cell `e` is (see [`cell_of`]).
pub(crate) fn cell_name(e: &Expr) -> Option<&str> {
    let Expr::Subscript(v, idx) = e else { return None };
    let Expr::Attribute(l, attr) = &**v else { return None };
    let Expr::Lambda(args, body) = &**l else { return None };
    match (&**body, attr.as_str(), &**idx, **args == depyf_source::Arguments::default()) {
        (Expr::Name(n), "__closure__", Expr::Const(Constant::Int(0)), true) => Some(n),
        _ => None,
    }
}

/// `iter(e)`: an iterator used as a plain value.
fn iter_call(e: Expr) -> Expr {
    Expr::Call(Box::new(Expr::name("iter")), vec![e], vec![])
}

/// Whether evaluating `e` later, or twice, gives the same value with no effect:
/// constants and local variables (a local can only change through a statement, and
/// statements spill first).
fn is_atomic(ctx: &Ctx<'_>, e: &Expr) -> bool {
    match e {
        Expr::Const(_) => true,
        Expr::NewLine(v) => is_atomic(ctx, v),
        // Not a cell or free variable: any call may rebind it (`nonlocal` in a
        // nested function), so its value is taken before the statements that follow
        // (`try: return x` / `finally: g()` returns `x` as it was before `g()`).
        // The compiler's own 3.14+ `__conditional_annotations__` cell is never
        // rebound after it is made.
        Expr::Name(n) => ctx.is_local(n) && (!ctx.is_cell_or_free(n) || &**n == "__conditional_annotations__"),
        // BUILD_SLICE of atomic parts runs no code; kept inline, it prints as `a:b`
        // in its subscript instead of a `slice(a, b)` call.
        Expr::Slice(a, b, c) => [a, b, c].into_iter().flatten().all(|x| is_atomic(ctx, x)),
        _ => false,
    }
}

/// Whether the plain local load `cur` must be written on another source line than
/// the plain local load `prev` just before it: both have line numbers, and they
/// differ. CPython 3.13+ fuses two such loads into one `LOAD_FAST_LOAD_FAST` (3.14+
/// also `LOAD_FAST_BORROW_LOAD_FAST_BORROW`) only when their lines are equal
/// (CPython 3.13 `Python/flowgraph.c`, `insert_superinstructions`), so the source
/// must keep them apart to compile to the same two loads. Before 3.13 the lines of
/// loads leave no trace in the bytecode and nothing is kept apart.
fn own_line(code: &CodeObject, prev: &IrInstr, cur: &IrInstr) -> bool {
    let plain = |i: &IrInstr| matches!(i.op, Op::LoadFast(_)) && matches!(i.opname, "LOAD_FAST" | "LOAD_FAST_BORROW");
    code.version >= depyf_bytecode::PythonVersion::PY313
        && plain(prev)
        && plain(cur)
        && matches!((prev.line, cur.line), (Some(a), Some(b)) if a != b)
}

/// Whether `e` always evaluates to a bool: comparisons, `not`, and `and`/`or` of such.
fn is_bool_valued(e: &Expr) -> bool {
    match e {
        Expr::Compare(..) | Expr::UnaryOp("not", _) | Expr::Const(Constant::Bool(_)) => true,
        Expr::BoolOp(_, items) => items.iter().all(is_bool_valued),
        _ => false,
    }
}

/// `not e`, with double negation folded. A negated `is`/`in` comparison stays
/// `not (a in b)`: CPython 3.14+ compiles it so in a test (the `CONTAINS_OP in` of
/// the source and a jump on the other outcome), where `a not in b` is another
/// op; for 3.8-3.13, which fold the two into one (`Python/ast_opt.c`
/// `fold_unaryop`), `definitions::fold_negated_tests` writes it `a not in b`. A
/// test against `None` becomes `is not` / `is` at once: every version compiles both
/// forms to the same `POP_JUMP_IF_[NOT_]NONE`.
pub(crate) fn negate(e: Expr) -> Expr {
    match e {
        Expr::UnaryOp("not", inner) => *inner,
        Expr::Compare(l, mut rest) if matches!(rest.as_slice(), [("is" | "is not", Expr::Const(Constant::None))]) => {
            let (op, r) = rest.pop().expect("one comparison");
            Expr::Compare(l, vec![(if op == "is" { "is not" } else { "is" }, r)])
        }
        // De Morgan: `not (a and b)` is `not a or not b`, one canonical form for the
        // conditions that short-circuit jumps express either way; only when every
        // negated operand is a bool, since `and`/`or` return an operand
        // (`not (not c and a)` is a bool, `c or not a` may be `c`).
        // Not when an operand is an `is`/`in` comparison: CPython folds `not (a is b)`
        // into `a is not b` (`Python/ast_opt.c` `fold_unaryop`), so `not a or not b`
        // would compile that operand with the other op and jump, where `not (a and
        // b)` keeps both. A test against `None` is no such operand: negating it
        // already flips its op (above), so every negation of the chain flips it once
        // more and De Morgan gives back the op that was compiled (3.8-3.10 `IS_OP`).
        Expr::BoolOp(is_and, items) => {
            let negated: Vec<Expr> = items.iter().cloned().map(negate).collect();
            let folds = |e: &Expr| {
                matches!(e, Expr::Compare(_, r) if r.len() == 1 && matches!(r[0].0, "is" | "is not" | "in" | "not in") && !matches!(r[0], ("is" | "is not", Expr::Const(Constant::None))))
            };
            if negated.iter().all(is_bool_valued) && !items.iter().any(folds) {
                Expr::BoolOp(!is_and, negated)
            } else {
                Expr::UnaryOp("not", Box::new(Expr::BoolOp(is_and, items)))
            }
        }
        other => Expr::UnaryOp("not", Box::new(other)),
    }
}

/// The negation of `e` where only its truth is used (the test of an `assert`): like
/// [`negate`], and De Morgan applies to `and`/`or` whatever its operands' values
/// (`not (a and b)` and `not a or not b` are true together, evaluating the same
/// operands in the same order), except over an operand that CPython folds with a
/// `not` (see [`negate`]).
pub(crate) fn negate_test(e: Expr) -> Expr {
    match e {
        Expr::BoolOp(is_and, items) => {
            let folds = |e: &Expr| {
                matches!(e, Expr::Compare(_, r) if r.len() == 1 && matches!(r[0].0, "is" | "is not" | "in" | "not in") && !matches!(r[0], ("is" | "is not", Expr::Const(Constant::None))))
            };
            if items.iter().any(folds) {
                Expr::UnaryOp("not", Box::new(Expr::BoolOp(is_and, items)))
            } else {
                Expr::BoolOp(!is_and, items.into_iter().map(negate_test).collect())
            }
        }
        other => negate(other),
    }
}

fn cmp_symbol(op: CmpOp) -> &'static str {
    op.symbol()
}

fn unary_symbol(op: UnaryOp) -> &'static str {
    match op {
        UnaryOp::Neg => "-",
        UnaryOp::Pos => "+",
        UnaryOp::Not => "not",
        UnaryOp::Invert => "~",
    }
}

/// The expression a stack value stands for as an operand: an iterator not stepped
/// by `FOR_ITER` reads as `iter(e)`; `Err` with the message for a NULL marker and
/// for an iterator named by [`Naming::iter_temps`] (whose variable holds a wrapper
/// of the iterator, not the iterator itself).
#[inline]
fn sval_value(v: SVal) -> Result<Expr, &'static str> {
    match v {
        SVal::Expr(e) => Ok(e),
        SVal::Iter(e) if matches!(&e, Expr::Name(n) if n.starts_with(ITER_PREFIX)) => Err("an iterator used other than by FOR_ITER, in a state machine"),
        SVal::Iter(e) => Ok(iter_call(e)),
        SVal::Mark(m) => Ok(m.expr()),
        SVal::Null => Err("a NULL marker is used as a value"),
    }
}

struct BlockState<'c, 'a> {
    ctx: &'c mut Ctx<'a>,
    stack: Vec<SVal>,
    stmts: Vec<Stmt>,
    ins: &'c IrInstr,
    /// Whether the previous op of this block pushed a variable's value (then a
    /// POP_TOP of it is the statement `name`, not a stack clean-up).
    prev_was_load: bool,
    /// Whether the current op is a plain local load that must stay on another
    /// source line than the plain local load before it ([`own_line`]).
    own_line: bool,
    /// The block's last op, the terminator the walked ops lead to (not among them).
    term: &'c Op,
}

impl BlockState<'_, '_> {
    fn err(&self, message: impl Into<String>) -> DecompileError {
        DecompileError::new(self.ctx.code, self.ins.at, self.ins.opname, message)
    }

    fn pop(&mut self) -> Result<SVal, DecompileError> {
        self.stack.pop().ok_or_else(|| self.err("stack underflow"))
    }

    fn pop_expr(&mut self) -> Result<Expr, DecompileError> {
        match self.pop()? {
            SVal::Expr(e) => Ok(e),
            v => sval_value(v).map_err(|m| self.err(m)),
        }
    }

    /// The value of an iterator used as an operand (not stepped by `FOR_ITER`):
    /// `iter(e)`; an error for one named by [`Naming::iter_temps`], whose variable
    /// holds a wrapper of the iterator, not the iterator itself.
    fn iter_value(&self, e: Expr) -> Result<Expr, DecompileError> {
        sval_value(SVal::Iter(e)).map_err(|m| self.err(m))
    }

    fn pop_n(&mut self, n: usize) -> Result<Vec<Expr>, DecompileError> {
        self.pop_n_with_room(n, 0)
    }

    /// [`Self::pop_n`] into a vector with room for `extra` more values (one
    /// allocation for a caller that adds some; none for `n + extra == 0`).
    fn pop_n_with_room(&mut self, n: usize, extra: usize) -> Result<Vec<Expr>, DecompileError> {
        if self.stack.len() < n {
            return Err(self.err("stack underflow"));
        }
        let at = self.stack.len() - n;
        let mut items = Vec::with_capacity(n + extra);
        let (code, ins) = (self.ctx.code, self.ins);
        for v in self.stack.drain(at..) {
            items.push(match v {
                SVal::Expr(e) => e,
                v => sval_value(v).map_err(|m| DecompileError::new(code, ins.at, ins.opname, m))?,
            });
        }
        Ok(items)
    }

    fn push(&mut self, e: Expr) {
        self.stack.push(SVal::Expr(e));
    }

    /// Whether the stack value at `i` can be evaluated later or twice unchanged
    /// (NULL markers and iterators are never re-evaluated).
    /// Whether reordering the stack values in `range` could change what runs when:
    /// two delayed values swap their evaluation order, or a delayed value moves
    /// across a marker of the frame's structure (a `with` exit, a handler's
    /// exception), whose statements come at fixed points.
    fn reorder_needs_spill(&self, range: std::ops::Range<usize>) -> bool {
        let delayed = range.clone().filter(|&i| !self.is_atomic_at(i)).count();
        let marks = range.filter(|&i| matches!(self.stack[i], SVal::Mark(_))).count();
        delayed > 1 || (delayed == 1 && marks > 0)
    }

    fn is_atomic_at(&self, i: usize) -> bool {
        match &self.stack[i] {
            // The result of `x.a += v`, which the next store consumes.
            SVal::Expr(Expr::BinOp(_, op, _)) if op.ends_with('=') => true,
            // A global's load has no effect, and no statement runs before the copies
            // or the reordered values are used (statements spill first).
            SVal::Expr(Expr::Name(_)) => true,
            SVal::Expr(Expr::NewLine(v)) if matches!(**v, Expr::Name(_)) => true,
            // BUILD_SLICE of plain operands runs no code (`xs[1:3] += v` copies it).
            SVal::Expr(Expr::Slice(a, b, c)) => [a, b, c]
                .into_iter()
                .flatten()
                .all(|x| matches!(**x, Expr::Name(_) | Expr::Const(_))),
            SVal::Expr(e) => is_atomic(self.ctx, e),
            SVal::Null | SVal::Iter(_) | SVal::Mark(_) => true,
        }
    }

    /// The kept middle operand of a chained comparison `a < m < c`: with the stack
    /// `[.., a, m]` and `rest` starting with the `COMPARE_OP` and the conditional
    /// jump that follow the ops copying `m` (CPython 3.8-3.10 `DUP_TOP, ROT_THREE`,
    /// 3.11+ `SWAP 2, COPY 2`; `Python/compile.c`/`codegen.c` `compiler_compare`),
    /// leaves `[.., t, a, (t := m)]` for a fresh temporary `t` and returns true:
    /// `m` is evaluated once, after `a`, and the kept copy reads `t`, which only the
    /// next comparison of the chain does (after the test of this one). `bool_op`
    /// folds `a < (t := m) and t < c` back into `a < m < c`. A name or constant
    /// `m` is named too: the temporary is what tells the chain from `a < m and m <
    /// c`, which loads `m` twice. False (nothing changed) for other shapes.
    fn chain_middle(&mut self, rest: &[IrInstr]) -> bool {
        // The test is the block's terminator, after the ops in `rest`.
        let test = matches!(self.term, Op::JumpIfOrPop { .. } | Op::JumpIf { .. });
        // (3.12+ `COPY 1; POP_JUMP_IF_*` reads as a `Nop` and a `JUMP_IF_*_OR_POP`,
        // 3.14 `TO_BOOL` as a `Nop`.)
        let tested = test && !rest.is_empty() && rest[1..].iter().all(|i| matches!(i.op, Op::Nop)) || test && rest.len() == 2 && matches!(rest[1].op, Op::Copy(1));
        let len = self.stack.len();
        if !tested || !matches!(rest.first().map(|i| &i.op), Some(Op::Compare(_))) || len < 2 {
            return false;
        }
        let (SVal::Expr(_), SVal::Expr(m)) = (&self.stack[len - 2], &self.stack[len - 1]) else { return false };
        if matches!(m, Expr::NamedExpr(..)) {
            return false;
        }
        let SVal::Expr(m) = self.stack.pop().expect("checked") else { unreachable!("checked") };
        let a = self.stack.pop().expect("checked");
        let t = self.ctx.fresh_temp();
        self.push(Expr::name(&t));
        self.stack.push(a);
        self.push(Expr::NamedExpr(t, Box::new(m)));
        true
    }

    /// Assigns every non-atomic stack value at positions `0..upto` to a temporary,
    /// bottom first, so that they are evaluated before whatever comes next.
    fn spill_upto(&mut self, upto: usize) {
        for i in 0..upto.min(self.stack.len()) {
            if let SVal::Expr(e) = &self.stack[i] {
                if !is_atomic(self.ctx, e) {
                    let t = self.ctx.fresh_temp();
                    // `t = (n := v)` compiles exactly like `n = t = v`, which is the
                    // form recovery reads back: write that one.
                    let stmt = match e.clone() {
                        Expr::NamedExpr(n, v) => Stmt::Assign(vec![Expr::Name(n.into()), Expr::Name(t.clone().into())], *v),
                        e => Stmt::Assign(vec![Expr::Name(t.clone().into())], e),
                    };
                    self.stmts.push(stmt);
                    self.stack[i] = SVal::Expr(Expr::Name(t.into()));
                }
            }
        }
    }

    /// Spills the whole stack and emits `s`; values that name a local the statement
    /// rebinds are spilled too, since they are no longer atomic.
    fn emit(&mut self, s: Stmt) {
        // Most statements come with no plain name on the stack: nothing to rebind,
        // and no need to collect the names the statement binds.
        let names_on_stack = self.stack.iter().any(|v| matches!(v, SVal::Expr(Expr::Name(_))));
        let rebinds: Vec<Ident> = match &s {
            Stmt::Assign(targets, _) if names_on_stack => targets.iter().flat_map(target_names).collect(),
            Stmt::Delete(targets) if names_on_stack => targets.iter().flat_map(target_names).collect(),
            _ => Vec::new(),
        };
        for i in 0..self.stack.len() {
            if let SVal::Expr(Expr::Name(n)) = &self.stack[i] {
                if rebinds.contains(n) {
                    let t = self.ctx.fresh_temp();
                    self.stmts.push(Stmt::Assign(vec![Expr::Name(t.clone().into())], Expr::Name(n.clone())));
                    self.stack[i] = SVal::Expr(Expr::Name(t.into()));
                }
            }
        }
        self.spill_upto(self.stack.len());
        self.stmts.push(s);
    }

    /// How many consecutive stores to distinct plain variables start at `op` (at
    /// least 2, else 0), each taking one value already on the stack.
    fn tuple_store_len(&self, op: &Op, next: &[IrInstr]) -> usize {
        let name_of = |op: &Op| -> Option<Ident> {
            match *op {
                Op::StoreFast(i) | Op::StoreDeref(i) => Some(self.ctx.local_name(i)),
                Op::StoreName(i) | Op::StoreGlobal(i) => Some(self.ctx.name(i)),
                _ => None,
            }
        };
        let mut names = Vec::new();
        for o in std::iter::once(op).chain(next.iter().map(|i| &i.op)) {
            match name_of(o) {
                Some(n) if !names.contains(&n) && names.len() < self.stack.len() => names.push(n),
                _ => break,
            }
        }
        let k = names.len();
        let values_ok = k >= 2 && self.stack[self.stack.len() - k..].iter().all(|v| matches!(v, SVal::Expr(_)));
        if values_ok {
            k
        } else {
            0
        }
    }

    /// `a, b = x, y` as CPython 3.11+ compiles it after removing the SWAP: the values,
    /// then stores in reverse order. Emits the tuple assignment and returns how many
    /// stores it covers (0: not this shape).
    fn tuple_store(&mut self, op: &Op, next: &[IrInstr]) -> Result<usize, DecompileError> {
        let k = self.tuple_store_len(op, next);
        if k == 0 {
            return Ok(0);
        }
        let ops: Vec<Op> = std::iter::once(op.clone()).chain(next.iter().take(k - 1).map(|i| i.op.clone())).collect();
        let mut targets = Vec::with_capacity(k);
        for o in &ops {
            match self.simple_store_target(o) {
                Some(t) => targets.push(t),
                None => return Ok(0),
            }
        }
        targets.reverse();
        let values = self.pop_n(k)?;
        self.emit(Stmt::Assign(vec![Expr::Tuple(targets)], Expr::Tuple(values)));
        Ok(k)
    }

    /// `a = b = v`, compiled as `v; COPY 1; STORE a; COPY 1; STORE b; ...; STORE z`
    /// (seen at the first COPY): emits the assignment and returns how many of the
    /// following ops it covers, or `None` for another shape.
    fn chained_assignment(&mut self, next: &[IrInstr]) -> Result<Option<usize>, DecompileError> {
        let is_store = |op: &Op| matches!(op, Op::StoreFast(_) | Op::StoreName(_) | Op::StoreGlobal(_) | Op::StoreDeref(_));
        let mut ops = Vec::new();
        let mut i = 0;
        loop {
            match (next.get(i).map(|x| &x.op), next.get(i + 1).map(|x| &x.op)) {
                (Some(s), Some(Op::Copy(1))) if is_store(s) => {
                    ops.push(s.clone());
                    i += 2;
                }
                (Some(s), Some(t)) if is_store(s) && is_store(t) => {
                    ops.push(s.clone());
                    ops.push(t.clone());
                    i += 2;
                    break;
                }
                (Some(s), None) if is_store(s) && !ops.is_empty() => {
                    ops.push(s.clone());
                    i += 1;
                    break;
                }
                _ => return Ok(None),
            }
        }
        if !matches!(self.stack.last(), Some(SVal::Expr(_))) {
            return Ok(None);
        }
        let mut targets = Vec::new();
        for o in &ops {
            match self.simple_store_target(o) {
                Some(t) => targets.push(t),
                None => return Ok(None),
            }
        }
        let v = self.pop_expr()?;
        self.emit(Stmt::Assign(targets, v));
        Ok(Some(i))
    }

    /// `t1 = t2 = ... = v` whose targets may be attributes, subscripts and tuples,
    /// compiled as `v; COPY 1; <t1>; COPY 1; ...; <tn>` (seen at the first COPY;
    /// CPython 3.8-3.15 `compiler_visit_stmt` for `Assign`: the value once, then each
    /// target left to right; see [`Self::target_end`] for a target's ops). Returns
    /// how many of the following ops it covers, or `None` for another shape (nothing
    /// changed then).
    fn chained_targets(&mut self, next: &[IrInstr]) -> Result<Option<usize>, DecompileError> {
        match self.stack.last() {
            Some(SVal::Expr(Expr::BinOp(_, op, _))) if op.ends_with('=') && !matches!(*op, "==" | "!=" | "<=" | ">=") => return Ok(None),
            Some(SVal::Expr(_)) => {}
            _ => return Ok(None),
        }
        let mut starts = Vec::new();
        let Some(first) = self.target_end(next, 0) else { return Ok(None) };
        starts.push(0);
        let mut i = first;
        loop {
            if matches!(next.get(i).map(|x| &x.op), Some(Op::Copy(1))) {
                let Some(end) = self.target_end(next, i + 1) else { return Ok(None) };
                starts.push(i + 1);
                i = end;
                continue;
            }
            // The last target takes the value itself.
            let Some(end) = self.target_end(next, i) else { return Ok(None) };
            starts.push(i);
            i = end;
            break;
        }
        let mut targets = Vec::with_capacity(starts.len());
        for start in starts {
            targets.push(self.build_target(next, start)?.0);
        }
        let v = self.pop_expr()?;
        self.emit(Stmt::Assign(targets, v));
        Ok(Some(i))
    }

    /// `t op= v` whose target's operands are on top of the stack, seen at the `COPY`
    /// (3.8-3.10 `DUP_TOP`/`DUP_TOP_TWO`) that keeps them for the store: `e.a`
    /// (`COPY 1; LOAD_ATTR a; <v>; BINARY_OP op=; SWAP 2; STORE_ATTR a`), `e[k]`
    /// (`COPY 2; COPY 2; BINARY_SUBSCR; <v>; BINARY_OP op=; SWAP 3; SWAP 2` or
    /// `ROT_THREE`, `STORE_SUBSCR`) and, 3.12+, `e[i:j]` (`COPY 3` three times,
    /// `BINARY_SLICE; <v>; BINARY_OP op=; SWAP 4; SWAP 3; SWAP 2; STORE_SLICE`);
    /// CPython 3.8-3.15 `compiler_augassign`/`codegen_augassign`. The operands are
    /// evaluated once, then the target's value, then `v`, as the statement does.
    /// Used where an operand may not be evaluated twice (copying would name it
    /// first). Emits the statement and returns how many ops of `next` it covers, or
    /// `None` (nothing changed) for another shape, or when `v` is more than one
    /// expression's ops (it runs a statement, or reads what lies below).
    fn aug_assign(&mut self, n: usize, next: &[IrInstr]) -> Result<Option<usize>, DecompileError> {
        let ops: Vec<&Op> = next.iter().map(|i| &i.op).collect();
        let load = match (n, ops.as_slice()) {
            (1, [Op::LoadAttr(_), ..]) => 1,
            (2, [Op::Copy(2), Op::BinarySubscr, ..]) => 2,
            (3, [Op::Copy(3), Op::Copy(3), Op::BuildSlice(2), Op::BinarySubscr, ..]) => 4,
            _ => return Ok(None),
        };
        if self.stack.len() < n || !self.stack[self.stack.len() - n..].iter().all(|v| matches!(v, SVal::Expr(_))) {
            return Ok(None);
        }
        // The value: ops that push one value onto the target's, up to the operator.
        let mut depth = 0u32;
        let mut at = None;
        for (q, op) in ops.iter().enumerate().skip(load) {
            if depth == 1 {
                if let Op::Binary(b, true) = op {
                    at = Some((q, *b));
                    break;
                }
            }
            let (pops, pushes) = op.stack_effect();
            if pops > depth || op.jump_target().is_some() || op.is_terminator() {
                return Ok(None);
            }
            depth = depth - pops + pushes;
        }
        let Some((q, b)) = at else { return Ok(None) };
        let store: &[Op] = match (n, ops[0]) {
            (1, Op::LoadAttr(a)) => &[Op::Swap(2), Op::StoreAttr(*a)],
            (2, _) if matches!(ops.get(q + 1), Some(Op::Rot(3))) => &[Op::Rot(3), Op::StoreSubscr],
            (2, _) => &[Op::Swap(3), Op::Swap(2), Op::StoreSubscr],
            _ => &[Op::Swap(4), Op::Swap(3), Op::Swap(2), Op::BuildSlice(2), Op::StoreSubscr],
        };
        if ops.len() < q + 1 + store.len() || ops[q + 1..q + 1 + store.len()].iter().zip(store).any(|(x, y)| *x != y) {
            return Ok(None);
        }
        let mut operands = self.stack[self.stack.len() - n..].iter().map(|v| match v {
            SVal::Expr(e) => e.clone(),
            _ => unreachable!("checked"),
        });
        let e = operands.next().expect("n >= 1");
        let target = match ops[0] {
            Op::LoadAttr(a) => Expr::Attribute(Box::new(e), self.ctx.name(*a)),
            _ if n == 2 => Expr::Subscript(Box::new(e), Box::new(operands.next().expect("n == 2"))),
            _ => {
                let (i, j) = (operands.next().expect("n == 3"), operands.next().expect("n == 3"));
                let part = |x: Expr| match x {
                    Expr::Const(Constant::None) => None,
                    x => Some(Box::new(x)),
                };
                Expr::Subscript(Box::new(e), Box::new(Expr::Slice(part(i), part(j), None)))
            }
        };
        let mut below: Vec<SVal> = self.stack[..self.stack.len() - n].to_vec();
        below.push(SVal::Expr(target.clone()));
        let Some(v) = pure_value(self.ctx, &next[load..q], &below) else { return Ok(None) };
        self.stack.truncate(self.stack.len() - n);
        self.emit(Stmt::AugAssign(target, aug_symbol(b.symbol()), v));
        Ok(Some(q + 1 + store.len()))
    }

    /// Whether this is the compiler-made `__annotate__(format, /)` of CPython 3.14+
    /// ([`crate::definitions::is_annotate_function`]).
    fn in_annotate(&self) -> bool {
        crate::definitions::is_annotate_function(self.ctx.code)
    }

    /// Whether the item of an `UNPACK_SEQUENCE 1` that no store takes is the
    /// annotation `*Ts` of a `*args` parameter (PEP 646): in a 3.14+ `__annotate__`
    /// function, or when the ops in `next` go on to the `MAKE_FUNCTION` (3.13+
    /// `SET_FUNCTION_ATTRIBUTE 4`) that sets annotations with values still being
    /// loaded, no statement ending before. A wrong guess leaves a marker that fails the
    /// function; the other reading names the item with a temporary.
    fn builds_annotations(&self, next: &[IrInstr]) -> bool {
        if self.in_annotate() {
            return true;
        }
        for i in next.iter().take(512) {
            match i.op {
                Op::MakeFunction { flags, .. } if flags & 0x04 != 0 => return true,
                Op::SetFunctionAttribute(0x04) => return true,
                // 3.13+: the function is made first, its closure set before.
                Op::MakeFunction { flags: 0, .. } | Op::SetFunctionAttribute(0x08) => {}
                Op::MakeFunction { .. }
                | Op::SetFunctionAttribute(_)
                | Op::StoreFast(_)
                | Op::StoreDeref(_)
                | Op::StoreGlobal(_)
                | Op::StoreName(_)
                | Op::StoreAttr(_)
                | Op::StoreSubscr
                | Op::PopTop
                | Op::Return
                | Op::Jump { .. }
                | Op::JumpIf { .. }
                | Op::JumpIfNone { .. }
                | Op::JumpIfOrPop { .. }
                | Op::Raise(_)
                | Op::UnpackSequence(_)
                | Op::UnpackEx { .. } => return false,
                _ => {}
            }
        }
        false
    }

    /// Where the ops of one assignment target that starts at `next[from]` end (one
    /// past its store), the value it takes being on the stack: a store to a plain
    /// variable; the ops of the operand expressions (loads, attributes, subscripts,
    /// operators, slices, tuples, calls: ops that run no statement) then
    /// `STORE_ATTR`/`STORE_SUBSCR`; or `UNPACK_SEQUENCE n` and n targets. `None`
    /// for anything else. Reads only.
    fn target_end(&self, next: &[IrInstr], from: usize) -> Option<usize> {
        if let Some(Op::UnpackSequence(n)) = next.get(from).map(|i| &i.op) {
            let mut j = from + 1;
            for _ in 0..*n {
                j = self.target_end(next, j)?;
            }
            return Some(j);
        }
        let mut depth = 0u32;
        for (j, ins) in next.iter().enumerate().skip(from) {
            match ins.op {
                Op::Nop => {}
                Op::LoadConst(_) | Op::LoadSmallInt(_) | Op::LoadFast(_) | Op::LoadDeref(_) | Op::LoadGlobal(_) | Op::LoadName(_) => depth += 1,
                Op::LoadAttr(_) if depth >= 1 => {}
                Op::BinarySubscr if depth >= 2 => depth -= 1,
                ref op @ (Op::Binary(_, false) | Op::Unary(_) | Op::Compare(_) | Op::BuildSlice(_) | Op::BuildTuple(_) | Op::Call { .. } | Op::PushNull | Op::LoadMethod(..) | Op::LoadCommonConstant(_)) => {
                    let (pops, pushes) = op.stack_effect();
                    if pops > depth {
                        return None;
                    }
                    depth = depth - pops + pushes;
                }
                Op::StoreGlobal(i) if depth == 0 => {
                    let n = self.ctx.name(i);
                    return (!self.ctx.code.co_localsplusnames.iter().any(|x| **x == *n)).then_some(j + 1);
                }
                Op::StoreFast(_) | Op::StoreName(_) | Op::StoreDeref(_) if depth == 0 => return Some(j + 1),
                Op::StoreAttr(_) if depth == 1 => return Some(j + 1),
                Op::StoreSubscr if depth == 2 => return Some(j + 1),
                _ => return None,
            }
        }
        None
    }

    /// The target whose ops [`Self::target_end`] accepted at `next[from]`, and where
    /// they end: interprets its operand loads (the value it takes is not on the
    /// symbolic stack: the caller holds it).
    fn build_target(&mut self, next: &[IrInstr], from: usize) -> Result<(Expr, usize), DecompileError> {
        if let Op::UnpackSequence(n) = next[from].op {
            let mut j = from + 1;
            let mut items = Vec::with_capacity(n as usize);
            for _ in 0..n {
                let (t, end) = self.build_target(next, j)?;
                items.push(t);
                j = end;
            }
            return Ok((Expr::Tuple(items), j));
        }
        let end = self.target_end(next, from).ok_or_else(|| self.err("an assignment target of an unknown shape"))?;
        let store = end - 1;
        let mut j = from;
        while j < store {
            let skip = self.step(&next[j].op, &next[j + 1..store])?;
            j += 1 + skip;
        }
        let t = match next[store].op {
            Op::StoreAttr(n) => Expr::Attribute(Box::new(self.pop_expr()?), self.ctx.name(n)),
            Op::StoreSubscr => {
                let k = self.pop_expr()?;
                let c = self.pop_expr()?;
                Expr::Subscript(Box::new(c), Box::new(k))
            }
            ref op => self.simple_store_target(op).ok_or_else(|| self.err("an assignment target of an unknown shape"))?,
        };
        Ok((t, end))
    }

    /// The target of a store to a plain variable, registering `global`/`nonlocal`
    /// declarations it needs; `None` for other ops.
    fn simple_store_target(&mut self, op: &Op) -> Option<Expr> {
        let name = match *op {
            Op::StoreFast(i) => self.ctx.local_name(i),
            Op::StoreName(i) => self.ctx.name(i),
            Op::StoreDeref(i) => {
                let n = self.ctx.local_name(i);
                if self.ctx.code.co_localspluskinds[i] & local_kind::FREE != 0 {
                    self.ctx.nonlocals_stored.insert(n.to_string());
                }
                n
            }
            Op::StoreGlobal(i) => {
                let n = self.ctx.name(i);
                if self.ctx.code.co_localsplusnames.iter().any(|x| **x == *n) {
                    return None;
                }
                self.ctx.globals_stored.insert(n.to_string());
                n
            }
            _ => return None,
        };
        Some(Expr::Name(name.into()))
    }

    fn store(&mut self, target: Expr) -> Result<(), DecompileError> {
        let v = self.pop_expr()?;
        if let Expr::BinOp(l, op, r) = &v {
            if op.ends_with('=') && !matches!(*op, "==" | "!=" | "<=" | ">=") {
                if **l != target {
                    return Err(self.err("an in-place operator whose result is stored elsewhere"));
                }
                self.emit(Stmt::AugAssign(target, op, (**r).clone()));
                return Ok(());
            }
        }
        self.emit(Stmt::Assign(vec![target], v));
        Ok(())
    }

    fn call(&mut self, argc: u32, kwnames: Option<usize>, layout: CallLayout) -> Result<(), DecompileError> {
        // (Room for a `self` argument that the layout may put first.)
        let mut args = self.pop_n_with_room(argc as usize, usize::from(layout != CallLayout::NoNull))?;
        let func = if layout == CallLayout::NoNull {
            self.pop_expr()?
        } else {
            let upper = self.pop()?;
            let lower = self.pop()?;
            let (first, second) = match layout {
                CallLayout::NullFirst => (lower, upper),
                _ => (upper, lower),
            };
            // `first` is NULL or the callable; `second` the callable or `self`.
            match (layout, first, second) {
                (CallLayout::NullFirst, SVal::Null, SVal::Expr(f)) => f,
                (CallLayout::NullFirst, SVal::Expr(f), SVal::Expr(self_arg)) => {
                    args.insert(0, self_arg);
                    f
                }
                (_, SVal::Null, SVal::Expr(f)) => f,
                (_, SVal::Expr(self_arg), SVal::Expr(f)) => {
                    args.insert(0, self_arg);
                    f
                }
                _ => return Err(self.err("a NULL marker is called")),
            }
        };
        let mut keywords = Vec::new();
        if let Some(k) = kwnames {
            let Constant::Tuple(names) = &self.ctx.code.co_consts[k] else {
                return Err(self.err("keyword names are not a tuple"));
            };
            if names.len() > args.len() {
                return Err(self.err("more keyword names than arguments"));
            }
            let at = args.len() - names.len();
            for (n, v) in names.iter().zip(args.drain(at..)) {
                let Constant::Str(n) = n else { return Err(self.err("a keyword name is not a str")) };
                if !crate::is_identifier(n) {
                    return Err(self.err(format!("keyword name `{}` is not a Python identifier, so no source can spell it (hand-made or obfuscated code)", n.escape_debug())));
                }
                keywords.push(Keyword { name: Some(String::from(&**n)), value: v });
            }
        }
        self.push(Expr::Call(Box::new(func), args, keywords));
        Ok(())
    }

    fn step(&mut self, op: &Op, next: &[IrInstr]) -> Result<usize, DecompileError> {
        if matches!(op, Op::StoreFast(_) | Op::StoreName(_) | Op::StoreGlobal(_) | Op::StoreDeref(_)) {
            let k = self.tuple_store(op, next)?;
            if k > 0 {
                return Ok(k - 1);
            }
        }
        let ctx = &mut *self.ctx;
        match *op {
            Op::Nop | Op::FrameSetup => {}
            Op::LoadConst(i) => {
                // A code object that no MAKE_FUNCTION consumes (Dynamo passes them to
                // `_create_nested_fn`) has no literal: it is named like an opaque
                // constant, for the caller to bind.
                // (`EXTENDED_ARG` before the qualname's `LOAD_CONST`, a `Nop`, in a
                // 3.8-3.10 module with more than 255 constants.)
                let mut after = next.iter().map(|x| &x.op).filter(|op| **op != Op::Nop);
                let made_into_function = match (after.next(), after.next()) {
                    (Some(Op::MakeFunction { .. }), _) => true,
                    (Some(Op::LoadConst(_)), Some(Op::MakeFunction { qualname: true, .. })) => true,
                    _ => false,
                };
                // A folded slice (3.14+) reads as `a:b` where a subscript uses it;
                // anywhere else (Dynamo returns slice objects) it is an opaque
                // constant, since `slice(...)` would read a global.
                let subscripted = matches!(
                    next.first().map(|x| &x.op),
                    Some(Op::BinarySubscr | Op::StoreSubscr | Op::DeleteSubscr | Op::Copy(_))
                );
                let c = match &ctx.code.co_consts[i] {
                    Constant::Code(_) if !made_into_function => Expr::Name(format!("{}_{i}", ctx.naming.const_prefix).into()),
                    Constant::Slice(_) if !subscripted => Expr::Name(format!("{}_{i}", ctx.naming.const_prefix).into()),
                    _ => ctx.constant(i),
                };
                self.push(c);
            }
            Op::LoadFast(i) if ctx.code.co_localspluskinds[i] & (local_kind::CELL | local_kind::FREE) != 0 => {
                // LOAD_FAST of a cell slot pushes the cell itself (3.13+ builds
                // closures this way; LOAD_CLOSURE is gone).
                let n = ctx.local_name(i);
                self.push(cell_of(&n));
            }
            Op::LoadFast(i) | Op::LoadDeref(i) => {
                let n = ctx.local_name(i);
                let e = Expr::Name(n.into());
                // Decompiler-made names (`__temp_0__`) never come from source lines.
                if self.own_line && !matches!(&e, Expr::Name(n) if n.starts_with("__")) {
                    self.push(Expr::NewLine(Box::new(e)));
                } else {
                    self.push(e);
                }
            }
            Op::LoadClosure(i) => {
                // The cell object itself, not its content.
                let n = ctx.local_name(i);
                self.push(cell_of(&n));
            }
            Op::StoreFast(i) => {
                let n = ctx.local_name(i);
                // `name = None; del name`, the end of `except E as name:` (CPython
                // `compiler_try_except`), with the clause's `return name` value held
                // below: that value was read before the unbind, and the clause's
                // `return name` compiles to exactly this. Written as the unbind alone
                // (the structurer reads the held value's return into the clause), not
                // with the value copied into a temporary first.
                let unbind = matches!(next.first().map(|x| &x.op), Some(Op::DeleteFast(j)) if *j == i);
                let held = self.stack.len() >= 2 && matches!(&self.stack[self.stack.len() - 2], SVal::Expr(Expr::Name(h)) if *h == *n);
                if unbind && held && matches!(self.stack.last(), Some(SVal::Expr(Expr::Const(Constant::None)))) {
                    self.stack.pop();
                    self.spill_upto(self.stack.len());
                    self.stmts.push(Stmt::Assign(vec![Expr::Name(n.clone())], Expr::Const(Constant::None)));
                    self.stmts.push(Stmt::Delete(vec![Expr::Name(n)]));
                    return Ok(1);
                }
                self.store(Expr::Name(n.into()))?;
            }
            Op::StoreDeref(i) => {
                let n = ctx.local_name(i);
                if ctx.code.co_localspluskinds[i] & local_kind::FREE != 0 {
                    ctx.nonlocals_stored.insert(n.to_string());
                }
                self.store(Expr::Name(n.into()))?;
            }
            Op::DeleteFast(i) | Op::DeleteDeref(i) => {
                let n = ctx.local_name(i);
                if matches!(op, Op::DeleteDeref(_)) && ctx.code.co_localspluskinds[i] & local_kind::FREE != 0 {
                    ctx.nonlocals_stored.insert(n.to_string());
                }
                self.emit(Stmt::Delete(vec![Expr::Name(n.into())]));
            }
            Op::LoadGlobal(i) | Op::LoadName(i) => {
                let n = ctx.name(i);
                // A class or module body has no fast locals of its own: CPython 3.12+
                // gives it one, not hidden, for each global that an inlined
                // comprehension there reads (saved and restored around the
                // comprehension, never read), and that name written plainly compiles
                // back to the same LOAD_GLOBAL (3.12 `Python/symtable.c`,
                // `inline_comprehension`; calendar's `_localized_month._months`).
                let optimized = ctx.code.co_flags & depyf_bytecode::co_flags::OPTIMIZED != 0;
                if matches!(op, Op::LoadGlobal(_)) && optimized && ctx.shadows_global(&n) {
                    return Err(self.err(format!("global `{n}` is shadowed by a local of the same name")));
                }
                self.push(Expr::Name(n.into()));
            }
            Op::StoreGlobal(i) | Op::StoreName(i) => {
                let n = ctx.name(i);
                if matches!(op, Op::StoreGlobal(_)) {
                    if ctx.shadows_global(&n) {
                        return Err(self.err(format!("global `{n}` is shadowed by a local of the same name")));
                    }
                    ctx.globals_stored.insert(n.to_string());
                }
                self.store(Expr::Name(n.into()))?;
            }
            Op::DeleteGlobal(i) | Op::DeleteName(i) => {
                let n = ctx.name(i);
                if matches!(op, Op::DeleteGlobal(_)) {
                    ctx.globals_stored.insert(n.to_string());
                }
                self.emit(Stmt::Delete(vec![Expr::Name(n.into())]));
            }
            Op::LoadAttr(i) => {
                let n = ctx.name(i);
                let v = self.pop_expr()?;
                self.push(Expr::Attribute(Box::new(v), n.into()));
            }
            Op::LoadMethod(i, layout) => {
                let n = ctx.name(i);
                let v = self.pop_expr()?;
                let bound = Expr::Attribute(Box::new(v), n.into());
                if layout == CallLayout::NullSecond {
                    self.push(bound);
                    self.stack.push(SVal::Null);
                } else {
                    self.stack.push(SVal::Null);
                    self.push(bound);
                }
            }
            Op::StoreAttr(i) => {
                let n = ctx.name(i);
                let obj = self.pop_expr()?;
                self.store(Expr::Attribute(Box::new(obj), n.into()))?;
            }
            Op::DeleteAttr(i) => {
                let n = ctx.name(i);
                let obj = self.pop_expr()?;
                self.emit(Stmt::Delete(vec![Expr::Attribute(Box::new(obj), n.into())]));
            }
            Op::PushNull => self.stack.push(SVal::Null),
            Op::PopTop if matches!(self.stack.last(), Some(SVal::Mark(_))) => {
                if let Some(SVal::Mark(Mark::WithEnter(m))) = self.stack.pop() {
                    self.emit(Stmt::Expr(Mark::WithEnter(m).expr()));
                }
            }
            Op::PopTop => {
                let v = self.pop()?;
                // A named iterator (`Naming::iter_temps`) dropped by `break` is let go
                // of now, as the stack lets go of it: a generator being iterated is
                // closed at this point, not when the function returns.
                if let SVal::Iter(Expr::Name(n)) = &v {
                    if n.starts_with(ITER_PREFIX) {
                        self.emit(Stmt::Assign(vec![Expr::name(n)], Expr::Const(Constant::None)));
                    }
                }
                if let SVal::Expr(e) = v {
                    // Constants, and variables loaded earlier and now cleaned off the
                    // stack, have no effect; `name` alone as a statement is kept.
                    let dropped = match &e {
                        Expr::Const(_) => true,
                        Expr::Name(n) => n.starts_with("__temp_") || (is_atomic(self.ctx, &e) && !self.prev_was_load),
                        _ => false,
                    };
                    if !dropped {
                        self.emit(Stmt::Expr(e));
                    }
                }
            }
            Op::Copy(n) => {
                let n = n as usize;
                if n == 0 || n > self.stack.len() {
                    return Err(self.err("stack underflow"));
                }
                let pos = self.stack.len() - n;
                // `a < f() < c` before 3.11: DUP_TOP, ROT_THREE, COMPARE_OP, then the test.
                if n == 1 && matches!(next.first().map(|i| &i.op), Some(Op::Rot(3))) && self.chain_middle(&next[1..]) {
                    return Ok(1);
                }
                if n == 1 {
                    if let Some(k) = self.chained_assignment(next)? {
                        return Ok(k);
                    }
                    if let Some(k) = self.chained_targets(next)? {
                        return Ok(k);
                    }
                    // `(x := v)`: the value stays on the stack and is also stored.
                    if let Some(t) = next.first().and_then(|i| self.simple_store_target(&i.op)) {
                        if matches!(self.stack[pos], SVal::Expr(_)) {
                            let v = self.pop_expr()?;
                            let Expr::Name(name) = t else { unreachable!("simple targets are names") };
                            self.push(Expr::NamedExpr(name.to_string(), Box::new(v)));
                            return Ok(1);
                        }
                    }
                }
                if (pos..self.stack.len()).any(|i| !self.is_atomic_at(i)) {
                    if let Some(k) = self.aug_assign(n, next)? {
                        return Ok(k);
                    }
                }
                if !self.is_atomic_at(pos) {
                    self.spill_upto(pos + 1);
                }
                let v = self.stack[pos].clone();
                self.stack.push(v);
            }
            Op::Swap(n) => {
                let n = n as usize;
                if n == 0 || n > self.stack.len() {
                    return Err(self.err("stack underflow"));
                }
                // `a < f() < c` from 3.11 on: SWAP 2, COPY 2, COMPARE_OP, then the test.
                if n == 2 && matches!(next.first().map(|i| &i.op), Some(Op::Copy(2))) && self.chain_middle(&next[1..]) {
                    return Ok(1);
                }
                // `a, b = x, y` (and three names): CPython swaps the values and stores.
                if (n == 2 || n == 3) && self.stack[self.stack.len() - n..].iter().all(|v| matches!(v, SVal::Expr(_))) {
                    let targets: Option<Vec<Expr>> = next.iter().take(n).map(|i| self.simple_store_target(&i.op)).collect();
                    if let Some(targets) = targets.filter(|t| t.len() == n) {
                        let values = self.pop_n(n)?;
                        self.emit(Stmt::Assign(vec![Expr::Tuple(targets)], Expr::Tuple(values)));
                        return Ok(n);
                    }
                    // Attribute and subscript targets (`a.x, b.y = b.y, a.x`): each
                    // target's operands are loaded right before its store.
                    let mut end = Some(0);
                    for _ in 0..n {
                        end = end.and_then(|j| self.target_end(next, j));
                    }
                    if let Some(end) = end {
                        let values = self.pop_n(n)?;
                        let mut targets = Vec::with_capacity(n);
                        let mut j = 0;
                        for _ in 0..n {
                            let (t, e) = self.build_target(next, j)?;
                            targets.push(t);
                            j = e;
                        }
                        self.emit(Stmt::Assign(vec![Expr::Tuple(targets)], Expr::Tuple(values)));
                        return Ok(end);
                    }
                }
                // Reordering delayed values would reorder their evaluation.
                // Reordering two delayed values would reorder their evaluation; one
                // delayed value among atomic ones keeps its order with the others.
                let len = self.stack.len();
                if self.reorder_needs_spill(len - n..len) {
                    self.spill_upto(len);
                }
                self.stack.swap(len - 1, len - n);
                if n == 2 && self.stack[len - 1] == SVal::Mark(Mark::PrevExc) && matches!(self.stack[len - 2], SVal::Expr(_)) {
                    self.stack[len - 1] = SVal::Mark(Mark::PrevExcOverValue);
                }
            }
            Op::Rot(n) => {
                let n = n as usize;
                if n == 0 || n > self.stack.len() {
                    return Err(self.err("stack underflow"));
                }
                // `a, b, c = x, y, z` before 3.11: ROT_THREE, ROT_TWO, then the stores.
                if n == 3 && matches!(next.first().map(|i| &i.op), Some(Op::Swap(2))) && self.stack[self.stack.len() - 3..].iter().all(|v| matches!(v, SVal::Expr(_))) {
                    let mut end = Some(1);
                    for _ in 0..3 {
                        end = end.and_then(|j| self.target_end(next, j));
                    }
                    if let Some(end) = end {
                        let values = self.pop_n(3)?;
                        let mut targets = Vec::with_capacity(3);
                        let mut j = 1;
                        for _ in 0..3 {
                            let (t, e) = self.build_target(next, j)?;
                            targets.push(t);
                            j = e;
                        }
                        self.emit(Stmt::Assign(vec![Expr::Tuple(targets)], Expr::Tuple(values)));
                        return Ok(end);
                    }
                }
                let len = self.stack.len();
                if self.reorder_needs_spill(len - n..len) {
                    self.spill_upto(len);
                }
                let top = self.stack.pop().expect("checked");
                let at = self.stack.len() + 1 - n;
                self.stack.insert(at, top);
            }
            Op::Unary(u) => {
                let v = self.pop_expr()?;
                // `not not x` is bool(x), not x: only fold negations of other forms.
                let e = match (u, v) {
                    (UnaryOp::Not, v @ Expr::UnaryOp("not", _)) => Expr::UnaryOp("not", Box::new(v)),
                    (UnaryOp::Not, v) => negate(v),
                    (u, v) => Expr::UnaryOp(unary_symbol(u), Box::new(v)),
                };
                self.push(e);
            }
            Op::Binary(b, inplace) => {
                let r = self.pop_expr()?;
                let l = self.pop_expr()?;
                if inplace {
                    // `x op= y` followed by the store back into the same target.
                    if let Some(IrInstr { op: store @ (Op::StoreFast(_) | Op::StoreGlobal(_) | Op::StoreName(_) | Op::StoreDeref(_)), .. }) = next.first() {
                        let target = match *store {
                            Op::StoreFast(i) | Op::StoreDeref(i) => self.ctx.local_name(i),
                            Op::StoreGlobal(i) | Op::StoreName(i) => self.ctx.name(i),
                            _ => unreachable!("matched above"),
                        };
                        if l.is_name(&target) {
                            let sym: &'static str = aug_symbol(b.symbol());
                            self.emit(Stmt::AugAssign(l, sym, r));
                            return Ok(1);
                        }
                    }
                    // `obj.attr op= v` / `obj[k] op= v`: the result is stored back later,
                    // after stack shuffles; `store` turns it into an augmented assignment.
                    self.push(Expr::BinOp(Box::new(l), aug_symbol(b.symbol()), Box::new(r)));
                    return Ok(0);
                }
                self.push(Expr::BinOp(Box::new(l), b.symbol(), Box::new(r)));
            }
            Op::Compare(c) => {
                let r = self.pop_expr()?;
                let l = self.pop_expr()?;
                let op = cmp_symbol(c);
                let r = if matches!(op, "in" | "not in") { set_display(r) } else { r };
                self.push(Expr::Compare(Box::new(l), vec![(op, r)]));
            }
            Op::BinarySubscr => {
                let k = self.pop_expr()?;
                let v = self.pop_expr()?;
                self.push(Expr::Subscript(Box::new(v), Box::new(k)));
            }
            Op::StoreSubscr => {
                let k = self.pop_expr()?;
                let container = self.pop_expr()?;
                self.store(Expr::Subscript(Box::new(container), Box::new(k)))?;
            }
            Op::DeleteSubscr => {
                let k = self.pop_expr()?;
                let container = self.pop_expr()?;
                self.emit(Stmt::Delete(vec![Expr::Subscript(Box::new(container), Box::new(k))]));
            }
            Op::BuildSlice(n) => {
                let mut parts = self.pop_n(n as usize)?.into_iter().map(|e| match e {
                    Expr::Const(Constant::None) => None,
                    e => Some(Box::new(e)),
                });
                let (a, b) = (parts.next().flatten(), parts.next().flatten());
                let c = parts.next().flatten();
                self.push(Expr::Slice(a, b, c));
            }
            Op::BuildTuple(n) => {
                let items = self.pop_n(n as usize)?;
                self.push(Expr::Tuple(items));
            }
            Op::BuildList(n) => {
                let items = self.pop_n(n as usize)?;
                self.push(Expr::List(items));
            }
            Op::BuildSet(n) => {
                let items = self.pop_n(n as usize)?;
                self.push(Expr::Set(items));
            }
            Op::BuildMap(n) => {
                let items = self.pop_n(2 * n as usize)?;
                let mut it = items.into_iter();
                let mut pairs = Vec::new();
                while let (Some(k), Some(v)) = (it.next(), it.next()) {
                    pairs.push((Some(k), v));
                }
                self.push(Expr::Dict(pairs));
            }
            Op::BuildConstKeyMap(n) => {
                let keys = self.pop_expr()?;
                let values = self.pop_n(n as usize)?;
                let Expr::Const(Constant::Tuple(keys)) = keys else {
                    return Err(self.err("BUILD_CONST_KEY_MAP keys are not a constant tuple"));
                };
                if keys.len() != values.len() {
                    return Err(self.err("BUILD_CONST_KEY_MAP keys and values differ in number"));
                }
                let pairs = keys.into_iter().map(|k| Some(Expr::Const(k))).zip(values).collect();
                self.push(Expr::Dict(pairs));
            }
            // What an `except*` clause raised, or the part no clause matched, collected
            // for `PREP_RERAISE_STAR`: no source of its own.
            Op::ListAppend(i)
                if i >= 1
                    && self.stack.len() > i as usize
                    && self.stack[self.stack.len() - 1 - i as usize] == SVal::Mark(Mark::EgList) =>
            {
                if !matches!(self.pop()?, SVal::Mark(Mark::Exc)) {
                    return Err(self.err("a value other than an exception collected by an except* handler"));
                }
            }
            Op::ListExtend(i) | Op::ListAppend(i) => {
                let v = self.pop_expr()?;
                let i = i as usize;
                if i == 0 || i > self.stack.len() {
                    return Err(self.err("stack underflow"));
                }
                let pos = self.stack.len() - i;
                let extend = matches!(op, Op::ListExtend(_));
                if i == 1 {
                    if let SVal::Expr(Expr::List(items)) = &mut self.stack[pos] {
                        items.push(if extend { Expr::Starred(Box::new(v)) } else { v });
                        return Ok(0);
                    }
                }
                // The list is shared or other values sit above it: make it a variable
                // and mutate it by name.
                self.spill_upto(self.stack.len());
                let SVal::Expr(list) = self.stack[pos].clone() else {
                    return Err(self.err("a NULL marker is extended"));
                };
                let method = if extend { "extend" } else { "append" };
                let call = Expr::Call(Box::new(Expr::Attribute(Box::new(list), method.into())), vec![v], vec![]);
                self.emit(Stmt::Expr(call));
            }
            Op::ListToTuple => {
                let v = self.pop_expr()?;
                let e = match v {
                    Expr::List(items) => Expr::Tuple(items),
                    other => Expr::Call(Box::new(Expr::name("tuple")), vec![other], vec![]),
                };
                self.push(e);
            }
            Op::UnpackSequence(n) => {
                let v = self.pop_expr()?;
                let n = n as usize;
                // `a, b = value` when the items go straight into simple targets. A
                // target stored again by the next target (`_, _, x`) is a `POP_TOP`:
                // CPython 3.13+ drops the first of two stores to one local in a row
                // (`Python/flowgraph.c`, `optimize_basic_block`, `STORE_FAST`), again
                // and again along a run (`_, _, _, x`: two `POP_TOP`s, then the stores
                // of `_` and `x`), so each `POP_TOP` of a run stands for the store that
                // ends it.
                let targets: Option<Vec<Expr>> = (0..n.min(next.len()))
                    .map(|k| match next[k].op {
                        Op::StoreFast(x) => Some(Expr::Name(self.ctx.local_name(x))),
                        Op::StoreName(x) => Some(Expr::Name(self.ctx.name(x))),
                        Op::PopTop if self.ctx.code.version >= depyf_bytecode::PythonVersion::PY313 => {
                            match next[k + 1..n.min(next.len())].iter().find(|i| !matches!(i.op, Op::PopTop)).map(|i| &i.op) {
                                Some(Op::StoreFast(x)) => Some(Expr::Name(self.ctx.local_name(*x))),
                                _ => None,
                            }
                        }
                        _ => None,
                    })
                    .collect();
                if let Some(targets) = targets.filter(|t| t.len() == n && n > 0) {
                    self.emit(Stmt::Assign(vec![Expr::Tuple(targets)], v));
                    return Ok(n);
                }
                // Attribute, subscript and nested targets: `a.x, (b, c[k]) = value`.
                let mut end = Some(0);
                for _ in 0..n {
                    end = end.and_then(|j| self.target_end(next, j));
                }
                if let (Some(end), true) = (end, n > 0) {
                    let mut targets = Vec::with_capacity(n);
                    let mut j = 0;
                    for _ in 0..n {
                        let (t, e) = self.build_target(next, j)?;
                        targets.push(t);
                        j = e;
                    }
                    self.emit(Stmt::Assign(vec![Expr::Tuple(targets)], v));
                    return Ok(end);
                }
                if n == 1 && self.builds_annotations(next) {
                    // `*args: *Ts` (PEP 646): the one item stays on the stack as the
                    // annotation's value.
                    // In a 3.14+ `__annotate__` it is a value of the dict returned.
                    let e = if self.in_annotate() { Expr::Starred(Box::new(v)) } else { Expr::Call(Box::new(Expr::name(markers::STAR_ANNOTATION)), vec![v], Vec::new()) };
                    self.push(e);
                    return Ok(0);
                }
                let temps: Vec<String> = (0..n).map(|_| self.ctx.fresh_temp()).collect();
                self.emit(Stmt::Assign(vec![Expr::Tuple(temps.iter().map(|t| Expr::name(t)).collect())], v));
                for t in temps.iter().rev() {
                    self.push(Expr::name(t));
                }
            }
            Op::Call { argc, kwnames, layout } => self.call(argc, kwnames, layout)?,
            Op::CallEx { has_kwargs, layout } => {
                // 3.14+ always pops a kwargs slot; NULL there means no `**kwargs` (the
                // NULL may have been moved into place by SWAPs, as Dynamo does).
                let kwargs = if has_kwargs {
                    match self.pop()? {
                        SVal::Null => None,
                        SVal::Expr(e) => Some(e),
                        SVal::Iter(e) => Some(self.iter_value(e)?),
                        SVal::Mark(_) => return Err(self.err("a frame marker is passed as **kwargs")),
                    }
                } else {
                    None
                };
                let args = self.pop_expr()?;
                let func = match layout {
                    CallLayout::NoNull => self.pop_expr()?,
                    CallLayout::NullFirst => {
                        let f = self.pop_expr()?;
                        if self.pop()? != SVal::Null {
                            return Err(self.err("CALL_FUNCTION_EX without a NULL below the callable"));
                        }
                        f
                    }
                    CallLayout::NullSecond => {
                        if self.pop()? != SVal::Null {
                            return Err(self.err("CALL_FUNCTION_EX without a NULL above the callable"));
                        }
                        self.pop_expr()?
                    }
                };
                let pos = match args {
                    Expr::Tuple(items) => items,
                    other => vec![Expr::Starred(Box::new(other))],
                };
                let kws = match kwargs {
                    None => vec![],
                    Some(k) => vec![Keyword { name: None, value: k }],
                };
                self.push(Expr::Call(Box::new(func), pos, kws));
            }
            Op::Return => {
                let v = self.pop_expr()?;
                self.emit(Stmt::Return(Some(v)));
            }
            Op::Raise(n) => {
                let mut parts = self.pop_n(n as usize)?.into_iter();
                let exc = parts.next();
                let cause = parts.next();
                self.emit(Stmt::Raise(exc, cause));
            }
            Op::Jump(_) | Op::JumpIf { .. } | Op::JumpIfNone { .. } => {
                unreachable!("terminators are handled by the block walk")
            }
            Op::InlinedComp(i) => {
                let SVal::Iter(it) = self.pop()? else { return Err(self.err("an inlined comprehension not over an iterator")) };
                let mut comp = self.ctx.naming.inlined.get(i).cloned().ok_or_else(|| self.err("an inlined comprehension never recovered"))?;
                let (Expr::Comp(_, _, gens) | Expr::DictComp(_, _, gens)) = &mut comp else {
                    return Err(self.err("an inlined comprehension that is not one"));
                };
                if gens[0].iter.async_inner().is_some() != it.async_inner().is_some() {
                    return Err(self.err("an inlined comprehension whose first loop and iterable disagree on async"));
                }
                gens[0].iter = it;
                self.push(comp);
            }
            Op::GetIter => {
                if let Some(used) = self.pending_comprehension(next)? {
                    return Ok(used);
                }
                let v = set_display(self.pop_expr()?);
                if self.ctx.naming.iter_temps && !matches!(next.first().map(|i| &i.op), Some(Op::InlinedComp(_))) {
                    let name = iter_name(self.stack.len());
                    self.emit(Stmt::Assign(vec![Expr::name(&name)], iter_wrapper(v)));
                    self.stack.push(SVal::Iter(Expr::Name(name.into())));
                } else {
                    self.stack.push(SVal::Iter(v));
                }
            }
            // Pattern ops outside the case shapes that `patterns` reads.
            Op::MatchSequence | Op::MatchMapping | Op::MatchKeys | Op::MatchClass(_) | Op::GetLen | Op::CopyDictWithoutKeys => {
                return Err(self.err("a pattern of a match statement: not supported by the decompiler yet"));
            }
            // A whole `case` pattern (see `patterns`): the subject stays for the next
            // case when copied; the test reads `__match__(subject, id)`.
            Op::MatchCase { id, copy } => {
                if copy {
                    self.step(&Op::Copy(1), &[])?;
                }
                let subject = self.pop_expr()?;
                self.push(Expr::Call(Box::new(Expr::name(crate::patterns::MATCH_MARK)), vec![subject, Expr::Const(depyf_bytecode::Constant::Int(i64::from(id)))], vec![]));
            }
            // The iterable of an `async for` is marked so that the loop prints as one.
            Op::GetAIter => {
                let v = self.pop_expr()?;
                self.stack.push(SVal::Iter(Expr::async_mark(v)));
            }
            Op::PushExcInfo => {
                let v = self.pop()?;
                self.stack.push(SVal::Mark(Mark::PrevExc));
                self.stack.push(v);
            }
            Op::PopExcept => {
                let held = self.pop()? == SVal::Mark(Mark::PrevExcOverValue);
                self.emit(Stmt::Expr(Expr::name(if held { markers::POP_EXCEPT_HELD } else { markers::POP_EXCEPT })));
            }
            Op::CheckExcMatch => {
                let t = self.pop_expr()?;
                self.push(Expr::Call(Box::new(Expr::name(markers::EXC_MATCH)), vec![t], vec![]));
            }
            Op::Reraise => {
                self.pop()?;
                self.emit(Stmt::Expr(Expr::name(markers::RERAISE)));
            }
            // `except*` (see `structure::exceptions`): the group, the list of what the
            // clauses raise and the part not matched yet stay as markers; a test pushes
            // the matched part twice (`__exc__`, bound by `as`, and the value tested).
            Op::ExcStarSetup => {
                if self.pop()? != SVal::Mark(Mark::Exc) {
                    return Err(self.err("an except* handler that does not start with its exception"));
                }
                self.stack.extend([SVal::Mark(Mark::EgOrig), SVal::Mark(Mark::EgList), SVal::Mark(Mark::Exc)]);
            }
            Op::CheckEgMatch => {
                let t = self.pop_expr()?;
                if self.pop()? != SVal::Mark(Mark::Exc) || self.stack.last() != Some(&SVal::Mark(Mark::EgList)) {
                    return Err(self.err("an except* test outside its handler's stack"));
                }
                self.stack.extend([SVal::Mark(Mark::Exc), SVal::Mark(Mark::Exc)]);
                self.push(Expr::Call(Box::new(Expr::name(markers::EG_MATCH)), vec![t], vec![]));
            }
            Op::ExcStarEnd => {
                let list = self.pop()?;
                if list != SVal::Mark(Mark::EgList) || self.pop()? != SVal::Mark(Mark::EgOrig) {
                    return Err(self.err("the end of an except* handler outside its handler's stack"));
                }
            }
            Op::BeforeWith | Op::BeforeAsyncWith => {
                let m = self.pop_expr()?;
                let m = if matches!(op, Op::BeforeAsyncWith) { Expr::async_mark(m) } else { m };
                self.stack.push(SVal::Mark(Mark::WithExit(m.clone())));
                self.stack.push(SVal::Mark(Mark::WithEnter(m)));
            }
            Op::WithExit => {
                self.pop()?;
                self.emit(Stmt::Expr(Expr::name(markers::WITH_EXIT)));
            }
            Op::WithExceptStart => self.push(Expr::name("__with_suppress__")),
            Op::Yield => {
                let v = self.pop_expr()?;
                let v = if matches!(v, Expr::Const(Constant::None)) { None } else { Some(Box::new(v)) };
                self.push(Expr::Yield(v));
            }
            Op::YieldFrom => {
                let v = self.pop_expr()?;
                self.push(Expr::YieldFrom(Box::new(v)));
            }
            Op::Await => {
                let v = self.pop_expr()?;
                self.push(Expr::Await(Box::new(v)));
            }
            // PEP 695: read back by `definitions::generic`.
            Op::Intrinsic1("INTRINSIC_SUBSCRIPT_GENERIC") => {
                let v = self.pop_expr()?;
                self.push(Expr::Call(Box::new(Expr::name(markers::SUBSCRIPT_GENERIC)), vec![v], vec![]));
            }
            // PEP 695: read back by `definitions::generic` (markers::TYPE_PARAM_KINDS).
            Op::Intrinsic1(name) if name != "INTRINSIC_TYPEALIAS" => {
                let v = self.pop_expr()?;
                let Expr::Const(Constant::Str(_)) = v else { return Err(self.err("a type parameter without a constant name")) };
                let marker = markers::TYPE_PARAM_KINDS.iter().find(|(i, _, _)| *i == name).map(|(_, m, _)| *m).expect("normalized intrinsics only");
                self.push(Expr::Call(Box::new(Expr::name(marker)), vec![v], vec![]));
            }
            // `(name, params, value_function)`: the value is what the function returns.
            Op::Intrinsic1(_) => {
                let v = self.pop_expr()?;
                let Expr::Tuple(items) = v else { return Err(self.err("a type alias of an unknown shape")) };
                let [name @ Expr::Const(Constant::Str(_)), params, Expr::Def(f)] = items.as_slice() else {
                    return Err(self.err("a type alias of an unknown shape"));
                };
                let value = lazy_value(f).ok_or_else(|| self.err("a type alias whose value function is not one return"))?;
                self.push(Expr::Call(Box::new(Expr::name(markers::TYPE_ALIAS)), vec![name.clone(), params.clone(), value.clone()], vec![]));
            }
            // `T: bound` / `T: (constraints)`: the value is what the lazy function returns.
            Op::Intrinsic2(name) if name != "INTRINSIC_SET_FUNCTION_TYPE_PARAMS" => {
                let f = self.pop_expr()?;
                let n = self.pop_expr()?;
                let Expr::Const(Constant::Str(_)) = n else { return Err(self.err("a type parameter without a constant name")) };
                let Expr::Def(f) = f else { return Err(self.err("a type parameter bound that is not a function")) };
                let value = lazy_value(&f).ok_or_else(|| self.err("a type parameter bound whose function is not one return"))?;
                let is_tuple = matches!(value, Expr::Tuple(_) | Expr::Const(Constant::Tuple(_)));
                if is_tuple != (name == "INTRINSIC_TYPEVAR_WITH_CONSTRAINTS") {
                    return Err(self.err("type parameter constraints that are not a tuple, or a tuple bound"));
                }
                self.push(Expr::Call(Box::new(Expr::name("__typevar__")), vec![n, value.clone()], vec![]));
            }
            Op::Intrinsic2(_) => {
                let params = self.pop_expr()?;
                let func = self.pop_expr()?;
                self.push(Expr::Call(Box::new(Expr::name(markers::SET_TYPE_PARAMS)), vec![func, params], vec![]));
            }
            Op::ForIter(_) | Op::JumpIfOrPop { .. } => unreachable!("terminators are handled by the block walk"),
            Op::MakeFunction { .. }
            | Op::SetFunctionAttribute(_)
            | Op::ConvertValue(_)
            | Op::FormatValue { .. }
            | Op::BuildString(_)
            | Op::BuildInterpolation { .. }
            | Op::BuildTemplate
            | Op::SetAdd(_)
            | Op::SetUpdate(_)
            | Op::DictUpdate(..)
            | Op::MapAdd(_)
            | Op::UnpackEx(..)
            | Op::ImportName(_)
            | Op::LazyImportName(_)
            | Op::ImportFrom(_)
            | Op::ImportStar
            | Op::LoadBuildClass
            | Op::LoadAssertionError
            | Op::LoadSmallInt(_)
            | Op::LoadCommonConstant(_)
            | Op::LoadSuperAttr { .. }
            | Op::SetupAnnotations
            | Op::LoadLocals
            | Op::LoadFromDictOr(..) => return self.step_expr(op, next),
        }
        Ok(0)
    }
}

fn aug_symbol(sym: &str) -> &'static str {
    match sym {
        "+" => "+=",
        "&" => "&=",
        "//" => "//=",
        "<<" => "<<=",
        "@" => "@=",
        "*" => "*=",
        "%" => "%=",
        "|" => "|=",
        "**" => "**=",
        ">>" => ">>=",
        "-" => "-=",
        "/" => "/=",
        _ => "^=",
    }
}

fn target_names(t: &Expr) -> Vec<Ident> {
    match t {
        Expr::Name(n) => vec![n.clone()],
        Expr::Tuple(items) | Expr::List(items) => items.iter().flat_map(target_names).collect(),
        _ => Vec::new(),
    }
}

fn expr_mentions(e: &Expr, names: &[String]) -> bool {
    let mut hit = false;
    e.walk(&mut |x| {
        if let Expr::Name(n) = x {
            if names.iter().any(|x| x == n) {
                hit = true;
            }
        }
    });
    hit
}

/// Recovers every block of `cfg` (which must have no back edges).
struct Exit {
    /// The stack left for the fall-through or only successor (condition popped).
    stack: Vec<SVal>,
    /// The stack left for the jump target of a branch, when it differs (`FOR_ITER`,
    /// `JUMP_IF_*_OR_POP`).
    jump: Option<(BlockId, Vec<SVal>)>,
    /// Assignments to successors' entry temporaries, in order.
    assigns: Vec<(String, Expr)>,
}

/// Decides the entry stack of `b` from its predecessors' exit stacks, and records the
/// assignments each predecessor must make.
/// Branch blocks that would assign a delayed value for one of their edges in code
/// that runs on both (evaluating it twice on one path) are added to `requests`: the
/// next recovery attempt names their stack values before their test.
fn entry_stack(
    ctx: &mut Ctx<'_>,
    cfg: &Cfg,
    ir: &[IrInstr],
    b: BlockId,
    exits: &mut [Option<Exit>],
    spill_before_branch: &BTreeSet<usize>,
    pending: &mut BTreeSet<usize>,
    requests: &mut BTreeSet<usize>,
) -> Result<Vec<SVal>, DecompileError> {
    let block = &cfg.blocks[b.index()];
    // Predecessors along back edges are not recovered yet: the loop header's entry is
    // decided by the others, and `check_back_edges` holds the back edges to it.
    // (Not across the edge of a protected range: what the range covers must be
    // evaluated inside it.)
    let same_range = |p: usize| cfg.blocks[p].handler == block.handler;
    // (A block with one predecessor, the common case, is told without collecting
    // its recovered predecessors.)
    let one = match block.preds.as_slice() {
        [p] => Some(p.index()).filter(|&p| exits[p].is_some()),
        _ => None,
    };
    if let Some(p) = one.filter(|&p| same_range(p)) {
        // One way in: the values go on as they are. If they are delayed and cross a
        // branch, that branch must fold into an expression or name them first
        // (checked when recovery ends).
        let stack = edge_stack(exits[p].as_ref().expect("seen"), b);
        if matches!(cfg.blocks[p].term, Terminator::Branch { .. })
            && stack.iter().any(|v| matches!(v, SVal::Expr(e) if !is_atomic(ctx, e)))
        {
            pending.insert(p);
        }
        return Ok(stack_copy(ctx, stack));
    }
    let preds: Vec<usize> = match one {
        Some(p) => vec![p],
        None => block.preds.iter().map(|p| p.index()).filter(|p| exits[*p].is_some()).collect(),
    };
    if preds.is_empty() {
        return Ok(Vec::new());
    }
    let at = &ir[block.start];
    let err = |m: String| DecompileError::new(ctx.code, at.at, at.opname, m);
    // (The predecessors' stacks are read in place, slot by slot: what this function
    // changes in their exits is the assignments, never a stack.)
    let depth_of = |exits: &[Option<Exit>], p: usize| -> usize { edge_stack(exits[p].as_ref().expect("seen"), b).len() };
    let depth = depth_of(exits, preds[0]);
    for &p in &preds {
        let len = depth_of(exits, p);
        if len != depth {
            return Err(err(format!("stack depth {len} from bb{p} but {depth} from bb{}", preds[0])));
        }
    }
    // (Made in the spare buffer, as `stack_copy` makes a copy.)
    let mut entry = std::mem::take(&mut ctx.spare_stack);
    entry.clear();
    entry.reserve(depth.max(stack_room(ctx)));
    for slot in 0..depth {
        let values: Vec<SVal> = preds.iter().map(|&p| edge_stack(exits[p].as_ref().expect("seen"), b)[slot].clone()).collect();
        let nulls = values.iter().filter(|v| **v == SVal::Null).count();
        if nulls == values.len() {
            entry.push(SVal::Null);
            continue;
        }
        if nulls > 0 {
            return Err(err("a NULL marker on one path meets a value on another".into()));
        }
        // A pop with a held value on one path only reads as a plain one.
        let plain = |v: &SVal| if *v == SVal::Mark(Mark::PrevExcOverValue) { SVal::Mark(Mark::PrevExc) } else { v.clone() };
        let values: Vec<SVal> = if values.iter().any(|v| *v == SVal::Mark(Mark::PrevExcOverValue)) && !values.iter().all(|v| *v == values[0]) {
            values.iter().map(plain).collect()
        } else {
            values
        };
        let first = &values[0];
        let same = values.iter().all(|v| v == first);
        match first {
            SVal::Iter(_) | SVal::Mark(_) if same => {
                entry.push(first.clone());
                continue;
            }
            SVal::Iter(_) => return Err(err("different iterators meet".into())),
            SVal::Mark(_) => return Err(err("different exception-handling values meet".into())),
            SVal::Expr(e) if same && is_atomic(ctx, e) => {
                entry.push(first.clone());
                continue;
            }
            _ => {}
        }
        for (&p, v) in preds.iter().zip(&values) {
            let branch = matches!(cfg.blocks[p].term, Terminator::Branch { .. });
            if branch && !spill_before_branch.contains(&p) && matches!(v, SVal::Expr(e) if !is_atomic(ctx, e)) {
                requests.insert(p);
            }
        }
        let name = ctx.fresh_temp();
        for (&p, v) in preds.iter().zip(values) {
            let e = match v {
                SVal::Expr(e) => e,
                _ => return Err(err("an iterator meets another value".into())),
            };
            exits[p].as_mut().expect("seen").assigns.push((name.clone(), e));
        }
        entry.push(SVal::Expr(Expr::Name(name.into())));
    }
    Ok(entry)
}

/// The room that a block's stack gets at once: the deepest stack the compiler
/// computed, up to 64 values (see [`recover_block`]).
fn stack_room(ctx: &Ctx<'_>) -> usize {
    (ctx.code.co_stacksize as usize).min(64)
}

/// A copy of `stack` to enter a block with, with room for [`stack_room`] values (a
/// copy of just its length would be grown again right away): made in
/// `ctx.spare_stack` when that buffer is there (no allocation), else allocated.
fn stack_copy(ctx: &mut Ctx<'_>, stack: &[SVal]) -> Vec<SVal> {
    let mut v = std::mem::take(&mut ctx.spare_stack);
    v.clear();
    v.reserve(stack.len().max(stack_room(ctx)));
    v.extend_from_slice(stack);
    v
}

fn edge_stack(exit: &Exit, to: BlockId) -> &Vec<SVal> {
    match &exit.jump {
        Some((t, st)) if *t == to => st,
        _ => &exit.stack,
    }
}

/// A back edge must bring the stack its loop header was entered with: the same
/// values, or values for the header's entry temporaries.
fn check_back_edges(ctx: &Ctx<'_>, cfg: &Cfg, ir: &[IrInstr], entries: &[Option<Vec<SVal>>], exits: &mut [Option<Exit>]) -> Result<(), DecompileError> {
    for &(from, to) in cfg.back_edges() {
        let (Some(entry), Some(exit)) = (&entries[to.index()], exits[from.index()].as_mut()) else { continue };
        let st = edge_stack(exit, to).clone();
        let last = &ir[cfg.blocks[from.index()].end - 1];
        if st.len() != entry.len() {
            return Err(DecompileError::new(ctx.code, last.at, last.opname, format!("the loop back to {to} changes the stack depth")));
        }
        for (have, want) in st.iter().zip(entry) {
            if have == want {
                continue;
            }
            match (have, want) {
                (SVal::Expr(e), SVal::Expr(Expr::Name(n))) if n.starts_with("__temp_") => exit.assigns.push((n.to_string(), e.clone())),
                _ => return Err(DecompileError::new(ctx.code, last.at, last.opname, format!("the loop back to {to} brings other stack values"))),
            }
        }
    }
    Ok(())
}

/// Appends the predecessor-side assignments to a block's statements. The branch
/// condition is evaluated after them, so a condition that reads an assigned name is
/// saved first; assignments whose values read names assigned before them are made
/// all at once.
fn finish_block(ctx: &mut Ctx<'_>, code: &mut BlockCode, assigns: Vec<(String, Expr)>) {
    let mut assigns: Vec<(String, Expr)> = {
        let mut seen: Vec<(String, Expr)> = Vec::new();
        for (n, e) in assigns {
            if !e.is_name(&n) && !seen.iter().any(|(m, _)| *m == n) {
                seen.push((n, e));
            }
        }
        seen
    };
    if assigns.is_empty() {
        return;
    }
    let names: Vec<String> = assigns.iter().map(|(n, _)| n.clone()).collect();
    if let Some(cond) = &code.fall_condition {
        if expr_mentions(cond, &names) {
            let t = ctx.fresh_temp();
            code.stmts.push(Stmt::Assign(vec![Expr::name(&t)], cond.clone()));
            code.fall_condition = Some(Expr::Name(t.into()));
        }
    }
    let parallel = assigns.iter().enumerate().any(|(j, (_, e))| expr_mentions(e, &names[..j]));
    if parallel && assigns.len() > 1 {
        let (names, values): (Vec<String>, Vec<Expr>) = assigns.drain(..).unzip();
        code.stmts.push(Stmt::Assign(vec![Expr::Tuple(names.iter().map(|n| Expr::name(n)).collect())], Expr::Tuple(values)));
    } else {
        for (n, e) in assigns {
            code.stmts.push(Stmt::Assign(vec![Expr::Name(n.into())], e));
        }
    }
}

/// Adds the temporaries (`__temp_*` names) that `s` reads to `reads`.
fn stmt_reads(s: &Stmt, reads: &mut BTreeSet<String>) {
    let mut add = |e: &Expr| {
        e.walk(&mut |x| {
            if let Expr::Name(n) = x {
                if n.starts_with("__temp_") && !reads.contains(n.as_str()) {
                    reads.insert(n.to_string());
                }
            }
        })
    };
    match s {
        Stmt::Expr(e) => add(e),
        Stmt::Assign(targets, v) => {
            add(v);
            for t in targets {
                if !matches!(t, Expr::Name(_) | Expr::Tuple(_)) {
                    add(t);
                }
                if let Expr::Tuple(items) = t {
                    items.iter().filter(|i| !matches!(i, Expr::Name(_))).for_each(&mut add);
                }
            }
        }
        Stmt::AugAssign(t, _, v) => {
            add(t);
            add(v);
        }
        Stmt::Delete(ts) => ts.iter().for_each(add),
        Stmt::Return(Some(e)) | Stmt::Raise(Some(e), None) => add(e),
        Stmt::Raise(Some(a), Some(b)) => {
            add(a);
            add(b);
        }
        Stmt::If(c, a, b) | Stmt::While(c, a, b) => {
            add(c);
            a.iter().chain(b).for_each(|s| stmt_reads(s, reads));
        }
        Stmt::For(t, it, a, b) => {
            add(t);
            add(it);
            a.iter().chain(b).for_each(|s| stmt_reads(s, reads));
        }
        _ => {}
    }
}

/// Drops assignments of constants and variables to temporaries that nothing reads.
fn drop_dead_temps(blocks: &mut [BlockCode]) {
    let candidate = |s: &Stmt| matches!(s, Stmt::Assign(t, Expr::Const(_) | Expr::Name(_)) if matches!(t.as_slice(), [Expr::Name(n)] if n.starts_with("__temp_")));
    if !blocks.iter().any(|b| b.stmts.iter().any(candidate)) {
        return;
    }
    loop {
        let mut reads = BTreeSet::new();
        for b in blocks.iter() {
            b.stmts.iter().for_each(|s| stmt_reads(s, &mut reads));
            if let Some(c) = &b.fall_condition {
                stmt_reads(&Stmt::Expr(c.clone()), &mut reads);
            }
            if let Some((it, _)) = &b.for_loop {
                stmt_reads(&Stmt::Expr(it.clone()), &mut reads);
            }
        }
        let mut changed = false;
        for b in blocks.iter_mut() {
            b.stmts.retain(|s| {
                let dead = matches!(s, Stmt::Assign(t, Expr::Const(_) | Expr::Name(_))
                    if matches!(t.as_slice(), [Expr::Name(n)] if n.starts_with("__temp_") && !reads.contains(n.as_str())));
                changed |= dead;
                !dead
            });
        }
        if !changed {
            return;
        }
    }
}

/// The deepest nesting of expressions that recovery builds: deeper ones are refused
/// ([`nesting_bound`]). Every later pass (the printer most) walks expressions
/// recursively, a few hundred bytes of stack per level: 20,000 levels stay well within
/// [`crate::STACK_BYTES`], which the CLI and the Python extension decompile on. CPython's
/// own compiler refuses such nesting under its default recursion limits; a `.pyc` with
/// more comes from a raised limit or a hand-made file.
pub(crate) const MAX_NESTING: usize = 20_000;

/// A bound on how deeply the expressions built from `ir` nest: the values are followed
/// through each op's stack effect in code order, a value pushed being one level deeper
/// than the deepest it popped. (Code order, not control flow: the values of both arms
/// of a branch are counted, which can only raise the bound.) Code of fewer ops than
/// [`MAX_NESTING`] cannot nest deeper and is not looked at.
fn nesting_bound(ir: &[IrInstr]) -> usize {
    if ir.len() <= MAX_NESTING {
        return ir.len();
    }
    let mut stack: Vec<u32> = Vec::new();
    let mut deepest = 0u32;
    for i in ir {
        let (pops, pushes) = i.op.stack_effect();
        let mut d = 0;
        for _ in 0..pops {
            d = d.max(stack.pop().unwrap_or(0));
        }
        if pushes > 0 {
            stack.extend(std::iter::repeat_n(d + 1, pushes as usize));
            deepest = deepest.max(d + 1);
        }
    }
    deepest as usize
}

/// Recovers every block of `cfg` (which must have no back edges).
///
/// Errors: code whose expressions may nest deeper than [`MAX_NESTING`] levels, and
/// whatever recovering a block refuses.
pub(crate) fn recover(code: &CodeObject, ir: &[IrInstr], cfg: &Cfg, naming: &Naming<'_>) -> Result<Recovered, DecompileError> {
    let nesting = nesting_bound(ir);
    if nesting > MAX_NESTING {
        return Err(DecompileError::new(code, 0, "", format!("expressions nest up to {nesting} levels deep, beyond depyf's limit of {MAX_NESTING} (CPython compiles such code only under a raised recursion limit)")));
    }
    let mut spill_or_pop = BTreeSet::new();
    let stubs_before = naming.failures.borrow().len();
    loop {
        // A retry recovers nested functions again: list their stubs once.
        naming.failures.borrow_mut().truncate(stubs_before);
        match recover_once(code, ir, cfg, naming, &spill_or_pop)? {
            Ok(r) => return Ok(r),
            Err(roots) => {
                let before = spill_or_pop.len();
                spill_or_pop.extend(roots);
                if spill_or_pop.len() == before {
                    return Err(DecompileError::new(code, 0, "", "stack values at a branch cannot be placed"));
                }
            }
        }
    }
}

/// One recovery attempt: `Ok(Err(block))` asks for another attempt in which the
/// value tested and kept by `block`'s `JUMP_IF_*_OR_POP` is named by a temporary
/// (its merge did not fold into an expression).
fn recover_once(
    code: &CodeObject,
    ir: &[IrInstr],
    cfg: &Cfg,
    naming: &Naming<'_>,
    spill_or_pop: &BTreeSet<usize>,
) -> Result<Result<Recovered, BTreeSet<usize>>, DecompileError> {
    let nblocks = cfg.blocks.len();
    // Blocks that only a handler reaches have no dominator among normal edges:
    // theirs counts the ways in through exceptions (a merge of `a or b` inside an
    // `except` clause folds as anywhere else).
    let idom: Vec<Option<BlockId>> = if cfg.blocks.iter().any(|b| b.handler.is_some()) {
        let with_handlers = cfg.immediate_dominators_with_handlers();
        cfg.immediate_dominators().iter().zip(with_handlers).map(|(a, b)| a.or(b)).collect()
    } else {
        cfg.immediate_dominators().to_vec()
    };
    let mut ctx = Ctx { code, naming, temp_counter: 0, globals_stored: BTreeSet::new(), nonlocals_stored: BTreeSet::new(), spare_stack: Vec::new() };
    // (Built, not cloned from one default: `vec![x; n]` clones `x` field by field.)
    let mut out: Vec<BlockCode> = (0..nblocks).map(|_| BlockCode::default()).collect();
    let mut exits: Vec<Option<Exit>> = (0..nblocks).map(|_| None).collect();
    let mut entries: Vec<Option<Vec<SVal>>> = vec![None; nblocks];
    // Blocks reached only through exception edges may hold shapes that recovery
    // does not know (clean-up code); their errors count only if they are emitted.
    let mut normal = vec![false; nblocks];
    for &b in cfg.reverse_postorder() {
        normal[b.index()] = true;
    }
    // Branch blocks that passed delayed values on to a successor: unless the branch
    // folds into an expression, those values must be named before its test.
    let mut pending = BTreeSet::new();
    // Branch blocks that must name their stack values first: all found in one
    // attempt, so that one more attempt serves them all.
    let mut requests = BTreeSet::new();
    // Where a folded conditional expression goes on (see `tail_fold`): the arm's
    // first op past its own value and the stack there.
    let mut tails: Vec<Option<(usize, Vec<SVal>)>> = vec![None; nblocks];
    for &b in cfg.reverse_postorder_with_handlers() {
        let bi = b.index();
        // A handler is entered with the stack of the blocks it protects, cut to the
        // range's depth, then `lasti` and the exception.
        let handler_entry = if normal[bi] && cfg.blocks[bi].preds.iter().any(|p| exits[p.index()].is_some()) {
            None
        } else {
            cfg.blocks.iter().enumerate().find_map(|(p, blk)| {
                let h = blk.handler.filter(|h| h.target == b)?;
                let entry = entries[p].as_ref()?;
                let kept = &entry[..entry.len().min(h.depth as usize)];
                let mut st = Vec::with_capacity(kept.len() + 2);
                st.extend_from_slice(kept);
                if h.lasti {
                    st.push(SVal::Mark(Mark::Lasti));
                }
                st.push(SVal::Mark(Mark::Exc));
                Some(st)
            })
        };
        match recover_block(&mut ctx, cfg, ir, &idom, b, &mut exits, &mut out, &mut entries, spill_or_pop, &mut pending, &mut requests, &mut tails, handler_entry) {
            Ok(()) => {}
            Err(e) if !normal[bi] => {
                exits[bi] = None;
                out[bi] = BlockCode { error: Some(e), ..BlockCode::default() };
            }
            Err(e) => return Err(e),
        }
    }
    requests.extend(pending.iter().copied().filter(|&p| out[p].collapsed_to.is_none()));
    requests.retain(|p| !spill_or_pop.contains(p));
    if !requests.is_empty() {
        return Ok(Err(requests));
    }
    check_back_edges(&ctx, cfg, ir, &entries, &mut exits)?;
    for (bi, exit) in exits.into_iter().enumerate() {
        if let Some(exit) = exit {
            finish_block(&mut ctx, &mut out[bi], exit.assigns);
        }
    }
    drop_dead_temps(&mut out);
    Ok(Ok(Recovered { blocks: out, globals_stored: ctx.globals_stored, nonlocals_stored: ctx.nonlocals_stored }))
}

/// Recovers block `b`: its entry stack (`handler_entry` for a handler), its
/// statements and exit. `Ok(Some(p))` asks for a retry with `p` in `spill_or_pop`.
#[allow(clippy::too_many_arguments)]
fn recover_block(
    ctx: &mut Ctx<'_>,
    cfg: &Cfg,
    ir: &[IrInstr],
    idom: &[Option<BlockId>],
    b: BlockId,
    exits: &mut [Option<Exit>],
    out: &mut [BlockCode],
    entries: &mut [Option<Vec<SVal>>],
    spill_or_pop: &BTreeSet<usize>,
    pending: &mut BTreeSet<usize>,
    requests: &mut BTreeSet<usize>,
    tails: &mut [Option<(usize, Vec<SVal>)>],
    handler_entry: Option<Vec<SVal>>,
) -> Result<(), DecompileError> {
    let bi = b.index();
    let block = &cfg.blocks[bi];
    let tail = tails[bi].take();
    let folded = if tail.is_some() { None } else { collapse_merge(ctx, cfg, idom, b, exits, out) };
    let stack = match folded {
        // The shared exit code of a folded conditional expression (`tail_fold`).
        _ if tail.is_some() => stack_copy(ctx, &tail.as_ref().expect("checked").1),
        Some((root, stack, used)) => {
            out[root.index()].collapsed_to = Some(b);
            // The tests inside the folded value pass the values below it on to
            // this merge, which uses them: nothing to name before those tests.
            for u in used {
                pending.remove(&u.index());
            }
            stack
        }
        None => {
            // A JUMP_IF_*_OR_POP whose kept value meets other values here must
            // name that value before testing it. A block with one way in is no
            // meeting: the kept value goes on as it is (a chained comparison's
            // clean-up), and `pending` asks for the name if no merge folds it.
            let cleanup = if handler_entry.is_none() { chain_cleanup_entry(ctx, cfg, ir, b, exits, spill_or_pop) } else { None };
            if let Some((stack, links)) = cleanup {
                // The links' kept values are delayed into the chain: unless the
                // merge after the clean-up folds them (`collapse_merge`), they are
                // named before their tests after all (a retry, as for any branch).
                pending.extend(links);
                stack
            } else {
                if cfg.blocks[bi].preds.len() < 2 {
                } else if let Some(p) = or_pop_root(cfg, ir, b, exits, spill_or_pop) {
                    requests.insert(p);
                }
                match handler_entry {
                    Some(h) => h,
                    None => entry_stack(ctx, cfg, ir, b, exits, spill_or_pop, pending, requests)?,
                }
            }
        }
    };
    // Kept only where it is read again: the whole entry of a loop header (its back
    // edges are checked against it, `check_back_edges`), and of a protected block
    // the values below the range's depth, all that its handler is entered with
    // (`recover_once`, `handler_entry`).
    if cfg.back_edges().iter().any(|&(_, to)| to == b) {
        entries[bi] = Some(stack.clone());
    } else if let Some(h) = block.handler {
        entries[bi] = Some(stack[..stack.len().min(h.depth as usize)].to_vec());
    }
    let last = &ir[block.end - 1];
    let body_end = if matches!(block.term, Terminator::Branch { .. } | Terminator::Jump(_)) { block.end - 1 } else { block.end };
    let term = if matches!(block.term, Terminator::Branch { .. }) { &last.op } else { &Op::Nop };
    let start = tail.as_ref().map_or(block.start, |t| t.0);
    // Room for the deepest stack the compiler computed, at once (an empty entry
    // stack has no buffer yet; growing it push by push reallocates several times):
    // the values move into the spare buffer, which has that room once a block has
    // been walked.
    let mut stack = stack;
    let depth = stack_room(ctx);
    if stack.capacity() < depth {
        let mut room = std::mem::take(&mut ctx.spare_stack);
        room.clear();
        room.reserve(depth.max(stack.len()));
        room.append(&mut stack);
        stack = room;
    }
    let mut st = BlockState { ctx, stack, stmts: Vec::new(), ins: &ir[start], prev_was_load: false, own_line: false, term };
    let mut i = start;
    while i < body_end {
        st.ins = &ir[i];
        st.prev_was_load = i > start
            && matches!(ir[i - 1].op, Op::LoadFast(_) | Op::LoadDeref(_) | Op::LoadGlobal(_) | Op::LoadName(_));
        st.own_line = i > start && own_line(st.ctx.code, &ir[i - 1], &ir[i]);
        let skip = st.step(&ir[i].op, &ir[i + 1..body_end])?;
        i += 1 + skip;
    }
    st.ins = last;
    let mut fall_condition = None;
    let mut for_loop = None;
    let mut jump = None;
    let mut collapsed_to = None;
    if let Terminator::Branch { jump: target, .. } = block.term {
        match last.op {
            Op::ForIter(_) => {
                let SVal::Iter(iterable) = st.pop()? else {
                    return Err(st.err("FOR_ITER on a value that is not an iterator"));
                };
                // `GET_ANEXT` steps only what `GET_AITER` made, `FOR_ITER` the rest.
                if (last.opname == "GET_ANEXT") != iterable.async_inner().is_some() {
                    return Err(st.err("an async for step on a sync iterator, or the reverse"));
                }
                jump = Some((target, st.stack.clone()));
                let item = st.ctx.fresh_temp();
                st.stack.push(SVal::Iter(iterable.clone()));
                st.push(Expr::name(&item));
                for_loop = Some((iterable, item));
            }
            Op::JumpIfOrPop { when, .. } => {
                // The value is tested, and kept on the jump edge. When the merge
                // below folds into `a and b` it is evaluated once; otherwise (a
                // retry with `spill_or_pop`) it is named first.
                let mut v = st.pop_expr()?;
                if spill_or_pop.contains(&bi) {
                    st.spill_upto(st.stack.len());
                }
                if spill_or_pop.contains(&bi) && !is_atomic(st.ctx, &v) {
                    let t = st.ctx.fresh_temp();
                    st.stmts.push(Stmt::Assign(vec![Expr::name(&t)], v));
                    v = Expr::Name(t.into());
                }
                let mut kept = st.stack.clone();
                kept.push(SVal::Expr(v.clone()));
                if !spill_or_pop.contains(&bi) {
                    if let Some((value, clean, at)) = chain_exit_fold(st.ctx, cfg, ir, b, &kept, &v) {
                        // (As for a `tail_fold`: the links are never emitted.)
                        if tails[clean.index()].is_none() {
                            let mut stack = kept[..kept.len() - 2].to_vec();
                            stack.push(SVal::Expr(value));
                            tails[clean.index()] = Some((at, stack));
                        }
                        collapsed_to = Some(clean);
                    }
                }
                jump = Some((target, kept));
                fall_condition = Some(if when { Expr::UnaryOp("not", Box::new(v)) } else { v });
            }
            _ => {
                let v = st.pop_expr()?;
                if spill_or_pop.contains(&bi) {
                    // Values under the condition reach successors that assign them
                    // on one edge only: name them once, before the test.
                    st.spill_upto(st.stack.len());
                }
                let cond = branch_condition(&last.op, v);
                if let Some((value, arm, at)) = tail_fold(st.ctx, cfg, ir, b, &st.stack, &cond) {
                    // An arm of an enclosing fold already goes on there (with the
                    // whole value): this branch is part of that value, never emitted.
                    if tails[arm.index()].is_none() {
                        let mut stack = st.stack.clone();
                        stack.push(SVal::Expr(value));
                        tails[arm.index()] = Some((at, stack));
                    }
                    collapsed_to = Some(arm);
                }
                fall_condition = Some(cond);
            }
        }
    }
    // An empty exit stack (the common case, at a statement boundary) needs no
    // buffer: this one serves the next block.
    let exit_stack = if st.stack.is_empty() {
        st.ctx.spare_stack = std::mem::take(&mut st.stack);
        Vec::new()
    } else {
        std::mem::take(&mut st.stack)
    };
    exits[bi] = Some(Exit { stack: exit_stack, jump, assigns: Vec::new() });
    out[bi] = BlockCode { stmts: st.stmts, fall_condition, for_loop, collapsed_to, error: None };
    Ok(())
}

/// The blocks of an arm that ends in its own exit code: from `a` (entered from `b`
/// alone) through blocks that each fall into the next, entered from it alone, to
/// one that ends in `return`/`raise` (a chain: the exit code may leave the protected
/// range, `RETURN_VALUE` being left out of it). `None` for other shapes.
fn exit_chain(cfg: &Cfg, a: BlockId, b: BlockId) -> Option<Vec<BlockId>> {
    let mut chain = vec![a];
    let mut prev = b;
    let mut cur = a;
    loop {
        let blk = &cfg.blocks[cur.index()];
        if blk.preds != [prev] || chain.len() > 8 {
            return None;
        }
        match blk.term {
            Terminator::Return | Terminator::Raise => return Some(chain),
            Terminator::FallThrough(n) => {
                prev = cur;
                cur = n;
                chain.push(n);
            }
            _ => return None,
        }
    }
}

/// Where an arm made of the blocks `chain` may end its own value and start the exit
/// code that it shares with the other arm: the op indexes `k` at which the ops
/// before (in blocks protected as `handler` is, the block of `k` too) have pushed
/// exactly one value onto the values they were entered with, never reaching below
/// those; latest first.
fn arm_value_ends(cfg: &Cfg, ir: &[IrInstr], chain: &[BlockId], handler: Option<depyf_cfg::ExcEdge>) -> Vec<(BlockId, usize)> {
    let mut ends = Vec::new();
    let mut depth: u32 = 0;
    'chain: for &blk in chain {
        let block = &cfg.blocks[blk.index()];
        if block.handler != handler {
            break;
        }
        for k in block.start..block.end {
            if depth == 1 && k > cfg.blocks[chain[0].index()].start {
                ends.push((blk, k));
            }
            let op = &ir[k].op;
            let (pops, pushes) = op.stack_effect();
            if pops > depth || op.jump_target().is_some() || op.is_terminator() {
                break 'chain;
            }
            depth = depth - pops + pushes;
        }
    }
    ends.reverse();
    // An arm whose value is dropped at once (`if c: h() else: k()` before a shared
    // `return v`: `POP_TOP` right after its last value) is a statement of its own,
    // not an operand of the exit code.
    if ends.first().is_some_and(|&(_, k)| ir[k].op == Op::PopTop) {
        return Vec::new();
    }
    ends
}

/// A conditional expression whose arms each end in their own copy of the same exit
/// code (`return (v, a if c else b)`, `raise E(a if c else b)`): CPython 3.10+
/// copies a small exit block into each jump to it (`Python/compile.c`, 3.12+
/// `Python/flowgraph.c`, `inline_small_exit_blocks`), so the arms never meet and the
/// values below the test (`v`, `E`) go into both. Branch `b`, whose test is `cond`
/// and whose stack below the test is `below`, qualifies when each successor is
/// entered from `b` alone and either computes one value from nothing below (no
/// statement, read with a scratch recovery), in `b`'s protected range, then runs
/// its exit code (see [`exit_chain`]), or is itself such a branch (`a if c else (b
/// if d else e)`: its test's ops compute the test alone), the exit code being the
/// same ops in both, protected alike. Returns the value `a if cond else b` (folded
/// to `and`/`or` by [`simplify`]), the block where the exit code that goes on
/// starts (in the innermost fall-through arm) and the index of its first op. The
/// value is evaluated once, after `below` and the test, as in the original; the
/// other arms' copies of the exit code are left unused. `None` for any other shape,
/// or when no value of `below` is an expression (a statement-level `if`).
fn tail_fold(ctx: &mut Ctx<'_>, cfg: &Cfg, ir: &[IrInstr], b: BlockId, below: &[SVal], cond: &Expr) -> Option<(Expr, BlockId, usize)> {
    if !below.iter().any(|v| matches!(v, SVal::Expr(_))) {
        return None;
    }
    fold_arms(ctx, cfg, ir, b, below, cond, 0).map(|(value, _, (blk, k))| (value, blk, k))
}

/// One arm of a [`tail_fold`].
enum ArmTail {
    /// An arm that computes its value then runs its exit code: its blocks, and the
    /// places (block, op index) where the value may end.
    Exit(Vec<BlockId>, Vec<(BlockId, usize)>),
    /// A nested folded branch: its value, the blocks of its exit code's arm, and
    /// where the exit code starts.
    Folded(Expr, Vec<BlockId>, (BlockId, usize)),
}

/// [`tail_fold`] below the test of branch `b` (`depth` branches deep): the value,
/// the blocks of the arm whose exit code goes on, and where that code starts.
#[allow(clippy::type_complexity)]
fn fold_arms(ctx: &mut Ctx<'_>, cfg: &Cfg, ir: &[IrInstr], b: BlockId, below: &[SVal], cond: &Expr, depth: usize) -> Option<(Expr, Vec<BlockId>, (BlockId, usize))> {
    let Terminator::Branch { jump, fall } = cfg.blocks[b.index()].term else { return None };
    if jump == fall || depth > 16 {
        return None;
    }
    let handler = cfg.blocks[b.index()].handler;
    let arm = |ctx: &mut Ctx<'_>, a: BlockId| -> Option<ArmTail> {
        let blk = &cfg.blocks[a.index()];
        if blk.preds != [b] || blk.handler != handler {
            return None;
        }
        if let Terminator::Branch { .. } = blk.term {
            let last = &ir[blk.end - 1].op;
            if !matches!(last, Op::JumpIf { .. } | Op::JumpIfNone { .. }) || blk.end - 1 == blk.start {
                return None;
            }
            let v = pure_value(ctx, &ir[blk.start..blk.end - 1], below)?;
            let c = branch_condition(last, v);
            let (value, chain, at) = fold_arms(ctx, cfg, ir, a, below, &c, depth + 1)?;
            return Some(ArmTail::Folded(value, chain, at));
        }
        let chain = exit_chain(cfg, a, b)?;
        let ends = arm_value_ends(cfg, ir, &chain, handler);
        Some(ArmTail::Exit(chain, ends))
    };
    let then = arm(ctx, fall)?;
    let orelse = arm(ctx, jump)?;
    let ends = |t: &ArmTail| -> Vec<(BlockId, usize)> {
        match t {
            ArmTail::Exit(_, ks) => ks.clone(),
            ArmTail::Folded(_, _, at) => vec![*at],
        }
    };
    let chain_of = |t: &ArmTail| -> Vec<BlockId> {
        match t {
            ArmTail::Exit(c, _) | ArmTail::Folded(_, c, _) => c.clone(),
        }
    };
    // The exit code from `at` on: each op with the protected range it runs in.
    let tail = |chain: &[BlockId], (blk, k): (BlockId, usize)| -> Vec<(&Op, Option<depyf_cfg::ExcEdge>)> {
        let from = chain.iter().position(|&c| c == blk).expect("an end lies in its chain");
        chain[from..]
            .iter()
            .flat_map(|&c| {
                let block = &cfg.blocks[c.index()];
                let start = if c == blk { k } else { block.start };
                ir[start..block.end].iter().map(move |i| (&i.op, block.handler))
            })
            .collect()
    };
    let (fchain, jchain) = (chain_of(&then), chain_of(&orelse));
    // The shortest shared exit code (the latest end of each value): an attribute
    // or call that ends both values stays in each arm.
    let (fend, jend) = ends(&then).into_iter().find_map(|f| {
        let ft = tail(&fchain, f);
        ends(&orelse).into_iter().find(|&j| tail(&jchain, j) == ft).map(|j| (f, j))
    })?;
    let value = |ctx: &mut Ctx<'_>, t: ArmTail, (blk, k): (BlockId, usize)| -> Option<Expr> {
        match t {
            ArmTail::Exit(chain, _) => {
                let ops: Vec<IrInstr> = chain
                    .iter()
                    .take_while(|&&c| c != blk)
                    .chain(std::iter::once(&blk))
                    .flat_map(|&c| {
                        let block = &cfg.blocks[c.index()];
                        ir[block.start..if c == blk { k } else { block.end }].iter().cloned()
                    })
                    .collect();
                pure_value(ctx, &ops, below)
            }
            ArmTail::Folded(v, ..) => Some(v),
        }
    };
    let then = value(ctx, then, fend)?;
    let orelse = value(ctx, orelse, jend)?;
    Some((simplify(Expr::IfExp(Box::new(cond.clone()), Box::new(then), Box::new(orelse))), fchain, fend))
}

/// The condition under which a branch that ends in `op` (a conditional jump) falls
/// through, `v` being the value it tests.
fn branch_condition(op: &Op, v: Expr) -> Expr {
    match op {
        Op::JumpIf { when: false, .. } => v,
        Op::JumpIf { when: true, .. } => negate(v),
        Op::JumpIfNone { when: true, .. } => Expr::Compare(Box::new(v), vec![("is not", Expr::Const(Constant::None))]),
        Op::JumpIfNone { when: false, .. } => Expr::Compare(Box::new(v), vec![("is", Expr::Const(Constant::None))]),
        _ => unreachable!("branch terminators are conditional jumps"),
    }
}

/// The one value that the ops `ops` (not empty) push onto `below` when they run no
/// statement and leave `below` as it is; `None` otherwise (or when recovery fails
/// there). A scratch recovery: nested functions made there are recovered again where
/// the ops are used for real, so their stubs are not listed twice.
fn pure_value(ctx: &mut Ctx<'_>, ops: &[IrInstr], below: &[SVal]) -> Option<Expr> {
    let stack = pure_stack(ctx, ops, below, &Op::Nop)?;
    if stack.len() != below.len() + 1 || stack[..below.len()] != *below {
        return None;
    }
    match stack.into_iter().last() {
        Some(SVal::Expr(e)) => Some(e),
        _ => None,
    }
}

/// The stack that the ops `ops` (not empty), followed by the terminator `term`,
/// leave from `below` when they run no statement; `None` otherwise (see
/// [`pure_value`]).
fn pure_stack(ctx: &mut Ctx<'_>, ops: &[IrInstr], below: &[SVal], term: &Op) -> Option<Vec<SVal>> {
    let stubs = ctx.naming.failures.borrow().len();
    let mut st = BlockState { ctx, stack: below.to_vec(), stmts: Vec::new(), ins: ops.first()?, prev_was_load: false, own_line: false, term };
    let mut i = 0;
    let to = ops.len();
    let mut ok = true;
    while i < to {
        st.ins = &ops[i];
        st.prev_was_load = i > 0 && matches!(ops[i - 1].op, Op::LoadFast(_) | Op::LoadDeref(_) | Op::LoadGlobal(_) | Op::LoadName(_));
        st.own_line = i > 0 && own_line(st.ctx.code, &ops[i - 1], &ops[i]);
        match st.step(&ops[i].op, &ops[i + 1..to]) {
            Ok(skip) => i += 1 + skip,
            Err(_) => {
                ok = false;
                break;
            }
        }
    }
    let BlockState { stack, stmts, .. } = st;
    ctx.naming.failures.borrow_mut().truncate(stubs);
    if !ok || i != to || !stmts.is_empty() {
        return None;
    }
    Some(stack)
}

/// Whether block `b` starts as the clean-up of a chained comparison with at least
/// `ways` ways in (one per link but the last: a chain of `ways + 2` operands or
/// more), then the kept middle operand dropped under the failed result (`SWAP 2;
/// POP_TOP`, normalized from `ROT_TWO; POP_TOP` before 3.11; CPython
/// `Python/compile.c`/`codegen.c` `compiler_compare`).
fn is_chain_cleanup(cfg: &Cfg, ir: &[IrInstr], b: BlockId, ways: usize) -> bool {
    let block = &cfg.blocks[b.index()];
    block.preds.len() >= ways && block.end >= block.start + 2 && matches!((&ir[block.start].op, &ir[block.start + 1].op), (Op::Swap(2), Op::PopTop))
}

/// A chained comparison of 3 or more operands whose value goes to exit code that
/// CPython copies into both of its ends (a `return` and the code before it: small
/// exit blocks are copied into the jumps to them, 3.12+ `Python/flowgraph.c`,
/// before `Python/compile.c`/`peephole.c`): `b`, the first link, tests `c0` (its
/// result, `kept` the stack it jumps with) with `JUMP_IF_FALSE_OR_POP` (3.12+
/// `COPY 1; POP_JUMP_IF_FALSE`) to a clean-up block that drops the kept middle
/// operand (`SWAP 2; POP_TOP`, before 3.11 `ROT_TWO; POP_TOP`) and runs the exit
/// code (or goes on to it); each next link falls in from the one before and jumps
/// there too, and the last one computes its comparison and runs the same exit code
/// (CPython `Python/compile.c`/`codegen.c` `compiler_compare`). Returns the whole
/// chain, the clean-up block and where its exit code starts: like a [`tail_fold`],
/// structuring goes from `b` straight to that exit code with the chain on the
/// stack. `None` for other shapes. (Where the exit code is not copied, a chain of 3
/// operands folds at the merge after it, as `a < (t := b) and t < c`, and a longer
/// one through [`chain_cleanup_entry`].)
fn chain_exit_fold(ctx: &mut Ctx<'_>, cfg: &Cfg, ir: &[IrInstr], b: BlockId, kept: &[SVal], c0: &Expr) -> Option<(Expr, BlockId, usize)> {
    let block = &cfg.blocks[b.index()];
    let Terminator::Branch { jump: clean, fall } = block.term else { return None };
    let cb = &cfg.blocks[clean.index()];
    if !is_chain_cleanup(cfg, ir, clean, 1) || cb.handler != block.handler || !matches!(c0, Expr::Compare(..)) {
        return None;
    }
    // The exit code: the rest of the clean-up, and the returning block it goes on to
    // (which other code reaches too: `e or a < b < c < d`; or which lies outside the
    // `try` whose body assigns the chain, `try: y = a < b < c` then `return y`).
    let (own_exit, next_exit) = exit_parts(cfg, ir, clean, cb.start + 2)?;
    let exit_code: Vec<&Op> = own_exit.iter().chain(next_exit.map_or(&[][..], |(_, ops)| ops)).map(|i| &i.op).collect();
    // A link after the first is no root of its own.
    if let [p] = block.preds.as_slice() {
        if matches!(cfg.blocks[p.index()].term, Terminator::Branch { jump, .. } if jump == clean) {
            return None;
        }
    }
    let [below @ .., SVal::Expr(_), SVal::Expr(_)] = kept else { return None };
    let mut tests = vec![c0.clone()];
    let mut links = vec![b];
    let mut stack: Vec<SVal> = kept[..kept.len() - 1].to_vec();
    let (mut prev, mut cur) = (b, fall);
    loop {
        let blk = &cfg.blocks[cur.index()];
        if blk.preds != [prev] || blk.handler != block.handler || links.len() > 4096 {
            return None;
        }
        match blk.term {
            Terminator::Branch { jump, fall } if jump == clean => {
                let term = &ir[blk.end - 1].op;
                if !matches!(term, Op::JumpIfOrPop { when: false, .. }) || blk.end - 1 == blk.start {
                    return None;
                }
                let after = pure_stack(ctx, &ir[blk.start..blk.end - 1], &stack, term)?;
                let [rest @ .., m @ SVal::Expr(_), SVal::Expr(c @ Expr::Compare(..))] = after.as_slice() else { return None };
                if rest != below {
                    return None;
                }
                tests.push(c.clone());
                stack = below.to_vec();
                stack.push(m.clone());
                links.push(cur);
                (prev, cur) = (cur, fall);
            }
            Terminator::Return | Terminator::FallThrough(_) | Terminator::Jump(_) => {
                // The last link ends in a copy of the exit code: all in its own block,
                // or split as the clean-up's is (the same handlers), the next block
                // reached from it alone.
                let (own, next) = exit_parts(cfg, ir, cur, blk.start)?;
                let copied: Vec<&Op> = match (next, next_exit) {
                    (None, None) => exit_code.clone(),
                    (None, Some((cnb, _))) if cfg.blocks[cnb.index()].handler == block.handler => exit_code.clone(),
                    (Some((nb, ops)), Some((cnb, cops))) if cfg.blocks[nb.index()].preds == [cur] && cfg.blocks[nb.index()].handler == cfg.blocks[cnb.index()].handler && ops.iter().map(|i| &i.op).eq(cops.iter().map(|i| &i.op)) => {
                        own_exit.iter().map(|i| &i.op).collect()
                    }
                    _ => return None,
                };
                let n = copied.len();
                if own.len() < n + 1 || own[own.len() - n..].iter().map(|i| &i.op).ne(copied) {
                    return None;
                }
                let after = pure_stack(ctx, &own[..own.len() - n], &stack, &Op::Nop)?;
                let [rest @ .., SVal::Expr(last)] = after.as_slice() else { return None };
                if rest != below {
                    return None;
                }
                tests.push(last.clone());
                break;
            }
            _ => return None,
        }
    }
    // Every way into the clean-up is a link.
    if cb.preds.iter().any(|p| !links.contains(p)) || links.len() != cb.preds.len() {
        return None;
    }
    let chain = tests.into_iter().reduce(|a, c| bool_op(true, a, c))?;
    matches!(chain, Expr::Compare(..)).then_some((chain, clean, cb.start + 2))
}

/// The exit code of block `b` from its instruction `from` on, for [`chain_exit_fold`]:
/// its own ops to its end (without a closing jump) and, when it does not return
/// itself, the block it goes on to with that block's ops, which must return. `None`
/// for other endings.
fn exit_parts<'a>(cfg: &Cfg, ir: &'a [IrInstr], b: BlockId, from: usize) -> Option<(&'a [IrInstr], Option<(BlockId, &'a [IrInstr])>)> {
    let blk = &cfg.blocks[b.index()];
    match blk.term {
        Terminator::Return => Some((ir.get(from..blk.end)?, None)),
        Terminator::FallThrough(n) | Terminator::Jump(n) => {
            let nb = &cfg.blocks[n.index()];
            let own = if matches!(blk.term, Terminator::Jump(_)) { blk.end - 1 } else { blk.end };
            if own < from || !matches!(nb.term, Terminator::Return) {
                return None;
            }
            Some((&ir[from..own], Some((n, &ir[nb.start..nb.end]))))
        }
        _ => None,
    }
}

/// The entry of the clean-up block of a chained comparison of 4 or more operands
/// in a value: every link but the last tests its comparison with
/// `JUMP_IF_FALSE_OR_POP` (3.12+ `COPY 1; POP_JUMP_IF_FALSE`) to one block that drops
/// the kept middle operand under the failed result (`SWAP 2; POP_TOP`, before 3.11
/// `ROT_TWO; POP_TOP`; CPython `Python/compile.c`/`codegen.c` `compiler_compare`).
/// Each link brings a different kept operand and result. The result is the first
/// false one of the links' comparisons `c0, c1, ..`, which is the value of
/// `c0 and c1 and ..` when the chain goes no further: the entry holds that `and`
/// (the form `fold_shared_arms` gives the tests that lead here, so that the merge
/// after the clean-up folds into `c0 and c1 and .. and last`, which `bool_op` reads
/// as the chain) over the first link's kept operand, which the block drops at once.
/// Returns the entry and the links (whose results are delayed in it). `None` for
/// other shapes, and when a link already names its value (`spill_or_pop`).
fn chain_cleanup_entry(ctx: &Ctx<'_>, cfg: &Cfg, ir: &[IrInstr], b: BlockId, exits: &[Option<Exit>], spill_or_pop: &BTreeSet<usize>) -> Option<(Vec<SVal>, Vec<usize>)> {
    let block = &cfg.blocks[b.index()];
    if !is_chain_cleanup(cfg, ir, b, 2) {
        return None;
    }
    let mut links: Vec<usize> = block.preds.iter().map(|p| p.index()).collect();
    links.sort_by_key(|&p| cfg.blocks[p].start);
    let mut below: Option<&[SVal]> = None;
    let mut tests = Vec::with_capacity(links.len());
    let mut kept = None;
    for &p in &links {
        let blk = &cfg.blocks[p];
        if spill_or_pop.contains(&p) || blk.handler != block.handler || !matches!(blk.term, Terminator::Branch { jump, .. } if jump == b) {
            return None;
        }
        if !matches!(ir[blk.end - 1].op, Op::JumpIfOrPop { when: false, .. }) {
            return None;
        }
        let stack = edge_stack(exits[p].as_ref()?, b);
        let [rest @ .., SVal::Expr(m), SVal::Expr(c @ Expr::Compare(..))] = stack.as_slice() else { return None };
        if below.is_some_and(|x| x != rest) {
            return None;
        }
        below = Some(rest);
        kept.get_or_insert_with(|| m.clone());
        tests.push(c.clone());
    }
    // The dropped operand: a plain name or constant (a named middle operand is read
    // through its temporary), which `POP_TOP` drops without a statement.
    let kept = kept?;
    if !matches!(&kept, Expr::Name(n) if n.starts_with("__temp_")) && !matches!(kept, Expr::Const(_)) && !is_atomic(ctx, &kept) {
        return None;
    }
    // Only where the links' results read as one chain.
    let chain = tests.iter().cloned().reduce(|a, c| bool_op(true, a, c))?;
    if !matches!(chain, Expr::Compare(..)) {
        return None;
    }
    let mut entry = below?.to_vec();
    entry.push(SVal::Expr(kept));
    entry.push(SVal::Expr(Expr::BoolOp(true, tests)));
    Some((entry, links))
}

/// A block that a predecessor of `b` reaches through the jump edge of a
/// `JUMP_IF_*_OR_POP` that did not name its value yet.
fn or_pop_root(cfg: &Cfg, ir: &[IrInstr], b: BlockId, exits: &[Option<Exit>], done: &BTreeSet<usize>) -> Option<usize> {
    cfg.blocks[b.index()].preds.iter().map(|p| p.index()).find(|&p| {
        exits[p].is_some()
            && !done.contains(&p)
            && matches!(ir[cfg.blocks[p].end - 1].op, Op::JumpIfOrPop { .. })
            && matches!(cfg.blocks[p].term, Terminator::Branch { jump, .. } if jump == b)
    })
}

/// Folds a merge whose predecessors differ in one stack slot into one expression,
/// when everything between the merge's immediate dominator and the merge only
/// computes that value: `a if c else b`, `a and b`, `a or b`, `a < b < c`.
///
/// Returns the dominator (whose branch disappears), the merge's entry stack and the
/// blocks of the folded value (its branches and the arms that reach the merge).
fn collapse_merge(ctx: &Ctx<'_>, cfg: &Cfg, idom: &[Option<BlockId>], b: BlockId, exits: &[Option<Exit>], out: &[BlockCode]) -> Option<(BlockId, Vec<SVal>, Vec<BlockId>)> {
    let preds = &cfg.blocks[b.index()].preds;
    if preds.len() < 2 || preds.iter().any(|p| exits[p.index()].is_none()) {
        return None;
    }
    let stacks: Vec<&Vec<SVal>> = preds.iter().map(|p| edge_stack(exits[p.index()].as_ref().expect("seen"), b)).collect();
    let depth = stacks[0].len();
    if depth == 0 || stacks.iter().any(|s| s.len() != depth) {
        return None;
    }
    let differing: Vec<usize> = (0..depth).filter(|&i| stacks.iter().any(|s| s[i] != stacks[0][i])).collect();
    // Values that read the same but are computed on each way in (`a < a < a`: the
    // first comparison on the jump edge, the second on the other) fold as well.
    let same_top = || matches!(&stacks[0][depth - 1], SVal::Expr(e) if !is_atomic(ctx, e)).then_some(depth - 1);
    let slot = match differing[..] {
        [slot] => slot,
        [] => same_top()?,
        _ => return None,
    };
    let root = idom[b.index()]?;
    if !matches!(cfg.blocks[root.index()].term, Terminator::Branch { .. }) || out[root.index()].for_loop.is_some() {
        return None;
    }
    let mut used = Vec::new();
    let mut value = tree_value(ctx, cfg, root, b, slot, exits, out, &mut used, Entry::Root)?;
    let marker = |u: BlockId| format!("{SHARED_ARM}{}>", u.index());
    // The values of shared arms that may be a chained comparison's clean-up (see
    // `chain_cleanup_entry`).
    let mut chain_arms: Vec<Expr> = Vec::new();
    let shared: Vec<BlockId> = used
        .iter()
        .copied()
        .filter(|&u| {
            let m = marker(u);
            let mut found = false;
            value.walk(&mut |e| found |= e.is_name(&m));
            found
        })
        .collect();
    if !shared.is_empty() {
        // The values of the shared tests (which may share arms and tests in turn).
        let is_test = |u: BlockId| matches!(cfg.blocks[u.index()].term, Terminator::Branch { .. });
        let mut tests: Vec<(BlockId, Expr)> = Vec::new();
        let mut todo: Vec<BlockId> = shared.iter().copied().filter(|&u| is_test(u)).collect();
        let mut shared = shared;
        while let Some(t) = todo.pop() {
            if tests.iter().any(|(u, _)| *u == t) || tests.len() > 16 {
                continue;
            }
            let sub = tree_value(ctx, cfg, t, b, slot, exits, out, &mut used, Entry::Shared)?;
            for &u in &used {
                let m = marker(u);
                let mut found = false;
                sub.walk(&mut |e| found |= e.is_name(&m));
                if found && !shared.contains(&u) {
                    shared.push(u);
                    if is_test(u) {
                        todo.push(u);
                    }
                }
            }
            tests.push((t, sub));
        }
        // Every way into a shared arm is a test of the tree, and the tests fold into
        // one condition per shared arm: each shared test is put in place when it is
        // left in one place, then folded again.
        if shared.iter().any(|s| cfg.blocks[s.index()].preds.iter().any(|p| !used.contains(p))) {
            return None;
        }
        value = fold_shared_arms(value);
        for _ in 0..=tests.len() {
            let Some((t, sub)) = tests.iter().find(|(t, _)| {
                let m = marker(*t);
                let mut uses = 0;
                value.walk(&mut |e| uses += usize::from(e.is_name(&m)));
                uses == 1
            }) else {
                break;
            };
            let m = marker(*t);
            let mut sub = Some(sub.clone());
            value.walk_mut(&mut |e| {
                if e.is_name(&m) {
                    *e = sub.take().expect("one use");
                }
            });
            value = fold_shared_arms(value);
        }
        for (t, _) in &tests {
            let m = marker(*t);
            let mut left = false;
            value.walk(&mut |e| left |= e.is_name(&m));
            if left {
                return None;
            }
        }
        for s in shared.iter().filter(|&&s| !is_test(s)) {
            let marker = marker(*s);
            let mut uses = 0;
            value.walk(&mut |e| uses += usize::from(e.is_name(&marker)));
            let arm = match edge_stack(exits[s.index()].as_ref()?, b).get(slot)? {
                SVal::Expr(e) if uses == 1 => e.clone(),
                _ => return None,
            };
            if matches!(&arm, Expr::BoolOp(true, items) if items.len() > 1 && items.iter().all(|i| matches!(i, Expr::Compare(..)))) {
                chain_arms.push(arm.clone());
            }
            let mut arm = Some(arm);
            value.walk_mut(&mut |e| {
                if e.is_name(&marker) {
                    *e = arm.take().expect("one use");
                }
            });
        }
    }
    // Every predecessor of the merge must be part of the tree.
    if preds.iter().any(|p| !used.contains(p)) {
        return None;
    }
    let value = simplify(value);
    // Such a value stands for the comparisons that the tests leading there already
    // made: it must be gone into the chain (`c0 and c1` as the test of the arm
    // whose value it is), never left to run them again.
    if !chain_arms.is_empty() {
        let mut left = false;
        value.walk(&mut |e| left |= chain_arms.contains(e));
        if left {
            return None;
        }
    }
    let mut stack = stacks[0].clone();
    stack[slot] = SVal::Expr(value);
    Some((root, stack, used))
}

/// The prefix of the marker that stands for a shared arm's value in [`tree_value`]
/// (`<shared bb3>`; no source name starts with `<`).
const SHARED_ARM: &str = "<shared bb";

/// Folds the tests that lead to the same shared arm (a marker, see [`tree_value`])
/// into one condition, innermost first: `P if d else M` under `c` with `M` on the
/// other side is `P if c and d else M` (and the three other placements); CPython
/// compiles the `and`/`or` of a conditional expression's test to such jumps
/// (`compiler_jump_if`). Each test is evaluated as before, in the same order, and
/// its truth alone decides. Other conditional expressions are returned as they are.
fn fold_shared_arms(e: Expr) -> Expr {
    let Expr::IfExp(c, t, f) = e else { return e };
    let (c, t, f) = (*c, fold_shared_arms(*t), fold_shared_arms(*f));
    let shared = |x: &Expr| matches!(x, Expr::Name(n) if n.starts_with(SHARED_ARM));
    let join = |is_and: bool, a: Expr, b: Expr| {
        let mut items = Vec::new();
        for part in [a, b] {
            match part {
                Expr::BoolOp(k, inner) if k == is_and => items.extend(inner),
                other => items.push(other),
            }
        }
        Expr::BoolOp(is_and, items)
    };
    match (t, f) {
        (Expr::IfExp(d, p, q), m) if shared(&m) && *q == m => Expr::IfExp(Box::new(join(true, c, *d)), p, q),
        (Expr::IfExp(d, p, q), m) if shared(&m) && *p == m => Expr::IfExp(Box::new(join(false, negate(c), *d)), p, q),
        (m, Expr::IfExp(d, p, q)) if shared(&m) && *p == m => Expr::IfExp(Box::new(join(false, c, *d)), p, q),
        (m, Expr::IfExp(d, p, q)) if shared(&m) && *q == m => Expr::IfExp(Box::new(join(true, negate(c), *d)), p, q),
        (t, f) => Expr::IfExp(Box::new(c), Box::new(t), Box::new(f)),
    }
}

/// How [`tree_value`] reaches a block.
#[derive(Clone, Copy, PartialEq)]
enum Entry {
    /// The merge's immediate dominator: its statements run before the value.
    Root,
    /// An arm of a branch in the tree: one way in, no statements.
    Arm,
    /// The merge of an inner fold that an arm's block is the root of: its ways in
    /// are all in that fold; no statements.
    Folded,
    /// A test that several tests of the tree go to (see [`fold_shared_arms`]): no
    /// statements, its ways in checked by [`collapse_merge`].
    Shared,
}

/// The value that the blocks from `at` on leave in stack slot `slot` at `merge`, as
/// a tree of conditional expressions over the branches' conditions (`None` when a
/// block on the way has statements, other ways in, or no such value). The blocks
/// whose edges reach `merge`, and the branches on the way, are added to `used`. An arm whose block is the root of
/// an inner fold (`b and c` in `a or b and c or d`, folded at the `or`'s test)
/// goes on from that fold's merge, whose entry holds the folded value.
#[allow(clippy::too_many_arguments)]
fn tree_value(ctx: &Ctx<'_>, cfg: &Cfg, at: BlockId, merge: BlockId, slot: usize, exits: &[Option<Exit>], out: &[BlockCode], used: &mut Vec<BlockId>, entry: Entry) -> Option<Expr> {
    let block = &cfg.blocks[at.index()];
    let exit = exits[at.index()].as_ref()?;
    let is_root = entry == Entry::Root;
    // An arm or test that several tests of the tree go to (`a if c and d else b`:
    // both tests jump to `b`; `(c or d) and e`: both go to `e`): a marker naming its
    // block, for `fold_shared_arms`.
    if entry == Entry::Arm
        && block.preds.len() > 1
        && out[at.index()].stmts.is_empty()
        && out[at.index()].collapsed_to.is_none()
        && out[at.index()].for_loop.is_none()
        && (matches!(block.term, Terminator::Jump(s) | Terminator::FallThrough(s) if s == merge) || matches!(block.term, Terminator::Branch { .. }))
    {
        if !used.contains(&at) {
            used.push(at);
        }
        return Some(Expr::Name(format!("{SHARED_ARM}{}>", at.index()).into()));
    }
    if entry == Entry::Arm && (block.preds.len() != 1 || !out[at.index()].stmts.is_empty()) {
        return None;
    }
    if matches!(entry, Entry::Folded | Entry::Shared) && !out[at.index()].stmts.is_empty() {
        return None;
    }
    if entry == Entry::Arm {
        if let Some(inner) = out[at.index()].collapsed_to {
            if inner == merge || inner == at {
                return None;
            }
            return tree_value(ctx, cfg, inner, merge, slot, exits, out, used, Entry::Folded);
        }
    }
    let edge_value = |to: BlockId| -> Option<Expr> {
        match edge_stack(exit, to).get(slot)? {
            SVal::Expr(e) => Some(e.clone()),
            _ => None,
        }
    };
    match block.term {
        Terminator::Jump(s) | Terminator::FallThrough(s) if s == merge && !is_root => {
            used.push(at);
            edge_value(merge)
        }
        Terminator::Branch { jump, fall } => {
            if out[at.index()].for_loop.is_some() {
                return None;
            }
            let cond = out[at.index()].fall_condition.clone()?;
            let arm = |to: BlockId, used: &mut Vec<BlockId>| -> Option<Expr> {
                if to == merge {
                    used.push(at);
                    edge_value(merge)
                } else {
                    tree_value(ctx, cfg, to, merge, slot, exits, out, used, Entry::Arm)
                }
            };
            let then = arm(fall, used)?;
            let orelse = arm(jump, used)?;
            if !used.contains(&at) {
                used.push(at);
            }
            let _ = ctx;
            Some(Expr::IfExp(Box::new(cond), Box::new(then), Box::new(orelse)))
        }
        _ => None,
    }
}

/// `x if x else y` is `x or y`; `y if x else x` is `x and y`; `a < b and b < c` is
/// `a < b < c` (b a variable or constant); nested ones flatten.
pub(crate) fn simplify(e: Expr) -> Expr {
    let Expr::IfExp(test, then, orelse) = e else { return e };
    let (test, then, orelse) = (*test, simplify(*then), simplify(*orelse));
    let (test, then, orelse) = match test {
        Expr::UnaryOp("not", inner) if *inner == then || *inner == orelse => (*inner, orelse, then),
        t => (t, then, orelse),
    };
    if orelse == test {
        return bool_op(true, test, then);
    }
    if then == test {
        return bool_op(false, test, orelse);
    }
    Expr::IfExp(Box::new(test), Box::new(then), Box::new(orelse))
}

/// A constant `frozenset` where only a set display can have made it: CPython folds
/// the display `{1, 2}` on the right of `in`/`not in` and as the iterable of a `for`
/// or comprehension into a `frozenset` constant (CPython 3.8-3.13
/// `Python/ast_opt.c` `fold_iter`/`fold_compare`), which no literal spells; the
/// display compiles back to it. Other values are returned unchanged.
pub(crate) fn set_display(e: Expr) -> Expr {
    match e {
        Expr::Const(Constant::FrozenSet(items)) if !items.is_empty() => Expr::Set(items.into_iter().map(Expr::Const).collect()),
        other => other,
    }
}

/// `a and b` (`is_and`) or `a or b`, flattened into one `BoolOp` with the items of
/// either side that is one of the same kind, the links of a chained comparison
/// joined (see [`push_and_item`]).
pub(crate) fn bool_op(is_and: bool, a: Expr, b: Expr) -> Expr {
    let mut items: Vec<Expr> = Vec::new();
    for part in [a, b] {
        match part {
            Expr::BoolOp(k, inner) if k == is_and => {
                for e in inner {
                    push_and_item(is_and, &mut items, e);
                }
            }
            other => push_and_item(is_and, &mut items, other),
        }
    }
    if items.len() == 1 {
        return items.pop().expect("one item");
    }
    Expr::BoolOp(is_and, items)
}

/// `a < (t := m) and t < c` as the chain `a < m < c`: `t` is the kept middle
/// operand that recovery named (see `BlockState::chain_middle`), which only the
/// bytecode of a chain has. `None` for other pairs: `a < b and b < c` written so
/// loads `b` twice and stays as it is.
fn join_chain(a: &Expr, b: &Expr) -> Option<Expr> {
    let (Expr::Compare(l1, r1), Expr::Compare(l2, r2)) = (a, b) else { return None };
    if let Some((op, Expr::NamedExpr(t, m))) = r1.last() {
        if t.starts_with("__temp_") && l2.is_name(t) {
            let mut ops = r1[..r1.len() - 1].to_vec();
            ops.push((op, (**m).clone()));
            ops.extend(r2.iter().cloned());
            return Some(Expr::Compare(l1.clone(), ops));
        }
    }
    None
}

/// Appends `e` to the items of an `and` (`is_and`) or `or`, joining it with the
/// last item when the two are the links of one chained comparison (see
/// [`join_chain`]): a chain of 4 or more operands folds as `c0 and c1 and .. and cn`
/// (see `chain_cleanup_entry`), whose neighbours join pair by pair; in an `or`,
/// `not c0 or not c1` (how a jump on a chain reads when its test is negated) is the
/// negated chain.
fn push_and_item(is_and: bool, items: &mut Vec<Expr>, e: Expr) {
    if is_and {
        if let Some(joined) = items.last().and_then(|last| join_chain(last, &e)) {
            *items.last_mut().expect("checked") = joined;
            return;
        }
    } else if let (Some(Expr::UnaryOp("not", x)), Expr::UnaryOp("not", y)) = (items.last(), &e) {
        // In an `or`: `not a < (t := b) or not t < c` is `not a < b < c`.
        if let Some(joined) = join_chain(x, y) {
            *items.last_mut().expect("checked") = Expr::UnaryOp("not", Box::new(joined));
            return;
        }
    }
    items.push(e);
}
