//! Who can read a store: journals hold what agents send and receive
//! (prompts, model answers, tool results, user data), so a store's directory
//! is its owner's alone (`0700`) and every file the store makes is `0600`,
//! whatever the umask. See "File permissions" in `docs/security.md`.
//!
//! An existing directory that group or others can reach (any of the `0077`
//! bits: read lists it, search opens files whose own mode lets them, write
//! removes or replaces them) is refused at open, naming the path, its mode
//! and the `chmod` that fixes it, unless [`PermissionCheck`] says to warn or
//! to tighten it. A directory that holds no store yet (empty, or only the
//! store's own lock and leftovers) becomes the store's at its first open and
//! is made `0700`, as `initdb` does with an empty data directory: the umask
//! of whoever ran `mkdir` (or `Files.createDirectories`) is not a decision
//! to share journals.

use std::fs::{self, File, OpenOptions, Permissions};
use std::io;
use std::os::unix::fs::{MetadataExt, OpenOptionsExt, PermissionsExt};
use std::path::Path;

use super::io_error;
use super::lock::LOCK_FILE;
use crate::error::{Error, Result};

/// The mode of a store directory.
pub const DIR_MODE: u32 = 0o700;
/// The mode of every file a store makes (segments, compaction output, `LOCK`).
pub const FILE_MODE: u32 = 0o600;
/// Group and others: any of these bits on the directory lets another account in.
const OTHERS: u32 = 0o077;

/// What opening a store does with a directory that group or others can reach.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum PermissionCheck {
    /// Refuses to open it (`StoreIo` naming the path, the mode and the fix).
    #[default]
    Refuse,
    /// Opens it as it is; [`super::RecoveryReport::exposed_dir_mode`] says
    /// so, and the bindings log a warning.
    Warn,
    /// Makes the directory `0700` and the store's files in it `0600`, then
    /// opens it (a store written by a build that left modes to the umask).
    Tighten,
}

/// What the check found and did.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct DirAccess {
    /// The directory's mode when it let group or others in (and still does,
    /// under [`PermissionCheck::Warn`]).
    pub exposed_mode: Option<u32>,
    /// The directory and the store's files were made private.
    pub tightened: bool,
}

/// `options` opening a file it may create: created `0600`, and made `0600`
/// if the umask took bits away (a umask of `0277` would leave the owner
/// unable to reopen a segment for appending).
pub fn open_private(options: &mut OpenOptions, path: &Path) -> io::Result<File> {
    let file = options.mode(FILE_MODE).open(path)?;
    if file.metadata()?.mode() & 0o777 != FILE_MODE {
        file.set_permissions(Permissions::from_mode(FILE_MODE))?;
    }
    Ok(file)
}

/// The mode bits of `dir` if group or others can reach it.
pub fn exposed_mode(dir: &Path) -> io::Result<Option<u32>> {
    let mode = fs::metadata(dir)?.mode() & 0o777;
    Ok((mode & OTHERS != 0).then_some(mode))
}

/// Checks `dir` (an existing directory) before the store opens it; see the
/// module's text for what each case does.
pub fn check_dir(dir: &Path, check: PermissionCheck) -> Result<DirAccess> {
    let Some(mode) = exposed_mode(dir).map_err(io_error(dir))? else { return Ok(DirAccess::default()) };
    if holds_no_store(dir).map_err(io_error(dir))? {
        fs::set_permissions(dir, Permissions::from_mode(DIR_MODE)).map_err(io_error(dir))?;
        return Ok(DirAccess::default());
    }
    match check {
        PermissionCheck::Refuse => {
            let source = io::Error::new(io::ErrorKind::PermissionDenied, refusal(dir, mode));
            Err(Error::StoreIo { path: dir.to_path_buf(), source })
        }
        PermissionCheck::Warn => Ok(DirAccess { exposed_mode: Some(mode), tightened: false }),
        PermissionCheck::Tighten => {
            for entry in fs::read_dir(dir).map_err(io_error(dir))? {
                let path = entry.map_err(io_error(dir))?.path();
                if is_store_file(&path) {
                    fs::set_permissions(&path, Permissions::from_mode(FILE_MODE)).map_err(io_error(&path))?;
                }
            }
            fs::set_permissions(dir, Permissions::from_mode(DIR_MODE)).map_err(io_error(dir))?;
            Ok(DirAccess { exposed_mode: Some(mode), tightened: true })
        }
    }
}

/// What a store opened under [`PermissionCheck::Warn`] is warned about, and
/// what the inspection tool notes about a directory it reads.
pub fn exposure_warning(dir: &Path, mode: u32) -> String {
    format!(
        "the store directory {} has mode {mode:04o}: {}; {}",
        dir.display(),
        who_gets_in(mode),
        fix(dir)
    )
}

fn refusal(dir: &Path, mode: u32) -> String {
    format!(
        "the store directory has mode {mode:04o}: {}, and journals hold prompts, model answers and tool results; \
         the store refuses it (a store made by an older build, which left modes to the umask, is like this): {}, \
         or open it with the permission check set to tighten (which does that) or warn (which opens it as it is)",
        who_gets_in(mode),
        fix(dir)
    )
}

fn who_gets_in(mode: u32) -> &'static str {
    if mode & 0o022 != 0 {
        "group or others can replace or remove its files"
    } else {
        "group or others can list it and read the journal files whose own mode allows it"
    }
}

fn fix(dir: &Path) -> String {
    let quoted = format!("'{}'", dir.display().to_string().replace('\'', r"'\''"));
    format!("make it private with `chmod {DIR_MODE:o} {quoted} && chmod {FILE_MODE:o} {quoted}/*`")
}

/// Whether `dir` holds nothing but what a store leaves before its first
/// segment exists (its lock, an interrupted first segment).
fn holds_no_store(dir: &Path) -> io::Result<bool> {
    for entry in fs::read_dir(dir)? {
        let name = entry?.file_name();
        let leftover = name == LOCK_FILE || name.to_str().is_some_and(|n| n.starts_with("journal-") && n.ends_with(".log.tmp"));
        if !leftover {
            return Ok(false);
        }
    }
    Ok(true)
}

/// A file the store makes: its lock, a segment, a compaction in progress.
fn is_store_file(path: &Path) -> bool {
    let Some(name) = path.file_name().and_then(|n| n.to_str()) else { return false };
    name == LOCK_FILE
        || (name.starts_with("journal-") && (name.ends_with(".log") || name.ends_with(".log.tmp")))
        || name.starts_with(super::RETAINED_FILE)
}
