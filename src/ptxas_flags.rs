//! NVIDIA ptxas's spellings of its options. ptxas takes its long options with one dash too
//! (`-arch sgpu`, `-maxrregcount=32`, `-lineinfo`), which clap would read as bundles of short
//! flags (`-a -r -c -h`); they are rewritten to their `--` forms before clap sees them.
//! A single-dash word that is not one of them is refused here, naming it, rather than
//! reaching clap as a bundle and getting a misleading tip.

use std::ffi::OsString;

/// ptxas's single-dash long names and the `--` option each is.
const SINGLE_DASH: [(&str, &str); 7] = [
    ("arch", "gpu-name"),
    ("maxrregcount", "maxrregcount"),
    ("lineinfo", "generate-line-info"),
    ("Werror", "warning-as-error"),
    ("warn-spills", "warn-on-spills"),
    ("warn-lmem-usage", "warn-on-local-memory-usage"),
    ("fmad", "fmad"),
];

/// ptxas options that have no meaning on sgpu, by their short and long names, and why.
const REFUSED: [(&str, &str, &str); 4] = [
    (
        "-c",
        "--compile-only",
        "sgpu has no linker: a module is assembled whole into a loadable ELF",
    ),
    (
        "-e",
        "--entry",
        "every function of the module is assembled; `run --launch` picks the kernel",
    ),
    (
        "-astoolspatch",
        "--compile-as-tools-patch",
        "there are no CUDA tools on sgpu to patch",
    ),
    ("-ias", "--input-as-string", "give the PTX module as a file"),
];

/// Short options that take their value in the same word (`-O3`, `-m64`, `-oout.elf`), and
/// what that value may look like.
fn is_short_with_value(word: &str) -> bool {
    let mut chars = word.chars();
    match chars.next() {
        Some('o') => true,
        Some('O' | 'm') => chars.all(|c| c.is_ascii_digit()),
        _ => false,
    }
}

/// `args` (without the program name) with ptxas's single-dash long options in their `--`
/// form, or why one cannot be taken. Nothing after `--` is touched.
pub fn normalize(args: Vec<OsString>) -> Result<Vec<OsString>, String> {
    let mut out = Vec::with_capacity(args.len());
    let mut options = true;
    for arg in args {
        let text = arg.to_str().unwrap_or("");
        if !options || !text.starts_with('-') || text == "-" {
            out.push(arg);
            continue;
        }
        let (name, value) = text.split_once('=').unwrap_or((text, ""));
        if let Some((_, _, why)) = REFUSED.iter().find(|(s, l, _)| name == *s || name == *l) {
            return Err(format!("`{name}` has no meaning on sgpu: {why}"));
        }
        let word = &name[1..];
        if text == "--" {
            options = false;
            out.push(arg);
        } else if let Some((_, long)) = SINGLE_DASH.iter().find(|(s, _)| *s == word) {
            let eq = if text.contains('=') { "=" } else { "" };
            out.push(format!("--{long}{eq}{value}").into());
        } else if word.starts_with('-') || word.len() == 1 || is_short_with_value(word) {
            out.push(arg);
        } else {
            return Err(unknown(name, None));
        }
    }
    Ok(out)
}

/// The message for an option ptxas-rs does not have, with clap's suggestion if it has one.
pub fn unknown(arg: &str, suggestion: Option<&str>) -> String {
    if !arg.starts_with('-') {
        return format!("unexpected argument `{arg}`: give one input file");
    }
    let hint = suggestion.map_or(String::new(), |s| format!("; did you mean `{s}`?"));
    format!("unknown option `{arg}`{hint} (`--help` lists the options)")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn norm(args: &[&str]) -> Result<Vec<String>, String> {
        normalize(args.iter().map(OsString::from).collect())
            .map(|v| v.into_iter().map(|a| a.into_string().unwrap()).collect())
    }

    #[test]
    fn single_dash_long_forms_become_double_dash() {
        assert_eq!(
            norm(&["-arch", "sgpu", "-maxrregcount=32", "-lineinfo", "k.ptx"]).unwrap(),
            [
                "--gpu-name",
                "sgpu",
                "--maxrregcount=32",
                "--generate-line-info",
                "k.ptx"
            ]
        );
    }

    #[test]
    fn short_options_with_their_value_attached_pass_through() {
        let args = ["-O3", "-m64", "-ok.elf", "-v", "-g", "--output-file", "x"];
        assert_eq!(norm(&args).unwrap(), args);
    }

    #[test]
    fn unknown_single_dash_words_and_refused_options_are_named() {
        assert_eq!(
            norm(&["-maxntid", "32"]).unwrap_err(),
            "unknown option `-maxntid` (`--help` lists the options)"
        );
        assert!(norm(&["-c", "k.ptx"])
            .unwrap_err()
            .starts_with("`-c` has no meaning on sgpu: sgpu has no linker"));
        assert!(norm(&["--compile-only"]).is_err());
    }

    #[test]
    fn nothing_after_a_double_dash_is_rewritten() {
        assert_eq!(norm(&["--", "-arch"]).unwrap(), ["--", "-arch"]);
    }
}
