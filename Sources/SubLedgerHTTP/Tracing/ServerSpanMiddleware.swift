import HTTPTypes
import Hummingbird
import Synchronization
import Tracing

/// A server span per request, with traces on (docs/guides/operate.md, "Traces"), as the OpenTelemetry HTTP semantic
/// conventions describe one: named `{method} {http.route}` once the router has matched a route (the method alone
/// when none matched), continuing the caller's `traceparent`, with the request's method, scheme, path and query, the
/// server's address and port as the client named them (`Host`), the route, the status answered and, for a 5xx,
/// `error.type` and the error status. The span ends once the response body has been written.
struct ServerSpanMiddleware<Context: RequestContext>: RouterMiddleware {
    func handle(
        _ request: Request, context: Context, next: (Request, Context) async throws -> Response
    ) async throws -> Response {
        var parent = InstrumentationContext.current ?? .topLevel
        InstrumentationSystem.instrument.extract(request.headers, into: &parent, using: HTTPFieldsExtractor())
        let method = ServerSpanDescription.method(request.method.rawValue)
        let span = startSpan(method, context: parent, ofKind: .server)
        span.updateAttributes { attributes in
            for (name, value) in ServerSpanDescription.requestAttributes(
                method: request.method.rawValue, path: request.uri.path, query: request.uri.query,
                authority: request.head.authority, userAgent: request.headers[.userAgent])
            {
                attributes[name] = value
            }
        }
        do {
            var response = try await InstrumentationContext.$current.withValue(span.context) {
                try await next(request, context)
            }
            Self.finish(span, method: method, route: context.endpointPath, status: Int(response.status.code))
            let body = response.body
            let end = SpanEnd(span)
            response.body = ResponseBody(contentLength: body.contentLength) { writer in
                defer { end.end() }
                try await body.write(writer)
            }
            return response
        } catch {
            // An error that is an answer (the error mapping's) is classed by its status, like one returned.
            let answer = error as? any HTTPResponseError
            let status = Int(answer?.status.code ?? 500)
            Self.finish(
                span, method: method, route: context.endpointPath, status: status, error: answer == nil ? error : nil)
            span.recordError(error)
            span.end()
            throw error
        }
    }

    /// Names the span for its route and records the answer.
    static func finish(_ span: any Span, method: String, route: String?, status: Int, error: (any Error)? = nil) {
        span.operationName = ServerSpanDescription.name(method: method, route: route)
        span.updateAttributes { attributes in
            for (name, value) in ServerSpanDescription.responseAttributes(route: route, status: status, error: error) {
                attributes[name] = value
            }
        }
        if ServerSpanDescription.isServerError(status) { span.setStatus(SpanStatus(code: .error)) }
    }
}

/// Ends a span once: after the response body was written, or when the response is dropped unwritten.
private final class SpanEnd: Sendable {
    private let span: Mutex<(any Span)?>

    init(_ span: any Span) {
        self.span = Mutex(span)
    }

    func end() {
        span.withLock { span in
            span?.end()
            span = nil
        }
    }

    deinit {
        end()
    }
}

/// Reads the trace context (`traceparent`, `tracestate`) from a request's header fields.
private struct HTTPFieldsExtractor: Extractor {
    func extract(key name: String, from headers: HTTPFields) -> String? {
        HTTPField.Name(name).flatMap { headers[$0] }
    }
}
