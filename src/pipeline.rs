//! An ordered three-stage pipeline for streamed outputs: batches are formed
//! on one thread, computed on the thread pool, and consumed in order on the
//! caller's thread, each stage working on its own batch at the same time.
//!
//! A streamed output (10^6 prediction points, 10^5 series of an experiment)
//! used to alternate three serial steps: form a batch, compute it in
//! parallel, write it. While the caller wrote, the pool waited; while the
//! pool computed, the writer waited. Here the next batch is formed and the
//! previous one written while one is computed. At most one finished batch
//! waits between two stages, so memory stays a few batches, and the order of
//! the output is the order of the batches.

use std::sync::mpsc::sync_channel;

/// Runs `produce` (on a thread of its own, until it gives `None`),
/// `compute` (on another thread, which drives the pool with it) and
/// `consume` (on the calling thread, in the order `produce` gave the
/// batches). The first error of `consume` stops the pipeline: no batch is
/// consumed after it, and the other stages stop at their next hand-over.
/// `consume` may hold what is not `Send` (a locked standard output).
pub(crate) fn pipelined<B, R, E>(
    produce: impl FnMut() -> Option<B> + Send,
    compute: impl Fn(B) -> R + Sync,
    mut consume: impl FnMut(R) -> Result<(), E>,
) -> Result<(), E>
where
    B: Send,
    R: Send,
{
    let mut produce = produce;
    let compute = &compute;
    std::thread::scope(|s| {
        let (batches, to_compute) = sync_channel::<B>(1);
        let (results, to_consume) = sync_channel::<R>(1);
        s.spawn(move || {
            while let Some(b) = produce() {
                // A closed channel: the consumer stopped.
                if batches.send(b).is_err() {
                    break;
                }
            }
        });
        s.spawn(move || {
            for b in to_compute {
                if results.send(compute(b)).is_err() {
                    break;
                }
            }
        });
        // Returning drops the receiver, which stops the stages above.
        for r in to_consume {
            consume(r)?;
        }
        Ok(())
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn batches_are_consumed_in_order() {
        let mut next = 0..100u32;
        let mut seen = Vec::new();
        let r: Result<(), ()> = pipelined(
            || next.next(),
            |b| b * 2,
            |r| {
                seen.push(r);
                Ok(())
            },
        );
        assert_eq!(r, Ok(()));
        assert_eq!(seen, (0..100).map(|b| b * 2).collect::<Vec<_>>());
    }

    #[test]
    fn an_error_stops_every_stage() {
        // An endless producer: only the consumer's error ends the run.
        let produced = std::sync::atomic::AtomicUsize::new(0);
        let mut seen = Vec::new();
        let r = pipelined(
            || Some(produced.fetch_add(1, std::sync::atomic::Ordering::SeqCst)),
            |b| b,
            |b| {
                seen.push(b);
                if b == 3 {
                    Err("stop")
                } else {
                    Ok(())
                }
            },
        );
        assert_eq!(r, Err("stop"));
        assert_eq!(seen, vec![0, 1, 2, 3]);
        // Two channels of one slot and one batch in each stage at most.
        assert!(produced.load(std::sync::atomic::Ordering::SeqCst) <= 4 + 5);
    }

    #[test]
    fn consume_may_hold_what_is_not_send() {
        let held = std::rc::Rc::new(std::cell::RefCell::new(String::new()));
        let mut n = 0;
        let r: Result<(), ()> = pipelined(
            || {
                n += 1;
                (n <= 3).then_some(n)
            },
            |b| b.to_string(),
            |s| {
                held.borrow_mut().push_str(&s);
                Ok(())
            },
        );
        assert_eq!(r, Ok(()));
        assert_eq!(held.borrow().as_str(), "123");
    }
}
