#if os(Linux)
    import Foundation
    import Synchronization
    import Testing

    @testable import PostgresLibPQ

    @Suite struct SocketReadinessTests {
        @Test func oneThreadPerFourCoresAtLeastOneAtMostEight() {
            let counts = [1, 2, 3, 4, 7, 8, 16, 31, 32, 64, 128].map { SocketReadiness.defaultThreadCount(cores: $0) }
            #expect(counts == [1, 1, 1, 1, 1, 2, 4, 7, 8, 8, 8])
        }

        @Test func aChosenCountIsKeptWithinOneTo64() {
            let kept = [Int.min, -1, 0, 1, 2, 64, 65, Int.max].map(PostgresReadiness.kept)
            #expect(kept == [1, 1, 1, 1, 2, 64, 64, 64])
        }

        /// Sockets spread over three threads: every armed socket's callback runs once, when it became readable, on
        /// the thread its descriptor maps to (the same thread for sockets that map alike, another for another loop).
        @Test func everySocketIsWokenOnceOnTheThreadItMapsTo() async throws {
            let readiness = SocketReadiness(threadCount: 3)
            #expect(readiness.isAvailable)
            #expect(readiness.threadCount == 3)

            let pairs = try (0..<12).map { _ in try SocketPair() }
            defer { pairs.forEach { $0.close() } }
            let woken = Mutex<[Int32: [UInt]]>([:])
            let allWoken = AsyncStream<Void>.makeStream()
            for pair in pairs {
                readiness.whenReadable(pair.armed) {
                    let thread = UInt(pthread_self())
                    let count = woken.withLock { woken in
                        woken[pair.armed, default: []].append(thread)
                        return woken.values.reduce(0) { $0 + $1.count }
                    }
                    if count == pairs.count { allWoken.continuation.yield() }
                }
            }
            #expect(woken.withLock { $0.isEmpty }, "no socket is readable before its peer writes")
            for pair in pairs { pair.writeToPeer() }
            var iterator = allWoken.stream.makeAsyncIterator()
            await iterator.next()

            let threads = woken.withLock { $0 }
            #expect(Set(threads.keys) == Set(pairs.map(\.armed)))
            #expect(threads.values.allSatisfy { $0.count == 1 })
            var threadOfLoop: [Int: UInt] = [:]
            for (socket, names) in threads {
                let index = readiness.loopIndex(for: socket)
                if let known = threadOfLoop[index] {
                    #expect(names == [known], "sockets of one loop wake on one thread")
                } else {
                    threadOfLoop[index] = names[0]
                }
            }
            let loopsArmed = Set(pairs.map { readiness.loopIndex(for: $0.armed) })
            #expect(loopsArmed.count > 1, "twelve descriptors map to more than one of three loops")
            #expect(threadOfLoop.count == loopsArmed.count)
            #expect(Set(threadOfLoop.values).count == loopsArmed.count, "each loop has a thread of its own")
        }

        @Test func oneThreadWaitsForEverySocket() async {
            let readiness = SocketReadiness(threadCount: 1)
            #expect(readiness.threadCount == 1)
            #expect(readiness.loopIndex(for: 17) == 0)
        }
    }

    /// A connected pair of Unix stream sockets: `armed` waits for readability, its peer writes.
    private struct SocketPair {
        let armed: Int32
        let peer: Int32

        init() throws {
            var descriptors: [Int32] = [-1, -1]
            guard socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0, &descriptors) == 0 else {
                throw POSIXError(.init(rawValue: errno) ?? .EIO)
            }
            armed = descriptors[0]
            peer = descriptors[1]
        }

        func writeToPeer() {
            var byte: UInt8 = 1
            _ = write(peer, &byte, 1)
        }

        func close() {
            _ = Glibc.close(armed)
            _ = Glibc.close(peer)
        }
    }
#endif
