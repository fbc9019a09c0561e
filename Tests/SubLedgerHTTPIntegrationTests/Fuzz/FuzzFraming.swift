import Foundation

/// Requests broken at the HTTP level, sent over a raw socket: malformed chunked bodies, lengths above the
/// limit, bodies cut short by a disconnect, garbage request lines and headers.
struct FramingCase: Sendable {
    var name: String
    var bytes: [UInt8]
    /// Close the connection right after sending (a client that goes away mid-body).
    var closeAfterSending = false
    /// The status the service must answer, if one is required (413 for a length above the limit).
    var requiredStatus: Int? = nil
    /// Seconds within which the answer must come.
    var timeout: Double = 5
    /// The request reaches a route (so its answer must carry the error shape even when empty is allowed
    /// for protocol errors answered by the HTTP layer).
    var reachesRoute = false

    var request: FuzzRequest {
        FuzzRequest(route: "raw TCP", inputClass: name, method: "", target: [], raw: bytes)
    }
}

extension FramingCase {
    static func head(_ method: String, _ path: String, _ headers: [String]) -> [UInt8] {
        Array((["\(method) \(path) HTTP/1.1", "Host: 127.0.0.1"] + headers).joined(separator: "\r\n").utf8)
            + Array("\r\n\r\n".utf8)
    }

    /// The fixed cases for the routes that take bodies, plus `count` seeded random byte strings.
    static func all(corpus: FuzzCorpus, seed: UInt64, randomCount: Int) -> [FramingCase] {
        var cases: [FramingCase] = []
        let routes: [(path: String, auth: [String])] = [
            ("/v1/orders", ["Authorization: Bearer \(corpus.keyOne)", "Content-Type: application/json"]),
            ("/v1/notifications/appstore", ["Content-Type: application/json"]),
        ]
        for route in routes {
            let chunked = route.auth + ["Transfer-Encoding: chunked", "Connection: close"]
            cases += [
                FramingCase(
                    name: "\(route.path): chunked, invalid chunk size",
                    bytes: head("POST", route.path, chunked) + Array("ZZ\r\nabc\r\n0\r\n\r\n".utf8), reachesRoute: true),
                FramingCase(
                    name: "\(route.path): chunked, chunk size overflows",
                    bytes: head("POST", route.path, chunked) + Array("FFFFFFFFFFFFFFFFFFFFFF\r\nabc\r\n".utf8),
                    reachesRoute: true),
                FramingCase(
                    name: "\(route.path): chunked, chunk longer than declared",
                    bytes: head("POST", route.path, chunked) + Array("3\r\nabcdef\r\n0\r\n\r\n".utf8),
                    reachesRoute: true),
                FramingCase(
                    name: "\(route.path): chunked, negative size",
                    bytes: head("POST", route.path, chunked) + Array("-5\r\nabc\r\n0\r\n\r\n".utf8), reachesRoute: true),
                FramingCase(
                    name: "\(route.path): chunked, disconnect before the last chunk",
                    bytes: head("POST", route.path, chunked) + Array("5\r\n{\"a\":\r\n".utf8), closeAfterSending: true),
                FramingCase(
                    name: "\(route.path): Content-Length above the 1 MiB limit",
                    bytes: head("POST", route.path, route.auth + ["Content-Length: 2000000", "Connection: close"])
                        + Array(repeating: UInt8(ascii: " "), count: 100), requiredStatus: 413, reachesRoute: true),
                FramingCase(
                    name: "\(route.path): Content-Length far above any limit",
                    bytes: head(
                        "POST", route.path, route.auth + ["Content-Length: 99999999999999999999", "Connection: close"])
                        + Array("{}".utf8)),
                FramingCase(
                    name: "\(route.path): body shorter than Content-Length, then disconnect",
                    bytes: head("POST", route.path, route.auth + ["Content-Length: 1000", "Connection: close"])
                        + Array("{\"account_".utf8), closeAfterSending: true),
                FramingCase(
                    name: "\(route.path): negative Content-Length",
                    bytes: head("POST", route.path, route.auth + ["Content-Length: -1", "Connection: close"])
                        + Array("{}".utf8)),
                FramingCase(
                    name: "\(route.path): non-numeric Content-Length",
                    bytes: head("POST", route.path, route.auth + ["Content-Length: abc", "Connection: close"])
                        + Array("{}".utf8)),
                FramingCase(
                    name: "\(route.path): two different Content-Lengths",
                    bytes: head(
                        "POST", route.path,
                        route.auth + ["Content-Length: 2", "Content-Length: 5", "Connection: close"])
                        + Array("{}abc".utf8)),
                FramingCase(
                    name: "\(route.path): Content-Length and Transfer-Encoding",
                    bytes: head(
                        "POST", route.path,
                        route.auth + ["Content-Length: 4", "Transfer-Encoding: chunked", "Connection: close"])
                        + Array("2\r\n{}\r\n0\r\n\r\n".utf8)),
                FramingCase(
                    name: "\(route.path): unknown Transfer-Encoding",
                    bytes: head(
                        "POST", route.path, route.auth + ["Transfer-Encoding: gzip, chunked", "Connection: close"])
                        + Array("2\r\n{}\r\n0\r\n\r\n".utf8)),
            ]
        }
        let key = "Authorization: Bearer \(corpus.keyOne)"
        cases += [
            FramingCase(name: "garbage request line", bytes: Array("GARBAGE\r\n\r\n".utf8)),
            FramingCase(name: "request line without a version", bytes: Array("GET /health/live\r\n\r\n".utf8)),
            FramingCase(
                name: "unknown HTTP version", bytes: Array("GET /health/live HTTP/9.9\r\nHost: x\r\n\r\n".utf8)),
            FramingCase(
                name: "NUL in the request line",
                bytes: Array("GET /v1/accounts/a".utf8) + [0]
                    + Array("b/entitlements HTTP/1.1\r\nHost: x\r\n\(key)\r\nConnection: close\r\n\r\n".utf8)),
            FramingCase(
                name: "raw invalid UTF-8 in the path",
                bytes: Array("GET /v1/accounts/".utf8) + [0xFF, 0xFE, 0xC3]
                    + Array("/entitlements HTTP/1.1\r\nHost: x\r\n\(key)\r\nConnection: close\r\n\r\n".utf8)),
            FramingCase(
                name: "raw invalid UTF-8 in the query",
                bytes: Array("GET /v1/accounts/alice/entitlements?at=".utf8) + [0xFF, 0x80]
                    + Array(" HTTP/1.1\r\nHost: x\r\n\(key)\r\nConnection: close\r\n\r\n".utf8)),
            FramingCase(
                name: "raw invalid UTF-8 in /admin?q=",
                bytes: Array("GET /admin?q=".utf8) + [0xC0, 0x80, 0xFF]
                    + Array(
                        " HTTP/1.1\r\nHost: x\r\nAuthorization: Basic \(Data("ops:\(corpus.adminKey)".utf8).base64EncodedString())\r\nConnection: close\r\n\r\n"
                            .utf8)),
            FramingCase(
                name: "header without a colon",
                bytes: Array("GET /health/live HTTP/1.1\r\nHost: x\r\nNoColonHere\r\n\r\n".utf8)),
            FramingCase(
                name: "NUL in a header value",
                bytes: Array("GET /v1/accounts/alice/entitlements HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer a".utf8)
                    + [0] + Array("b\r\nConnection: close\r\n\r\n".utf8)),
            FramingCase(
                name: "raw invalid UTF-8 in the API key",
                bytes: Array("GET /v1/accounts/alice/entitlements HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer ".utf8)
                    + [0xFF, 0xFE] + Array("\r\nConnection: close\r\n\r\n".utf8), reachesRoute: true),
            FramingCase(
                name: "100 KB header",
                bytes: Array(
                    "GET /health/live HTTP/1.1\r\nHost: x\r\nX-Big: \(String(repeating: "a", count: 100_000))\r\nConnection: close\r\n\r\n"
                        .utf8)),
            FramingCase(
                name: "5000 headers",
                bytes: Array(
                    ("GET /health/live HTTP/1.1\r\nHost: x\r\n" + (0..<5_000).map { "X-\($0): v\r\n" }.joined()
                        + "Connection: close\r\n\r\n").utf8)),
            // A server may wait for the request that follows leading empty lines; only its survival counts.
            FramingCase(name: "empty lines only", bytes: Array("\r\n\r\n\r\n\r\n".utf8), closeAfterSending: true),
            FramingCase(
                name: "pipelined request after a broken one",
                bytes: Array(
                    "POST /v1/orders HTTP/1.1\r\nHost: x\r\n\(key)\r\nContent-Length: 2\r\n\r\n{]GET /health/live HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n"
                        .utf8)),
            FramingCase(
                name: "TLS handshake bytes on the plain port",
                bytes: [0x16, 0x03, 0x01, 0x00, 0xA5, 0x01, 0x00, 0x00, 0xA1, 0x03, 0x03]
                    + Array(repeating: 0x00, count: 40)),
        ]
        for index in 0..<randomCount {
            var random = FuzzRandom(seed: seed, stream: "framing", index: index)
            var bytes = random.bytes(random.int(1...400))
            if random.chance(0.5) { bytes = Array("POST /v1/orders HTTP/1.1\r\nHost: x\r\n".utf8) + bytes }
            if random.chance(0.5) { bytes += Array("\r\n\r\n".utf8) }
            cases.append(
                FramingCase(name: "random bytes #\(index)", bytes: bytes, closeAfterSending: random.chance(0.3)))
        }
        return cases
    }
}

extension FuzzTarget {
    /// Sends every framing case and checks: no 5xx, 4xx with the error shape or (for protocol errors) an
    /// empty body, a required status within its deadline, the process alive, `/health/live` answering, the
    /// ledger unchanged, and nothing logged at error level for the client's mistake.
    func framingCampaign(_ cases: [FramingCase]) async throws {
        for framing in cases {
            guard canContinue else { return }
            let request = framing.request
            let logStart = server.logOffset
            let started = ContinuousClock.now
            let outcome = await RawHTTPConnection.exchange(
                port: server.port, request: framing.bytes, timeout: framing.timeout,
                closeAfterSending: framing.closeAfterSending)
            time(request, started.duration(to: .now))
            if let required = framing.requiredStatus {
                if case .answered(let response) = outcome, response.status != required {
                    record(request, "answered \(response.status) where \(required) is required")
                } else if case .timedOut = outcome {
                    record(request, "no \(required) within \(Int(framing.timeout)) s (the connection is held open)")
                    // Recorded once, here, not again as an unanswered request.
                    try await check(request, .closed(received: []), framing: true)
                    continue
                }
            }
            if framing.closeAfterSending { try await Task.sleep(for: .milliseconds(300)) }
            try await check(request, outcome, framing: !framing.reachesRoute, timeout: framing.timeout)
            for line in server.log(since: logStart).split(separator: "\n") where Self.isErrorLevel(line) {
                record(request, "logged at error level: \(line.prefix(200))")
            }
        }
    }

    /// Whether a swift-log line is at error or critical level.
    static func isErrorLevel(_ line: Substring) -> Bool {
        line.contains(" error ") || line.contains(" critical ")
    }
}
