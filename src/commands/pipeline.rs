//! Ordered parallel work with bounded memory: jobs are filled on the calling
//! thread (reading input in order), done on worker threads, and handed back
//! to the calling thread in the order they were filled (writing output in
//! order). A fixed set of `depth` job and result buffers circulates, so
//! memory stays bounded whatever the input's size, and the buffers' memory
//! is reused from job to job.

use std::collections::BTreeMap;
use std::sync::mpsc;
use std::sync::Mutex;

/// Worker threads for `--jobs` (or every core when `None`).
pub(crate) fn threads(jobs: Option<usize>) -> usize {
    jobs.unwrap_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get()))
        .max(1)
}

/// Run jobs: `fill` fills the next job's input (false: no more), `work`
/// turns an input into an output on one of `threads` workers, `done` takes
/// the outputs in the order the inputs were filled. At most `depth` jobs
/// are in flight. One thread does everything on the calling thread, in
/// turn. The first error of `fill` or `done` stops the run and is returned
/// once the workers have finished their jobs.
pub(crate) fn ordered<In, Out, E>(
    threads: usize,
    depth: usize,
    mut fill: impl FnMut(&mut In) -> Result<bool, E>,
    work: impl Fn(&In, &mut Out) + Sync,
    mut done: impl FnMut(&In, &mut Out) -> Result<(), E>,
) -> Result<(), E>
where
    In: Default + Send,
    Out: Default + Send,
{
    if threads <= 1 {
        let (mut i, mut o) = (In::default(), Out::default());
        while fill(&mut i)? {
            work(&i, &mut o);
            done(&i, &mut o)?;
        }
        return Ok(());
    }
    let depth = depth.max(threads);
    let (job_tx, job_rx) = mpsc::channel::<(u64, In, Out)>();
    let job_rx = Mutex::new(job_rx);
    let (res_tx, res_rx) = mpsc::channel::<(u64, In, Out)>();
    std::thread::scope(|s| {
        for _ in 0..threads {
            let res_tx = res_tx.clone();
            let (job_rx, work) = (&job_rx, &work);
            s.spawn(move || loop {
                let job = match job_rx.lock() {
                    Ok(rx) => rx.recv(),
                    Err(_) => return,
                };
                let Ok((seq, i, mut o)) = job else { return };
                work(&i, &mut o);
                if res_tx.send((seq, i, o)).is_err() {
                    return;
                }
            });
        }
        drop(res_tx);
        let mut pool: Vec<(In, Out)> = (0..depth).map(|_| Default::default()).collect();
        let mut ready: BTreeMap<u64, (In, Out)> = BTreeMap::new();
        let (mut next_seq, mut next_out, mut in_flight, mut more) = (0u64, 0u64, 0usize, true);
        let mut run = || -> Result<(), E> {
            loop {
                while more {
                    let Some((mut i, o)) = pool.pop() else { break };
                    if fill(&mut i)? {
                        if job_tx.send((next_seq, i, o)).is_err() {
                            more = false; // every worker is gone
                            break;
                        }
                        next_seq += 1;
                        in_flight += 1;
                    } else {
                        more = false;
                        pool.push((i, o));
                    }
                }
                if in_flight == 0 {
                    return Ok(());
                }
                let Ok((seq, i, o)) = res_rx.recv() else {
                    return Ok(()); // every worker is gone
                };
                in_flight -= 1;
                ready.insert(seq, (i, o));
                while let Some((i, mut o)) = ready.remove(&next_out) {
                    done(&i, &mut o)?;
                    pool.push((i, o));
                    next_out += 1;
                }
            }
        };
        let result = run();
        drop(job_tx);
        result
    })
}

/// [`ordered`] for inputs any thread can read by number (positioned reads
/// of a file): each worker takes a free buffer pair, then the next task
/// number, and fills, works and hands back task after task; the calling
/// thread only runs `done` in task order. `fill(seq, in)` is false past the
/// end of the input. At most `depth` tasks are in memory; the worker with
/// the oldest task always holds its buffers, so the order never stalls.
pub(crate) fn ordered_fill<In, Out, E>(
    threads: usize,
    depth: usize,
    fill: impl Fn(u64, &mut In) -> Result<bool, E> + Sync,
    work: impl Fn(&In, &mut Out) + Sync,
    mut done: impl FnMut(&In, &mut Out) -> Result<(), E>,
) -> Result<(), E>
where
    In: Default + Send,
    Out: Default + Send,
    E: Send,
{
    use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
    let threads = threads.max(1);
    let depth = depth.max(threads);
    // A task's number and what became of it: filled and worked, past the
    // end of the input, or failed to fill.
    type Res<In, Out, E> = (u64, Result<Option<(In, Out)>, E>);
    let (free_tx, free_rx) = mpsc::channel::<(In, Out)>();
    for _ in 0..depth {
        let _ = free_tx.send(Default::default());
    }
    let free_rx = Mutex::new(free_rx);
    let (res_tx, res_rx) = mpsc::channel::<Res<In, Out, E>>();
    let next = AtomicU64::new(0);
    let stop = AtomicBool::new(false);
    std::thread::scope(|s| {
        for _ in 0..threads {
            let res_tx = res_tx.clone();
            let (free_rx, fill, work, next, stop) = (&free_rx, &fill, &work, &next, &stop);
            s.spawn(move || loop {
                let pair = match free_rx.lock() {
                    Ok(rx) => rx.recv(),
                    Err(_) => return,
                };
                let Ok((mut i, mut o)) = pair else { return };
                if stop.load(Ordering::Relaxed) {
                    return;
                }
                let seq = next.fetch_add(1, Ordering::Relaxed);
                let res = match fill(seq, &mut i) {
                    Ok(true) => {
                        work(&i, &mut o);
                        Ok(Some((i, o)))
                    }
                    Ok(false) => Ok(None),
                    Err(e) => Err(e),
                };
                let last = !matches!(res, Ok(Some(_)));
                if last {
                    stop.store(true, Ordering::Relaxed);
                }
                if res_tx.send((seq, res)).is_err() || last {
                    return;
                }
            });
        }
        drop(res_tx);
        let mut ready: BTreeMap<u64, Result<Option<(In, Out)>, E>> = BTreeMap::new();
        let mut next_out = 0u64;
        let result = loop {
            // The next task in order, once some worker has handed it back.
            let res = match ready.remove(&next_out) {
                Some(r) => r,
                None => match res_rx.recv() {
                    Ok((seq, r)) => {
                        ready.insert(seq, r);
                        continue;
                    }
                    // Every worker is gone, and the task in order never came.
                    Err(_) => break Ok(()),
                },
            };
            match res {
                Ok(Some((i, mut o))) => {
                    if let Err(e) = done(&i, &mut o) {
                        break Err(e);
                    }
                    let _ = free_tx.send((i, o));
                    next_out += 1;
                }
                Ok(None) => break Ok(()),
                Err(e) => break Err(e),
            }
        };
        // Wake and end the workers still waiting for buffers.
        stop.store(true, Ordering::Relaxed);
        drop(free_tx);
        result
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Outputs come back in input order, whatever order the workers finish
    /// in, with one thread and with several.
    #[test]
    fn outputs_in_order() {
        for threads in [1, 2, 4] {
            let mut n = 0u64;
            let mut seen = Vec::new();
            let r: Result<(), ()> = ordered(
                threads,
                3,
                |i: &mut u64| {
                    n += 1;
                    *i = n;
                    Ok(n <= 200)
                },
                |i, o: &mut u64| {
                    if i % 7 == 0 {
                        std::thread::sleep(std::time::Duration::from_millis(2));
                    }
                    *o = i * 10;
                },
                |i, o| {
                    seen.push((*i, *o));
                    Ok(())
                },
            );
            assert!(r.is_ok());
            let want: Vec<(u64, u64)> = (1..=200).map(|i| (i, i * 10)).collect();
            assert_eq!(seen, want, "{threads} threads");
        }
    }

    /// An error from `done` stops the run and comes back.
    #[test]
    fn error_stops() {
        let mut n = 0u64;
        let mut done_count = 0;
        let r = ordered(
            2,
            4,
            |i: &mut u64| {
                n += 1;
                *i = n;
                Ok(n <= 1000)
            },
            |i, o: &mut u64| *o = *i,
            |i, _| {
                done_count += 1;
                if *i == 5 {
                    Err("stop")
                } else {
                    Ok(())
                }
            },
        );
        assert_eq!(r, Err("stop"));
        assert_eq!(done_count, 5);
        assert!(n < 20, "filled {n} jobs after the error");
    }

    #[test]
    fn filled_by_the_workers_outputs_in_order() {
        for threads in [1, 2, 4] {
            let mut seen = Vec::new();
            let r: Result<(), ()> = ordered_fill(
                threads,
                3,
                |seq, i: &mut u64| {
                    if seq % 7 == 0 {
                        std::thread::sleep(std::time::Duration::from_millis(2));
                    }
                    *i = seq;
                    Ok(seq < 200)
                },
                |i, o: &mut u64| *o = i * 10,
                |i, o| {
                    seen.push((*i, *o));
                    Ok(())
                },
            );
            assert!(r.is_ok());
            let want: Vec<(u64, u64)> = (0..200).map(|i| (i, i * 10)).collect();
            assert_eq!(seen, want, "{threads} threads");
        }
    }

    #[test]
    fn filled_by_the_workers_stops_at_an_error() {
        for threads in [1, 2, 4] {
            // A failed fill: the tasks before it are done, in order, then
            // its error is returned.
            let mut seen = Vec::new();
            let r = ordered_fill(
                threads,
                4,
                |seq, i: &mut u64| {
                    *i = seq;
                    if seq == 50 {
                        Err("unreadable")
                    } else {
                        Ok(true)
                    }
                },
                |_, _: &mut ()| {},
                |i, _| {
                    seen.push(*i);
                    Ok(())
                },
            );
            assert_eq!(r, Err("unreadable"));
            assert_eq!(seen, (0..50).collect::<Vec<u64>>());
            // A failed `done`: nothing after it.
            let mut done_count = 0;
            let r = ordered_fill(
                threads,
                4,
                |seq, i: &mut u64| {
                    *i = seq;
                    Ok(seq < 10_000)
                },
                |_, _: &mut ()| {},
                |i, _| {
                    done_count += 1;
                    if *i == 5 {
                        Err("stop")
                    } else {
                        Ok(())
                    }
                },
            );
            assert_eq!(r, Err("stop"));
            assert_eq!(done_count, 6);
        }
    }
}
