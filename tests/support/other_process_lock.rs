//! `flock(1)` from util-linux: the same `flock(2)` locks the store takes,
//! taken or tried by another process.
#![allow(dead_code)] // each includer uses a part

use std::io::{BufRead, BufReader, Write};
use std::path::Path;
use std::process::{Child, Command, Stdio};

/// A lock on a file or directory held by another process until released.
pub struct HeldLock {
    child: Child,
}

impl HeldLock {
    /// Returns once the other process holds the lock on `path`.
    pub fn take(path: &Path) -> HeldLock {
        // The child takes the lock, says so, and holds it until its stdin closes.
        let mut child = Command::new("flock")
            .args(["-n", path.to_str().unwrap(), "-c", "echo locked; read _"])
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .spawn()
            .expect("flock(1) is installed");
        let mut line = String::new();
        BufReader::new(child.stdout.take().unwrap()).read_line(&mut line).unwrap();
        assert_eq!(line.trim(), "locked", "flock(1) took {}", path.display());
        HeldLock { child }
    }

    pub fn release(mut self) {
        self.child.stdin.take().unwrap().write_all(b"\n").unwrap();
        assert!(self.child.wait().unwrap().success());
    }
}

/// Whether another process can take `path`'s lock at once.
pub fn can_lock(path: &Path) -> bool {
    Command::new("flock")
        .args(["-n", path.to_str().unwrap(), "true"])
        .status()
        .expect("flock(1) is installed")
        .success()
}
