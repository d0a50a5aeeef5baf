//! The `atoll` binary.

fn main() {
    println!("atoll");
}
