//! `drive`: a core job run with the GIL released; ensembles and cross-validations run on a
//! rayon pool in a worker thread while the calling thread checks for Python signals (Ctrl-C
//! cancels between runs) and reports progress.
//!
//! Invariant: the job's panic or core error comes back as a Python exception (through
//! [`crate::convert`]), never unwinding into Python; a cancelled job stops between runs.
//!
//! Imports: `convert` only.

use crate::convert::{core_err, guarded, panic_err};
use findrs_core::Progress;
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use std::collections::HashMap;
use std::sync::atomic::Ordering;
use std::sync::{mpsc, Arc, Mutex, OnceLock};
use std::time::Duration;

/// One rayon pool per requested thread count, built once.
fn pool(n_jobs: Option<usize>) -> PyResult<Option<Arc<rayon::ThreadPool>>> {
    let Some(n) = n_jobs else { return Ok(None) };
    if n == 0 {
        return Err(PyValueError::new_err("n_jobs must be at least 1 (or None for all cores)"));
    }
    static POOLS: OnceLock<Mutex<HashMap<usize, Arc<rayon::ThreadPool>>>> = OnceLock::new();
    let mut pools = POOLS.get_or_init(Default::default).lock().expect("pool registry");
    if let Some(p) = pools.get(&n) {
        return Ok(Some(p.clone()));
    }
    let p = rayon::ThreadPoolBuilder::new()
        .num_threads(n)
        .build()
        .map_err(|e| PyValueError::new_err(format!("cannot start {n} threads: {e}")))?;
    let p = Arc::new(p);
    pools.insert(n, p.clone());
    Ok(Some(p))
}

/// Runs `work` with the GIL released, on the requested pool. When `total > 0` (a job of many
/// runs), it runs on a worker thread while this thread checks for Python signals (Ctrl-C
/// cancels between runs) and reports `(finished, total)` to `progress`.
pub fn drive<T: Send>(
    py: Python<'_>,
    n_jobs: Option<usize>,
    progress: Option<Py<PyAny>>,
    total: usize,
    work: impl Fn(&Progress) -> findrs_core::Result<T> + Send + Sync,
) -> PyResult<T> {
    let pool = pool(n_jobs)?;
    let state = Progress::default();
    let run = || {
        let go = || work(&state);
        match &pool {
            Some(p) => p.install(go),
            None => go(),
        }
    };
    if total == 0 {
        return py.detach(|| guarded(|| run().map_err(core_err)));
    }
    let out = std::thread::scope(|s| -> PyResult<_> {
        let (tx, rx) = mpsc::channel();
        let worker = s.spawn(move || {
            let out = std::panic::catch_unwind(std::panic::AssertUnwindSafe(run));
            let _ = tx.send(out);
        });
        // Mutex only to make the receiver Sync for `detach`; this thread alone uses it.
        let rx = Mutex::new(rx);
        let recv = |timeout: Option<Duration>| {
            let rx = rx.lock().expect("receiver");
            match timeout {
                Some(t) => rx.recv_timeout(t),
                None => rx.recv().map_err(|_| mpsc::RecvTimeoutError::Disconnected),
            }
        };
        let mut reported = 0usize;
        let out = loop {
            match py.detach(|| recv(Some(Duration::from_millis(50)))) {
                Ok(out) => break out,
                Err(mpsc::RecvTimeoutError::Disconnected) => {
                    break Err(Box::new("the fit worker stopped without a result") as _)
                }
                Err(mpsc::RecvTimeoutError::Timeout) => {}
            }
            if let Err(e) = py.check_signals() {
                state.cancel.store(true, Ordering::Relaxed);
                let _ = py.detach(|| recv(None));
                let _ = worker.join();
                return Err(e);
            }
            let done = state.finished.load(Ordering::Relaxed);
            if let (Some(cb), true) = (&progress, done != reported) {
                reported = done;
                cb.call1(py, (done.min(total), total))?;
            }
        };
        let _ = worker.join();
        out.map_err(panic_err)?.map_err(core_err)
    })?;
    if let Some(cb) = &progress {
        cb.call1(py, (total, total))?;
    }
    Ok(out)
}
