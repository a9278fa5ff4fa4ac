//! Structuring: turns the recovered blocks of an acyclic CFG into nested `if`/`else`
//! statements, using immediate post-dominators as merge points. Shared tails that no
//! merge point explains are duplicated, so any acyclic flow gets correct code.
//!
//! Assumes: recovery ran on every reachable block; the CFG has no back edges.

use depyf_cfg::{BlockId, Cfg, Terminator};
use depyf_source::Stmt;

use crate::recover::Recovered;
use crate::DecompileError;

pub(crate) struct Structurer<'a> {
    pub cfg: &'a Cfg,
    pub rec: &'a Recovered,
    pub ipdom: Vec<Option<BlockId>>,
    /// Blocks emitted so far, to bound duplication.
    pub emitted: usize,
    pub limit: usize,
}

impl Structurer<'_> {
    /// Statements for the region that starts at `b` and ends before `stop` (or at a
    /// return or raise).
    pub fn region(&mut self, mut b: BlockId, stop: Option<BlockId>, err: &dyn Fn(&str) -> DecompileError) -> Result<Vec<Stmt>, DecompileError> {
        let mut out = Vec::new();
        loop {
            if Some(b) == stop {
                return Ok(out);
            }
            self.emitted += 1;
            if self.emitted > self.limit {
                return Err(err("control flow too tangled to structure (duplication limit reached)"));
            }
            let code = &self.rec.blocks[b.index()];
            out.extend(code.stmts.iter().cloned());
            match self.cfg.blocks[b.index()].term {
                Terminator::Return | Terminator::Raise => return Ok(out),
                Terminator::FallThrough(s) | Terminator::Jump(s) => b = s,
                Terminator::Branch { jump, fall } => {
                    let merge = self.ipdom[b.index()];
                    let inner_stop = merge.or(stop);
                    let cond = code.fall_condition.clone().expect("recovery sets branch conditions");
                    let then_body = self.region(fall, inner_stop, err)?;
                    let else_body = self.region(jump, inner_stop, err)?;
                    push_if(&mut out, cond, then_body, else_body);
                    match merge {
                        Some(m) => b = m,
                        None => return Ok(out),
                    }
                }
            }
        }
    }
}

fn ends_control(body: &[Stmt]) -> bool {
    match body.last() {
        Some(Stmt::Return(_) | Stmt::Raise(..)) => true,
        Some(Stmt::If(_, a, b)) => !b.is_empty() && ends_control(a) && ends_control(b),
        _ => false,
    }
}

/// Appends `if cond: then_body else: else_body`, writing an `else` only when the
/// then-branch can fall through (early returns read as they were written).
fn push_if(out: &mut Vec<Stmt>, cond: depyf_source::Expr, then_body: Vec<Stmt>, else_body: Vec<Stmt>) {
    if then_body.is_empty() && !else_body.is_empty() {
        // `if c: pass else: X` reads better as `if not c: X`.
        push_if(out, crate::recover::negate(cond), else_body, Vec::new());
        return;
    }
    if ends_control(&then_body) && !else_body.is_empty() && !matches!(else_body.as_slice(), [Stmt::If(..)]) {
        out.push(Stmt::If(cond, then_body, Vec::new()));
        out.extend(else_body);
    } else {
        out.push(Stmt::If(cond, then_body, else_body));
    }
}
