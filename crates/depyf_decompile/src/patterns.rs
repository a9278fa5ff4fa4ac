//! `match` statements (CPython 3.11+).
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
//! case's pattern region by interpreting its ops on a small symbolic stack of pattern
//! nodes (so that the order of rotations and stores is taken from the code, not
//! assumed), checks that every failure jump clears exactly what is on the stack and
//! reaches the same next case, and replaces the region by one [`Op::MatchCase`] and a
//! jump to that next case. Recovery turns it into the condition
//! `__match__(subject, id)`, structuring into an `if`/`else` chain, and [`fold`]
//! turns that chain into a [`Stmt::Match`]. Shapes not understood are left alone (and
//! fail later on their `MATCH_*` op with a DecompilationError).
//!
//! Supported patterns: capture, wildcard, literal and value patterns inside others,
//! `None`/`True`/`False`, sequences (with `*name`), mappings without `**rest`, class
//! patterns with positional and keyword sub-patterns, `as` on sub-patterns. Not yet:
//! or-patterns, `*_` in sequences (compiled with subscripts), `**rest`, value keys
//! (`{Color.RED: x}`), top-level literal/capture cases mixed with the others.

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
}

#[derive(Clone, Debug)]
enum Kind {
    Unknown,
    Seq { items: Vec<usize>, star: Option<usize>, len: Option<(bool, usize)>, tested: bool, subs: Vec<(i64, usize)> },
    Map { keys: Vec<Expr>, vals: Vec<usize>, len: Option<usize>, tested: bool },
    Class { cls: Expr, npos: usize, names: Vec<String>, items: Vec<usize> },
    Value(Expr),
    Singleton(Expr),
}

#[derive(Clone, Debug)]
struct Node {
    kind: Kind,
    capture: Option<String>,
}

#[derive(Clone, Debug)]
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
}

struct Sim<'a> {
    code: &'a CodeObject,
    nodes: Vec<Node>,
    stack: Vec<V>,
    /// Failure jumps: (target offset, items on the stack when taken).
    fails: Vec<(u32, usize)>,
}

impl Sim<'_> {
    fn new_node(&mut self) -> usize {
        self.nodes.push(Node { kind: Kind::Unknown, capture: None });
        self.nodes.len() - 1
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
        self.code.co_localsplusnames.get(i).cloned()
    }

    fn name(&self, i: usize) -> Option<String> {
        self.code.co_names.get(i).cloned()
    }

    /// Interprets one op; `None` when it is not part of a known pattern shape.
    fn step(&mut self, op: &Op) -> Option<()> {
        match *op {
            Op::Nop => {}
            Op::Copy(1) => {
                let top = self.stack.last()?.clone();
                if matches!(top, V::Test | V::Len(_)) {
                    return None;
                }
                self.stack.push(top);
            }
            Op::Swap(n) => {
                let n = n as usize;
                let len = self.stack.len();
                if n < 2 || n > len {
                    return None;
                }
                self.stack.swap(len - 1, len - n);
            }
            Op::MatchSequence | Op::MatchMapping => {
                let V::Node(n) = *self.stack.last()? else { return None };
                let node = &mut self.nodes[n];
                match (&node.kind, op) {
                    (Kind::Unknown, Op::MatchSequence) => node.kind = Kind::Seq { items: Vec::new(), star: None, len: None, tested: true, subs: Vec::new() },
                    (Kind::Unknown, _) => node.kind = Kind::Map { keys: Vec::new(), vals: Vec::new(), len: None, tested: true },
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
            Op::LoadGlobal(i) | Op::LoadName(i) => {
                let n = self.name(i)?;
                self.stack.push(V::Val(Expr::Name(n)));
            }
            Op::LoadFast(i) | Op::LoadDeref(i) => {
                let n = self.local(i)?;
                self.stack.push(V::Val(Expr::Name(n)));
            }
            Op::LoadAttr(i) => {
                let V::Val(e) = self.pop()? else { return None };
                let a = self.name(i)?;
                self.stack.push(V::Val(Expr::Attribute(Box::new(e), a)));
            }
            Op::Compare(cmp) => {
                let right = self.pop()?;
                let left = self.pop()?;
                match (left, right, cmp) {
                    (V::Len(n), V::Const(Constant::Int(k)), CmpOp::Eq | CmpOp::Ge) => {
                        let k = usize::try_from(k).ok()?;
                        let exact = cmp == CmpOp::Eq;
                        match &mut self.nodes[n].kind {
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
            Op::JumpIf { when: false, target } => {
                let V::Test = self.pop()? else { return None };
                self.fails.push((target, self.stack.len()));
            }
            // `None` as a sub-pattern: `POP_JUMP_IF_NOT_NONE` on the item.
            Op::JumpIfNone { when: false, target } => {
                let n = self.pop_node()?;
                self.set_kind(n, Kind::Singleton(Expr::Const(Constant::None)))?;
                self.fails.push((target, self.stack.len()));
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
            Op::BinarySubscr => {
                let idx = self.pop()?;
                let n = self.pop_node()?;
                let at = match idx {
                    V::Const(Constant::Int(i)) if i >= 0 => i,
                    V::FromEnd(m, k) if m == n => -k,
                    _ => return None,
                };
                let child = self.new_node();
                match &mut self.nodes[n].kind {
                    Kind::Seq { items, star: None, len: Some((false, _)), subs, .. } if items.is_empty() && !subs.iter().any(|(i, _)| *i == at) => subs.push((at, child)),
                    _ => return None,
                }
                self.stack.push(V::Node(child));
            }
            Op::JumpIfNone { when: true, target } => {
                match self.pop()? {
                    V::Attrs(_) | V::Values(_) => {}
                    _ => return None,
                }
                self.fails.push((target, self.stack.len()));
            }
            Op::MatchClass(npos) => {
                let V::Const(Constant::Tuple(names)) = self.pop()? else { return None };
                let V::Val(cls) = self.pop()? else { return None };
                let n = self.pop_node()?;
                let names = names
                    .into_iter()
                    .map(|c| match c {
                        Constant::Str(s) => Some(s),
                        _ => None,
                    })
                    .collect::<Option<Vec<String>>>()?;
                self.set_kind(n, Kind::Class { cls, npos: npos as usize, names, items: Vec::new() })?;
                self.stack.push(V::Attrs(n));
            }
            Op::MatchKeys => {
                let V::Const(Constant::Tuple(keys)) = self.stack.last()?.clone() else { return None };
                let V::Node(n) = self.stack[self.stack.len().checked_sub(2)?] else { return None };
                let Kind::Map { keys: k, .. } = &mut self.nodes[n].kind else { return None };
                if !k.is_empty() || keys.iter().any(|c| matches!(c, Constant::Tuple(_) | Constant::FrozenSet(_) | Constant::Code(_) | Constant::Slice(_) | Constant::Opaque { .. })) {
                    return None;
                }
                *k = keys.into_iter().map(Expr::Const).collect();
                self.stack.push(V::Values(n));
            }
            Op::UnpackSequence(c) => {
                let c = c as usize;
                let children: Vec<usize> = (0..c).map(|_| self.new_node()).collect();
                match self.pop()? {
                    V::Node(n) => match &mut self.nodes[n].kind {
                        Kind::Seq { items, len: Some((true, l)), star: None, .. } if items.is_empty() && *l == c => *items = children.clone(),
                        _ => return None,
                    },
                    V::Attrs(n) => match &mut self.nodes[n].kind {
                        Kind::Class { npos, names, items, .. } if items.is_empty() && *npos + names.len() == c => *items = children.clone(),
                        _ => return None,
                    },
                    V::Values(n) => match &mut self.nodes[n].kind {
                        Kind::Map { keys, vals, .. } if vals.is_empty() && keys.len() == c => *vals = children.clone(),
                        _ => return None,
                    },
                    _ => return None,
                }
                self.stack.extend(children.iter().rev().map(|&x| V::Node(x)));
            }
            Op::UnpackEx(before, after) => {
                let (before, after) = (before as usize, after as usize);
                let children: Vec<usize> = (0..before + after + 1).map(|_| self.new_node()).collect();
                let n = self.pop_node()?;
                match &mut self.nodes[n].kind {
                    Kind::Seq { items, len: Some((false, l)), star: None, .. } if items.is_empty() && *l == before + after => {
                        *items = children.clone();
                        if let Kind::Seq { star, .. } = &mut self.nodes[n].kind {
                            *star = Some(before);
                        }
                    }
                    _ => return None,
                }
                self.stack.extend(children.iter().rev().map(|&x| V::Node(x)));
            }
            Op::PopTop => match self.pop()? {
                V::Test | V::Len(_) | V::FromEnd(..) => return None,
                // `Cls()`, `Cls(_, _)`, `{k: _}`: the attributes or values are dropped
                // unread (all wildcards).
                V::Attrs(n) => match &mut self.nodes[n].kind {
                    Kind::Class { npos, names, items, .. } if items.is_empty() => *items = (0..*npos + names.len()).map(|_| usize::MAX).collect(),
                    _ => return None,
                },
                V::Values(n) => match &mut self.nodes[n].kind {
                    Kind::Map { keys, vals, .. } if vals.is_empty() => *vals = keys.iter().map(|_| usize::MAX).collect(),
                    _ => return None,
                },
                _ => {}
            },
            Op::StoreFast(i) | Op::StoreDeref(i) => {
                let n = self.pop_node()?;
                let name = self.local(i)?;
                self.capture(n, name)?;
            }
            Op::StoreName(i) | Op::StoreGlobal(i) => {
                let n = self.pop_node()?;
                let name = self.name(i)?;
                self.capture(n, name)?;
            }
            _ => return None,
        }
        Some(())
    }

    fn set_kind(&mut self, n: usize, kind: Kind) -> Option<()> {
        if !matches!(self.nodes[n].kind, Kind::Unknown) {
            return None;
        }
        self.nodes[n].kind = kind;
        Some(())
    }

    fn capture(&mut self, n: usize, name: String) -> Option<()> {
        if self.nodes[n].capture.is_some() {
            return None;
        }
        self.nodes[n].capture = Some(name);
        Some(())
    }

    /// The pattern of node `n`; `None` when its tests don't make a whole pattern.
    fn pattern(&self, n: usize) -> Option<Pattern> {
        // `usize::MAX`: an item dropped unread.
        if n == usize::MAX {
            return Some(Pattern::Wildcard);
        }
        let node = &self.nodes[n];
        let base = match &node.kind {
            Kind::Unknown => {
                return Some(match &node.capture {
                    Some(c) => Pattern::Capture(c.clone()),
                    None => Pattern::Wildcard,
                })
            }
            Kind::Value(e) => Pattern::Value(e.clone()),
            Kind::Singleton(e) => Pattern::Singleton(e.clone()),
            Kind::Seq { items, star, len, tested, subs } => {
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
                    let after = l.checked_sub(before)?;
                    let mut pats = vec![Pattern::Wildcard; l];
                    for &(i, c) in subs {
                        let pos = if i >= 0 { i as usize } else { l.checked_sub(i.unsigned_abs() as usize).filter(|p| *p >= before)? };
                        pats[pos] = self.pattern(c)?;
                    }
                    let _ = after;
                    return Some(self.wrap(n, Pattern::Sequence(pats, Some((before, None)))));
                }
                if let (None, Some((true, l)), true) = (star, len, items.is_empty()) {
                    // `[_, _]`: the length test alone.
                    return Some(self.wrap(n, Pattern::Sequence(vec![Pattern::Wildcard; *l], None)));
                }
                match (star, len) {
                    (None, Some((true, l))) if *l == items.len() => {}
                    (Some(_), Some((false, l))) if *l + 1 == items.len() => {}
                    _ => return None,
                }
                let mut pats = Vec::new();
                let mut star_out = None;
                for (i, &c) in items.iter().enumerate() {
                    if Some(i) == *star {
                        let cn = &self.nodes[c];
                        if !matches!(cn.kind, Kind::Unknown) {
                            return None;
                        }
                        star_out = Some((i, cn.capture.clone()));
                    } else {
                        pats.push(self.pattern(c)?);
                    }
                }
                Pattern::Sequence(pats, star_out)
            }
            Kind::Map { keys, vals, len, tested } => {
                if !tested || keys.len() != vals.len() || (!keys.is_empty() && *len != Some(keys.len())) || (keys.is_empty() && len.is_some()) {
                    return None;
                }
                let mut items = Vec::new();
                for (k, &v) in keys.iter().zip(vals) {
                    items.push((k.clone(), self.pattern(v)?));
                }
                Pattern::Mapping(items, None)
            }
            Kind::Class { cls, npos, names, items } => {
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
        match &self.nodes[n].capture {
            Some(c) => Pattern::As(Box::new(base), c.clone()),
            None => base,
        }
    }
}

/// Reads the pattern of a case whose pattern ops start at `ir[from]` with the subject
/// (or its copy) on top of the stack. Returns the pattern, the index after its region
/// and the index of the next case that every failure reaches.
fn read_case(code: &CodeObject, ir: &[IrInstr], from: usize) -> Option<(Pattern, usize, usize)> {
    let mut sim = Sim { code, nodes: Vec::new(), stack: Vec::new(), fails: Vec::new() };
    let root = sim.new_node();
    sim.stack.push(V::Node(root));
    let mut k = from;
    while !sim.stack.is_empty() {
        sim.step(&ir.get(k)?.op)?;
        k += 1;
        if k - from > 4096 {
            return None;
        }
    }
    let pattern = sim.pattern(root)?;
    // A bare capture or wildcard at the top is not one of the shapes read here.
    if matches!(pattern, Pattern::Capture(_) | Pattern::Wildcard) || sim.fails.is_empty() {
        return None;
    }
    // Every failure clears exactly its stack items and reaches the same next case.
    let mut next = None;
    for &(target, depth) in &sim.fails {
        let mut j = ir.iter().position(|x| x.offset == target)?;
        if j < k {
            return None;
        }
        let mut left = depth;
        while left > 0 {
            match ir.get(j)?.op {
                Op::Nop => {}
                Op::PopTop => left -= 1,
                _ => return None,
            }
            j += 1;
        }
        if *next.get_or_insert(j) != j {
            return None;
        }
    }
    Some((pattern, k, next?))
}

/// Replaces the pattern region of every recognized `case` in `ir` by
/// `MatchCase { id, copy }` and `JumpIf { when: false, target: next case }`
/// (CPython 3.11+ only; other versions are left alone). Returns the patterns, indexed
/// by `id`. Nothing is changed for a case that is not understood.
pub(crate) fn rewrite(code: &CodeObject, ir: &mut [IrInstr]) -> Vec<CasePattern> {
    let mut table = Vec::new();
    if code.version.minor < 11 || !ir.iter().any(|i| matches!(i.op, Op::MatchSequence | Op::MatchMapping | Op::MatchClass(_))) {
        return table;
    }
    let original = ir.to_vec();
    let mut i = 0;
    while i < ir.len() {
        // Where the pattern ops of a case could start: `MATCH_SEQUENCE`/`MATCH_MAPPING`
        // on the subject, or the class expression before `MATCH_CLASS`.
        let start = match ir[i].op {
            Op::MatchSequence | Op::MatchMapping => Some(i),
            Op::LoadGlobal(_) | Op::LoadName(_) | Op::LoadFast(_) | Op::LoadDeref(_) => {
                let mut j = i + 1;
                while matches!(ir.get(j).map(|x| &x.op), Some(Op::LoadAttr(_))) {
                    j += 1;
                }
                (matches!(ir.get(j).map(|x| &x.op), Some(Op::LoadConst(_))) && matches!(ir.get(j + 1).map(|x| &x.op), Some(Op::MatchClass(_)))).then_some(i)
            }
            _ => None,
        };
        let Some(start) = start else {
            i += 1;
            continue;
        };
        let copy = start > 0 && ir[start - 1].op == Op::Copy(1);
        match read_case(code, ir, start) {
            Some((pattern, end, next)) if end > start + 1 => {
                let first = if copy { start - 1 } else { start };
                let id = table.len() as u32;
                table.push(CasePattern { pattern, copy });
                let target = ir[next].offset;
                ir[first].op = Op::MatchCase { id, copy };
                ir[first + 1].op = Op::JumpIf { when: false, target };
                for x in &mut ir[first + 2..end] {
                    x.op = Op::Nop;
                }
                i = end;
            }
            _ => i += 1,
        }
    }
    // All or nothing: a pattern op left outside the regions read means a shape not
    // understood (possibly the outer pattern of a region read alone).
    if ir.iter().any(|x| matches!(x.op, Op::MatchSequence | Op::MatchMapping | Op::MatchClass(_) | Op::MatchKeys | Op::GetLen)) {
        ir.clone_from_slice(&original);
        return Vec::new();
    }
    table
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
    let Stmt::If(cond, then, els) = seq.remove(0) else { return Err("a case that is not a test".into()) };
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
    }
    Ok(seq)
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
