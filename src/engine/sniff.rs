//! Engine detection as a scored decision over independent signals of a
//! block's header (issue 11): damage to some signals must not flip the
//! engine while others are intact. Each engine scores its own signals
//! ([`EngineSpec::evidence`], in its file of the seam: `postgres.rs`,
//! `oracle.rs`); here the scores are weighed against each other.

use serde::Serialize;

use super::spec::{EngineSpec, Evidence};
use super::Engine;

/// Decide between the engines from the signals of the first block:
/// `default` (the first of `Engine::ALL`, PostgreSQL) unless one of
/// `others` scores higher with signals that may win on their own.
pub(super) fn decide(
    head: &[u8],
    blkno: u64,
    default: (Engine, &dyn EngineSpec),
    others: &[(Engine, &dyn EngineSpec)],
) -> Detection {
    if !head.is_empty() && head.iter().all(|&b| b == 0) {
        return Detection {
            engine: default.0,
            reason: "an all-zero first block (a new page)".to_string(),
            clear: true,
            scores: Vec::new(),
        };
    }
    let found: Vec<(Engine, &dyn EngineSpec, Evidence)> = std::iter::once(&default)
        .chain(others)
        .map(|&(engine, spec)| (engine, spec, spec.evidence(head, blkno)))
        .collect();
    let mut win = 0;
    for (i, (_, spec, e)) in found.iter().enumerate().skip(1) {
        if e.score > found[win].2.score && spec.may_win(e) {
            win = i;
        }
    }
    // The strongest of the others (the first of equals).
    let mut lose: Option<usize> = None;
    for i in (0..found.len()).filter(|&i| i != win) {
        if lose.is_none_or(|l| found[i].2.score > found[l].2.score) {
            lose = Some(i);
        }
    }
    let (engine, _, win_e) = &found[win];
    let lose_score = lose.map_or(0, |l| found[l].2.score);
    let clear = win_e.decisive && lose_score < 3 && (win_e.damaged.is_empty() || lose_score == 0);
    let scores: Vec<EngineScore> = found
        .iter()
        .map(|(engine, spec, e)| EngineScore {
            engine: *engine,
            score: e.score,
            header: e.score >= spec.header_score(),
        })
        .collect();
    let reason = if !has_header(&scores) {
        let nouns: Vec<&str> = found.iter().map(|(_, s, _)| s.header_noun()).collect();
        format!(
            "nothing in the first block looks like {}",
            nouns.join(" or ")
        )
    } else {
        let mut r = match win_e.intact.split_last() {
            None => String::new(),
            Some((last, [])) => format!("{last} holds"),
            Some((last, rest)) => format!("{} and {last} hold", rest.join(", ")),
        };
        for d in &win_e.damaged {
            if !r.is_empty() {
                r.push_str("; ");
            }
            r.push_str(d);
        }
        if let Some((_, other, lose_e)) = lose.map(|l| &found[l]).filter(|f| f.2.score > 0) {
            r.push_str(&format!(
                " (score {} against {}'s {}: {})",
                win_e.score,
                other.product(),
                lose_e.score,
                lose_e.intact.join(", ")
            ));
        }
        r
    };
    Detection {
        engine: *engine,
        reason,
        clear,
        scores,
    }
}

/// Whether any engine's header signals scored enough to call the bytes a
/// page (its [`EngineSpec::header_score`]: PostgreSQL's pd_pagesize_version
/// or ordered offsets, Oracle's type and format bytes).
fn has_header(scores: &[EngineScore]) -> bool {
    scores.iter().any(|s| s.header)
}

/// The engine chosen for an input, and why: the signals of the first block
/// scored for each engine (see `sniff.rs`).
#[derive(Clone, Debug, PartialEq, Eq, Serialize)]
pub struct Detection {
    /// The engine chosen.
    pub engine: Engine,
    /// What decided: the signals that held and those that were damaged.
    pub reason: String,
    /// The decision was clear-cut: a decisive signal of the chosen engine
    /// held and the other engine scored (next to) nothing. When not, `show`
    /// and `verify` say on standard error why they chose.
    pub clear: bool,
    /// The score of the signals that held, per engine, in the order of
    /// [`Engine::ALL`] (empty when the engine was given or the block was
    /// all zeros).
    pub scores: Vec<EngineScore>,
}

/// One engine's score in a [`Detection`].
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
pub struct EngineScore {
    /// The engine.
    pub engine: Engine,
    /// The weight of its header signals that held.
    pub score: u32,
    /// The score reached the engine's header score: its signals call the
    /// bytes a block header.
    #[serde(skip)]
    pub header: bool,
}

impl Detection {
    /// The engine was given (`--engine`), not detected.
    pub fn given(engine: Engine) -> Detection {
        Detection {
            engine,
            reason: "--engine".to_string(),
            clear: true,
            scores: Vec::new(),
        }
    }

    /// The score `engine`'s signals reached (0 when not scored).
    pub fn score(&self, engine: Engine) -> u32 {
        self.scores
            .iter()
            .find(|s| s.engine == engine)
            .map_or(0, |s| s.score)
    }

    /// No engine's header signals scored enough to call the first block a
    /// page (random bytes, an executable, text).
    pub fn no_header(&self) -> bool {
        !has_header(&self.scores)
    }

    /// The note for standard error when the decision was not clear-cut:
    /// `read as Oracle blocks: <reason>`.
    pub fn note(&self) -> Option<String> {
        (!self.clear).then(|| format!("read as {}: {}", self.engine.blocks_noun(), self.reason))
    }
}

/// The block size the first bytes of an input announce, whichever engine
/// wrote them (PostgreSQL's header is asked first).
pub(crate) fn sniff_block_size(head: &[u8]) -> Option<usize> {
    Engine::ALL.iter().find_map(|e| e.block_size(head))
}
