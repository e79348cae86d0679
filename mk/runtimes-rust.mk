# issue 24, `ctxbench runtimes`: the Rust harness (runtimes/rust), built by
# cargo from the committed Cargo.lock into build/runtimes/rust. Without cargo
# one line says so and the front end reports rust as absent. Debian's cargo
# is older than tokio's minimum Rust, so rustup's toolchain is the one named.
RT_RUST := $(BUILD)/runtimes/rust/ctxbench-rt-rust
.PHONY: runtimes runtimes-rust
runtimes: runtimes-rust
TEST_PREREQS += runtimes-rust
runtimes-rust:
	@if command -v cargo >/dev/null; then \
	  nice -n 10 cargo build -q --release --locked --manifest-path runtimes/rust/Cargo.toml \
	    --target-dir $(BUILD)/runtimes/rust && cp $(BUILD)/runtimes/rust/release/ctxbench-rt-rust $(RT_RUST); \
	else echo "rust: cargo not found; install Rust with rustup, then \`make runtimes\` builds the harness"; fi
