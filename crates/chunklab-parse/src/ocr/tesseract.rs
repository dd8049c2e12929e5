//! The Tesseract engine, run as a process: the page goes in on stdin as a PGM, the words come
//! back as TSV (`level page block par line word left top width height conf text`).
//!
//! Each call is a fresh `tesseract` with `OMP_THREAD_LIMIT=1` (pages are the unit of
//! parallelism; Tesseract's own OpenMP threads would oversubscribe the CPUs), killed after the
//! page timeout. The program is `$CHUNKLAB_TESSERACT` or `tesseract` on the `PATH`.

use super::process::run;
use super::{GrayImage, Ocr, OcrError, OcrPage, Word};
use std::process::Command;
use std::time::Duration;

/// Tesseract through its command-line program.
#[derive(Debug, Clone)]
pub struct Tesseract {
    program: String,
    lang: String,
    timeout: Duration,
}

impl Tesseract {
    /// The engine for `lang` (`nld+eng`); checks that the program runs and has every language.
    pub fn new(lang: &str, timeout: Duration) -> Result<Tesseract, OcrError> {
        let program = std::env::var("CHUNKLAB_TESSERACT").unwrap_or_else(|_| "tesseract".into());
        let t = Tesseract {
            program,
            lang: lang.to_string(),
            timeout,
        };
        let installed = t.languages()?;
        for l in lang.split('+') {
            if !installed.iter().any(|i| i == l) {
                return Err(OcrError::Lang {
                    missing: l.to_string(),
                    installed: installed.join(", "),
                });
            }
        }
        Ok(t)
    }

    /// The languages the installed Tesseract has models for.
    pub fn languages(&self) -> Result<Vec<String>, OcrError> {
        let mut cmd = Command::new(&self.program);
        cmd.arg("--list-langs");
        let out = run(
            cmd,
            None,
            Duration::from_secs(30),
            "tesseract --list-langs",
            "tesseract-ocr",
        )?;
        if !out.success {
            return Err(OcrError::Failed(format!(
                "tesseract --list-langs failed: {}",
                out.stderr.trim()
            )));
        }
        // Tesseract 4 printed the list on stderr, 5 on stdout.
        let text = format!("{}\n{}", String::from_utf8_lossy(&out.stdout), out.stderr);
        Ok(text
            .lines()
            .skip_while(|l| !l.starts_with("List of available languages"))
            .skip(1)
            .map(|l| l.trim().to_string())
            .filter(|l| !l.is_empty())
            .collect())
    }

    fn command(&self, dpi: u32) -> Command {
        let mut cmd = Command::new(&self.program);
        cmd.env("OMP_THREAD_LIMIT", "1")
            .args(["stdin", "stdout", "--dpi"])
            .arg(dpi.to_string());
        cmd
    }
}

impl Ocr for Tesseract {
    fn name(&self) -> String {
        format!("tesseract {}", self.lang)
    }

    fn recognize(&self, image: &GrayImage, dpi: u32) -> Result<OcrPage, OcrError> {
        let mut cmd = self.command(dpi);
        cmd.args(["-l", &self.lang, "--psm", "3", "tsv"]);
        let out = run(
            cmd,
            Some(image.to_pgm()),
            self.timeout,
            "tesseract",
            "tesseract-ocr",
        )?;
        if !out.success {
            return Err(OcrError::Failed(format!(
                "tesseract failed: {}",
                last_line(&out.stderr)
            )));
        }
        let mut page = parse_tsv(&String::from_utf8_lossy(&out.stdout))?;
        page.width = image.width;
        page.height = image.height;
        Ok(page)
    }

    fn orientation(&self, image: &GrayImage, dpi: u32) -> Result<Option<u16>, OcrError> {
        let mut cmd = self.command(dpi);
        cmd.args(["--psm", "0", "-l", "osd"]);
        let out = run(
            cmd,
            Some(image.to_pgm()),
            self.timeout,
            "tesseract orientation detection",
            "tesseract-ocr-osd",
        )?;
        // Too little text for OSD is a failed exit; that is "unknown", not an error.
        if !out.success {
            return Ok(None);
        }
        let text = String::from_utf8_lossy(&out.stdout);
        let field = |name: &str| {
            text.lines()
                .find_map(|l| l.strip_prefix(name))
                .and_then(|v| v.trim().parse::<f32>().ok())
        };
        match (field("Rotate:"), field("Orientation confidence:")) {
            (Some(r), Some(conf)) if conf >= 2.0 => Ok(Some(r as u16 % 360)),
            _ => Ok(None),
        }
    }
}

fn last_line(s: &str) -> &str {
    s.lines()
        .rev()
        .find(|l| !l.trim().is_empty())
        .unwrap_or("(no message)")
}

/// Words from Tesseract's TSV (level 5 rows with text).
pub fn parse_tsv(tsv: &str) -> Result<OcrPage, OcrError> {
    let mut lines = tsv.lines();
    let header = lines.next().unwrap_or_default();
    if !header.starts_with("level") {
        return Err(OcrError::Failed(format!(
            "tesseract wrote no TSV (first line: {:?})",
            header.chars().take(80).collect::<String>()
        )));
    }
    let mut words = Vec::new();
    for line in lines {
        let f: Vec<&str> = line.splitn(12, '\t').collect();
        if f.len() < 12 || f[0] != "5" {
            continue;
        }
        let text = f[11].trim();
        if text.is_empty() {
            continue;
        }
        let num = |i: usize| f[i].trim().parse::<u32>().unwrap_or(0);
        let conf = f[10].trim().parse::<f32>().unwrap_or(-1.0);
        if conf < 0.0 {
            continue;
        }
        let (x, y, w, h) = (num(6), num(7), num(8), num(9));
        words.push(Word {
            text: text.to_string(),
            conf,
            x0: x,
            y0: y,
            x1: x + w,
            y1: y + h,
            block: num(2),
            par: num(3),
            line: num(4),
        });
    }
    Ok(OcrPage {
        words,
        width: 0,
        height: 0,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tsv_words() {
        let tsv = "level\tpage_num\tblock_num\tpar_num\tline_num\tword_num\tleft\ttop\twidth\theight\tconf\ttext\n\
                   1\t1\t0\t0\t0\t0\t0\t0\t100\t100\t-1\t\n\
                   5\t1\t1\t1\t1\t1\t10\t20\t30\t12\t96.5\tGemeente\n\
                   5\t1\t1\t1\t1\t2\t45\t20\t30\t12\t91\tUtrecht\n\
                   5\t1\t2\t1\t1\t1\t10\t60\t30\t12\t80\tBesluit\n";
        let page = parse_tsv(tsv).unwrap();
        assert_eq!(page.words.len(), 3);
        assert_eq!(page.words[1].x1, 75);
        assert_eq!(page.text(), "Gemeente Utrecht\n\nBesluit");
        assert!((page.mean_confidence().unwrap() - 89.1667).abs() < 0.01);
        assert!(parse_tsv("Error").is_err());
    }
}
