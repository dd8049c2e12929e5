//! Replaying the segments of a store on load, and pinning damage to documents.

use super::integrity::{self, Damage};
use super::records::Line;
use super::{file_name, row_bytes, ChunkEntry, DocEntry, Store};
use crate::manifest::SegmentInfo;

impl Store {
    /// Replay one segment. Damage to its records file skips the segment (forgetting every
    /// document it mentions); damage to its `.vec` / `.txt` files is noted in `suspects` and
    /// pinned to documents once every segment is replayed.
    pub(super) fn replay(
        &mut self,
        seg: &SegmentInfo,
        damage: &mut Vec<Damage>,
        suspects: &mut Vec<(u64, &'static str, String)>,
    ) {
        let path = self.dir.join(file_name(seg.generation, "jsonl"));
        let bytes = std::fs::read(&path);
        let problem = match &bytes {
            Err(e) => Some(format!("cannot be read: {e}")),
            Ok(b) if b.len() as u64 != seg.records_len => Some(format!(
                "{} bytes, the manifest says {}",
                b.len(),
                seg.records_len
            )),
            Ok(b) if integrity::hash(b) != seg.records_hash => {
                Some("checksum does not match the manifest".into())
            }
            Ok(_) => None,
        };
        let bytes = bytes.unwrap_or_default();
        let mut lines = Vec::new();
        let mut bad_line = None;
        for (n, line) in bytes.split(|&b| b == b'\n').enumerate() {
            if line.is_empty() {
                continue;
            }
            match serde_json::from_slice::<Line>(line) {
                Ok(op) => lines.push(op),
                Err(e) => {
                    bad_line.get_or_insert(format!("line {}: {e}", n + 1));
                }
            }
        }
        let mut rows = 0u64;
        for op in &lines {
            if let Line::Chunk(_) = op {
                rows += 1;
            }
        }
        let problem = problem.or(bad_line).or_else(|| {
            (rows * row_bytes(self.dim) != seg.vectors_len).then(|| {
                format!(
                    "{rows} chunks but the vectors file holds {} bytes",
                    seg.vectors_len
                )
            })
        });
        if let Some(reason) = problem {
            // Nothing in this segment can be trusted: forget every document it mentions.
            let mut documents: Vec<String> = lines
                .iter()
                .map(|op| match op {
                    Line::Remove { doc_id } => doc_id.clone(),
                    Line::Doc(d) => d.doc_id.clone(),
                    Line::Chunk(c) => c.doc_id.clone(),
                })
                .collect();
            documents.sort();
            documents.dedup();
            for d in &documents {
                self.forget(d);
            }
            damage.push(Damage {
                path,
                reason,
                documents,
            });
            return;
        }
        let mut row = 0u64;
        for op in lines {
            match op {
                Line::Remove { doc_id } => {
                    self.forget(&doc_id);
                }
                Line::Doc(record) => {
                    self.forget(&record.doc_id);
                    self.docs.insert(
                        record.doc_id.clone(),
                        DocEntry {
                            record,
                            segment: seg.generation,
                            keys: Vec::new(),
                        },
                    );
                }
                Line::Chunk(mut record) => {
                    row += 1;
                    // Held without its text (see the store's module docs).
                    record.text = String::new();
                    let Some(doc) = self.docs.get_mut(&record.doc_id) else {
                        // A chunk before its document: a writer never does this.
                        suspects.push((
                            seg.generation,
                            "jsonl",
                            format!("chunk of document `{}` before its document", record.doc_id),
                        ));
                        continue;
                    };
                    doc.keys.push(record.key);
                    self.by_id.insert(record.id.clone(), record.key);
                    self.chunks.insert(
                        record.key,
                        ChunkEntry {
                            record,
                            segment: seg.generation,
                            row: row - 1,
                        },
                    );
                }
            }
        }
        self.rows += row;
        for (ext, len, hash) in [
            ("vec", seg.vectors_len, seg.vectors_hash.as_deref()),
            ("txt", seg.texts_len, seg.texts_hash.as_deref()),
        ] {
            let p = self.dir.join(file_name(seg.generation, ext));
            if let Some(reason) = integrity::mismatch(&p, len, hash) {
                suspects.push((seg.generation, ext, reason));
            }
        }
    }

    /// Live documents of segment `generation` whose records in its `ext` file fail their own
    /// checksums (all of them when the file cannot be read or has no per-record checksums).
    pub(super) fn damaged_documents(&self, generation: u64, ext: &str) -> Vec<String> {
        let path = self.dir.join(file_name(generation, ext));
        let file = std::fs::read(&path).ok();
        let rb = row_bytes(self.dim);
        let mut out: Vec<String> = self
            .docs
            .values()
            .filter(|d| d.segment == generation)
            .filter(|d| {
                let Some(file) = &file else { return true };
                match ext {
                    "txt" => {
                        let r = &d.record;
                        let text = usize::try_from(r.text_offset)
                            .ok()
                            .zip(usize::try_from(r.text_len).ok())
                            .and_then(|(o, l)| file.get(o..o.checked_add(l)?));
                        match (text, &r.text_hash) {
                            (Some(t), Some(h)) => integrity::hash(t) != *h,
                            _ => true,
                        }
                    }
                    "vec" => d.keys.iter().any(|k| {
                        let c = &self.chunks[k];
                        let bytes = usize::try_from(c.row * rb)
                            .ok()
                            .and_then(|o| file.get(o..o.checked_add(rb as usize)?));
                        match (bytes, &c.record.vector_hash) {
                            (Some(b), Some(h)) => integrity::hash(b) != *h,
                            _ => true,
                        }
                    }),
                    // A malformed records file: every document of the segment.
                    _ => true,
                }
            })
            .map(|d| d.record.doc_id.clone())
            .collect();
        out.sort();
        out
    }
}
