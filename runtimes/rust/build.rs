// Records the compiler's and the locked crates' versions for the header.
use std::process::Command;

fn main() {
    let rustc = std::env::var("RUSTC").unwrap_or_else(|_| "rustc".into());
    let v = Command::new(rustc).arg("--version").output().map(|o| String::from_utf8_lossy(&o.stdout).trim().to_string());
    println!("cargo:rustc-env=RT_RUSTC_VERSION={}", v.unwrap_or_else(|_| "unknown".into()));
    let lock = std::fs::read_to_string("Cargo.lock").unwrap_or_default();
    for krate in ["tokio", "corosensei"] {
        let needle = format!("name = \"{krate}\"\nversion = \"");
        let ver = lock.find(&needle).map(|i| &lock[i + needle.len()..]).and_then(|r| r.split('"').next()).unwrap_or("unknown");
        println!("cargo:rustc-env=RT_{}_VERSION={ver}", krate.to_uppercase());
    }
    println!("cargo:rerun-if-changed=Cargo.lock");
    let profile = std::env::var("PROFILE").unwrap_or_default();
    let opt = std::env::var("OPT_LEVEL").unwrap_or_default();
    println!("cargo:rustc-env=RT_PROFILE={profile} opt-level={opt}");
}
