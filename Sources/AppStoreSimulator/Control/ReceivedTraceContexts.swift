import Hummingbird
import Synchronization

/// The W3C `traceparent` headers of the latest requests to the simulated Apple endpoints (at most `capacity`,
/// oldest first), so a test can check that a caller sends its trace along: `GET /control/trace-contexts`.
final class ReceivedTraceContexts: Sendable {
    /// One request that carried a `traceparent`.
    struct Entry: Encodable, Sendable {
        var method: String
        var path: String
        var traceparent: String
    }

    static let capacity = 100
    private let entries = Mutex<[Entry]>([])

    func record(_ entry: Entry) {
        entries.withLock { entries in
            entries.append(entry)
            if entries.count > Self.capacity { entries.removeFirst(entries.count - Self.capacity) }
        }
    }

    var all: [Entry] { entries.withLock { $0 } }
}

/// Keeps the `traceparent` of every request it sees in `ReceivedTraceContexts` (added after the control routes,
/// so only Apple's endpoints are recorded).
struct TraceContextRecorder<Context: RequestContext>: RouterMiddleware {
    let contexts: ReceivedTraceContexts

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response)
        async throws -> Response
    {
        if let field = request.headers.first(where: { $0.name.canonicalName == "traceparent" }) {
            contexts.record(.init(method: request.method.rawValue, path: request.uri.path, traceparent: field.value))
        }
        return try await next(request, context)
    }
}
