//! One renderer per kind of document (motion, council decision, letter, proposal, regulation),
//! chosen by the planned document's kind; the shared rendering pieces are in `render.rs`.

use super::plan::{stream, Kind, Plan};
use super::prng::Rng;
use super::render::{Job, Rendered};
use super::{besluit, brief, motie, verordening, voorstel};

/// Render document `index` of the plan.
pub fn render(plan: &Plan, index: usize) -> Rendered {
    let mut job = Job {
        plan,
        index,
        rng: Rng::derive(plan.seed, stream::RENDER, index as u64),
        passages: Vec::new(),
    };
    let text = match plan.docs[index].kind {
        Kind::Motie => motie::render(&mut job),
        Kind::Raadsbesluit => besluit::render(&mut job),
        Kind::Collegebrief => brief::render(&mut job),
        Kind::Raadsvoorstel => voorstel::render(&mut job),
        Kind::Verordening => verordening::render(&mut job),
    };
    Rendered {
        text,
        passages: job.passages,
    }
}
