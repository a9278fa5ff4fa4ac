//! The normalized operations and their stack effects, in `bytecodes.c` notation
//! `(inputs -- outputs)`, top of stack last.

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
#[derive(Clone, Debug, PartialEq, Eq, Hash)]
pub enum Op {
    /// `( -- )` no effect (NOP, RESUME, PRECALL, CACHE, line markers).
    Nop,
    /// `( -- value)` push `co_consts[i]`.
    LoadConst(usize),
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
    /// `(obj -- NULL, bound)` a method load (3.11 `LOAD_METHOD`, 3.12 `LOAD_ATTR` with
    /// the low bit): normalized to a NULL marker and the bound attribute.
    LoadMethod(usize),
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
    },
    /// `(null, callable, args[, kwargs] -- result)` `callable(*args, **kwargs)`.
    CallEx {
        /// Whether a kwargs mapping is on top.
        has_kwargs: bool,
    },
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
}

impl Op {
    /// Items popped and pushed: `(pops, pushes)`. For jumps the effect is the same
    /// on both edges for every op here.
    pub fn stack_effect(&self) -> (u32, u32) {
        use Op::*;
        match *self {
            Nop | DeleteFast(_) | DeleteDeref(_) | DeleteGlobal(_) | DeleteName(_) | Jump(_) | FrameSetup => (0, 0),
            LoadConst(_) | LoadFast(_) | LoadDeref(_) | LoadClosure(_) | LoadGlobal(_) | LoadName(_) | PushNull => (0, 1),
            StoreFast(_) | StoreDeref(_) | StoreGlobal(_) | StoreName(_) | PopTop | Return | DeleteAttr(_) => (1, 0),
            JumpIf { .. } | JumpIfNone { .. } => (1, 0),
            LoadAttr(_) | Unary(_) | ListToTuple => (1, 1),
            StoreAttr(_) | DeleteSubscr => (2, 0),
            LoadMethod(_) => (1, 2),
            Copy(n) => (n, n + 1),
            Swap(n) | Rot(n) => (n, n),
            Binary(..) | Compare(_) | BinarySubscr => (2, 1),
            StoreSubscr => (3, 0),
            BuildSlice(n) | BuildTuple(n) | BuildList(n) | BuildSet(n) => (n, 1),
            BuildMap(n) => (2 * n, 1),
            BuildConstKeyMap(n) => (n + 1, 1),
            ListExtend(i) | ListAppend(i) => (i + 1, i),
            UnpackSequence(n) => (1, n),
            Call { argc, .. } => (argc + 2, 1),
            CallEx { has_kwargs } => (3 + u32::from(has_kwargs), 1),
            Raise(n) => (n, 0),
        }
    }

    /// The jump target of a jump, as a byte offset.
    pub fn jump_target(&self) -> Option<u32> {
        match *self {
            Op::Jump(t) | Op::JumpIf { target: t, .. } | Op::JumpIfNone { target: t, .. } => Some(t),
            _ => None,
        }
    }

    /// Whether control never falls through to the next instruction.
    pub fn is_terminator(&self) -> bool {
        matches!(self, Op::Jump(_) | Op::Return | Op::Raise(_))
    }
}
