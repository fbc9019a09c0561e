import AppStore

/// A production and a sandbox Server API client for one app, trying production first.
///
/// Apple keeps sandbox and production transactions apart: a transaction id unknown in one environment
/// (error 4040010) may exist in the other, so lookups by id ask production, then the sandbox.
public struct AppStoreServerAPIEnvironments: Sendable {
    /// The production client.
    public let production: AppStoreServerAPIClient
    /// The sandbox client.
    public let sandbox: AppStoreServerAPIClient

    /// Creates the pair.
    public init(production: AppStoreServerAPIClient, sandbox: AppStoreServerAPIClient) {
        self.production = production
        self.sandbox = sandbox
    }

    /// Runs `operation` against production; on `transactionIDNotFound`, runs it against the sandbox.
    public func withEnvironmentFallback<Result: Sendable>(
        _ operation: (AppStoreServerAPIClient) async throws(AppStoreServerAPIError) -> Result
    ) async throws(AppStoreServerAPIError) -> Result {
        do {
            return try await operation(production)
        } catch  where error.code == .transactionIDNotFound {
            return try await operation(sandbox)
        }
    }
}
