//! Writing an output file (`-o`, `--dump`, `--vcd`) the way a person means it, whatever the
//! path names:
//!
//! - a regular file, or nothing yet: the bytes go to a temporary file in the same folder,
//!   renamed over the path at the end, so that a failure leaves no partial file;
//! - a symbolic link: the same for the file it leads to; the link stays a link;
//! - anything else (`/dev/null`, `/dev/stdout`, a FIFO): written in place. Renaming over a
//!   device would replace it with a file, and everything else on the machine that writes to
//!   `/dev/null` afterwards would break (as root, the rename succeeds).
//!
//! Errors name the path the user gave, never the hidden temporary file.

use std::fs::File;
use std::io::Write;
use std::path::{Path, PathBuf};

/// Why an output could not be written.
#[derive(Debug)]
pub struct OutputError {
    path: PathBuf,
    reason: String,
}

impl std::fmt::Display for OutputError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "cannot write {}: {}", self.path.display(), self.reason)
    }
}

impl std::error::Error for OutputError {}

/// Writes `bytes` to `path` (module documentation).
pub fn write(path: &Path, bytes: &[u8]) -> Result<(), OutputError> {
    let fail = |e: std::io::Error| OutputError {
        path: path.to_path_buf(),
        reason: reason(path, &e),
    };
    match Target::of(path) {
        Target::File(file) => replace(&file, bytes).map_err(fail),
        Target::InPlace => File::create(path)
            .and_then(|mut f| f.write_all(bytes).and_then(|()| f.flush()))
            .map_err(fail),
    }
}

/// Creates (or truncates) `path` for a writer that opens it itself (Verilator's waveform):
/// an error naming the path now, rather than a writer that fails silently later. A regular
/// file is left empty for the writer; a device stays what it is.
pub fn check_writable(path: &Path) -> Result<(), OutputError> {
    File::create(path).map(drop).map_err(|e| OutputError {
        path: path.to_path_buf(),
        reason: reason(path, &e),
    })
}

/// Where the bytes for a path go.
enum Target {
    /// A regular file (existing or not), the link's target resolved: replaced by renaming.
    File(PathBuf),
    /// A device, FIFO, socket or dangling link: opened and written.
    InPlace,
}

impl Target {
    fn of(path: &Path) -> Target {
        let Ok(link) = std::fs::symlink_metadata(path) else {
            return Target::File(path.to_path_buf());
        };
        let resolved = if link.file_type().is_symlink() {
            match std::fs::canonicalize(path) {
                Ok(p) => p,
                Err(_) => return Target::InPlace,
            }
        } else {
            path.to_path_buf()
        };
        match std::fs::metadata(&resolved) {
            Ok(m) if m.is_file() => Target::File(resolved),
            _ => Target::InPlace,
        }
    }
}

/// Writes `bytes` to a temporary file beside `path` and renames it over `path`. The file gets
/// the permissions any new file gets (0666 less the umask), not the temporary file's private
/// 0600; a file replaced keeps its own.
fn replace(path: &Path, bytes: &[u8]) -> std::io::Result<()> {
    let dir = match path.parent() {
        Some(d) if !d.as_os_str().is_empty() => d,
        _ => Path::new("."),
    };
    let mut builder = tempfile::Builder::new();
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        let mode = std::fs::metadata(path).map_or(0o666, |m| m.permissions().mode() & 0o7777);
        builder.permissions(std::fs::Permissions::from_mode(mode));
    }
    let mut tmp = builder.tempfile_in(dir)?;
    tmp.write_all(bytes)?;
    tmp.persist(path).map_err(|e| e.error)?;
    Ok(())
}

/// The reason, without the path (which the message names once).
fn reason(path: &Path, e: &std::io::Error) -> String {
    match e.kind() {
        std::io::ErrorKind::NotFound => match path.parent() {
            Some(dir) if !dir.as_os_str().is_empty() => {
                format!("the directory {} does not exist", dir.display())
            }
            _ => "no such file or directory".to_string(),
        },
        std::io::ErrorKind::PermissionDenied => "permission denied".to_string(),
        _ => {
            // io::Error's text ends with " (os error N)"; keep the words.
            let text = e.to_string();
            text.split(" (os error")
                .next()
                .unwrap_or(&text)
                .to_lowercase()
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn is_link(path: &Path) -> bool {
        std::fs::symlink_metadata(path).is_ok_and(|m| m.file_type().is_symlink())
    }

    #[test]
    fn a_new_file_is_written_and_no_temporary_file_stays() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("out.bin");
        write(&path, b"abc").unwrap();
        assert_eq!(std::fs::read(&path).unwrap(), b"abc");
        assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 1);
    }

    #[test]
    fn a_symlink_stays_a_link_and_its_target_gets_the_bytes() {
        let dir = tempfile::tempdir().unwrap();
        let target = dir.path().join("real.elf");
        std::fs::write(&target, b"old").unwrap();
        let link = dir.path().join("link.elf");
        std::os::unix::fs::symlink(&target, &link).unwrap();
        write(&link, b"new").unwrap();
        assert!(is_link(&link));
        assert_eq!(std::fs::read(&target).unwrap(), b"new");
    }

    #[test]
    fn a_dangling_symlink_creates_its_target() {
        let dir = tempfile::tempdir().unwrap();
        let target = dir.path().join("made.elf");
        let link = dir.path().join("link.elf");
        std::os::unix::fs::symlink(&target, &link).unwrap();
        write(&link, b"x").unwrap();
        assert!(is_link(&link));
        assert_eq!(std::fs::read(&target).unwrap(), b"x");
    }

    #[test]
    fn a_device_is_written_in_place_and_stays_a_device() {
        use std::os::unix::fs::FileTypeExt;
        write(Path::new("/dev/null"), b"bytes").unwrap();
        let m = std::fs::metadata("/dev/null").unwrap();
        assert!(m.file_type().is_char_device());
    }

    #[test]
    fn a_missing_directory_is_an_error_naming_the_path_alone() {
        let e = write(Path::new("/nonexistent/dir/x.elf"), b"x").unwrap_err();
        assert_eq!(
            e.to_string(),
            "cannot write /nonexistent/dir/x.elf: the directory /nonexistent/dir does not exist"
        );
        let e = check_writable(Path::new("/nonexistent/x.vcd")).unwrap_err();
        assert_eq!(
            e.to_string(),
            "cannot write /nonexistent/x.vcd: the directory /nonexistent does not exist"
        );
    }

    #[test]
    fn a_replaced_file_keeps_its_permissions() {
        use std::os::unix::fs::PermissionsExt;
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("k.elf");
        std::fs::write(&path, b"old").unwrap();
        std::fs::set_permissions(&path, std::fs::Permissions::from_mode(0o640)).unwrap();
        write(&path, b"new").unwrap();
        let mode = std::fs::metadata(&path).unwrap().permissions().mode() & 0o777;
        assert_eq!(mode, 0o640);
    }
}
