import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// An answer read off a raw socket.
struct RawHTTPResponse: Sendable {
    var status: Int
    var headers: [(name: String, value: String)]
    var body: [UInt8]

    func header(_ name: String) -> String? {
        headers.first { $0.name.caseInsensitiveCompare(name) == .orderedSame }?.value
    }
}

/// What became of one exchange.
enum RawHTTPOutcome: Sendable {
    /// A complete answer.
    case answered(RawHTTPResponse)
    /// The server closed the connection without an answer (or with an unreadable one).
    case closed(received: [UInt8])
    /// Nothing (complete) arrived before the deadline.
    case timedOut(received: [UInt8])
    /// The connection could not be made.
    case refused(String)
}

/// HTTP/1.1 over a plain loopback socket: bytes go out exactly as given, so tests and the fuzz campaign can
/// send what no HTTP client library would (raw NUL in a path, broken chunked framing, a body shorter than its
/// length, a `Content-Length` the body never fills).
///
/// Calls block; they run on a Dispatch thread, never on the cooperative pool.
enum RawHTTPConnection {
    /// Sends `request` on a new connection, then (unless `closeAfterSending`) reads one answer within
    /// `timeout` seconds. With `finishSending`, the sending side is shut after the request: the server sees
    /// the stream end (a client gone mid-body) but can still answer.
    static func exchange(
        port: Int, request: [UInt8], timeout: Double, closeAfterSending: Bool = false, finishSending: Bool = false
    ) async -> RawHTTPOutcome {
        await withCheckedContinuation { continuation in
            DispatchQueue.global().async {
                continuation.resume(
                    returning: exchangeBlocking(
                        port: port, request: request, timeout: timeout, closeAfterSending: closeAfterSending,
                        finishSending: finishSending))
            }
        }
    }

    /// `exchange` of a request written as text (use `\r\n` line ends).
    static func exchange(
        port: Int, request: String, timeout: Double, finishSending: Bool = false
    ) async -> RawHTTPOutcome {
        await exchange(port: port, request: Array(request.utf8), timeout: timeout, finishSending: finishSending)
    }

    /// Sends `request` on a new connection and returns every byte received until the server closes it (or
    /// `timeout` seconds pass): for what follows an answer on the same connection. With `afterAnswer`, those bytes
    /// are sent once the first answer has arrived.
    static func exchangeUntilClosed(
        port: Int, request: [UInt8], afterAnswer: [UInt8]? = nil, timeout: Double
    ) async -> [UInt8] {
        await withCheckedContinuation { continuation in
            DispatchQueue.global().async {
                let outcome = exchangeBlocking(
                    port: port, request: request, timeout: timeout, closeAfterSending: false, finishSending: false,
                    untilClosed: true, afterAnswer: afterAnswer)
                switch outcome {
                case .closed(let received), .timedOut(let received): continuation.resume(returning: received)
                case .answered, .refused: continuation.resume(returning: [])
                }
            }
        }
    }

    private static func exchangeBlocking(
        port: Int, request: [UInt8], timeout: Double, closeAfterSending: Bool, finishSending: Bool,
        untilClosed: Bool = false, afterAnswer: [UInt8]? = nil
    ) -> RawHTTPOutcome {
        #if canImport(Glibc)
            let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        #else
            let descriptor = socket(AF_INET, SOCK_STREAM, 0)
        #endif
        guard descriptor >= 0 else { return .refused("socket() failed: errno \(errno)") }
        defer { close(descriptor) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let connected = withUnsafePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        guard connected == 0 else { return .refused("connect() failed: errno \(errno)") }
        var noSignal: Int32 = 1
        #if canImport(Darwin)
            setsockopt(descriptor, SOL_SOCKET, SO_NOSIGPIPE, &noSignal, socklen_t(MemoryLayout<Int32>.size))
        #endif
        _ = noSignal
        var slice = timeval(tv_sec: 0, tv_usec: 200_000)
        setsockopt(descriptor, SOL_SOCKET, SO_RCVTIMEO, &slice, socklen_t(MemoryLayout<timeval>.size))
        var sendLimit = timeval(tv_sec: Int(max(1, timeout)), tv_usec: 0)
        setsockopt(descriptor, SOL_SOCKET, SO_SNDTIMEO, &sendLimit, socklen_t(MemoryLayout<timeval>.size))

        // Send everything; the server may answer (e.g. 413) and close before it has read it all.
        func send(_ bytes: [UInt8]) {
            var offset = 0
            while offset < bytes.count {
                let sent = bytes[offset...].withUnsafeBytes { buffer in
                    sendFlags(descriptor, buffer.baseAddress, buffer.count)
                }
                if sent <= 0 { break }
                offset += sent
            }
        }
        send(request)
        var followUp = afterAnswer
        if closeAfterSending { return .closed(received: []) }
        if finishSending { shutdown(descriptor, Int32(SHUT_WR)) }

        let deadline = Date().addingTimeInterval(timeout)
        var received: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 65_536)
        while true {
            if !untilClosed, let response = parse(received, complete: false) { return .answered(response) }
            if let bytes = followUp, parse(received, complete: false) != nil {
                followUp = nil
                send(bytes)
            }
            if Date() > deadline { return .timedOut(received: received) }
            let count = chunk.withUnsafeMutableBytes { recv(descriptor, $0.baseAddress, $0.count, 0) }
            if count > 0 {
                received += chunk[0..<count]
            } else if count == 0 {
                if !untilClosed, let response = parse(received, complete: true) { return .answered(response) }
                return .closed(received: received)
            } else if errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR {
                continue
            } else {
                if !untilClosed, let response = parse(received, complete: true) { return .answered(response) }
                return .closed(received: received)
            }
        }
    }

    private static func sendFlags(_ descriptor: Int32, _ pointer: UnsafeRawPointer?, _ count: Int) -> Int {
        #if canImport(Glibc)
            return send(descriptor, pointer, count, Int32(MSG_NOSIGNAL))
        #else
            return send(descriptor, pointer, count, 0)
        #endif
    }

    /// A complete response in `bytes`, or `nil`. With `complete`, the peer has closed: a body without a
    /// length ends there.
    static func parse(_ bytes: [UInt8], complete: Bool) -> RawHTTPResponse? {
        guard bytes.count >= 4,
            let end = (0...(bytes.count - 4)).first(where: {
                bytes[$0] == 13 && bytes[$0 + 1] == 10 && bytes[$0 + 2] == 13 && bytes[$0 + 3] == 10
            })
        else { return nil }
        let head = String(decoding: bytes[0..<end], as: UTF8.self)
        var lines = head.components(separatedBy: "\r\n")
        let statusLine = lines.removeFirst().split(separator: " ")
        guard statusLine.count >= 2, let status = Int(statusLine[1]) else { return nil }
        let headers = lines.compactMap { line -> (name: String, value: String)? in
            guard let colon = line.firstIndex(of: ":") else { return nil }
            return (String(line[..<colon]), line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces))
        }
        var response = RawHTTPResponse(status: status, headers: headers, body: [])
        let rest = Array(bytes[(end + 4)...])
        if response.header("Transfer-Encoding")?.lowercased().contains("chunked") == true {
            guard let body = decodeChunked(rest) else { return nil }
            response.body = body
        } else if let length = response.header("Content-Length").flatMap({ Int($0) }) {
            guard rest.count >= length else { return nil }
            response.body = Array(rest.prefix(length))
        } else if status == 204 || status == 304 || (100..<200).contains(status) {
            response.body = []
        } else {
            guard complete else { return nil }
            response.body = rest
        }
        return response
    }

    private static func decodeChunked(_ bytes: [UInt8]) -> [UInt8]? {
        var body: [UInt8] = []
        var index = 0
        while true {
            guard
                let lineEnd = (index..<max(index, bytes.count - 1)).first(where: {
                    bytes[$0] == 13 && bytes[$0 + 1] == 10
                })
            else { return nil }
            let sizeText = String(decoding: bytes[index..<lineEnd], as: UTF8.self).split(separator: ";").first ?? ""
            guard let size = Int(sizeText.trimmingCharacters(in: .whitespaces), radix: 16) else { return nil }
            index = lineEnd + 2
            if size == 0 { return body }
            guard bytes.count >= index + size + 2 else { return nil }
            body += bytes[index..<(index + size)]
            index += size + 2
        }
    }
}

extension RawHTTPResponse {
    /// The body as text.
    var text: String { String(decoding: body, as: UTF8.self) }
}

extension RawHTTPOutcome {
    var response: RawHTTPResponse? {
        if case .answered(let response) = self { return response }
        return nil
    }

    /// A short description for findings.
    var summary: String {
        switch self {
        case .answered(let response): return "\(response.status)"
        case .closed(let received):
            return received.isEmpty ? "connection closed without an answer" : "connection closed mid-answer"
        case .timedOut: return "no answer before the deadline"
        case .refused(let reason): return "connection refused (\(reason))"
        }
    }
}
