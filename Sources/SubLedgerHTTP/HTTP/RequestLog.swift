import HTTPTypes
import Hummingbird
import Logging

/// The request log: one line per request, `Request` with its path and method, at `info`, under the logger that
/// carries the request's id (`hb.request.id`). The line Hummingbird's `LogRequestsMiddleware(.info)` writes,
/// defined here once for the router (`RequestLogMiddleware`) and the entitlement read answered on the event loop
/// (`EntitlementReadRoute`).
enum RequestLog {
    static let level = Logger.Level.info
    static let message: Logger.Message = "Request"

    /// Whether `logger` writes the request log at all: decided once where the answer is hot.
    static func isWritten(by logger: Logger) -> Bool { logger.logLevel <= level }

    /// Writes the line of a request whose target (path and query, as received) is `path`.
    static func write(_ logger: Logger, method: HTTPRequest.Method, path: String) {
        logger.log(
            level: level, message,
            metadata: ["hb.request.path": .string(path), "hb.request.method": .string(method.rawValue)])
    }
}

/// Writes the request log (`RequestLog`) of every request the router answers.
struct RequestLogMiddleware<Context: RequestContext>: RouterMiddleware {
    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws
        -> Response
    {
        RequestLog.write(context.logger, method: request.method, path: request.uri.description)
        return try await next(request, context)
    }
}
