import Hummingbird
import SubLedgerUseCases

/// Refuses a request whose `Content-Length` is above the context's upload limit with 413 at once, before any of
/// the body is read (the server then discards what the client still sends, as for any unread body).
///
/// Without it the refusal came only after the limit was read, and a client that announced a large body and sent
/// none held the request open until the idle timeout.
struct BodyLimitMiddleware: RouterMiddleware {
    typealias Context = SubLedgerRequestContext

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws
        -> Response
    {
        if let declared = request.headers[.contentLength], let length = Int(declared), length > context.maxUploadSize {
            throw APIError.bodyTooLarge(limit: context.maxUploadSize)
        }
        return try await next(request, context)
    }
}
