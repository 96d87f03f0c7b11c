//! `cp.async`: sgpu copies at once, a load and a store in program order, so
//! `cp.async.commit_group`, `wait_group` and `wait_all` find every copy done and are no
//! instructions.
//!
//! A source size (`src-size`) smaller than the copy reads only that many bytes and fills the
//! rest with zeros, and a true `ignore-src` predicate reads nothing: the bytes past the
//! source size may lie past the end of the source buffer (a tile's ragged edge), so they are
//! never loaded. A source size larger than the copy is undefined in PTX (the checker refuses
//! an immediate one): sgpu copies the whole.

use super::*;

/// What `cp.async`'s optional operand after the copy size says about the source.
enum Source {
    /// Copy all `cp-size` bytes.
    Whole,
    /// Read nothing: zeros (a source size of 0).
    Nothing,
    /// Read the first `n` bytes, `0 < n < cp-size` (an immediate source size).
    First(u32),
    /// Read as many bytes as a register says.
    Sized(Lane),
    /// Read nothing where the predicate holds (`ignore-src`).
    IgnoredIf((VReg, bool)),
}

impl<'a> FnLower<'a, '_> {
    /// `cp.async.{ca,cg}.shared{::cta}.global [dst], [src], cp-size{, src-size | ignore-src}
    /// {, cache-policy}`; the bulk and mbarrier forms are not supported.
    pub(in crate::lower) fn copy_async(&mut self, ins: &PtxInstruction<'a>) {
        let has = |m: &str| ins.modifiers().any(|x| x == m);
        if !has(".async") || has(".bulk") || has(".mbarrier") {
            return self.unsupported(format!("`{}`", ins.mnemonic.text));
        }
        if has(".commit_group") || has(".wait_group") || has(".wait_all") {
            return;
        }
        let Some(Src::Imm(bytes)) = self.operand(ins, 2) else {
            return self.unsupported("`cp.async` with a copy size that is not a constant");
        };
        let size = match bytes {
            4 => Msize::B32,
            8 => Msize::B64,
            16 => Msize::B128,
            _ => return self.unsupported(format!("`cp.async` of {bytes} bytes")),
        };
        let Some(source) = self.async_source(ins, bytes as u32) else {
            return;
        };
        let mut dst_space = Space::Shared;
        let Some(dst) = self.address(&ins.operands[0], &mut dst_space, false) else {
            return;
        };
        let mut src_space = Space::Global;
        let Some(src) = self.address(&ins.operands[1], &mut src_space, false) else {
            return;
        };
        let copy = Transfer {
            dst,
            src,
            whole: (size, (bytes / 4) as u8),
            cop: cache_op(ins),
        };
        match source {
            Source::Whole => self.copy_whole(&copy),
            Source::Nothing => self.zero_fill(&copy),
            Source::First(n) => {
                self.zero_fill(&copy);
                self.copy_first(&copy, n);
            }
            Source::Sized(n) => self.copy_sized(&copy, n, bytes as u32),
            Source::IgnoredIf((p, negated)) => {
                self.guarded_by((p, negated), |me| me.zero_fill(&copy));
                self.guarded_by((p, !negated), |me| me.copy_whole(&copy));
            }
        }
    }

    /// The operand after the copy size: a source size or an `ignore-src` predicate, unless it
    /// is the cache policy (the only operand after the size, with `.L2::cache_hint`).
    fn async_source(&mut self, ins: &PtxInstruction<'a>, bytes: u32) -> Option<Source> {
        let policy_only =
            ins.modifiers().any(|m| m == ".L2::cache_hint") && ins.operands.len() == 4;
        if ins.operands.len() < 4 || policy_only {
            return Some(Source::Whole);
        }
        Some(match self.operand(ins, 3)? {
            Src::Imm(0) => Source::Nothing,
            Src::Imm(n) if n < u64::from(bytes) => Source::First(n as u32),
            // More than the copy is undefined (the checker refuses an immediate): all of it.
            Src::Imm(_) => Source::Whole,
            Src::Pred(p, negated) => Source::IgnoredIf((p, negated)),
            s => Source::Sized(self.lane(s, false)?),
        })
    }

    fn copy_whole(&mut self, copy: &Transfer) {
        let t = R::of(self.vregs.new_reg(Class::Gpr { size: copy.whole.1 }), 0);
        self.emit_load(t, copy.src, Space::Global, copy.whole, copy.cop);
        self.emit_store(copy.dst, t, Space::Shared, copy.whole, Cop::default());
    }

    fn zero_fill(&mut self, copy: &Transfer) {
        self.emit_store(copy.dst, R::ZERO, Space::Shared, copy.whole, Cop::default());
    }

    /// The first `n` bytes, in the widest accesses their alignment allows (`src` and `dst`
    /// are aligned to the copy's size, which is wider than `n`).
    fn copy_first(&mut self, copy: &Transfer, n: u32) {
        let mut at = 0;
        while at < n {
            let piece = [8, 4, 2, 1]
                .into_iter()
                .find(|&p| p <= n - at && at % p == 0)
                .expect("a byte always fits");
            self.copy_piece(copy, at, piece);
            at += piece;
        }
    }

    /// Bytes `at..at + piece` of the source to the destination.
    fn copy_piece(&mut self, copy: &Transfer, at: u32, piece: u32) {
        let size = match piece {
            1 => Msize::U8,
            2 => Msize::U16,
            4 => Msize::B32,
            _ => Msize::B64,
        };
        let words = piece.div_ceil(4) as u8;
        let t = R::of(self.vregs.new_reg(Class::Gpr { size: words }), 0);
        let (src, dst) = (copy.src.plus(at.into()), copy.dst.plus(at.into()));
        self.emit_load(t, src, Space::Global, (size, words), copy.cop);
        self.emit_store(dst, t, Space::Shared, (size, words), Cop::default());
    }

    /// A source size in a register: the whole copy where it is at least the copy's size;
    /// otherwise zeros, then (branched around where the size is 0, as CUTLASS's predicated
    /// copies mostly have it) the bytes below the size one at a time.
    fn copy_sized(&mut self, copy: &Transfer, n: Lane, bytes: u32) {
        let guard = self.guard.take();
        let [whole, short, skip] = [(); 3].map(|()| self.vregs.new_reg(Class::Pred));
        let compare = |me: &mut Self, p, cmp, k, c, bop| {
            me.icmp32(p, None, cmp, false, n, Lane::Imm(k), c, bop, false);
        };
        compare(self, whole, Icmp::Ge, bytes, guard, Bop::And);
        compare(self, short, Icmp::Lt, bytes, guard, Bop::And);
        compare(self, skip, Icmp::Eq, 0, Some((short, true)), Bop::Or);
        self.guard = Some((whole, false));
        self.copy_whole(copy);
        self.guard = Some((short, false));
        self.zero_fill(copy);
        self.guard = None;
        let done = self.new_label();
        self.branch_if(skip, done);
        for at in 0..bytes {
            // Byte 0 is below every size that gets here.
            self.guard = (at > 0).then(|| {
                let below = self.vregs.new_reg(Class::Pred);
                compare(self, below, Icmp::Gt, at, None, Bop::And);
                (below, false)
            });
            self.copy_piece(copy, at, 1);
        }
        self.place_label(done);
        self.guard = guard;
    }

    /// Runs `emit` with its instructions guarded by `p` and by the instruction's own guard.
    fn guarded_by(&mut self, p: (VReg, bool), emit: impl FnOnce(&mut Self)) {
        let guard = self.guard.take();
        let both = match guard {
            None => p,
            Some(g) => {
                let r = self.vregs.new_reg(Class::Pred);
                self.plop(r, Some(p), Some(g), Bop::And);
                (r, false)
            }
        };
        self.guard = Some(both);
        emit(self);
        self.guard = guard;
    }
}

/// One copy's two addresses, its whole access (size and registers) and its cache operator.
struct Transfer {
    dst: Address,
    src: Address,
    whole: (Msize, u8),
    cop: Cop,
}
