//! One forward pass on several cores without shared memory: every weight
//! matrix is split by rows, and each worker holds its own share (`Part`),
//! so no weight is stored twice. The leader runs the pass; at each product
//! it hands the input to the others (`Peers::ask`), multiplies its own
//! rows meanwhile, and joins their rows to its own (`Peers::collect`).
//!
//! Rows are independent dot products, so a split pass gives the same
//! logits as a whole one, to the bit.
//!
//! The transports: threads here (native: the CLI and the tests), and
//! workers exchanging through a SharedArrayBuffer in the browser
//! (`host::peers`).

use candle_core::Result;
use std::ops::Range;
use std::sync::mpsc::{channel, Receiver, Sender};

/// Shares of a matrix start at multiples of this many rows.
pub const ALIGN: usize = 32;

/// Which share of every matrix's rows a worker holds: `index` of `count`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Part {
    pub index: usize,
    pub count: usize,
}

impl Part {
    pub const WHOLE: Part = Part { index: 0, count: 1 };

    /// This part's rows of a matrix of `n` rows. Shares start at multiples
    /// of `ALIGN` rows, so each row meets the same kernel as in the whole
    /// matrix (candle's products take rows four at a time).
    pub fn rows(&self, n: usize) -> Range<usize> {
        let cut = |i: usize| {
            if i == self.count {
                n
            } else {
                (n * i / self.count).next_multiple_of(ALIGN).min(n)
            }
        };
        cut(self.index)..cut(self.index + 1)
    }

    pub fn is_whole(&self) -> bool {
        self.count == 1
    }
}

/// The products a forward pass splits: each runs the matrices that read
/// the same input (`Model::matrices`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Op {
    /// A layer's query, key and value.
    Qkv(usize),
    /// A layer's attention output.
    O(usize),
    /// A layer's gate and up projections.
    GateUp(usize),
    Down(usize),
    /// The vocabulary's logits.
    Output,
}

impl Op {
    /// As two numbers for a shared buffer: (kind, layer).
    pub fn code(self) -> (u32, u32) {
        match self {
            Op::Qkv(l) => (1, l as u32),
            Op::O(l) => (2, l as u32),
            Op::GateUp(l) => (3, l as u32),
            Op::Down(l) => (4, l as u32),
            Op::Output => (5, 0),
        }
    }

    pub fn from_code(kind: u32, layer: u32) -> Option<Op> {
        let l = layer as usize;
        Some(match kind {
            1 => Op::Qkv(l),
            2 => Op::O(l),
            3 => Op::GateUp(l),
            4 => Op::Down(l),
            5 => Op::Output,
            _ => return None,
        })
    }
}

/// Each matrix's output rows for `m` tokens (`m` × rows floats).
pub type Rows = Vec<Vec<f32>>;

/// Where a split pass's time went, since the model was linked (ms): the
/// leader computing its own rows, the leader waiting for the others' rows,
/// and each other worker computing its rows (in part order).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Shares {
    pub own_ms: f64,
    pub wait_ms: f64,
    pub peers_ms: Vec<f64>,
}

/// The other workers of a split pass, in part order (1, 2, ...).
pub trait Peers {
    /// Starts every peer on `op` over `input` (`m` tokens, row after row).
    fn ask(&self, op: Op, m: usize, input: &[f32]) -> Result<()>;
    /// Waits for the peers' rows of the product last asked for.
    fn collect(&self) -> Result<Vec<Rows>>;
    /// Workers in all, the leader included.
    fn workers(&self) -> usize;
    /// Products exchanged so far, and the leader's time handing them over
    /// and waiting for the rows (ms; 0 where not measured).
    fn exchanged(&self) -> (u64, f64) {
        (0, 0.0)
    }
    /// Whether a peer stopped answering (the model must be loaded again).
    fn broken(&self) -> bool {
        false
    }
    /// Where the time went (nothing where not measured).
    fn shares(&self) -> Shares {
        Shares::default()
    }
}

/// A part of a model that answers a peer's side of a product (`Model`).
pub trait Serve {
    /// This part's rows of each matrix of `op` for `m` tokens of `input`.
    fn serve(&self, op: Op, m: usize, input: &[f32]) -> Result<Rows>;
}

/// Whether splitting still pays, watched over a generation: with another
/// program busy on a core the other workers are descheduled and the leader
/// waits at every product, so a split pass can be many times slower than
/// one worker (measured in the page: ~10×). Over each window (at least
/// `WINDOW_MS` and `WINDOW_EXCHANGES` products) the leader's waiting is
/// compared with the window's time: one worker with every row would have
/// done the window in about `n` times the leader's time not waiting, which
/// beats the split once the waiting is over `(n - 1) / n` of it.
#[derive(Clone, Debug)]
pub struct Watch {
    workers: usize,
    at_ms: f64,
    wait_ms: f64,
    exchanges: u64,
}

/// A window's least length.
pub const WINDOW_MS: f64 = 300.0;
/// A window's fewest products.
pub const WINDOW_EXCHANGES: u64 = 24;

impl Watch {
    /// A watch from now (`now_ms`), with the pass on `workers` workers.
    pub fn new(workers: usize, now_ms: f64, shares: &Shares, exchanges: u64) -> Watch {
        Watch {
            workers,
            at_ms: now_ms,
            wait_ms: shares.wait_ms,
            exchanges,
        }
    }

    /// After a step: true once a whole window shows one worker would be
    /// faster (the window then starts again either way).
    pub fn slower(&mut self, now_ms: f64, shares: &Shares, exchanges: u64) -> bool {
        let (wall, waited) = (now_ms - self.at_ms, shares.wait_ms - self.wait_ms);
        if self.workers < 2 || wall < WINDOW_MS || exchanges - self.exchanges < WINDOW_EXCHANGES {
            return false;
        }
        *self = Watch::new(self.workers, now_ms, shares, exchanges);
        let n = self.workers as f64;
        waited > wall * (n - 1.0) / n
    }
}

type Request = (Op, usize, Vec<f32>);
type Reply = std::result::Result<Rows, String>;

/// Peers on threads of this process, each loading its own part.
pub struct ThreadPeers {
    links: Vec<(Sender<Request>, Receiver<Reply>)>,
}

impl ThreadPeers {
    /// Starts `count - 1` threads; thread `i` holds `load(Part { index: i,
    /// count })`. Returns once every part is loaded.
    pub fn spawn<S, F>(count: usize, load: F) -> Result<ThreadPeers>
    where
        S: Serve + 'static,
        F: Fn(Part) -> Result<S> + Send + Sync + Clone + 'static,
    {
        let mut links = Vec::new();
        for index in 1..count {
            let (ask_tx, ask_rx) = channel::<Request>();
            let (reply_tx, reply_rx) = channel::<Reply>();
            let load = load.clone();
            std::thread::spawn(move || {
                let model = match load(Part { index, count }) {
                    Ok(m) => {
                        let _ = reply_tx.send(Ok(Vec::new()));
                        m
                    }
                    Err(e) => {
                        let _ = reply_tx.send(Err(e.to_string()));
                        return;
                    }
                };
                while let Ok((op, m, input)) = ask_rx.recv() {
                    let reply = model.serve(op, m, &input).map_err(|e| e.to_string());
                    if reply_tx.send(reply).is_err() {
                        return;
                    }
                }
            });
            match reply_rx.recv() {
                Ok(Ok(_)) => links.push((ask_tx, reply_rx)),
                Ok(Err(e)) => candle_core::bail!("part {index} of {count} did not load: {e}"),
                Err(_) => candle_core::bail!("part {index} of {count} stopped while loading"),
            }
        }
        Ok(ThreadPeers { links })
    }
}

impl Peers for ThreadPeers {
    fn ask(&self, op: Op, m: usize, input: &[f32]) -> Result<()> {
        for (tx, _) in &self.links {
            if tx.send((op, m, input.to_vec())).is_err() {
                candle_core::bail!("a helper thread of the model stopped")
            }
        }
        Ok(())
    }

    fn collect(&self) -> Result<Vec<Rows>> {
        self.links
            .iter()
            .map(|(_, rx)| match rx.recv() {
                Ok(Ok(rows)) => Ok(rows),
                Ok(Err(e)) => candle_core::bail!("a helper thread of the model failed: {e}"),
                Err(_) => candle_core::bail!("a helper thread of the model stopped"),
            })
            .collect()
    }

    fn workers(&self) -> usize {
        self.links.len() + 1
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn shares(wait_ms: f64) -> Shares {
        Shares {
            wait_ms,
            ..Shares::default()
        }
    }

    #[test]
    fn a_split_that_waits_most_of_a_window_is_slower_than_one_worker() {
        // Two workers, healthy: a fifth of the window spent waiting.
        let mut w = Watch::new(2, 0.0, &shares(0.0), 0);
        assert!(
            !w.slower(100.0, &shares(90.0), 30),
            "a window is at least 300 ms"
        );
        assert!(!w.slower(400.0, &shares(80.0), 10), "and 24 products");
        assert!(!w.slower(400.0, &shares(80.0), 40));
        // A busy core: the helper is descheduled, the leader waits 90%.
        assert!(w.slower(800.0, &shares(80.0 + 360.0), 80));
        // The next window starts where that one ended.
        assert!(!w.slower(900.0, &shares(440.0 + 95.0), 120));
        // Four workers tolerate waiting up to three quarters of the time.
        let mut four = Watch::new(4, 0.0, &shares(0.0), 0);
        assert!(!four.slower(400.0, &shares(280.0), 30));
        assert!(four.slower(800.0, &shares(280.0 + 320.0), 60));
        // One worker never falls back.
        let mut one = Watch::new(1, 0.0, &shares(0.0), 0);
        assert!(!one.slower(1000.0, &shares(1000.0), 100));
    }
}
