import HTTPTypes
import Hummingbird
import Logging
import SubLedgerUseCases

/// Read-your-writes (docs/guides/scale-out.md, "Read replicas"): a successful write's response carries
/// `SubLedger-Consistency-Token`, the primary's WAL position after the write committed; a request presenting
/// one has it checked here (a 400 for anything that is not a token) and handed to the read routing.
struct ConsistencyTokenMiddleware: RouterMiddleware {
    typealias Context = SubLedgerRequestContext

    static let header = HTTPField.Name("SubLedger-Consistency-Token")!

    /// The primary's positions, and what a token is.
    let tokens: ConsistencyTokens
    /// The stores' push routes, whose responses carry no token (`StoreRegistry.pushPathsWithoutConsistencyToken`).
    let pushPaths: Set<String>
    let logger: Logger

    func handle(
        _ request: Request, context: Context, next: (Request, Context) async throws -> Response
    ) async throws -> Response {
        let presented = request.headers[values: Self.header]
        var response: Response
        if presented.isEmpty {
            // The context goes on as it came: copying it (and its storage) for nothing cost every request.
            response = try await next(request, context)
        } else {
            guard presented.count == 1, let token = tokens.token(presented[0]) else {
                throw APIError.badRequest(
                    .invalidConsistencyToken,
                    "SubLedger-Consistency-Token must be one token exactly as a write's response carried it")
            }
            var context = context
            context.consistencyToken = token
            response = try await next(request, context)
        }
        guard
            Self.carriesToken(
                method: request.method, status: response.status.code, path: request.uri.path, pushPaths: pushPaths)
        else {
            return response
        }
        // Read after the handler's commits: the insert position is at or past every record they wrote. A write that
        // succeeded stays a success when this fails (the client then reads without a token).
        do {
            response.headers[Self.header] = try await tokens.primary().description
        } catch {
            logger.debug("could not read the WAL position for a consistency token", metadata: ["error": "\(error)"])
        }
        return response
    }

    /// Whether a response gets a token: a successful write's, except a store's push (`pushPaths`: Apple's Server
    /// Notifications, Google's Pub/Sub push, each registered store's push route), which its sender never reads, and
    /// whose extra round trip would cost every push.
    static func carriesToken(
        method: HTTPRequest.Method, status: Int, path: @autoclosure () -> String, pushPaths: Set<String>
    ) -> Bool {
        writes(method) && (200..<300).contains(status) && !pushPaths.contains(path())
    }

    static func writes(_ method: HTTPRequest.Method) -> Bool {
        method == .post || method == .put || method == .patch || method == .delete
    }
}
