#if os(Linux)
    import CLibPQ
    import Foundation
    import Synchronization

    /// Waits for libpq sockets to become readable, for every connection of the process, on a few threads.
    ///
    /// A statement sent with `PQsendQueryPrepared` from the task that needs its result is awaited here
    /// instead of blocking a connection thread: the task suspends, a readiness thread's `epoll_wait` sees the
    /// reply arrive and resumes it, and the task reads the result itself. Under load one wake-up
    /// resumes many tasks; the connection threads (two thread switches per statement) are not involved.
    ///
    /// A callback (`whenReadable`) runs on the readiness thread itself, and what it does there (reading the
    /// result, and sending the next statement of a caller waiting for the connection) is the whole read path's
    /// only serial step. So the sockets are spread over `threadCount` threads, each with an epoll set of its
    /// own, a socket always on the same one (its descriptor modulo the count): one per 4 cores the process may
    /// run on, at least 1 and at most 8.
    final class SocketReadiness: Sendable {
        static let shared = SocketReadiness(
            threadCount: PostgresReadiness.requestedThreadCount
                ?? defaultThreadCount(cores: ProcessCores.usable(of: ProcessInfo.processInfo.activeProcessorCount)))

        /// One readiness thread per 4 cores (so one on up to 7 cores), at most 8.
        static func defaultThreadCount(cores: Int) -> Int {
            min(8, max(1, cores / 4))
        }

        private let loops: [ReadinessLoop]

        init(threadCount: Int) {
            loops = (0..<max(1, threadCount)).compactMap { index in
                ReadinessLoop(name: threadCount > 1 ? "postgres-readiness-\(index)" : "postgres-readiness")
            }
        }

        /// Whether the process could create its epoll sets (else callers keep using connection threads).
        var isAvailable: Bool { !loops.isEmpty }

        /// How many threads wait for sockets.
        var threadCount: Int { loops.count }

        /// Suspends until `socket` is readable, has failed or was closed by the server.
        ///
        /// Returns at once when the descriptor cannot be armed: the caller's next libpq read reports why.
        func readable(_ socket: Int32) async {
            guard let loop = loop(for: socket) else { return }
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                loop.arm(socket, .task(continuation))
            }
        }

        /// Calls `callback` once `socket` is readable, has failed or was closed by the server: on the thread
        /// that waits for that socket, or at once on the caller's when the descriptor cannot be armed.
        func whenReadable(_ socket: Int32, _ callback: @escaping @Sendable () -> Void) {
            guard let loop = loop(for: socket) else { return callback() }
            loop.arm(socket, .callback(callback))
        }

        /// The thread that waits for `socket`: always the same one for a descriptor.
        func loopIndex(for socket: Int32) -> Int {
            Int(UInt32(bitPattern: socket) % UInt32(max(1, loops.count)))
        }

        private func loop(for socket: Int32) -> ReadinessLoop? {
            loops.isEmpty ? nil : loops[loopIndex(for: socket)]
        }
    }

    /// What waits on an armed descriptor: a suspended task, or a callback for work that runs without a task.
    private enum Waiter: Sendable {
        case task(CheckedContinuation<Void, Never>)
        case callback(@Sendable () -> Void)

        func wake() {
            switch self {
            case .task(let continuation): continuation.resume()
            case .callback(let callback): callback()
            }
        }
    }

    /// One epoll set and the thread that waits on it.
    private final class ReadinessLoop: Sendable {
        private let epollDescriptor: Int32
        /// What waits on each armed descriptor (a leased connection has at most one waiter).
        private let waiting = Mutex<[Int32: Waiter]>([:])

        /// Nil when the process cannot create an epoll set.
        init?(name: String) {
            epollDescriptor = sl_epoll_create()
            guard epollDescriptor >= 0 else { return nil }
            let thread = Thread { [self] in
                self.runLoop()
            }
            thread.name = name
            thread.start()
        }

        func arm(_ socket: Int32, _ waiter: Waiter) {
            waiting.withLock { $0[socket] = waiter }
            if sl_epoll_arm_readable(epollDescriptor, socket) != 0 {
                let armed = waiting.withLock { $0.removeValue(forKey: socket) }
                armed?.wake()
            }
        }

        private func runLoop() {
            let capacity = 256
            var ready = [Int32](repeating: -1, count: capacity)
            var resumable: [Waiter] = []
            resumable.reserveCapacity(capacity)
            while true {
                let count = ready.withUnsafeMutableBufferPointer { buffer in
                    sl_epoll_wait_fds(epollDescriptor, buffer.baseAddress, Int32(capacity), -1)
                }
                if count < 0 {
                    if errno == EINTR { continue }
                    return
                }
                waiting.withLock { waiting in
                    for index in 0..<Int(count) {
                        if let waiter = waiting.removeValue(forKey: ready[index]) {
                            resumable.append(waiter)
                        }
                    }
                }
                for waiter in resumable {
                    waiter.wake()
                }
                resumable.removeAll(keepingCapacity: true)
            }
        }
    }
#endif
