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
    let logger: Logger

    func handle(
        _ request: Request, context: Context, next: (Request, Context) async throws -> Response
    ) async throws -> Response {
        var context = context
        let presented = request.headers[values: Self.header]
        if !presented.isEmpty {
            guard presented.count == 1, let token = tokens.token(presented[0]) else {
                throw APIError.badRequest(
                    .invalidConsistencyToken,
                    "SubLedger-Consistency-Token must be one token exactly as a write's response carried it")
            }
            context.consistencyToken = token
        }
        var response = try await next(request, context)
        guard Self.writes(request.method), (200..<300).contains(response.status.code),
            request.uri.path != Self.appleNotificationsPath
        else { return response }
        // Read after the handler's commits: the insert position is at or past every record they wrote. A write that
        // succeeded stays a success when this fails (the client then reads without a token).
        do {
            response.headers[Self.header] = try await tokens.primary().description
        } catch {
            logger.debug("could not read the WAL position for a consistency token", metadata: ["error": "\(error)"])
        }
        return response
    }

    /// Apple's notification posts get no token: Apple never reads one, and the extra round trip would cost every
    /// notification.
    static let appleNotificationsPath = "/v1/notifications/appstore"

    static func writes(_ method: HTTPRequest.Method) -> Bool {
        method == .post || method == .put || method == .patch || method == .delete
    }
}
