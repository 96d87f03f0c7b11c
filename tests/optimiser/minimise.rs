//! Shrinking a failing program to the lines its failure needs, as C-Reduce and `ddmin` do:
//! runs of lines are removed, halving the run whenever no removal keeps the failure, until no
//! single line can go. Only instruction lines go (not declarations, labels or the lines that
//! count and close loops, which would leave a loop that never ends), and only after the
//! line [`FROM`] when the program has it: what comes before (the generator's functions and
//! the registers' first values) stays, so that no shrunk program reads a register nothing
//! wrote, which would fail for another reason.

/// The comment after which the generator's random code starts.
pub const FROM: &str = "// random code";

/// The smallest program found, by removing lines of `source`, for which `fails` still holds
/// (`fails` is false for a program that no longer checks or assembles). `source` itself must
/// fail.
pub fn minimise(source: &str, fails: impl Fn(&str) -> bool) -> String {
    let mut lines: Vec<&str> = source.lines().collect();
    let from = lines
        .iter()
        .position(|l| l.contains(FROM))
        .map_or(0, |i| i + 1);
    let mut run = lines.len().div_ceil(2);
    while run > 0 {
        let mut removed = false;
        let mut at = from;
        while at < lines.len() {
            let end = (at + run).min(lines.len());
            let kept: Vec<&str> = lines[..at]
                .iter()
                .chain(lines[at..end].iter().filter(|l| !removable(l)))
                .chain(&lines[end..])
                .copied()
                .collect();
            if kept.len() < lines.len() && fails(&(kept.join("\n") + "\n")) {
                lines = kept;
                removed = true;
            } else {
                at = end;
            }
        }
        if !removed {
            run /= 2;
        }
    }
    lines.join("\n") + "\n"
}

/// Whether `line` is an instruction that may go: in a body (indented), not a declaration
/// (`.reg`, `.param`, `.shared`), a brace, a `ret`, or a line of a loop's count (`%r15`,
/// `%p4`, an unconditional backward `bra`).
fn removable(line: &str) -> bool {
    let t = line.trim();
    line.starts_with('\t')
        && !t.starts_with('.')
        && !matches!(t, "{" | "}" | "ret;")
        && !t.contains("%r15")
        && !t.contains("%p4")
        && !t.starts_with("bra ")
}

#[test]
fn minimising_keeps_only_the_lines_the_failure_needs() {
    let source = ".entry k()\n{\n\t.reg .b32 %r<4>;\n\tmov.u32 %r1, 1;\n\t// random code\n\
                  \tadd.s32 %r2, %r1, 2;\n\
                  \txor.b32 %r3, %r2, %r1;\nL0:\n\tsub.s32 %r15, %r15, 1;\n\tmul.lo.s32 %r3, %r3, 3;\n\
                  \tret;\n}\n";
    // "Fails" while it has both the add and the multiply.
    let fails = |s: &str| s.contains("add.s32") && s.contains("mul.lo");
    let small = minimise(source, fails);
    assert_eq!(
        small,
        ".entry k()\n{\n\t.reg .b32 %r<4>;\n\tmov.u32 %r1, 1;\n\t// random code\n\
         \tadd.s32 %r2, %r1, 2;\nL0:\n\tsub.s32 %r15, %r15, 1;\n\
         \tmul.lo.s32 %r3, %r3, 3;\n\tret;\n}\n"
    );
}
