//! Rebuild when the embedded web client changes (include_dir does not tell cargo).
fn main() {
    println!("cargo:rerun-if-changed=../../web");
}
