//! Every form of suld, sust, sured, suq and the scalar and SIMD video instructions, generated: each
//! valid combination must check cleanly, and each invalid one must get an error on its own
//! line. The generated modules were also fed to NVIDIA ptxas 12.9 (`PTXAS_RS_DUMP=1 cargo test
//! --test surface_video_forms` writes them to target/): it accepts every line accepted here and
//! rejects every line rejected here, except the three laxities listed in docs/ptx-dialect.md.

const HEADER: &str = ".version 8.1\n.target sm_80\n.address_size 64\n.global .surfref surf;\n";

struct Gen {
    body: Vec<String>,
    /// Lines (1-based, in the whole module) that must carry an error.
    bad: std::collections::HashSet<usize>,
}

impl Gen {
    fn new() -> Gen {
        Gen {
            body: Vec::new(),
            bad: Default::default(),
        }
    }

    fn ok(&mut self, line: String) {
        self.body.push(line);
    }

    fn bad(&mut self, line: String) {
        self.body.push(line);
        self.bad.insert(self.first_line() + self.body.len() - 1);
    }

    fn first_line(&self) -> usize {
        // The header, `.visible .entry ...`, `{`, the registers, then the body.
        HEADER.lines().count() + 2 + REGISTERS.lines().count() + 1
    }

    fn module(&self) -> String {
        format!(
            "{HEADER}.visible .entry k (.param .u64 p)\n{{\n{REGISTERS}\n{}\n\tret;\n}}\n",
            self.body.join("\n")
        )
    }

    /// Checks the module: no error outside the bad lines, at least one on each bad line.
    fn verify(&self, what: &str) {
        let source = self.module();
        if std::env::var_os("PTXAS_RS_DUMP").is_some() {
            let path = format!("{}/target/{what}.ptx", env!("CARGO_MANIFEST_DIR"));
            std::fs::write(&path, &source).unwrap_or_else(|e| panic!("{path}: {e}"));
        }
        let (module, mut diags) = ptx_grammar::parse(&source);
        assert!(diags.is_empty(), "{what}: syntax errors: {diags:?}");
        diags.extend(ptx_grammar::check(&module));
        let index = ptx_grammar::diag::LineIndex::new(&source);
        let lines: std::collections::HashSet<usize> = diags
            .iter()
            .filter(|d| d.is_error())
            .map(|d| index.line_col(d.span.start as usize).0)
            .collect();
        let text: Vec<&str> = source.lines().collect();
        for d in diags.iter().filter(|d| d.is_error()) {
            let line = index.line_col(d.span.start as usize).0;
            assert!(
                self.bad.contains(&line),
                "{what}: unexpected error on `{}`: {}",
                text[line - 1].trim(),
                d.message
            );
        }
        for &line in &self.bad {
            assert!(
                lines.contains(&line),
                "{what}: no error for `{}`",
                text[line - 1].trim()
            );
        }
        assert!(
            self.body.len() > self.bad.len(),
            "{what}: nothing valid was generated"
        );
    }
}

const REGISTERS: &str =
    "\t.reg .b16 %h<4>;\n\t.reg .b32 %r<8>;\n\t.reg .b64 %rd<8>;\n\t.reg .f32 %f<4>;";

const GEOMETRIES: &[(&str, &str)] = &[
    ("1d", "{%r1}"),
    ("2d", "{%r1, %r2}"),
    ("3d", "{%r1, %r2, %r3, %r4}"),
    ("a1d", "{%r1, %r2}"),
    ("a2d", "{%r1, %r2, %r3, %r4}"),
];
const CLAMPS: &[&str] = &["trap", "clamp", "zero"];
const VECTORS: &[(&str, usize)] = &[("", 1), (".v2", 2), (".v4", 4)];

/// `n` registers holding `bits`-wide data, as a scalar or a vector.
fn data(bits: u32, n: usize) -> String {
    let reg = match bits {
        8 | 16 => "%h",
        32 => "%r",
        _ => "%rd",
    };
    let regs: Vec<String> = (0..n).map(|i| format!("{reg}{i}")).collect();
    if n == 1 {
        regs[0].clone()
    } else {
        format!("{{{}}}", regs.join(", "))
    }
}

#[test]
fn every_suld_and_sust_form() {
    let mut g = Gen::new();
    for (i, (geom, coords)) in GEOMETRIES.iter().enumerate() {
        // Alternate the named surface and an indirect handle in a .u64 register.
        let surf = if i % 2 == 0 { "surf" } else { "%rd7" };
        for clamp in CLAMPS {
            for (vec, n) in VECTORS {
                for bits in [8, 16, 32, 64] {
                    let too_wide = *n as u32 * bits > 128;
                    for cop in ["", ".ca", ".cg", ".cs", ".cv"] {
                        let line = format!(
                            "\tsuld.b.{geom}{cop}{vec}.b{bits}.{clamp} {}, [{surf}, {coords}];",
                            data(bits, *n)
                        );
                        if too_wide {
                            g.bad(line)
                        } else {
                            g.ok(line)
                        }
                    }
                    for cop in ["", ".wb", ".cg", ".cs", ".wt"] {
                        let line = format!(
                            "\tsust.b.{geom}{cop}{vec}.b{bits}.{clamp} [{surf}, {coords}], {};",
                            data(bits, *n)
                        );
                        if too_wide {
                            g.bad(line)
                        } else {
                            g.ok(line)
                        }
                    }
                }
                g.ok(format!(
                    "\tsust.p.{geom}{vec}.b32.{clamp} [{surf}, {coords}], {};",
                    data(32, *n)
                ));
                g.bad(format!(
                    "\tsust.p.{geom}{vec}.b16.{clamp} [{surf}, {coords}], {};",
                    data(16, *n)
                ));
            }
            // Wrong coordinate count for the geometry; and wrong vector arity for the data.
            let wrong = if coords.matches(',').count() == 0 {
                "{%r1, %r2}"
            } else {
                "{%r1, %r2, %r3}"
            };
            g.bad(format!(
                "\tsuld.b.{geom}.b32.{clamp} %r0, [{surf}, {wrong}];"
            ));
            g.bad(format!(
                "\tsust.b.{geom}.v4.b32.{clamp} [{surf}, {coords}], {{%r0, %r1}};"
            ));
        }
        // The clamp mode is required; cache ops are per direction.
        g.bad(format!("\tsuld.b.{geom}.b32 %r0, [{surf}, {coords}];"));
        g.bad(format!(
            "\tsuld.b.{geom}.wb.b32.trap %r0, [{surf}, {coords}];"
        ));
        g.bad(format!(
            "\tsust.b.{geom}.ca.b32.trap [{surf}, {coords}], %r0;"
        ));
    }
    g.bad("\tsuld.b.1d.b32.trap %r0, [%r5, {%r1}];".into());
    g.verify("suld_sust");
}

#[test]
fn every_sured_and_suq_form() {
    let mut g = Gen::new();
    let types = ["u32", "u64", "s32", "b32", "s64", "b64"];
    for (geom, coords) in &GEOMETRIES[..3] {
        for clamp in CLAMPS {
            for op in ["add", "min", "max", "and", "or"] {
                for ty in types {
                    let reg = if ty.ends_with("64") { "%rd0" } else { "%r0" };
                    // sured.b: add on u32/u64/s32; min/max on u32/s32/u64/s64; and/or on b32.
                    let b_ok = match op {
                        "add" => ["u32", "u64", "s32"].contains(&ty),
                        "min" | "max" => ["u32", "s32", "u64", "s64"].contains(&ty),
                        _ => ty == "b32",
                    };
                    let line =
                        format!("\tsured.b.{op}.{geom}.{ty}.{clamp} [surf, {coords}], {reg};");
                    if b_ok {
                        g.ok(line)
                    } else {
                        g.bad(line)
                    }
                    // sured.p: .b32 for every op, .b64 for min and max only.
                    let p_ok = ty == "b32" || (ty == "b64" && matches!(op, "min" | "max"));
                    let line =
                        format!("\tsured.p.{op}.{geom}.{ty}.{clamp} [%rd7, {coords}], {reg};");
                    if p_ok {
                        g.ok(line)
                    } else {
                        g.bad(line)
                    }
                }
            }
        }
    }
    g.bad("\tsured.b.add.a1d.u32.trap [surf, {%r1, %r2}], %r0;".into());
    g.bad("\tsured.b.xor.1d.b32.trap [surf, {%r1}], %r0;".into());
    for query in [
        "width",
        "height",
        "depth",
        "channel_data_type",
        "channel_order",
        "array_size",
        "memory_layout",
    ] {
        g.ok(format!("\tsuq.{query}.b32 %r0, [surf];"));
        g.ok(format!("\tsuq.{query}.b32 %r0, [%rd7];"));
        g.bad(format!("\tsuq.{query}.u64 %rd0, [surf];"));
    }
    g.bad("\tsuq.size.b32 %r0, [surf];".into());
    g.bad("\tsuq.width.b32 %r0, [surf, {%r1}];".into());
    g.verify("sured_suq");
}

const SELECTORS: &[&str] = &["", ".b0", ".b1", ".b2", ".b3", ".h0", ".h1"];
const SIGNS: &[&str] = &["u32", "s32"];

#[test]
fn every_scalar_video_form() {
    let mut g = Gen::new();
    for op in ["vadd", "vsub", "vabsdiff", "vmin", "vmax", "vshl", "vshr"] {
        let shift = op.starts_with("vsh");
        for d in SIGNS {
            for a in SIGNS {
                for b in SIGNS {
                    if shift && *b == "s32" {
                        g.bad(format!("\t{op}.{d}.{a}.{b}.clamp %r0, %r1, %r2;"));
                        continue;
                    }
                    let mode = if shift { ".wrap" } else { "" };
                    for sat in ["", ".sat"] {
                        for (i, asel) in SELECTORS.iter().enumerate() {
                            // All of a's selectors against a rotating choice of b's keeps the
                            // module small while every pair of kinds (byte, half, none) occurs.
                            let bsel = SELECTORS[(i * 3 + sat.len()) % SELECTORS.len()];
                            let ty = format!("{op}.{d}.{a}.{b}{sat}{mode}");
                            g.ok(format!("\t{ty} %r0, %r1{asel}, %r2{bsel};"));
                            for secop in [".add", ".min", ".max"] {
                                g.ok(format!("\t{ty}{secop} %r0, %r1{asel}, %r2{bsel}, %r3;"));
                                g.bad(format!("\t{ty}{secop} %r0.h1, %r1{asel}, %r2{bsel}, %r3;"));
                            }
                            for dsel in &SELECTORS[1..] {
                                g.ok(format!("\t{ty} %r0{dsel}, %r1{asel}, %r2{bsel}, %r3;"));
                                g.bad(format!("\t{ty} %r0{dsel}, %r1{asel}, %r2{bsel};"));
                            }
                        }
                    }
                }
            }
        }
        let mode = if shift { ".clamp" } else { "" };
        g.bad(format!("\t{op}.u32.u32.u32{mode} %r0, -%r1, %r2;"));
        g.bad(format!(
            "\t{op}.u32.u32.u32{mode}.add %r0, %r1, %r2, %r3.b0;"
        ));
        g.bad(format!("\t{op}.u32.u32.u32{mode}.add %r0, %r1, %r2;"));
        g.bad(format!("\t{op}.u32.u32.u32{mode} %rd0, %r1, %r2;"));
    }
    g.bad("\tvshl.u32.u32.u32 %r0, %r1, %r2;".into());

    for d in SIGNS {
        for a in SIGNS {
            for b in SIGNS {
                for sat in ["", ".sat"] {
                    for scale in ["", ".shr7", ".shr15"] {
                        let ty = format!("vmad.{d}.{a}.{b}");
                        for (i, asel) in SELECTORS.iter().enumerate() {
                            let bsel = SELECTORS[(i * 5 + scale.len()) % SELECTORS.len()];
                            // The product a*b is negated when exactly one of a, b is; it and
                            // c may not both be negated.
                            for (na, nb, nc) in [
                                ("", "", ""),
                                ("-", "", ""),
                                ("", "-", ""),
                                ("", "", "-"),
                                ("-", "-", ""),
                                ("-", "-", "-"),
                            ] {
                                g.ok(format!("\t{ty}{sat}{scale} %r0, {na}%r1{asel}, {nb}%r2{bsel}, {nc}%r3;"));
                            }
                            for (na, nb) in [("-", ""), ("", "-")] {
                                g.bad(format!(
                                    "\t{ty}{sat}{scale} %r0, {na}%r1{asel}, {nb}%r2{bsel}, -%r3;"
                                ));
                            }
                            g.ok(format!(
                                "\t{ty}.po{sat}{scale} %r0, %r1{asel}, %r2{bsel}, %r3;"
                            ));
                            g.bad(format!(
                                "\t{ty}.po{sat}{scale} %r0, -%r1{asel}, %r2{bsel}, %r3;"
                            ));
                            g.bad(format!(
                                "\t{ty}.po{sat}{scale} %r0, %r1{asel}, %r2{bsel}, -%r3;"
                            ));
                        }
                    }
                }
            }
        }
    }
    g.bad("\tvmad.u32.u32.u32 %r0.h0, %r1, %r2, %r3;".into());
    g.bad("\tvmad.u32.u32.u32.shr7.shr15 %r0, %r1, %r2, %r3;".into());
    g.bad("\tvmad.u32.u32.u32 %r0, %r1, %r2;".into());

    for a in SIGNS {
        for b in SIGNS {
            for cmp in ["eq", "ne", "lt", "le", "gt", "ge"] {
                for (i, asel) in SELECTORS.iter().enumerate() {
                    let bsel = SELECTORS[(i * 3 + cmp.len()) % SELECTORS.len()];
                    let ty = format!("vset.{a}.{b}.{cmp}");
                    g.ok(format!("\t{ty} %r0, %r1{asel}, %r2{bsel};"));
                    for secop in [".add", ".min", ".max"] {
                        g.ok(format!("\t{ty}{secop} %r0, %r1{asel}, %r2{bsel}, %r3;"));
                    }
                    for dsel in &SELECTORS[1..] {
                        g.ok(format!("\t{ty} %r0{dsel}, %r1{asel}, %r2{bsel}, %r3;"));
                    }
                }
                g.bad(format!("\tvset.{a}.{b}.{cmp}.sat %r0, %r1, %r2;"));
            }
        }
    }
    g.bad("\tvset.u32.u32.lo %r0, %r1, %r2;".into());
    g.verify("video");
}

/// Two-way and four-way SIMD video: every opcode, type, `.sat`/`.add` and destination mask,
/// every element selector digit in every place, and the misplaced or malformed selectors,
/// immediates and modifiers ptxas rejects.
#[test]
fn every_simd_video_form() {
    let mut g = Gen::new();
    let arith = ["vadd", "vsub", "vavrg", "vabsdiff", "vmin", "vmax"];
    for n in [2usize, 4] {
        let (masks, sels): (Vec<String>, Vec<String>) = if n == 2 {
            let masks = ["", ".h0", ".h1", ".h10"].map(String::from).to_vec();
            let sels = (0..16).map(|k| format!(".h{}{}", k / 4, k % 4)).collect();
            (masks, sels)
        } else {
            // Every subset of the four bytes, written in descending order.
            let masks = (0..16u32)
                .map(|m| match m {
                    0 => String::new(),
                    m => format!(
                        ".b{}",
                        (0..4)
                            .rev()
                            .filter(|i| m >> i & 1 != 0)
                            .map(|i| i.to_string())
                            .collect::<String>()
                    ),
                })
                .collect();
            // Each digit 0..7 in each place, with a spread of the others.
            let sels = (0..32)
                .map(|k: usize| {
                    format!(
                        ".b{}{}{}{}",
                        k % 8,
                        (k / 4) % 8,
                        (k * 3 + 1) % 8,
                        (k * 5 + 2) % 8
                    )
                })
                .collect();
            (masks, sels)
        };
        let mut k = 0;
        let mut next_sel = || {
            k += 1;
            (
                sels[k % sels.len()].clone(),
                sels[(k * 7 + 3) % sels.len()].clone(),
            )
        };
        for op in arith {
            for d in SIGNS {
                for a in SIGNS {
                    for b in SIGNS {
                        for fin in ["", ".sat", ".add"] {
                            for mask in &masks {
                                let (asel, bsel) = next_sel();
                                g.ok(format!("\t{op}{n}.{d}.{a}.{b}{fin} %r0{mask}, %r1{asel}, %r2{bsel}, %r3;"));
                            }
                        }
                    }
                }
            }
            let ty = format!("{op}{n}.u32.u32.u32");
            g.bad(format!("\t{ty}.sat.add %r0, %r1, %r2, %r3;"));
            g.bad(format!("\t{ty}.min %r0, %r1, %r2, %r3;"));
            g.bad(format!("\t{ty} %r0, %r1, %r2;"));
            g.bad(format!("\t{ty} %r0, -%r1, %r2, %r3;"));
            g.bad(format!("\t{ty} %r0, %r1, %r2, 5;"));
            g.bad(format!("\t{ty} %r0, 7, %r2, %r3;"));
            g.bad(format!("\t{op}{n}.u32.u32 %r0, %r1, %r2, %r3;"));
        }
        for a in SIGNS {
            for b in SIGNS {
                for cmp in ["eq", "ne", "lt", "le", "gt", "ge"] {
                    for fin in ["", ".add"] {
                        for mask in &masks {
                            let (asel, bsel) = next_sel();
                            g.ok(format!("\tvset{n}.{a}.{b}.{cmp}{fin} %r0{mask}, %r1{asel}, %r2{bsel}, %r3;"));
                        }
                    }
                }
            }
        }
        g.bad(format!("\tvset{n}.u32.u32.lt.sat %r0, %r1, %r2, %r3;"));
        g.bad(format!("\tvset{n}.u32.u32.lt.max %r0, %r1, %r2, %r3;"));
        g.bad(format!("\tvset{n}.u32.u32.u32.lt %r0, %r1, %r2, %r3;"));
        g.bad(format!("\tvset{n}.u32.u32 %r0, %r1, %r2, %r3;"));
    }
    // Destination masks: ascending, repeated, out of range, of the other width.
    for dm in [".h01", ".h2", ".h11", ".b10", ".h"] {
        g.bad(format!("\tvadd2.u32.u32.u32 %r0{dm}, %r1, %r2, %r3;"));
    }
    for dm in [
        ".b01", ".b00", ".b4", ".b2100", ".b3211", ".h10", ".b", ".b43210",
    ] {
        g.bad(format!("\tvmax4.u32.u32.u32 %r0{dm}, %r1, %r2, %r3;"));
    }
    // Source selectors: too short, too long, out of range, of the other width; none on c.
    for sel in [".h1", ".h123", ".h4", ".h40", ".b3210", ".b10"] {
        g.bad(format!("\tvsub2.s32.s32.s32 %r0, %r1{sel}, %r2, %r3;"));
        g.bad(format!("\tvset2.s32.s32.ne %r0, %r1, %r2{sel}, %r3;"));
    }
    for sel in [".b321", ".b76543", ".b8765", ".b3290", ".h10", ".b0"] {
        g.bad(format!("\tvavrg4.s32.s32.s32 %r0, %r1{sel}, %r2, %r3;"));
        g.bad(format!("\tvset4.s32.s32.ne %r0, %r1, %r2{sel}, %r3;"));
    }
    g.bad("\tvadd2.u32.u32.u32 %r0, %r1, %r2, %r3.h0;".into());
    g.bad("\tvadd4.u32.u32.u32.add %r0, %r1, %r2, %r3.b3210;".into());
    g.verify("simd_video");
}
