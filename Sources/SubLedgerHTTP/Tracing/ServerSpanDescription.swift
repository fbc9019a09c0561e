import Tracing

/// What a request's server span is named and says (`ServerSpanMiddleware`), after the OpenTelemetry semantic
/// conventions for HTTP servers; plain values, so each rule is tested without a tracer.
enum ServerSpanDescription {
    /// The scheme the service speaks: plain HTTP (TLS, where there is one, ends at a proxy in front of it).
    static let scheme = "http"

    /// The methods the conventions name; any other is recorded as `_OTHER` (the method as sent is then
    /// `http.request.method_original`), so a client cannot make span names of its own choosing.
    static let knownMethods: Set<String> = [
        "CONNECT", "DELETE", "GET", "HEAD", "OPTIONS", "PATCH", "POST", "PUT", "TRACE",
    ]

    /// `method` as the span names it: itself when known, else `_OTHER`.
    static func method(_ method: String) -> String {
        knownMethods.contains(method) ? method : "_OTHER"
    }

    /// `{method} {http.route}` for a request a route took; the method alone for one no route took (`NotFound`,
    /// Hummingbird's name for it, is no route) and for an unknown method (`HTTP` then, as the conventions say).
    static func name(method: String, route: String?) -> String {
        let shown = method == "_OTHER" ? "HTTP" : method
        guard let route = self.route(route) else { return shown }
        return shown + " " + route
    }

    /// The matched route, or `nil` when none matched.
    static func route(_ route: String?) -> String? {
        guard let route, !route.isEmpty, route != "NotFound" else { return nil }
        return route
    }

    /// The span's attributes known when the request arrives. `authority` is the `Host` the client named:
    /// `server.address` and `server.port` (80, the scheme's, when it names none).
    static func requestAttributes(
        method: String, path: String, query: String?, authority: String?, userAgent: String?
    ) -> [(String, SpanAttribute)] {
        var attributes: [(String, SpanAttribute)] = [
            ("http.request.method", .string(self.method(method))),
            ("url.scheme", .string(scheme)),
            ("url.path", .string(path)),
        ]
        if self.method(method) != method { attributes.append(("http.request.method_original", .string(method))) }
        if let query, !query.isEmpty { attributes.append(("url.query", .string(query))) }
        if let server = server(authority: authority) {
            attributes.append(("server.address", .string(server.address)))
            attributes.append(("server.port", .int64(Int64(server.port))))
        }
        if let userAgent { attributes.append(("user_agent.original", .string(userAgent))) }
        return attributes
    }

    /// The span's attributes known once the request was answered: the route, the status and, for a 5xx,
    /// `error.type`: the type of an error that is no answer (nothing mapped it to a status), else the status code.
    static func responseAttributes(route: String?, status: Int, error: (any Error)?) -> [(String, SpanAttribute)] {
        var attributes: [(String, SpanAttribute)] = [("http.response.status_code", .int64(Int64(status)))]
        if let route = self.route(route) { attributes.append(("http.route", .string(route))) }
        if isServerError(status) {
            let type = error.map { String(describing: Swift.type(of: $0)) } ?? String(status)
            attributes.append(("error.type", .string(type)))
        }
        return attributes
    }

    /// A status the conventions count as the server's failure (a 4xx is the client's, not an error of the span).
    static func isServerError(_ status: Int) -> Bool {
        (500..<600).contains(status)
    }

    /// The host and port of a `Host` value (`host`, `host:port`, `[v6]`, `[v6]:port`); `nil` for none or nonsense.
    static func server(authority: String?) -> (address: String, port: Int)? {
        guard let authority, !authority.isEmpty else { return nil }
        let host: Substring
        let portText: Substring?
        if authority.hasPrefix("[") {
            guard let close = authority.firstIndex(of: "]") else { return nil }
            host = authority[authority.index(after: authority.startIndex)..<close]
            let rest = authority[authority.index(after: close)...]
            guard rest.isEmpty || rest.hasPrefix(":") else { return nil }
            portText = rest.isEmpty ? nil : rest.dropFirst()
        } else if let colon = authority.lastIndex(of: ":") {
            host = authority[..<colon]
            portText = authority[authority.index(after: colon)...]
        } else {
            host = authority[...]
            portText = nil
        }
        guard !host.isEmpty else { return nil }
        guard let portText else { return (String(host), 80) }
        guard let port = Int(portText), (1...65535).contains(port) else { return nil }
        return (String(host), port)
    }
}
