import AsyncHTTPClient
import NIOPosix

/// Runs `body` with one `HTTPClient` (as production code shares one) and shuts it down afterwards.
func withTestHTTPClient<Result>(_ body: (HTTPClient) async throws -> Result) async throws -> Result {
    let client = HTTPClient(eventLoopGroup: MultiThreadedEventLoopGroup.singleton)
    do {
        let result = try await body(client)
        try await client.shutdown()
        return result
    } catch {
        try? await client.shutdown()
        throw error
    }
}
