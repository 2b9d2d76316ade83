//! Prints what a `.pmm` holds, as read (debugging aid):
//! `cargo run --example pmm_dump FILE.pmm`.
fn main() {
    let Some(path) = std::env::args().nth(1) else {
        eprintln!("usage: pmm_dump FILE.pmm");
        std::process::exit(2);
    };
    let bytes = match std::fs::read(&path) {
        Ok(b) => b,
        Err(e) => {
            eprintln!("{path}: {e}");
            std::process::exit(1);
        }
    };
    match vmd_studio::project::read(&bytes) {
        Ok(p) => println!("{p:#?}"),
        Err(e) => {
            eprintln!("{path}: {e}");
            std::process::exit(1);
        }
    }
}
