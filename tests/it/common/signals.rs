//! Signals to a child `s17`, sent once it catches them: a wait on a
//! condition (the process's caught-signal mask), never on a guess of how
//! fast the machine is, so a loaded machine only makes the tests slower.

use std::process::{Child, Command};
use std::time::{Duration, Instant};

/// Waits until `child` catches SIGINT (its handler in place: `s17`
/// installs it before any work), failing if it ends first or after a
/// generous bound. On Linux this reads `SigCgt` of `/proc/PID/status`;
/// elsewhere it waits two seconds.
pub fn wait_until_caught(child: &mut Child) {
    if !cfg!(target_os = "linux") {
        std::thread::sleep(Duration::from_secs(2));
        return;
    }
    let limit = super::progress_limit(600);
    let deadline = Instant::now() + limit;
    let status = format!("/proc/{}/status", child.id());
    loop {
        let caught = std::fs::read_to_string(&status)
            .ok()
            .and_then(|text| {
                let mask = text.lines().find_map(|l| l.strip_prefix("SigCgt:"))?;
                u64::from_str_radix(mask.trim(), 16).ok()
            })
            .is_some_and(|mask| mask & (1 << (2 - 1)) != 0);
        if caught {
            return;
        }
        assert!(
            child.try_wait().unwrap().is_none(),
            "s17 ended before it caught SIGINT"
        );
        assert!(Instant::now() < deadline, "SIGINT not caught in {limit:?}");
        std::thread::sleep(Duration::from_millis(1));
    }
}

/// Sends `signal` (`INT`, `TERM`, `HUP`) to `child`.
pub fn send(child: &Child, signal: &str) {
    let status = Command::new("kill")
        .args(["-s", signal, &child.id().to_string()])
        .status()
        .expect("run kill");
    assert!(status.success(), "kill -s {signal} failed");
}

/// The exit code of a run stopped by `signal`: 128 + its number.
pub fn exit_code(signal: &str) -> i32 {
    match signal {
        "HUP" => 129,
        "INT" => 130,
        "TERM" => 143,
        other => panic!("no exit code for SIG{other}"),
    }
}
