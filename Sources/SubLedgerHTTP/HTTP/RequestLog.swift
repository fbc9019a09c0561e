import HTTPTypes
import Hummingbird
import Logging

/// The access log: one line per request, `Request`, at `info`, written once the answer is known, under the logger
/// that carries the request's id (`hb.request.id`). It names the route template (`http.route`, as the request
/// metrics do: `/v1/accounts/{account_id}/entitlements`, never the account), the method, the status answered and
/// the time taken in milliseconds. A request no route matched (404) has no template: its path is written instead,
/// without the query, whose values may name a customer (`/admin?q=...`). Defined here once for the router
/// (`RequestLogMiddleware`) and the entitlement read answered on the event loop (`EntitlementReadRoute`).
enum RequestLog {
    static let level = Logger.Level.info
    static let message: Logger.Message = "Request"

    /// Whether `logger` writes the request log at all: decided once where the answer is hot.
    static func isWritten(by logger: Logger) -> Bool { logger.logLevel <= level }

    /// Writes the line of a request answered `status` after `duration`: `route` is the template it matched, or nil
    /// when none did and `target` (path and query, as received) is written without its query.
    static func write(
        _ logger: Logger, method: HTTPRequest.Method, route: String?, target: String, status: HTTPResponse.Status,
        duration: Duration
    ) {
        var metadata: Logger.Metadata = [
            "http.request.method": .string(method.rawValue),
            "http.response.status_code": .stringConvertible(status.code),
            "duration_ms": .string(milliseconds(duration)),
        ]
        if let route {
            metadata["http.route"] = .string(route)
        } else {
            metadata["url.path"] = .string(path(of: target))
        }
        logger.log(level: level, message, metadata: metadata)
    }

    /// Writes the line of a request answered below the router, where no route or middleware ran: the parser's refusal
    /// (`ParserErrorAnswer`) or a request that did not arrive in time (`RequestTimeoutAnswer`). Its method and path
    /// are written when its head was read (the path without its query), `error.type` is the code answered, and it gets
    /// a request id of its own, as the router gives every request.
    static func writeBelowRouter(
        _ logger: Logger, method: HTTPRequest.Method?, target: String?, status: HTTPResponse.Status, code: String,
        duration: Duration
    ) {
        var metadata: Logger.Metadata = [
            "http.response.status_code": .stringConvertible(status.code),
            "duration_ms": .string(milliseconds(duration)),
            "error.type": .string(code),
            // No request reached the router to be given its id: one of the same kind, so every line has one.
            "hb.request.id": .string(RequestID().description),
        ]
        if let method { metadata["http.request.method"] = .string(method.rawValue) }
        if let target { metadata["url.path"] = .string(path(of: target)) }
        logger.log(level: level, message, metadata: metadata)
    }

    /// `target` without its query and fragment.
    static func path(of target: String) -> String {
        guard let end = target.firstIndex(where: { $0 == "?" || $0 == "#" }) else { return target }
        return String(target[..<end])
    }

    /// `duration` in milliseconds with three decimals (microseconds): `0.412`, `1520.000`.
    static func milliseconds(_ duration: Duration) -> String {
        let (seconds, attoseconds) = duration.components
        let microseconds =
            seconds.multipliedReportingOverflow(by: 1_000_000).partialValue &+ attoseconds / 1_000_000_000_000
        let whole = microseconds / 1000
        let fraction = String(microseconds % 1000)
        return "\(whole)." + String(repeating: "0", count: 3 - fraction.count) + fraction
    }
}

/// Writes the request log (`RequestLog`) of every request the router answers, refusals included: the error
/// mapping inside it has turned every failure into a status by then.
struct RequestLogMiddleware<Context: RequestContext>: RouterMiddleware {
    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws
        -> Response
    {
        guard RequestLog.isWritten(by: context.logger) else { return try await next(request, context) }
        let started = ContinuousClock.now
        do {
            let response = try await next(request, context)
            write(request, context, response.status, started)
            return response
        } catch {
            write(request, context, (error as? any HTTPResponseError)?.status ?? .internalServerError, started)
            throw error
        }
    }

    private func write(
        _ request: Request, _ context: Context, _ status: HTTPResponse.Status, _ started: ContinuousClock.Instant
    ) {
        // A template begins with `/`; Hummingbird names a request no route matched `NotFound`.
        let route = context.endpointPath.flatMap { $0.hasPrefix("/") ? $0 : nil }
        RequestLog.write(
            context.logger, method: request.method, route: route, target: request.uri.description, status: status,
            duration: started.duration(to: .now))
    }
}
