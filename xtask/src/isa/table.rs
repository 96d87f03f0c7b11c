//! Reading `isa/sgpu.isa` into a model, and the checks every backend relies on.

use std::collections::{BTreeMap, BTreeSet};
use std::fmt;

/// A problem in the table, with its line.
#[derive(Debug, PartialEq)]
pub struct TableError {
    pub line: usize,
    pub message: String,
}

impl fmt::Display for TableError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "sgpu.isa:{}: {}", self.line, self.message)
    }
}

#[derive(Clone, Debug, PartialEq)]
pub enum Kind {
    Opcode,
    Reg,
    Pred,
    Flag,
    Uimm,
    Simm,
    Enum(String),
}

#[derive(Debug)]
pub struct Field {
    pub name: String,
    pub msb: u32,
    pub lsb: u32,
    pub kind: Kind,
    /// How a flag prints when set, without the dot.
    pub display: String,
    /// How it prints when clear, for a flag both of whose values a reader must see (`S32/U32`:
    /// a SASS reader takes an unmarked compare as signed); `None` prints nothing.
    pub clear: Option<String>,
    /// Values must be multiples of this (branch targets: whole instructions); 1 for most.
    pub align: u32,
    pub line: usize,
}

impl Field {
    pub fn width(&self) -> u32 {
        self.msb - self.lsb + 1
    }
    pub fn mask(&self) -> u64 {
        (u64::MAX >> (64 - self.width())) << self.lsb
    }
}

#[derive(Debug)]
pub struct Enum {
    pub name: String,
    /// Names in value order, without the parentheses of the default.
    pub values: Vec<String>,
    /// The value that prints nothing, if any.
    pub default: Option<usize>,
    pub line: usize,
}

impl Enum {
    /// How a value prints after a dot, in capitals; empty for the default.
    pub fn printed(&self, i: usize) -> String {
        if self.default == Some(i) {
            String::new()
        } else {
            self.values[i].to_uppercase()
        }
    }
}

/// One operand of an instruction's assembly syntax; the strings name fields.
#[derive(Clone, Debug, PartialEq)]
pub enum Operand {
    Field(String),
    RegImm {
        reg: String,
        flag: String,
    },
    Surface {
        reg: String,
        flag: String,
    },
    NegPred {
        pred: String,
        flag: String,
    },
    Selected {
        reg: String,
        sel: String,
    },
    Address {
        base: String,
        offset: Option<String>,
    },
    Const {
        bank: String,
        base: String,
        offset: String,
    },
}

impl Operand {
    /// The fields it names, in order.
    pub fn fields(&self) -> Vec<&str> {
        match self {
            Operand::Field(f) => vec![f],
            Operand::RegImm { reg, flag } | Operand::Surface { reg, flag } => vec![reg, flag],
            Operand::NegPred { pred, flag } => vec![pred, flag],
            Operand::Selected { reg, sel } => vec![reg, sel],
            Operand::Address { base, offset } => std::iter::once(base.as_str())
                .chain(offset.as_deref())
                .collect(),
            Operand::Const { bank, base, offset } => vec![bank, base, offset],
        }
    }
}

#[derive(Debug)]
pub struct Insn {
    pub mnemonic: String,
    pub opcode: u64,
    pub modifiers: Vec<String>,
    pub operands: Vec<Operand>,
    pub summary: String,
    pub line: usize,
}

/// A number of the hardware ABI (docs/hw.md): an address, a size, a limit, a code.
#[derive(Debug)]
pub struct Const {
    pub name: String,
    pub value: u64,
    pub doc: String,
    pub line: usize,
}

/// A record of 32-bit words the hardware reads from memory (a descriptor, the launch record).
#[derive(Debug)]
pub struct Record {
    pub name: String,
    pub words: u32,
    pub doc: String,
    pub line: usize,
}

/// A field of a record: bits `msb:lsb` of word `word`.
#[derive(Debug)]
pub struct Member {
    pub record: String,
    pub name: String,
    pub word: u32,
    pub msb: u32,
    pub lsb: u32,
    pub doc: String,
    pub line: usize,
}

impl Member {
    /// `surf.width` -> `SURF_WIDTH`, the name every backend gives it.
    pub fn upper(&self) -> String {
        format!("{}_{}", self.record, self.name).to_uppercase()
    }
    pub fn mask(&self) -> u32 {
        (u32::MAX >> (31 - (self.msb - self.lsb))) << self.lsb
    }
}

#[derive(Debug, Default)]
pub struct Table {
    pub fields: Vec<Field>,
    pub enums: Vec<Enum>,
    pub insns: Vec<Insn>,
    pub widths: Vec<super::roles::Width>,
    pub roles: Vec<super::roles::Role>,
    /// The `span_max` line: registers a register operand may span.
    pub span_max: Option<u32>,
    pub consts: Vec<Const>,
    pub records: Vec<Record>,
    pub members: Vec<Member>,
    /// The comment block at the top of the file, for the generated documents.
    pub preamble: Vec<String>,
}

/// The fields every instruction has: opcode and guard.
pub const COMMON_FIELDS: [&str; 3] = ["op", "pg", "pgn"];

impl Table {
    pub fn field(&self, name: &str) -> &Field {
        self.fields
            .iter()
            .find(|f| f.name == name)
            .unwrap_or_else(|| panic!("field `{name}` (the table was checked)"))
    }

    pub fn enum_(&self, name: &str) -> &Enum {
        self.enums
            .iter()
            .find(|e| e.name == name)
            .unwrap_or_else(|| panic!("enum `{name}` (the table was checked)"))
    }

    pub fn opcode_field(&self) -> &Field {
        self.fields
            .iter()
            .find(|f| f.kind == Kind::Opcode)
            .expect("an opcode field (the table was checked)")
    }

    /// Every field an instruction encodes: the common ones, its modifiers, its operands'.
    pub fn insn_fields<'t>(&'t self, insn: &'t Insn) -> Vec<&'t Field> {
        COMMON_FIELDS
            .iter()
            .copied()
            .chain(insn.modifiers.iter().map(String::as_str))
            .chain(insn.operands.iter().flat_map(Operand::fields))
            .map(|n| self.field(n))
            .collect()
    }

    /// The bits an instruction uses; the others must be zero.
    pub fn used_mask(&self, insn: &Insn) -> u64 {
        self.insn_fields(insn).iter().fold(0, |m, f| m | f.mask())
    }
}

/// Parses and checks the table; every problem found is returned, not only the first.
pub fn load(text: &str) -> Result<Table, Vec<TableError>> {
    let mut table = Table::default();
    let mut errors = Vec::new();
    let mut in_preamble = true;
    for (i, raw) in text.lines().enumerate() {
        let line = i + 1;
        let err = |message: String| TableError { line, message };
        if let Some(comment) = raw.strip_prefix('#') {
            if in_preamble {
                table
                    .preamble
                    .push(comment.strip_prefix(' ').unwrap_or("").to_string());
            }
            continue;
        }
        in_preamble = false;
        let words: Vec<&str> = raw.split_whitespace().collect();
        let result = match words.first() {
            None => continue,
            Some(&"field") => parse_field(&words[1..], line).map(|f| table.fields.push(f)),
            Some(&"enum") => parse_enum(&words[1..], line).map(|e| table.enums.push(e)),
            Some(&"insn") => parse_insn(raw, line).map(|i| table.insns.push(i)),
            Some(&"width") => {
                super::roles::parse_width(&words[1..], line).map(|w| table.widths.push(w))
            }
            Some(&"role") => {
                super::roles::parse_role(&words[1..], line).map(|r| table.roles.push(r))
            }
            Some(&"span_max") if table.span_max.is_some() => Err("a second `span_max`".into()),
            Some(&"span_max") => {
                super::roles::parse_span_max(&words[1..]).map(|n| table.span_max = Some(n))
            }
            Some(&"const") => parse_const(raw, line).map(|c| table.consts.push(c)),
            Some(&"record") => parse_record(raw, line).map(|r| table.records.push(r)),
            Some(&"member") => parse_member(raw, line).map(|m| table.members.push(m)),
            Some(other) => Err(format!("unknown directive `{other}`")),
        };
        if let Err(message) = result {
            errors.push(err(message));
        }
    }
    errors.extend(check(&table));
    errors.extend(check_abi(&table));
    if errors.is_empty() {
        // Roles refer to checked fields and instructions.
        let roles = super::roles::check(&table);
        errors.extend(
            roles
                .into_iter()
                .map(|(line, message)| TableError { line, message }),
        );
    }
    if errors.is_empty() {
        Ok(table)
    } else {
        Err(errors)
    }
}

fn parse_field(words: &[&str], line: usize) -> Result<Field, String> {
    let [name, bits, kind, rest @ ..] = words else {
        return Err("expected `field NAME BITS KIND [DISPLAY | align=N]`".into());
    };
    let number = |s: &str| {
        s.parse::<u32>()
            .map_err(|_| format!("`{s}` is not a bit number"))
    };
    let (msb, lsb) = match bits.split_once(':') {
        Some((m, l)) => (number(m)?, number(l)?),
        None => (number(bits)?, number(bits)?),
    };
    if msb < lsb || msb > 63 {
        return Err(format!(
            "bits `{bits}` are not MSB:LSB within a 64-bit word"
        ));
    }
    let kind = match *kind {
        "opcode" => Kind::Opcode,
        "reg" => Kind::Reg,
        "pred" => Kind::Pred,
        "flag" => Kind::Flag,
        "uimm" => Kind::Uimm,
        "simm" => Kind::Simm,
        other => Kind::Enum(other.to_string()),
    };
    let mut display = name.to_uppercase();
    let mut clear = None;
    let mut align = 1;
    match rest {
        [] => {}
        [a] if a.starts_with("align=") => {
            if !matches!(kind, Kind::Uimm | Kind::Simm) {
                return Err("only an immediate takes an alignment".into());
            }
            align = a["align=".len()..]
                .parse::<u32>()
                .ok()
                .filter(|n| n.is_power_of_two() && n.trailing_zeros() < msb - lsb + 1)
                .ok_or_else(|| format!("`{a}` is not a power of two the field can hold"))?;
        }
        [d] if kind == Kind::Flag => match d.split_once('/') {
            Some((set, unset)) => {
                display = set.to_string();
                clear = Some(unset.to_string());
            }
            None => display = d.to_string(),
        },
        _ => return Err("only a flag takes a display name (or two: `SET/CLEAR`)".into()),
    }
    Ok(Field {
        name: name.to_string(),
        msb,
        lsb,
        kind,
        display,
        clear,
        align,
        line,
    })
}

/// The words of an ABI line and its trailing `# comment`, which documents it.
fn with_doc(raw: &str) -> (Vec<&str>, String) {
    let (body, doc) = raw.split_once('#').unwrap_or((raw, ""));
    (
        body.split_whitespace().skip(1).collect(),
        doc.trim().to_string(),
    )
}

/// A decimal or `0x` hexadecimal number; `_` separates digits.
fn number(s: &str) -> Result<u64, String> {
    let digits = s.replace('_', "");
    match digits.strip_prefix("0x") {
        Some(hex) => u64::from_str_radix(hex, 16),
        None => digits.parse(),
    }
    .map_err(|_| format!("`{s}` is not a 64-bit number"))
}

fn parse_const(raw: &str, line: usize) -> Result<Const, String> {
    let (words, doc) = with_doc(raw);
    let [name, value] = words[..] else {
        return Err("expected `const NAME VALUE [# what]`".into());
    };
    Ok(Const {
        name: name.to_string(),
        value: number(value)?,
        doc,
        line,
    })
}

fn parse_record(raw: &str, line: usize) -> Result<Record, String> {
    let (words, doc) = with_doc(raw);
    let [name, count] = words[..] else {
        return Err("expected `record NAME WORDS [# what]`".into());
    };
    let words = number(count)?;
    Ok(Record {
        name: name.to_string(),
        words: u32::try_from(words)
            .ok()
            .filter(|&w| w > 0)
            .ok_or_else(|| format!("record `{name}` of {words} words"))?,
        doc,
        line,
    })
}

fn parse_member(raw: &str, line: usize) -> Result<Member, String> {
    let (words, doc) = with_doc(raw);
    let [path, word, bits] = words[..] else {
        return Err("expected `member RECORD.NAME WORD MSB:LSB [# what]`".into());
    };
    let (record, name) = path
        .split_once('.')
        .ok_or_else(|| format!("`{path}` is not RECORD.NAME"))?;
    let bit = |s: &str| {
        s.parse::<u32>()
            .map_err(|_| format!("`{s}` is not a bit number"))
    };
    let (msb, lsb) = match bits.split_once(':') {
        Some((m, l)) => (bit(m)?, bit(l)?),
        None => (bit(bits)?, bit(bits)?),
    };
    if msb < lsb || msb > 31 {
        return Err(format!(
            "bits `{bits}` are not MSB:LSB within a 32-bit word"
        ));
    }
    Ok(Member {
        record: record.to_string(),
        name: name.to_string(),
        word: u32::try_from(number(word)?).map_err(|_| format!("word `{word}` is too large"))?,
        msb,
        lsb,
        doc,
        line,
    })
}

fn parse_enum(words: &[&str], line: usize) -> Result<Enum, String> {
    let [name, values @ ..] = words else {
        return Err("expected `enum NAME VALUE...`".into());
    };
    if values.is_empty() {
        return Err(format!("enum `{name}` has no values"));
    }
    let mut default = None;
    let mut names = Vec::new();
    for (i, v) in values.iter().enumerate() {
        match v.strip_prefix('(').and_then(|v| v.strip_suffix(')')) {
            Some(inner) if default.is_none() => {
                default = Some(i);
                names.push(inner.to_string());
            }
            Some(_) => return Err(format!("enum `{name}` has two defaults")),
            None => names.push(v.to_string()),
        }
    }
    Ok(Enum {
        name: name.to_string(),
        values: names,
        default,
        line,
    })
}

fn parse_insn(raw: &str, line: usize) -> Result<Insn, String> {
    let parts: Vec<&str> = raw["insn".len()..].split('|').map(str::trim).collect();
    let [head, modifiers, operands, summary] = parts.as_slice() else {
        return Err("expected `insn MNEMONIC OPCODE | MODIFIERS | OPERANDS | SUMMARY`".into());
    };
    let (mnemonic, opcode) = head
        .split_once(char::is_whitespace)
        .ok_or("expected a mnemonic and an opcode")?;
    let opcode = opcode.trim();
    let opcode = u64::from_str_radix(opcode.trim_start_matches("0x"), 16)
        .map_err(|_| format!("opcode `{opcode}` is not hexadecimal"))?;
    let operands = operands
        .split(',')
        .map(str::trim)
        .filter(|o| !o.is_empty())
        .map(parse_operand)
        .collect::<Result<_, _>>()?;
    Ok(Insn {
        mnemonic: mnemonic.to_string(),
        opcode,
        modifiers: modifiers.split_whitespace().map(String::from).collect(),
        operands,
        summary: summary.to_string(),
        line,
    })
}

fn parse_operand(text: &str) -> Result<Operand, String> {
    let pair = |s: &str, sep: char| {
        s.split_once(sep)
            .map(|(a, b)| (a.to_string(), b.to_string()))
            .ok_or_else(|| format!("operand `{text}` is not understood"))
    };
    if let Some(inner) = text
        .strip_prefix("surface(")
        .and_then(|t| t.strip_suffix(')'))
    {
        let (reg, flag) = pair(inner, '/')?;
        return Ok(Operand::Surface { reg, flag });
    }
    if let Some(inner) = text.strip_prefix("c[").and_then(|t| t.strip_suffix(']')) {
        let (bank, address) = pair(inner, ']')?;
        let address = address
            .strip_prefix('[')
            .ok_or_else(|| format!("operand `{text}` is not understood"))?;
        let (base, offset) = pair(address, '+')?;
        return Ok(Operand::Const { bank, base, offset });
    }
    if let Some(inner) = text.strip_prefix('[').and_then(|t| t.strip_suffix(']')) {
        return Ok(match inner.split_once('+') {
            Some((base, offset)) => Operand::Address {
                base: base.to_string(),
                offset: Some(offset.to_string()),
            },
            None => Operand::Address {
                base: inner.to_string(),
                offset: None,
            },
        });
    }
    if let Some(inner) = text.strip_prefix('!') {
        let (pred, flag) = pair(inner, '/')?;
        return Ok(Operand::NegPred { pred, flag });
    }
    if text.contains('/') {
        let (reg, flag) = pair(text, '/')?;
        return Ok(Operand::RegImm { reg, flag });
    }
    if text.contains('.') {
        let (reg, sel) = pair(text, '.')?;
        return Ok(Operand::Selected { reg, sel });
    }
    let valid = text.chars().all(|c| c.is_ascii_alphanumeric() || c == '_');
    if !valid {
        return Err(format!("operand `{text}` is not understood"));
    }
    Ok(Operand::Field(text.to_string()))
}

/// The ABI lines' rules: every name is written once (as the backends spell it, in capitals),
/// every member lies inside its record's words, and no two members of a record share a bit.
fn check_abi(t: &Table) -> Vec<TableError> {
    let mut errors = Vec::new();
    let mut err = |line: usize, message: String| errors.push(TableError { line, message });
    let mut names: BTreeSet<String> = t.fields.iter().map(|f| f.name.to_uppercase()).collect();
    let declared = t
        .consts
        .iter()
        .map(|c| (c.name.to_uppercase(), c.line))
        .chain(
            t.records
                .iter()
                .map(|r| (format!("{}_WORDS", r.name.to_uppercase()), r.line)),
        )
        .chain(t.members.iter().map(|m| (m.upper(), m.line)));
    for (name, line) in declared {
        if !names.insert(name.clone()) {
            err(line, format!("`{name}` is defined twice"));
        }
    }
    for m in &t.members {
        let Some(r) = t.records.iter().find(|r| r.name == m.record) else {
            err(
                m.line,
                format!("`{}.{}`: no record `{}`", m.record, m.name, m.record),
            );
            continue;
        };
        if m.word >= r.words {
            err(
                m.line,
                format!(
                    "`{}.{}`: word {} is outside the record's {} words",
                    m.record, m.name, m.word, r.words
                ),
            );
        }
    }
    for (i, a) in t.members.iter().enumerate() {
        let overlap = t.members[..i]
            .iter()
            .find(|b| b.record == a.record && b.word == a.word && b.mask() & a.mask() != 0);
        if let Some(b) = overlap {
            err(
                a.line,
                format!(
                    "`{}.{}` and `{}.{}` claim the same bits",
                    a.record, a.name, b.record, b.name
                ),
            );
        }
    }
    errors
}

/// The table's consistency rules (STYLE.md, after riscv-opcodes): values fit their fields, no
/// bit is claimed twice within an instruction, no two instructions share an encoding, and
/// every instruction's text form reads back unambiguously.
fn check(t: &Table) -> Vec<TableError> {
    let mut errors = Vec::new();
    let mut err = |line: usize, message: String| errors.push(TableError { line, message });

    let mut names = BTreeSet::new();
    for f in &t.fields {
        if !names.insert(&f.name) {
            err(f.line, format!("field `{}` is defined twice", f.name));
        }
        match &f.kind {
            Kind::Flag if f.width() != 1 => {
                err(f.line, format!("flag `{}` is not one bit", f.name))
            }
            Kind::Reg if f.width() != 8 => {
                err(f.line, format!("register field `{}` is not 8 bits", f.name))
            }
            Kind::Pred if f.width() != 3 => err(
                f.line,
                format!("predicate field `{}` is not 3 bits", f.name),
            ),
            Kind::Enum(e) => match t.enums.iter().find(|x| &x.name == e) {
                None => err(f.line, format!("field `{}`: no enum `{e}`", f.name)),
                Some(x) if x.values.len() as u64 > 1 << f.width() => err(
                    f.line,
                    format!(
                        "enum `{e}` has {} values; field `{}` holds {}",
                        x.values.len(),
                        f.name,
                        1u64 << f.width()
                    ),
                ),
                Some(_) => {}
            },
            _ => {}
        }
    }
    let opcode_fields = t.fields.iter().filter(|f| f.kind == Kind::Opcode).count();
    if opcode_fields != 1 {
        err(
            0,
            format!("{opcode_fields} opcode fields; there must be one"),
        );
    }
    for name in COMMON_FIELDS {
        if !t.fields.iter().any(|f| f.name == name) {
            err(0, format!("the common field `{name}` is missing"));
        }
    }
    let mut enum_names = BTreeSet::new();
    for e in &t.enums {
        if !enum_names.insert(&e.name) {
            err(e.line, format!("enum `{}` is defined twice", e.name));
        }
        let mut seen = BTreeSet::new();
        for v in &e.values {
            if !seen.insert(v) {
                err(e.line, format!("enum `{}` lists `{v}` twice", e.name));
            }
        }
    }
    if !errors.is_empty() || opcode_fields != 1 {
        return errors;
    }

    let op = t.opcode_field();
    let mut mnemonics = BTreeSet::new();
    let mut opcodes: BTreeMap<u64, &str> = BTreeMap::new();
    for insn in &t.insns {
        let mut e = |message: String| {
            errors.push(TableError {
                line: insn.line,
                message: format!("{}: {message}", insn.mnemonic),
            })
        };
        if !mnemonics.insert(&insn.mnemonic) {
            e("mnemonic defined twice".into());
        }
        if insn.opcode >= 1 << op.width() {
            e(format!(
                "opcode {:#x} does not fit {} bits",
                insn.opcode,
                op.width()
            ));
        }
        if let Some(other) = opcodes.insert(insn.opcode, &insn.mnemonic) {
            e(format!("opcode {:#x} is also {other}'s", insn.opcode));
        }
        let all: Vec<&str> = COMMON_FIELDS
            .iter()
            .copied()
            .chain(insn.modifiers.iter().map(String::as_str))
            .chain(insn.operands.iter().flat_map(Operand::fields))
            .collect();
        let unknown: Vec<&&str> = all
            .iter()
            .filter(|n| !t.fields.iter().any(|f| &f.name == *n))
            .collect();
        if !unknown.is_empty() {
            for n in unknown {
                e(format!("no field `{n}`"));
            }
            continue;
        }
        // No bit claimed twice.
        let mut claimed: Vec<(&str, u64)> = Vec::new();
        for name in &all {
            let f = t.field(name);
            if let Some((other, _)) = claimed.iter().find(|(_, m)| m & f.mask() != 0) {
                if other == name {
                    e(format!("field `{name}` is used twice"));
                } else {
                    e(format!("fields `{other}` and `{name}` claim the same bits"));
                }
            }
            claimed.push((name, f.mask()));
        }
        for m in &insn.modifiers {
            let f = t.field(m);
            if !matches!(f.kind, Kind::Flag | Kind::Enum(_)) {
                e(format!("modifier `{m}` is not a flag or an enum"));
            }
        }
        for o in &insn.operands {
            if let Some(problem) = operand_kinds(t, o) {
                e(problem);
            }
        }
        // Modifiers that print alike: the parser gives a name to the first field that takes
        // it, so an earlier field sharing a name must always print.
        let printed = |m: &str| -> Vec<String> {
            let f = t.field(m);
            match &f.kind {
                Kind::Flag => std::iter::once(&f.display)
                    .chain(&f.clear)
                    .map(|d| d.to_uppercase())
                    .collect(),
                Kind::Enum(name) => {
                    let e = t.enum_(name);
                    (0..e.values.len())
                        .map(|i| e.printed(i))
                        .filter(|p| !p.is_empty())
                        .collect()
                }
                _ => vec![],
            }
        };
        let may_be_silent = |m: &str| match &t.field(m).kind {
            Kind::Flag => true,
            Kind::Enum(name) => t.enum_(name).default.is_some(),
            _ => false,
        };
        for (i, a) in insn.modifiers.iter().enumerate() {
            for b in &insn.modifiers[i + 1..] {
                let (pa, pb) = (printed(a), printed(b));
                if let Some(shared) = pa.iter().find(|n| pb.contains(n)) {
                    if may_be_silent(a) {
                        e(format!(
                            "`.{shared}` could be `{a}` or `{b}`, and `{a}` may print nothing"
                        ));
                    }
                }
            }
        }
    }
    errors
}

/// Whether an operand's fields have the kinds its syntax needs.
fn operand_kinds(t: &Table, o: &Operand) -> Option<String> {
    let k = |n: &str| &t.field(n).kind;
    let ok = match o {
        Operand::Field(f) => !matches!(k(f), Kind::Flag | Kind::Opcode),
        Operand::RegImm { reg, flag } | Operand::Surface { reg, flag } => {
            *k(reg) == Kind::Reg && *k(flag) == Kind::Flag
        }
        Operand::NegPred { pred, flag } => *k(pred) == Kind::Pred && *k(flag) == Kind::Flag,
        Operand::Selected { reg, sel } => *k(reg) == Kind::Reg && matches!(k(sel), Kind::Enum(_)),
        Operand::Address { base, offset } => {
            *k(base) == Kind::Reg && offset.as_ref().is_none_or(|o| *k(o) == Kind::Simm)
        }
        Operand::Const { bank, base, offset } => {
            *k(bank) == Kind::Uimm && *k(base) == Kind::Reg && *k(offset) == Kind::Simm
        }
    };
    (!ok).then(|| format!("operand `{o:?}` has fields of the wrong kinds"))
}

#[cfg(test)]
mod tests {
    use super::*;

    const BASE: &str = "field op 7:0 opcode\nfield pg 10:8 pred\nfield pgn 11 flag\n\
                        field rd 19:12 reg\nfield ra 27:20 reg\nfield f 12 flag\n\
                        enum e (z) a b\nfield m 29:28 e\nfield m2 31:30 e\n\
                        field mm 27:26 e\n";

    fn errors(extra: &str) -> Vec<String> {
        match load(&format!("{BASE}{extra}")) {
            Ok(_) => vec![],
            Err(e) => e.into_iter().map(|e| e.message).collect(),
        }
    }

    #[test]
    fn the_shipped_table_is_consistent() {
        let table = load(include_str!("../../../isa/sgpu.isa")).unwrap_or_else(|e| {
            panic!(
                "{}",
                e.iter()
                    .map(|e| e.to_string())
                    .collect::<Vec<_>>()
                    .join("\n")
            )
        });
        assert!(table.insns.len() > 60);
    }

    #[test]
    fn a_good_instruction_passes() {
        assert_eq!(
            errors("insn ADD 0x01 | m | rd, ra | adds\nrole ADD int fixed rd:w ra:r\n"),
            Vec::<String>::new()
        );
    }

    #[test]
    fn roles_must_match_their_instructions() {
        let add = "field fl 40 flag\ninsn ADD 0x01 | m fl | rd, ra | adds\n";
        assert_eq!(errors(add), ["ADD has no `role` line"]);
        let e = errors(&format!("{add}role ADD int fixed rd:w\n"));
        assert_eq!(e, ["ADD: operand `ra` has no role"]);
        let e = errors(&format!("{add}role ADD alu fixed rd:w ra:r\n"));
        assert_eq!(
            e,
            ["unknown unit `alu` (one of control, int, float, sfu, mem, surface, warp, video)"]
        );
        let e = errors(&format!("{add}role ADD int soon rd:w ra:r\n"));
        assert_eq!(e, ["latency `soon` is neither `fixed` nor `var`"]);
        let e = errors(&format!("{add}role ADD int fixed rd:w ra:r m:r\n"));
        assert_eq!(e, ["ADD: `m` is not a register or predicate operand"]);
        let e = errors(&format!("{add}role ADD int fixed rd:w/m ra:r?pg\n"));
        assert_eq!(
            e,
            [
                "ADD: width `m` is not a modifier or operand with a `width` line",
                "ADD: condition `pg` is not a flag modifier of the instruction"
            ]
        );
        let e = errors(&format!(
            "{add}role ADD int fixed rd:w9 ra:r\nrole ADD int var\n"
        ));
        assert_eq!(e, ["`rd:w9` is not TARGET:ACCESS[N][/FIELD...][?FLAG]"]);
        let e = errors(&format!(
            "{add}role ADD int fixed rd:w ra:r\nrole ADD int var\n"
        ));
        assert_eq!(e, ["a second role for ADD"]);
    }

    #[test]
    fn widths_must_name_values_and_be_used() {
        let add = "field fl 40 flag\ninsn ADD 0x01 | m fl | rd, ra | adds\n";
        let e = errors(&format!(
            "{add}width m 1 a=2 c=4\nwidth fl 1 set=2\nrole ADD int fixed rd:w/m ra:r?fl\n"
        ));
        assert_eq!(
            e,
            [
                "`c` is no value of field `m`",
                "no role uses the width of `fl`"
            ]
        );
        let e = errors(&format!("{add}width m 0\nrole ADD int fixed rd:w ra:r\n"));
        assert_eq!(e, ["`0` is not a register count of 1, 2, 4 or 8"]);
        // A power of two: the hardware scales by it with a shift.
        let e = errors(&format!(
            "{add}width m 1 a=3\nrole ADD int fixed rd:w/m ra:r\n"
        ));
        assert_eq!(e, ["`3` is not a register count of 1, 2, 4 or 8"]);
    }

    #[test]
    fn span_max_is_one_register_count() {
        let add =
            "insn ADD 0x01 | m | rd, ra | adds\nrole ADD int fixed rd:w/m ra:r\nwidth m 1 a=8\n";
        assert_eq!(errors(&format!("{add}span_max 4\n")), Vec::<String>::new());
        let e = errors(&format!("{add}span_max 4\nspan_max 2\n"));
        assert_eq!(e, ["a second `span_max`"]);
        let e = errors(&format!("{add}span_max 9\n"));
        assert_eq!(e, ["`9` is not a register count (1..=8)"]);
        let e = errors(&format!("{add}span_max\n"));
        assert_eq!(e, ["`span_max` needs one register count"]);
    }

    #[test]
    fn overlapping_fields_are_reported() {
        let e = errors("insn ADD 0x01 | f | rd | adds\n");
        assert_eq!(e, ["ADD: fields `f` and `rd` claim the same bits"]);
        let e = errors("insn ADD 0x01 | mm | ra | adds\n");
        assert_eq!(e, ["ADD: fields `mm` and `ra` claim the same bits"]);
        let e = errors("insn ADD 0x01 | | rd, rd | adds\n");
        assert_eq!(e, ["ADD: field `rd` is used twice"]);
    }

    #[test]
    fn opcode_collisions_and_overflow_are_reported() {
        let e = errors("insn A 0x01 | | | a\ninsn B 0x01 | | | b\ninsn C 0x100 | | | c\n");
        assert_eq!(
            e,
            [
                "B: opcode 0x1 is also A's",
                "C: opcode 0x100 does not fit 8 bits"
            ]
        );
    }

    #[test]
    fn values_that_do_not_fit_are_reported() {
        let e = errors("enum big a b c d e\nfield g 41:40 big\n");
        assert_eq!(e, ["enum `big` has 5 values; field `g` holds 4"]);
        let e = errors("field wide 41:40 flag\n");
        assert_eq!(e, ["flag `wide` is not one bit"]);
    }

    #[test]
    fn bad_alignments_are_reported() {
        assert_eq!(errors("field t 47:40 simm align=8\n"), Vec::<String>::new());
        let e = errors("field t 47:40 simm align=6\nfield u 41:40 uimm align=4\n");
        assert_eq!(
            e,
            [
                "`align=6` is not a power of two the field can hold",
                "`align=4` is not a power of two the field can hold"
            ]
        );
        let e = errors("field g 40 flag align=2\n");
        assert_eq!(e, ["only an immediate takes an alignment"]);
    }

    #[test]
    fn ambiguous_modifiers_are_reported() {
        // `m` may print nothing, so a lone `.A` could belong to `m` or `m2`.
        let e = errors("insn A 0x01 | m m2 | | a\n");
        assert_eq!(
            e,
            ["A: `.A` could be `m` or `m2`, and `m` may print nothing"]
        );
    }

    #[test]
    fn abi_lines_are_read_with_their_documentation() {
        let t = load(&format!(
            "{BASE}const big 0x1_0000_0000 # four GiB\nrecord desc 2 # a record\n\
             member desc.lo 0 15:0 # low half\nmember desc.flag 1 31\n"
        ))
        .unwrap();
        assert_eq!(
            (t.consts[0].value, t.consts[0].doc.as_str()),
            (1 << 32, "four GiB")
        );
        assert_eq!(t.records[0].words, 2);
        assert_eq!(t.members[0].upper(), "DESC_LO");
        assert_eq!(t.members[0].mask(), 0xffff);
        assert_eq!((t.members[1].msb, t.members[1].lsb), (31, 31));
    }

    #[test]
    fn bad_abi_lines_are_reported() {
        let e = errors(
            "const x 12z\nconst rd 1\nrecord r 2\nmember r.a 2 3:0\nmember r.b 1 40:0\n\
             member r.c 0 7:0\nmember r.d 0 8:4\nmember q.e 0 1:0\nconst r_c 5\n",
        );
        assert_eq!(
            e,
            [
                "`12z` is not a 64-bit number",
                "bits `40:0` are not MSB:LSB within a 32-bit word",
                "`RD` is defined twice",
                "`R_C` is defined twice",
                "`r.a`: word 2 is outside the record's 2 words",
                "`q.e`: no record `q`",
                "`r.d` and `r.c` claim the same bits",
            ]
        );
    }

    #[test]
    fn unknown_names_and_kinds_are_reported() {
        let e =
            errors("insn A 0x01 | zz | | a\ninsn B 0x02 | rd | | b\ninsn C 0x03 | | rd/ra | c\n");
        assert_eq!(
            e,
            [
                "A: no field `zz`",
                "B: modifier `rd` is not a flag or an enum",
                "C: operand `RegImm { reg: \"rd\", flag: \"ra\" }` has fields of the wrong kinds"
            ]
        );
    }
}
