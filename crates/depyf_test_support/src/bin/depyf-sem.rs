//! `depyf-sem decompile|compare X.Y FILE`: see the crate docs of `depyf_test_support`.

use std::process::ExitCode;

use depyf_test_support::{compare_lines, decompile_lines, load_tuple, parse_version};

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let [command, version, file] = args.as_slice() else {
        eprintln!("usage: depyf-sem decompile|compare X.Y FILE");
        return ExitCode::from(2);
    };
    let Some(version) = parse_version(version) else {
        eprintln!("depyf-sem: bad version {version:?}");
        return ExitCode::from(2);
    };
    let result = std::fs::read(file)
        .map_err(|e| format!("{file}: {e}"))
        .and_then(|data| load_tuple(&data, version))
        .and_then(|items| match command.as_str() {
            "decompile" => decompile_lines(&items),
            "compare" => compare_lines(&items),
            other => Err(format!("unknown command {other:?}")),
        });
    match result {
        Ok(lines) => {
            for line in lines {
                println!("{line}");
            }
            ExitCode::SUCCESS
        }
        Err(e) => {
            eprintln!("depyf-sem: {e}");
            ExitCode::from(1)
        }
    }
}
