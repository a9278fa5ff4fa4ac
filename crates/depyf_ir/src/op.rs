//! The normalized operations and their stack effects, in `bytecodes.c` notation
//! `(inputs -- outputs)`, top of stack last.

/// Where a call finds its callable relative to the NULL marker.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum CallLayout {
    /// `(null_or_callable, callable_or_self, args...)`: 3.11-3.12 `CALL` and
    /// 3.8-3.10 `CALL_METHOD`.
    NullFirst,
    /// `(callable, null_or_self, args...)`: 3.13+ `CALL`.
    NullSecond,
    /// `(callable, args...)`: 3.8-3.10 `CALL_FUNCTION` and friends.
    NoNull,
}

/// A binary operator (`BINARY_OP` oparg meanings of CPython 3.11+ `Include/opcode.h`
/// `NB_*`, and the dedicated `BINARY_*`/`INPLACE_*` opcodes before 3.11).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum BinOp {
    /// `+`
    Add,
    /// `&`
    And,
    /// `//`
    FloorDiv,
    /// `<<`
    LShift,
    /// `@`
    MatMul,
    /// `*`
    Mul,
    /// `%`
    Mod,
    /// `|`
    Or,
    /// `**`
    Pow,
    /// `>>`
    RShift,
    /// `-`
    Sub,
    /// `/`
    Div,
    /// `^`
    Xor,
}

impl BinOp {
    /// The operator as written in Python source (`"+"`).
    pub fn symbol(self) -> &'static str {
        match self {
            BinOp::Add => "+",
            BinOp::And => "&",
            BinOp::FloorDiv => "//",
            BinOp::LShift => "<<",
            BinOp::MatMul => "@",
            BinOp::Mul => "*",
            BinOp::Mod => "%",
            BinOp::Or => "|",
            BinOp::Pow => "**",
            BinOp::RShift => ">>",
            BinOp::Sub => "-",
            BinOp::Div => "/",
            BinOp::Xor => "^",
        }
    }

    /// The operator of a symbol (`"+"` or `"+="` give `Add`).
    pub fn from_symbol(s: &str) -> Option<Self> {
        let s = s.strip_suffix('=').unwrap_or(s);
        [
            BinOp::Add,
            BinOp::And,
            BinOp::FloorDiv,
            BinOp::LShift,
            BinOp::MatMul,
            BinOp::Mul,
            BinOp::Mod,
            BinOp::Or,
            BinOp::Pow,
            BinOp::RShift,
            BinOp::Sub,
            BinOp::Div,
            BinOp::Xor,
        ]
        .into_iter()
        .find(|op| op.symbol() == s)
    }
}

/// A unary operator.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum UnaryOp {
    /// `-x`
    Neg,
    /// `+x`
    Pos,
    /// `not x`
    Not,
    /// `~x`
    Invert,
}

/// A comparison operator (`COMPARE_OP`, `IS_OP`, `CONTAINS_OP`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum CmpOp {
    /// `<`
    Lt,
    /// `<=`
    Le,
    /// `==`
    Eq,
    /// `!=`
    Ne,
    /// `>`
    Gt,
    /// `>=`
    Ge,
    /// `is`
    Is,
    /// `is not`
    IsNot,
    /// `in`
    In,
    /// `not in`
    NotIn,
}

impl CmpOp {
    /// The operator as written in source.
    pub fn symbol(self) -> &'static str {
        match self {
            CmpOp::Lt => "<",
            CmpOp::Le => "<=",
            CmpOp::Eq => "==",
            CmpOp::Ne => "!=",
            CmpOp::Gt => ">",
            CmpOp::Ge => ">=",
            CmpOp::Is => "is",
            CmpOp::IsNot => "is not",
            CmpOp::In => "in",
            CmpOp::NotIn => "not in",
        }
    }

    /// The operator of a `cmp_op` entry (`"<"` ... `">="`).
    pub fn from_symbol(s: &str) -> Option<Self> {
        Some(match s {
            "<" => CmpOp::Lt,
            "<=" => CmpOp::Le,
            "==" => CmpOp::Eq,
            "!=" => CmpOp::Ne,
            ">" => CmpOp::Gt,
            ">=" => CmpOp::Ge,
            _ => return None,
        })
    }
}

/// A normalized operation. Operands index the code object's tables: `co_consts`
/// (`Const`), `co_names` (`Name`) and `co_localsplusnames` (`Local`); jump targets are
/// byte offsets in the original `co_code`.
// `PartialEq` is written out below with the derived meaning (same variant, equal
// fields), so the derived `Hash` agrees with it.
#[allow(clippy::derived_hash_with_manual_eq)]
#[derive(Clone, Debug, Eq, Hash)]
pub enum Op {
    /// `( -- )` no effect (NOP, RESUME, PRECALL, CACHE, line markers).
    Nop,
    /// `( -- value)` push `co_consts[i]`.
    LoadConst(usize),
    /// `( -- int)` push the int `i` (3.14+ `LOAD_SMALL_INT`, 0 to 255; such ints are
    /// not in `co_consts`).
    LoadSmallInt(u32),
    /// `( -- value)` 3.14+ `LOAD_COMMON_CONSTANT` of a value that is not in
    /// `co_consts`: a builtin (`"tuple"`, `"all"`, `"any"`, `"list"`, `"set"`,
    /// `"NotImplementedError"`) or, from 3.15, `None`, `True`, `False`, `''`, `-1`
    /// (written as those literals). `AssertionError` is [`Op::LoadAssertionError`].
    LoadCommonConstant(&'static str),
    /// `( -- value)` push fast local `i`.
    LoadFast(usize),
    /// `(value -- )` store into fast local `i`.
    StoreFast(usize),
    /// `( -- )` delete fast local `i`.
    DeleteFast(usize),
    /// `( -- value)` push the content of cell/free slot `i`.
    LoadDeref(usize),
    /// `(value -- )` store into cell/free slot `i`.
    StoreDeref(usize),
    /// `( -- )` empty cell/free slot `i`.
    DeleteDeref(usize),
    /// `( -- cell)` push the cell object of slot `i` (to build a closure).
    LoadClosure(usize),
    /// `( -- value)` push global `co_names[i]`.
    LoadGlobal(usize),
    /// `(value -- )` store global `co_names[i]`.
    StoreGlobal(usize),
    /// `( -- )` delete global `co_names[i]`.
    DeleteGlobal(usize),
    /// `( -- value)` push name `co_names[i]` (module and class bodies).
    LoadName(usize),
    /// `(value -- )` store name `co_names[i]`.
    StoreName(usize),
    /// `( -- )` delete name `co_names[i]`.
    DeleteName(usize),
    /// `(obj -- value)` push `obj.co_names[i]`.
    LoadAttr(usize),
    /// `(value, obj -- )` `obj.co_names[i] = value`.
    StoreAttr(usize),
    /// `(obj -- )` `del obj.co_names[i]`.
    DeleteAttr(usize),
    /// A method load (3.8-3.11 `LOAD_METHOD`, 3.12+ `LOAD_ATTR` with the low bit),
    /// normalized to a NULL marker and the bound attribute in the order the
    /// version's calls expect: `(obj -- NULL, bound)` for [`CallLayout::NullFirst`],
    /// `(obj -- bound, NULL)` for [`CallLayout::NullSecond`].
    LoadMethod(usize, CallLayout),
    /// `( -- NULL)` push the NULL marker that precedes a callable (3.11+).
    PushNull,
    /// `(value -- )` discard the top of stack.
    PopTop,
    /// `(x_n ... x_1 -- x_n ... x_1, x_n)` push a copy of the n-th item (DUP_TOP is 1).
    Copy(u32),
    /// `(x_n ... x_1 -- x_1 ... x_n)` exchange the top and the n-th item (ROT_TWO is 2).
    Swap(u32),
    /// `(x_n ... x_1 -- x_1, x_n ... x_2)` move the top item down to position n
    /// (ROT_THREE is 3, ROT_FOUR is 4, ROT_N n).
    Rot(u32),
    /// `(value -- result)`.
    Unary(UnaryOp),
    /// `(left, right -- result)`; `inplace` for augmented assignment (`+=`).
    Binary(BinOp, bool),
    /// `(left, right -- result)` `COMPARE_OP`, `IS_OP`, `CONTAINS_OP`.
    Compare(CmpOp),
    /// `(container, key -- value)`.
    BinarySubscr,
    /// `(value, container, key -- )` `container[key] = value`.
    StoreSubscr,
    /// `(container, key -- )` `del container[key]`.
    DeleteSubscr,
    /// `(start, stop[, step] -- slice)` with n = 2 or 3.
    BuildSlice(u32),
    /// `(items * n -- tuple)`.
    BuildTuple(u32),
    /// `(items * n -- list)`.
    BuildList(u32),
    /// `(items * n -- set)`.
    BuildSet(u32),
    /// `(key, value pairs * n -- dict)`.
    BuildMap(u32),
    /// `(values * n, keys -- dict)` keys is a constant tuple.
    BuildConstKeyMap(u32),
    /// `(list, unused * (i-1), iterable -- list, unused * (i-1))` `list.extend(iterable)`.
    ListExtend(u32),
    /// `(list, unused * (i-1), value -- list, unused * (i-1))` `list.append(value)`.
    ListAppend(u32),
    /// `(list -- tuple)` (3.9+ `LIST_TO_TUPLE`, intrinsic in 3.12).
    ListToTuple,
    /// `(seq -- items * n)` first item on top.
    UnpackSequence(u32),
    /// `(callable_or_null, self_or_callable, args * argc -- result)`; `kwnames` is the
    /// `co_consts` index of the keyword names tuple, naming the last arguments.
    /// Versions before 3.11 push no NULL; their normalizer inserts [`Op::PushNull`]
    /// before the callable, so this shape holds for every version.
    Call {
        /// Number of arguments (keyword arguments included).
        argc: u32,
        /// `co_consts` index of the tuple of keyword names, if any.
        kwnames: Option<usize>,
        /// Where the callable and the NULL-or-self slot sit below the arguments.
        layout: CallLayout,
    },
    /// `([null,] callable, args[, kwargs] -- result)` `callable(*args, **kwargs)`;
    /// the NULL slot exists unless `layout` is [`CallLayout::NoNull`] (before 3.11).
    CallEx {
        /// Whether a kwargs mapping is on top.
        has_kwargs: bool,
        /// Where the NULL slot is.
        layout: CallLayout,
    },
    /// `( -- iter)` from `(iterable -- iter)`: `iter(x)` of a `for` loop.
    GetIter,
    /// On the fall-through edge `(iter -- iter, next)`; when the iterator is exhausted
    /// `(iter -- )` and jump to `target`. Normalizers of 3.12+ point `target` past
    /// `END_FOR` so that this holds for every version. The step of an `async for`
    /// (3.11+ `GET_ANEXT` and the `await` loop after it, ending when `StopAsyncIteration`
    /// reaches the `END_ASYNC_FOR` handler) is this op too, on an iterator made by
    /// [`Op::GetAIter`], jumping to the `END_ASYNC_FOR` (a `Nop`); its `IrInstr::opname`
    /// is `GET_ANEXT`.
    ForIter(u32),
    /// `(iterable -- aiter)` `aiter(x)` of an `async for` (`GET_AITER`).
    GetAIter,
    /// `(subject -- subject, is_sequence)` of a sequence pattern (3.10+ `MATCH_SEQUENCE`).
    MatchSequence,
    /// `(subject -- subject, is_mapping)` of a mapping pattern (3.10+ `MATCH_MAPPING`).
    MatchMapping,
    /// `(subject, keys -- subject, keys, values_or_None)` of a mapping pattern (3.11+
    /// `MATCH_KEYS`).
    MatchKeys,
    /// `(subject, cls, kw_names -- attrs_or_None)` of a class pattern with this many
    /// positional sub-patterns (3.11+ `MATCH_CLASS`).
    MatchClass(u32),
    /// `(obj -- obj, len(obj))` (`GET_LEN`).
    GetLen,
    /// `(subject, keys -- subject, rest)`: a dict of the subject's items without
    /// `keys`, for `**rest` of a mapping pattern (3.10 `COPY_DICT_WITHOUT_KEYS`; 3.11+
    /// build it with `BUILD_MAP`, `DICT_UPDATE` and `DELETE_SUBSCR`).
    CopyDictWithoutKeys,
    /// Not made by normalization: one whole `case` pattern, recognized by the
    /// decompiler, standing for its tests and captures; `id` names the pattern in the
    /// decompiler's table. `(subject -- subject, matched)` when the case copies the
    /// subject (`copy`), `(subject -- matched)` for the last case that tests it.
    MatchCase {
        /// Index of the pattern in the decompiler's table.
        id: u32,
        /// Whether the subject stays on the stack for the next case.
        copy: bool,
    },
    /// 3.8-3.11 `JUMP_IF_TRUE_OR_POP` / `JUMP_IF_FALSE_OR_POP`: on the jump edge
    /// `(cond -- cond)`, on the fall-through edge `(cond -- )`.
    JumpIfOrPop {
        /// Jump when the condition is this truth value.
        when: bool,
        /// Target byte offset.
        target: u32,
    },
    /// `([defaults, kwdefaults, annotations, closure,] code[, qualname] -- func)`:
    /// `flags` are CPython's `MAKE_FUNCTION` oparg bits (0x01 defaults, 0x02 kwdefaults,
    /// 0x04 annotations, 0x08 closure, 0x10 annotate (3.14)); `qualname` is on the
    /// stack before 3.11. 3.13+ `SET_FUNCTION_ATTRIBUTE` sets them afterwards instead.
    MakeFunction {
        /// Attribute bits popped with the code object.
        flags: u32,
        /// Whether the qualified name is on the stack (before 3.11).
        qualname: bool,
    },
    /// `(attr, func -- func)` 3.13+ `SET_FUNCTION_ATTRIBUTE` with one flag bit.
    SetFunctionAttribute(u32),
    /// `(value -- value')` 3.13+ `CONVERT_VALUE`: 1 `str`, 2 `repr`, 3 `ascii`.
    ConvertValue(u32),
    /// `(value[, spec] -- str)` an f-string replacement field; `conversion` as in
    /// [`Op::ConvertValue`] (0: none).
    FormatValue {
        /// 0 none, 1 `!s`, 2 `!r`, 3 `!a`.
        conversion: u32,
        /// Whether a format spec is on top.
        with_spec: bool,
    },
    /// `(pieces * n -- str)` the parts of an f-string.
    BuildString(u32),
    /// `(value, expression_text[, spec] -- interpolation)` 3.14+ `BUILD_INTERPOLATION`,
    /// one interpolation of a template string (CPython 3.14 `Python/bytecodes.c`:
    /// conversion `oparg >> 2`, a spec when `oparg & 1`).
    BuildInterpolation {
        /// 0 none, 1 `!s`, 2 `!r`, 3 `!a`.
        conversion: u32,
        /// Whether a format spec is on top.
        with_spec: bool,
    },
    /// `(strings, interpolations -- template)` 3.14+ `BUILD_TEMPLATE`: a template
    /// string from the tuple of its literal pieces and the tuple of its interpolations.
    BuildTemplate,
    /// `(list/set/dict, unused * (i-1), item -- ...)` comprehension and literal
    /// building: `set.add`, `set.update`, `dict.update` (`DICT_MERGE` raises on
    /// duplicate keys: `merge`).
    SetAdd(u32),
    /// See [`Op::SetAdd`].
    SetUpdate(u32),
    /// See [`Op::SetAdd`]; `merge` for `DICT_MERGE` (`f(**a, **b)`).
    DictUpdate(u32, bool),
    /// `(dict, unused * (i-1), key, value -- dict, unused * (i-1))`.
    MapAdd(u32),
    /// `(seq -- items * (before + 1 + after))` starred unpacking.
    UnpackEx(u32, u32),
    /// `(level, fromlist -- module)` `import co_names[i]`.
    ImportName(usize),
    /// `(level, fromlist -- module)` 3.15+ `lazy import co_names[i]` (PEP 810:
    /// `IMPORT_NAME` with the lazy flag).
    LazyImportName(usize),
    /// `(module -- module, attr)` `from ... import co_names[i]`.
    ImportFrom(usize),
    /// `(module -- )` `from module import *`.
    ImportStar,
    /// `( -- builtins.__build_class__)`.
    LoadBuildClass,
    /// `( -- AssertionError)`.
    LoadAssertionError,
    /// `(global_super, class, self -- attr)` 3.12+ `LOAD_SUPER_ATTR` (zero-argument
    /// `super().name`, or `super(class, self).name` when `two_args`), `method` when
    /// used as a method load (pushes NULL as well, in the version's call layout).
    /// CPython 3.12 `Python/compile.c` `can_optimize_super_call`.
    LoadSuperAttr {
        /// `co_names` index.
        name: usize,
        /// Loaded as a method.
        method: Option<CallLayout>,
        /// Oparg bit 2: the two operands were written as `super(class, self)`.
        two_args: bool,
    },
    /// `( -- )` `__annotations__ = {}` in module and class bodies.
    SetupAnnotations,
    /// `( -- locals)` `locals()` of a class body (3.12+ `LOAD_LOCALS`).
    LoadLocals,
    /// `(mapping -- value)` 3.12+ `LOAD_FROM_DICT_OR_DEREF` / `LOAD_FROM_DICT_OR_GLOBALS`
    /// in class bodies: the name is looked up in the mapping first.
    LoadFromDictOr(usize, bool),
    /// `(value -- )` return from the function.
    Return,
    /// `( -- )` unconditional jump.
    Jump(u32),
    /// `(cond -- )` jump if `bool(cond) == when`.
    JumpIf {
        /// Jump when the condition is this truth value.
        when: bool,
        /// Target byte offset.
        target: u32,
    },
    /// `(value -- )` jump if `(value is None) == when`.
    JumpIfNone {
        /// Jump when `value is None` has this truth value.
        when: bool,
        /// Target byte offset.
        target: u32,
    },
    /// `([exc[, cause]] -- )` `raise`, `raise exc`, `raise exc from cause` (n = 0, 1, 2).
    Raise(u32),
    /// `(value -- value)` 3.11+ `COPY_FREE_VARS` / `MAKE_CELL` prologue: no stack
    /// effect, kept so that verification can see the frame set-up.
    FrameSetup,
    /// `(exc -- prev_exc, exc)` at the start of an exception handler: the exception
    /// being handled becomes the current one (3.11+ `PUSH_EXC_INFO`; for 3.9-3.10 the
    /// block-stack normalizer `normalize/pre311_exc.rs` puts one, of no instruction,
    /// at the start of every `try`/`with` handler).
    PushExcInfo,
    /// `(prev_exc -- )` restore the previous current exception (`POP_EXCEPT`).
    PopExcept,
    /// `(exc, type -- exc, matches)` `except type:` test (`CHECK_EXC_MATCH`).
    CheckExcMatch,
    /// `(exc -- )` re-raise the exception (`RERAISE`); ends control flow.
    Reraise,
    /// `(manager -- exit, enter_result)` enter a `with` block (`BEFORE_WITH`).
    BeforeWith,
    /// `(manager -- exit, enter_result)` enter an `async with` block: 3.11+
    /// `BEFORE_ASYNC_WITH` and the `await` of `__aenter__()` after it. Its exits are
    /// [`Op::WithExit`] and [`Op::WithExceptStart`] with the `await` of `__aexit__()`
    /// folded in.
    BeforeAsyncWith,
    /// `(exit -- )` the normal exit of a `with` block: `exit(None, None, None)` and
    /// its result discarded.
    WithExit,
    /// `(exit, lasti, prev_exc, exc -- exit, lasti, prev_exc, exc, suppress)` the
    /// exceptional exit of a `with` block (`WITH_EXCEPT_START`).
    WithExceptStart,
    /// `(exc -- orig, raised_list, rest)` the start of an `except*` handler, right
    /// after [`Op::PushExcInfo`]: the exception group being handled, the list that
    /// collects what the clauses raise, and what no clause has matched yet (3.11
    /// `COPY 1; BUILD_LIST 0; SWAP 2`, 3.12+ `BUILD_LIST 0; COPY 2`; CPython 3.11
    /// `Python/compile.c` `compiler_try_star_except`). A `LIST_APPEND` onto that list
    /// (of a clause's raised exception or of the unmatched rest) is kept as
    /// [`Op::ListAppend`].
    ExcStarSetup,
    /// `(rest, type -- rest', match)` an `except* type` test: `CHECK_EG_MATCH` splits
    /// `rest` into the part that matches (or `None`) and the part that does not; on
    /// the fall-through the match is pushed twice, `(rest, type -- rest', match,
    /// match)`, for the `COPY 1` folded in, which the `POP_JUMP_IF_NONE` after it
    /// tests (3.11+).
    CheckEgMatch,
    /// `(orig, raised_list -- )` the end of an `except*` handler: `PREP_RERAISE_STAR`
    /// (3.12+ `CALL_INTRINSIC_2 INTRINSIC_PREP_RERAISE_STAR`) and the test of its
    /// result (`COPY 1; POP_JUMP_IF_NOT_NONE L; POP_TOP`) folded in: when something is
    /// left to raise, `L` (`SWAP 2; POP_EXCEPT; RERAISE 0`) raises it, which the
    /// source's `try`/`except*` statement does by itself, so that path is left out.
    ExcStarEnd,
    /// `(value -- sent)` `yield value` (`YIELD_VALUE` and the `RESUME` after it).
    Yield,
    /// `(iterable -- result)` `yield from iterable` (the `SEND` loop).
    YieldFrom,
    /// `(awaitable -- result)` `await awaitable` (`GET_AWAITABLE` and its `SEND` loop).
    Await,
    /// `(value -- result)` 3.12+ `CALL_INTRINSIC_1` of the PEP 695 intrinsics that
    /// have a source form: `INTRINSIC_TYPEVAR`, `INTRINSIC_PARAMSPEC`,
    /// `INTRINSIC_TYPEVARTUPLE` (`(name -- typevar)`), `INTRINSIC_TYPEALIAS`
    /// (`((name, params, value_function) -- alias)`) and `INTRINSIC_SUBSCRIPT_GENERIC`
    /// (`(params -- Generic[*params])`, the implicit base of a generic class), by
    /// CPython's name (CPython 3.12 `Python/intrinsics.c`).
    Intrinsic1(&'static str),
    /// `(arg1, arg2 -- result)` 3.12+ `CALL_INTRINSIC_2` of
    /// `INTRINSIC_SET_FUNCTION_TYPE_PARAMS` `(func, params -- func)` and
    /// `INTRINSIC_TYPEVAR_WITH_BOUND` / `INTRINSIC_TYPEVAR_WITH_CONSTRAINTS`
    /// `(name, lazy_value_function -- typevar)`, by CPython's name.
    Intrinsic2(&'static str),
    /// `(iterator -- result)` a whole inlined comprehension (PEP 709, CPython 3.12+)
    /// over the iterator below it: never made by a normalizer; the decompiler puts it
    /// in place of the comprehension's instructions, from the hidden-local save
    /// (`LOAD_FAST_AND_CLEAR`) to their restore, and `usize` indexes the expressions
    /// it recovered from them.
    InlinedComp(usize),
}

// Equality as `#[derive(PartialEq)]` would write it (same variant, equal fields), with
// the variant test inlined at every `op == Op::Nop` of the decompiler (most compare
// different variants and need no call); the fields are compared out of line.
impl PartialEq for Op {
    #[inline]
    fn eq(&self, other: &Op) -> bool {
        std::mem::discriminant(self) == std::mem::discriminant(other) && self.same_fields(other)
    }
}

impl Op {
    /// Whether `other` is the same variant with equal fields (every variant is
    /// listed: a new one must say how its fields compare).
    #[inline(never)]
    fn same_fields(&self, other: &Op) -> bool {
        match self {
            Op::Nop => matches!(other, Op::Nop),
            Op::LoadConst(a0) => matches!(other, Op::LoadConst(b0) if a0 == b0),
            Op::LoadSmallInt(a0) => matches!(other, Op::LoadSmallInt(b0) if a0 == b0),
            Op::LoadCommonConstant(a0) => matches!(other, Op::LoadCommonConstant(b0) if a0 == b0),
            Op::LoadFast(a0) => matches!(other, Op::LoadFast(b0) if a0 == b0),
            Op::StoreFast(a0) => matches!(other, Op::StoreFast(b0) if a0 == b0),
            Op::DeleteFast(a0) => matches!(other, Op::DeleteFast(b0) if a0 == b0),
            Op::LoadDeref(a0) => matches!(other, Op::LoadDeref(b0) if a0 == b0),
            Op::StoreDeref(a0) => matches!(other, Op::StoreDeref(b0) if a0 == b0),
            Op::DeleteDeref(a0) => matches!(other, Op::DeleteDeref(b0) if a0 == b0),
            Op::LoadClosure(a0) => matches!(other, Op::LoadClosure(b0) if a0 == b0),
            Op::LoadGlobal(a0) => matches!(other, Op::LoadGlobal(b0) if a0 == b0),
            Op::StoreGlobal(a0) => matches!(other, Op::StoreGlobal(b0) if a0 == b0),
            Op::DeleteGlobal(a0) => matches!(other, Op::DeleteGlobal(b0) if a0 == b0),
            Op::LoadName(a0) => matches!(other, Op::LoadName(b0) if a0 == b0),
            Op::StoreName(a0) => matches!(other, Op::StoreName(b0) if a0 == b0),
            Op::DeleteName(a0) => matches!(other, Op::DeleteName(b0) if a0 == b0),
            Op::LoadAttr(a0) => matches!(other, Op::LoadAttr(b0) if a0 == b0),
            Op::StoreAttr(a0) => matches!(other, Op::StoreAttr(b0) if a0 == b0),
            Op::DeleteAttr(a0) => matches!(other, Op::DeleteAttr(b0) if a0 == b0),
            Op::LoadMethod(a0, a1) => matches!(other, Op::LoadMethod(b0, b1) if a0 == b0 && a1 == b1),
            Op::PushNull => matches!(other, Op::PushNull),
            Op::PopTop => matches!(other, Op::PopTop),
            Op::Copy(a0) => matches!(other, Op::Copy(b0) if a0 == b0),
            Op::Swap(a0) => matches!(other, Op::Swap(b0) if a0 == b0),
            Op::Rot(a0) => matches!(other, Op::Rot(b0) if a0 == b0),
            Op::Unary(a0) => matches!(other, Op::Unary(b0) if a0 == b0),
            Op::Binary(a0, a1) => matches!(other, Op::Binary(b0, b1) if a0 == b0 && a1 == b1),
            Op::Compare(a0) => matches!(other, Op::Compare(b0) if a0 == b0),
            Op::BinarySubscr => matches!(other, Op::BinarySubscr),
            Op::StoreSubscr => matches!(other, Op::StoreSubscr),
            Op::DeleteSubscr => matches!(other, Op::DeleteSubscr),
            Op::BuildSlice(a0) => matches!(other, Op::BuildSlice(b0) if a0 == b0),
            Op::BuildTuple(a0) => matches!(other, Op::BuildTuple(b0) if a0 == b0),
            Op::BuildList(a0) => matches!(other, Op::BuildList(b0) if a0 == b0),
            Op::BuildSet(a0) => matches!(other, Op::BuildSet(b0) if a0 == b0),
            Op::BuildMap(a0) => matches!(other, Op::BuildMap(b0) if a0 == b0),
            Op::BuildConstKeyMap(a0) => matches!(other, Op::BuildConstKeyMap(b0) if a0 == b0),
            Op::ListExtend(a0) => matches!(other, Op::ListExtend(b0) if a0 == b0),
            Op::ListAppend(a0) => matches!(other, Op::ListAppend(b0) if a0 == b0),
            Op::ListToTuple => matches!(other, Op::ListToTuple),
            Op::UnpackSequence(a0) => matches!(other, Op::UnpackSequence(b0) if a0 == b0),
            Op::Call { argc: a_argc, kwnames: a_kwnames, layout: a_layout } => matches!(other, Op::Call { argc: b_argc, kwnames: b_kwnames, layout: b_layout } if a_argc == b_argc && a_kwnames == b_kwnames && a_layout == b_layout),
            Op::CallEx { has_kwargs: a_has_kwargs, layout: a_layout } => matches!(other, Op::CallEx { has_kwargs: b_has_kwargs, layout: b_layout } if a_has_kwargs == b_has_kwargs && a_layout == b_layout),
            Op::GetIter => matches!(other, Op::GetIter),
            Op::ForIter(a0) => matches!(other, Op::ForIter(b0) if a0 == b0),
            Op::GetAIter => matches!(other, Op::GetAIter),
            Op::MatchSequence => matches!(other, Op::MatchSequence),
            Op::MatchMapping => matches!(other, Op::MatchMapping),
            Op::MatchKeys => matches!(other, Op::MatchKeys),
            Op::MatchClass(a0) => matches!(other, Op::MatchClass(b0) if a0 == b0),
            Op::GetLen => matches!(other, Op::GetLen),
            Op::CopyDictWithoutKeys => matches!(other, Op::CopyDictWithoutKeys),
            Op::MatchCase { id: a_id, copy: a_copy } => matches!(other, Op::MatchCase { id: b_id, copy: b_copy } if a_id == b_id && a_copy == b_copy),
            Op::JumpIfOrPop { when: a_when, target: a_target } => matches!(other, Op::JumpIfOrPop { when: b_when, target: b_target } if a_when == b_when && a_target == b_target),
            Op::MakeFunction { flags: a_flags, qualname: a_qualname } => matches!(other, Op::MakeFunction { flags: b_flags, qualname: b_qualname } if a_flags == b_flags && a_qualname == b_qualname),
            Op::SetFunctionAttribute(a0) => matches!(other, Op::SetFunctionAttribute(b0) if a0 == b0),
            Op::ConvertValue(a0) => matches!(other, Op::ConvertValue(b0) if a0 == b0),
            Op::FormatValue { conversion: a_conversion, with_spec: a_with_spec } => matches!(other, Op::FormatValue { conversion: b_conversion, with_spec: b_with_spec } if a_conversion == b_conversion && a_with_spec == b_with_spec),
            Op::BuildString(a0) => matches!(other, Op::BuildString(b0) if a0 == b0),
            Op::BuildInterpolation { conversion: a_conversion, with_spec: a_with_spec } => matches!(other, Op::BuildInterpolation { conversion: b_conversion, with_spec: b_with_spec } if a_conversion == b_conversion && a_with_spec == b_with_spec),
            Op::BuildTemplate => matches!(other, Op::BuildTemplate),
            Op::SetAdd(a0) => matches!(other, Op::SetAdd(b0) if a0 == b0),
            Op::SetUpdate(a0) => matches!(other, Op::SetUpdate(b0) if a0 == b0),
            Op::DictUpdate(a0, a1) => matches!(other, Op::DictUpdate(b0, b1) if a0 == b0 && a1 == b1),
            Op::MapAdd(a0) => matches!(other, Op::MapAdd(b0) if a0 == b0),
            Op::UnpackEx(a0, a1) => matches!(other, Op::UnpackEx(b0, b1) if a0 == b0 && a1 == b1),
            Op::ImportName(a0) => matches!(other, Op::ImportName(b0) if a0 == b0),
            Op::LazyImportName(a0) => matches!(other, Op::LazyImportName(b0) if a0 == b0),
            Op::ImportFrom(a0) => matches!(other, Op::ImportFrom(b0) if a0 == b0),
            Op::ImportStar => matches!(other, Op::ImportStar),
            Op::LoadBuildClass => matches!(other, Op::LoadBuildClass),
            Op::LoadAssertionError => matches!(other, Op::LoadAssertionError),
            Op::LoadSuperAttr { name: a_name, method: a_method, two_args: a_two_args } => matches!(other, Op::LoadSuperAttr { name: b_name, method: b_method, two_args: b_two_args } if a_name == b_name && a_method == b_method && a_two_args == b_two_args),
            Op::SetupAnnotations => matches!(other, Op::SetupAnnotations),
            Op::LoadLocals => matches!(other, Op::LoadLocals),
            Op::LoadFromDictOr(a0, a1) => matches!(other, Op::LoadFromDictOr(b0, b1) if a0 == b0 && a1 == b1),
            Op::Return => matches!(other, Op::Return),
            Op::Jump(a0) => matches!(other, Op::Jump(b0) if a0 == b0),
            Op::JumpIf { when: a_when, target: a_target } => matches!(other, Op::JumpIf { when: b_when, target: b_target } if a_when == b_when && a_target == b_target),
            Op::JumpIfNone { when: a_when, target: a_target } => matches!(other, Op::JumpIfNone { when: b_when, target: b_target } if a_when == b_when && a_target == b_target),
            Op::Raise(a0) => matches!(other, Op::Raise(b0) if a0 == b0),
            Op::FrameSetup => matches!(other, Op::FrameSetup),
            Op::PushExcInfo => matches!(other, Op::PushExcInfo),
            Op::PopExcept => matches!(other, Op::PopExcept),
            Op::CheckExcMatch => matches!(other, Op::CheckExcMatch),
            Op::Reraise => matches!(other, Op::Reraise),
            Op::BeforeWith => matches!(other, Op::BeforeWith),
            Op::BeforeAsyncWith => matches!(other, Op::BeforeAsyncWith),
            Op::WithExit => matches!(other, Op::WithExit),
            Op::WithExceptStart => matches!(other, Op::WithExceptStart),
            Op::ExcStarSetup => matches!(other, Op::ExcStarSetup),
            Op::CheckEgMatch => matches!(other, Op::CheckEgMatch),
            Op::ExcStarEnd => matches!(other, Op::ExcStarEnd),
            Op::Yield => matches!(other, Op::Yield),
            Op::YieldFrom => matches!(other, Op::YieldFrom),
            Op::Await => matches!(other, Op::Await),
            Op::Intrinsic1(a0) => matches!(other, Op::Intrinsic1(b0) if a0 == b0),
            Op::Intrinsic2(a0) => matches!(other, Op::Intrinsic2(b0) if a0 == b0),
            Op::InlinedComp(a0) => matches!(other, Op::InlinedComp(b0) if a0 == b0),
        }
    }
}

impl Op {
    /// Items popped and pushed on the taken edge of a jump (`jump`) or on the
    /// fall-through; they differ only for [`Op::ForIter`] and [`Op::JumpIfOrPop`].
    pub fn stack_effect_on(&self, jump: bool) -> (u32, u32) {
        match (self, jump) {
            (Op::ForIter(_), true) => (1, 0),
            (Op::JumpIfOrPop { .. }, true) => (1, 1),
            _ => self.stack_effect(),
        }
    }

    /// Items popped and pushed: `(pops, pushes)`, on the fall-through edge.
    pub fn stack_effect(&self) -> (u32, u32) {
        use Op::*;
        match *self {
            Nop | DeleteFast(_) | DeleteDeref(_) | DeleteGlobal(_) | DeleteName(_) | Jump(_) | FrameSetup => (0, 0),
            LoadConst(_) | LoadSmallInt(_) | LoadCommonConstant(_) | LoadFast(_) | LoadDeref(_) | LoadClosure(_) | LoadGlobal(_) | LoadName(_) | PushNull => (0, 1),
            StoreFast(_) | StoreDeref(_) | StoreGlobal(_) | StoreName(_) | PopTop | Return | DeleteAttr(_) => (1, 0),
            JumpIf { .. } | JumpIfNone { .. } => (1, 0),
            LoadAttr(_) | Unary(_) | ListToTuple => (1, 1),
            StoreAttr(_) | DeleteSubscr => (2, 0),
            LoadMethod(..) => (1, 2),
            GetIter | GetAIter | InlinedComp(_) | ConvertValue(_) | LoadFromDictOr(..) | Intrinsic1(_) => (1, 1),
            Intrinsic2(_) => (2, 1),
            MatchSequence | MatchMapping | GetLen => (1, 2),
            CopyDictWithoutKeys => (2, 2),
            MatchKeys => (2, 3),
            MatchClass(_) => (3, 1),
            MatchCase { copy, .. } => (1, 1 + u32::from(copy)),
            ForIter(_) => (1, 2),
            JumpIfOrPop { .. } => (1, 0),
            MakeFunction { flags, qualname } => (1 + u32::from(qualname) + (flags & 0x1f).count_ones(), 1),
            SetFunctionAttribute(_) => (2, 1),
            FormatValue { with_spec, .. } => (1 + u32::from(with_spec), 1),
            BuildString(n) => (n, 1),
            BuildInterpolation { with_spec, .. } => (2 + u32::from(with_spec), 1),
            BuildTemplate => (2, 1),
            SetAdd(i) | SetUpdate(i) | DictUpdate(i, _) => (i + 1, i),
            MapAdd(i) => (i + 2, i),
            UnpackEx(before, after) => (1, before + after + 1),
            ImportName(_) | LazyImportName(_) => (2, 1),
            ImportFrom(_) => (1, 2),
            ImportStar => (1, 0),
            LoadBuildClass | LoadAssertionError | LoadLocals => (0, 1),
            LoadSuperAttr { method: None, .. } => (3, 1),
            LoadSuperAttr { method: Some(_), .. } => (3, 2),
            SetupAnnotations => (0, 0),
            Copy(n) => (n, n + 1),
            Swap(n) | Rot(n) => (n, n),
            Binary(..) | Compare(_) | BinarySubscr => (2, 1),
            StoreSubscr => (3, 0),
            BuildSlice(n) | BuildTuple(n) | BuildList(n) | BuildSet(n) => (n, 1),
            BuildMap(n) => (2 * n, 1),
            BuildConstKeyMap(n) => (n + 1, 1),
            ListExtend(i) | ListAppend(i) => (i + 1, i),
            UnpackSequence(n) => (1, n),
            Call { argc, layout, .. } => (argc + 1 + u32::from(layout != CallLayout::NoNull), 1),
            CallEx { has_kwargs, layout } => (2 + u32::from(has_kwargs) + u32::from(layout != CallLayout::NoNull), 1),
            Raise(n) => (n, 0),
            PushExcInfo | BeforeWith | BeforeAsyncWith => (1, 2),
            PopExcept | Reraise | WithExit => (1, 0),
            CheckExcMatch => (2, 2),
            ExcStarSetup => (1, 3),
            CheckEgMatch => (2, 3),
            ExcStarEnd => (2, 0),
            WithExceptStart => (0, 1),
            Yield | YieldFrom | Await => (1, 1),
        }
    }

    /// The jump target of a jump, as a byte offset.
    pub fn jump_target(&self) -> Option<u32> {
        match *self {
            Op::Jump(t)
            | Op::JumpIf { target: t, .. }
            | Op::JumpIfNone { target: t, .. }
            | Op::JumpIfOrPop { target: t, .. }
            | Op::ForIter(t) => Some(t),
            _ => None,
        }
    }

    /// Whether control never falls through to the next instruction.
    pub fn is_terminator(&self) -> bool {
        matches!(self, Op::Jump(_) | Op::Return | Op::Raise(_) | Op::Reraise)
    }

    /// Whether this pushes a constant written as a literal, which runs no code:
    /// `LOAD_CONST`, 3.14+ `LOAD_SMALL_INT`, and 3.15's `LOAD_COMMON_CONSTANT` of
    /// `None`, `True`, `False`, `''` or `-1` (not of a builtin such as `list`).
    pub fn is_literal_load(&self) -> bool {
        matches!(self, Op::LoadConst(_) | Op::LoadSmallInt(_) | Op::LoadCommonConstant("None" | "True" | "False" | "''" | "-1"))
    }
}
