import Foundation
import Logging
import NIOCore
import NIOPosix
import PostgresLibPQ
import SubLedgerUseCases
import Synchronization

/// Makes NIO's singleton event loops Swift concurrency's global executor (`serve` only), so a request's
/// handler runs on the event loop that read it and its answer is written from there: the event loop → task
/// → event loop hops of every request disappear (the connection thread of the pool remains).
///
/// Measured faster than the default cooperative pool on 2 and 16 cores (in the history of docs/benchmarks.md), so
/// `serve` always makes it; another way is measured as another build (`scripts/bench-reads-ab`). Nothing here blocks an event loop that did not before: blocking libpq calls stay on the pool's
/// threads.
public enum ConcurrencyOnEventLoops {
    private static let installed = Mutex(false)

    /// Called by `subledger serve` before anything else runs, never by the library: installed in a process
    /// that already runs tasks (a test runner hosting servers), blocking test code would stall event loops.
    public static func install(logger: Logger) {
        let first = installed.withLock { installed in
            defer { installed = true }
            return !installed
        }
        guard first else { return }
        sizeEventLoopsToTheUsableCores(logger: logger)
        if !NIOSingletons.unsafeTryInstallSingletonPosixEventLoopGroupAsConcurrencyGlobalExecutor() {
            logger.debug("Swift concurrency stays on its own pool: this platform cannot hand it to NIO")
        }
    }

    /// NIO sizes its singleton event loops (and its blocking pool) from the cores online or a container's quota,
    /// not from the process's CPU affinity: started with `taskset -c 8-11` on 16 cores, `serve` would run 16 event
    /// loops on 4 cores, preempting each other, a lock holder included. Both are sized to the cores the process may
    /// run on, unless NIO's own variables (`NIO_SINGLETON_GROUP_LOOP_COUNT`,
    /// `NIO_SINGLETON_BLOCKING_POOL_THREAD_COUNT`) choose them.
    static func sizeEventLoopsToTheUsableCores(logger: Logger) {
        let usable = ProcessCores.usable(of: System.coreCount)
        guard usable < System.coreCount else { return }
        let environment = ProcessInfo.processInfo.environment
        if environment["NIO_SINGLETON_GROUP_LOOP_COUNT"] == nil {
            NIOSingletons.groupLoopCountSuggestion = usable
        }
        if environment["NIO_SINGLETON_BLOCKING_POOL_THREAD_COUNT"] == nil {
            NIOSingletons.blockingPoolThreadCountSuggestion = usable
        }
        logger.debug(
            "event loops sized to the process's CPU affinity",
            metadata: ["usable_cores": "\(usable)", "cores": "\(System.coreCount)"])
    }
}
