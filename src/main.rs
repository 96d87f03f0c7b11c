fn main() -> std::process::ExitCode {
    ptxas_rs::cli::main()
}
