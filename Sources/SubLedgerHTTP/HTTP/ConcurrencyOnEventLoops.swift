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
/// `serve` always makes it; another way is measured as another build (`scripts/bench-reads-ab`). Nothing here
/// blocks an event loop that did not before: blocking libpq calls stay on the pool's threads.
///
/// The jobs run as the default global executor runs them, on no executor of their own (`generic`), not as NIO's
/// `unsafeTryInstallSingletonPosixEventLoopGroupAsConcurrencyGlobalExecutor` runs them, on the event loop's
/// serial executor. Every nonisolated async function begins (and resumes after each call it awaits) with a
/// switch to the generic executor; from the event loop's executor that switch cannot be taken in place, so the
/// runtime enqueued the job again, through the hook, onto the same event loop: one more trip through the loop's
/// task queue for each of the many such switches of a request (17 % of `/health/live`'s server CPU in
/// docs/benchmarks.md, "Where the time goes"). From the generic executor the switch continues in place.
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
        if !installGlobalEnqueueHook() {
            logger.debug("Swift concurrency stays on its own pool: this platform cannot hand it to NIO")
        }
    }

    /// The executor a job of the global executor runs on: none in particular (the runtime's
    /// `SerialExecutorRef::generic()`, two null words, as the standard library's own `==` of executors reads them).
    private static let generic = unsafeBitCast((0, 0), to: UnownedSerialExecutor.self)

    /// Routes Swift concurrency's global enqueue (`swift_task_enqueueGlobal_hook`) to NIO's singleton event loops:
    /// the current one when called on one of them (`MultiThreadedEventLoopGroup.any()` stays where it is), where
    /// the job runs on the `generic` executor. False where the runtime has no such hook or another one is set.
    /// The hook is read by the runtime without synchronization; it is set here, from `main`, before any task runs.
    static func installGlobalEnqueueHook() -> Bool {
        #if os(Linux) && compiler(<6.6)
            typealias Hook = @convention(thin) (UnownedJob, @convention(thin) (UnownedJob) -> Void) -> Void
            guard let symbol = dlsym(dlopen(nil, RTLD_NOW), "swift_task_enqueueGlobal_hook") else { return false }
            let slot = symbol.assumingMemoryBound(to: UnsafeRawPointer?.self)
            guard slot.pointee == nil else { return false }
            return withUnsafeTemporaryAllocation(of: Hook.self, capacity: 1) { hook in
                hook.baseAddress!.initialize(to: { job, _ in
                    MultiThreadedEventLoopGroup.singleton.any().execute {
                        job.runSynchronously(on: ConcurrencyOnEventLoops.generic)
                    }
                })
                slot.pointee = UnsafeRawPointer(hook.baseAddress!).load(as: UnsafeRawPointer.self)
                return true
            }
        #else
            return false
        #endif
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
