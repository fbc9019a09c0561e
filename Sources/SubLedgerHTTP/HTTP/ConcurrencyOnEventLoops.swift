import Foundation
import Logging
import NIOCore
import NIOPosix
import SubLedgerUseCases
import Synchronization

/// Makes NIO's singleton event loops Swift concurrency's global executor (`serve` only), so a request's
/// handler runs on the event loop that read it and its answer is written from there: the event loop → task
/// → event loop hops of every request disappear (the connection thread of the pool remains).
///
/// On by default; `SUBLEDGER_CONCURRENCY_ON_EVENT_LOOPS=0` keeps the default cooperative pool (to compare).
/// Nothing here blocks an event loop that did not before: blocking libpq calls stay on the pool's threads.
public enum ConcurrencyOnEventLoops {
    static let variable = "SUBLEDGER_CONCURRENCY_ON_EVENT_LOOPS"
    private static let installed = Mutex(false)

    /// Called by `subledger serve` before anything else runs, never by the library: installed in a process
    /// that already runs tasks (a test runner hosting servers), blocking test code would stall event loops.
    public static func install(logger: Logger) {
        guard ProcessInfo.processInfo.environment[variable] != "0" else { return }
        let first = installed.withLock { installed in
            defer { installed = true }
            return !installed
        }
        guard first else { return }
        if !NIOSingletons.unsafeTryInstallSingletonPosixEventLoopGroupAsConcurrencyGlobalExecutor() {
            logger.debug("Swift concurrency stays on its own pool: this platform cannot hand it to NIO")
        }
    }
}
