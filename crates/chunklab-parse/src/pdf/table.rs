//! Tables: runs of lines whose cells line up, an optional header line above them, and the
//! columns of each row.

use super::layout::Line;

/// Runs of at least two consecutive lines whose cells line up, (first, end) line indices,
/// extended upwards by a header line whose word gaps fall into the table's column gaps.
pub(super) fn table_runs(lines: &[Line]) -> Vec<(usize, usize)> {
    let near = |a: f32, b: f32| (a - b).abs() <= 3.0;
    let aligned = |a: &Line, b: &Line| {
        let (na, nb) = (a.segs.len(), b.segs.len());
        let size = a.size.max(b.size);
        if na < 2 || nb < 2 || na > 16 || nb > 16 || a.y - b.y > 4.0 * size {
            return false;
        }
        if (a.size - b.size).abs() > 0.1 * size {
            return false;
        }
        let m = b
            .segs
            .iter()
            .filter(|s| {
                a.segs
                    .iter()
                    .any(|t| near(s.x0, t.x0) || near(s.x1, t.x1) || near(s.x0 + s.x1, t.x0 + t.x1))
            })
            .count();
        m >= 2 && m * 10 >= nb * 7
    };
    // A one-cell line inside a table: a wrapped cell continuing under a column.
    let continuation = |prev: &Line, l: &Line, anchors: &[f32], next: Option<&Line>| {
        if l.segs.len() != 1
            || prev.y - l.y > 2.0 * l.size.max(prev.size)
            || (l.size - prev.size).abs() > 0.1 * l.size
        {
            return false;
        }
        let x0 = l.segs[0].x0;
        match anchors.iter().position(|&a| near(a, x0)) {
            Some(0) => next.is_some_and(|n| n.segs.len() >= 2 && near(n.segs[0].x0, anchors[0])),
            Some(_) => true,
            None => false,
        }
    };
    let mut out: Vec<(usize, usize)> = Vec::new();
    let mut i = 0;
    while i + 1 < lines.len() {
        let mut j = i;
        let mut anchors: Vec<f32> = Vec::new();
        while j + 1 < lines.len() {
            if aligned(&lines[j], &lines[j + 1]) {
                for s in lines[j].segs.iter().chain(&lines[j + 1].segs) {
                    if !anchors.iter().any(|&a| near(a, s.x0)) {
                        anchors.push(s.x0);
                    }
                }
                anchors.sort_by(f32::total_cmp);
                j += 1;
            } else if j > i && continuation(&lines[j], &lines[j + 1], &anchors, lines.get(j + 2)) {
                j += 1;
            } else {
                break;
            }
        }
        // Drop trailing one-cell lines.
        while j > i && lines[j].segs.len() < 2 {
            j -= 1;
        }
        if j > i {
            let taken = out.last().map_or(0, |r| r.1);
            let first = if i > taken && is_header_of(&lines[i - 1], &lines[i..=j]) {
                i - 1
            } else {
                i
            };
            out.push((first, j + 1));
            i = j + 1;
        } else {
            i += 1;
        }
    }
    out
}

/// A word of a line: its text and horizontal extent.
struct Word<'a> {
    text: &'a str,
    x0: f32,
    x1: f32,
}

impl Word<'_> {
    fn mid(&self) -> f32 {
        (self.x0 + self.x1) / 2.0
    }

    fn is_leader(&self) -> bool {
        self.text.chars().all(|c| matches!(c, '.' | '·' | '…'))
    }
}

fn words(line: &Line) -> Vec<Word<'_>> {
    let mut out = Vec::new();
    for s in &line.segs {
        for (w, &(start, x0, x1)) in s.words.iter().enumerate() {
            let end = s.words.get(w + 1).map_or(s.text.len(), |n| n.0 as usize);
            let text = s.text.get(start as usize..end).unwrap_or("").trim();
            if !text.is_empty() {
                out.push(Word { text, x0, x1 });
            }
        }
    }
    out
}

/// A line just above a table is its header when it sits close, has a word gap in every gap
/// between the first row's cells, and is not much wider than the table.
fn is_header_of(h: &Line, rows: &[Line]) -> bool {
    let first = &rows[0];
    let size = first.size.max(h.size);
    let pitch = if rows.len() >= 2 {
        (first.y - rows[rows.len() - 1].y) / (rows.len() - 1) as f32
    } else {
        1.2 * size
    };
    let x0 = rows.iter().map(|l| l.x0).fold(f32::MAX, f32::min);
    let x1 = rows.iter().map(|l| l.x1).fold(f32::MIN, f32::max);
    let hw = words(h);
    if h.y - first.y > (1.5 * pitch).max(3.0 * size)
        || hw.len() < 2
        || hw.len() > 4 * first.segs.len()
    {
        return false;
    }
    if h.x0 < x0 - 2.0 * size || h.x1 > x1 + (x1 - x0) {
        return false;
    }
    first.segs.windows(2).all(|p| {
        let (g0, g1) = (p[0].x1, p[1].x0);
        hw.windows(2).any(|w| w[0].x1 < g1 && w[1].x0 > g0)
    })
}

/// Row texts of a table: columns found as x-ranges no word of any row crosses; cells joined by
/// tabs (an empty cell stays an empty field).
pub(super) fn table_rows_text(rows: &[Line]) -> Vec<String> {
    let all: Vec<Vec<Word<'_>>> = rows.iter().map(words).collect();
    let size = rows.iter().map(|l| l.size).fold(0.0f32, f32::max).max(1.0);
    let mut spans: Vec<(f32, f32)> = all
        .iter()
        .flatten()
        .filter(|w| !w.is_leader())
        .map(|w| (w.x0, w.x1))
        .collect();
    spans.sort_by(|a, b| a.0.total_cmp(&b.0));
    let mut cols: Vec<(f32, f32)> = Vec::new();
    for (a, b) in spans {
        match cols.last_mut() {
            Some(c) if a <= c.1 + 0.3 * size => c.1 = c.1.max(b),
            _ => cols.push((a, b)),
        }
    }
    // A column only one row uses (a header word past the data) joins its left neighbour.
    if rows.len() >= 3 {
        let used = |c: &(f32, f32)| {
            all.iter()
                .filter(|ws| ws.iter().any(|w| w.mid() >= c.0 && w.mid() <= c.1))
                .count()
        };
        let mut k = 1;
        while k < cols.len() {
            if used(&cols[k]) <= 1 {
                cols[k - 1].1 = cols[k].1;
                cols.remove(k);
            } else {
                k += 1;
            }
        }
    }
    rows.iter()
        .zip(&all)
        .map(|(line, ws)| {
            if cols.len() < 2 {
                return line.text("\t");
            }
            let mut cells = vec![String::new(); cols.len()];
            let mut c = 0;
            for w in ws {
                // Dot leaders stay in the cell of the word before them.
                if !w.is_leader() {
                    c = cols
                        .iter()
                        .position(|col| w.mid() <= col.1)
                        .unwrap_or(cols.len() - 1);
                }
                if !cells[c].is_empty() {
                    cells[c].push(' ');
                }
                cells[c].push_str(w.text);
            }
            cells.join("\t")
        })
        .collect()
}

/// The first row is a header when it is bold and the rest is not, or when every other row holds
/// a number and the first holds none.
pub(super) fn table_has_header(rows: &[Line]) -> bool {
    let Some((first, rest)) = rows.split_first() else {
        return false;
    };
    if rest.is_empty() {
        return false;
    }
    let digits = |l: &Line| l.text(" ").chars().any(|c| c.is_ascii_digit());
    (first.bold && !rest.iter().all(|l| l.bold)) || (!digits(first) && rest.iter().all(digits))
}
