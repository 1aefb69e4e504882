use super::*;
pub(crate) fn run(
    _args: &ExportArgs,
    _opts: &ExportOptions,
    _spec: Option<&crate::engine::ColumnSpec>,
) -> Result<ExitCode, Error> {
    Err(Error::Usage("todo".into()))
}
