//! `match` statements (CPython 3.10-3.15).
//!
//! CPython compiles each `case` into: `COPY 1` of the subject (all cases but the last
//! one that tests it), the pattern's tests, each jumping on failure to a chain of
//! `POP_TOP`s that clears what the pattern left on the stack and falls into the next
//! case, the stores of the captured names, `POP_TOP` of the subject (after a copy),
//! the guard (jumping to the next case too) and the body (CPython 3.11-3.13
//! `Python/compile.c`, `compiler_match_inner` / `compiler_pattern_*`; 3.14
//! `Python/codegen.c`).
//!
//! [`rewrite`] runs on the normalized ops before the CFG is built: it reads each
//! case's pattern code by interpreting its ops on a small symbolic stack of pattern
//! nodes (so that the order of rotations and stores is taken from the code, not
//! assumed), following every path: a failed test clears exactly what is on the stack
//! and reaches either the next case or, for an or-pattern, the next alternative
//! (`COPY 1` of the or-pattern's subject, CPython `compiler_pattern_or`). The nodes of
//! the paths that succeed are merged by identity (the op that made them), so that the
//! copies of one node are the alternatives of `|` or the sub-pattern of `as`. The
//! pattern code is replaced by one [`Op::MatchCase`], a jump to that next case and,
//! where the success paths join after other code, a jump to the body. Recovery turns
//! it into the condition `__match__(subject, id)`, structuring into an `if`/`else`
//! chain, and [`fold`] turns that chain into a [`Stmt::Match`]. Shapes not understood
//! are left alone (and fail later on their `MATCH_*` op with a DecompilationError).
//!
//! Supported patterns: capture, wildcard, literal and value patterns inside others,
//! `None`/`True`/`False`, sequences (with `*name` or `*_`), mappings (with `**rest`),
//! class patterns with positional and keyword sub-patterns, `as`, or-patterns (with
//! captures, nested); at the top of a case also literal, value and `None` patterns
//! (on a copy of the subject) and a last `case x:`. Not yet: value keys
//! (`{Color.RED: x}`), a top-level literal in the last tested case among other
//! patterns. A match of literal cases alone prints as `if` tests (the same code).

use depyf_bytecode::{CodeObject, Constant};
use depyf_ir::{CmpOp, IrInstr, Op};
use depyf_source::{Expr, MatchCase, Pattern, Stmt};

/// The name of the marker call `__match__(subject, id)` left by recovery.
pub(crate) const MATCH_MARK: &str = "__match__";

/// One recognized `case` pattern.
#[derive(Clone, Debug)]
pub(crate) struct CasePattern {
    pub pattern: Pattern,
    /// Whether the case works on a copy of the subject (not the last tested case).
    pub copy: bool,
    /// Whether its failure lands on a `NOP`: the line of a `case _:` that follows
    /// (CPython compiles a trailing `case _:` to a `NOP` and its body).
    pub default_next: bool,
}

/// A node's identity, the same on every path through the pattern code: the index of
/// the op that made it and its position among that op's results.
type Key = (usize, usize);

#[derive(Clone, Debug, PartialEq)]
enum Kind {
    Unknown,
    Seq { items: Vec<usize>, star: Option<usize>, len: Option<(bool, usize)>, tested: bool, subs: Vec<(i64, usize)> },
    /// `deleted`: the keys removed from the copy that makes `**rest` (all of `keys`,
    /// in order, when `rest` is captured).
    Map { keys: Vec<Expr>, vals: Vec<usize>, len: Option<usize>, tested: bool, rest: Option<String>, deleted: Vec<Expr>, copied: bool },
    Class { cls: Expr, npos: usize, names: Vec<String>, items: Vec<usize> },
    Value(Expr),
    Singleton(Expr),
}

#[derive(Clone, Debug, PartialEq)]
struct Node {
    kind: Kind,
    capture: Option<String>,
    /// The node this one is a `COPY 1` of (the sub-pattern of an `as` pattern, or one
    /// alternative of an or-pattern).
    copy_of: Option<usize>,
    /// Creation order on its path.
    order: usize,
    /// Made by an or-alternative that failed on this path.
    failed: bool,
    key: Key,
}

#[derive(Clone, Debug, PartialEq)]
enum V {
    Node(usize),
    Test,
    Len(usize),
    Const(Constant),
    Val(Expr),
    Attrs(usize),
    Values(usize),
    /// `len(node) - k`: the index of an item after a `*_`.
    FromEnd(usize, i64),
    /// A fresh empty dict (`BUILD_MAP 0` of `**rest`).
    NewDict,
    /// The `**rest` dict of a mapping node.
    Rest(usize),
}

/// A state queued at the start of an or-alternative, for the dedupe in `read_case`:
/// its op, its stack and its nodes not failed.
type QueuedState = (usize, Vec<V>, Vec<(usize, Node)>);

/// The symbolic state of one path through a case's pattern code.
#[derive(Clone)]
struct Sim<'a> {
    code: &'a CodeObject,
    keys: &'a std::cell::RefCell<std::collections::HashMap<Key, usize>>,
    nodes: std::collections::BTreeMap<usize, Node>,
    stack: Vec<V>,
    /// A name was stored on this path (no test may follow).
    stored: bool,
    /// Tests whose failure jumps were taken or followed.
    fails: usize,
    /// Nodes made on this path so far.
    made: usize,
}

impl Sim<'_> {
    fn new_node(&mut self, key: Key, copy_of: Option<usize>) -> Option<usize> {
        let id = {
            let mut keys = self.keys.borrow_mut();
            let next = keys.len();
            *keys.entry(key).or_insert(next)
        };
        let order = self.made;
        self.made += 1;
        if self.nodes.insert(id, Node { kind: Kind::Unknown, capture: None, copy_of, order, failed: false, key }).is_some() {
            return None;
        }
        Some(id)
    }

    fn node(&mut self, n: usize) -> &mut Node {
        self.nodes.get_mut(&n).expect("a node of this path")
    }

    fn pop(&mut self) -> Option<V> {
        self.stack.pop()
    }

    fn pop_node(&mut self) -> Option<usize> {
        match self.stack.pop()? {
            V::Node(n) => Some(n),
            _ => None,
        }
    }

    fn local(&self, i: usize) -> Option<String> {
        self.code.co_localsplusnames.get(i).map(|n| n.to_string())
    }

    fn name(&self, i: usize) -> Option<String> {
        self.code.co_names.get(i).map(|n| n.to_string())
    }

    /// Interprets the op at index `k` (not a jump); `None` when it is not part of a
    /// known pattern shape.
    fn step(&mut self, k: usize, op: &Op) -> Option<()> {
        let v310 = self.code.version.minor == 10;
        match *op {
            Op::Nop => {}
            Op::Copy(1) => match self.stack.last()?.clone() {
                V::Test | V::Len(_) | V::FromEnd(..) | V::NewDict => return None,
                V::Node(n) => {
                    let m = self.new_node((k, 0), Some(n))?;
                    self.stack.push(V::Node(m));
                }
                top => self.stack.push(top),
            },
            // Copies of the `**rest` dict to delete the keys from.
            Op::Copy(n) => {
                let n = n as usize;
                let v = self.stack.len().checked_sub(n).map(|i| self.stack[i].clone())?;
                let V::Rest(_) = v else { return None };
                self.stack.push(v);
            }
            Op::Swap(n) => {
                let n = n as usize;
                let len = self.stack.len();
                if n < 2 || n > len {
                    return None;
                }
                self.stack.swap(len - 1, len - n);
            }
            // 3.10's `ROT_THREE`/`ROT_FOUR`/`ROT_N`: the top moves down to position `n`.
            Op::Rot(n) => {
                let n = n as usize;
                let len = self.stack.len();
                if n < 2 || n > len {
                    return None;
                }
                let top = self.stack.pop()?;
                self.stack.insert(len - n, top);
            }
            Op::MatchSequence | Op::MatchMapping => {
                let V::Node(n) = *self.stack.last()? else { return None };
                let node = self.node(n);
                match (&node.kind, op) {
                    (Kind::Unknown, Op::MatchSequence) => node.kind = Kind::Seq { items: Vec::new(), star: None, len: None, tested: true, subs: Vec::new() },
                    (Kind::Unknown, _) => node.kind = Kind::Map { keys: Vec::new(), vals: Vec::new(), len: None, tested: true, rest: None, deleted: Vec::new(), copied: false },
                    _ => return None,
                }
                self.stack.push(V::Test);
            }
            Op::GetLen => {
                let V::Node(n) = *self.stack.last()? else { return None };
                self.stack.push(V::Len(n));
            }
            Op::LoadConst(i) => self.stack.push(V::Const(self.code.co_consts.get(i)?.clone())),
            Op::LoadSmallInt(v) => self.stack.push(V::Const(Constant::Int(i64::from(v)))),
            // 3.15's constants outside `co_consts`.
            Op::LoadCommonConstant(c) => self.stack.push(V::Const(match c {
                "None" => Constant::None,
                "True" => Constant::Bool(true),
                "False" => Constant::Bool(false),
                "''" => Constant::Str("".into()),
                "-1" => Constant::Int(-1),
                _ => return None,
            })),
            Op::LoadGlobal(i) | Op::LoadName(i) => {
                let n = self.name(i)?;
                self.stack.push(V::Val(Expr::Name(n.into())));
            }
            Op::LoadFast(i) | Op::LoadDeref(i) => {
                let n = self.local(i)?;
                self.stack.push(V::Val(Expr::Name(n.into())));
            }
            Op::LoadAttr(i) => {
                let V::Val(e) = self.pop()? else { return None };
                let a = self.name(i)?;
                self.stack.push(V::Val(Expr::Attribute(Box::new(e), a.into())));
            }
            Op::Compare(cmp) => {
                let right = self.pop()?;
                let left = self.pop()?;
                match (left, right, cmp) {
                    (V::Len(n), V::Const(Constant::Int(k)), CmpOp::Eq | CmpOp::Ge) => {
                        let k = usize::try_from(k).ok()?;
                        let exact = cmp == CmpOp::Eq;
                        match &mut self.node(n).kind {
                            Kind::Seq { len, .. } if len.is_none() => *len = Some((exact, k)),
                            Kind::Map { len, .. } if len.is_none() && !exact => *len = Some(k),
                            _ => return None,
                        }
                    }
                    (V::Node(n), V::Const(c), CmpOp::Eq) if !matches!(c, Constant::Tuple(_) | Constant::FrozenSet(_) | Constant::Code(_) | Constant::Slice(_) | Constant::Opaque { .. }) => {
                        self.set_kind(n, Kind::Value(Expr::Const(c)))?;
                    }
                    (V::Node(n), V::Val(e @ Expr::Attribute(..)), CmpOp::Eq) => self.set_kind(n, Kind::Value(e))?,
                    (V::Node(n), V::Const(c @ (Constant::None | Constant::Bool(_))), CmpOp::Is) => {
                        self.set_kind(n, Kind::Singleton(Expr::Const(c)))?;
                    }
                    _ => return None,
                }
                self.stack.push(V::Test);
            }
            // Items of a sequence with `*_` are read by index (`len(s) - k` after it).
            Op::Binary(depyf_ir::BinOp::Sub, false) => {
                let V::Const(Constant::Int(k)) = self.pop()? else { return None };
                let V::Len(n) = self.pop()? else { return None };
                if k <= 0 {
                    return None;
                }
                self.stack.push(V::FromEnd(n, k));
            }
            // 3.10 reads the attributes of a class pattern and the values of a mapping
            // pattern by index from (a copy of) their tuple.
            Op::BinarySubscr if matches!(self.stack.len().checked_sub(2).map(|i| &self.stack[i]), Some(V::Attrs(_) | V::Values(_))) => {
                let V::Const(Constant::Int(i)) = self.pop()? else { return None };
                let i = usize::try_from(i).ok()?;
                let child = self.new_node((k, 0), None)?;
                let slots = match self.pop()? {
                    V::Attrs(n) => match &mut self.node(n).kind {
                        Kind::Class { npos, names, items, .. } => {
                            let count = *npos + names.len();
                            (count, items)
                        }
                        _ => return None,
                    },
                    V::Values(n) => match &mut self.node(n).kind {
                        Kind::Map { keys, vals, .. } => (keys.len(), vals),
                        _ => return None,
                    },
                    _ => return None,
                };
                let (count, items) = slots;
                if items.is_empty() {
                    *items = vec![usize::MAX; count];
                }
                if items.get(i) != Some(&usize::MAX) {
                    return None;
                }
                items[i] = child;
                self.stack.push(V::Node(child));
            }
            Op::BinarySubscr => {
                let idx = self.pop()?;
                let read = self.pop_node()?;
                // The item is read from a `COPY 1` of the sequence, dropped here.
                let node = self.nodes.get(&read)?;
                let n = match node.copy_of {
                    Some(n) if node.kind == Kind::Unknown && node.capture.is_none() => n,
                    _ => return None,
                };
                if self.nodes.values().any(|x| x.copy_of == Some(read)) {
                    return None;
                }
                self.nodes.remove(&read);
                let at = match idx {
                    V::Const(Constant::Int(i)) if i >= 0 => i,
                    V::FromEnd(m, k) if m == n || m == read => -k,
                    _ => return None,
                };
                let child = self.new_node((k, 0), None)?;
                match &mut self.node(n).kind {
                    Kind::Seq { items, star: None, len: Some((false, _)), subs, .. } if items.is_empty() && !subs.iter().any(|(i, _)| *i == at) => subs.push((at, child)),
                    _ => return None,
                }
                self.stack.push(V::Node(child));
            }
            Op::MatchClass(npos) => {
                let V::Const(Constant::Tuple(names)) = self.pop()? else { return None };
                let V::Val(cls) = self.pop()? else { return None };
                let n = self.pop_node()?;
                let names = names
                    .into_iter()
                    .map(|c| match c {
                        // An attribute name no source can spell (hand-made code):
                        // not a pattern this reads.
                        Constant::Str(s) if crate::is_identifier(&s) => Some(String::from(&*s)),
                        _ => None,
                    })
                    .collect::<Option<Vec<String>>>()?;
                self.set_kind(n, Kind::Class { cls, npos: npos as usize, names, items: Vec::new() })?;
                self.stack.push(V::Attrs(n));
            }
            Op::MatchKeys => {
                let V::Const(Constant::Tuple(keys)) = self.stack.last()?.clone() else { return None };
                let V::Node(n) = self.stack[self.stack.len().checked_sub(2)?] else { return None };
                let Kind::Map { keys: k, .. } = &mut self.node(n).kind else { return None };
                if !k.is_empty() || keys.iter().any(|c| matches!(c, Constant::Tuple(_) | Constant::FrozenSet(_) | Constant::Code(_) | Constant::Slice(_) | Constant::Opaque { .. })) {
                    return None;
                }
                *k = keys.into_iter().map(Expr::Const).collect();
                self.stack.push(V::Values(n));
            }
            Op::UnpackSequence(c) => {
                let c = c as usize;
                let top = self.pop()?;
                // The keys tuple of a mapping, unpacked to delete them from `**rest`.
                if let V::Const(Constant::Tuple(items)) = top {
                    if items.len() != c {
                        return None;
                    }
                    self.stack.extend(items.into_iter().rev().map(V::Const));
                    return Some(());
                }
                let children: Vec<usize> = (0..c).map(|i| self.new_node((k, i), None)).collect::<Option<_>>()?;
                match top {
                    V::Node(n) => match &mut self.node(n).kind {
                        Kind::Seq { items, len: Some((true, l)), star: None, .. } if items.is_empty() && *l == c => *items = children.clone(),
                        _ => return None,
                    },
                    V::Attrs(n) => match &mut self.node(n).kind {
                        Kind::Class { npos, names, items, .. } if items.is_empty() && *npos + names.len() == c => *items = children.clone(),
                        _ => return None,
                    },
                    V::Values(n) => match &mut self.node(n).kind {
                        Kind::Map { keys, vals, .. } if vals.is_empty() && keys.len() == c => *vals = children.clone(),
                        _ => return None,
                    },
                    _ => return None,
                }
                self.stack.extend(children.iter().rev().map(|&x| V::Node(x)));
            }
            Op::UnpackEx(before, after) => {
                let (before, after) = (before as usize, after as usize);
                let children: Vec<usize> = (0..before + after + 1).map(|i| self.new_node((k, i), None)).collect::<Option<_>>()?;
                let n = self.pop_node()?;
                match &mut self.node(n).kind {
                    // (`[*x]` has no length test.)
                    Kind::Seq { items, len, star, .. } if items.is_empty() && star.is_none() && (*len == Some((false, before + after)) || len.is_none() && before + after == 0) => {
                        *items = children.clone();
                        *star = Some(before);
                    }
                    _ => return None,
                }
                self.stack.extend(children.iter().rev().map(|&x| V::Node(x)));
            }
            // `**rest`: `BUILD_MAP 0`, the subject moved above it, `DICT_UPDATE 2`.
            Op::BuildMap(0) => self.stack.push(V::NewDict),
            Op::DictUpdate(2, false) => {
                let n = self.pop_node()?;
                let at = self.stack.len().checked_sub(2)?;
                let V::NewDict = self.stack[at] else { return None };
                match &mut self.node(n).kind {
                    Kind::Map { copied, vals, keys, .. } if !*copied && vals.len() == keys.len() => *copied = true,
                    _ => return None,
                }
                self.stack[at] = V::Rest(n);
            }
            // 3.10's `**rest`: the keys tuple on top becomes the dict without them.
            Op::CopyDictWithoutKeys => {
                let V::Const(Constant::Tuple(keys)) = self.pop()? else { return None };
                let V::Node(n) = *self.stack.last()? else { return None };
                match &mut self.node(n).kind {
                    Kind::Map { keys: k, copied, deleted, .. } if !*copied && deleted.is_empty() && *k == keys.iter().cloned().map(Expr::Const).collect::<Vec<_>>() => {
                        *copied = true;
                        *deleted = k.clone();
                    }
                    _ => return None,
                }
                self.stack.push(V::Rest(n));
            }
            Op::DeleteSubscr => {
                let V::Const(key) = self.pop()? else { return None };
                let V::Rest(n) = self.pop()? else { return None };
                let Kind::Map { deleted, .. } = &mut self.node(n).kind else { return None };
                deleted.push(Expr::Const(key));
            }
            Op::PopTop => match self.pop()? {
                V::Test | V::Len(_) | V::FromEnd(..) | V::NewDict | V::Rest(_) => return None,
                // `Cls()`, `Cls(_, _)`, `{k: _}`: the attributes or values are dropped
                // unread (all wildcards).
                // (3.10: after the items read by index, the others are wildcards.)
                V::Attrs(n) => match &mut self.node(n).kind {
                    Kind::Class { npos, names, items, .. } if items.is_empty() => *items = (0..*npos + names.len()).map(|_| usize::MAX).collect(),
                    Kind::Class { .. } if v310 => {}
                    _ => return None,
                },
                V::Values(n) => match &mut self.node(n).kind {
                    Kind::Map { keys, vals, .. } if vals.is_empty() => *vals = keys.iter().map(|_| usize::MAX).collect(),
                    Kind::Map { .. } if v310 => {}
                    _ => return None,
                },
                _ => {}
            },
            Op::StoreFast(i) | Op::StoreDeref(i) => {
                let name = self.local(i)?;
                self.store(name)?;
            }
            Op::StoreName(i) | Op::StoreGlobal(i) => {
                let name = self.name(i)?;
                self.store(name)?;
            }
            _ => return None,
        }
        Some(())
    }

    /// A store of the top of the stack: a captured node or the `**rest` dict.
    fn store(&mut self, name: String) -> Option<()> {
        self.stored = true;
        match self.pop()? {
            V::Node(n) => {
                let node = self.node(n);
                if node.capture.is_some() {
                    return None;
                }
                node.capture = Some(name);
            }
            V::Rest(n) => match &mut self.node(n).kind {
                Kind::Map { rest: rest @ None, .. } => *rest = Some(name),
                _ => return None,
            },
            _ => return None,
        }
        Some(())
    }

    fn set_kind(&mut self, n: usize, kind: Kind) -> Option<()> {
        let node = self.node(n);
        if !matches!(node.kind, Kind::Unknown) {
            return None;
        }
        node.kind = kind;
        Some(())
    }

    /// An or-alternative failed and the next one starts: the nodes made since the
    /// latest copy of the or-pattern's subject (on top) belong to the failed one.
    fn fail_alternative(&mut self) -> Option<()> {
        let V::Node(top) = *self.stack.last()? else { return None };
        let from = self.nodes.values().filter(|x| x.copy_of == Some(top) && !x.failed).map(|x| x.order).max()?;
        for x in self.nodes.values_mut() {
            if x.order >= from {
                x.failed = true;
            }
        }
        Some(())
    }
}

/// The nodes of the patterns that succeed on some path, merged by identity.
struct Merged {
    nodes: std::collections::BTreeMap<usize, Node>,
}

impl Merged {
    /// Adds the live nodes of one successful path; `None` when a node differs from
    /// the same node on another path.
    fn add(&mut self, sim: &Sim) -> Option<()> {
        for (&id, n) in sim.nodes.iter().filter(|(_, n)| !n.failed) {
            match self.nodes.get(&id) {
                Some(m) if m.kind != n.kind || m.capture != n.capture || m.copy_of != n.copy_of => return None,
                Some(_) => {}
                None => {
                    self.nodes.insert(id, n.clone());
                }
            }
        }
        Some(())
    }

    /// The pattern of node `n`; `None` when its tests don't make a whole pattern.
    fn pattern(&self, n: usize) -> Option<Pattern> {
        // `usize::MAX`: an item dropped unread.
        if n == usize::MAX {
            return Some(Pattern::Wildcard);
        }
        let node = self.nodes.get(&n)?;
        // Copies: the sub-pattern of `as`, or the alternatives of `|` (in code order).
        let mut copies: Vec<(Key, usize)> = self.nodes.iter().filter(|(_, x)| x.copy_of == Some(n)).map(|(&id, x)| (x.key, id)).collect();
        copies.sort_unstable();
        let copies: Vec<usize> = copies.into_iter().map(|(_, id)| id).collect();
        let inner = match copies.len() {
            0 => None,
            1 if node.capture.is_some() => Some(self.pattern(copies[0])?),
            1 => return None,
            _ => Some(Pattern::Or(copies.iter().map(|&c| self.pattern(c)).collect::<Option<Vec<_>>>()?)),
        };
        let base = match (&node.kind, inner) {
            (Kind::Unknown, Some(p)) => p,
            (_, Some(_)) => return None,
            (Kind::Unknown, None) => {
                return Some(match &node.capture {
                    Some(c) => Pattern::Capture(c.clone()),
                    None => Pattern::Wildcard,
                })
            }
            (Kind::Value(e), None) => Pattern::Value(e.clone()),
            (Kind::Singleton(e), None) => Pattern::Singleton(e.clone()),
            (Kind::Seq { items, star, len, tested, subs }, None) => {
                if !tested {
                    return None;
                }
                if !subs.is_empty() || (items.is_empty() && star.is_none() && len.is_none()) {
                    // `[a, _, *_, b]` read by index, or `[*_]` (no length test).
                    let l = match len {
                        Some((false, l)) => *l,
                        None if subs.is_empty() => 0,
                        _ => return None,
                    };
                    let before = subs.iter().filter(|(i, _)| *i >= 0).map(|(i, _)| *i as usize + 1).max().unwrap_or(0);
                    l.checked_sub(before)?;
                    let mut pats = vec![Pattern::Wildcard; l];
                    for &(i, c) in subs {
                        let pos = if i >= 0 { i as usize } else { l.checked_sub(i.unsigned_abs() as usize).filter(|p| *p >= before)? };
                        pats[pos] = self.pattern(c)?;
                    }
                    return Some(self.wrap(n, Pattern::Sequence(pats, Some((before, None)))));
                }
                if let (None, Some((true, l)), true) = (star, len, items.is_empty()) {
                    // `[_, _]`: the length test alone.
                    return Some(self.wrap(n, Pattern::Sequence(vec![Pattern::Wildcard; *l], None)));
                }
                match (star, len) {
                    (None, Some((true, l))) if *l == items.len() => {}
                    (Some(_), Some((false, l))) if *l + 1 == items.len() => {}
                    (Some(_), None) if items.len() == 1 => {}
                    _ => return None,
                }
                let mut pats = Vec::new();
                let mut star_out = None;
                for (i, &c) in items.iter().enumerate() {
                    if Some(i) == *star {
                        let cn = self.nodes.get(&c)?;
                        if !matches!(cn.kind, Kind::Unknown) || self.nodes.values().any(|x| x.copy_of == Some(c)) {
                            return None;
                        }
                        star_out = Some((i, cn.capture.clone()));
                    } else {
                        pats.push(self.pattern(c)?);
                    }
                }
                Pattern::Sequence(pats, star_out)
            }
            (Kind::Map { keys, vals, len, tested, rest, deleted, copied }, None) => {
                if !tested || keys.len() != vals.len() || (!keys.is_empty() && *len != Some(keys.len())) || (keys.is_empty() && len.is_some()) {
                    return None;
                }
                // `**rest`: a copy without exactly the matched keys, stored.
                match rest {
                    Some(_) if *copied && deleted == keys => {}
                    None if !*copied && deleted.is_empty() => {}
                    _ => return None,
                }
                let mut items = Vec::new();
                for (k, &v) in keys.iter().zip(vals) {
                    items.push((k.clone(), self.pattern(v)?));
                }
                Pattern::Mapping(items, rest.clone())
            }
            (Kind::Class { cls, npos, names, items }, None) => {
                if items.len() != npos + names.len() {
                    return None;
                }
                let mut pos = Vec::new();
                let mut kws = Vec::new();
                for (i, &c) in items.iter().enumerate() {
                    let p = self.pattern(c)?;
                    if i < *npos {
                        pos.push(p);
                    } else {
                        kws.push((names[i - npos].clone(), p));
                    }
                }
                Pattern::Class(cls.clone(), pos, kws)
            }
        };
        Some(self.wrap(n, base))
    }

    /// `base as name` when node `n` is captured too.
    fn wrap(&self, n: usize, base: Pattern) -> Pattern {
        match &self.nodes[&n].capture {
            Some(c) => Pattern::As(Box::new(base), c.clone()),
            None => base,
        }
    }
}

/// Where one case's pattern code was read: see [`read_case`].
struct Region {
    pattern: Pattern,
    /// Index of the first op after the pattern on the kept success path.
    end: usize,
    /// Index of the next case, reached by every failure.
    next: usize,
    /// Ops of the pattern (all paths), to clear.
    ops: std::collections::BTreeSet<usize>,
}

/// Index of the op at byte offset `target`, when it is after index `from`.
fn forward(ir: &[IrInstr], from: usize, target: u32) -> Option<usize> {
    let j = ir.iter().position(|x| x.offset == target)?;
    (j > from).then_some(j)
}

/// Reads the pattern of a case whose pattern ops start at `ir[from]` with the subject
/// (or its copy) on top of the stack, following every path through the tests: a
/// failed test's jump clears its stack items with `POP_TOP`s and reaches either the
/// next case (the stack empty) or the next alternative of an or-pattern (`COPY 1` of
/// the or-pattern's subject). Paths of different alternatives may join (CPython
/// 3.10-3.11 jump to one end) or end in copies of the same code (3.12+ duplicates
/// small exit blocks, CPython `Python/flowgraph.c`); the copies must be equal ops up
/// to a return or raise. `None` for any other shape.
fn read_case(code: &CodeObject, ir: &[IrInstr], from: usize) -> Option<Region> {
    let keys = std::cell::RefCell::new(std::collections::HashMap::new());
    let mut sim = Sim { code, keys: &keys, nodes: Default::default(), stack: Vec::new(), stored: false, fails: 0, made: 0 };
    let root = sim.new_node((usize::MAX, 0), None)?;
    sim.stack.push(V::Node(root));
    let mut ops = std::collections::BTreeSet::new();
    let mut ends: Vec<(usize, Sim)> = Vec::new();
    let mut nexts: Vec<usize> = Vec::new();
    let mut work = vec![(from, sim)];
    // The states queued at the start of an alternative: its op, the stack and the
    // nodes not failed (compared as they are; a text key of their `Debug` forms cost
    // 15 M instructions on the 3.15 standard library, issue #7).
    let mut seen: Vec<QueuedState> = Vec::new();
    let mut budget = 20_000usize;
    while let Some((mut k, mut sim)) = work.pop() {
        loop {
            budget = budget.checked_sub(1)?;
            if sim.stack.is_empty() {
                if ends.len() >= 256 {
                    return None;
                }
                ends.push((k, sim));
                break;
            }
            let op = &ir.get(k)?.op;
            ops.insert(k);
            let fail = match *op {
                Op::Jump(t) => {
                    k = forward(ir, k, t)?;
                    continue;
                }
                Op::JumpIf { when: false, target } => {
                    let V::Test = sim.pop()? else { return None };
                    target
                }
                // `None` as a sub-pattern: `POP_JUMP_IF_NOT_NONE` on the item.
                Op::JumpIfNone { when: false, target } => {
                    let n = sim.pop_node()?;
                    sim.set_kind(n, Kind::Singleton(Expr::Const(Constant::None)))?;
                    target
                }
                Op::JumpIfNone { when: true, target } => {
                    match sim.pop()? {
                        V::Attrs(_) | V::Values(_) => {}
                        _ => return None,
                    }
                    target
                }
                _ => {
                    sim.step(k, op)?;
                    k += 1;
                    continue;
                }
            };
            // A test: captures are stored only after the last one.
            if sim.stored {
                return None;
            }
            sim.fails += 1;
            let mut f = sim.clone();
            let mut j = forward(ir, k, fail)?;
            let mut chain = Vec::new();
            loop {
                budget = budget.checked_sub(1)?;
                match ir.get(j)?.op {
                    Op::Nop => j += 1,
                    Op::Jump(t) => {
                        chain.push(j);
                        j = forward(ir, j, t)?;
                    }
                    Op::PopTop if !f.stack.is_empty() => {
                        f.step(j, &Op::PopTop)?;
                        chain.push(j);
                        j += 1;
                    }
                    _ => break,
                }
            }
            if f.stack.is_empty() {
                if !nexts.contains(&j) {
                    nexts.push(j);
                }
            } else {
                // The next alternative of an or-pattern.
                if ir.get(j)?.op != Op::Copy(1) {
                    return None;
                }
                f.fail_alternative()?;
                ops.extend(chain);
                // Failures of several tests of one alternative reach the next one in
                // the same state: explore it once.
                let live = || f.nodes.iter().filter(|(_, n)| !n.failed);
                let known = seen.iter().any(|(sj, stack, nodes)| *sj == j && *stack == f.stack && nodes.iter().map(|(k, n)| (k, n)).eq(live()));
                if !known {
                    seen.push((j, f.stack.clone(), live().map(|(&k, n)| (k, n.clone())).collect()));
                    work.push((j, f));
                }
            }
            k += 1;
        }
    }
    // Failures reach the next case, or equal copies of the exit block that follows
    // the `match` (3.12+, as for the success paths below); the first is kept.
    let mut next = *nexts.iter().min()?;
    for &n in &nexts {
        exit_copy(ir, next, n)?;
    }
    // The next case from its first op (a `NOP` of `case _:` that a guard jumps to).
    while next > from && ir[next - 1].op == Op::Nop && !ops.contains(&(next - 1)) {
        next -= 1;
    }
    let mut merged = Merged { nodes: Default::default() };
    for (_, s) in &ends {
        merged.add(s)?;
    }
    let pattern = merged.pattern(root)?;
    // A bare capture or wildcard at the top is not one of the shapes read here.
    if matches!(pattern, Pattern::Capture(_) | Pattern::Wildcard) {
        return None;
    }
    // Ends in different places: equal copies of an exit block; the first is kept.
    let end = ends.iter().map(|(e, _)| *e).min()?;
    for &(e, _) in &ends {
        ops.extend(exit_copy(ir, end, e)?);
    }
    if ops.contains(&next) || ops.contains(&end) {
        return None;
    }
    Some(Region { pattern, end, next, ops })
}

/// The ops of the block at `b` when it is a copy of the exit block at `a` (empty when
/// `a == b`): equal ops without jumps, up to a return or raise, at most 17 of them.
/// CPython 3.12+ copies small exit blocks to each of their predecessors
/// (`Python/flowgraph.c`, `duplicate_exits_without_lineno`), so the paths of one
/// pattern may end in several such copies. `None` for any other code.
fn exit_copy(ir: &[IrInstr], a: usize, b: usize) -> Option<Vec<usize>> {
    let mut copy = Vec::new();
    if a == b {
        return Some(copy);
    }
    for d in 0..17 {
        let (x, y) = (&ir.get(a + d)?.op, &ir.get(b + d)?.op);
        if x != y || x.jump_target().is_some() {
            return None;
        }
        copy.push(b + d);
        if matches!(x, Op::Return | Op::Raise(_) | Op::Reraise) {
            return Some(copy);
        }
    }
    None
}

/// Replaces the pattern region of every recognized `case` in `ir` by
/// `MatchCase { id, copy }`, `JumpIf { when: false, target: next case }` and, when
/// the pattern's code is not one run of ops before its body, a `Jump` to the body
/// (CPython 3.10+; 3.10's `MATCH_CLASS`/`MATCH_KEYS` come in the 3.11 shape from
/// normalization). Returns the patterns, indexed
/// by `id`. Nothing is changed for a case that is not understood.
pub(crate) fn rewrite(code: &CodeObject, ir: &mut [IrInstr]) -> Vec<CasePattern> {
    let mut table = Vec::new();
    if code.version.minor < 10 || !ir.iter().any(|i| matches!(i.op, Op::MatchSequence | Op::MatchMapping | Op::MatchClass(_))) {
        return table;
    }
    let original = ir.to_vec();
    let mut i = 0;
    while i < ir.len() {
        // Where the pattern ops of a case could start: `COPY 1` of the subject (an
        // `as` or or-pattern), `MATCH_SEQUENCE`/`MATCH_MAPPING` on the subject, or the
        // class expression before `MATCH_CLASS`.
        let start = match ir[i].op {
            Op::Copy(1) | Op::MatchSequence | Op::MatchMapping => Some(i),
            // A literal, value or `None` pattern on the case's copy of the subject.
            Op::LoadConst(_) | Op::LoadSmallInt(_) | Op::LoadCommonConstant(_) | Op::JumpIfNone { when: false, .. } if i > 0 && ir[i - 1].op == Op::Copy(1) => Some(i),
            Op::LoadGlobal(_) | Op::LoadName(_) | Op::LoadFast(_) | Op::LoadDeref(_) => {
                let mut j = i + 1;
                while matches!(ir.get(j).map(|x| &x.op), Some(Op::LoadAttr(_))) {
                    j += 1;
                }
                let class = matches!(ir.get(j).map(|x| &x.op), Some(Op::LoadConst(_))) && matches!(ir.get(j + 1).map(|x| &x.op), Some(Op::MatchClass(_)));
                // A value pattern (`Color.RED`) on the case's copy of the subject.
                let value = j > i + 1 && i > 0 && ir[i - 1].op == Op::Copy(1) && matches!(ir.get(j).map(|x| &x.op), Some(Op::Compare(CmpOp::Eq)));
                (class || value).then_some(i)
            }
            _ => None,
        };
        let Some(start) = start else {
            i += 1;
            continue;
        };
        let copy = start > 0 && ir[start - 1].op == Op::Copy(1);
        let first = if copy { start - 1 } else { start };
        match read_case(code, ir, start) {
            Some(r) if r.end >= first + 2 && r.ops.iter().all(|&x| x >= start) && clear_ok(ir, first, &r) => {
                let id = table.len() as u32;
                let default_next = !copy && ir[r.next].op == Op::Nop && ir[r.next].opname == "NOP";
                table.push(CasePattern { pattern: r.pattern, copy, default_next });
                let target = ir[r.next].offset;
                for &x in &r.ops {
                    ir[x].op = Op::Nop;
                }
                ir[first].op = Op::MatchCase { id, copy };
                ir[first + 1].op = Op::JumpIf { when: false, target };
                if (first + 2..r.end).any(|x| !r.ops.contains(&x)) {
                    // To the start of the cleared run before the body, so that the body
                    // (or a guard) has this jump as its one predecessor.
                    let mut to = r.end;
                    while to > first + 3 && r.ops.contains(&(to - 1)) {
                        to -= 1;
                    }
                    ir[first + 2].op = Op::Jump(ir[to].offset);
                }
                i = r.end;
            }
            _ => i += 1,
        }
    }
    // All or nothing: a pattern op left outside the regions read means a shape not
    // understood (possibly the outer pattern of a region read alone).
    if ir.iter().any(|x| matches!(x.op, Op::MatchSequence | Op::MatchMapping | Op::MatchClass(_) | Op::MatchKeys | Op::GetLen | Op::CopyDictWithoutKeys)) {
        ir.clone_from_slice(&original);
        return Vec::new();
    }
    table
}

/// Whether the ops of region `r` (starting at `first`) can be cleared: at least
/// three of them before its end (for the case test and a jump), and no jump from
/// outside them lands inside.
fn clear_ok(ir: &[IrInstr], first: usize, r: &Region) -> bool {
    let jump = (first + 2..r.end).any(|x| !r.ops.contains(&x));
    if !(first..first + if jump { 3 } else { 2 }).all(|x| x == first || r.ops.contains(&x)) {
        return false;
    }
    let inside: std::collections::HashSet<u32> = r.ops.iter().filter(|&&x| x != first).map(|&x| ir[x].offset).collect();
    ir.iter().enumerate().all(|(x, ins)| r.ops.contains(&x) || ins.op.jump_target().is_none_or(|t| !inside.contains(&t)))
}

/// `(subject, id, guard, negated)` of a condition made from `__match__(subject, id)`:
/// alone, negated, or first operand of an `and` (the guard).
fn read_cond(cond: &Expr) -> Option<(Expr, usize, Option<Expr>, bool)> {
    let mark = |e: &Expr| -> Option<(Expr, usize)> {
        match e {
            Expr::Call(f, args, kws) if f.is_name(MATCH_MARK) && kws.is_empty() && args.len() == 2 => match &args[1] {
                Expr::Const(Constant::Int(id)) => Some((args[0].clone(), usize::try_from(*id).ok()?)),
                _ => None,
            },
            _ => None,
        }
    };
    match cond {
        Expr::UnaryOp("not", inner) => mark(inner).map(|(s, id)| (s, id, None, true)),
        Expr::BoolOp(true, items) if items.len() >= 2 => {
            let (s, id) = mark(&items[0])?;
            let guard = if items.len() == 2 { items[1].clone() } else { Expr::BoolOp(true, items[1..].to_vec()) };
            Some((s, id, Some(guard), false))
        }
        e => mark(e).map(|(s, id)| (s, id, None, false)),
    }
}

fn mentions_mark(e: &Expr) -> bool {
    let mut found = false;
    e.walk(&mut |x| {
        if x.is_name(MATCH_MARK) {
            found = true;
        }
    });
    found
}

/// Reads the chain of cases starting with `seq[0]` (an `if` on a match marker);
/// returns the statements that follow the chain.
fn chain(mut seq: Vec<Stmt>, subject: &mut Option<Expr>, cases: &mut Vec<MatchCase>, table: &[CasePattern]) -> Result<Vec<Stmt>, String> {
    if seq.is_empty() {
        return Err("a case chain ends early".into());
    }
    // After a case on a copy: `case x:` (the last case, irrefutable) stores the subject
    // itself; what follows is reached only through it.
    if let (Stmt::Assign(targets, value), Some(s)) = (&seq[0], subject.as_ref()) {
        if let [Expr::Name(x)] = targets.as_slice() {
            if value == s && !cases.is_empty() {
                let x = x.clone();
                seq.remove(0);
                cases.push(MatchCase { pattern: Pattern::Capture(x.to_string()), guard: None, body: seq });
                return Ok(Vec::new());
            }
        }
    }
    let Stmt::If(cond, then, els) = seq.remove(0) else { return Err("a case that is not a test".into()) };
    // The last tested case, a literal, value or `None`/`True`/`False` pattern after
    // cases on copies, tests the subject itself: `if subject == 1:` (see
    // [`last_literal_case`]).
    if let (Some(s), false) = (subject.as_ref(), cases.is_empty()) {
        if let Some((pattern, guard, negated)) = last_literal_case(&cond, s) {
            let (then, els) = if negated { (els, then) } else { (then, els) };
            cases.push(MatchCase { pattern, guard, body: then });
            if !els.is_empty() {
                cases.push(MatchCase { pattern: Pattern::Wildcard, guard: None, body: els });
            }
            return Ok(seq);
        }
    }
    let (s, id, guard, negated) = read_cond(&cond).ok_or("an unexpected case test")?;
    if guard.as_ref().is_some_and(mentions_mark) {
        return Err("a case test inside a guard".into());
    }
    let (then, els) = if negated { (els, then) } else { (then, els) };
    match subject {
        Some(x) if *x != s => return Err("cases on different subjects".into()),
        _ => *subject = Some(s),
    }
    let case = table.get(id).ok_or("an unknown case")?;
    cases.push(MatchCase { pattern: case.pattern.clone(), guard, body: then.clone() });
    if case.copy {
        if !els.is_empty() {
            let left = chain(els, subject, cases, table)?;
            if !left.is_empty() {
                cases.push(MatchCase { pattern: Pattern::Wildcard, guard: None, body: left });
            }
            return Ok(seq);
        }
        if crate::structure::ends_control(&then) {
            return chain(seq, subject, cases, table);
        }
        return Err("a case whose failure does not reach the next case".into());
    }
    if !els.is_empty() {
        cases.push(MatchCase { pattern: Pattern::Wildcard, guard: None, body: els });
    } else if case.default_next && !seq.is_empty() && cases.iter().all(|c| crate::structure::ends_control(&c.body)) {
        // `case _:` after cases that all leave: its body is all that follows (the
        // same code as statements after the match).
        cases.push(MatchCase { pattern: Pattern::Wildcard, guard: None, body: seq });
        return Ok(Vec::new());
    }
    Ok(seq)
}

/// `(pattern, guard, negated)` when `cond` is how recovery reads the test of the last
/// tested case of a `match` on `subject` whose pattern is a literal, a value or a
/// singleton: that case works on the subject itself (no `COPY 1`, so [`rewrite`]
/// leaves its test alone), `LOAD_CONST c; COMPARE_OP ==` (`IS_OP` / `POP_JUMP_IF_NONE`
/// for `None`, `True`, `False`) and a jump to the next case (CPython 3.10-3.13
/// `Python/compile.c`, `compiler_pattern_value` / `compiler_pattern_singleton`; 3.14+
/// `Python/codegen.c`). `subject == c` is what `case c:` tests and `subject is None`
/// what `case None:` tests, so the case runs exactly when the `if` does. Only
/// constants that print as a literal pattern (ints, finite floats, str, bytes) and
/// dotted names (`Color.RED`; a bare name would be a capture) are read; `not` and
/// `!=` / `is not` flip the branches; `test and guard` gives the guard.
fn last_literal_case(cond: &Expr, subject: &Expr) -> Option<(Pattern, Option<Expr>, bool)> {
    fn dotted(e: &Expr) -> bool {
        match e {
            Expr::Attribute(b, _) => matches!(**b, Expr::Name(_)) || dotted(b),
            _ => false,
        }
    }
    let test = |e: &Expr| -> Option<(Pattern, bool)> {
        let Expr::Compare(l, ops) = e else { return None };
        let [(op, r)] = ops.as_slice() else { return None };
        if **l != *subject {
            return None;
        }
        match (*op, r) {
            ("is" | "is not", Expr::Const(Constant::None | Constant::Bool(_))) => Some((Pattern::Singleton(r.clone()), *op == "is not")),
            ("==" | "!=", Expr::Const(Constant::Int(_) | Constant::BigInt(_) | Constant::Str(_) | Constant::Bytes(_))) => Some((Pattern::Value(r.clone()), *op == "!=")),
            ("==" | "!=", Expr::Const(Constant::Float(f))) if f.is_finite() => Some((Pattern::Value(r.clone()), *op == "!=")),
            ("==" | "!=", _) if dotted(r) => Some((Pattern::Value(r.clone()), *op == "!=")),
            _ => None,
        }
    };
    match cond {
        Expr::UnaryOp("not", inner) => test(inner).map(|(p, n)| (p, None, !n)),
        Expr::BoolOp(true, items) if items.len() >= 2 => {
            let (p, n) = test(&items[0])?;
            if n || items[1..].iter().any(mentions_mark) {
                return None;
            }
            let guard = if items.len() == 2 { items[1].clone() } else { Expr::BoolOp(true, items[1..].to_vec()) };
            Some((p, Some(guard), false))
        }
        e => test(e).map(|(p, n)| (p, None, n)),
    }
}

/// `t = E` right before `match t:`, where `t` is a temporary of recovery that the
/// function reads nowhere else, becomes `match E:`: how recovery reads a subject
/// that is not a plain name (`match d.get(k):`), which stays on the stack under the
/// copies that the cases test (the value lives across blocks, so recovery names it).
/// Both forms evaluate `E` once, before the first case. Everywhere in `body`, the
/// body of one function.
pub(crate) fn inline_subject_temps(body: &mut Vec<Stmt>) {
    let mut reads = std::collections::BTreeMap::<String, usize>::new();
    for s in body.iter() {
        s.walk_scope_exprs(&mut |e| {
            if let Expr::Name(n) = e {
                if n.starts_with("__temp_") {
                    *reads.entry(n.to_string()).or_default() += 1;
                }
            }
        });
    }
    if !reads.is_empty() {
        inline_subjects_in(body, &reads);
    }
}

fn inline_subjects_in(body: &mut Vec<Stmt>, reads: &std::collections::BTreeMap<String, usize>) {
    let mut k = 0;
    while k < body.len() {
        if k + 1 < body.len() {
            if let (Stmt::Assign(ts, _), Stmt::Match(Expr::Name(subject), _)) = (&body[k], &body[k + 1]) {
                let temp = matches!(ts.as_slice(), [Expr::Name(t)] if t == subject && t.starts_with("__temp_"));
                if temp && reads.get(subject.as_str()) == Some(&2) {
                    let Stmt::Assign(_, value) = body.remove(k) else { unreachable!("matched above") };
                    if let Stmt::Match(s, _) = &mut body[k] {
                        *s = value;
                    }
                }
            }
        }
        match &mut body[k] {
            Stmt::If(_, a, b) | Stmt::While(_, a, b) | Stmt::For(_, _, a, b) => {
                inline_subjects_in(a, reads);
                inline_subjects_in(b, reads);
            }
            other => {
                for b in other.bodies_mut() {
                    inline_subjects_in(b, reads);
                }
            }
        }
        k += 1;
    }
}

fn is_match_if(s: &Stmt) -> bool {
    matches!(s, Stmt::If(c, ..) if read_cond(c).is_some())
}

/// Turns the `if __match__(...)` chains that structuring made of `case`s (see
/// [`rewrite`]) into `match` statements, in `body` and nested bodies. Errors: a
/// chain of an unexpected shape.
pub(crate) fn fold(body: &mut Vec<Stmt>, table: &[CasePattern]) -> Result<(), String> {
    let mut out = Vec::with_capacity(body.len());
    let mut rest: Vec<Stmt> = std::mem::take(body);
    while !rest.is_empty() {
        if is_match_if(&rest[0]) {
            let mut subject = None;
            let mut cases = Vec::new();
            let after = chain(rest, &mut subject, &mut cases, table)?;
            for c in &mut cases {
                fold(&mut c.body, table)?;
            }
            out.push(Stmt::Match(subject.expect("a chain has a subject"), cases));
            rest = after;
            continue;
        }
        let mut s = rest.remove(0);
        match &mut s {
            Stmt::If(_, a, b) | Stmt::While(_, a, b) | Stmt::For(_, _, a, b) => {
                fold(a, table)?;
                fold(b, table)?;
            }
            other => {
                for b in other.bodies_mut() {
                    fold(b, table)?;
                }
            }
        }
        out.push(s);
    }
    *body = out;
    Ok(())
}
