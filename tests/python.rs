//! The Python package's tests (`python/tests`), run by `cargo test`: a virtual environment under
//! `target/python-venv` gets the test requirements (`python/requirements-test.txt`, from PyPI,
//! installed again only when they change), the package is built into it with maturin (the dev
//! profile), and pytest runs. Python 3.9 or later must be on the PATH (`python3`, or the
//! interpreter named by `TABULA_PYTHON`): without it this test fails and says so; nothing is
//! skipped.

use std::path::{Path, PathBuf};
use std::process::Command;

/// The repository's root.
fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// Runs a command, failing the test with its output if it fails.
fn run(what: &str, command: &mut Command) {
    let output = command.output().unwrap_or_else(|e| panic!("{what}: could not start {command:?}: {e}"));
    if !output.status.success() {
        panic!(
            "{what} failed ({}):\n--- stdout\n{}\n--- stderr\n{}",
            output.status,
            String::from_utf8_lossy(&output.stdout),
            String::from_utf8_lossy(&output.stderr)
        );
    }
}

/// The Python interpreter the environment is made with, and its version.
fn python() -> (String, String) {
    let python = std::env::var("TABULA_PYTHON").unwrap_or_else(|_| "python3".to_string());
    let version = Command::new(&python)
        .args(["-c", "import sys; print('%d.%d' % sys.version_info[:2]); assert sys.version_info >= (3, 9)"])
        .output();
    match version {
        Ok(out) if out.status.success() => (python, String::from_utf8_lossy(&out.stdout).trim().to_string()),
        Ok(out) => panic!(
            "the Python tests need Python 3.9 or later: `{python}` says {}{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        ),
        Err(e) => panic!(
            "the Python tests need Python 3.9 or later as `python3` on the PATH (or TABULA_PYTHON): \
             `{python}` could not be started ({e}). Install Python 3 (with its venv module) and run again."
        ),
    }
}

/// The virtual environment with the test requirements, made or brought up to date.
fn venv() -> PathBuf {
    let (python, version) = python();
    let target = Path::new(env!("CARGO_TARGET_TMPDIR")).parent().expect("the target folder").to_path_buf();
    let venv = target.join("python-venv");
    let requirements = root().join("python/requirements-test.txt");
    let wanted =
        format!("python {version}\n{}", std::fs::read_to_string(&requirements).expect("python/requirements-test.txt"));
    let stamp = venv.join("tabula-requirements.txt");
    if std::fs::read_to_string(&stamp).ok().as_deref() == Some(wanted.as_str()) {
        return venv;
    }
    if !venv.join("bin/python").exists() {
        run("making the virtual environment", Command::new(&python).args(["-m", "venv"]).arg(&venv));
    }
    run(
        "installing the test requirements",
        Command::new(venv.join("bin/python"))
            .args(["-m", "pip", "install", "--quiet", "--disable-pip-version-check", "-r"])
            .arg(&requirements),
    );
    std::fs::write(&stamp, wanted).expect("writing the requirements stamp");
    venv
}

/// The Python package builds, and its tests pass: the core API, data frames equal to the
/// command line's, the PettingZoo environments (PettingZoo's own API and seed tests) and the
/// information-set test for every ruleset, and sweeps on a local Ray instance.
#[test]
fn python_package_tests_pass() {
    let venv = venv();
    // The same target folder as the rest of the workspace: dependencies built once.
    run(
        "building the package (maturin develop)",
        Command::new(venv.join("bin/maturin"))
            .args(["develop", "--quiet", "--manifest-path"])
            .arg(root().join("python/Cargo.toml"))
            .env("VIRTUAL_ENV", &venv)
            .env_remove("CARGO_TARGET_DIR"),
    );
    run(
        "pytest python/tests",
        Command::new(venv.join("bin/python"))
            .args(["-m", "pytest", "-q", "-p", "no:cacheprovider", "python/tests"])
            .current_dir(root())
            .env("TABULA_BIN", env!("CARGO_BIN_EXE_tabula"))
            .env("RAY_ENABLE_UV_RUN_RUNTIME_ENV", "0"),
    );
}
