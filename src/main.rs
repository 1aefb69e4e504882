use std::process::ExitCode;

fn main() -> ExitCode {
    blockscope::cli::main()
}
