import Foundation

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A plain TCP connection to the service under test, for what HTTP clients refuse to send: broken chunked
/// framing, a body cut short, a `Content-Length` the body never fills. Blocking socket calls run on a thread of
/// their own, never on the cooperative pool.
final class RawConnection: @unchecked Sendable {
    // Used by one test task at a time, each call awaited before the next.
    private let descriptor: Int32

    private init(descriptor: Int32) {
        self.descriptor = descriptor
    }

    deinit {
        close(descriptor)
    }

    struct Failure: Error, CustomStringConvertible {
        var description: String
    }

    /// Connects to `127.0.0.1:port`.
    static func open(port: Int) async throws -> RawConnection {
        try await onThread {
            #if canImport(Glibc)
            let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
            #else
            let descriptor = socket(AF_INET, SOCK_STREAM, 0)
            #endif
            guard descriptor >= 0 else { throw Failure(description: "socket() failed") }
            var address = sockaddr_in()
            address.sin_family = sa_family_t(AF_INET)
            address.sin_port = in_port_t(UInt16(port).bigEndian)
            address.sin_addr.s_addr = inet_addr("127.0.0.1")
            let connected = withUnsafePointer(to: &address) { pointer in
                pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                    connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
                }
            }
            guard connected == 0 else {
                close(descriptor)
                throw Failure(description: "connect() failed")
            }
            return RawConnection(descriptor: descriptor)
        }
    }

    /// Sends `text` exactly as given (use `\r\n` line ends).
    func send(_ text: String) async throws {
        let bytes = Array(text.utf8)
        try await Self.onThread { [descriptor] in
            var offset = 0
            while offset < bytes.count {
                let sent = bytes[offset...].withUnsafeBytes { write(descriptor, $0.baseAddress, $0.count) }
                guard sent > 0 else { throw Failure(description: "write() failed") }
                offset += sent
            }
        }
    }

    /// Closes the sending side: the server sees the end of the stream but can still answer.
    func finishSending() {
        shutdown(descriptor, Int32(SHUT_WR))
    }

    /// What came back: the status of the first response (`nil` when none arrived) and the raw text.
    struct Answer {
        var status: Int?
        var text: String
        /// How long the first byte took to arrive, or the whole wait when none did.
        var waited: Duration
    }

    /// Reads until one whole response arrived, the server closed, or `timeout` passed without any byte.
    func readResponse(timeout: Duration) async throws -> Answer {
        try await Self.onThread { [descriptor] in
            let seconds = timeout.components.seconds
            var limit = timeval(tv_sec: Int(seconds), tv_usec: 0)
            setsockopt(descriptor, SOL_SOCKET, SO_RCVTIMEO, &limit, socklen_t(MemoryLayout<timeval>.size))
            let start = ContinuousClock.now
            var firstByte: Duration?
            var received: [UInt8] = []
            var buffer = [UInt8](repeating: 0, count: 65_536)
            var expected: Int?
            while expected.map({ received.count < $0 }) ?? true {
                let count = buffer.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
                guard count > 0 else { break }
                if firstByte == nil { firstByte = ContinuousClock.now - start }
                received += buffer[..<count]
                if expected == nil { expected = Self.expectedLength(received) }
            }
            let text = String(decoding: received, as: UTF8.self)
            let statusLine = text.prefix(100).split(separator: "\r\n", maxSplits: 1).first ?? ""
            let status = statusLine.split(separator: " ").dropFirst().first.flatMap { Int($0) }
            return Answer(status: status, text: text, waited: firstByte ?? (ContinuousClock.now - start))
        }
    }

    /// The length of the whole response once its head arrived (head and `Content-Length` body).
    private static func expectedLength(_ bytes: [UInt8]) -> Int? {
        let separator = Array("\r\n\r\n".utf8)
        guard let end = bytes.indices.dropLast(3).first(where: { bytes[$0..<$0 + 4].elementsEqual(separator) }) else {
            return nil
        }
        let head = String(decoding: bytes[..<end], as: UTF8.self).lowercased()
        let length = head.split(separator: "\r\n").first { $0.hasPrefix("content-length:") }
            .flatMap { Int($0.dropFirst("content-length:".count).trimmingCharacters(in: .whitespaces)) }
        return end + 4 + (length ?? 0)
    }

    private static func onThread<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
        try await withCheckedThrowingContinuation { continuation in
            Thread { continuation.resume(with: Result { try body() }) }.start()
        }
    }
}
