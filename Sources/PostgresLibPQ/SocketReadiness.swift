#if os(Linux)
    import CLibPQ
    import Foundation
    import Synchronization

    /// Waits for libpq sockets to become readable, for every connection of the process, on one thread.
    ///
    /// A statement sent with `PQsendQueryPrepared` from the task that needs its result is awaited here
    /// instead of blocking a connection thread: the task suspends, this thread's `epoll_wait` sees the
    /// reply arrive and resumes it, and the task reads the result itself. Under load one wake-up
    /// resumes many tasks; the connection threads (two thread switches per statement) are not involved.
    final class SocketReadiness: Sendable {
        static let shared = SocketReadiness()

        private let epollDescriptor: Int32
        /// What waits on each armed descriptor (a leased connection has at most one waiter).
        private let waiting = Mutex<[Int32: Waiter]>([:])

        /// A suspended task, or a callback for work that runs without a task (`whenReadable`).
        private enum Waiter {
            case task(CheckedContinuation<Void, Never>)
            case callback(@Sendable () -> Void)

            func wake() {
                switch self {
                case .task(let continuation): continuation.resume()
                case .callback(let callback): callback()
                }
            }
        }

        private init() {
            epollDescriptor = sl_epoll_create()
            guard epollDescriptor >= 0 else { return }
            let thread = Thread { [self] in
                self.runLoop()
            }
            thread.name = "postgres-readiness"
            thread.start()
        }

        /// Whether the process could create its epoll set (else callers keep using connection threads).
        var isAvailable: Bool { epollDescriptor >= 0 }

        /// Suspends until `socket` is readable, has failed or was closed by the server.
        ///
        /// Returns at once when the descriptor cannot be armed: the caller's next libpq read reports why.
        func readable(_ socket: Int32) async {
            await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                arm(socket, .task(continuation))
            }
        }

        /// Calls `callback` once `socket` is readable, has failed or was closed by the server: on this object's
        /// thread, or at once on the caller's when the descriptor cannot be armed.
        func whenReadable(_ socket: Int32, _ callback: @escaping @Sendable () -> Void) {
            arm(socket, .callback(callback))
        }

        private func arm(_ socket: Int32, _ waiter: Waiter) {
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
