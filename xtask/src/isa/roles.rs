//! Operand roles (`width` and `role` lines of isa/sgpu.isa): which unit executes an
//! instruction, whether its latency is fixed, and which registers, predicates and carry it
//! reads and writes, with their widths. Read here, checked against the instructions, and
//! generated into Rust (`Op::unit`, `Op::roles`), SystemVerilog and the ISA reference.

use super::rust::camel;
use super::sv::member;
use super::table::{Field, Insn, Kind, Operand, Table};
use std::fmt::Write;

/// The units, in the order the generated enumerations number them.
pub const UNITS: [&str; 8] = [
    "control", "int", "float", "sfu", "mem", "surface", "warp", "video",
];

/// `width FIELD DEFAULT [VALUE=N]...`: registers an operand spans by a field's value.
#[derive(Debug)]
pub struct Width {
    pub field: String,
    pub default: u32,
    /// (enum value name, or `set` for a flag; registers)
    pub cases: Vec<(String, u32)>,
    pub line: usize,
}

/// One `TARGET:ACCESS[N][/FIELD...][?FLAG]` of a role line.
#[derive(Clone, Debug, PartialEq)]
pub struct Access {
    /// A register or predicate field, or `carry`.
    pub target: String,
    pub write: bool,
    pub count: u32,
    /// Fields whose widths multiply `count`.
    pub per: Vec<String>,
    /// The flag that must be set for the access to happen.
    pub when: Option<String>,
}

/// `role MNEMONIC UNIT LATENCY OPERAND...`
#[derive(Debug)]
pub struct Role {
    pub mnemonic: String,
    pub unit: String,
    pub fixed: bool,
    pub accesses: Vec<Access>,
    pub line: usize,
}

pub fn parse_width(words: &[&str], line: usize) -> Result<Width, String> {
    let [field, default, cases @ ..] = words else {
        return Err("`width` needs a field and a default".into());
    };
    // Powers of two: the hardware scales by them with a shift (`scaled`), where a multiply
    // would take a DSP block.
    let number = |s: &str| {
        s.parse::<u32>()
            .ok()
            .filter(|n| (1..=8).contains(n) && n.is_power_of_two())
            .ok_or_else(|| format!("`{s}` is not a register count of 1, 2, 4 or 8"))
    };
    let cases = cases
        .iter()
        .map(|c| {
            let (value, n) = c
                .split_once('=')
                .ok_or_else(|| format!("`{c}` is not VALUE=N"))?;
            Ok((value.to_string(), number(n)?))
        })
        .collect::<Result<_, String>>()?;
    Ok(Width {
        field: field.to_string(),
        default: number(default)?,
        cases,
        line,
    })
}

/// `span_max N`: the most registers a register operand may span.
pub fn parse_span_max(words: &[&str]) -> Result<u32, String> {
    match words {
        [n] => n
            .parse::<u32>()
            .ok()
            .filter(|n| (1..=8).contains(n))
            .ok_or_else(|| format!("`{n}` is not a register count (1..=8)")),
        _ => Err("`span_max` needs one register count".into()),
    }
}

pub fn parse_role(words: &[&str], line: usize) -> Result<Role, String> {
    let [mnemonic, unit, latency, accesses @ ..] = words else {
        return Err("`role` needs a mnemonic, a unit and a latency".into());
    };
    if !UNITS.contains(unit) {
        return Err(format!(
            "unknown unit `{unit}` (one of {})",
            UNITS.join(", ")
        ));
    }
    let fixed = match *latency {
        "fixed" => true,
        "var" => false,
        other => return Err(format!("latency `{other}` is neither `fixed` nor `var`")),
    };
    Ok(Role {
        mnemonic: mnemonic.to_string(),
        unit: unit.to_string(),
        fixed,
        accesses: accesses
            .iter()
            .map(|a| parse_access(a))
            .collect::<Result<_, _>>()?,
        line,
    })
}

fn parse_access(text: &str) -> Result<Access, String> {
    let bad = || format!("`{text}` is not TARGET:ACCESS[N][/FIELD...][?FLAG]");
    let (target, rest) = text.split_once(':').ok_or_else(bad)?;
    let (rest, when) = match rest.split_once('?') {
        Some((r, flag)) => (r, Some(flag.to_string())),
        None => (rest, None),
    };
    let mut parts = rest.split('/');
    let head = parts.next().ok_or_else(bad)?;
    let write = match head.chars().next() {
        Some('r') => false,
        Some('w') => true,
        _ => return Err(bad()),
    };
    let count = match &head[1..] {
        "" => 1,
        n => n
            .parse()
            .ok()
            .filter(|n| (1..=8).contains(n))
            .ok_or_else(bad)?,
    };
    Ok(Access {
        target: target.to_string(),
        write,
        count,
        per: parts.map(str::to_string).collect(),
        when,
    })
}

/// Every role names an instruction once and every instruction has one; every access names
/// a register or predicate field of its instruction's operands (or `carry`), its widths
/// fields the instruction has and that have a `width` line, its condition a flag; every
/// register and predicate operand has a role.
pub fn check(t: &Table) -> Vec<(usize, String)> {
    let mut errors = Vec::new();
    for w in &t.widths {
        check_width(t, w, &mut errors);
    }
    for insn in &t.insns {
        let roles: Vec<&Role> = t
            .roles
            .iter()
            .filter(|r| r.mnemonic == insn.mnemonic)
            .collect();
        match roles.as_slice() {
            [] => errors.push((insn.line, format!("{} has no `role` line", insn.mnemonic))),
            [role] => check_role(t, insn, role, &mut errors),
            [_, again, ..] => {
                errors.push((again.line, format!("a second role for {}", insn.mnemonic)))
            }
        }
    }
    for role in &t.roles {
        if !t.insns.iter().any(|i| i.mnemonic == role.mnemonic) {
            errors.push((role.line, format!("no instruction `{}`", role.mnemonic)));
        }
    }
    errors
}

fn check_width(t: &Table, w: &Width, errors: &mut Vec<(usize, String)>) {
    let Some(f) = t.fields.iter().find(|f| f.name == w.field) else {
        errors.push((w.line, format!("no field `{}`", w.field)));
        return;
    };
    for (value, _) in &w.cases {
        let known = match &f.kind {
            Kind::Flag => value == "set",
            Kind::Enum(e) => t
                .enums
                .iter()
                .any(|en| &en.name == e && en.values.contains(value)),
            _ => false,
        };
        if !known {
            errors.push((
                w.line,
                format!("`{value}` is no value of field `{}`", w.field),
            ));
        }
    }
    if !t
        .roles
        .iter()
        .flat_map(|r| &r.accesses)
        .any(|a| a.per.contains(&w.field))
    {
        errors.push((w.line, format!("no role uses the width of `{}`", w.field)));
    }
    if t.widths.iter().filter(|o| o.field == w.field).count() > 1 {
        errors.push((
            w.line,
            format!("field `{}` has more than one `width` line", w.field),
        ));
    }
}

fn check_role(t: &Table, insn: &Insn, role: &Role, errors: &mut Vec<(usize, String)>) {
    let fields = t.insn_fields(insn);
    let has = |name: &str| fields.iter().find(|f| f.name == name);
    // A field the generated code can read: a modifier or a plain operand (not a flag that
    // is part of an operand's syntax, like `bi` or `sh`).
    let member = |name: &str| {
        insn.modifiers.iter().any(|m| m == name)
            || insn.operands.contains(&Operand::Field(name.to_string()))
    };
    let mut err = |m: String| errors.push((role.line, format!("{}: {m}", insn.mnemonic)));
    for a in &role.accesses {
        if a.target != "carry" {
            match has(&a.target) {
                Some(f) if matches!(f.kind, Kind::Reg | Kind::Pred) => {
                    if f.kind == Kind::Pred && (a.count != 1 || !a.per.is_empty()) {
                        err(format!("predicate `{}` spans one predicate", a.target));
                    }
                }
                _ => err(format!(
                    "`{}` is not a register or predicate operand",
                    a.target
                )),
            }
        }
        for p in &a.per {
            if !member(p) || !t.widths.iter().any(|w| &w.field == p) {
                err(format!(
                    "width `{p}` is not a modifier or operand with a `width` line"
                ));
            }
        }
        if let Some(flag) = &a.when {
            if !member(flag) || !has(flag).is_some_and(|f| f.kind == Kind::Flag) {
                err(format!(
                    "condition `{flag}` is not a flag modifier of the instruction"
                ));
            }
        }
    }
    for f in operand_regs(t, insn) {
        if !role.accesses.iter().any(|a| a.target == f.name) {
            err(format!("operand `{}` has no role", f.name));
        }
    }
}

/// The register and predicate fields among an instruction's operands.
fn operand_regs<'t>(t: &'t Table, insn: &'t Insn) -> Vec<&'t Field> {
    insn.operands
        .iter()
        .flat_map(Operand::fields)
        .map(|n| t.field(n))
        .filter(|f| matches!(f.kind, Kind::Reg | Kind::Pred))
        .collect()
}

/// Rust: the `Unit` enumeration, `Op::unit`, `Op::fixed_latency` and `Op::roles`.
pub fn rust(w: &mut String, t: &Table) {
    writeln!(w, "/// The unit that executes an instruction.").unwrap();
    writeln!(w, "#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]").unwrap();
    writeln!(w, "pub enum Unit {{").unwrap();
    for u in UNITS {
        writeln!(w, "    {},", camel(u)).unwrap();
    }
    writeln!(w, "}}\n").unwrap();
    writeln!(w, "impl Op {{").unwrap();
    writeln!(w, "    /// The unit that executes it.").unwrap();
    writeln!(
        w,
        "    pub fn unit(&self) -> Unit {{\n        match self {{"
    )
    .unwrap();
    for insn in &t.insns {
        let role = role_of(t, insn);
        writeln!(
            w,
            "            {} => Unit::{},",
            pattern(insn, &[]),
            camel(&role.unit)
        )
        .unwrap();
    }
    writeln!(w, "        }}\n    }}\n").unwrap();
    writeln!(
        w,
        "    /// Whether its result comes a fixed number of cycles after issue (else the unit\n    /// says when: memory, barriers, division)."
    )
    .unwrap();
    writeln!(
        w,
        "    pub fn fixed_latency(&self) -> bool {{\n        match self {{"
    )
    .unwrap();
    for insn in &t.insns {
        writeln!(
            w,
            "            {} => {},",
            pattern(insn, &[]),
            role_of(t, insn).fixed
        )
        .unwrap();
    }
    writeln!(w, "        }}\n    }}\n").unwrap();
    writeln!(
        w,
        "    /// The registers, predicates and carry it reads and writes (immediates and RZ\n    /// omitted), in the order of its `role` line."
    )
    .unwrap();
    writeln!(w, "    pub fn roles(&self) -> Roles {{").unwrap();
    writeln!(w, "        let mut r = Roles::default();").unwrap();
    writeln!(w, "        match *self {{").unwrap();
    for insn in &t.insns {
        let role = role_of(t, insn);
        let mut used: Vec<&str> = Vec::new();
        for a in &role.accesses {
            for name in std::iter::once(&a.target).chain(&a.per).chain(&a.when) {
                if name != "carry" && !used.contains(&name.as_str()) {
                    used.push(name);
                }
            }
        }
        writeln!(w, "            {} => {{", pattern(insn, &used)).unwrap();
        for a in &role.accesses {
            writeln!(w, "                {}", rust_access(t, insn, a)).unwrap();
        }
        writeln!(w, "            }}").unwrap();
    }
    writeln!(w, "        }}\n        r\n    }}\n").unwrap();
    rust_too_wide(w, t);
    writeln!(w, "}}\n").unwrap();
    writeln!(
        w,
        "/// The most registers a register operand spans (the table's `span_max`).\npub const SPAN_MAX: u32 = {};\n",
        t.span_max.unwrap_or(8)
    )
    .unwrap();
    writeln!(
        w,
        "/// The unit that executes the instruction with this opcode (none for an opcode no\n\
         /// instruction has): what is known from the opcode field alone, without decoding."
    )
    .unwrap();
    writeln!(
        w,
        "pub fn unit_of_opcode(opcode: u8) -> Option<Unit> {{\n    match opcode {{"
    )
    .unwrap();
    for insn in &t.insns {
        let role = role_of(t, insn);
        writeln!(
            w,
            "        {:#04x} => Some(Unit::{}),",
            insn.opcode,
            camel(&role.unit)
        )
        .unwrap();
    }
    writeln!(w, "        _ => None,\n    }}\n}}\n").unwrap();
    for wd in &t.widths {
        rust_width(w, t, wd);
    }
}

/// The most registers a `width` line gives its field.
fn max_width(t: &Table, field: &str) -> u32 {
    let wd = t
        .widths
        .iter()
        .find(|w| w.field == field)
        .expect("a width line for every per field (the table was checked)");
    wd.cases.iter().map(|c| c.1).fold(wd.default, u32::max)
}

/// The register accesses of an instruction that some values of their fields make span more
/// than `span_max` registers: a word whose fields do is no instruction.
fn over_span<'t>(t: &'t Table, insn: &Insn) -> Vec<&'t Access> {
    let Some(max) = t.span_max else {
        return Vec::new();
    };
    role_of(t, insn)
        .accesses
        .iter()
        .filter(|a| a.target != "carry" && t.field(&a.target).kind == Kind::Reg)
        .filter(|a| a.count * a.per.iter().map(|p| max_width(t, p)).product::<u32>() > max)
        .collect()
}

/// `Op::too_wide`: the register operand whose fields make it span more than `span_max`
/// registers, which the decoder refuses.
fn rust_too_wide(w: &mut String, t: &Table) {
    writeln!(
        w,
        "    /// The register operand whose fields make it span more than `SPAN_MAX` registers,\n    /// if any: such a word is no instruction (the decoder refuses it)."
    )
    .unwrap();
    writeln!(
        w,
        "    pub fn too_wide(&self) -> Option<&'static str> {{\n        match *self {{"
    )
    .unwrap();
    for insn in &t.insns {
        for a in over_span(t, insn) {
            let used: Vec<&str> = a.per.iter().chain(&a.when).map(String::as_str).collect();
            let mut factors: Vec<String> = a
                .per
                .iter()
                .map(|p| format!("u32::from(width_{p}({p}))"))
                .collect();
            if a.count > 1 {
                factors.insert(0, a.count.to_string());
            }
            let span = factors.join(" * ");
            let when = a
                .when
                .as_ref()
                .map_or(String::new(), |f| format!("{f} && "));
            writeln!(
                w,
                "            {} if {when}{span} > SPAN_MAX => Some(\"{}\"),",
                pattern(insn, &used),
                a.target
            )
            .unwrap();
        }
    }
    writeln!(w, "            _ => None,\n        }}\n    }}").unwrap();
}

/// SystemVerilog expressions, true when an access of `insn` spans more than `span_max`
/// registers: `illegal_word`'s checks beyond the fields' own.
pub fn sv_span_checks(t: &Table, insn: &Insn) -> Vec<String> {
    over_span(t, insn)
        .into_iter()
        .map(|a| {
            let span = sv_span(a);
            let when = a
                .when
                .as_ref()
                .map_or(String::new(), |f| format!("{} && ", slice(f)));
            let max = t
                .span_max
                .expect("only a table with span_max has accesses over it");
            format!("({when}{span} > 8'd{max})")
        })
        .collect()
}

/// `instr`'s bits of field `name`, in `sgpu_isa_pkg`.
fn slice(name: &str) -> String {
    let up = name.to_uppercase();
    format!("instr[{up}_MSB:{up}_LSB]")
}

/// The registers an access spans, 8 bits wide: its count scaled by each width it is `per`.
fn sv_span(a: &Access) -> String {
    a.per.iter().fold(format!("8'd{}", a.count), |n, p| {
        format!("scaled({n}, width_{p}({}))", slice(p))
    })
}

pub fn role_of<'t>(t: &'t Table, insn: &Insn) -> &'t Role {
    t.roles
        .iter()
        .find(|r| r.mnemonic == insn.mnemonic)
        .expect("every instruction has a role (the table was checked)")
}

/// `Op::Ld { rd, ra, .. }` binding the named members.
fn pattern(insn: &Insn, used: &[&str]) -> String {
    let name = camel(&insn.mnemonic.to_lowercase());
    if insn.operands.is_empty() && insn.modifiers.is_empty() {
        return format!("Op::{name}");
    }
    let mut body: Vec<String> = used.iter().map(|s| s.to_string()).collect();
    body.push("..".into());
    format!("Op::{name} {{ {} }}", body.join(", "))
}

/// One statement adding an access to `r`.
fn rust_access(t: &Table, insn: &Insn, a: &Access) -> String {
    let mut factors: Vec<String> = a.per.iter().map(|p| format!("width_{p}({p})")).collect();
    if a.count > 1 || factors.is_empty() {
        factors.insert(0, a.count.to_string());
    }
    let width = factors.join(" * ");
    let push = if a.target == "carry" {
        format!("r.carry_{} = true;", if a.write { "write" } else { "read" })
    } else {
        let f = t.field(&a.target);
        let member = insn
            .operands
            .iter()
            .find(|o| o.fields().first() == Some(&a.target.as_str()))
            .cloned();
        let value = match (&f.kind, member) {
            (Kind::Pred, Some(Operand::NegPred { .. })) => format!("{}.pred", a.target),
            (Kind::Reg, Some(Operand::RegImm { .. })) => format!("{}.reg()", a.target),
            (Kind::Reg, Some(Operand::Surface { .. })) => format!("{}.reg()", a.target),
            (Kind::Reg, _) => format!("Some({})", a.target),
            _ => a.target.clone(),
        };
        let field = format!("fields::{}", a.target.to_uppercase());
        match f.kind {
            Kind::Pred => format!("r.pred({field}, {value}, {});", a.write),
            _ => format!("r.reg({field}, {value}, {width}, {});", a.write),
        }
    };
    match &a.when {
        Some(flag) => format!("if {flag} {{ {push} }}"),
        None => push,
    }
}

/// `fn width_msize(v: Msize) -> u8`: a `width` line as a function.
fn rust_width(w: &mut String, t: &Table, wd: &Width) {
    let f = t.field(&wd.field);
    match &f.kind {
        Kind::Flag => {
            let set = wd.cases.first().map_or(wd.default, |c| c.1);
            writeln!(
                w,
                "fn width_{}(v: bool) -> u8 {{\n    if v {{ {set} }} else {{ {} }}\n}}\n",
                wd.field, wd.default
            )
            .unwrap();
        }
        Kind::Enum(e) => {
            let ty = camel(e);
            writeln!(w, "fn width_{}(v: {ty}) -> u8 {{\n    match v {{", wd.field).unwrap();
            for (value, n) in &wd.cases {
                writeln!(w, "        {ty}::{} => {n},", super::rust::variant(value)).unwrap();
            }
            writeln!(w, "        _ => {},\n    }}\n}}\n", wd.default).unwrap();
        }
        _ => unreachable!("width fields are flags or enums (the table was checked)"),
    }
}

/// SystemVerilog: each instruction's unit and latency kind by opcode.
pub fn sv(w: &mut String, t: &Table) {
    writeln!(w, "  // Execution units (isa/sgpu.isa `role` lines).").unwrap();
    writeln!(w, "  typedef enum logic [2:0] {{").unwrap();
    let names: Vec<String> = UNITS
        .iter()
        .map(|u| format!("    UNIT_{}", u.to_uppercase()))
        .collect();
    writeln!(w, "{}\n  }} unit_e;\n", names.join(",\n")).unwrap();
    sv_case(w, t, "unit_e", "unit_of", &member("UNIT_CONTROL"), |r| {
        member(&format!("UNIT_{}", r.unit.to_uppercase()))
    });
    sv_case(w, t, "logic", "fixed_latency", "1'b0", |r| {
        if r.fixed { "1'b1" } else { "1'b0" }.to_string()
    });
    sv_case(w, t, "logic [3:0]", "reg_writes", "4'b0", |r| {
        mask(r, true, &["rd", "ra", "rb", "rc"])
    });
    sv_case(w, t, "logic [3:0]", "reg_reads", "4'b0", |r| {
        mask(r, false, &["rd", "ra", "rb", "rc"])
    });
    writeln!(
        w,
        "  // `n` times `width`, a `width` line's value (a power of two: the table's check): a\n  \
         // shift, where a multiply would take a DSP block.\n  \
         function automatic logic [7:0] scaled(logic [7:0] n, logic [3:0] width);\n    \
         scaled = width[3] ? n << 3 : width[2] ? n << 2 : width[1] ? n << 1 : width[0] ? n : 8'd0;\n  \
         endfunction\n"
    )
    .unwrap();
    for wd in &t.widths {
        sv_width(w, t, wd);
    }
    for field in ["rd", "ra", "rb", "rc"] {
        sv_reg_count(w, t, field);
    }
}

/// `width_msize(v)`: a `width` line as a function of the field's bits.
fn sv_width(w: &mut String, t: &Table, wd: &Width) {
    let f = t.field(&wd.field);
    writeln!(
        w,
        "  function automatic logic [3:0] width_{}(logic [{}:0] v);",
        wd.field,
        f.width() - 1
    )
    .unwrap();
    writeln!(w, "    case (v)").unwrap();
    for (value, n) in &wd.cases {
        let bits = match &f.kind {
            Kind::Enum(e) => t.enum_(e).values.iter().position(|v| v == value),
            _ => Some(1),
        }
        .expect("width values name the field's values (the table was checked)");
        writeln!(
            w,
            "      {}'d{bits}: width_{} = 4'd{n};",
            f.width(),
            wd.field
        )
        .unwrap();
    }
    writeln!(w, "      default: width_{} = 4'd{};", wd.field, wd.default).unwrap();
    writeln!(w, "    endcase\n  endfunction\n").unwrap();
}

/// `regs_rd(instr)`: how many registers from the one `rd` names the instruction reads or
/// writes (`reg_writes` says which): 0 where the field holds an immediate or a descriptor
/// slot, the role's condition is false, or the instruction has no such operand. RZ is the
/// scoreboard's own business.
fn sv_reg_count(w: &mut String, t: &Table, field: &str) {
    writeln!(
        w,
        "  function automatic logic [3:0] regs_{field}(logic [63:0] instr);"
    )
    .unwrap();
    writeln!(w, "    unique case (instr[OP_MSB:OP_LSB])").unwrap();
    for insn in &t.insns {
        let Some(a) = role_of(t, insn).accesses.iter().find(|a| a.target == field) else {
            continue;
        };
        let count = if a.per.is_empty() {
            format!("4'd{}", a.count)
        } else {
            format!("4'({})", sv_span(a))
        };
        // An operand that may be an immediate or a slot instead: its flag says which.
        let mut conditions: Vec<String> = Vec::new();
        for o in &insn.operands {
            match o {
                Operand::RegImm { reg, flag } if reg == field => {
                    conditions.push(format!("!{}", slice(flag)))
                }
                Operand::Surface { reg, flag } if reg == field => conditions.push(slice(flag)),
                _ => {}
            }
        }
        conditions.extend(a.when.iter().map(|flag| slice(flag)));
        let value = if conditions.is_empty() {
            count
        } else {
            format!("({}) ? {count} : 4'd0", conditions.join(" && "))
        };
        writeln!(
            w,
            "      {}: regs_{field} = {value};",
            member(&format!("OP_{}", insn.mnemonic))
        )
        .unwrap();
    }
    writeln!(w, "      default: regs_{field} = 4'd0;").unwrap();
    writeln!(w, "    endcase\n  endfunction\n").unwrap();
}

/// A 4-bit mask over rc, rb, ra, rd (rd lowest): the fields the role writes (or reads).
fn mask(r: &Role, write: bool, order: &[&str; 4]) -> String {
    let bits: String = order
        .iter()
        .rev()
        .map(|f| {
            let hit = r
                .accesses
                .iter()
                .any(|a| a.target == *f && a.write == write);
            if hit {
                '1'
            } else {
                '0'
            }
        })
        .collect();
    format!("4'b{bits}")
}

fn sv_case(
    w: &mut String,
    t: &Table,
    ty: &str,
    name: &str,
    default: &str,
    value: impl Fn(&Role) -> String,
) {
    writeln!(w, "  function automatic {ty} {name}(logic [7:0] op);").unwrap();
    writeln!(w, "    unique case (op)").unwrap();
    for insn in &t.insns {
        writeln!(
            w,
            "      8'h{:02x}: {name} = {};",
            insn.opcode,
            value(role_of(t, insn))
        )
        .unwrap();
    }
    writeln!(w, "      default: {name} = {default};").unwrap();
    writeln!(w, "    endcase\n  endfunction\n").unwrap();
}

/// Markdown: the roles of an instruction, for its entry in the ISA reference.
pub fn doc(t: &Table, insn: &Insn) -> String {
    let role = role_of(t, insn);
    let accesses: Vec<String> = role
        .accesses
        .iter()
        .map(|a| {
            let mut s = format!(
                "{} `{}`",
                if a.write { "writes" } else { "reads" },
                a.target
            );
            if a.count > 1 || !a.per.is_empty() {
                let mut n = a.count.to_string();
                for p in &a.per {
                    n.push_str(&format!(" x width({p})"));
                }
                s.push_str(&format!(" ({n} registers)"));
            }
            if let Some(flag) = &a.when {
                s.push_str(&format!(" when `{flag}`"));
            }
            s
        })
        .collect();
    let latency = if role.fixed { "fixed" } else { "variable" };
    if accesses.is_empty() {
        format!("unit {}, {latency} latency", role.unit)
    } else {
        format!(
            "unit {}, {latency} latency; {}",
            role.unit,
            accesses.join(", ")
        )
    }
}
