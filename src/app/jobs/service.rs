//! The one job service: every background task of the app (file loads and
//! saves, file dialogs, toolbox runs and previews, model and texture loads,
//! song decoding) runs through [`JobService::spawn`].
//!
//! - Every job gets a [`JobId`]; its result comes back as [`Finished`] with
//!   that id, so a result is never matched by a label or by arrival order.
//! - The work gets a [`JobCtx`]: [`JobCtx::progress`] reports a fraction and
//!   what it is doing (the status bar shows one progress bar for every job),
//!   [`JobCtx::cancelled`] says the user (or a newer job) asked it to stop.
//! - A [`Lane`] is "the current job for X" (the toolbox run, the simplify
//!   preview, the song): starting a job on a lane cancels the one before,
//!   and a result whose id is no longer current is dropped as stale.
//!
//! The service itself is a cheap handle (clones share one registry).

use std::sync::mpsc::{Receiver, Sender, TryRecvError, channel};
use std::sync::{Arc, Mutex, MutexGuard};
use std::time::{Duration, Instant};

use crate::progress::Progress;

/// A job's id: unique within one [`JobService`], counting up from 1.
pub type JobId = u64;

/// What kind of work a job does (for the progress display and tests).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum JobKind {
    /// Reading a motion file.
    Open,
    /// Reading a model and decoding its textures.
    Model,
    /// Writing a file.
    Save,
    /// A file dialog.
    Dialog,
    /// A toolbox operation.
    Toolbox,
    /// A toolbox dialog's live preview.
    Preview,
    /// Decoding a song and finding its beats.
    Song,
    /// Rendering the scene to a video or a PNG sequence.
    Export,
    /// Writing or deleting crash-recovery copies.
    Recovery,
}

/// A finished job's result, tagged with its id.
#[derive(Debug)]
pub struct Finished<T> {
    pub id: JobId,
    pub value: T,
}

/// A job's progress as the service sees it: the job's own
/// [`Progress`], or the one of the pure-layer operation it follows (the
/// song decoder's, the simplifier's; see [`JobCtx::follow`]).
#[derive(Debug, Default)]
struct Cell {
    own: Progress,
    followed: Mutex<Option<Arc<Progress>>>,
}

impl Cell {
    fn new() -> Arc<Cell> {
        Arc::new(Cell::default())
    }

    fn followed(&self) -> Option<Arc<Progress>> {
        self.followed.lock().ok().and_then(|s| s.clone())
    }

    fn fraction(&self) -> Option<f32> {
        match self.followed() {
            Some(p) => Some(p.fraction()),
            None => self.own.reported(),
        }
    }

    fn cancel(&self) {
        self.own.cancel();
        if let Some(p) = self.followed() {
            p.cancel();
        }
    }
}

/// What a running job can see and say.
#[derive(Debug, Clone)]
pub struct JobCtx {
    id: JobId,
    cell: Arc<Cell>,
}

impl JobCtx {
    /// A context for running work inline (no service; never cancelled).
    pub fn detached() -> JobCtx {
        JobCtx {
            id: 0,
            cell: Cell::new(),
        }
    }

    pub fn id(&self) -> JobId {
        self.id
    }

    /// Reports `fraction` (0..=1; other values are clamped, NaN is 0) done
    /// and what the job is doing now ("decoding", "texture 3 of 12").
    pub fn progress(&self, fraction: f32, what: &str) {
        self.cell.own.report(fraction, what);
    }

    /// The job's own progress, for an operation that takes a [`Progress`]
    /// (reports through it show in the status bar; cancelling the job
    /// cancels it).
    pub fn progress_handle(&self) -> &Progress {
        &self.cell.own
    }

    /// The job was asked to stop; work should return soon (its result is
    /// dropped anyway when a newer job replaced it).
    pub fn cancelled(&self) -> bool {
        self.cell.own.is_cancelled() || self.cell.followed().is_some_and(|p| p.is_cancelled())
    }

    /// From now on the fraction is `source`'s, and cancelling the job
    /// cancels `source` (a progress the caller also keeps, to show it
    /// itself). `what` says what the job is doing.
    pub fn follow(&self, source: Arc<Progress>, what: &str) {
        if let Ok(mut s) = self.cell.followed.lock() {
            *s = Some(source);
        }
        self.cell.own.set_what(what);
        // A cancel that came in before (or while) following is forwarded.
        if self.cell.own.is_cancelled() {
            self.cell.cancel();
        }
    }
}

/// A running job as the progress display sees it.
#[derive(Debug, Clone)]
pub struct JobInfo {
    pub id: JobId,
    pub kind: JobKind,
    /// "Loading dance.vmd", "Simplify keys on 250000 keys".
    pub label: String,
    /// Fraction done, once the job reported one.
    pub fraction: Option<f32>,
    /// What it is doing now (empty before its first report).
    pub what: String,
    /// The user may cancel it.
    pub cancellable: bool,
    pub cancel_requested: bool,
    pub elapsed: Duration,
}

struct Running {
    id: JobId,
    kind: JobKind,
    label: String,
    cancellable: bool,
    started: Instant,
    cell: Arc<Cell>,
}

#[derive(Default)]
struct Registry {
    next: JobId,
    running: Vec<Running>,
    repaint: Option<egui::Context>,
}

/// The job service (a handle; clones share the same jobs).
#[derive(Clone, Default)]
pub struct JobService {
    inner: Arc<Mutex<Registry>>,
}

impl std::fmt::Debug for JobService {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("JobService")
            .field("running", &self.running().len())
            .finish()
    }
}

impl JobService {
    fn registry(&self) -> MutexGuard<'_, Registry> {
        // A job thread never panics while holding the lock (it only pushes
        // and removes entries), but a poisoned lock must not stop the app.
        self.inner.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Finished jobs and progress reports repaint this context.
    pub fn set_context(&self, ctx: &egui::Context) {
        let mut r = self.registry();
        if r.repaint.is_none() {
            r.repaint = Some(ctx.clone());
        }
    }

    /// Runs `work` on its own thread and sends its result, tagged with the
    /// job's id, to `tx`. Returns the id.
    pub fn spawn<T: Send + 'static>(
        &self,
        kind: JobKind,
        label: impl Into<String>,
        cancellable: bool,
        tx: Sender<Finished<T>>,
        work: impl FnOnce(&JobCtx) -> T + Send + 'static,
    ) -> JobId {
        let cell = Cell::new();
        let (id, repaint) = {
            let mut r = self.registry();
            r.next += 1;
            let id = r.next;
            r.running.push(Running {
                id,
                kind,
                label: label.into(),
                cancellable,
                started: Instant::now(),
                cell: Arc::clone(&cell),
            });
            (id, r.repaint.clone())
        };
        let ctx = JobCtx { id, cell };
        let service = self.clone();
        let spawned = std::thread::Builder::new()
            .name(format!("job-{id}"))
            .spawn(move || {
                // Leaves the registry however the work ends (even by panic).
                struct Done(JobService, JobId, Option<egui::Context>);
                impl Drop for Done {
                    fn drop(&mut self) {
                        self.0.registry().running.retain(|j| j.id != self.1);
                        if let Some(c) = &self.2 {
                            c.request_repaint();
                        }
                    }
                }
                let _done = Done(service, id, repaint);
                let value = work(&ctx);
                // The receiver is gone only when its owner is (result unwanted).
                let _ = tx.send(Finished { id, value });
            });
        if spawned.is_err() {
            // No thread: the job can never finish; say so by leaving the registry.
            self.registry().running.retain(|j| j.id != id);
        }
        id
    }

    /// Asks job `id` to stop. Returns whether it was running.
    pub fn cancel(&self, id: JobId) -> bool {
        let r = self.registry();
        match r.running.iter().find(|j| j.id == id) {
            Some(j) => {
                j.cell.cancel();
                true
            }
            None => false,
        }
    }

    /// Whether job `id` is still running.
    pub fn is_running(&self, id: JobId) -> bool {
        self.registry().running.iter().any(|j| j.id == id)
    }

    /// The running jobs, oldest first.
    pub fn running(&self) -> Vec<JobInfo> {
        let now = Instant::now();
        self.registry()
            .running
            .iter()
            .map(|j| JobInfo {
                id: j.id,
                kind: j.kind,
                label: j.label.clone(),
                fraction: j.cell.fraction(),
                what: j.cell.own.what(),
                cancellable: j.cancellable,
                cancel_requested: j.cell.own.is_cancelled(),
                elapsed: now.saturating_duration_since(j.started),
            })
            .collect()
    }

    pub fn is_busy(&self) -> bool {
        !self.registry().running.is_empty()
    }
}

/// What [`Lane::poll`] found.
#[derive(Debug)]
pub enum Polled<T> {
    /// The current job finished.
    Done(Finished<T>),
    /// The current job ended without a result (its thread panicked).
    Lost(JobId),
}

/// "The current job for X": at most one job whose result is wanted.
/// Starting a job cancels the previous one; results of any job but the
/// current one are dropped (counted in [`Lane::stale_dropped`]).
pub struct Lane<T> {
    tx: Sender<Finished<T>>,
    rx: Receiver<Finished<T>>,
    current: Option<JobId>,
    /// Results that arrived for a job no longer current.
    pub stale_dropped: u64,
}

impl<T> Default for Lane<T> {
    fn default() -> Self {
        let (tx, rx) = channel();
        Lane {
            tx,
            rx,
            current: None,
            stale_dropped: 0,
        }
    }
}

impl<T> std::fmt::Debug for Lane<T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Lane")
            .field("current", &self.current)
            .field("stale_dropped", &self.stale_dropped)
            .finish()
    }
}

impl<T: Send + 'static> Lane<T> {
    /// Starts `work` as the lane's current job (cancelling the previous one).
    pub fn start(
        &mut self,
        jobs: &JobService,
        kind: JobKind,
        label: impl Into<String>,
        cancellable: bool,
        work: impl FnOnce(&JobCtx) -> T + Send + 'static,
    ) -> JobId {
        if let Some(old) = self.current.take() {
            jobs.cancel(old);
        }
        let id = jobs.spawn(kind, label, cancellable, self.tx.clone(), work);
        self.current = Some(id);
        id
    }

    /// The job whose result is wanted, while it runs.
    pub fn current(&self) -> Option<JobId> {
        self.current
    }

    pub fn is_running(&self) -> bool {
        self.current.is_some()
    }

    /// Cancels the current job and stops waiting for it.
    pub fn cancel(&mut self, jobs: &JobService) {
        if let Some(id) = self.current.take() {
            jobs.cancel(id);
        }
    }

    /// Stops waiting for the current job without asking it to stop (its
    /// owner cancels it another way); its result will be stale.
    pub fn forget(&mut self) {
        self.current = None;
    }

    /// Takes a result if it is the current job's; a stale one is dropped.
    pub fn accept(&mut self, f: Finished<T>) -> Option<Finished<T>> {
        if self.current == Some(f.id) {
            self.current = None;
            Some(f)
        } else {
            self.stale_dropped += 1;
            None
        }
    }

    /// The current job's result once it is there (stale results are
    /// dropped on the way).
    pub fn poll(&mut self, jobs: &JobService) -> Option<Polled<T>> {
        loop {
            match self.rx.try_recv() {
                Ok(f) => {
                    if let Some(f) = self.accept(f) {
                        return Some(Polled::Done(f));
                    }
                }
                Err(TryRecvError::Empty) => break,
                // Cannot happen: the lane holds a sender.
                Err(TryRecvError::Disconnected) => break,
            }
        }
        let id = self.current?;
        if jobs.is_running(id) {
            return None;
        }
        // Finished jobs send before leaving the registry: look once more.
        while let Ok(f) = self.rx.try_recv() {
            if let Some(f) = self.accept(f) {
                return Some(Polled::Done(f));
            }
        }
        self.current = None;
        Some(Polled::Lost(id))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::Barrier;

    fn wait_for<T: Send + 'static>(lane: &mut Lane<T>, jobs: &JobService) -> Polled<T> {
        let start = Instant::now();
        loop {
            if let Some(p) = lane.poll(jobs) {
                return p;
            }
            assert!(
                start.elapsed() < Duration::from_secs(10),
                "job never finished"
            );
            std::thread::sleep(Duration::from_millis(2));
        }
    }

    #[test]
    fn results_carry_the_job_id() {
        let jobs = JobService::default();
        let (tx, rx) = channel();
        let a = jobs.spawn(JobKind::Open, "a", false, tx.clone(), |c| c.id() * 10);
        let b = jobs.spawn(JobKind::Open, "b", false, tx, |c| c.id() * 10);
        assert_ne!(a, b);
        let mut got: Vec<(JobId, u64)> = (0..2)
            .map(|_| rx.recv_timeout(Duration::from_secs(10)).unwrap())
            .map(|f| (f.id, f.value))
            .collect();
        got.sort();
        assert_eq!(got, vec![(a, a * 10), (b, b * 10)]);
    }

    #[test]
    fn a_stale_result_is_dropped_even_when_it_arrives_last() {
        let jobs = JobService::default();
        let mut lane: Lane<&'static str> = Lane::default();
        let gate = Arc::new(Barrier::new(2));
        let g = Arc::clone(&gate);
        // The first job (not cancellable) is held until the second is done.
        let first = lane.start(&jobs, JobKind::Toolbox, "first", false, move |_| {
            g.wait();
            "first"
        });
        let second = lane.start(&jobs, JobKind::Toolbox, "second", false, |_| "second");
        let Polled::Done(f) = wait_for(&mut lane, &jobs) else {
            panic!("lost")
        };
        assert_eq!((f.id, f.value), (second, "second"));
        gate.wait();
        let start = Instant::now();
        while jobs.is_running(first) {
            assert!(start.elapsed() < Duration::from_secs(10));
            std::thread::sleep(Duration::from_millis(2));
        }
        assert!(
            lane.poll(&jobs).is_none(),
            "the first job's result is stale"
        );
        assert_eq!(lane.stale_dropped, 1);
    }

    #[test]
    fn starting_a_new_job_cancels_the_old_and_cancel_stops_long_work() {
        let jobs = JobService::default();
        let mut lane: Lane<u64> = Lane::default();
        let spin = |c: &JobCtx| {
            let mut n = 0u64;
            while !c.cancelled() {
                n += 1;
                std::thread::sleep(Duration::from_millis(1));
                assert!(n < 20_000, "never cancelled");
            }
            n
        };
        let first = lane.start(&jobs, JobKind::Preview, "spin", true, spin);
        std::thread::sleep(Duration::from_millis(20));
        let second = lane.start(&jobs, JobKind::Preview, "spin", true, spin);
        let start = Instant::now();
        while jobs.is_running(first) {
            assert!(start.elapsed() < Duration::from_secs(10), "not cancelled");
            std::thread::sleep(Duration::from_millis(2));
        }
        assert!(jobs.running().iter().any(|j| j.id == second));
        assert!(jobs.cancel(second));
        assert!(matches!(wait_for(&mut lane, &jobs), Polled::Done(f) if f.id == second));
        assert_eq!(lane.stale_dropped, 1);
        assert!(!jobs.is_busy());
    }

    #[test]
    fn progress_is_visible_while_the_job_runs() {
        let jobs = JobService::default();
        let mut lane: Lane<()> = Lane::default();
        let reported = Arc::new(Barrier::new(2));
        let release = Arc::new(Barrier::new(2));
        let (r1, r2) = (Arc::clone(&reported), Arc::clone(&release));
        let id = lane.start(&jobs, JobKind::Model, "Loading m.pmx", true, move |c| {
            c.progress(0.25, "texture 1 of 4");
            r1.wait();
            r2.wait();
        });
        reported.wait();
        let info = jobs.running();
        assert_eq!(info.len(), 1);
        assert_eq!(info[0].id, id);
        assert_eq!(info[0].fraction, Some(0.25));
        assert_eq!(info[0].what, "texture 1 of 4");
        assert_eq!(info[0].label, "Loading m.pmx");
        assert!(info[0].cancellable);
        release.wait();
        assert!(matches!(wait_for(&mut lane, &jobs), Polled::Done(_)));
        assert!(jobs.running().is_empty());
    }

    #[test]
    fn a_panicking_job_is_reported_lost_not_hung() {
        let jobs = JobService::default();
        let mut lane: Lane<u8> = Lane::default();
        let id = lane.start(&jobs, JobKind::Toolbox, "boom", false, |_| -> u8 {
            panic!("boom")
        });
        assert!(matches!(wait_for(&mut lane, &jobs), Polled::Lost(i) if i == id));
        assert!(!lane.is_running());
        assert!(!jobs.is_busy());
    }
}
