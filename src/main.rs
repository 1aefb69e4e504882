use std::process::ExitCode;

fn main() -> ExitCode {
    blockscope::run_cli()
}
