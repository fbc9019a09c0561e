import Hummingbird
import Logging
import NIOCore
import SubLedgerUseCases

/// The request context of every route: Hummingbird's core storage plus the authenticated API key.
public struct SubLedgerRequestContext: RequestContext {
    public var coreContext: CoreRequestContextStorage
    /// Set by the API-key middleware on authenticated routes.
    var apiKey: AuthenticatedKey?
    /// The request's `SubLedger-Consistency-Token`, checked (`ConsistencyTokenMiddleware`).
    var consistencyToken: ConsistencyTokens.Token?
    /// The client's address (the audit log's "from where"); formatted only when an entry is written.
    var remoteAddress: SocketAddress?

    public init(source: ApplicationRequestContextSource) {
        coreContext = .init(source: source)
        remoteAddress = source.channel.remoteAddress
    }

    /// Bodies larger than 1 MiB are refused with 413 before they are read.
    public var maxUploadSize: Int { 1024 * 1024 }

    /// The key of an authenticated route (the middleware guarantees it is set there).
    func requireKey() throws -> AuthenticatedKey {
        guard let apiKey else {
            var error = APIError(.unauthorized, code: .unauthorized, message: "a valid API key is required")
            error.challenge = APIKeyMiddleware.bearerChallenge
            throw error
        }
        return apiKey
    }
}
